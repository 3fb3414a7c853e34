"""``edit_content``: search/replace edits of (possibly very large) files, with backups.

The tool in one place; its jobs live beside it: the change blocks
(:mod:`.edit_blocks`), the version edited (:mod:`.edit_snapshot`), locating each
change (:mod:`.locate`, with :mod:`.scan` and :mod:`.fuzzy_block`), the
preview (:mod:`.preview`) and the write transaction shared with
``revert_edit`` (:mod:`.transaction`, :mod:`.revert`).  Semantics:

- A batch of changes is all or nothing: every change is located first; if one
  fails, the result lists why and the file is not touched (no backup either).
- Every search text is located in the *original* content, not in the text
  produced by earlier changes of the batch; changes must not overlap.
- Exact search text must occur exactly once; several occurrences are refused
  with their line numbers.  When it does not occur and fuzzy matching is on
  (per call, or per change with ``"fuzzy"``), the most similar run of whole
  lines is used if it is similar enough and unambiguous (see
  :mod:`.locate`); the replacement then replaces exactly those lines and is
  re-indented by the difference between the search text's indentation and
  the file's (first non-blank line of each).
- Texts come in with ``\\n``; replacement line endings follow the matched
  text: a CRLF match gets CRLF, an LF match LF, a match inside one line takes
  that line's ending (the file's dominant ending on an unterminated last
  line).  The encoding and a byte-order mark are kept; characters the
  encoding cannot hold are refused.  Binary files are refused.
- ``preview=True`` (the default) only reports: a unified diff of the changed
  regions with three lines of context and real line numbers.  Besides the
  documented fields the result has ``written`` (whether the file changed),
  ``changes_matched`` (the changes located in the file, in a failed batch
  too) and ``error`` (a summary when a change failed).  ``changes_applied``
  counts what the batch applies: written when ``written`` is true, else what
  ``preview=False`` would write (0 when any change failed).  Read-only files (no write
  bit) are refused; a batch whose replacements equal their targets writes
  nothing and makes no backup.
- The path is resolved once (:mod:`.edit_target`): that real path is
  checked against the allowed roots (``policy``) and git's own files are
  refused; from then on the file is reached only through its directory's
  descriptor, so a path swapped for a link meanwhile leads nowhere else.
- Writing: under a per-file lock (:mod:`.locking`) the file is re-read, the
  changes located again, a backup stored (:mod:`.backups`), the new content
  written to ``.<name>.diffchunk-XXXXXXXX.tmp`` beside the target (owner and
  mode copied, fsynced) and renamed over it; the directory is fsynced (the
  write transaction, :mod:`.transaction`).  A
  symlink is followed: its target is edited and the link kept.  Hard links
  to the file are not kept (the path gets a new inode).  A file changed by
  another program between reading and renaming is not overwritten: the
  edit is made again from a fresh read (up to :data:`EDIT_ATTEMPTS` times,
  then an :class:`~diffchunk.errors.EditConflict`); a file another program
  holds open for writing is not replaced; bytes a program wrote to the
  replaced version after it was read are kept beside the backup and
  reported (``late_write`` and a warning).  A
  temporary file that a killed edit left is removed by the next write of the
  same file (under its lock).
- Large files stream: bytes are searched in bounded windows and the output
  is assembled with ``copy_file_range`` around the replaced spans.

``revert_edit`` (:mod:`.revert`) saves the current content as a backup
first, then restores the chosen backup, so a revert can itself be reverted
and no version is lost.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, replace
from typing import Any

from ..errors import FileToolError
from ..fdio import BackgroundHash, copy_range, write_all
from ..limits import EDIT_ATTEMPTS
from ..paths import PathPolicy
from . import backups, fuzzy_block
from .backups import PendingBackup, list_backups
from .edit_blocks import Change, parse_changes
from .edit_snapshot import EditSnapshot, open_snapshot
from .edit_target import EditTarget
from .late_writes import LateWrite
from .locate import ChangeResult, Located, locate_changes
from .locking import file_lock
from .preview import preview as unified_preview
from .revert import revert_edit
from .transaction import ChangedMeanwhile, WriteTransaction

__all__ = ["EditResult", "edit_content", "list_backups", "revert_edit"]


@dataclass(frozen=True, slots=True)
class EditResult:
    """The result of ``edit_content``."""

    success: bool
    # What the batch applies: written when ``written``, else what preview=false
    # would write (0 when a change failed: a batch is all or nothing).
    changes_applied: int
    changes_failed: int
    results: tuple[ChangeResult, ...]
    preview: str
    backup_created: str | None
    written: bool
    error: str | None
    warnings: tuple[str, ...] = ()
    changes_matched: int = 0  # changes located in the file, in a failed batch too
    late_write: LateWrite | None = None  # bytes another program wrote to the replaced version

    def to_dict(self) -> dict[str, Any]:
        """The tool's JSON (``warnings`` and ``late_write`` only when there are some)."""
        data: dict[str, Any] = {
            "success": self.success,
            "changes_applied": self.changes_applied,
            "changes_matched": self.changes_matched,
            "changes_failed": self.changes_failed,
            "results": [item.to_dict() for item in self.results],
            "preview": self.preview,
            "backup_created": self.backup_created,
            "written": self.written,
            "error": self.error,
        }
        if self.warnings:
            data["warnings"] = list(self.warnings)
        if self.late_write is not None:
            data["late_write"] = self.late_write.to_dict()
        return data


