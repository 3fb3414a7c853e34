"""Backups taken before every write of an edited file, and their retention.

Layout: one flat directory (``DIFFCHUNK_BACKUP_DIR``, else ``backups`` in the
state directory, :func:`diffchunk.paths.state_dir`)
holding, per backup, a data file ``<basename>.<key>.<id>`` and a metadata file
``<basename>.<key>.<id>.json``; ``key`` is ``sha256(realpath)[:12]`` and ``id``
is ``YYYYMMDD_HHMMSS_ffffff_NN`` (UTC).  The data file name is reserved with
``O_EXCL`` (the counter ``NN`` moves on when a name is taken) so ids never
collide, and ids of one file increase strictly, so sorting by id is sorting by
age.  The metadata file is written last (after the data is fsynced), through a
temporary file and a rename: a backup is listed only once it has one, so a
listed backup is always complete.

Data is stored either as a *hard link* to the inode that the edit is about to
replace (free for any size: after the rename that inode is referenced by the
backup alone; linked through the file's directory descriptor, never its
path, and checked to be the inode read) or, when linking is impossible
(other file system, file with several links, ``DIFFCHUNK_BACKUP_LINK=0``),
as a copy made with ``copy_file_range``/``sendfile``.

Bytes another program wrote to the replaced version after the edit read it
(an appender racing the rename) are kept beside the backup, in
``<basename>.<key>.<id>.late`` (:func:`late_side`), and removed with it.  A
hard-linked backup *is* that version, so it holds them too, past its
recorded size: a revert restores the recorded size.

Retention (per edited file, oldest pruned first, the newest backups taken by
the running operation are never pruned): at most ``DIFFCHUNK_BACKUP_KEEP``
backups (default 50) and at most ``DIFFCHUNK_BACKUP_MAX_BYTES`` bytes (default
2 GiB).  All writers of one file's backups hold that file's edit lock.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass

from .. import paths, settings
from ..errors import FileToolError
from ..fdio import BackgroundHash, PendingFile, copy_range, prune_newest_first, replace_file
from ..limits import SHORT_ID

BACKUP_NAME_PART_BYTES = 120
"""Bytes of the edited file's name kept in its backups' names: with the key,
the id and ``.json``, a name stays under the 255-byte limit of file names."""

BACKUP_IDS_SHOWN = 20
"""Backup ids an error lists (newest first)."""


LinkSource = tuple[int, str]
"""A file named in a directory open as a descriptor: ``(dir_fd, name)``."""

LATE_SUFFIX = ".late"


@dataclass(frozen=True, slots=True)
class BackupInfo:
    """One stored backup of one file."""

    id: str
    timestamp: str
    size: int
    path: str

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "timestamp": self.timestamp, "size": self.size, "path": self.path}


# --------------------------------------------------------------------- config


def backup_root() -> str:
    """The directory holding every backup (created on first use, mode 0700)."""
    configured = settings.directory("DIFFCHUNK_BACKUP_DIR")
    if configured:
        return configured
    return os.path.join(paths.state_dir(), "backups")


def lock_dir() -> str:
    """Where the per-file edit locks live (inside the backup directory)."""
    return os.path.join(backup_root(), "locks")


def retention_limits() -> tuple[int, int]:
    """``(max backups, max total bytes)`` kept per edited file."""
    return settings.count("DIFFCHUNK_BACKUP_KEEP"), settings.count("DIFFCHUNK_BACKUP_MAX_BYTES")


def _ensure_root() -> str:
    root = backup_root()
    try:
        os.makedirs(root, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise FileToolError(
            f"Cannot create the backup directory {root!r}: {exc.strerror}.",
            suggestion="Set DIFFCHUNK_BACKUP_DIR to a writable directory.",
        ) from None
    return root


# ----------------------------------------------------------------- low level


def fsync_dir(directory: str) -> None:
    """Make a rename/creation in ``directory`` durable (best effort)."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ------------------------------------------------------------------- naming


