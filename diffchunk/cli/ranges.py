"""``diffchunk review RANGE``: the git side of the review command.

``diffchunk review`` reads its argument as a diff file when such a file
exists, else as a git range of the repository (``--repo``, default: the
current directory); this loads the range (its overview is rendered by
:mod:`diffchunk.cli.render`) and says what a name that is neither was.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import click

from ..diff.options import LoadOptions, Progress
from ..errors import DiffchunkError, NotARange, PathError
from ..paths import review_repo_path
from ..review.results import RangeSummary


def load_range(
    target: str | None,
    repo: str | None,
    staged: bool,
    options: LoadOptions,
    progress: Progress | None,
    since_review: bool = False,
    paths: Sequence[str] = (),
    review_id: int | None = None,
) -> RangeSummary:
    """Generate (or reuse) the range's diff and load it (``summary.file_path``: the cached
    diff)
    (``since_review``: the diff of what changed since the range's last review;
    ``paths``, relative to the repository's top, limit the range)."""
    from ..review.incremental.load import load_git_diff

    if options.gitattributes_path is not None:
        raise click.UsageError(
            "--gitattributes applies to diff files; a git range uses the repository's "
            "own .gitattributes."
        )
    where = review_repo_path(repo)
    try:
        summary = load_git_diff(
            where,
            target,
            staged,
            options,
            progress=progress,
            since_review=since_review,
            paths=from_top(where, paths) or None,
            review_id=review_id,
        )
    except NotARange as exc:  # TARGET may have been meant as a file name
        if target is None or staged:
            raise
        raise _not_a_file_nor_a_range(target, exc) from exc
    return summary


def from_top(where: str, paths: Sequence[str]) -> tuple[str, ...]:
    """``paths`` as given on the command line in directory ``where`` (the current
    directory, or ``--repo``), made relative to the repository's top, as git reads
    the paths after ``--``; a path outside the work tree is refused."""
    if not paths:
        return ()
    from ..git.repo import discover

    top = discover(where).root
    if top is None:  # a bare repository: its paths are the tree's
        return tuple(paths)
    real_top = os.path.realpath(top)
    here = os.path.realpath(where)
    shown = []
    for path in paths:
        full = os.path.normpath(os.path.join(here, os.path.expanduser(path)))
        relative = os.path.relpath(full, real_top)
        if relative == os.pardir or relative.startswith(os.pardir + os.sep):
            raise PathError(
                f"{path!r} leads out of the repository (its work tree is {top}).",
                suggestion="Name paths inside it, relative to the current directory (or to "
                "--repo), as for git diff.",
            )
        shown.append("." if relative == os.curdir else relative)
    return tuple(shown)


_DIFF_SUFFIXES = (".diff", ".patch")


def _not_a_file_nor_a_range(target: str, exc: NotARange) -> DiffchunkError:
    """The error for a TARGET that is no existing file and no range here.

    A name that can only be a file's (starting where no revision name can:
    ``/``, ``./``, ``../``, ``~``; or ending in .diff or .patch, and not a
    range ``A..B``) is said to be a missing file; another with a path
    separator (``docs/x``, but also a branch ``origin/main``) is said to be
    neither, with what git said of it.
    """
    name = target.lower()
    rooted = name.startswith("~") or os.path.isabs(name)
    if (
        rooted
        or name.startswith(("./", "../"))
        or (name.endswith(_DIFF_SUFFIXES) and ".." not in name)
    ):
        where = "" if rooted else ": a relative path is taken from the current directory"
        return PathError(
            f"The diff file {target!r} does not exist (nor is it a revision).",
            suggestion=f"Check its path{where}.",
        )
    if "/" in name or os.sep in name or (os.altsep and os.altsep in name):
        return NotARange(
            f"No file {target!r} exists, nor is it a revision here: {exc.message}",
            suggestion=exc.suggestion,
        )
    return NotARange(
        f"{target!r} is not an existing diff file, nor a range here: {exc.message}",
        suggestion=exc.suggestion,
    )
