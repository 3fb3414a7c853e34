"""Which review a diff file belongs to, and which revision of it is loaded.

The handle a tool receives is the diff file's path (``absolute_file_path``).
For a git range that is the cache file written by ``load_git_diff`` or
``diffchunk review RANGE``; the cache file's name changes when ``feature``
moves (it is content-addressed by the two commits), yet the review must stay
the same.  So every range load records, in one transaction
(:func:`record_range_load`):

- the review, found or created: for commits, by its keys (the commits, and the
  head's branch when it was given as one: :mod:`.continuity`), so that any
  spelling of the same change continues it; for the working tree or the index,
  by the repository's common dir plus the range as given, normalised
  (``worktree:HEAD``, ``index:HEAD``) and the work tree.  The review's
  ``range`` is the spelling of its latest load;
- the revision: base and head commits and the sha256 of the diff text
  (found again when the same diff is loaded again; the latest load is the
  review's current revision);
- the handle: ``diff_files[realpath of the cache file] = (review, revision,
  base, head)``.  The latest load of a path owns it (``main..feature`` and
  ``main...feature`` write the same file when ``main`` is an ancestor).

A since-review diff (:mod:`diffchunk.review.incremental`) is a handle too
(:func:`record_since_handle`): of the same review, at the revision it leads
to, with ``since_revision_id`` naming the revision it leads from.

Any later call with that path (:func:`resolve`, or :func:`find` for a tool that
only reads) finds the review through the handle, and the revision by the
loaded content's sha256 (a new content of the
same cache file — a working-tree diff regenerated — is a new revision with the
handle's base and head; the cache names such files by work tree, mode and
base, so those stay true).  A path without a handle is a diff file: its
review is that file's real path, each distinct content a revision.  That
includes diffs the pre-push hook writes under ``.git/diffchunk/``: they are
named by their two commits, so such a file is a stable review of its own.

Only a load moves a review's current revision (the one its latest load
recorded: the pre-push hook finds reviews by it): a call with the path of an
earlier load works on that earlier revision and leaves the current one as it is.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ...git.revisions import Mode, parse_range
from .model import COMMITS_PREFIX, RecordedReview, ReviewSource, Revision
from .store import now

if TYPE_CHECKING:
    from .continuity import BranchKey, Overlap


def db_text(path: str) -> str:
    """A file system path as stored (names that are not UTF-8 as ``\\x..`` escapes)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def normalised_range(revision_range: str | None, staged: bool) -> tuple[str, bool]:
    """``(range as stored, whether it is of the working tree or the index)``."""
    request = parse_range(revision_range, staged)
    if request.mode is Mode.COMMITS:
        return f"{COMMITS_PREFIX}{request.label}", False
    prefix = "index" if request.mode is Mode.INDEX else "worktree"
    return f"{prefix}:{request.left}", True


def git_source(
    common_dir: str,
    repository_path: str,
    revision_range: str | None,
    staged: bool,
    worktree: str,
) -> ReviewSource:
    stored, local = normalised_range(revision_range, staged)
    return ReviewSource(
        kind="git",
        repository=db_text(common_dir),
        repository_path=db_text(repository_path),
        range=stored,
        worktree=db_text(worktree) if local else None,
    )


def file_source(diff_path: str) -> ReviewSource:
    return ReviewSource(kind="file", diff_file=db_text(diff_path))


# --------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------


def revision_of_row(row: sqlite3.Row) -> Revision:
    """A ``revisions`` row as a :class:`Revision`."""
    return Revision(
        id=int(row["id"]),
        review_id=int(row["review_id"]),
        base=row["base"],
        head=row["head"],
        sha256=row["sha256"],
        loaded_at=row["loaded_at"],
        paths=_paths(row["paths"]),
    )


def _paths(text: str | None) -> tuple[str, ...] | None:
    """The ``revisions.paths`` column: a JSON list, or NULL for the whole range."""
    if text is None:
        return None
    value = json.loads(text)
    return tuple(str(p) for p in value) if isinstance(value, list) else None