def file_key(realpath: str) -> str:
    return hashlib.sha256(os.fsencode(realpath)).hexdigest()[:SHORT_ID]


def _prefix(realpath: str) -> str:
    base = os.path.basename(realpath) or "file"
    if len(os.fsencode(base)) > BACKUP_NAME_PART_BYTES:
        base = os.fsencode(base)[:BACKUP_NAME_PART_BYTES].decode("utf-8", errors="ignore") or "file"
    return f"{base}.{file_key(realpath)}."


def _parse_id(backup_id: str) -> _dt.datetime | None:
    try:
        return _dt.datetime.strptime(backup_id[:22], "%Y%m%d_%H%M%S_%f")
    except ValueError:
        return None


def _timestamp(backup_id: str) -> str:
    moment = _parse_id(backup_id)
    return moment.strftime("%Y-%m-%d %H:%M:%S") if moment else ""


def _info(root: str, name: str, backup_id: str) -> BackupInfo | None:
    data = os.path.join(root, name)
    try:
        size = os.stat(data).st_size
    except OSError:
        return None
    return BackupInfo(id=backup_id, timestamp=_timestamp(backup_id), size=size, path=data)


# ------------------------------------------------------------------ listing


def backups_for(realpath: str) -> list[BackupInfo]:
    """Complete backups of ``realpath``, newest first."""
    root = backup_root()
    prefix = _prefix(realpath)
    found: list[BackupInfo] = []
    try:
        entries = os.listdir(root)
    except OSError:
        return []
    names = set(entries)
    for entry in entries:
        if not (entry.startswith(prefix) and entry.endswith(".json")):
            continue
        name = entry[:-5]
        backup_id = name[len(prefix) :]
        if name not in names or _parse_id(backup_id) is None:
            continue
        info = _info(root, name, backup_id)
        if info is not None:
            found.append(info)
    found.sort(key=lambda item: item.id, reverse=True)
    return found


