"""``revert_edit``: restore a backup of a file, after saving its current content.

The current content is saved as a backup first (kind ``revert``), then the
chosen backup's content replaces the file through the same write
transaction as an edit (:mod:`.transaction`), under the file's lock, on the
file as :class:`~.edit_target.EditTarget` opened it (the allowed roots and
git's own files as for an edit; made again from a fresh read when another
program changes the file meanwhile): a revert can itself be reverted and no
version is lost.  Without a
``backup_id`` the newest backup whose content differs from the current file
is restored (so a revert right after a revert swaps back).  A damaged
backup (smaller than recorded) is refused; a hard-linked backup that grew
(another program wrote to the version it is after that edit, see
:mod:`.backups`) is restored at its recorded size; a file that is gone but
has backups gets a message saying where the newest one is.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import Any

from ..errors import FileToolError, PathError
from ..fdio import copy_range, sha256_fd
from ..limits import EDIT_ATTEMPTS
from ..paths import PathPolicy
from . import backups
from .edit_target import EditTarget
from .late_writes import LateWrite
from .locking import file_lock
from .transaction import ChangedMeanwhile, WriteTransaction


@dataclass(frozen=True, slots=True)
class RevertResult:
    """The result of ``revert_edit``."""

    reverted_to: backups.BackupInfo
    current_saved_as: backups.BackupInfo
    available_backups: tuple[backups.BackupInfo, ...]
    warnings: tuple[str, ...] = ()
    late_write: LateWrite | None = None  # bytes another program wrote to the replaced version

    def to_dict(self) -> dict[str, Any]:
        """The tool's JSON (``warnings`` and ``late_write`` only when there are some)."""
        data: dict[str, Any] = {
            "success": True,
            "reverted_to": self.reverted_to.as_dict(),
            "current_saved_as": self.current_saved_as.as_dict(),
            "available_backups": [info.as_dict() for info in self.available_backups],
            "error": None,
        }
        if self.warnings:
            data["warnings"] = list(self.warnings)
        if self.late_write is not None:
            data["late_write"] = self.late_write.to_dict()
        return data


def revert_edit(
    absolute_file_path: str, backup_id: str | None = None, *, policy: PathPolicy | None = None
) -> RevertResult:
    """Restore a backup of a file, after saving its current content as a backup.

    Without ``backup_id`` the newest backup whose content differs from the
    current file is restored (a revert right after a revert thus swaps back).
    ``policy``: the allowed roots the file's real path must lie under.
    """
    try:
        opened = EditTarget.open(absolute_file_path, policy)
    except PathError:
        _backups_of_a_missing_file(absolute_file_path)
        raise
    with opened as target, file_lock(backups.lock_dir(), target.realpath):
        available = backups.backups_for(target.realpath)
        if not available:
            raise FileToolError(
                f"There are no backups of {target.realpath!r} (in {backups.backup_root()!r}).",
                suggestion="Backups are made by edit_content with preview=false before each write.",
            )
        for _ in range(EDIT_ATTEMPTS - 1):
            with contextlib.suppress(ChangedMeanwhile):
                return _revert_once(target, available, backup_id)
        return _revert_once(target, available, backup_id)


def _revert_once(
    target: EditTarget, available: list[backups.BackupInfo], backup_id: str | None
) -> RevertResult:
    """Restore the chosen backup once, from a fresh read of the file."""
    fd, current = target.open_file()
    try:
        if backup_id is not None and str(backup_id).strip():
            chosen = backups.find_backup(target.realpath, str(backup_id))
        else:
            chosen = _default_target(available, fd, current.st_size)
        return _restore(target, fd, current, chosen)
    finally:
        os.close(fd)


def _default_target(available: list[backups.BackupInfo], fd: int, size: int) -> backups.BackupInfo:
    digest: str | None = None
    for info in available:
        if info.size != size:
            return info
        if digest is None:
            digest = sha256_fd(fd, size)
        if backups.read_metadata(info).get("sha256") != digest:
            return info
    raise FileToolError(
        f"Every backup of {available[0].path!r}'s file has the same content as the file now; "
        "there is nothing different to restore.",
        suggestion=f"Pass a backup_id to restore one explicitly: {backups.ids_text(available)}.",
    )


def _backups_of_a_missing_file(path: str) -> None:
    """When ``path`` is gone but has backups: say how to bring one back."""
    expanded = os.path.expanduser(path)
    if not os.path.isabs(expanded) or os.path.lexists(expanded):
        return
    real = os.path.join(os.path.realpath(os.path.dirname(expanded)), os.path.basename(expanded))
    available = backups.backups_for(real)
    if available:
        newest = available[0]
        raise FileToolError(
            f"{real} does not exist (deleted or moved), but {len(available)} backup(s) of it "
            f"do; the newest, {newest.id}, is {newest.path}.",
            suggestion=f"Copy it back first (cp {newest.path!r} {real!r}), then revert_edit "
            "can restore any other backup.",
        )


def _restore(
    edited: EditTarget, fd: int, current: os.stat_result, target: backups.BackupInfo
) -> RevertResult:
    """Write ``target``'s content over the file through the write transaction,
    after saving the current content (open at ``fd``) as a backup."""
    realpath = edited.realpath
    try:
        src = os.open(target.path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise FileToolError(
            f"The backup {target.id} cannot be opened: {exc.strerror}.",
            suggestion=f"Pick another backup: {backups.ids_text(backups.backups_for(realpath))}.",
        ) from None
    try:
        size = os.fstat(src).st_size
        expected = backups.read_metadata(target).get("size")
        if isinstance(expected, int) and expected < size:
            size = expected  # bytes written to the replaced version after its edit
        if isinstance(expected, int) and expected != size:
            raise FileToolError(
                f"The backup {target.id} is damaged ({size} bytes instead of {expected}).",
                suggestion=f"Pick another backup: {backups.ids_text(backups.backups_for(realpath))}.",
            )
        with WriteTransaction(edited, fd, current) as txn:
            saved = txn.back_up(
                lambda: backups.create_backup(
                    realpath,
                    fd,
                    current.st_size,
                    kind="revert",
                    link_from=(edited.dir_fd, edited.name),
                ),
                backups.discard_backup,
            )
            txn.write(
                lambda out: copy_range(src, out, 0, size), stage="write the restored content of"
            )
            late = txn.replace(saved.path, backups.late_side(saved))
    finally:
        os.close(src)
    backups.prune(realpath, protect={saved.id, target.id})
    return RevertResult(
        reverted_to=target,
        current_saved_as=saved,
        available_backups=tuple(backups.backups_for(realpath)),
        warnings=(*txn.warnings, *([late.warning(realpath)] if late else [])),
        late_write=late,
    )