def review_by_id(conn: sqlite3.Connection, review_id: int) -> RecordedReview | None:
    row = conn.execute("SELECT * FROM reviews WHERE id = ?", (review_id,)).fetchone()
    return RecordedReview.of_row(row) if row is not None else None


def ensure_review(conn: sqlite3.Connection, source: ReviewSource) -> RecordedReview:
    """The review of ``source``, created if the record has none (inside a write)."""
    row = conn.execute("SELECT * FROM reviews WHERE identity = ?", (source.identity,)).fetchone()
    if row is not None:
        return RecordedReview.of_row(row)
    conn.execute(
        "INSERT INTO reviews (identity, kind, repository, repository_path, range, worktree, "
        "diff_file, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            source.identity,
            source.kind,
            source.repository,
            source.repository_path,
            source.range,
            source.worktree,
            source.diff_file,
            now(),
        ),
    )
    row = conn.execute("SELECT * FROM reviews WHERE identity = ?", (source.identity,)).fetchone()
    return RecordedReview.of_row(row)


def ensure_revision(
    conn: sqlite3.Connection,
    review_id: int,
    base: str | None,
    head: str | None,
    sha256: str,
    *,
    loading: bool = False,
    paths: Sequence[str] | None = None,
) -> Revision:
    """The revision ``(base, head, sha256)`` of a review, created when new (a new
    revision is the review's current one: a content never seen before was just loaded).

    Only a load (``loading``, which records its time) makes an existing revision
    current again: a tool called with the path of an earlier load reads or
    writes that revision, and the review's current revision stays the one last
    loaded (the pre-push hook looks reviews up by it).  ``paths``: those a range
    was limited to (recorded with a new revision; see ``revisions.paths``).
    """
    identity = f"{base or ''}:{head or ''}:{sha256}"
    row = conn.execute(
        "SELECT * FROM revisions WHERE review_id = ? AND identity = ?", (review_id, identity)
    ).fetchone()
    if row is not None and not loading:
        return revision_of_row(row)
    seq = conn.execute("SELECT coalesce(max(load_seq), 0) + 1 FROM revisions").fetchone()[0]
    stamp = now()
    if row is None:
        conn.execute(
            "INSERT INTO revisions (review_id, identity, base, head, sha256, created_at, "
            "loaded_at, load_seq, paths) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                review_id,
                identity,
                base,
                head,
                sha256,
                stamp,
                stamp,
                seq,
                None if paths is None else json.dumps(list(paths)),
            ),
        )
    else:
        conn.execute(
            "UPDATE revisions SET load_seq = ?, loaded_at = ? WHERE id = ?",
            (seq, stamp, row["id"]),
        )
    row = conn.execute(
        "SELECT * FROM revisions WHERE review_id = ? AND identity = ?", (review_id, identity)
    ).fetchone()
    return revision_of_row(row)


def _find_revision(
    conn: sqlite3.Connection, review_id: int, base: str | None, head: str | None, sha256: str
) -> Revision | None:
    row = conn.execute(
        "SELECT * FROM revisions WHERE review_id = ? AND identity = ?",
        (review_id, f"{base or ''}:{head or ''}:{sha256}"),
    ).fetchone()
    return revision_of_row(row) if row is not None else None


def latest_revision(conn: sqlite3.Connection, review_id: int) -> Revision | None:
    row = conn.execute(
        "SELECT * FROM revisions WHERE review_id = ? ORDER BY load_seq DESC LIMIT 1",
        (review_id,),
    ).fetchone()
    return revision_of_row(row) if row is not None else None


# --------------------------------------------------------------------------
# Loads and lookups
# --------------------------------------------------------------------------


