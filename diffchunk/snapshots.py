"""Read-only snapshots of files as they are at a revision, in diffchunk's cache.

``open_file_version`` makes a file as it is on one side of a diff readable
by the file tools: its bytes are written to ``<cache>/blobs/<id[:2]>/<id>/<name>``,
where ``<id>`` is the git blob id of those very bytes (sha1, or sha256 in a
repository that uses it) and ``<name>`` the file's own name, so the outline
finds the language by its extension.  Rules:

- **Written once, shared.**  A snapshot is written to a temporary file of
  ``<cache>/blobs/.tmp``, hashed and counted as it is written, made
  read-only (``0444``) and renamed into place; a snapshot that is already
  there is used as it is (its time refreshed): the same content under the
  same name is one file, whichever review asked for it.
- **It knows what it stands for.**  Each use records its source beside the
  snapshot (``<id>.src/<key>.json``: the repository, the path in it, the
  revision); :func:`snapshot_of` tells whether a path is a snapshot and which
  real file it shows, so the edit tools refuse it naming that file.
- **Bounded, before a byte is written.**  One snapshot holds at most
  :func:`max_snapshot_bytes` (:data:`~diffchunk.settings.SNAPSHOT_MAX_BYTES`, or
  ``$DIFFCHUNK_SNAPSHOT_MAX_BYTES``): the caller checks the size it knows
  (git's object header, the open file's) with :func:`check_size`, and the
  writer refuses a block past it.  The store keeps at most :data:`MAX_FILES`
  snapshots and :func:`store_max_bytes` bytes, temporary files of writes
  under way included: room for a new snapshot is made before it is written,
  the least recently used going first, and the bounds are applied again after.
  Their own bound rather than the diff cache's: snapshots are many small
  files whose use follows the reviews, not the diffs (200 diff entries would
  be a meaningless count for them).

This module knows nothing of git: the caller writes the bytes (git's
``cat-file`` straight into :attr:`SnapshotWriter.fd`, or a copy of the file
on disk) and hands each block to :meth:`SnapshotWriter.feed`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import settings
from .errors import FileToolError, PathError
from .fdio import PendingFile, prune_newest_first
from .limits import SNAPSHOT_READ_BLOCK, STALE_TEMP_SECONDS
from .paths import cache_dir

MAX_FILES = 5000
"""Snapshots of files at a revision kept (least recently used pruned first): a
bound on the snapshot directory; a pruned snapshot is written again when a
file is opened again."""

STORE_MAX_BYTES = 1 << 30
"""Bytes of snapshots kept in all (1 GiB: four snapshots of the largest size),
writes under way included; room is made before a snapshot is written.  A
larger ``DIFFCHUNK_SNAPSHOT_MAX_BYTES`` raises it to that size, so that one
snapshot always fits."""

MAX_SOURCES = 16
"""Sources recorded per snapshot (the latest kept): where a blob was seen, not
a history."""


_TMP = ".tmp"
_HEX = frozenset("0123456789abcdef")
MAX_BYTES_ENV = "DIFFCHUNK_SNAPSHOT_MAX_BYTES"


def snapshot_root() -> Path:
    return Path(cache_dir()) / "blobs"


def max_snapshot_bytes() -> int:
    """The largest snapshot: ``$DIFFCHUNK_SNAPSHOT_MAX_BYTES``, else :data:`~diffchunk.settings.SNAPSHOT_MAX_BYTES`
    (see :mod:`diffchunk.settings` for a value that is not a number of bytes)."""
    return settings.count(MAX_BYTES_ENV)


def store_max_bytes() -> int:
    """The bytes the store keeps: :data:`STORE_MAX_BYTES`, or one largest snapshot."""
    return max(STORE_MAX_BYTES, max_snapshot_bytes())


def check_size(size: int, what: str, elsewhere: str) -> None:
    """Refuse (FileToolError) a snapshot of ``size`` bytes larger than
    :func:`max_snapshot_bytes`, before anything is written.  ``what`` names the
    file, ``elsewhere`` says where its content can be read instead."""
    limit = max_snapshot_bytes()
    if size <= limit:
        return
    raise FileToolError(
        f"{what} is {size:,} bytes, more than a snapshot may hold ({limit:,} bytes): "
        "no snapshot was written.",
        suggestion=f"{elsewhere}; or, to open it here, set {MAX_BYTES_ENV} to a larger "
        "number of bytes in the server's environment.",
    )


def safe_name(name: str) -> str:
    """A file name a snapshot can carry (no separator; not ``.`` or ``..``)."""
    name = name.replace("/", "_").replace("\0", "_")
    return name if name not in ("", ".", "..") else "_"


def _is_id(text: str) -> bool:
    return len(text) in (40, 64) and set(text) <= _HEX


def blob_header(size: int) -> bytes:
    return b"blob %d\0" % size


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A snapshot on disk: its path, content id, size and line count."""

    path: str
    blob: str
    size: int
    line_count: int


