"""The review record's SQLite file: opening it, bringing its schema forward, transactions.

The file is ``reviews.sqlite3`` in the state directory
(:func:`diffchunk.paths.state_dir`), shared by every diffchunk process of the
user at once: the MCP server, the CLI, the pre-push hook.  Rules:

- WAL journal (readers never wait for the writer), ``synchronous=NORMAL``
  (a commit survives the death of its process; a power cut may lose the last
  commits but never damages the file), ``foreign_keys=ON``, a busy timeout.
- Every write is one ``BEGIN IMMEDIATE`` transaction around a function
  (:meth:`RecordStore.write`): the write lock is taken first, so two writers
  never deadlock; a writer that cannot get it within the busy timeout is
  retried, whole, until :data:`WRITE_WAIT_SECONDS` have passed (a best-effort
  write passes a shorter wait: :data:`~diffchunk.limits.RECORD_SIDE_WRITE_SECONDS`).
- Every read is one plain ``BEGIN`` transaction (:meth:`RecordStore.read`):
  a consistent snapshot that never takes the write lock, so a read neither
  waits for a writer nor holds one up, however long it takes.
- A connection per thread, kept while the path still names the same file (a
  stat per operation): a file moved aside or replaced is never written
  through an old connection, and threads share nothing.
- The schema is brought forward on first use by the migrations of
  :mod:`diffchunk.review.record.migrations`, once per process and file.
- Any failure to open, read or write becomes :class:`RecordUnavailable`
  whose message says what to do; the file is never deleted or rewritten.  A
  damaged file is to be moved aside with its ``-wal`` and ``-shm`` files, to
  one new name (:func:`set_aside_advice`): moved alone, the next open of the
  name would discard the commits its write-ahead log still held.
"""

from __future__ import annotations

import logging
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import TypeVar

from ...errors import RecordUnavailable
from ...paths import STATE_ENV, state_dir
from .migrations import MIGRATIONS

BUSY_TIMEOUT_MS = 5_000
"""How long one attempt waits for the record's write lock (SQLite's busy
handler), in milliseconds; the attempt is retried until RECORD_WRITE_WAIT_SECONDS."""

WRITE_WAIT_SECONDS = 30.0
"""How long a record tool's write is retried in all before the record is reported
unavailable (a CLI, the server and the hook share the file; writes take
milliseconds, so 30 s means another process is stuck)."""

RECORD_RETRY_FIRST_PAUSE_SECONDS = 0.005
"""The first pause before a write is tried again while another process holds the
record's lock; doubled at each try (with jitter) up to RECORD_RETRY_MAX_PAUSE_SECONDS."""

RECORD_RETRY_MAX_PAUSE_SECONDS = 0.1
"""The longest pause between tries: a lock is held for milliseconds, so a waiter
tries again at least ten times a second."""


logger = logging.getLogger(__name__)

DB_NAME = "reviews.sqlite3"

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], T]

_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED (and their extended codes)


def default_path() -> str:
    """Where the record lives now (read from the environment at each call)."""
    return os.path.join(state_dir(), DB_NAME)


