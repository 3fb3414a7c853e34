"""The ``diffchunk`` console script.

Kept apart from :mod:`diffchunk.cli` so that the cycle collector is already
off while the command line's modules load (see :func:`diffchunk.cli.run`),
and so that ``diffchunk review RANGE`` can start ``git diff`` before they
load: git spends its first 100 ms or more on the tree diff and the renames
before it writes anything, and click and the pipeline load meanwhile.
"""

from __future__ import annotations

import gc
import os
import sys

# A command is short-lived and makes few reference cycles: the cycle collector
# would only cost time (several ms after a large review builds its objects),
# and the memory goes back at exit.  `diffchunk mcp`, which runs for long,
# turns it back on.
gc.disable()

# ``diffchunk review``'s options (see diffchunk.cli.review): flags, and those
# taking a value.  A test checks these against the command.
REVIEW_FLAGS = frozenset({"--staged", "--json", "--no-skip-trivial", "--no-skip-generated"})
REVIEW_VALUED = frozenset(
    {
        "--repo",
        "--chunk",
        "--file",
        "--format",
        "--out",
        "--max-chunk-lines",
        "--include",
        "--exclude",
        "--context-lines",
        "--gitattributes",
    }
)


def main() -> None:
    """Run the ``diffchunk`` command (exits the process)."""
    if sys.argv[1:2] == ["review"]:
        from .termination import install

        install()  # SIGTERM/SIGHUP end a review as Ctrl-C does
        _start_review(sys.argv[2:])
    from .cli import run

    run()


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
            staged = staged or name == "--staged"
        elif name in REVIEW_VALUED and name != "--gitattributes":
            if not eq:
                following = next(rest, None)
                if following is None:
                    return None
                value = following
            if name == "--repo":
                repo = value
        else:
            return None
    return target, repo, staged


def _start_review(args: list[str]) -> None:
    """Start the review's git diff early when ARGS name a range (see start_early)."""
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
        from .review.early_start import start_early

        start_early(path, target, staged)
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted.\n")
        raise SystemExit(130) from None
    except Exception:  # e.g. the current directory is gone: the command reports it
        return
