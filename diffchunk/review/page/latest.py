"""The repository's latest review: what ``diffchunk web`` opens without a target.

The latest review of a repository is the one of its reviews (of a range, as
the record keeps them: :mod:`diffchunk.review.record.identity`) whose latest
load is the most recent (``revisions.load_seq``); a review of the working
tree or the index counts only for the work tree it was loaded in.  It is
given back as what loads it again, as ``diffchunk review`` would: the range as
it was given (``staged`` for the index), and the paths its latest load was
limited to.  Reading it runs no git beyond finding the repository.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from ...errors import DiffchunkError
from ...git.repo import discover
from ..record.identity import db_text
from ..record.model import COMMITS_PREFIX
from ..record.store import RecordStore, default_record


@dataclass(frozen=True, slots=True)
class LatestReview:
    """A review to load again: its range as given (None: the uncommitted changes)."""

    review_id: int
    repository: str
    revision_range: str | None
    staged: bool
    paths: tuple[str, ...]
    loaded_at: str


def _range_of(stored: str) -> tuple[str | None, bool]:
    """``(range as a user gives it, staged)`` of a range as the record stores it."""
    if stored.startswith(COMMITS_PREFIX):
        return stored[len(COMMITS_PREFIX) :], False
    kind, _, revision = stored.partition(":")
    return (None if revision == "HEAD" else revision), kind == "index"


def _paths(text: str | None) -> tuple[str, ...]:
    value = json.loads(text) if text else None
    return tuple(str(p) for p in value) if isinstance(value, list) else ()


def latest_review(absolute_repo_path: str, *, record: RecordStore | None = None) -> LatestReview:
    """The latest review of the repository at ``absolute_repo_path`` (see the module doc);
    a :class:`DiffchunkError` that says what to do when it has none."""
    repo = discover(absolute_repo_path)
    worktree = db_text(repo.root) if repo.root is not None else None

    def read(conn: sqlite3.Connection) -> sqlite3.Row | None:
        row: sqlite3.Row | None = conn.execute(
            "SELECT r.id, r.repository_path, r.range, v.paths, v.loaded_at FROM reviews r "
            "JOIN revisions v ON v.review_id = r.id WHERE r.kind = 'git' AND r.repository = ? "
            "AND (r.worktree IS NULL OR r.worktree = ?) ORDER BY v.load_seq DESC LIMIT 1",
            (db_text(repo.common_dir), worktree),
        ).fetchone()
        return row

    row = (record if record is not None else default_record()).read(read)
    if row is None:
        raise DiffchunkError(
            f"The review record holds no review of {repo.root or repo.path} yet.",
            suggestion="Name what to review: diffchunk web main..feature (a range), or a diff "
            "file; or start a review with diffchunk review RANGE or over MCP first.",
        )
    revision_range, staged = _range_of(str(row["range"]))
    return LatestReview(
        review_id=int(row["id"]),
        repository=str(row["repository_path"]),
        revision_range=revision_range,
        staged=staged,
        paths=_paths(row["paths"]),
        loaded_at=str(row["loaded_at"]),
    )
