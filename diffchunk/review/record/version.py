"""A cheap version of the review record: it changes when anyone writes to it.

A page that shows the record (``diffchunk web``) asks for it every second or
so and reads the record again only when it changed, so what the assistant
writes over MCP, or the CLI, or another page, appears without a reload.

The version is SQLite's ``PRAGMA data_version`` on a connection of its own,
kept open: that number changes whenever another connection commits to the
file (every write of every process goes through other connections), and
reading it costs no transaction and takes no lock.  A connection is opened
again when the path names another file (moved aside, replaced), and the
version's ``generation`` counts those openings, so the pair changes then too.
Before the file exists the version is ``"none"``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from .store import RecordStore, default_record


class RecordVersion:
    """The version of one record (default: the process-wide one); thread-safe."""

    def __init__(self, record: RecordStore | None = None) -> None:
        self._record = record
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._identity: tuple[str, int, int] | None = None
        self._generation = 0

    @property
    def path(self) -> str:
        return (self._record if self._record is not None else default_record()).path

    def current(self) -> str:
        """``"<generation>.<data_version>"``, or ``"none"`` while there is no record."""
        path = self.path
        with self._lock:
            try:
                st = os.stat(path)
            except OSError:
                self._close()
                return "none"
            identity = (path, st.st_dev, st.st_ino)
            try:
                if self._conn is None or identity != self._identity:
                    self._close()
                    self._conn = sqlite3.connect(
                        Path(path).as_uri() + "?mode=ro", uri=True, check_same_thread=False
                    )
                    self._identity = identity
                    self._generation += 1
                value = self._conn.execute("PRAGMA data_version").fetchone()[0]
            except sqlite3.Error:
                self._close()
                return "none"
            return f"{self._generation}.{value}"

    def _close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except sqlite3.Error:
                pass
        self._conn = None
        self._identity = None

    def close(self) -> None:
        with self._lock:
            self._close()
