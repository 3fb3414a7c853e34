"""The write transaction: replace a file by a new version, after a backup, all or nothing.

``edit_content`` (the edited content) and ``revert_edit`` (a backup's
content) write through the same :class:`WriteTransaction`, under the file's
edit lock (:mod:`.locking`), on an :class:`~.edit_target.EditTarget` (the
file's directory open as a descriptor: every step below goes through it,
never through the path again), in this order:

1. refuse a file without a write bit, or in a directory where the new
   version cannot be created (:func:`check_writable`);
2. create the temporary sibling ``.<name>.diffchunk-XXXXXXXX.tmp`` (removing
   first any that a killed write of the same file left), with the file's
   owner, mode and extended attributes; what it cannot keep (owner, other
   hard links, attributes) becomes a warning of the result;
3. :meth:`WriteTransaction.back_up`: the caller's backup (:mod:`.backups`)
   of the content as read, checked to be that content before and after it
   is taken (another program's write meanwhile is :class:`ChangedMeanwhile`);
4. :meth:`WriteTransaction.write`: the caller fills the temporary file;
5. :meth:`WriteTransaction.replace`: fsync; wait for programs that hold the
   file open for writing to close it (:mod:`.writers`: still held after
   :data:`WRITERS_WAIT` seconds, it is not replaced: :class:`EditConflict`);
   check that its directory is still where the path leads and that the file
   is still the version read, or that version with lines appended since
   (when the version read is in memory: the appended bytes are copied to the
   new version, in up to :data:`EDIT_CARRY_ROUNDS` rounds); any other change
   is :class:`ChangedMeanwhile` (the file is never overwritten, and the
   caller makes the edit again from a fresh read); rename over it; fsync
   the directory;
6. after the rename, the version replaced (still open) is watched
   (:mod:`.late_writes`): programs that opened it just before the rename
   are waited for, then the bytes that reached it after it was read are
   copied to the side file the caller names (beside its backup) and
   reported (:class:`~.late_writes.LateWrite`), never lost in silence.

An exception before step 5's rename removes the temporary file and the
backup of step 3: the file is untouched and no backup is listed for a
write that did not happen.  A symlink's target is what is replaced (the
path is resolved once, by :class:`~.edit_target.EditTarget`); hard links to
the file keep the old content.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable
from types import TracebackType
from typing import TypeVar

from .. import paths
from ..errors import EditConflict, FileToolError
from ..fdio import copy_range, pread_exact
from ..limits import WRITERS_WAIT
from .edit_target import EditTarget
from .late_writes import LateWrite, keep_late
from .writers import wait_for_writers

TEMP_STEM_BYTES = 150
"""Bytes of the edited file's name kept in its temporary sibling's name
(``.<name>.diffchunk-XXXXXXXX.tmp``): the whole stays under the 255-byte limit
of file names.  Stale temporaries of longer names are left alone, as their
stem could be another file's."""

EDIT_CARRY_ROUNDS = 8
"""Rounds of copying the lines another program appended during an edit into the
new version before it is renamed over the file: each round copies what came
during the one before (microseconds); an appender that outpaces eight rounds
is an EditConflict (the edit is made again from a fresh read)."""


class ChangedMeanwhile(EditConflict):
    """Another program changed the file between its read and the rename: nothing was
    written, and the edit can be made again from a fresh read."""


def _is_stale_temp(name: bytes, prefix: bytes) -> bool:
    rest = name[len(prefix) :]
    return (
        name.startswith(prefix)
        and len(rest) == 12
        and rest.endswith(b".tmp")
        and all(c in b"0123456789abcdef" for c in rest[:8])
    )


def _remove_stale_temps(target: EditTarget) -> None:
    """Delete temporary files that an edit of the target killed mid-write left behind.

    Runs under the file's edit lock, so no live edit of this file has one.
    Only when the name is shorter than the stem limit: a longer name's stem
    could be shared with another file's temporaries.
    """
    stem = os.fsencode(target.name)
    if len(stem) >= TEMP_STEM_BYTES:
        return
    prefix = b"." + stem + b".diffchunk-"
    try:
        names = [os.fsencode(name) for name in os.listdir(target.dir_fd)]
    except OSError:
        return
    for name in names:
        if _is_stale_temp(name, prefix):
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=target.dir_fd)


