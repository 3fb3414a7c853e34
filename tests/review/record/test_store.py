"""The review record's SQLite file: WAL, migrations from each earlier version, and a
record that cannot be used (read-only place, damaged file, held lock) while the
diff tools keep working."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from recordkit import feature_repo, write_diff

from diffchunk.errors import RecordUnavailable
from diffchunk.paths import state_dir
from diffchunk.review import record as core
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.record import side_writes
from diffchunk.review.record.migrations import MIGRATIONS
from diffchunk.review.record.store import (
    DB_NAME,
    WRITE_WAIT_SECONDS,
    RecordStore,
    applied_migrations,
    default_path,
    default_record,
    unavailable,
)
from diffchunk.review.tools import diff_tools
from diffchunk.review.tools.exporting import export_review

# Rows written at each schema version before the later migrations run, and what
# must still be there afterwards.  A new migration adds its own entry.
FIXTURES: dict[
    str, tuple[list[tuple[str, tuple[object, ...]]], list[tuple[str, list[tuple[object, ...]]]]]
] = {
    "m001_initial": (
        [
            (
                "INSERT INTO reviews (id, identity, kind, diff_file, created_at) "
                "VALUES (1, ?, 'file', '/x.diff', '2026-01-01T00:00:00Z')",
                ("file\0/x.diff",),
            ),
            (
                "INSERT INTO revisions (id, review_id, identity, sha256, created_at, loaded_at, "
                "load_seq) VALUES (1, 1, '::abc', 'abc', 't', 't', 1)",
                (),
            ),
            (
                "INSERT INTO diff_files (path, review_id, revision_id, loaded_at) "
                "VALUES ('/cache/x.diff', 1, 1, 't')",
                (),
            ),
            (
                "INSERT INTO marks (review_id, path, scope, change_id, kind, revision_id, "
                "created_at) VALUES (1, 'a.py', 'file', 'c1', 'reviewed', 1, 't')",
                (),
            ),
            (
                "INSERT INTO findings (review_id, revision_id, file_path, side, line, end_line, "
                "severity, status, message, created_at, updated_at) "
                "VALUES (1, 1, 'a.py', 'new', 3, 4, 'minor', 'open', 'kept', 't', 't')",
                (),
            ),
        ],
        [
            ("SELECT identity FROM reviews", [("file\0/x.diff",)]),
            ("SELECT path, change_id, kind FROM marks", [("a.py", "c1", "reviewed")]),
            ("SELECT message, line, end_line FROM findings", [("kept", 3, 4)]),
            ("SELECT path FROM diff_files", [("/cache/x.diff",)]),
        ],
    ),
    "m002_incremental_review": (
        [
            (
                "INSERT INTO revisions (id, review_id, identity, sha256, created_at, loaded_at, "
                "load_seq, since_revision_id, since_summary) "
                "VALUES (2, 1, '::def', 'def', 't', 't', 2, 1, '{\"history\":\"rewritten\"}')",
                (),
            ),
            ("INSERT INTO since_files VALUES (2, 'a.py', 'changed')", ()),
            # Rows of version 1 given what version 2 adds (the checks of version 1
            # read every row of these tables).
            (
                "UPDATE diff_files SET revision_id = 2, since_revision_id = 1 "
                "WHERE path = '/cache/x.diff'",
                (),
            ),
            (
                "UPDATE findings SET revision_id = 2, created_revision_id = 1 "
                "WHERE message = 'kept'",
                (),
            ),
        ],
        [
            ("SELECT revision_id, created_revision_id FROM findings", [(2, 1)]),
            ("SELECT since_revision_id FROM revisions WHERE id = 2", [(1,)]),
            ("SELECT path, state FROM since_files", [("a.py", "changed")]),
            ("SELECT revision_id, since_revision_id FROM diff_files", [(2, 1)]),
        ],
    ),
    "m003_partial_revisions": (
        [("UPDATE revisions SET paths = '[\"src\"]' WHERE id = 2", ())],
        [("SELECT id, paths FROM revisions ORDER BY id", [(1, None), (2, '["src"]')])],
    ),
    "m004_shared_review": (
        [
            (
                "INSERT INTO finding_comments (finding_id, author, body, created_at) "
                "VALUES (1, 'Ada', 'not a bug: the caller checks', 't')",
                (),
            ),
            ("UPDATE findings SET author = 'Ada' WHERE message = 'kept'", ()),
            ("INSERT INTO sync_seen VALUES ('/r/.git', ?, ?)", ("a" * 32, "c" * 40)),
        ],
        [
            ("SELECT author FROM marks", [("",)]),  # written before authors were recorded
            ("SELECT author FROM findings", [("Ada",)]),
            (
                "SELECT author, body FROM finding_comments",
                [("Ada", "not a bug: the caller checks")],
            ),
            ("SELECT count(*) FROM review_keys", [(0,)]),  # a diff file's review has none
            # a log applied before refusals were remembered stays applied (m005)
            ("SELECT commit_id, refused FROM sync_seen WHERE log LIKE 'a%'", [("c" * 40, None)]),
        ],
    ),
    "m005_refused_logs": (
        [("INSERT INTO sync_seen VALUES ('/r/.git', ?, ?, 'not JSON')", ("b" * 32, "d" * 40))],
        [
            (
                "SELECT log, refused FROM sync_seen WHERE refused IS NOT NULL",
                [("b" * 32, "not JSON")],
            )
        ],
    ),
}


def test_every_migration_has_a_fixture() -> None:
    assert [m.__name__ for m in MIGRATIONS] == list(FIXTURES)


def test_findings_of_version_1_were_written_on_their_revision(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    _database_at(path, 1)
    rows = RecordStore(str(path)).read(
        lambda conn: [
            tuple(r) for r in conn.execute("SELECT revision_id, created_revision_id FROM findings")
        ]
    )
    assert rows == [(1, 1)]


def _database_at(path: Path, version: int) -> None:
    """A record file as diffchunk left it at schema ``version`` (0: an empty file)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        if version == 0:
            return
        conn.execute("BEGIN")
        conn.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        for migration in MIGRATIONS[:version]:
            migration(conn)
            conn.execute("INSERT INTO migrations VALUES (?, 't')", (migration.__name__,))
            for sql, params in FIXTURES[migration.__name__][0]:
                conn.execute(sql, params)
        conn.execute("COMMIT")
    finally:
        conn.close()