def record_load(
    conn: sqlite3.Connection,
    diff_path: str,
    source: ReviewSource,
    base: str | None,
    head: str | None,
    sha256: str,
    paths: Sequence[str] | None = None,
    *,
    branch: BranchKey | None = None,
    review_id: int | None = None,
) -> tuple[RecordedReview, Revision, list[Overlap]]:
    """Record a range load: its review, its revision, and the diff file as their handle
    (``paths``: those the range was limited to).  A commit range's review is found by
    its keys (:mod:`.continuity`; ``branch``: the head's branch, ``review_id``: the
    review the load names); the third value names the earlier reviews a new review
    may have been meant to continue."""
    overlaps: list[Overlap] = []
    if head is None or source.worktree is not None:
        review = ensure_review(conn, source)
    else:
        review, overlaps = _commits_review(conn, source, base, head, branch, review_id)
    revision = ensure_revision(conn, review.id, base, head, sha256, loading=True, paths=paths)
    conn.execute(
        "INSERT INTO diff_files (path, review_id, revision_id, base, head, loaded_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET "
        "review_id = excluded.review_id, revision_id = excluded.revision_id, "
        "base = excluded.base, head = excluded.head, loaded_at = excluded.loaded_at, "
        "since_revision_id = NULL",
        (db_text(diff_path), review.id, revision.id, base, head, revision.loaded_at),
    )
    return review, revision, overlaps


def _respelled(
    conn: sqlite3.Connection, review: RecordedReview, source: ReviewSource
) -> RecordedReview:
    """``review`` as last loaded: its range as this load spelled it (what the review page
    and ``diffchunk status`` show and load again)."""
    if review.source.range == source.range:
        return review
    conn.execute("UPDATE reviews SET range = ? WHERE id = ?", (source.range, review.id))
    return RecordedReview.of_row(
        conn.execute("SELECT * FROM reviews WHERE id = ?", (review.id,)).fetchone()
    )


def _commits_review(
    conn: sqlite3.Connection,
    source: ReviewSource,
    base: str | None,
    head: str,
    branch: BranchKey | None,
    review_id: int | None,
) -> tuple[RecordedReview, list[Overlap]]:
    """The review a load of commits continues (see :mod:`.continuity`), created when
    none, with the earlier reviews it overlaps when it is new."""
    from . import continuity  # a range's load only

    repository = source.repository or ""
    wanted = continuity.keys(repository, base, head, branch)
    if review_id is not None:
        chosen = continuity.chosen(conn, review_id, repository)
        continuity.attach(conn, chosen.id, wanted, take=True)
        return _respelled(conn, chosen, source), []
    found = continuity.find(conn, wanted)
    known = review_by_id(conn, found) if found is not None else None
    if known is not None:
        continuity.attach(conn, known.id, wanted, take=False)
        return _respelled(conn, known, source), []
    number = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM reviews").fetchone()[0]
    identity_text = f"key\0{wanted[0]}\0{number}"
    conn.execute(
        "INSERT INTO reviews (identity, kind, repository, repository_path, range, worktree, "
        "diff_file, created_at) VALUES (?, 'git', ?, ?, ?, NULL, NULL, ?)",
        (identity_text, source.repository, source.repository_path, source.range, now()),
    )
    row = conn.execute("SELECT * FROM reviews WHERE identity = ?", (identity_text,)).fetchone()
    review = RecordedReview.of_row(row)
    continuity.attach(conn, review.id, wanted, take=True)
    return review, continuity.overlapping(conn, review.id, repository, base, head, branch)


def record_since_handle(
    conn: sqlite3.Connection,
    diff_path: str,
    review: RecordedReview,
    revision: Revision,
    since_id: int,
) -> None:
    """Record a since-review diff (the changes from revision ``since_id`` to ``revision``)
    as a handle of ``review`` at ``revision``: the tools called with its path work on
    that revision, as with the full diff's path."""
    conn.execute(
        "INSERT INTO diff_files (path, review_id, revision_id, base, head, loaded_at, "
        "since_revision_id) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET "
        "review_id = excluded.review_id, revision_id = excluded.revision_id, "
        "base = excluded.base, head = excluded.head, loaded_at = excluded.loaded_at, "
        "since_revision_id = excluded.since_revision_id",
        (
            db_text(diff_path),
            review.id,
            revision.id,
            revision.base,
            revision.head,
            now(),
            since_id,
        ),
    )


