"""The file an edit or a revert works on: its path resolved once, then only what was opened.

A path that is checked and then used again can lead elsewhere the second
time (a component swapped for a symbolic link meanwhile).  So an edit uses
the path once:

- :meth:`EditTarget.open` resolves it (``realpath``), refuses a snapshot of
  a revision and checks the real path against the allowed roots, then walks
  that real path from ``/``, opening each directory relative to the one
  before with ``O_NOFOLLOW``: the descriptor it keeps is the directory the
  checked path named, or the walk fails (a component became a link).
- The walk refuses git's own files (:func:`_git_reason`): anything under a
  directory named ``.git``, a file named ``.git``, anything inside a
  directory git takes for a git directory (``HEAD``, and ``objects`` and
  ``refs`` or a ``commondir`` file: a bare repository, the git directory a
  ``.git`` file names, the git directories of linked worktrees and
  submodules) and git's global configuration files.  Git runs programs
  its configuration and hooks name (``core.fsmonitor``): an edit there
  would have the next plain ``git status`` run one.  Decided on the real
  path, by looking at the directories opened, without running git.
- Everything after goes through the directory's descriptor: the file is
  opened with ``O_NOFOLLOW`` (:meth:`EditTarget.open_file`); the backup's
  hard link, the temporary file and the rename use ``dir_fd``.
- Right before the rename, :meth:`EditTarget.still_in_place` walks the real
  path again and compares each directory with the one opened (a directory
  moved out of the roots, or a link put in its place, is refused).  The
  rename replaces the name in the directory that passed: a link put there
  meanwhile is replaced, never followed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from types import TracebackType

from .. import paths
from ..errors import EditConflict, FileToolError
from ..paths import PathPolicy
from ..snapshots import refuse_edit

_PATH = getattr(os, "O_PATH", os.O_RDONLY)
_DIRECTORY = os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | _PATH
Identity = tuple[int, int]


def _identity(st: os.stat_result) -> Identity:
    return st.st_dev, st.st_ino


def _moved(realpath: str) -> EditConflict:
    return EditConflict(
        f"A directory on the path of {realpath} was moved or replaced by a link while it was "
        "being edited; nothing was written.",
        suggestion="Check the path, and retry when nothing is moving files there.",
    )


def _has(dir_fd: int, name: str, *, directory: bool) -> bool:
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=directory)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) if directory else True


def _is_git_dir(dir_fd: int) -> bool:
    """Whether git takes the directory open at ``dir_fd`` for a git directory: a ``HEAD``,
    and ``objects`` and ``refs`` directories or a ``commondir`` file naming where they are."""
    if not _has(dir_fd, "HEAD", directory=False):
        return False
    if _has(dir_fd, "commondir", directory=False):
        return True
    return _has(dir_fd, "objects", directory=True) and _has(dir_fd, "refs", directory=True)


def _global_configs() -> set[str]:
    """Real paths of git's global and system configuration files."""
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME", "").strip()
    config_home = xdg if os.path.isabs(xdg) else os.path.join(home, ".config")
    found = {
        os.path.join(home, ".gitconfig"),
        os.path.join(config_home, "git", "config"),
        "/etc/gitconfig",
    }
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        value = os.environ.get(name, "").strip()
        if os.path.isabs(value):
            found.add(value)
    return {os.path.realpath(path) for path in found}


def _git_reason(realpath: str, directory: str, dir_fd: int) -> str | None:
    """Why ``realpath`` (in ``directory``, open at ``dir_fd``) is git's own file, or None."""
    if os.path.basename(directory).casefold() == ".git":
        return f"it is inside the git directory {directory}"
    if _is_git_dir(dir_fd):
        return f"it is inside {directory}, a git directory (it holds HEAD, objects and refs)"
    return None


def _refused(realpath: str, reason: str) -> FileToolError:
    return FileToolError(
        f"{realpath} is not edited: {reason}. Git runs programs its configuration and hooks "
        "name, so diffchunk never writes git's own files.",
        suggestion="Edit files of the work tree; change git's settings with git config "
        "yourself if that is really meant.",
    )


