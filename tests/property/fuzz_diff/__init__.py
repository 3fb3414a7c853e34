"""Property fuzzing of the diff engine: parse, filter, chunk, render, format, reduce.

Usage::

    python -m tests.property.fuzz_diff --cases 100000 [--seed N] [--minutes M]
                                       [--git-every K] [--quiet]

Each case is one input, made by one of three generators:

- *mutated*: a real diff (``fixtures/``, ``fixtures/fuzz/``, the small files of
  ``../shared/corpus`` when present), or a line window of it, with a few random
  mutations: byte flips, line deletions/duplications/swaps, hunk header count
  changes, CRLF insertions, truncations, stripped context, diff-like lines
  inserted, two diffs spliced;
- *structural*: a well-formed diff written from a random model (git, plain
  unified, svn and ``git log -p`` styles; renames, copies, new/deleted files,
  mode changes, binary markers and payloads, no-newline markers, CRLF
  content, diff-like content lines), with the parse result it must give;
- *git* (every ``--git-every`` cases): a real repository built in a temporary
  directory from random contents and edits, diffed with ``git diff --binary``.

Properties checked on every input (see :func:`.checks.check_input`): only
``NotADiffError`` from the parser; every call under one second; sections tile
the input byte for byte; the fast parse (hunks checked as a block and built
on first use) reads exactly what the exact per-hunk parse reads; every file kept or excluded exactly once; chunk
counts and budgets; every chunk rendered and formatted in every mode;
``reduce_context`` output re-parses with the same files and change counts.
Structural inputs must parse to their model; git inputs must apply chunk by
chunk in order (also after context reduction), ending at the target tree.

A failing input is written to ``fixtures/fuzz/crash-<hash>.diff`` with its
traceback in ``crash-<hash>.txt`` (git ignores these names: once the bug is
fixed, keep the input as a seed under a name that says what it found).  The
last line printed is ``N passed, N failed``.

Modules: ``draws`` (one interface for :class:`random.Random` and hypothesis
draws), ``seeds``, ``mutators``, ``structural`` and ``git_cases`` (the three
generators; ``git_cases`` also applies the chunks), ``checks`` (the
properties), ``__main__`` (the long run).  The suite drives the same
generators and checks with hypothesis (``tests/test_fuzz_diff.py``).
"""
