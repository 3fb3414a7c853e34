"""A snapshot of a file of a work tree, as a diff names it: confined, read once, checked.

``open_file_version`` takes the new side of a working tree's diff (and of a
working-tree diff file whose blob is in no object store) from the file on
disk.  The diff says where the file is, and a diff can come from anyone, so
the path is taken as data and the file is reached only where git itself
could have put it:

- **Names, not a path.**  The diff's path is split into names below the work
  tree's top; an absolute path or an empty, ``.``, ``..`` or ``.git`` name
  (none of which git stores) is refused before anything is opened.
- **No link followed.**  Each directory is opened relative to the one before
  with ``O_NOFOLLOW`` (:func:`~diffchunk.fdio.open_directory_beneath`), and
  the file itself with ``O_NOFOLLOW`` and ``O_NONBLOCK`` (a FIFO put in its
  place cannot hang the call); it must be the regular file seen a moment
  before (same device and inode).  A symbolic link is read as a link (its
  target's text, as git stores it) only where the diff gives it mode 120000.
- **Inside the allowed roots** (:func:`~diffchunk.paths.check_allowed_path`
  on the file's real path: the top's, with names that are no links).
- **Read once, hashed as read.**  Its size is checked against the snapshot
  limit first; the bytes read become the snapshot, and their blob id (or the
  one git gives them with line endings converted, ``hash-object --path``)
  must be the **full** id the diff names.  Nothing is ever compared with an
  abbreviated id.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable
from typing import Any

from ...diff.paths import encode_path, is_escaped_path
from ...errors import FileToolError
from ...fdio import open_directory_beneath
from ...git.blobs import cleaned_blob_id
from ...git.repo import Repo
from ...limits import SHORT_ID, SNAPSHOT_READ_BLOCK
from ...paths import check_allowed_path
from ...snapshots import Snapshot, SnapshotWriter, check_size

LINK_MODE = "120000"
FULL_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
FULL_IDS = "Make the diff with full blob ids (git diff --full-index)"
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def reload_advice(repo: Repo) -> str:
    return (
        f'Load the working tree again (load_git_diff(absolute_repo_path="{repo.path}")) and '
        "open the file from the new diff."
    )


def snapshot_work_tree_file(
    repo: Repo,
    on_side: str,
    expected: str | None,
    name: str,
    source: dict[str, Any],
    *,
    link: bool,
    diff_file: bool,
) -> Snapshot:
    """The snapshot of the work tree's file ``on_side`` (see the module docstring), whose
    content must have the full blob id ``expected``.  ``link``: the diff gives the file
    mode 120000; ``diff_file``: the diff is a file given with its repository rather than
    a range loaded from it (the refusals say so)."""
    if repo.root is None:
        raise FileToolError(f"{repo.path} is a bare repository: it has no work tree.")
    if expected is None or not FULL_ID.fullmatch(expected):
        raise FileToolError(
            f"The diff gives no full blob id for {on_side}: the work tree's file cannot be "
            "checked against it.",
            suggestion=f"{FULL_IDS}, or review the working tree with load_git_diff.",
        )
    names = _tree_names(on_side)
    top = os.path.realpath(repo.root)
    disk = os.path.join(top, *(os.fsdecode(n) for n in names))
    check_allowed_path(disk)
    file = _WorkTreeFile(repo, on_side, expected, disk, diff_file)
    try:
        parent = open_directory_beneath(top, names[:-1])
    except OSError as exc:
        raise file.unreadable(exc) from None
    try:
        return file.snapshot(parent, names[-1], name, source, link=link)
    finally:
        os.close(parent)


def _tree_names(on_side: str) -> list[bytes]:
    """The names of ``on_side`` below the work tree's top, as git could store them."""
    raw = encode_path(on_side) if is_escaped_path(on_side) else os.fsencode(on_side)
    names = raw.split(b"/")
    if b"\0" in raw or any(n in (b"", b".", b"..") or n.lower() == b".git" for n in names):
        raise FileToolError(
            f"The diff names the file {on_side!r}, which is no path git stores (an absolute "
            "path, an empty, '.', '..' or '.git' name): nothing is read for it.",
            suggestion="Review a diff made by git in this repository "
            "(git diff --full-index), or the range itself with load_git_diff.",
        )
    return names