def _create_temp(target: EditTarget) -> tuple[int, str]:
    stem = os.fsdecode(os.fsencode(target.name)[:TEMP_STEM_BYTES])
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    while True:
        name = f".{stem}.diffchunk-{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(name, flags, 0o600, dir_fd=target.dir_fd)
        except FileExistsError:
            continue
        return fd, name


def write_failure(realpath: str, exc: OSError, *, stage: str) -> FileToolError:
    reasons = {
        errno.EFBIG: "the file size limit was exceeded",
        errno.ENOSPC: "no space left on the device",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.EROFS: "the file system is read-only",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
    }
    reason = reasons.get(exc.errno or 0, exc.strerror or str(exc))
    where = os.path.dirname(realpath)
    return FileToolError(
        f"Cannot {stage} {realpath!r}: {reason}. The file was not changed.",
        suggestion=(
            f"Make sure {where!r} is writable and has room for a second copy of the file, "
            "then retry."
        ),
    )


def _writing(target: EditTarget, src_fd: int) -> EditConflict | None:
    """The error for a file (open at ``src_fd``) still held open for writing by another
    program after :data:`WRITERS_WAIT` seconds."""
    found = wait_for_writers(src_fd, WRITERS_WAIT)
    if not found:
        return None
    names = ", ".join(str(writer) for writer in found)
    return EditConflict(
        f"{target.realpath} is open for writing by {names}; replacing it now would send that "
        "program's next writes to the old version, so it was not changed.",
        suggestion="Retry when that program has closed the file, or change the file with it.",
    )