def edit_content(
    absolute_file_path: str,
    changes: list[dict[str, Any]],
    fuzzy: bool = True,
    preview: bool = True,
    *,
    policy: PathPolicy | None = None,
) -> EditResult:
    """Apply search/replace ``changes`` to a file, all or nothing.

    With ``preview`` (the default) nothing is written; the result shows the
    diff that would be applied.  ``policy``: the allowed roots the file's real
    path must lie under.  See the module documentation for matching,
    line-ending, encoding and atomicity rules.
    """
    parsed = parse_changes(changes, fuzzy)
    threshold = fuzzy_block.fuzzy_threshold()
    with EditTarget.open(absolute_file_path, policy) as target:
        if preview:
            with open_snapshot(target) as snap:
                located, results = locate_changes(snap, parsed, threshold)
                return _result(snap, located, results, written=False, backup=None)
        with file_lock(backups.lock_dir(), target.realpath):
            for _ in range(EDIT_ATTEMPTS - 1):
                with contextlib.suppress(ChangedMeanwhile):
                    return _edit_once(target, parsed, threshold)
            return _edit_once(target, parsed, threshold)


def _edit_once(target: EditTarget, parsed: list[Change], threshold: float) -> EditResult:
    """Read, locate and write the changes once (:class:`ChangedMeanwhile` when another
    program changed the file before the rename: nothing was written)."""
    with open_snapshot(target) as snap:
        located, results = locate_changes(snap, parsed, threshold)
        if any(loc is None for loc in located) or _changes_nothing(snap, located):
            return _result(snap, located, results, written=False, backup=None)
        # The backup's checksum is computed in a thread while the new version
        # is written (hashlib releases the GIL; the copy is mostly I/O).
        hasher = BackgroundHash(snap.fd, snap.size)
        try:
            return _apply(snap, located, results, hasher)
        finally:
            hasher.cancel()


def _changes_nothing(snap: EditSnapshot, located: list[Located | None]) -> bool:
    """True when every replacement equals the text it replaces (no write, no backup)."""
    return all(
        loc is not None and snap.source.read(loc.start, loc.end) == loc.replacement
        for loc in located
    )


def _apply(
    snap: EditSnapshot,
    located: list[Located | None],
    results: list[ChangeResult],
    hasher: BackgroundHash,
) -> EditResult:
    """Write the located changes through the write transaction, after a backup."""
    realpath = snap.realpath
    target = snap.target
    ready = sorted((loc for loc in located if loc is not None), key=lambda loc: loc.start)
    read = None if snap.transcoded else snap.source.memory  # appends are carried after it
    with WriteTransaction(target, snap.fd, snap.stat, read=read) as txn:
        pending = txn.back_up(
            lambda: backups.begin_backup(
                realpath, snap.fd, snap.size, link_from=(target.dir_fd, target.name)
            ),
            PendingBackup.discard,
        )
        txn.write(lambda out: _fill(out, snap, ready), stage="write the new content of")
        info = pending.commit(hasher.result(), kind="edit")
        late = txn.replace(info.path, backups.late_side(info))
    backups.prune(realpath, protect={info.id})
    warnings = [*txn.warnings, *([late.warning(realpath)] if late else [])]
    result = _result(snap, located, results, written=True, backup=info.path, warnings=warnings)
    return replace(result, late_write=late)


def _fill(out: int, snap: EditSnapshot, located: list[Located]) -> None:
    """Write the edited content to ``out``: the file's bytes around the replaced spans
    (copied inside the kernel when streamed), or a transcoded file re-encoded whole."""
    try:
        if snap.transcoded:
            data = snap.source.memory
            assert data is not None
            pieces: list[bytes] = []
            pos = 0
            for loc in located:
                pieces.append(data[pos : loc.start])
                pieces.append(loc.replacement)
                pos = loc.end
            pieces.append(data[pos:])
            text = b"".join(pieces).decode("utf-8", errors="surrogatepass")
            write_all(out, snap.bom + text.encode(snap.file_encoding))
            return
        pos = 0
        for loc in located:
            _copy(snap, out, pos, loc.start)
            write_all(out, loc.replacement)
            pos = loc.end
        _copy(snap, out, pos, snap.size)
    except UnicodeEncodeError as exc:
        raise FileToolError(snap.encoding_error(exc)) from None


def _copy(snap: EditSnapshot, out: int, begin: int, end: int) -> None:
    if end <= begin:
        return
    data = snap.source.memory
    if data is not None:
        write_all(out, memoryview(data)[begin:end])
    else:
        copy_range(snap.fd, out, begin, end - begin)


def _result(
    snap: EditSnapshot,
    located: list[Located | None],
    results: list[ChangeResult],
    *,
    written: bool,
    backup: str | None,
    warnings: list[str] | None = None,
) -> EditResult:
    failed = sum(1 for item in results if not item.success)
    ok = [loc for loc in located if loc is not None]
    error = None
    if failed:
        error = (
            f"{failed} of {len(results)} change(s) failed; nothing was written "
            "(a batch is applied all or nothing). See results[].error."
        )
    return EditResult(
        success=failed == 0,
        changes_applied=len(ok) if failed == 0 else 0,
        changes_failed=failed,
        results=tuple(results),
        preview=unified_preview(snap, ok) if ok else "",
        backup_created=backup,
        written=written,
        error=error,
        warnings=tuple(warnings or ()),
        changes_matched=len(ok),
    )
