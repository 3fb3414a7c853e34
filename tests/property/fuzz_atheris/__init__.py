"""Coverage-guided fuzzing of the diff engine with atheris (libFuzzer for Python).

Usage::

    python -m tests.property.fuzz_atheris --runs 100000 [--seconds T] [--crash-dir DIR]
                                          [--corpus-dir DIR] [--max-len BYTES]
    python -m tests.property.fuzz_atheris --replay FILE [FILE ...]
    python -m tests.property.fuzz_atheris --minimize FILE

atheris (``pip install atheris``) drives the input; the properties are the
ones the property fuzzer checks
(:func:`tests.property.fuzz_diff.checks.check_input`):
only ``NotADiffError`` from the parser and ``InvalidArgument`` from the
filters, sections that tile the input byte for byte, every file kept or
excluded exactly once, chunk budgets and counts, every chunk rendered and
formatted in every mode, chunks of sound files re-parsing to the same changes,
``reduce_context`` output re-parsing to the same files and counts.  On top of
those, one input (every call on it together) must take less than
``--time-limit`` seconds.  Applying chunks with ``git apply`` needs a
repository per case and stays with ``python -m tests.property.fuzz_diff`` (its
``git`` cases); this harness runs in process.

An input is ``OPTION_BYTES`` option bytes followed by the diff text.  The option
bytes answer the draws ``check_input`` makes (skip trivial or generated files,
include/exclude patterns, gitattributes, chunk budgets, context lines), so the
fuzzer explores options and text together and a saved input replays exactly.

The seed corpus: the fixtures (``fixtures/``, ``fixtures/fuzz/`` but for its
``crash-*`` inputs still being looked at) and, when
present, windows of at most ``--max-len`` bytes of the ``../shared/corpus``
files, each starting at a section header.  A libFuzzer dictionary is made
from ``tests.property.fuzz_diff.mutators.INTERESTING_LINES``.  Only the ``diffchunk.diff``
modules are instrumented.

The run happens in a child process (libFuzzer ends the process when it is
done); this command reads its output and prints executions, the coverage
figures libFuzzer reports (``cov``: covered edges of the instrumented code,
``ft``: features, ``corp``: corpus entries) at the start and at the end, and
every distinct failure.  A failing input is written to ``--crash-dir`` as
``<kind>-<hash>`` (kinds: ``error``, ``property``, ``slow``) with its
traceback in ``<kind>-<hash>.txt``; the run goes on (``--stop-on-crash``
ends it at the first one).  The instrumented child is slower than plain
Python, so it flags inputs over ``--time-limit`` times ``--slack`` and every
saved failure is then replayed in a fresh, uninstrumented process, where
``slow`` means over ``--time-limit`` itself.  The last line printed is
``N executions, N distinct failures (N confirmed)``; the exit code is 1 when
a failure other than an unconfirmed ``slow`` one was found.

``--replay`` checks saved inputs in plain Python and prints each failure's
traceback; ``--minimize`` shrinks a failing input (whole hunks and files,
then lines, then bytes, then option bytes set to zero) while it fails the
same way, and prints what is left.

Modules: ``inputs`` (one input, its checks, the recorder of failures),
``corpus`` (seeds and dictionary), ``minimize`` (replay and minimize),
``child`` (the instrumented process), ``driver`` (runs the child and reads
its figures), ``cli`` (the command line; ``__main__`` calls it).
"""
