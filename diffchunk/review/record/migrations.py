"""The review record's schema, as the ordered list of migrations that build it.

Each schema change is a small named function ``mNNN_<what>(conn)`` appended to
:data:`MIGRATIONS`; the ``migrations`` table records the names that ran, so a
database of any earlier version is brought forward the same way, once (see
:func:`diffchunk.review.record.store.migrate`).  A migration runs inside the
store's write transaction: it must not commit (``executescript`` would).
Never edit a migration that has shipped; add the next one.

Tables (version 1):

- ``reviews``: one row per review.  ``identity`` is unique: ``git`` +
  repository common dir + normalised range (+ the work tree, for a range of
  the working tree or the index), or ``file`` + the diff file's real path.
- ``revisions``: what a review looked like at a load: ``base``/``head`` commit
  ids (git) and the sha256 of the diff text.  ``load_seq`` orders loads
  across the database: a review's current revision has its highest.
- ``diff_files``: the diff file (a range review's cache file) that a load
  wrote, and the review and revision it belongs to: the handle the tools
  receive as ``absolute_file_path``.
- ``marks``: ``seen`` / ``reviewed`` per (path, change id); ``scope`` is
  ``file`` for a whole file's change, ``part`` for one part of a file cut
  across chunks (its id is the part's key, see
  :mod:`diffchunk.review.record.changes`).
- ``findings``: comments anchored to a file, a side and a line range, with
  room (``context_before``/``context_after``) for re-anchoring them later.

Version 2 (:func:`m002_incremental_review`), for reviews of a moving range:

- ``findings.revision_id`` is the revision whose lines ``line``..``end_line``
  number (moved when a later load finds the lines again);
  ``findings.created_revision_id`` the revision it was written on (what a
  reviewer did on which revision: see ``reviewed_revision``).
- ``revisions.since_revision_id`` / ``since_summary``: the revision a load
  was compared with (the last reviewed one) and what that comparison found
  (JSON, see :mod:`diffchunk.review.record.since`).
- ``since_files``: the files of a revision that are ``changed`` or ``new``
  since that reviewed revision, and those it no longer changes (``gone``).
- ``diff_files.since_revision_id``: set on the handle of a since-review diff
  (the changes from that revision to the handle's revision).

Version 3 (:func:`m003_partial_revisions`):

- ``revisions.paths``: the paths a range was limited to when this revision
  was loaded (``load_git_diff(paths=...)``, ``review RANGE -- PATH``), as a
  JSON list; NULL for the whole range.  Such a revision shows part of the
  branch: it is never the reviewed revision a later load is compared with,
  and a load of it neither compares nor re-anchors.

Version 4 (:func:`m004_shared_review`), one review across spellings and people:

- ``review_keys``: the keys that find a review of a commit range again
  (:mod:`diffchunk.review.record.identity`): ``commits`` + repository + base
  + head commit, and ``branch`` + repository + base + the head's branch
  (``refs/heads/feature``).  A review owns many; a key names one review.
- ``marks.author`` (part of the key: two reviewers mark the same file, each
  once) and ``findings.author``: who wrote them (:mod:`diffchunk.review.record.people`);
  ``''`` for what was written before authors were recorded.
- ``finding_comments``: the thread of a finding (``update_finding(comment=...)``),
  oldest first (by Lamport ``clock``, then ``uid``: the same order on every clone).
- Sharing through a remote (:mod:`diffchunk.review.record.oplog`): ``uid`` of
  reviews, findings and replies (the same on every clone); ``ops``, the
  operations of the repository's reviews, written here (``local``) or read
  from a remote, by id; ``findings.stamps``, the ``(clock, op)`` of the last
  change of each of a finding's fields; ``mark_stamps``, the last operation on
  each reviewed mark (a mark taken back stays taken back); ``review_aliases``,
  the uids of other clones' reviews that are this review; ``sync_actors``, the
  name of this record's log of each repository on its remotes; ``sync_seen``,
  the commit of each other log last applied (a log that did not move is not
  read again).

Version 5 (:func:`m005_refused_logs`):

- ``sync_seen.refused``: why a log was refused at its commit ``commit_id``
  (NULL: it was applied).  A refused log is remembered as seen too, so it is
  read again only when it moves: a thousand refused logs do not take every
  sync's share of logs (:data:`~diffchunk.review.record.sync.SYNC_LOGS_MAX`) from
  the others; the reason is said again, unread, while it has not moved.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

Migration = Callable[[sqlite3.Connection], None]


def m001_initial(conn: sqlite3.Connection) -> None:
    """Reviews, their revisions, the diff files that name them, marks and findings."""
    statements = (
        """CREATE TABLE reviews (
            id INTEGER PRIMARY KEY,
            identity TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('git', 'file')),
            repository TEXT,
            repository_path TEXT,
            range TEXT,
            worktree TEXT,
            diff_file TEXT,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE revisions (
            id INTEGER PRIMARY KEY,
            review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
            identity TEXT NOT NULL,
            base TEXT,
            head TEXT,
            sha256 TEXT NOT NULL,
            created_at TEXT NOT NULL,
            loaded_at TEXT NOT NULL,
            load_seq INTEGER NOT NULL,
            UNIQUE (review_id, identity)
        )""",
        "CREATE INDEX revisions_by_head ON revisions (head)",
        """CREATE TABLE diff_files (
            path TEXT PRIMARY KEY,
            review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
            revision_id INTEGER NOT NULL REFERENCES revisions(id) ON DELETE CASCADE,
            base TEXT,
            head TEXT,
            loaded_at TEXT NOT NULL
        )""",
        """CREATE TABLE marks (
            review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            scope TEXT NOT NULL CHECK (scope IN ('file', 'part')),
            change_id TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('seen', 'reviewed')),
            revision_id INTEGER REFERENCES revisions(id) ON DELETE SET NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (review_id, path, scope, change_id, kind)
        ) WITHOUT ROWID""",
        """CREATE TABLE findings (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
            revision_id INTEGER REFERENCES revisions(id) ON DELETE SET NULL,
            file_path TEXT NOT NULL,
            side TEXT NOT NULL CHECK (side IN ('new', 'old')),
            line INTEGER,
            end_line INTEGER,
            severity TEXT NOT NULL
                CHECK (severity IN ('blocker', 'major', 'minor', 'nit', 'question')),
            status TEXT NOT NULL
                CHECK (status IN ('open', 'resolved', 'dismissed', 'outdated')),
            message TEXT NOT NULL,
            suggestion TEXT,
            lines TEXT,
            change_id TEXT,
            context_before TEXT,
            context_after TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )""",
        "CREATE INDEX findings_by_review ON findings (review_id, status)",
    )
    for statement in statements:
        conn.execute(statement)


def m002_incremental_review(conn: sqlite3.Connection) -> None:
    """What incremental review needs: where a finding was written and where it points
    now, which revision a load was compared with, and since-review diff handles."""
    statements = (
        "ALTER TABLE findings ADD COLUMN created_revision_id INTEGER "
        "REFERENCES revisions(id) ON DELETE SET NULL",
        "UPDATE findings SET created_revision_id = revision_id",
        "ALTER TABLE revisions ADD COLUMN since_revision_id INTEGER "
        "REFERENCES revisions(id) ON DELETE SET NULL",
        "ALTER TABLE revisions ADD COLUMN since_summary TEXT",
        "ALTER TABLE diff_files ADD COLUMN since_revision_id INTEGER "
        "REFERENCES revisions(id) ON DELETE CASCADE",
        """CREATE TABLE since_files (
            revision_id INTEGER NOT NULL REFERENCES revisions(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('changed', 'new', 'gone')),
            PRIMARY KEY (revision_id, path)
        ) WITHOUT ROWID""",
        "CREATE INDEX findings_by_created_revision ON findings (created_revision_id)",
        "CREATE INDEX marks_by_revision ON marks (revision_id)",
    )
    for statement in statements:
        conn.execute(statement)


def m003_partial_revisions(conn: sqlite3.Connection) -> None:
    """A revision loaded from a range limited to paths says so (``revisions.paths``)."""
    conn.execute("ALTER TABLE revisions ADD COLUMN paths TEXT")


def m004_shared_review(conn: sqlite3.Connection) -> None:
    """Review keys, authors of marks and findings, and the findings' threads."""
    statements = (
        """CREATE TABLE review_keys (
            key TEXT PRIMARY KEY,
            review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE
        ) WITHOUT ROWID""",
        "CREATE INDEX review_keys_by_review ON review_keys (review_id)",
        # Every review of a commit range is found again by its commits.
        "INSERT OR IGNORE INTO review_keys (key, review_id) "
        "SELECT 'commits' || char(0) || r.repository || char(0) || coalesce(v.base, '') "
        "|| char(0) || v.head, r.id FROM reviews r JOIN revisions v ON v.review_id = r.id "
        "WHERE r.kind = 'git' AND r.range LIKE 'commits:%' AND v.head IS NOT NULL "
        "AND v.paths IS NULL ORDER BY v.load_seq",
        """CREATE TABLE marks_v4 (
            review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            scope TEXT NOT NULL CHECK (scope IN ('file', 'part')),
            change_id TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('seen', 'reviewed')),
            author TEXT NOT NULL DEFAULT '',
            revision_id INTEGER REFERENCES revisions(id) ON DELETE SET NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (review_id, path, scope, change_id, kind, author)
        ) WITHOUT ROWID""",
        "INSERT INTO marks_v4 (review_id, path, scope, change_id, kind, author, revision_id, "
        "created_at) SELECT review_id, path, scope, change_id, kind, '', revision_id, "
        "created_at FROM marks",
        "DROP INDEX marks_by_revision",
        "DROP TABLE marks",
        "ALTER TABLE marks_v4 RENAME TO marks",
        "CREATE INDEX marks_by_revision ON marks (revision_id)",
        "ALTER TABLE findings ADD COLUMN author TEXT NOT NULL DEFAULT ''",
        """CREATE TABLE finding_comments (
            id INTEGER PRIMARY KEY,
            finding_id INTEGER NOT NULL REFERENCES findings(id) ON DELETE CASCADE,
            author TEXT NOT NULL,
            body TEXT NOT NULL,
            status TEXT,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX finding_comments_by_finding ON finding_comments (finding_id)",
        # Sharing (:mod:`diffchunk.review.record.oplog`).
        "ALTER TABLE reviews ADD COLUMN uid TEXT",
        "CREATE UNIQUE INDEX reviews_by_uid ON reviews (uid)",
        "ALTER TABLE findings ADD COLUMN uid TEXT",
        "CREATE UNIQUE INDEX findings_by_uid ON findings (uid)",
        "ALTER TABLE findings ADD COLUMN stamps TEXT",
        "ALTER TABLE finding_comments ADD COLUMN uid TEXT",
        "ALTER TABLE finding_comments ADD COLUMN clock INTEGER NOT NULL DEFAULT 0",
        "CREATE UNIQUE INDEX finding_comments_by_uid ON finding_comments (uid)",
        """CREATE TABLE ops (
            id TEXT PRIMARY KEY,
            clock INTEGER NOT NULL,
            repository TEXT NOT NULL,
            local INTEGER NOT NULL,
            body TEXT NOT NULL
        ) WITHOUT ROWID""",
        "CREATE INDEX ops_by_repository ON ops (repository, local, clock)",
        """CREATE TABLE mark_stamps (
            key TEXT PRIMARY KEY,
            clock INTEGER NOT NULL,
            op TEXT NOT NULL
        ) WITHOUT ROWID""",
        """CREATE TABLE sync_actors (
            repository TEXT PRIMARY KEY,
            actor TEXT NOT NULL
        ) WITHOUT ROWID""",
        """CREATE TABLE sync_seen (
            repository TEXT NOT NULL,
            log TEXT NOT NULL,
            commit_id TEXT NOT NULL,
            PRIMARY KEY (repository, log)
        ) WITHOUT ROWID""",
        """CREATE TABLE review_aliases (
            uid TEXT PRIMARY KEY,
            review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE
        ) WITHOUT ROWID""",
    )
    for statement in statements:
        conn.execute(statement)


def m005_refused_logs(conn: sqlite3.Connection) -> None:
    """A log refused by a sync is remembered, with why, until it moves."""
    conn.execute("ALTER TABLE sync_seen ADD COLUMN refused TEXT")


#: Every migration, in the order they run.  Append only.
MIGRATIONS: tuple[Migration, ...] = (
    m001_initial,
    m002_incremental_review,
    m003_partial_revisions,
    m004_shared_review,
    m005_refused_logs,
)