class _WorkTreeFile:
    """One read of a work tree's file into a snapshot."""

    def __init__(self, repo: Repo, on_side: str, expected: str, disk: str, diff_file: bool) -> None:
        self.repo = repo
        self.on_side = on_side
        self.expected = expected
        self.disk = disk
        self.diff_file = diff_file
        self.algorithm = "sha256" if len(expected) == 64 else "sha1"

    def snapshot(
        self, parent: int, leaf: bytes, name: str, source: dict[str, Any], *, link: bool
    ) -> Snapshot:
        """The snapshot of ``leaf`` in the directory open at ``parent``."""
        try:
            seen = os.stat(leaf, dir_fd=parent, follow_symlinks=False)
            if stat.S_ISLNK(seen.st_mode) and link:
                target = os.readlink(leaf, dir_fd=parent)
                return self._write(name, source, len(target), lambda w: w.write(target))
            if not stat.S_ISREG(seen.st_mode):
                raise self._not_a_file(stat.S_ISLNK(seen.st_mode))
            opened = os.open(leaf, _FILE_FLAGS, dir_fd=parent)
        except OSError as exc:
            raise self.unreadable(exc) from None
        try:
            now = os.fstat(opened)
            if not stat.S_ISREG(now.st_mode) or not os.path.samestat(now, seen):
                raise self._not_a_file(False)  # swapped since it was seen
            return self._write(name, source, now.st_size, lambda w: self._copy(opened, w))
        finally:
            os.close(opened)

    def _copy(self, opened: int, writer: SnapshotWriter) -> None:
        try:
            while block := os.read(opened, SNAPSHOT_READ_BLOCK):
                writer.write(block)
        except OSError as exc:
            raise self.unreadable(exc) from None

    def _write(
        self, name: str, source: dict[str, Any], size: int, fill: Callable[[SnapshotWriter], None]
    ) -> Snapshot:
        check_size(
            size,
            f"{self.on_side} in the work tree",
            f'Read the file itself with read_content(absolute_file_path="{self.disk}"), '
            "which pages through a file of any size",
        )
        writer = SnapshotWriter(name, self.algorithm, size=size)
        try:
            fill(writer)
            if writer.blob != self.expected and self._cleaned(writer) != self.expected:
                raise self._changed()
        except BaseException:
            writer.abort()
            raise
        return writer.commit(source)

    def _cleaned(self, writer: SnapshotWriter) -> str | None:
        """The blob id git gives what was read, line endings converted as it adds it."""
        os.lseek(writer.fd, 0, os.SEEK_SET)
        return cleaned_blob_id(self.repo, self.on_side, writer.fd)

    def _advice(self) -> str:
        if self.diff_file:
            return "Pass as absolute_repo_path the repository the diff was made in."
        return reload_advice(self.repo)

    def _changed(self) -> FileToolError:
        if self.diff_file:
            return FileToolError(
                f"The blob {self.expected} of {self.on_side} is not in the repository "
                f"{self.repo.path}, and its work tree's file does not have that content.",
                suggestion="Pass as absolute_repo_path the repository the diff was made in "
                "(the file may have changed since the diff was made).",
            )
        return FileToolError(
            f"{self.on_side} changed since the diff was loaded: the work tree's file is not "
            f"the blob {self.expected[:SHORT_ID]} the diff shows, so its lines would not be the "
            "diff's.",
            suggestion=reload_advice(self.repo),
        )

    def _not_a_file(self, is_link: bool) -> FileToolError:
        what = "a symbolic link" if is_link else "not a regular file"
        return FileToolError(
            f"{self.on_side} is {what} in the work tree, where the diff shows a file: it is "
            "not followed (a link is read as a link only where the diff gives it mode "
            f"{LINK_MODE}).",
            suggestion=self._advice(),
        )

    def unreadable(self, exc: OSError) -> FileToolError:
        """The refusal for ``exc``, met on the way to the file or reading it."""
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            return FileToolError(
                f"A directory on the way to {self.on_side} in the work tree is a symbolic "
                "link or not a directory: git stores no file below a link, so it is not "
                "followed.",
                suggestion=self._advice(),
            )
        if exc.errno == errno.ENOENT and self.diff_file:
            return self._changed()
        moved = "The file may have been moved or deleted since the diff was loaded: "
        return FileToolError(
            f"Cannot read {self.disk}: {exc.strerror or exc}.",
            suggestion=self._advice() if self.diff_file else moved + reload_advice(self.repo),
        )