@dataclass(frozen=True, slots=True)
class SnapshotInfo:
    """What a snapshot stands for: its blob id, its name and its recorded sources
    (``{"repo", "path", "revision"}``, the latest first)."""

    blob: str
    name: str
    sources: tuple[dict[str, Any], ...]


def _count_lines(path: str) -> tuple[int, int]:
    size = lines = 0
    last = b"\n"
    with open(path, "rb") as fh:
        while block := fh.read(SNAPSHOT_READ_BLOCK):
            size += len(block)
            lines += block.count(b"\n")
            last = block[-1:]
    return size, lines + (1 if size and last != b"\n" else 0)


def existing(blob: str, name: str, source: dict[str, Any]) -> Snapshot | None:
    """The snapshot of ``blob`` named ``name`` if it is there (its use recorded), else None."""
    if not _is_id(blob):
        return None
    path = snapshot_root() / blob[:2] / blob / safe_name(name)
    try:
        os.utime(path)
    except OSError:
        return None
    _record_source(blob, safe_name(name), source)
    size, lines = _count_lines(str(path))
    return Snapshot(str(path), blob, size, lines)


class SnapshotWriter:
    """A snapshot being written: ``fd`` is its temporary file (a
    :class:`~diffchunk.fdio.PendingFile`), open for reading and writing; every block
    written there goes through :meth:`feed` (or :meth:`write`).

    Exactly one of :meth:`commit` and :meth:`abort` ends it.
    """

    def __init__(self, name: str, algorithm: str = "sha1", *, size: int = 0) -> None:
        """Room is made for the ``size`` bytes to come (checked with :func:`check_size`)."""
        self.name = safe_name(name)
        self.algorithm = algorithm
        self.limit = max_snapshot_bytes()
        self.size = 0
        self.lines = 0
        self._last = b"\n"
        prune(reserve=size)
        tmp_dir = snapshot_root() / _TMP
        try:
            tmp_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._file = PendingFile.named(str(tmp_dir), _temp_name)
        except OSError as exc:
            raise PathError(
                f"Cannot write a file snapshot in {tmp_dir}: {exc.strerror or exc}.",
                suggestion="Free some space, or set DIFFCHUNK_CACHE_DIR to a writable directory.",
            ) from None
        self.fd = self._file.fd
        self.tmp = self._file.path

    def feed(self, block: bytes) -> None:
        """Account for ``block``, already written to :attr:`fd` (by git); a block
        past :attr:`limit` is refused (the file grew after its size was checked)."""
        if self.size + len(block) > self.limit:
            raise FileToolError(
                f"The file grew past {self.limit:,} bytes, the most a snapshot may hold, "
                "while it was read: no snapshot was written.",
                suggestion=f"Open it again once it is idle, or set {MAX_BYTES_ENV} to a "
                "larger number of bytes.",
            )
        self.size += len(block)
        self.lines += block.count(b"\n")
        if block:
            self._last = block[-1:]

    def write(self, block: bytes) -> None:
        """Write ``block`` to the snapshot and account for it."""
        self.feed(block)
        view = memoryview(block)
        while view:
            view = view[os.write(self.fd, view) :]

    @property
    def blob(self) -> str:
        """The git blob id of what was written so far (read back from the file, which
        the page cache still holds: no copy of a large file stays in memory)."""
        digest = hashlib.new(self.algorithm)
        digest.update(blob_header(self.size))
        offset = 0
        while offset < self.size:
            block = os.pread(self.fd, min(SNAPSHOT_READ_BLOCK, self.size - offset), offset)
            if not block:
                break
            digest.update(block)
            offset += len(block)
        return digest.hexdigest()

    def commit(self, source: dict[str, Any]) -> Snapshot:
        """Make what was written the snapshot of its content (read-only, renamed into
        place; an identical one already there is kept) and record ``source``."""
        blob = self.blob
        target_dir = snapshot_root() / blob[:2] / blob
        target = target_dir / self.name
        try:
            target_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not self._file.commit(str(target), mode=0o444, keep_existing=True):
                os.utime(target)  # the same content is there already: used again
        except OSError as exc:
            self.abort()
            raise PathError(
                f"Cannot write a file snapshot in {target_dir}: {exc.strerror or exc}.",
                suggestion="Free some space, or set DIFFCHUNK_CACHE_DIR to a writable directory.",
            ) from None
        _record_source(blob, self.name, source)
        prune(keep=target)
        lines = self.lines + (1 if self.size and self._last != b"\n" else 0)
        return Snapshot(str(target), blob, self.size, lines)

    def abort(self) -> None:
        """Drop the temporary file (nothing appears)."""
        self._file.discard()


def _temp_name() -> str:
    return f"snap-{os.urandom(6).hex()}"


def _record_source(blob: str, name: str, source: dict[str, Any]) -> None:
    """Record (once per source) what the snapshot ``blob``/``name`` stands for."""
    record = {"name": name, **source}
    text = json.dumps(record, sort_keys=True, ensure_ascii=True)
    key = hashlib.sha256(text.encode("ascii")).hexdigest()[:16]
    directory = snapshot_root() / blob[:2] / f"{blob}.src"
    path = directory / f"{key}.json"
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if path.exists():
            os.utime(path)
            return
        tmp = directory / f".{key}.{os.urandom(4).hex()}"
        tmp.write_text(text, encoding="ascii")
        os.replace(tmp, path)
    except OSError:
        return  # best effort: the snapshot is still a snapshot, by its place