def handle_of(conn: sqlite3.Connection, diff_path: str) -> sqlite3.Row | None:
    """The ``diff_files`` row of the diff file ``diff_path`` (real path), if any."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM diff_files WHERE path = ?", (db_text(diff_path),)
    ).fetchone()
    return row


def full_diffs(conn: sqlite3.Connection, since_path: str) -> list[str]:
    """The full diffs (latest load first) of the revision that the since-review diff
    ``since_path`` (real path) is a handle of."""
    return [
        str(row["path"])
        for row in conn.execute(
            "SELECT f.path FROM diff_files s JOIN diff_files f ON f.revision_id = s.revision_id "
            "AND f.since_revision_id IS NULL WHERE s.path = ? ORDER BY f.loaded_at DESC",
            (db_text(since_path),),
        )
    ]


def find(
    conn: sqlite3.Connection, diff_path: str, sha256: str
) -> tuple[RecordedReview, Revision] | None:
    """What :func:`resolve` gives, when the record holds it already; None when it would
    have to write (a review or revision not recorded yet).  Writes nothing."""
    handle = handle_of(conn, diff_path)
    review = review_by_id(conn, int(handle["review_id"])) if handle is not None else None
    if review is None or handle is None:
        row = conn.execute(
            "SELECT * FROM reviews WHERE identity = ?", (file_source(diff_path).identity,)
        ).fetchone()
        if row is None:
            return None
        review = RecordedReview.of_row(row)
        revision = _find_revision(conn, review.id, None, None, sha256)
        return (review, revision) if revision is not None else None
    if handle["since_revision_id"] is not None:
        row = conn.execute(
            "SELECT * FROM revisions WHERE id = ?", (handle["revision_id"],)
        ).fetchone()
        if row is not None:
            return review, revision_of_row(row)
    revision = _find_revision(conn, review.id, handle["base"], handle["head"], sha256)
    return (review, revision) if revision is not None else None


def resolve(
    conn: sqlite3.Connection, diff_path: str, sha256: str
) -> tuple[RecordedReview, Revision]:
    """The review and revision of the diff file ``diff_path`` (real path) whose content
    has the digest ``sha256``, created as needed (inside a write; :func:`find` is the
    read).  A since-review diff's handle names its revision itself (its content is
    not the range's)."""
    found = find(conn, diff_path, sha256)
    if found is not None:
        return found
    handle = handle_of(conn, diff_path)
    review = review_by_id(conn, int(handle["review_id"])) if handle is not None else None
    if review is None or handle is None:
        review = ensure_review(conn, file_source(diff_path))
        return review, ensure_revision(conn, review.id, None, None, sha256)
    return review, ensure_revision(conn, review.id, handle["base"], handle["head"], sha256)


def reviews_with_head(
    conn: sqlite3.Connection, common_dir: str, heads: Iterable[str]
) -> list[tuple[RecordedReview, Revision, list[str]]]:
    """The reviews of a repository whose current revision has one of ``heads`` as its head,
    each with its current revision and the diff files that hold that revision."""
    wanted = set(heads)
    found = []
    rows = conn.execute(
        "SELECT * FROM reviews WHERE kind = 'git' AND repository = ? ORDER BY id",
        (db_text(common_dir),),
    ).fetchall()
    for row in rows:
        review = RecordedReview.of_row(row)
        revision = latest_revision(conn, review.id)
        if revision is None or revision.head not in wanted:
            continue
        paths = [
            str(r["path"])
            for r in conn.execute(
                "SELECT path FROM diff_files WHERE revision_id = ? ORDER BY loaded_at DESC",
                (revision.id,),
            )
        ]
        found.append((review, revision, paths))
    return found


def same_lines(conn: sqlite3.Connection, revision: Revision) -> frozenset[int]:
    """The revisions of ``revision``'s review whose line numbers are its own: itself,
    and those loaded at the same two commits (a range limited to paths, another
    filter: the files are the same blobs).  A revision of the working tree or the
    index shares its lines with no other."""
    if revision.head is None:
        return frozenset({revision.id})
    rows = conn.execute(
        "SELECT id FROM revisions WHERE review_id = ? AND head = ? AND base IS ?",
        (revision.review_id, revision.head, revision.base),
    ).fetchall()
    return frozenset({revision.id, *(int(r[0]) for r in rows)})
