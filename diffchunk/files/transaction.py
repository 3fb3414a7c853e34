"""The write transaction: replace a file by a new version, after a backup, all or nothing.

``edit_content`` (the edited content) and ``revert_edit`` (a backup's
content) write through the same :class:`WriteTransaction`, under the file's
edit lock (:mod:`.locking`), in this order:

1. refuse a file without a write bit, or in a directory where the new
   version cannot be created (:func:`check_writable`);
2. create the temporary sibling ``.<name>.diffchunk-XXXXXXXX.tmp`` (removing
   first any that a killed write of the same file left), with the file's
   owner, mode and extended attributes; what it cannot keep (owner, other
   hard links, attributes) becomes a warning of the result;
3. :meth:`WriteTransaction.back_up`: the caller's backup (:mod:`.backups`)
   of the content as read, checked to be that content before and after it
   is taken (another program's write meanwhile is an :class:`EditConflict`);
4. :meth:`WriteTransaction.write`: the caller fills the temporary file;
5. :meth:`WriteTransaction.replace`: fsync, check that the file is still
   the version read (else :class:`EditConflict`: it is never overwritten),
   rename over it, fsync the directory.

An exception anywhere in the ``with`` block removes the temporary file and
the backup of step 3: the file is untouched and no backup is listed for a
write that did not happen.  A symlink's target is what is replaced (the
caller resolves the path); hard links to the file keep the old content.
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
from ..limits import TEMP_STEM_BYTES
from . import backups


def _remove_stale_temps(directory: str, base: str) -> None:
    """Delete temporary files that an edit of ``base`` killed mid-write left behind.

    Runs under the file's edit lock, so no live edit of this file has one.
    Only when the name is shorter than the stem limit: a longer name's stem
    could be shared with another file's temporaries.
    """
    stem = os.fsencode(base)
    if len(stem) >= TEMP_STEM_BYTES:
        return
    prefix = b"." + stem + b".diffchunk-"
    try:
        names = os.listdir(os.fsencode(directory))
    except OSError:
        return
    for name in names:
        rest = name[len(prefix) :]
        if (
            name.startswith(prefix)
            and len(rest) == 12
            and rest.endswith(b".tmp")
            and all(c in b"0123456789abcdef" for c in rest[:8])
        ):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(os.fsencode(directory), name))


def _create_temp(directory: str, base: str) -> tuple[int, str]:
    stem = os.fsencode(base)[:TEMP_STEM_BYTES]
    stem_text = os.fsdecode(stem)
    while True:
        path = os.path.join(directory, f".{stem_text}.diffchunk-{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        except FileExistsError:
            continue
        return fd, path


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


class _TempFile:
    """The temporary sibling that becomes the new file on :meth:`finish`."""

    def __init__(self, realpath: str, st: os.stat_result) -> None:
        self.realpath = realpath
        self.directory = os.path.dirname(realpath)
        _remove_stale_temps(self.directory, os.path.basename(realpath))
        try:
            self.fd, self.path = _create_temp(self.directory, os.path.basename(realpath))
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
        self.warnings.extend(_copy_xattrs(realpath, self.fd))

    def finish(self, expected: paths.Fingerprint) -> None:
        """fsync, check the target is unchanged, rename over it, fsync the directory."""
        try:
            os.fsync(self.fd)
            os.close(self.fd)
            self.fd = -1
        except OSError as exc:
            self.abort()
            raise write_failure(self.realpath, exc, stage="write the new content of") from None
        try:
            current = os.stat(self.realpath)
        except OSError:
            current = None
        if current is None or paths.fingerprint(current) != expected:
            self.abort()
            raise changed_meanwhile(self.realpath)
        try:
            os.replace(self.path, self.realpath)
        except OSError as exc:
            self.abort()
            raise write_failure(self.realpath, exc, stage="replace") from None
        backups.fsync_dir(self.directory)

    def abort(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1
        with contextlib.suppress(OSError):
            os.unlink(self.path)


def check_writable(realpath: str, st: os.stat_result) -> None:
    """Refuse a read-only file, or one whose directory cannot take the new version."""
    if not st.st_mode & 0o222:
        raise FileToolError(
            f"{realpath!r} is read-only (mode {stat.S_IMODE(st.st_mode):04o}); it was not changed.",
            suggestion="Make it writable first (e.g. chmod u+w) if it really should be edited.",
        )
    directory = os.path.dirname(realpath)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise FileToolError(
            f"Cannot edit {realpath!r}: its directory {directory!r} is not writable "
            "(the new version is written beside the file, then renamed). The file was not changed.",
            suggestion="Make the directory writable, or copy the file somewhere writable.",
        )


def _copy_xattrs(realpath: str, fd: int) -> list[str]:
    """Give the new version (open at ``fd``) the extended attributes of the file
    (ACLs, SELinux labels, user.*); a warning for each that cannot be copied."""
    if not hasattr(os, "listxattr"):
        return []
    try:
        names = os.listxattr(realpath)
    except OSError:  # not supported here
        return []
    failed = []
    for name in names:
        try:
            os.setxattr(fd, name, os.getxattr(realpath, name))
        except OSError as exc:
            failed.append(f"{name} ({exc.strerror})")
    if not failed:
        return []
    return [f"Extended attributes the new version could not keep: {', '.join(failed)}."]


def changed_meanwhile(realpath: str) -> EditConflict:
    return EditConflict(
        f"{realpath} was changed by another program during the edit; it was not overwritten.",
        suggestion="Read the file again and repeat the edit.",
    )


_B = TypeVar("_B")


def _backed_up_unchanged(
    realpath: str, fd: int, expected: os.stat_result, backup: Callable[[], _B]
) -> tuple[_B, paths.Fingerprint]:
    """``backup()`` of the file open at ``fd``, checked to be as read before and after
    it, and the identity the final check compares the file with.

    That is the identity as read, but for the ctime when the backup is a hard
    link to the file (the link changes it): then the ctime right after.  A
    write by another program during a copied backup changes the size, mtime
    or ctime (the ctime even when the writer restores the mtime, as cp -p and
    rsync -t --inplace do), and is caught here or by the final check.
    """
    before = paths.fingerprint(expected)
    if paths.fingerprint(os.fstat(fd)) != before:
        raise changed_meanwhile(realpath)
    made = backup()
    after = os.fstat(fd)
    linked = after.st_nlink == expected.st_nlink + 1
    baseline = (*before[:4], after.st_ctime_ns if linked else before[4])
    if paths.fingerprint(after) != baseline:
        raise changed_meanwhile(realpath)
    return made, baseline


class WriteTransaction:
    """One replacement of ``realpath`` (open at ``fd``, as ``current`` says it was
    read) by a new version: see the module doc for the steps.

    Use it as a context manager; call :meth:`back_up`, :meth:`write` and
    :meth:`replace` in that order inside the block.
    """

    def __init__(self, realpath: str, fd: int, current: os.stat_result) -> None:
        self.realpath = realpath
        self.fd = fd
        self.current = current
        self._temp: _TempFile | None = None
        self._undo_backup: Callable[[], None] | None = None
        self._baseline: paths.Fingerprint | None = None

    def __enter__(self) -> WriteTransaction:
        check_writable(self.realpath, self.current)
        self._temp = _TempFile(self.realpath, self.current)
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
        if the transaction fails later); :class:`EditConflict` when the file
        changed before or while it was taken."""
        made, self._baseline = _backed_up_unchanged(self.realpath, self.fd, self.current, make)
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

    def replace(self) -> None:
        """Make the new version the file (see step 5 of the module doc)."""
        assert self._temp is not None and self._baseline is not None
        self._temp.finish(self._baseline)

    def _abort(self) -> None:
        if self._temp is not None:
            self._temp.abort()
        if self._undo_backup is not None:
            self._undo_backup()