def now() -> str:
    """The current time, ISO 8601 UTC to the second (``2026-11-25T12:00:00Z``)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _is_busy(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and (code & 0xFF) in _BUSY_CODES:
        return True
    text = str(exc).lower()
    return "database is locked" in text or "database is busy" in text


def unavailable(
    path: str, exc: BaseException, *, wait: float = WRITE_WAIT_SECONDS, reading: bool = False
) -> RecordUnavailable:
    """The error that says why the record at ``path`` cannot be used, and what to do
    (``reading``: for a tool that only reads the record)."""
    text = str(exc)
    lowered = text.lower()
    directory = os.path.dirname(path)
    outcome = "the review could not be read" if reading else "nothing was recorded"
    if isinstance(exc, sqlite3.Error) and _is_busy(exc):
        return RecordUnavailable(
            f"The review record {path} stayed locked by another process for {wait:g} s; {outcome}.",
            suggestion="Try again. If it persists, look for a diffchunk process that hangs "
            "(an MCP server, a CLI command, the pre-push hook) and stop it.",
        )
    if any(word in lowered for word in ("not a database", "malformed", "corrupt")):
        return RecordUnavailable(
            f"The review record {path} is damaged ({text}); {outcome}.",
            suggestion="The diff tools work meanwhile. " + set_aside_advice(path),
        )
    if isinstance(exc, OSError) or any(
        word in lowered for word in ("readonly", "read-only", "unable to open", "permission")
    ):
        return RecordUnavailable(
            f"The review record {path} cannot be opened{'' if reading else ' for writing'} "
            f"({text}); {outcome}.",
            suggestion=f"Set {STATE_ENV} to a writable directory, or make {directory} "
            "writable. The diff tools work meanwhile.",
        )
    return RecordUnavailable(
        f"The review record {path} cannot be used ({text}); {outcome}.",
        suggestion=f"Set {STATE_ENV} to another directory to start a new record; the diff "
        "tools work meanwhile.",
    )


def set_aside_advice(path: str) -> str:
    """How to move the record at ``path`` aside: with its ``-wal`` and ``-shm`` files, to
    one new name, so that what its write-ahead log holds (acknowledged writes not yet
    copied into the file) stays with it; a shell command that does it."""
    import shlex  # for this advice only

    old, new = shlex.quote(path), shlex.quote(path + ".damaged")
    return (
        "Move it aside together with its -wal and -shm files (its write-ahead log holds "
        "recent writes) and keep them to recover what they hold (sqlite3 .recover); "
        f"diffchunk then starts a new record: for s in '' -wal -shm; do [ ! -e {old}\"$s\" ] "
        f'|| mv {old}"$s" {new}"$s"; done'
    )


class NewerSchema(Exception):
    """The file was written by a diffchunk that knows migrations this one does not."""


def applied_migrations(conn: sqlite3.Connection) -> list[str] | None:
    """Names of the migrations recorded in the file, in order; None before the first."""
    try:
        rows = conn.execute("SELECT name FROM migrations ORDER BY rowid").fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc).lower():
            return None
        raise
    return [str(row[0]) for row in rows]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Run the migrations the file lacks, in one write transaction; returns their names.

    Raises :class:`NewerSchema` when the file records migrations unknown here.
    """
    known = [m.__name__ for m in MIGRATIONS]
    applied = applied_migrations(conn)
    if applied is not None:
        unknown = [name for name in applied if name not in known]
        if unknown:
            raise NewerSchema(", ".join(unknown))
        if len(applied) == len(known):
            return []
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        done = set(applied_migrations(conn) or ())  # another process may have run some
        ran = []
        for migration in MIGRATIONS:
            if migration.__name__ in done:
                continue
            migration(conn)
            conn.execute(
                "INSERT INTO migrations (name, applied_at) VALUES (?, ?)",
                (migration.__name__, now()),
            )
            ran.append(migration.__name__)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return ran


