"""``diffchunk reviews``: the reviews of the repository here, latest first.

Each line: the review's id, its range (as given), the commits of its latest
load, its coverage (files reviewed of its files, read from the cached diff of
that load; ``?`` when that diff is no longer cached) and its open findings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from ..limits import SHORT_ID
from .output import echo_json
from .params import CONTEXT_SETTINGS, SafePath
from .terminal import paged, paint

if TYPE_CHECKING:
    from ..review.page.latest import RepositoryReview


def _coverage(review: RepositoryReview) -> tuple[int, int] | None:
    """``(reviewed, files)`` of the review's latest load, when its diff is still cached."""
    if review.diff_file is None:
        return None
    from ..errors import DiffchunkError
    from ..review import record

    try:
        totals = record.review_status(review.diff_file, max_chars=None).totals
    except DiffchunkError:
        return None
    return totals.reviewed, totals.files - totals.excluded


def _row(review: RepositoryReview, coverage: tuple[int, int] | None) -> dict[str, Any]:
    latest = review.latest
    return {
        "id": latest.review_id,
        "range": latest.revision_range,
        "staged": latest.staged,
        "paths": list(latest.paths),
        "base": review.base,
        "head": review.head,
        "loaded_at": latest.loaded_at,
        "reviewed": coverage[0] if coverage else None,
        "files": coverage[1] if coverage else None,
        "open_findings": review.open_findings,
    }


def _line(row: dict[str, Any]) -> str:
    target = ("--staged " if row["staged"] else "") + (row["range"] or "(uncommitted changes)")
    if row["paths"]:
        target += " -- " + " ".join(row["paths"])
    shown = f"{(row['base'] or 'empty tree')[:SHORT_ID]}..{(row['head'] or 'work tree')[:SHORT_ID]}"
    covered = f"{row['reviewed']}/{row['files']}" if row["files"] is not None else "?"
    opened = ", ".join(f"{n} {s}" for s, n in row["open_findings"].items()) or "none"
    return (
        f"#{row['id']:<4} {target:<28} {shown:<26} {covered:>9}  "
        f"{paint(opened, 'major') if row['open_findings'] else opened}"
    )


@click.command(context_settings=CONTEXT_SETTINGS)
@click.option(
    "--repo",
    type=SafePath(file_okay=False),
    metavar="PATH",
    help="The repository (default: the current directory).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def reviews(repo: str | None, as_json: bool) -> None:
    """List the reviews of the repository here, latest first.

    Each review: its id, its range as given, the commits of its latest load,
    the files reviewed of its files, and its open findings by severity. The
    first is the one status, mark, finding, export and next act on without a
    target.

    \b
    Examples:
      diffchunk reviews
      diffchunk reviews --repo ~/src/project --json
      diffchunk status main..feature    # another review than the latest
    """
    from ..errors import NotARange
    from ..paths import review_repo_path
    from ..review.page.latest import repository_reviews

    where = review_repo_path(repo)
    try:
        found = repository_reviews(where)
    except NotARange as exc:
        raise NotARange(
            f"{where} is not inside a git repository.",
            suggestion="Run it in a repository, or name one with --repo PATH.",
        ) from exc
    rows = [_row(r, _coverage(r)) for r in found]
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("No reviews of this repository yet: start one with diffchunk review RANGE.")
        return
    with paged():
        header = f"{'id':<5} {'range':<28} {'commits':<26} {'reviewed':>9}  open findings"
        click.echo(paint(header, "bold"))
        for row in rows:
            click.echo(_line(row))