def read_metadata(info: BackupInfo) -> dict[str, object]:
    """The metadata stored next to a backup (original path, size, sha256, ...)."""
    try:
        with open(info.path + ".json", encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def list_backups(path: str) -> list[dict[str, object]]:
    """Backups of the file at ``path`` (which may no longer exist), newest first."""
    realpath = os.path.realpath(paths.expand(path))
    return [info.as_dict() for info in backups_for(realpath)]


def ids_text(available: list[BackupInfo], shown: int = BACKUP_IDS_SHOWN) -> str:
    """The ids of ``available`` backups (newest first) as a message shows them."""
    if not available:
        return "there are none"
    more = f" and {len(available) - shown} older" if len(available) > shown else ""
    return "ids, newest first: " + ", ".join(info.id for info in available[:shown]) + more


def find_backup(realpath: str, backup_id: str) -> BackupInfo:
    """The backup whose id is ``backup_id`` or starts with it (when unique)."""
    available = backups_for(realpath)
    wanted = backup_id.strip()
    exact = [info for info in available if info.id == wanted]
    matches = exact or [info for info in available if wanted and info.id.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise FileToolError(
            f"No backup {backup_id!r} exists for {realpath!r}: {ids_text(available)}.",
            suggestion="Pass one of the listed ids, or omit backup_id to restore the newest one.",
        )
    raise FileToolError(
        f"The backup id {backup_id!r} is ambiguous for {realpath!r}: it starts "
        f"{len(matches)} ids ({', '.join(info.id for info in matches[:10])}).",
        suggestion="Pass the full id.",
    )


# ----------------------------------------------------------------- creation


def _new_id(existing: Iterable[str]) -> tuple[str, int]:
    """An id later than every existing one: (timestamp part, first counter)."""
    now = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d_%H%M%S_%f")
    newest = max(existing, default="")
    if newest[:22] >= now:
        # Same microsecond, or the clock went back: one microsecond after the newest.
        moment = _parse_id(newest)
        if moment is not None:
            return (moment + _dt.timedelta(microseconds=1)).strftime("%Y%m%d_%H%M%S_%f"), 0
    return now, 0


def _reserve(root: str, prefix: str, existing: list[str]) -> tuple[str, PendingFile]:
    """A new backup's id and its data file (a :class:`~diffchunk.fdio.PendingFile` at
    the backup's own name, reserved: the counter moves on when a name is taken)."""
    stamp, counter = _new_id(existing)
    while True:
        backup_id = f"{stamp}_{counter:02d}"
        try:
            return backup_id, PendingFile(os.path.join(root, prefix + backup_id))
        except FileExistsError:
            counter += 1
        except OSError as exc:
            raise FileToolError(
                f"Cannot create a backup in {root!r}: {exc.strerror}.",
                suggestion="Free some space or set DIFFCHUNK_BACKUP_DIR to a writable directory.",
            ) from None


class PendingBackup:
    """A backup whose data is stored (and fsynced) but not yet listed.

    :meth:`commit` writes the metadata that makes it a listed, complete
    backup; :meth:`discard` removes it.  The caller holds the file's lock.
    """

    def __init__(self, realpath: str, backup_id: str, data: str, size: int, linked: bool) -> None:
        self.realpath = realpath
        self.id = backup_id
        self.data = data
        self.size = size
        self.linked = linked

    def info(self) -> BackupInfo:
        return BackupInfo(id=self.id, timestamp=_timestamp(self.id), size=self.size, path=self.data)

    def commit(self, sha256: str, *, kind: str) -> BackupInfo:
        meta: dict[str, object] = {
            "id": self.id,
            "original_path": self.realpath,
            "size": self.size,
            "sha256": sha256,
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(),
            "kind": kind,
            "storage": "hardlink" if self.linked else "copy",
        }
        try:
            _write_json(self.data + ".json", meta)
            fsync_dir(os.path.dirname(self.data))
        except OSError as exc:
            self.discard()
            raise FileToolError(
                f"Cannot write the backup metadata of {self.realpath!r}: {exc.strerror}; "
                "the file was not changed.",
                suggestion="Free some space or set DIFFCHUNK_BACKUP_DIR to a writable directory.",
            ) from None
        return self.info()

    def discard(self) -> None:
        discard_backup(self.info())


def begin_backup(
    realpath: str, src_fd: int, size: int, *, link_from: LinkSource | None = None
) -> PendingBackup:
    """Store the first ``size`` bytes of ``src_fd`` (the content of ``realpath``).

    The caller holds the file's edit lock.  With ``link_from`` (the file's
    directory descriptor and name) the data may be a hard link to the file
    itself, which is only correct when the caller is about to *replace*
    that name with a new inode.  The data is fsynced before this returns;
    :meth:`PendingBackup.commit` lists it.
    """
    root = _ensure_root()
    prefix = _prefix(realpath)
    existing = [info.id for info in backups_for(realpath)]
    backup_id, reserved = _reserve(root, prefix, existing)
    data = reserved.path
    try:
        linked = False
        if link_from is not None and settings.flag("DIFFCHUNK_BACKUP_LINK"):
            linked = _try_link(link_from, src_fd, size, data)
        if linked:
            reserved.close()  # its name is the link now: nothing of its own to flush
        else:
            copy_range(src_fd, reserved.fd, 0, size)
            reserved.commit()  # flushed to disk, closed; listed by PendingBackup.commit
    except BaseException as exc:
        reserved.discard()
        if isinstance(exc, OSError):
            raise FileToolError(
                f"Cannot write the backup of {realpath!r} to {root!r}: {exc.strerror}; "
                "the file was not changed.",
                suggestion="Free some space or set DIFFCHUNK_BACKUP_DIR to a writable directory.",
            ) from None
        raise
    return PendingBackup(realpath, backup_id, data, size, linked)


def create_backup(
    realpath: str, src_fd: int, size: int, *, kind: str, link_from: LinkSource | None = None
) -> BackupInfo:
    """:func:`begin_backup` and commit it at once (hashing the content)."""
    hasher = BackgroundHash(src_fd, size)
    pending = begin_backup(realpath, src_fd, size, link_from=link_from)
    try:
        digest = hasher.result()
    except BaseException:
        pending.discard()
        raise
    return pending.commit(digest, kind=kind)


def _try_link(link_from: LinkSource, src_fd: int, size: int, data: str) -> bool:
    """Replace the reserved (empty) ``data`` file by a hard link to the file
    (``link_from``: its directory's descriptor and its name), when that name
    is still the file open at ``src_fd``."""
    dir_fd, name = link_from
    st = os.fstat(src_fd)
    if st.st_nlink != 1 or st.st_size != size:
        return False
    tmp = f"{data}.link"
    try:
        os.link(name, tmp, src_dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    try:
        linked = os.stat(tmp, follow_symlinks=False)
        if (linked.st_dev, linked.st_ino) != (st.st_dev, st.st_ino):
            os.unlink(tmp)
            return False
        os.fsync(src_fd)
        os.replace(tmp, data)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    return True


def _write_json(target: str, payload: dict[str, object]) -> None:
    """Write ``target`` whole or not at all, mode 0600 (:func:`~diffchunk.fdio.replace_file`:
    its temporary file, ``.<name>.<random>.tmp``, is removed on failure, and
    :func:`_remove_leftovers` removes one a killed run left)."""
    data = json.dumps(payload, indent=1, sort_keys=True).encode("utf-8")
    replace_file(target, data, mode=0o600)


def late_side(info: BackupInfo) -> str:
    """Where the bytes other programs wrote to the version a write replaced are kept
    (beside that write's backup, and removed with it)."""
    return info.path + LATE_SUFFIX


def discard_backup(info: BackupInfo) -> None:
    """Remove a backup (metadata first, so it is never listed half removed), and
    the bytes kept beside it (:func:`late_side`)."""
    for name in (info.path + ".json", info.path, late_side(info)):
        with contextlib.suppress(OSError):
            os.unlink(name)


# ---------------------------------------------------------------- retention


def prune(realpath: str, *, protect: Iterable[str] = ()) -> list[str]:
    """Apply the retention limits to the backups of ``realpath``; return removed ids.

    Removes the oldest backups first; ids in ``protect`` are never removed.
    Metadata goes first, so a half-removed backup is never listed.
    """
    keep_count, keep_bytes = retention_limits()
    protected = set(protect)
    _remove_leftovers(realpath)
    backups = backups_for(realpath)  # newest first
    removed = prune_newest_first(
        ((info.size, info) for info in backups),
        _discard,
        max_count=keep_count,
        max_bytes=keep_bytes,
        spare=[info for info in backups if info.id in protected],
        least=1,
    )
    return [info.id for info in removed]


def _discard(info: BackupInfo) -> bool:
    discard_backup(info)
    return True


def _remove_leftovers(realpath: str) -> None:
    """Delete pieces of backups of ``realpath`` that an interrupted run left.

    Runs under the file's lock, when no backup of it is being written: a data
    file without metadata, a temporary link or metadata file (``.<name>.<random>.tmp``
    of :func:`~diffchunk.fdio.replace_file`, or ``<name>.<pid>.<ns>.tmp`` of earlier
    versions), or late bytes whose backup is gone, are garbage.
    """
    root = backup_root()
    prefix = _prefix(realpath)
    try:
        listed = os.listdir(root)
    except OSError:
        return
    for name in listed:
        if name.startswith("." + prefix) and name.endswith(".tmp"):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(root, name))
    names = [name for name in listed if name.startswith(prefix)]
    present = set(names)
    for name in names:
        rest = name[len(prefix) :]
        late_of = name[: -len(LATE_SUFFIX)] if name.endswith(LATE_SUFFIX) else None
        if (
            name.endswith((".tmp", ".link"))
            or (_parse_id(rest) is not None and "." not in rest and name + ".json" not in present)
            or (late_of is not None and late_of + ".json" not in present)
        ):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(root, name))
