"""Copies, reads, writes and hashes of open files, in bounded blocks.

Shared by the backups and edits of the file tools (and their reader,
:mod:`diffchunk.files.byte_reader`) and by the private copies of large diffs
(:mod:`diffchunk.diff.buffer`): nothing here holds more than one block of a
file in memory.  :func:`read_small_file` reads the small files of a
repository (``HEAD``, a ``.git`` file, ``config``, ``alternates``): a named
pipe or a device there can never block it.  :func:`open_directory_beneath`
reaches a directory below another without following a symbolic link (a
snapshot's work-tree file).  :func:`prune_newest_first` is the one way a
bounded directory (the diff cache, snapshots, backups, view handles, exports,
diffs read from standard input) drops what is beyond its bounds;
:func:`prune_files` applies it to a flat directory of files that stand alone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import TypeVar

from .errors import FileToolError

COPY_BLOCK = 64 * 1024 * 1024
"""Bytes per copy_file_range/sendfile call: the kernel copies without the bytes
passing through the process, so a block may be large; one call per 64 MiB
keeps each system call short."""

COPY_FALLBACK_BLOCK = 8 * 1024 * 1024
"""Bytes per pread/write when the kernel cannot copy (another file system, an
old kernel): the copy holds one such block in memory."""

TEMP_NAME_TRIES = 100
"""Random temporary names tried before giving up: a taken name is rare, a
hundred in a row means the directory is not what it seems."""

HASH_BLOCK = 16 * 1024 * 1024
"""Bytes read per step of hashing an open file (backups, edits, mapped diffs):
one block in memory, few enough steps that a large file hashes at disk speed."""


def copy_range(src_fd: int, dst_fd: int, offset: int, count: int) -> None:
    """Append ``count`` bytes of ``src_fd`` starting at ``offset`` to ``dst_fd``.

    Copies inside the kernel (``copy_file_range``, then ``sendfile``) and
    falls back to bounded reads and writes; never holds more than one block.
    """
    end = offset + count
    pos = offset
    if hasattr(os, "copy_file_range"):
        try:
            while pos < end:
                done = os.copy_file_range(src_fd, dst_fd, min(end - pos, COPY_BLOCK), pos)
                if done == 0:
                    break
                pos += done
        except OSError as exc:
            if exc.errno not in (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
                raise
    if pos < end and hasattr(os, "sendfile"):
        try:
            while pos < end:
                done = os.sendfile(dst_fd, src_fd, pos, min(end - pos, COPY_BLOCK))
                if done == 0:
                    break
                pos += done
        except OSError as exc:
            if exc.errno not in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
                raise
    while pos < end:
        block = os.pread(src_fd, min(end - pos, COPY_FALLBACK_BLOCK), pos)
        if not block:
            break
        view = memoryview(block)
        while view:
            written = os.write(dst_fd, view)
            view = view[written:]
        pos += len(block)
    if pos < end:
        raise FileToolError("The file became shorter while it was being copied.", suggestion=_RETRY)


_RETRY = "Something else is changing the file; retry when it is idle."


def pread_exact(
    fd: int, start: int, stop: int, *, what: str = "The file", suggestion: str = _RETRY
) -> bytes:
    """Bytes ``start:stop`` of the file open at ``fd`` (a large read may come back in
    pieces); :class:`FileToolError` ("``what`` became shorter...") if it ends first."""
    data = os.pread(fd, stop - start, start) if stop > start else b""
    while len(data) < stop - start:
        more = os.pread(fd, stop - start - len(data), start + len(data))
        if not more:
            raise FileToolError(
                f"{what} became shorter while it was being read.", suggestion=suggestion
            )
        data += more
    return data


def sha256_fd(
    fd: int, size: int, cancelled: threading.Event | None = None, *, block: int = HASH_BLOCK
) -> str:
    """SHA-256 of the first ``size`` bytes of ``fd``, read ``block`` bytes at a time."""
    import hashlib  # not at import: a command that hashes nothing does not load OpenSSL

    digest = hashlib.sha256()
    pos = 0
    while pos < size:
        if cancelled is not None and cancelled.is_set():
            return ""
        end = min(size, pos + block)
        digest.update(pread_exact(fd, pos, end))
        pos = end
    return digest.hexdigest()


class BackgroundHash:
    """SHA-256 computed in a thread (hashlib releases the GIL while it hashes), of an
    open file (the constructor) or of bytes in memory (:meth:`of_bytes`).

    The one background hasher of the package: the backups and edits, the
    private copies of large diffs and the sessions' in-memory diffs use it.
    """

    def __init__(self, fd: int, size: int, *, block: int = HASH_BLOCK) -> None:
        own = os.dup(fd)
        cancelled = threading.Event()

        def work() -> str:
            try:
                return sha256_fd(own, size, cancelled, block=block)
            finally:
                os.close(own)

        self._start(work, cancelled)

    @classmethod
    def of_bytes(cls, data: bytes) -> BackgroundHash:
        """SHA-256 of ``data``, computed in a thread."""

        def work() -> str:
            import hashlib

            return hashlib.sha256(data).hexdigest()

        hasher = cls.__new__(cls)
        hasher._start(work, threading.Event())
        return hasher

    def _start(self, work: Callable[[], str], cancelled: threading.Event) -> None:
        self._result: str | None = None
        self._error: BaseException | None = None
        self._cancelled = cancelled

        def run() -> None:
            try:
                self._result = work()
            except BaseException as exc:
                self._error = exc

        self._thread = threading.Thread(target=run, name="diffchunk-sha256", daemon=True)
        self._thread.start()

    def result(self) -> str:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    def cancel(self) -> None:
        """Stop hashing (the result is no longer needed)."""
        self._cancelled.set()


class NotAFile(OSError):
    """What :func:`read_small_file` was asked to read is not a regular file."""


class FileTooLarge(OSError):
    """What :func:`read_small_file` was asked to read is larger than allowed."""


def read_small_file(path: str, max_bytes: int) -> bytes:
    """The whole content of the regular file ``path``, at most ``max_bytes`` long.

    Opened without blocking (``O_NONBLOCK``: opening a named pipe with no
    writer, or a device, returns at once) and checked with ``fstat`` on what
    was opened before anything is read: anything but a regular file raises
    :class:`NotAFile`, a larger file :class:`FileTooLarge`.  Symbolic links
    are followed (as git follows them).  Other failures are the ``OSError``
    of ``open`` (``FileNotFoundError``...).
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotAFile(errno.EINVAL, "not a regular file", path)
        if st.st_size > max_bytes:
            raise FileTooLarge(errno.EFBIG, f"larger than {max_bytes} bytes", path)
        data = os.read(fd, max_bytes + 1)
        while data and len(data) <= max_bytes:
            more = os.read(fd, max_bytes + 1 - len(data))
            if not more:
                break
            data += more
        if len(data) > max_bytes:  # grew since fstat
            raise FileTooLarge(errno.EFBIG, f"larger than {max_bytes} bytes", path)
        return data
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes | memoryview) -> None:
    """Write all of ``data`` to ``fd`` (a write may take only part of it)."""
    view = memoryview(data)
    while view:
        done = os.write(fd, view)
        view = view[done:]