def _open_dir(name: str, dir_fd: int | None, realpath: str) -> tuple[int, os.stat_result]:
    """``name`` opened as a directory (relative to ``dir_fd``), never through a link."""
    try:
        fd = os.open(name, _DIRECTORY, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
            raise _moved(realpath) from None
        raise FileToolError(
            f"Cannot open the directory {name!r} on the path of {realpath}: {exc.strerror}.",
            suggestion="Check the permissions of the directories on its path.",
        ) from None
    st = os.fstat(fd)
    if not stat.S_ISDIR(st.st_mode):  # O_PATH opens a link itself: never one here
        os.close(fd)
        raise _moved(realpath)
    return fd, st


def _walk(realpath: str, *, check_git: bool) -> tuple[int, list[Identity]]:
    """The directory of ``realpath`` opened from ``/`` one component at a time, and the
    identity of each directory on the way (git's directories refused with ``check_git``)."""
    directory = os.path.dirname(realpath)
    fd, st = _open_dir("/", None, realpath)
    chain = [_identity(st)]
    walked = "/"
    try:
        for part in [p for p in directory.split("/") if p]:
            walked = os.path.join(walked, part)
            child, st = _open_dir(part, fd, realpath)
            os.close(fd)
            fd = child
            chain.append(_identity(st))
            reason = _git_reason(realpath, walked, fd) if check_git else None
            if reason is not None:
                raise _refused(realpath, reason)
    except BaseException:
        os.close(fd)
        raise
    return fd, chain


def _readable(fd: int) -> int:
    """A descriptor of the same directory that can be listed and flushed (``fd`` is closed),
    or ``fd`` itself when the directory cannot be read."""
    if _PATH == os.O_RDONLY:
        return fd
    try:
        readable = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=fd)
    except OSError:
        return fd
    os.close(fd)
    return readable


class EditTarget:
    """A file to edit, reached through its directory's descriptor :attr:`dir_fd`.

    Use :meth:`open` (a context manager: the descriptor is closed after).
    """

    def __init__(self, realpath: str, dir_fd: int, chain: list[Identity]) -> None:
        self.realpath = realpath
        self.directory = os.path.dirname(realpath)
        self.name = os.path.basename(realpath)
        self.dir_fd = dir_fd
        self._chain = chain

    @classmethod
    def open(cls, path: str, policy: PathPolicy | None = None) -> EditTarget:
        """The target ``path`` names: resolved once, checked against ``policy``'s roots,
        git's own files refused, its directory opened (see the module doc)."""
        realpath, _ = paths.resolve_regular_file(path)
        refuse_edit(realpath)  # a snapshot of a revision: the error names the real file
        if policy is not None:
            paths.check_allowed(realpath, policy.roots, shown=path, remedy=policy.remedy)
        if os.path.basename(realpath).casefold() == ".git":
            raise _refused(realpath, "it is a .git file, which tells git where its directory is")
        if realpath in _global_configs():
            raise _refused(realpath, "it is git's global configuration")
        fd, chain = _walk(realpath, check_git=True)
        return cls(realpath, _readable(fd), chain)

    def open_file(self) -> tuple[int, os.stat_result]:
        """The file opened for reading through the directory (never through a link),
        with its status; :class:`EditConflict` when it is no longer a regular file."""
        try:
            fd = os.open(
                self.name,
                os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                dir_fd=self.dir_fd,
            )
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOENT, errno.ENXIO):
                raise self.replaced() from None
            raise FileToolError(f"{self.realpath} cannot be opened: {exc.strerror}.") from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise self.replaced()
        return fd, st

    def entry(self) -> os.stat_result | None:
        """What the file's name in the directory is now (a link is not followed), or None."""
        try:
            return os.stat(self.name, dir_fd=self.dir_fd, follow_symlinks=False)
        except OSError:
            return None

    def still_in_place(self) -> bool:
        """Whether the real path still leads, directory by directory, to the one opened."""
        try:
            fd, chain = _walk(self.realpath, check_git=False)
        except (EditConflict, FileToolError):
            return False
        os.close(fd)
        return chain == self._chain

    def replaced(self) -> EditConflict:
        """The error for a file whose name no longer holds a regular file."""
        return EditConflict(
            f"{self.realpath} was replaced (by a link, another kind of file, or nothing) "
            "while it was being edited; nothing was written.",
            suggestion="Check what is at that path now, then repeat the edit.",
        )

    def close(self) -> None:
        if self.dir_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.dir_fd)
            self.dir_fd = -1

    def __enter__(self) -> EditTarget:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
