"""The console scripts, ``diffchunk`` and ``diffchunk-mcp``: every start-up measure of the
commands, in one place.

A command is short, so Python's start, the imports and the teardown are a
large part of it.  The measures below cut that part; each is kept because
``make bench-startup`` (``benchmarks/bench_startup.py``) shows its worth,
and the README's performance section gives the figures.  ``main(off=...)``
switches measures off for that benchmark.

``gc``
    The cycle collector is off for the whole command: a command makes few
    reference cycles and its memory goes back at exit, while a collection
    after a large review has built its objects costs several milliseconds.
    ``diffchunk-mcp`` (:func:`serve_mcp`) keeps it off for its imports alone,
    as ``diffchunk mcp`` does: some 220 collections ran during them, 75 ms (timed
    through ``gc.callbacks``) of the server's 0.6 s of imports and tool
    registration.  The server then freezes what they built and turns the
    collector on (:func:`diffchunk.server.serve`): it runs for long.
``early``
    ``diffchunk review RANGE`` starts ``git diff`` before click and the
    pipeline load (:mod:`diffchunk.review.ranges.early_start`): git spends its first
    100 ms or more on the tree diff and the renames before it writes
    anything, and the imports run meanwhile.  The command line is read ahead
    of click for this (:func:`review_range`), only to know what to start:
    click still reads it, and anything unusual starts nothing early.
``exit``
    Once the command is done and only this thread is left, the exit
    handlers run and the standard streams are flushed, and the process ends
    (``os._exit``) without freeing every object and module one by one, which
    takes tens of milliseconds after loading a large diff.  Anywhere else
    (threads still running, a stream that cannot be flushed, a Python
    without ``atexit._run_exitfuncs``) it exits the ordinary way.

Two measures of the same kind act where they are needed, in every process
and not only the command's: a parse and a build pause the collector
(:func:`diffchunk.diff.pipeline.gc_paused`), and the modules that load before
git starts log through :class:`diffchunk.log.LazyLogger` (``logging`` loads
only when a record could be shown).  Subcommands load on first use
(:data:`diffchunk.cli.SUBCOMMANDS`).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Collection

# ``diffchunk review``'s options, flags and those taking a value: the table the
# command declares them from (click is not loaded to read them).
from .review.ranges.command_line import REVIEW_FLAGS, REVIEW_VALUED, option

#: The measures :func:`main` takes (see the module docstring).
MEASURES = frozenset({"gc", "early", "exit"})


def main(off: Collection[str] = ()) -> None:
    """Run the ``diffchunk`` command (exits the process); ``off``: measures left out."""
    if "gc" not in off:
        gc.disable()
    if sys.argv[1:2] == ["review"]:
        from .termination import install

        install()  # SIGTERM/SIGHUP end a review as Ctrl-C does
        if "early" not in off:
            _start_review(sys.argv[2:])
    from .cli import main as command

    def run() -> None:
        command(prog_name="diffchunk")

    if "exit" in off:
        run()
    else:
        _run_then_exit(run)


def serve_mcp() -> None:
    """Run the ``diffchunk-mcp`` command: the server's imports with the collector off
    (``gc`` above), then the server, which turns it on."""
    gc.disable()
    from .server import main as serve

    serve()


def review_range(args: list[str]) -> tuple[str | None, str | None, bool] | None:
    """``(target, --repo, --staged)`` of ``diffchunk review ARGS``, read ahead of click.

    ``None`` unless ARGS are plainly a review of one target: any option this
    does not know (``--help`` too), a second target, ``--`` or a missing
    value give ``None``, and so does ``--gitattributes`` (not for a range).
    Click still reads the command line; this only says what to start early.
    """
    target: str | None = None
    repo: str | None = None
    staged = False
    rest = iter(args)
    for arg in rest:
        if not arg.startswith("-"):
            if target is not None:
                return None
            target = arg
            continue
        name, eq, value = arg.partition("=")
        if name in REVIEW_FLAGS and not eq:
            staged = staged or name == option("staged")
        elif name in REVIEW_VALUED and name != option("gitattributes"):
            if not eq:
                following = next(rest, None)
                if following is None:
                    return None
                value = following
            if name == option("repo"):
                repo = value
        else:
            return None
    return target, repo, staged


def _start_review(args: list[str]) -> None:
    """Start the review's git diff early when ARGS name a range (see ``early`` above)."""
    try:
        wanted = review_range(args)
        if wanted is None:
            return
        target, repo, staged = wanted
        from .paths import is_diff_file, review_repo_path

        if is_diff_file(target, staged):
            return
        path = review_repo_path(repo)
        if repo is not None and not os.access(path, os.R_OK):
            return  # click refuses an unreadable --repo: git must not run there
        from .paths import PathPolicy, roots_in_force
        from .review.ranges.early_start import start_early

        with roots_in_force(PathPolicy.from_env()):  # as the command itself checks them
            start_early(path, target, staged)
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted.\n")
        raise SystemExit(130) from None
    except Exception:  # e.g. the current directory is gone: the command reports it
        return


def _run_then_exit(run: Callable[[], None]) -> None:
    """``run()``, then end the process without the teardown (see ``exit`` above)."""
    import atexit

    try:
        run()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if not isinstance(code, (int, type(None))) or run_exit_handlers is None:
        raise SystemExit(code)
    import threading

    if threading.active_count() > 1:
        raise SystemExit(code)
    try:
        _flush_standard_streams()
    except (OSError, ValueError):
        raise SystemExit(code) from None
    run_exit_handlers()
    if "logging" in sys.modules:
        sys.modules["logging"].shutdown()
    try:
        _flush_standard_streams()
    except (OSError, ValueError):
        code = 120  # what Python exits with when its final flush fails
    os._exit(code or 0)


def _flush_standard_streams() -> None:
    # A stream is None when the process started with that descriptor closed.
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