@pytest.mark.parametrize("version", range(len(MIGRATIONS) + 1))
def test_migrations_bring_each_earlier_version_forward(tmp_path: Path, version: int) -> None:
    path = tmp_path / DB_NAME
    _database_at(path, version)
    store = RecordStore(str(path))
    names = store.read(applied_migrations)
    assert names == [m.__name__ for m in MIGRATIONS]
    for migration in MIGRATIONS[:version]:
        for query, expected in FIXTURES[migration.__name__][1]:
            rows = store.read(lambda conn, q=query: [tuple(r) for r in conn.execute(q)])
            assert rows == expected, (migration.__name__, query)
    # A second store (another process) finds nothing to do and changes nothing.
    assert RecordStore(str(path)).read(applied_migrations) == names


def test_the_file_is_wal_with_foreign_keys(tmp_path: Path) -> None:
    store = RecordStore(str(tmp_path / DB_NAME))
    mode = store.write(lambda conn: conn.execute("PRAGMA journal_mode").fetchone()[0])
    assert mode == "wal"
    assert store.read(lambda conn: conn.execute("PRAGMA foreign_keys").fetchone()[0]) == 1
    with pytest.raises(RecordUnavailable):  # a mark of a review that does not exist
        store.write(
            lambda conn: conn.execute(
                "INSERT INTO marks VALUES (99, 'a', 'file', 'c', 'seen', NULL, 't')"
            )
        )


