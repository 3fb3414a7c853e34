"""The repository's reviews, and the latest of them: what ``diffchunk web``, ``status``,
``mark``, ``finding``, ``export`` and ``next`` act on without a target, and what
``diffchunk reviews`` lists.

The latest review of a repository is the one of its reviews (of a range, as
the record keeps them: :mod:`diffchunk.review.record.identity`) whose latest
load is the most recent (``revisions.load_seq``); a review of the working
tree or the index counts only for the work tree it was loaded in.  It is
given back as what loads it again, as ``diffchunk review`` would: the range as
it was given (``staged`` for the index), and the paths its latest load was
limited to.  Reading it runs no git beyond finding the repository.

:func:`repository_reviews` lists every review of the repository (latest load
first), each with its latest revision, the cached diff of that load when it is
still there (coverage is read from it by the caller) and its open findings by
severity.
"""

from __future__ import annotations

import json
import os
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


def latest_review(
    absolute_repo_path: str, *, record: RecordStore | None = None, command: str = "web"
) -> LatestReview:
    """The latest review of the repository at ``absolute_repo_path`` (see the module doc);
    a :class:`DiffchunkError` that says what to do when it has none (``command``: the
    ``diffchunk`` command that wanted it, which the advice names)."""
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
            suggestion=f"Name what to review: diffchunk {command} main..feature (a range), or "
            "a diff file; or start a review with diffchunk review RANGE or over MCP first.",
        )
    return _latest(row)


def _latest(row: sqlite3.Row) -> LatestReview:
    """A review's latest load, from a row of ``reviews`` joined with ``revisions``."""
    revision_range, staged = _range_of(str(row["range"]))
    return LatestReview(
        review_id=int(row["id"]),
        repository=str(row["repository_path"]),
        revision_range=revision_range,
        staged=staged,
        paths=_paths(row["paths"]),
        loaded_at=str(row["loaded_at"]),
    )


@dataclass(frozen=True, slots=True)
class RepositoryReview:
    """One review of a repository as ``diffchunk reviews`` lists it."""

    latest: LatestReview
    base: str | None
    head: str | None  # None: the working tree or the index
    diff_file: str | None  # the cached diff of the latest load, when it still exists
    open_findings: dict[str, int]  # severity -> count


_REVIEWS = (
    "SELECT r.id, r.repository_path, r.range, v.id AS revision_id, v.paths, v.loaded_at, "
    "v.base, v.head FROM reviews r JOIN revisions v ON v.review_id = r.id "
    "AND v.load_seq = (SELECT MAX(load_seq) FROM revisions WHERE review_id = r.id) "
    "WHERE r.kind = 'git' AND r.repository = ? AND (r.worktree IS NULL OR r.worktree = ?) "
    "ORDER BY v.load_seq DESC"
)


def _diff_file(conn: sqlite3.Connection, revision_id: int) -> str | None:
    rows = conn.execute(
        "SELECT path FROM diff_files WHERE revision_id = ? AND since_revision_id IS NULL "
        "ORDER BY loaded_at DESC",
        (revision_id,),
    )
    return next((str(row["path"]) for row in rows if os.path.isfile(str(row["path"]))), None)


def _open_findings(conn: sqlite3.Connection, review_id: int) -> dict[str, int]:
    rows = conn.execute(
        "SELECT severity, COUNT(*) AS n FROM findings WHERE review_id = ? AND status = 'open' "
        "GROUP BY severity",
        (review_id,),
    )
    return {str(row["severity"]): int(row["n"]) for row in rows}


def repository_reviews(
    absolute_repo_path: str, *, record: RecordStore | None = None
) -> tuple[RepositoryReview, ...]:
    """Every review of the repository at ``absolute_repo_path``, latest load first."""
    repo = discover(absolute_repo_path)
    worktree = db_text(repo.root) if repo.root is not None else None

    def read(conn: sqlite3.Connection) -> tuple[RepositoryReview, ...]:
        found = []
        for row in conn.execute(_REVIEWS, (db_text(repo.common_dir), worktree)).fetchall():
            latest = _latest(row)
            found.append(
                RepositoryReview(
                    latest=latest,
                    base=row["base"],
                    head=row["head"],
                    diff_file=_diff_file(conn, int(row["revision_id"])),
                    open_findings=_open_findings(conn, latest.review_id),
                )
            )
        return tuple(found)

    return (record if record is not None else default_record()).read(read)


def review_diff_file(review_id: int, *, record: RecordStore | None = None) -> str:
    """The diff file of review ``review_id``'s latest load (the path its tools take), when
    it is still there; a :class:`DiffchunkError` saying how to load it again otherwise."""

    def read(conn: sqlite3.Connection) -> tuple[sqlite3.Row | None, str | None]:
        row: sqlite3.Row | None = conn.execute(
            "SELECT r.kind, r.range, r.repository_path, r.diff_file, v.id AS revision_id "
            "FROM reviews r JOIN revisions v ON v.review_id = r.id WHERE r.id = ? "
            "ORDER BY v.load_seq DESC LIMIT 1",
            (review_id,),
        ).fetchone()
        if row is None:
            return None, None
        if row["kind"] == "file":
            return row, str(row["diff_file"]) if os.path.isfile(str(row["diff_file"])) else None
        return row, _diff_file(conn, int(row["revision_id"]))

    row, path = (record if record is not None else default_record()).read(read)
    if row is None:
        raise DiffchunkError(
            f"The review record holds no review #{review_id}.",
            suggestion="Take the id from review_status (review.id), or list a repository's "
            "reviews with `diffchunk reviews`.",
        )
    if path is None:
        where = (
            f"load_git_diff(absolute_repo_path={str(row['repository_path'])!r}, "
            f"revision_range={_range_of(str(row['range']))[0]!r})"
            if row["kind"] == "git"
            else f"load_diff(absolute_file_path={str(row['diff_file'])!r})"
        )
        raise DiffchunkError(
            f"The diff of review #{review_id}'s latest load is no longer there.",
            suggestion=f"Load it again: {where}.",
        )
    return path
