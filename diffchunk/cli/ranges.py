"""``diffchunk review RANGE``: the git side of the review command.

``diffchunk review`` reads its argument as a diff file when such a file
exists, else as a git range of the repository (``--repo``, default: the
current directory); these helpers load the range and print its overview.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import click

from ..diff.options import LoadOptions, Progress
from ..errors import DiffchunkError, NotARange, PathError
from ..limits import SHORT_ID
from ..paths import review_repo_path
from .output import shell_word


def load_range(
    target: str | None,
    repo: str | None,
    staged: bool,
    options: LoadOptions,
    progress: Progress | None,
    since_review: bool = False,
    paths: Sequence[str] = (),
    review_id: int | None = None,
) -> tuple[str, dict[str, Any]]:
    """Generate (or reuse) the range's diff and load it; ``(cached diff path, summary)``
    (``since_review``: the diff of what changed since the range's last review;
    ``paths``, relative to the repository's top, limit the range)."""
    from ..review.incremental.load import load_git_diff

    if options.gitattributes_path is not None:
        raise click.UsageError(
            "--gitattributes applies to diff files; a git range uses the repository's "
            "own .gitattributes."
        )
    try:
        summary = load_git_diff(
            review_repo_path(repo),
            target,
            staged,
            options,
            progress=progress,
            since_review=since_review,
            paths=paths or None,
            review_id=review_id,
        )
    except NotARange as exc:  # TARGET may have been meant as a file name
        if target is None or staged:
            raise
        raise _not_a_file_nor_a_range(target, exc) from exc
    return summary.file_path, summary.to_dict()


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


def render_range_overview(
    summary: dict[str, Any],
    listing: dict[str, Any],
    render_overview: Any,
) -> str:
    """The overview of a range: what was compared, the chunks, and how to read them."""
    path = summary["file_path"]
    base = (summary.get("base") or "empty tree")[:SHORT_ID]
    head = (summary.get("head") or ("index" if "index" in summary["range"] else "working tree"))[
        :SHORT_ID
    ]
    reused = " (cached diff reused)" if summary.get("cached") else ""
    limited = f" -- {' '.join(summary['paths'])}" if summary.get("paths") else ""
    lines = [f"{summary['range']}{limited} in {summary['repo']}: {base}..{head}{reused}"]
    if summary.get("paths_note"):
        lines.append(f"  {summary['paths_note']}")
    lines.extend(since_lines(summary.get("since_review")))
    lines.extend(overlap_lines(summary))
    body = render_overview(summary, listing, path, next_step=False)  # said below
    lines.append(body.rstrip("\n"))
    from ..review.sessions.views import is_view_path, read_view

    if is_view_path(path):  # a view: these options, of the cached diff
        lines.append(f"View (these options): {path}")
        lines.append(f"Cached diff (default options): {read_view(path).diff}")
    else:
        lines.append(f"Cached diff: {path}")
    if listing["chunks"]:
        lines.append(f"Read chunk N:  diffchunk review --chunk N {shell_word(path)}")
        lines.append(f'  or over MCP: get_chunk(absolute_file_path="{path}", chunk_number=N)')
    return "\n".join(lines) + "\n"


def overlap_lines(summary: dict[str, Any]) -> list[str]:
    """The earlier reviews a load's new review overlaps, and how to continue one."""
    overlaps = summary.get("overlapping_reviews") or []
    if not overlaps:
        return []
    lines = ["This load started a new review; earlier reviews of this repository overlap it:"]
    for o in overlaps:
        lines.append(
            f"  review {o['id']}: {o['range']} ({o['reviewed']} files reviewed, "
            f"{o['open_findings']} open findings)"
        )
    lines.append(f"  Continue one: diffchunk review RANGE --review {overlaps[0]['id']}")
    return lines


def since_lines(since: dict[str, Any] | None) -> list[str]:
    """What changed since the last review, as ``diffchunk review RANGE`` prints it."""
    if not since:
        return []
    revision = since.get("revision")
    if revision is None:
        return [f"  {since.get('note', '')}"]
    shown = (
        f"{(revision['base'] or 'empty tree')[:SHORT_ID]}..{(revision['head'] or '')[:SHORT_ID]}"
    )
    lines = [f"Since the review of {shown} ({revision['loaded_at']}): history {since['history']}"]
    if since.get("commits_gone"):
        return [*lines, f"  {since['note']}"]
    files = since["files"]
    lines.append(
        f"  {files['unchanged']} unchanged, {files['changed']} changed, {files['new']} new, "
        f"{files['no_longer_changed']} no longer changed"
    )
    for key, what in (("no_longer_changed", "no longer changed"), ("interdiff", "interdiff")):
        for path in since.get(key, []):
            lines.append(f"  {what}: {path}")
    if "full_file_path" in since:
        lines.append(
            f"  This diff holds only what changed since; the full diff: {since['full_file_path']}"
        )
    return lines