def test_a_newer_schema_is_refused_with_advice(tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    store = RecordStore(str(path))
    store.write(lambda conn: conn.execute("INSERT INTO migrations VALUES ('m999_future', 't')"))
    with pytest.raises(RecordUnavailable, match=r"newer diffchunk.*m999_future.*Upgrade"):
        RecordStore(str(path)).read(applied_migrations)


def test_state_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", str(tmp_path / "s"))
    assert default_path() == str(tmp_path / "s" / DB_NAME)
    monkeypatch.delenv("DIFFCHUNK_STATE_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert state_dir() == str(tmp_path / "xdg" / "diffchunk")
    monkeypatch.setenv("XDG_STATE_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert state_dir() == str(tmp_path / "home" / ".local" / "state" / "diffchunk")


# --------------------------------------------------------------------------
# A record that cannot be used
# --------------------------------------------------------------------------


@pytest.fixture
def diff(tmp_path: Path) -> Path:
    repo = feature_repo(tmp_path / "repo")
    return write_diff(repo, tmp_path / "change.diff", "main", "feature")


def test_state_dir_that_cannot_be_made(
    diff: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", str(blocker / "state"))
    with pytest.raises(RecordUnavailable, match="DIFFCHUNK_STATE_DIR to a writable"):
        core.review_status(str(diff))
    assert "src/a.py" in diff_tools.get_chunk(str(diff), 1)
    assert diff_tools.load_diff(str(diff)).to_dict()["chunks"] == 1
    assert blocker.read_text() == "not a directory\n"


@pytest.mark.permissions
def test_read_only_state_dir(
    diff: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", str(state))
    core.mark_reviewed(str(diff), file_pattern="src/a.py")
    # Closed as a process that ends closes it (its write-ahead log is checkpointed and
    # removed): this process keeps its connection, which needs no new file to write.
    default_record().close()
    state.chmod(0o500)
    try:
        with pytest.raises(RecordUnavailable, match="DIFFCHUNK_STATE_DIR to a writable"):
            core.mark_reviewed(str(diff), file_pattern="src/b.py")
        with pytest.raises(RecordUnavailable):
            core.review_status(str(diff))
        # The diff tools keep working; the failure is logged.
        assert "src/a.py" in diff_tools.get_chunk(str(diff), 1)
        assert "Not recorded as seen" in caplog.text
    finally:
        state.chmod(0o700)
    # Nothing recorded before was lost.
    status = core.review_status(str(diff))
    assert status.totals.reviewed == 1


def test_damaged_file_is_reported_and_left_alone(
    diff: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", str(state))
    damaged = state / DB_NAME
    garbage = b"this is not an SQLite database\n" * 200
    damaged.write_bytes(garbage)
    with pytest.raises(RecordUnavailable, match=r"damaged.*Move it aside"):
        core.add_finding(str(diff), "src/a.py", "m", line=10)
    assert "src/a.py" in diff_tools.get_file_diff(str(diff), "src/a.py")
    assert damaged.read_bytes() == garbage  # never deleted nor rewritten
    damaged.rename(state / "moved-aside")
    assert core.add_finding(str(diff), "src/a.py", "m", line=10).finding.id == 1


def test_lock_held_past_the_timeout(diff: Path, tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    RecordStore(str(path)).read(applied_migrations)  # created
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    try:
        short = RecordStore(str(path), wait=0.1)
        with pytest.raises(RecordUnavailable, match="locked by another process"):
            core.mark_reviewed(str(diff), chunk_number=1, record=short)
        assert diff_tools.get_chunk(str(diff), 1)
        # A writer that waits long enough gets through once the lock is let go: let go
        # a moment after the writer has begun to wait for it.
        patient = RecordStore(str(path), wait=10)
        writing = threading.Event()
        write = patient.write

        def announced_write(*args: Any, **kwargs: Any) -> Any:
            writing.set()
            return write(*args, **kwargs)

        patient.write = announced_write  # type: ignore[method-assign]

        def release() -> None:
            writing.wait(10)
            time.sleep(0.05)
            holder.execute("COMMIT")

        released = threading.Thread(target=release)
        released.start()
        assert core.mark_reviewed(str(diff), chunk_number=1, record=patient).marked
        released.join()
    finally:
        holder.close()


def test_reads_take_no_lock_and_wait_for_no_writer(diff: Path, tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    record = RecordStore(str(path), wait=0.1)
    core.add_finding(str(diff), "src/a.py", "Ten", line=10, record=record)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process is writing
    try:
        assert core.review_status(str(diff), record=record).findings.open_total == 1
        assert core.list_findings(str(diff), record=record).total == 1
        assert core.export_document(str(diff), record=record).findings[0].message == "Ten"
        exported = export_review(str(diff), "json", record=record)
        assert exported.findings == 1
        # A writer still waits for the lock, and says that nothing was recorded.
        with pytest.raises(RecordUnavailable, match=r"locked.*nothing was recorded"):
            core.mark_reviewed(str(diff), chunk_number=1, record=record)
    finally:
        holder.close()


def test_a_read_that_fails_does_not_speak_of_recording(diff: Path, tmp_path: Path) -> None:
    path = tmp_path / DB_NAME
    path.write_bytes(b"this is not an SQLite database\n" * 200)
    record = RecordStore(str(path), wait=0.3)
    for read in (
        lambda: core.review_status(str(diff), record=record),
        lambda: core.list_findings(str(diff), record=record),
        lambda: export_review(str(diff), "markdown", record=record),
    ):
        with pytest.raises(RecordUnavailable) as caught:
            read()
        assert "damaged" in str(caught.value) and "recorded" not in str(caught.value)
    with pytest.raises(RecordUnavailable, match=r"damaged.*nothing was recorded"):
        core.add_finding(str(diff), "src/a.py", "Ten", line=10, record=record)


def _hold_write_lock(path: Path, release: threading.Event) -> threading.Thread:
    """Another process's write: the record's write lock held until ``release`` is set
    (60 s at most)."""
    taken = threading.Event()

    def hold() -> None:
        holder = sqlite3.connect(path, isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")
            taken.set()
            release.wait(60)
            holder.execute("ROLLBACK")
        finally:
            holder.close()

    thread = threading.Thread(target=hold)
    thread.start()
    assert taken.wait(10)
    return thread


def test_what_the_diff_tools_record_waits_little_for_the_lock(
    diff: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    state = tmp_path / "state"
    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", str(state))
    # Their wait (RECORD_SIDE_WRITE_SECONDS, 0.5 s) made short: what is tested is that
    # they give up after it, where a full write would wait WRITE_WAIT_SECONDS.
    monkeypatch.setattr(side_writes, "RECORD_SIDE_WRITE_SECONDS", 0.1)
    repo = tmp_path / "repo"
    assert core.review_status(str(diff)).totals.seen == 0  # the record exists
    # A writer holds the lock until they have answered: the diff tools answer without
    # waiting for it (a full write would wait, then succeed); what they record is
    # skipped and logged.
    release = threading.Event()
    holder = _hold_write_lock(state / DB_NAME, release)
    try:
        started = time.monotonic()
        assert "src/a.py" in diff_tools.get_chunk(str(diff), 1)
        loaded = load_git_diff(str(repo), "main..feature")
        assert time.monotonic() - started < WRITE_WAIT_SECONDS / 3
    finally:
        release.set()
        holder.join()
    assert "Not recorded as seen" in caplog.text
    assert "was not recorded in the review record" in caplog.text
    assert core.review_status(str(diff)).totals.seen == 0
    assert core.review_status(loaded.file_path).review.source.kind == "file"  # no handle
    # Once the lock is free, the same call records what it returned.
    diff_tools.get_chunk(str(diff), 1)
    assert core.review_status(str(diff)).totals.seen > 0


def test_following_the_damaged_file_advice_keeps_what_the_log_holds(
    diff: Path, tmp_path: Path
) -> None:
    path = tmp_path / DB_NAME
    record = RecordStore(str(path))
    for i in range(5):
        core.add_finding(str(diff), "src/a.py", f"kept {i}", line=10, record=record)
    # The acknowledged writes are still in the write-ahead log, not in the file.
    alone = tmp_path / "alone.sqlite3"
    shutil.copyfile(path, alone)
    assert sqlite3.connect(alone).execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)
    advice = unavailable(str(path), sqlite3.DatabaseError("file is not a database")).suggestion
    assert advice is not None and "-wal" in advice
    command = advice.split("starts a new record: ", 1)[1]
    subprocess.run(["sh", "-c", command], check=True)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(DB_NAME)) == [
        f"{DB_NAME}.damaged",
        f"{DB_NAME}.damaged-shm",
        f"{DB_NAME}.damaged-wal",
    ]
    moved = sqlite3.connect(tmp_path / f"{DB_NAME}.damaged")
    assert moved.execute("SELECT count(*) FROM findings").fetchone() == (5,)
    moved.close()
    # diffchunk starts a new record where the old one was.
    assert core.list_findings(str(diff), record=record).total == 0