class _TempFile:
    """The temporary sibling that becomes the new file on :meth:`finish`."""

    def __init__(self, target: EditTarget, src_fd: int, st: os.stat_result) -> None:
        self.target = target
        realpath = target.realpath
        _remove_stale_temps(target)
        try:
            self.fd, self.name = _create_temp(target)
        except OSError as exc:
            raise write_failure(realpath, exc, stage="create a temporary file next to") from None
        # What the new version cannot keep of the old file, said in the result.
        self.warnings: list[str] = []
        try:
            with contextlib.suppress(OSError):
                os.fchown(self.fd, st.st_uid, st.st_gid)
            os.fchmod(self.fd, stat.S_IMODE(st.st_mode))
            made = os.fstat(self.fd)
        except OSError as exc:
            self.abort()
            raise write_failure(realpath, exc, stage="set the permissions of the new") from None
        if (made.st_uid, made.st_gid) != (st.st_uid, st.st_gid):
            self.warnings.append(
                f"The file belonged to uid {st.st_uid}, gid {st.st_gid}; this process cannot "
                f"give that to the new version, which belongs to uid {made.st_uid}, "
                f"gid {made.st_gid}."
            )
        if st.st_nlink > 1:
            self.warnings.append(
                f"The file had {st.st_nlink} hard links; the new version is a new file, "
                "and the other names still show the old content."
            )
        self.warnings.extend(_copy_xattrs(src_fd, self.fd))

    def finish(
        self, src_fd: int, expected: paths.Fingerprint, prefix: bytes | None
    ) -> paths.Fingerprint:
        """fsync; wait for writers; check the directory; carry lines appended meanwhile
        (or refuse any other change); rename over the file; fsync.  Returns the identity
        the replaced version (open at ``src_fd``) had when it was replaced."""
        target = self.target
        try:
            os.fsync(self.fd)
        except OSError as exc:
            self.abort()
            raise write_failure(target.realpath, exc, stage="write the new content of") from None
        held = _writing(target, src_fd)
        if held is not None:
            self.abort()
            raise held
        if not target.still_in_place():
            self.abort()
            raise target.replaced()
        try:
            expected = self._settle(src_fd, expected, prefix)
            os.replace(self.name, target.name, src_dir_fd=target.dir_fd, dst_dir_fd=target.dir_fd)
        except OSError as exc:
            self.abort()
            raise write_failure(target.realpath, exc, stage="replace") from None
        except BaseException:
            self.abort()
            raise
        with contextlib.suppress(OSError):
            os.fsync(self.fd)  # the lines carried after the first fsync
        os.close(self.fd)
        self.fd = -1
        with contextlib.suppress(OSError):
            os.fsync(target.dir_fd)
        return expected

    def _settle(
        self, src_fd: int, expected: paths.Fingerprint, prefix: bytes | None
    ) -> paths.Fingerprint:
        """The file's identity right before the rename, once it is the version read,
        plus the lines another program appended meanwhile, copied to the new version.

        Appends are carried only when the version read is in memory (``prefix``)
        and the file still starts with it; any other change (or appends that do
        not stop) is :class:`ChangedMeanwhile`: the file is not replaced.
        """
        carried = expected[2]
        for _ in range(EDIT_CARRY_ROUNDS):
            now = os.fstat(src_fd)
            entry = self.target.entry()
            if entry is None or (entry.st_dev, entry.st_ino) != (now.st_dev, now.st_ino):
                break  # the name holds another file now
            if paths.fingerprint(now) == expected:
                return expected
            if prefix is None or now.st_size <= carried:
                break  # rewritten, not appended to
            if pread_exact(src_fd, 0, len(prefix)) != prefix:
                break
            copy_range(src_fd, self.fd, carried, now.st_size - carried)
            carried = now.st_size
            expected = paths.fingerprint(now)
        raise changed_meanwhile(self.target.realpath)

    def abort(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1
        with contextlib.suppress(OSError):
            os.unlink(self.name, dir_fd=self.target.dir_fd)


def check_writable(target: EditTarget, st: os.stat_result) -> None:
    """Refuse a read-only file, or one whose directory cannot take the new version."""
    realpath = target.realpath
    if not st.st_mode & 0o222:
        raise FileToolError(
            f"{realpath!r} is read-only (mode {stat.S_IMODE(st.st_mode):04o}); it was not changed.",
            suggestion="Make it writable first (e.g. chmod u+w) if it really should be edited.",
        )
    if not os.access(".", os.W_OK | os.X_OK, dir_fd=target.dir_fd):
        raise FileToolError(
            f"Cannot edit {realpath!r}: its directory {target.directory!r} is not writable "
            "(the new version is written beside the file, then renamed). The file was not changed.",
            suggestion="Make the directory writable, or copy the file somewhere writable.",
        )


def _copy_xattrs(src_fd: int, fd: int) -> list[str]:
    """Give the new version (open at ``fd``) the extended attributes of the file (open
    at ``src_fd``: ACLs, SELinux labels, user.*); a warning for each that cannot be copied."""
    if not hasattr(os, "listxattr"):
        return []
    try:
        names = os.listxattr(src_fd)
    except OSError:  # not supported here
        return []
    failed = []
    for name in names:
        try:
            os.setxattr(fd, name, os.getxattr(src_fd, name))
        except OSError as exc:
            failed.append(f"{name} ({exc.strerror})")
    if not failed:
        return []
    return [f"Extended attributes the new version could not keep: {', '.join(failed)}."]


def changed_meanwhile(realpath: str) -> ChangedMeanwhile:
    return ChangedMeanwhile(
        f"{realpath} was changed by another program during the edit; it was not overwritten.",
        suggestion="Read the file again and repeat the edit.",
    )


_B = TypeVar("_B")


def _grown(st: os.stat_result, read: os.stat_result) -> bool:
    """Whether the file is the one read, longer (lines appended since, perhaps)."""
    return (st.st_dev, st.st_ino) == (read.st_dev, read.st_ino) and st.st_size > read.st_size


def _backed_up_unchanged(
    realpath: str,
    fd: int,
    expected: os.stat_result,
    backup: Callable[[], _B],
    *,
    may_grow: bool,
) -> tuple[_B, paths.Fingerprint]:
    """``backup()`` of the file open at ``fd``, checked to be as read before and after
    it (or, with ``may_grow``, longer: what was appended is checked and carried when
    the file is replaced), and the identity the final check compares the file with.

    That is the identity as read, but for the ctime when the backup is a hard
    link to the file (the link changes it): then the ctime right after.  A
    write by another program during a copied backup changes the size, mtime
    or ctime (the ctime even when the writer restores the mtime, as cp -p and
    rsync -t --inplace do), and is caught here or by the final check.
    """
    before = paths.fingerprint(expected)
    now = os.fstat(fd)
    if paths.fingerprint(now) != before and not (may_grow and _grown(now, expected)):
        raise changed_meanwhile(realpath)
    made = backup()
    after = os.fstat(fd)
    linked = after.st_nlink == expected.st_nlink + 1
    baseline = (*before[:4], after.st_ctime_ns if linked else before[4])
    if paths.fingerprint(after) != baseline and not (may_grow and _grown(after, expected)):
        raise changed_meanwhile(realpath)
    return made, baseline


class WriteTransaction:
    """One replacement of the target's file (open at ``fd``, as ``current`` says it
    was read) by a new version: see the module doc for the steps.  ``read``: the
    file's bytes as read, when they are in memory (lines another program
    appends meanwhile are then carried into the new version).

    Use it as a context manager; call :meth:`back_up`, :meth:`write` and
    :meth:`replace` in that order inside the block.
    """

    def __init__(
        self, target: EditTarget, fd: int, current: os.stat_result, *, read: bytes | None = None
    ) -> None:
        self.target = target
        self.realpath = target.realpath
        self.fd = fd
        self.current = current
        self.read = read
        self._temp: _TempFile | None = None
        self._undo_backup: Callable[[], None] | None = None
        self._baseline: paths.Fingerprint | None = None

    def __enter__(self) -> WriteTransaction:
        check_writable(self.target, self.current)
        self._temp = _TempFile(self.target, self.fd, self.current)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc is not None:
            self._abort()

    @property
    def warnings(self) -> list[str]:
        """What the new version could not keep of the old file."""
        return self._temp.warnings if self._temp is not None else []

    def back_up(self, make: Callable[[], _B], discard: Callable[[_B], None]) -> _B:
        """``make()`` a backup of the content as read (``discard`` removes it again
        if the transaction fails later); :class:`ChangedMeanwhile` when the file
        changed before or while it was taken."""
        made, self._baseline = _backed_up_unchanged(
            self.realpath, self.fd, self.current, make, may_grow=self.read is not None
        )
        self._undo_backup = lambda: discard(made)
        return made

    def write(self, fill: Callable[[int], None], *, stage: str) -> None:
        """``fill(fd)`` writes the new version into the temporary file; an OSError
        becomes a :class:`FileToolError` saying it could not ``stage`` the file."""
        assert self._temp is not None
        try:
            fill(self._temp.fd)
        except OSError as exc:
            raise write_failure(self.realpath, exc, stage=stage) from None

    def replace(self, backup: str, late_side: str) -> LateWrite | None:
        """Make the new version the file (step 5 of the module doc), then keep in
        ``late_side`` what other programs wrote to the version replaced (step 6);
        ``backup`` is this write's backup."""
        assert self._temp is not None and self._baseline is not None
        replaced = self._temp.finish(self.fd, self._baseline, self.read)
        self._undo_backup = None  # the write happened: its backup stays
        try:
            return keep_late(self.fd, replaced, late_side, backup)
        except (OSError, FileToolError) as exc:
            self.warnings.append(
                f"Another program may have written to the version this edit replaced, and "
                f"what it wrote could not be kept in {late_side}: {exc}."
            )
            return None

    def _abort(self) -> None:
        if self._temp is not None:
            self._temp.abort()
        if self._undo_backup is not None:
            self._undo_backup()
