"""Which review a load of a commit range continues, whatever its spelling.

A review is of a repository and a change, not of the range's text.  A load of
a commit range resolves it to commits (base: the merge base for ``A...B``;
``C^!`` is ``C~1..C``) and finds its review by keys (table ``review_keys``):

- ``commits``: repository + base + head commit.  Any spelling of the same
  two commits (a tag, a branch, an id, ``A..B`` or ``A...B`` when the merge
  base is ``A``, ``C^!`` or ``C~1..C``) finds the same review;
- ``branch``: repository + the kind of range + the base as given (its ref,
  ``refs/heads/main``, else its commit; ``^N`` for ``feature^!``/``feature^-N``)
  + the head's branch, when the head was given as a branch (``main..feature``,
  ``feature^!``): when the branch moves (new
  commits, an amend, a rebase onto a ``main`` that moved), the next load finds
  the branch's review, and ``since_review`` compares with what was reviewed.

The branch key is tried first, then the commits key; a load adds both keys
to the review it continues (a key already owned by another review stays
with it).  A load that names its review (``review_id``: ``load_git_diff(...,
review_id=N)``, ``diffchunk review RANGE --review N``) continues that one,
and takes its keys over: the next load of that spelling continues it too.

When no key matches (another base, another branch with the same commits, a
tag where a branch was reviewed), the load starts a review, and names the
earlier reviews of the repository it may have meant (:func:`overlapping`):
those whose current revision has the same base or the same head, or whose
keys name the same branch.  A range of the working tree or the index keeps its identity
by its text and work tree (:mod:`.identity`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import InvalidArgument
from .model import RecordedReview

OVERLAPPING_REVIEWS_LISTED = 5
"""Earlier reviews a load names when it cannot tell which one it continues (the
latest first): enough to choose from; more are counted."""


@dataclass(frozen=True, slots=True)
class BranchKey:
    """How a range whose head is a branch was given: its kind (``two-dot``,
    ``three-dot``), its base (a ref, else the base commit) and its head branch."""

    kind: str
    base: str
    branch: str


@dataclass(frozen=True, slots=True)
class Overlap:
    """An earlier review a load may have meant to continue."""

    review_id: int
    range: str | None
    reviewed: int  # files marked reviewed
    open_findings: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.review_id,
            "range": self.range,
            "reviewed": self.reviewed,
            "open_findings": self.open_findings,
        }


def keys(repository: str, base: str | None, head: str, branch: BranchKey | None) -> list[str]:
    """The keys of a commit range's load, the branch's first."""
    found = [f"commits\0{repository}\0{base or ''}\0{head}"]
    if branch is not None:
        found.insert(0, f"branch\0{repository}\0{branch.kind}\0{branch.base}\0{branch.branch}")
    return found


def find(conn: sqlite3.Connection, wanted: Sequence[str]) -> int | None:
    """The review the first of ``wanted`` that the record holds names."""
    for key in wanted:
        row = conn.execute("SELECT review_id FROM review_keys WHERE key = ?", (key,)).fetchone()
        if row is not None:
            return int(row[0])
    return None


def attach(conn: sqlite3.Connection, review_id: int, wanted: Sequence[str], *, take: bool) -> None:
    """Give ``review_id`` the keys ``wanted``: those no review owns, or all (``take``)."""
    verb = "INSERT OR REPLACE" if take else "INSERT OR IGNORE"
    conn.executemany(
        f"{verb} INTO review_keys (key, review_id) VALUES (?, ?)",
        [(key, review_id) for key in wanted],
    )


def chosen(conn: sqlite3.Connection, review_id: object, repository: str) -> RecordedReview:
    """The review a load names, checked: a review of a commit range of this repository."""
    if isinstance(review_id, bool) or not isinstance(review_id, int):
        raise InvalidArgument(f"review_id must be an integer, got {review_id!r}.")
    row = conn.execute("SELECT * FROM reviews WHERE id = ?", (review_id,)).fetchone()
    review = None if row is None else RecordedReview.of_row(row)
    if review is None or review.source.kind != "git" or review.source.repository != repository:
        raise InvalidArgument(
            f"The review record has no review {review_id} of a range of this repository.",
            suggestion="Leave review_id out: a load names the earlier reviews of the "
            "repository it may continue ('overlapping_reviews').",
            cli_suggestion="Leave --review out: the load names the earlier reviews of the "
            "repository it may continue.",
        )
    if review.source.worktree is not None:
        raise InvalidArgument(
            f"Review {review_id} is of the working tree or the index, not of commits.",
            suggestion="Continue a review of a commit range, or leave review_id out.",
        )
    return review


def overlapping(
    conn: sqlite3.Connection,
    review_id: int,
    repository: str,
    base: str | None,
    head: str,
    branch: BranchKey | None,
) -> list[Overlap]:
    """The other reviews of commit ranges of ``repository`` that a load of ``base..head``
    (``branch``: its head's branch) may continue, the latest first."""
    rows = conn.execute(
        "SELECT r.id, r.range FROM reviews r WHERE r.kind = 'git' AND r.repository = ? "
        "AND r.id != ? AND r.worktree IS NULL ORDER BY r.id DESC",
        (repository, review_id),
    ).fetchall()
    found = []
    for row in rows:
        if _overlaps(conn, int(row["id"]), base, head, branch):
            found.append(_overlap(conn, int(row["id"]), row["range"]))
        if len(found) == OVERLAPPING_REVIEWS_LISTED:
            break
    return found


def _overlaps(
    conn: sqlite3.Connection,
    review_id: int,
    base: str | None,
    head: str,
    branch: BranchKey | None,
) -> bool:
    latest = conn.execute(
        "SELECT base, head FROM revisions WHERE review_id = ? ORDER BY load_seq DESC LIMIT 1",
        (review_id,),
    ).fetchone()
    if latest is not None and (latest["base"] == base or latest["head"] == head):
        return True
    if branch is None:
        return False
    return any(
        key.split("\0")[-1] == branch.branch
        for (key,) in conn.execute(
            "SELECT key FROM review_keys WHERE review_id = ? AND key LIKE 'branch%'", (review_id,)
        )
    )


def _overlap(conn: sqlite3.Connection, review_id: int, stored_range: str | None) -> Overlap:
    reviewed = conn.execute(
        "SELECT count(DISTINCT path) FROM marks WHERE review_id = ? AND kind = 'reviewed' "
        "AND scope = 'file'",
        (review_id,),
    ).fetchone()[0]
    opened = conn.execute(
        "SELECT count(*) FROM findings WHERE review_id = ? AND status = 'open'", (review_id,)
    ).fetchone()[0]
    shown = stored_range.split(":", 1)[1] if stored_range and ":" in stored_range else stored_range
    return Overlap(review_id, shown, int(reviewed), int(opened))