def replace_file(
    target: str | os.PathLike[str], data: bytes, *, mode: int | None = None, durable: bool = True
) -> None:
    """Make ``data`` the content of ``target`` at once: written to a new temporary
    file beside it, flushed to disk, then renamed over it.

    A reader never sees a half-written file, and a failure leaves ``target`` as
    it was (and no temporary file).  The rename replaces whatever has that name
    (a symbolic link included) instead of writing through it.  ``mode``: the
    new file's permissions (default: those of the file it replaces, else
    0666 less the umask, as ``open`` would make it).  ``durable=False``: not
    flushed to disk first, for a file that is made again when lost (a cache's
    companion files): a crash may leave it empty, never half-replaced by another
    name.  OSError on failure.
    """
    with replacing(target, mode=mode, durable=durable) as write:
        write(data)


@contextlib.contextmanager
def replacing(
    target: str | os.PathLike[str], *, mode: int | None = None, durable: bool = True
) -> Iterator[Callable[[bytes], None]]:
    """:func:`replace_file` for content written in pieces: the ``write`` given appends
    to the temporary file; leaving the block normally renames it over ``target``,
    leaving it by an exception removes it (``target`` stays as it was)."""
    path = os.fspath(target)
    directory = os.path.dirname(path) or "."
    if mode is None:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    for _ in range(TEMP_NAME_TRIES):
        tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.urandom(4).hex()}.tmp")
        try:
            fd = os.open(tmp, flags, 0o600)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"no free temporary name beside {path}")
    try:
        try:
            yield lambda data: write_all(fd, data)
            os.fchmod(fd, mode)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class PendingFile:
    """A file being written that appears only when it is complete: made with
    ``O_EXCL`` (never another's file), open for reading and writing at :attr:`fd`,
    mode 0600 until :meth:`commit`.

    Exactly one of :meth:`commit` and :meth:`discard` ends it; ``discard`` may be
    called again, after a failed commit and after a commit, and does nothing more.  Its writers:
    a file snapshot (:mod:`diffchunk.snapshots`, under a name of its own then
    renamed into place), a backup's data (:mod:`diffchunk.files.backups`, at its
    own reserved name) and
    a diff cache entry (:class:`diffchunk.git.cache.PendingEntry`, which renames it
    while still open and locked, then closes it).
    """

    __slots__ = ("_ended", "_open", "fd", "path")

    def __init__(self, path: str) -> None:
        """The new file ``path`` (``FileExistsError`` when the name is taken)."""
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
        self.fd = os.open(path, flags, 0o600)
        self.path = path
        self._open = True
        self._ended = False

    @classmethod
    def named(cls, directory: str, name: Callable[[], str]) -> PendingFile:
        """A new file of ``directory`` under the first free one of :data:`TEMP_NAME_TRIES`
        names ``name()`` makes (random ones)."""
        for _ in range(TEMP_NAME_TRIES):
            try:
                return cls(os.path.join(directory, name()))
            except FileExistsError:
                continue
        raise FileExistsError(f"no free temporary name in {directory}")

    def commit(
        self, target: str | None = None, *, mode: int | None = None, keep_existing: bool = False
    ) -> bool:
        """Flush the file to disk, give it ``mode``, close it and rename it to ``target``
        (None: it stays where it is); ``keep_existing``: a ``target`` already there is
        kept and this file removed.  Whether this file is now ``target``.  A failure
        discards it and raises the ``OSError``."""
        try:
            os.fsync(self.fd)
            if mode is not None:
                os.fchmod(self.fd, mode)
            self.close()
            if keep_existing and target is not None and os.path.exists(target):
                self.discard()
                return False
            if target is not None:
                os.replace(self.path, target)
        except BaseException:
            self.discard()
            raise
        self._ended = True
        return True

    def discard(self) -> None:
        """Close and remove the file (it never appears)."""
        self.close()
        if not self._ended:
            self._ended = True
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    def close(self) -> None:
        """Close the descriptor (once)."""
        if self._open:
            self._open = False
            os.close(self.fd)


