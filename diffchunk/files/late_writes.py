"""What other programs write to the version of a file an edit replaced: kept and reported.

An edit renames its new version over the file (:mod:`.transaction`).  A
program that opened the file just before, or keeps it open, writes to the
version replaced, which no longer is the file.  After the rename,
:func:`keep_late`, on that version (still open):

- waits up to :data:`WRITERS_WAIT` seconds for the programs that have it
  open for writing (:mod:`.writers`) to close it;
- copies the bytes that reached it since it was read (past the size read
  when it grew, else the whole version: it was rewritten in place) to a
  side file the caller names, beside the edit's backup;
- reports them, and the programs still writing to it then, as a
  :class:`LateWrite` (the result's ``late_write`` and a warning): what they
  write next goes to the replaced version, which is the backup when the
  backup is a hard link to it, else a file no name reaches any more.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .. import paths
from ..fdio import copy_range
from ..limits import WRITERS_WAIT
from .writers import wait_for_writers


@dataclass(frozen=True, slots=True)
class LateWrite:
    """What another program wrote to the version an edit replaced, after it was read.

    ``kept_in`` holds it (None when nothing came): the bytes past
    ``from_offset`` (the size read) when the version grew, else (it was
    rewritten in place) the whole version as it is now, from offset 0.
    ``still_open_by``: programs that still had the replaced version open for
    writing when the edit returned: what they write next goes to it, which
    is ``replaced_version`` (the backup, a hard link to it), or nowhere a
    name reaches when the backup is a copy (``replaced_version`` None).
    """

    bytes: int
    kept_in: str | None
    from_offset: int
    still_open_by: tuple[str, ...] = ()
    replaced_version: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "bytes": self.bytes,
            "kept_in": self.kept_in,
            "from_offset": self.from_offset,
            "still_open_by": list(self.still_open_by),
            "replaced_version": self.replaced_version,
        }

    def warning(self, realpath: str) -> str:
        """The sentences of the result's warnings that say what happened and where."""
        text = ""
        if self.bytes:
            what = (
                f"appended {self.bytes} bytes"
                if self.from_offset
                else f"rewrote it ({self.bytes} bytes now)"
            )
            text = (
                f"Another program {what} to the version of {realpath} this edit replaced, "
                f"after it was read: they are not in the file; they are kept in {self.kept_in}."
            )
        if self.still_open_by:
            where = (
                f"to {self.replaced_version} (the backup of this edit)"
                if self.replaced_version
                else "to a version no name reaches any more: it is lost"
            )
            text += (
                f"{' ' if text else ''}{', '.join(self.still_open_by)} still had the version "
                f"of {realpath} this edit replaced open for writing: what it writes next goes "
                f"{where}, not to the file."
            )
        return text


def keep_late(src_fd: int, read: paths.Fingerprint, side: str, backup: str) -> LateWrite | None:
    """After the rename: wait for programs writing to the replaced version (open at
    ``src_fd``, ``read`` as it was read), then copy what reached it to ``side``;
    ``backup``: this write's backup (the replaced version itself when linked)."""
    still = tuple(str(writer) for writer in wait_for_writers(src_fd, WRITERS_WAIT) or [])
    now = os.fstat(src_fd)
    changed = (now.st_size, now.st_mtime_ns) != (read[2], read[3])
    if not changed and not still:
        return None
    try:
        linked = bool(still) and os.path.samestat(os.stat(backup), now)
    except OSError:
        linked = False
    begin = read[2] if now.st_size > read[2] else 0
    count = now.st_size - begin if changed else 0
    if count:
        fd = os.open(side, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            copy_range(src_fd, fd, begin, count)
            os.fsync(fd)
        finally:
            os.close(fd)
    return LateWrite(count, side if count else None, begin, still, backup if linked else None)
