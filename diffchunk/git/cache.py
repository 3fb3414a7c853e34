"""The on-disk cache of generated diffs.

Location: ``$DIFFCHUNK_CACHE_DIR``, else ``$XDG_CACHE_HOME/diffchunk``, else
``~/.cache/diffchunk``.  An entry ``<name>.diff`` may have companion files
``<name>.diff.<suffix>`` (the application keeps what it learnt of the diff
there); they go with their entry, and a companion whose entry is gone is
removed once it is old.  Entries are written to a temporary file in the same
directory, flushed with ``fsync`` and renamed into place, so a reader never
sees a half-written entry; a failed write leaves nothing behind (a write
error such as a full disk raises :class:`GitError`).  The cache is
bounded: after each write the least recently used entries beyond
``max_entries`` files or ``max_bytes`` bytes are removed (a cache hit
refreshes an entry's mtime).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from ..errors import CacheWriteError, GitError
from ..fdio import PendingFile, prune_newest_first
from ..limits import STALE_TEMP_SECONDS
from ..paths import cache_dir

MAX_ENTRIES = 200
"""Diffs kept in the cache of git ranges (least recently used pruned first): a
bound on the cache directory; a review whose entry was pruned runs git again."""

MAX_BYTES = 2 * 1024**3
"""Bytes kept in the cache of git ranges (2 GiB), so that the cache never fills
a disk by itself."""

UNLOCKED_TEMP_SECONDS = 10
"""A temporary cache file that no process holds locked is garbage after this
long (its writer locks it right after creating it)."""

DISK_FULL_BELOW = 1 << 20
"""Free space below which a failed write into the cache is taken for a full
disk (and said so) rather than git's own failure."""


SUFFIX = ".diff"
_TMP_PREFIX = ".tmp-"
# The only names this cache ever writes (see ``git.diffwrite.cache_name``, the
# since-review diffs of ``review.incremental`` and ``tempfile.mkstemp``).  Nothing else in the directory is treated as an
# entry, so a cache directory that also holds other files never loses them.
_ENTRY_NAME = re.compile(
    r"(?:(?:[0-9a-f]{12}|root)\.\.[0-9a-f]{12}|(?:commits|worktree|index|since))-[0-9a-f]{16}"
    + re.escape(SUFFIX)
)
_TMP_NAME = re.compile(re.escape(_TMP_PREFIX) + r"[a-z0-9_]{8}" + re.escape(SUFFIX))
# A companion file of an entry: ``<entry name>.<suffix>``.
_COMPANION_SUFFIX = re.compile(r"\.[a-z0-9][a-z0-9.-]*")


def companion_entry(name: str) -> str | None:
    """The entry name a companion file ``name`` belongs to, or None."""
    entry, dot, rest = name.partition(SUFFIX + ".")
    if not dot or not is_entry_name(entry + SUFFIX):
        return None
    if _COMPANION_SUFFIX.fullmatch("." + rest) is None:
        return None
    return entry + SUFFIX


def is_entry_name(name: str) -> bool:
    """True for a file name this cache writes as an entry."""
    return _ENTRY_NAME.fullmatch(name) is not None


def is_private_entry(path: str, fd: int, directory: Path) -> bool:
    """Whether ``path`` (open at ``fd``) is an entry of the cache at ``directory`` that
    only this cache writes: the directory and the file are this user's, nobody
    else can write in the directory, and the file has no other name (through
    which it could be rewritten in place).  Entries are written once and
    renamed into place, so such a file never changes: it can be mapped."""
    parent, name = os.path.split(os.path.realpath(path))
    if not is_entry_name(name) or parent != os.path.realpath(directory):
        return False
    uid = os.getuid()
    folder, entry = os.stat(parent), os.fstat(fd)
    return (
        folder.st_uid == uid
        and not folder.st_mode & 0o022
        and entry.st_uid == uid
        and entry.st_nlink == 1
    )


def default_cache_dir() -> Path:
    """The cache directory chosen from the environment (not created; see
    :func:`diffchunk.paths.cache_dir`)."""
    return Path(cache_dir())