def _umask() -> int:
    """The process's umask, read without changing it (``os.umask`` sets it, which
    another thread could meet); 0o022 where it cannot be read."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def open_directory_beneath(top: str, names: Sequence[bytes]) -> int:
    """A descriptor of the directory ``top/names[0]/names[1]/...`` (the caller closes it).

    Each name is opened relative to the directory before it, with
    ``O_NOFOLLOW`` and ``O_DIRECTORY``: a symbolic link below ``top`` is never
    followed, so what is opened lies under ``top`` whatever the links say
    (``top`` itself is opened as given).  OSError ``ELOOP`` or ``ENOTDIR``
    when a name is a link or not a directory, ``EINVAL`` for a name that is
    empty, ``.`` or ``..`` or holds a ``/``.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(top, flags)
    try:
        for name in names:
            if name in (b"", b".", b"..") or b"/" in name:
                raise OSError(errno.EINVAL, f"not a single name below {top}", os.fsdecode(name))
            inner = os.open(name, flags | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


_Entry = TypeVar("_Entry")


def prune_newest_first(
    entries: Iterable[tuple[int, _Entry]],
    remove: Callable[[_Entry], bool],
    *,
    max_count: int | None = None,
    max_bytes: int | None = None,
    used: int = 0,
    spare: Collection[_Entry] = (),
    least: int = 0,
    stale: Callable[[_Entry], bool] | None = None,
) -> list[_Entry]:
    """Remove what a bounded directory holds beyond its bounds; the entries removed.

    ``entries`` are ``(size, entry)``, newest (most recently used) first: the newest
    are kept while at most ``max_count`` of them, of at most ``max_bytes`` bytes
    with the ``used`` bytes counted first (writes under way), are kept; an entry in
    ``spare`` is never removed (it counts); the ``least`` newest are kept whatever
    their size; a ``stale`` entry goes whatever the bounds.  ``remove`` removes one
    and says whether it did: only what was removed no longer counts.
    """
    kept = 0
    total = used
    removed: list[_Entry] = []
    for size, entry in entries:
        kept += 1
        total += size
        if entry in spare:
            continue
        over = (max_count is not None and kept > max_count) or (
            max_bytes is not None and total > max_bytes and kept > least
        )
        if (over or (stale is not None and stale(entry))) and remove(entry):
            removed.append(entry)
            kept -= 1
            total -= size
    return removed


def prune_files(
    directory: str | os.PathLike[str],
    keep: str | os.PathLike[str],
    *,
    max_count: int | None = None,
    max_bytes: int | None = None,
    suffix: str = "",
    stale: Callable[[str, float], bool] | None = None,
) -> list[str]:
    """:func:`prune_newest_first` over a flat directory of files that stand alone (view
    handles, exports, diffs read from standard input): its regular files named
    ``*suffix`` (a name starting with ``.`` is a write under way, never counted),
    newest first by modification time; ``keep`` (the one just written or used) is
    never removed; ``stale(path, mtime)`` says which go whatever the bounds.  The
    paths removed; a file that cannot be listed or removed is left as it is."""
    found: list[tuple[float, int, str]] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            if entry.name.startswith(".") or not entry.name.endswith(suffix):
                continue
            with contextlib.suppress(OSError):
                if entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    found.append((st.st_mtime, st.st_size, entry.path))
    found.sort(reverse=True)
    mtimes = {path: mtime for mtime, _, path in found}
    return prune_newest_first(
        ((size, path) for _, size, path in found),
        _unlink_file,
        max_count=max_count,
        max_bytes=max_bytes,
        spare=(os.fspath(keep),),
        stale=None if stale is None else (lambda path: stale(path, mtimes[path])),
    )


def _unlink_file(path: str) -> bool:
    try:
        os.unlink(path)
    except OSError:
        return False
    return True