class RecordStore:
    """The record at ``path`` (default: :func:`default_path` at each call)."""

    def __init__(self, path: str | None = None, *, wait: float = WRITE_WAIT_SECONDS) -> None:
        self._path = path
        self.wait = wait
        self._ready: set[tuple[str, int, int]] = set()  # files whose schema is current
        self._lock = threading.Lock()
        self._local = threading.local()  # each thread's open connection

    @property
    def path(self) -> str:
        return self._path if self._path is not None else default_path()

    def write(self, work: Work[T], *, wait: float | None = None, reading: bool = False) -> T:
        """``work(conn)`` inside one ``BEGIN IMMEDIATE`` transaction, committed on return.

        Retried whole while the file is locked by other writers (up to ``wait``
        seconds, default :attr:`wait`); any other SQLite failure rolls back and
        raises :class:`RecordUnavailable` (worded for a tool that only reads
        the record when ``reading``: a read that must first record the review
        it reads).  ``work`` must not commit itself.
        """
        return self._run(work, "BEGIN IMMEDIATE", self.wait if wait is None else wait, reading)

    def read(self, work: Work[T]) -> T:
        """``work(conn)`` inside one read transaction (a consistent snapshot, no lock)."""
        return self._run(work, "BEGIN", self.wait, True)

    def _run(self, work: Work[T], begin: str, wait: float, reading: bool) -> T:
        path = self.path
        deadline = time.monotonic() + wait
        pause = RECORD_RETRY_FIRST_PAUSE_SECONDS
        while True:
            try:
                conn = self._connection(path)
            except NewerSchema as exc:
                raise RecordUnavailable(
                    f"The review record {path} was written by a newer diffchunk (schema "
                    f"steps unknown here: {exc}).",
                    suggestion=f"Upgrade diffchunk, or set {STATE_ENV} to another directory.",
                ) from None
            except (sqlite3.Error, OSError) as exc:
                if isinstance(exc, sqlite3.Error) and _is_busy(exc) and time.monotonic() < deadline:
                    time.sleep(pause * (1 + random.random()))
                    pause = min(pause * 2, RECORD_RETRY_MAX_PAUSE_SECONDS)
                    continue
                raise unavailable(path, exc, wait=wait, reading=reading) from exc
            try:
                self._busy_timeout(conn, wait)
                conn.execute(begin)
                try:
                    result = work(conn)
                    conn.execute("COMMIT")
                    return result
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                self.close()  # a connection that failed is not used again
                if _is_busy(exc) and time.monotonic() < deadline:
                    time.sleep(pause * (1 + random.random()))
                    pause = min(pause * 2, RECORD_RETRY_MAX_PAUSE_SECONDS)
                    continue
                raise unavailable(path, exc, wait=wait, reading=reading) from exc

    @staticmethod
    def _busy_timeout(conn: sqlite3.Connection, wait: float) -> None:
        """SQLite's own wait for a lock in this operation: at most ``wait`` (2 us a call)."""
        conn.execute(f"PRAGMA busy_timeout = {int(min(BUSY_TIMEOUT_MS, wait * 1000))}")

    def _connection(self, path: str) -> sqlite3.Connection:
        """This thread's connection to the file now at ``path``.

        Kept between operations (closing the last connection of a WAL file
        checkpoints and removes its WAL: a millisecond per write), but only
        while ``path`` is still the same file: one moved aside or replaced is
        never written through an old connection.
        """
        try:
            st = os.stat(path)
            identity: tuple[str, int, int] | None = (path, st.st_dev, st.st_ino)
        except FileNotFoundError:
            identity = None
        cached = getattr(self._local, "entry", None)
        if cached is not None:
            if identity is not None and cached[0] == identity:
                conn: sqlite3.Connection = cached[1]
                return conn
            self.close()
        conn = self._connect(path)
        st = os.stat(path)
        self._local.entry = ((path, st.st_dev, st.st_ino), conn)
        return conn

    def close(self) -> None:
        """Close this thread's connection (the next operation opens one again)."""
        cached = getattr(self._local, "entry", None)
        self._local.entry = None
        if cached is not None:
            try:
                cached[1].close()
            except sqlite3.Error as exc:
                logger.debug("Closing the review record: %s", exc)

    def _connect(self, path: str) -> sqlite3.Connection:
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, mode=0o700, exist_ok=True)
        busy_ms = int(min(BUSY_TIMEOUT_MS, self.wait * 1000))
        conn = sqlite3.connect(
            path,
            timeout=busy_ms / 1000,
            isolation_level=None,  # transactions are explicit
            check_same_thread=False,
        )
        conn.row_factory = sqlite3.Row
        try:
            conn.execute(f"PRAGMA busy_timeout = {busy_ms}")
            conn.execute("PRAGMA foreign_keys = ON")
            st = os.stat(path)
            key = (path, st.st_dev, st.st_ino)
            with self._lock:
                ready = key in self._ready
            if not ready:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    logger.warning("The review record %s is in %s mode, not WAL.", path, mode)
                ran = migrate(conn)
                if ran:
                    logger.info("Brought the review record %s forward: %s.", path, ", ".join(ran))
                with self._lock:
                    self._ready.add(key)
            conn.execute("PRAGMA synchronous = NORMAL")
        except BaseException:
            conn.close()
            raise
        return conn


_default: RecordStore | None = None
_default_lock = threading.Lock()


def default_record() -> RecordStore:
    """The process-wide record (its file follows the environment at each call)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = RecordStore()
        return _default
