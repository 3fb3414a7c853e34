"""Per-file exclusive locks shared by every process that edits a file.

The lock is an ``fcntl.flock`` on a *sidecar* file in the backup directory,
named after the SHA-256 of the edited file's realpath.  Locking the edited
file itself would not work: an edit replaces it with ``os.replace``, so the
next editor would open (and lock) a different inode than the one a waiting
editor holds.  The sidecar never moves, so the whole read-modify-write of
one file is serialised across processes and threads (each acquisition opens
its own file description, and ``flock`` conflicts between descriptions).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import time
from collections.abc import Iterator

from .. import settings
from ..errors import EditConflict, FileToolError

LOCK_POLL_FIRST = 0.002
"""Seconds between the first tries of a held edit lock (2 ms), doubling..."""

LOCK_POLL_MAX = 0.01
"""...up to 10 ms: a waiting edit starts soon after the other ends."""


def lock_timeout() -> float:
    """Seconds to wait for another edit of the same file (``DIFFCHUNK_LOCK_TIMEOUT``)."""
    return settings.number("DIFFCHUNK_LOCK_TIMEOUT")


def lock_path(lock_dir: str, realpath: str) -> str:
    """The sidecar lock file that guards ``realpath``."""
    digest = hashlib.sha256(os.fsencode(realpath)).hexdigest()[:32]
    return os.path.join(lock_dir, f"{digest}.lock")


@contextlib.contextmanager
def file_lock(lock_dir: str, realpath: str, *, timeout: float | None = None) -> Iterator[None]:
    """Hold the exclusive edit lock of ``realpath`` for the ``with`` block.

    Waits up to ``timeout`` seconds (default :func:`lock_timeout`) and raises
    :class:`EditConflict` when another edit keeps the file locked longer.
    """
    wait = lock_timeout() if timeout is None else timeout
    try:
        os.makedirs(lock_dir, mode=0o700, exist_ok=True)
        fd = os.open(lock_path(lock_dir, realpath), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise FileToolError(
            f"Cannot create the edit lock in {lock_dir!r}: {exc.strerror}.",
            suggestion="Set DIFFCHUNK_BACKUP_DIR to a writable directory.",
        ) from None
    try:
        deadline = time.monotonic() + wait
        pause = LOCK_POLL_FIRST
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise
            if time.monotonic() >= deadline:
                raise EditConflict(
                    f"Another edit of {realpath!r} has held its lock for more than {wait:g} s.",
                    suggestion="Retry when that edit has finished.",
                )
            time.sleep(pause)
            pause = min(pause * 2, LOCK_POLL_MAX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