def snapshot_of(path: str) -> SnapshotInfo | None:
    """What the file at ``path`` stands for, if it is a snapshot; None otherwise."""
    try:
        real = os.path.realpath(path)
        root = os.path.realpath(snapshot_root())
    except (OSError, ValueError):
        return None
    rel = os.path.relpath(real, root)
    parts = rel.split(os.sep)
    if len(parts) != 3 or not _is_id(parts[1]) or parts[0] != parts[1][:2]:
        return None
    blob, name = parts[1], parts[2]
    sources: list[tuple[float, dict[str, Any]]] = []
    directory = os.path.join(root, parts[0], f"{blob}.src")
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            if not entry.name.endswith(".json") or entry.name.startswith("."):
                continue
            try:
                with open(entry.path, encoding="ascii") as fh:
                    record = json.load(fh)
                mtime = entry.stat().st_mtime
            except (OSError, ValueError):
                continue
            if isinstance(record, dict) and record.get("name") == name:
                sources.append((mtime, record))
    sources.sort(key=lambda item: item[0], reverse=True)
    return SnapshotInfo(blob, name, tuple(r for _, r in sources[:MAX_SOURCES]))


def prune(
    keep: Path | None = None,
    max_files: int = MAX_FILES,
    max_bytes: int | None = None,
    *,
    reserve: int = 0,
) -> int:
    """Remove the least recently used snapshots beyond the bounds (``max_bytes``:
    :func:`store_max_bytes`), leaving room for ``reserve`` bytes about to be
    written; returns how many.  Temporary files of writes under way count
    against the bound (they are not removed until they are stale)."""
    limit = store_max_bytes() if max_bytes is None else max_bytes
    root = snapshot_root()
    found: list[tuple[float, int, Path]] = []
    pending = reserve
    with contextlib.suppress(OSError):
        for prefix in os.scandir(root):
            if prefix.name == _TMP:
                pending += _sweep_tmp(Path(prefix.path))
                continue
            if not prefix.is_dir(follow_symlinks=False):
                continue
            for blob_dir in os.scandir(prefix.path):
                if not _is_id(blob_dir.name):
                    continue
                with contextlib.suppress(OSError):
                    for entry in os.scandir(blob_dir.path):
                        st = entry.stat(follow_symlinks=False)
                        found.append((st.st_mtime, st.st_size, Path(entry.path)))
    found.sort(key=lambda item: item[0], reverse=True)
    return len(
        prune_newest_first(
            ((size, path) for _, size, path in found),
            _remove_snapshot,
            max_count=max_files,
            max_bytes=limit,
            used=pending,
            spare=() if keep is None else (keep,),
        )
    )


def _remove_snapshot(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:
        return False
    with contextlib.suppress(OSError):
        _drop_empty(path.parent)
    return True


def _drop_empty(blob_dir: Path) -> None:
    """Remove a blob's directory once empty, with its sources."""
    with contextlib.suppress(OSError):
        blob_dir.rmdir()
        sources = blob_dir.parent / f"{blob_dir.name}.src"
        for entry in os.scandir(sources):
            os.unlink(entry.path)
        sources.rmdir()


def _sweep_tmp(directory: Path) -> int:
    """Remove the temporary files of writes that were killed (an hour old); returns
    the bytes of the others (writes under way)."""
    now = time.time()
    pending = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            with contextlib.suppress(OSError):
                st = entry.stat(follow_symlinks=False)
                if now - st.st_mtime > STALE_TEMP_SECONDS:
                    os.unlink(entry.path)
                else:
                    pending += st.st_size
    return pending


def clear() -> int:
    """Remove every snapshot; returns how many."""
    return prune(max_files=0, max_bytes=0)


def refuse_edit(path: str) -> None:
    """Refuse to edit a snapshot, naming the real file it stands for (FileToolError)."""
    info = snapshot_of(path)
    if info is None:
        return
    source = info.sources[0] if info.sources else {}
    shown = source.get("path") or info.name
    at = f" at {source['revision']}" if source.get("revision") else ""
    side = f", {source['side']} side" if source.get("side") else ""
    root = source.get("root")
    if isinstance(root, str) and root:
        real = os.path.join(root, str(shown))
        where = f"edit the real file {real} instead"
        suggestion = f"Edit {real} (its content may differ from the snapshot's)."
    else:
        repo = source.get("repo") or "its repository"
        where = f"{repo} is a bare repository, so there is no work-tree file to edit"
        suggestion = "Check out the revision in a work tree and edit the file there."
    more = len(info.sources) - 1
    also = f" (and {more} other file(s) with the same content)" if more > 0 else ""
    raise FileToolError(
        f"{path} is a read-only snapshot of {shown}{side}{at}{also}, made by "
        f"open_file_version: {where}.",
        suggestion=suggestion,
    )