def _write_error(directory: Path, exc: OSError) -> CacheWriteError:
    """A failed write of a cache entry (disk full, file size limit, read-only)."""
    return CacheWriteError(
        f"Cannot write the diff to the cache directory {directory}: "
        f"{exc.strerror or exc}; nothing was cached.",
        suggestion="Free some space, or set DIFFCHUNK_CACHE_DIR to a writable directory "
        "with room for the diff, then retry.",
    )


class CacheStats(NamedTuple):
    path: str
    entries: int
    bytes: int


class DiffCache:
    """A directory of generated diff files."""

    def __init__(
        self,
        directory: str | os.PathLike[str] | None = None,
        *,
        max_entries: int = MAX_ENTRIES,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.max_entries = max_entries
        self.max_bytes = max_bytes

    def ensure(self) -> Path:
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise CacheWriteError(
                f"Cannot create the diff cache directory {self.directory}: {exc.strerror}.",
                suggestion="Set DIFFCHUNK_CACHE_DIR to a writable directory.",
            ) from None
        return self.directory

    def path_for(self, name: str) -> Path:
        return self.directory / f"{name}{SUFFIX}"

    def holds(self, name: str) -> bool:
        """True if entry ``name`` exists (nothing is touched, unlike :meth:`lookup`)."""
        return self.path_for(name).is_file()

    def lookup(self, name: str) -> Path | None:
        """The entry ``name`` if it exists (its mtime is refreshed), else ``None``."""
        path = self.path_for(name)
        try:
            os.utime(path)
        except OSError:
            return None
        return path

    def begin(self, name: str) -> PendingEntry:
        """Start writing entry ``name``: a temporary file that :meth:`PendingEntry.commit`
        makes the entry (or :meth:`PendingEntry.abort` removes)."""
        return PendingEntry(self, name)

    def _entries(self) -> Iterator[tuple[Path, os.stat_result]]:
        try:
            names = os.listdir(self.directory)
        except OSError:
            return
        for name in names:
            path = self.directory / name
            try:
                st = path.lstat()
            except OSError:
                continue
            if _TMP_NAME.fullmatch(name):
                # An interrupted write of another process: garbage once nobody
                # writes it (see PendingEntry), or once old.
                age = time.time() - st.st_mtime
                unused = str(path) not in _WRITING and _unlocked(path)
                if age > STALE_TEMP_SECONDS or (age > UNLOCKED_TEMP_SECONDS and unused):
                    with contextlib.suppress(OSError):
                        path.unlink()
                continue
            owner = companion_entry(name)
            if owner is not None:
                # A companion whose entry is gone (young ones may be a write in progress).
                orphan = not os.path.exists(self.directory / owner)
                if orphan and time.time() - st.st_mtime > STALE_TEMP_SECONDS:
                    with contextlib.suppress(OSError):
                        path.unlink()
                continue
            if is_entry_name(name) and stat.S_ISREG(st.st_mode):
                yield path, st

    def _names(self) -> list[str]:
        try:
            return os.listdir(self.directory)
        except OSError:
            return []

    def _remove(self, path: Path, names: list[str]) -> bool:
        """Remove the entry ``path`` and its companion files (``names``: the directory's)."""
        try:
            path.unlink()
        except OSError:
            return False
        prefix = path.name + "."
        for name in names:
            if name.startswith(prefix) and companion_entry(name) == path.name:
                with contextlib.suppress(OSError):
                    os.unlink(self.directory / name)
        return True

    def prune(self, keep: Path | None = None) -> int:
        """Remove least recently used entries beyond the bounds; returns how many."""
        entries = sorted(self._entries(), key=lambda e: e[1].st_mtime_ns, reverse=True)
        names: list[str] = []

        def remove(path: Path) -> bool:
            if not names:
                names.extend(self._names())
            return self._remove(path, names)

        return len(
            prune_newest_first(
                ((st.st_size, path) for path, st in entries),
                remove,
                max_count=self.max_entries,
                max_bytes=self.max_bytes,
                spare=() if keep is None else (keep,),
            )
        )

    def clear(self) -> int:
        """Remove every entry; returns how many."""
        names = self._names()
        removed = 0
        for path, _ in list(self._entries()):
            removed += self._remove(path, names)
        return removed

    def stats(self) -> CacheStats:
        entries = list(self._entries())
        return CacheStats(str(self.directory), len(entries), sum(st.st_size for _, st in entries))


# The names tempfile.mkstemp would choose (see _TMP_NAME), made here: the
# review creates its entry before git diff starts, and tempfile loads slowly.
_TMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"


def _temp_name() -> str:
    """A name ``.tmp-XXXXXXXX.diff`` for an entry being written."""
    letters = "".join(_TMP_CHARS[b % len(_TMP_CHARS)] for b in os.urandom(8))
    return f"{_TMP_PREFIX}{letters}{SUFFIX}"


class PendingEntry:
    """A cache entry being written: ``fd`` is its temporary file (see :meth:`DiffCache.begin`),
    a :class:`~diffchunk.fdio.PendingFile` renamed while still open (and locked).

    Exactly one of :meth:`commit` and :meth:`abort` ends it; abort may be
    called again (and after a failed commit) and does nothing more.
    """

    def __init__(self, cache: DiffCache, name: str) -> None:
        self.cache = cache
        directory = cache.ensure()
        try:
            self._file = PendingFile.named(str(directory), _temp_name)
        except OSError as exc:
            raise _write_error(directory, exc) from None
        self.fd, self.tmp = self._file.fd, self._file.path
        self.final = cache.path_for(name)
        self._flush: tuple[threading.Thread, list[OSError]] | None = None
        # Held as long as the file is open here or in git (which shares the
        # open file as its stdout): a temporary file nobody holds is garbage
        # (its writers were killed), and the cache removes it.
        _lock(self.fd)
        _WRITING.add(self.tmp)

    def write_failed(self, exc: GitError) -> GitError:
        """What to raise when git, writing into this entry, failed with ``exc``.

        A full disk (or another write error) is the cache's failure, said as
        :meth:`DiffCache.write` says it; anything else is git's own.
        """
        try:
            st = os.fstatvfs(self.fd)
            full = st.f_bavail * st.f_frsize < DISK_FULL_BELOW
        except OSError:
            full = False
        if full:
            return _write_error(
                self.cache.directory, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            )
        if "write failure" in exc.message or "No space left" in exc.message:
            return _write_error(self.cache.directory, OSError(exc.message))
        return exc

    def start_flush(self) -> None:
        """Start flushing what was written to disk (``fsync`` in a thread), so that
        the caller's own work overlaps it; :meth:`commit` waits for it."""
        if self._flush is not None:
            return
        failed: list[OSError] = []

        def sync() -> None:
            try:
                os.fsync(self.fd)
            except OSError as exc:
                failed.append(exc)

        thread = threading.Thread(target=sync, name="diffchunk-fsync", daemon=True)
        thread.start()
        self._flush = (thread, failed)

    def _flushed(self) -> None:
        """Wait for the flush (starting none if none was started: fsync here)."""
        if self._flush is None:
            os.fsync(self.fd)
            return
        thread, failed = self._flush
        thread.join()
        if failed:
            raise failed[0]

    def commit(self) -> Path:
        """Flush the file to disk and rename it into place; returns the entry's path.

        A failure removes the file: the entry then does not appear.
        """
        try:
            try:
                self._flushed()
                os.fchmod(self.fd, 0o600)
                # Renamed while still open and locked: until then another
                # process's sweep could take the file for an abandoned one.
                os.replace(self.tmp, self.final)
            finally:
                self._close()
        except BaseException as exc:
            self.abort()
            if isinstance(exc, OSError):
                raise _write_error(self.cache.directory, exc) from None
            raise
        self.cache.prune(keep=self.final)
        return self.final

    def abort(self) -> None:
        """Close and remove the temporary file (the entry does not appear)."""
        if self._flush is not None:
            self._flush[0].join()  # the descriptor stays open until its fsync ends
        _WRITING.discard(self.tmp)
        self._file.discard()

    def _close(self) -> None:
        _WRITING.discard(self.tmp)
        self._file.close()


# Temporary files this process writes: never garbage to itself, whatever its
# locks say (where flock is emulated by per-process locks, as on NFS, a
# process does not see its own).
_WRITING: set[str] = set()


def _lock(fd: int) -> None:
    """Lock the open file ``fd`` (``flock``; nothing where there is none)."""
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (ImportError, OSError):
        pass


def _unlocked(path: Path) -> bool:
    """True if no process holds ``path`` locked (see :func:`_lock`); False if unsure."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True
