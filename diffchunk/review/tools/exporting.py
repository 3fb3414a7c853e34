"""``export_review``: a recorded review rendered in a format other tools read.

The review of the loaded diff at a path (see :mod:`diffchunk.review.record`)
becomes its export document (:func:`~diffchunk.review.record.export_document`),
whose findings are narrowed to those asked for (``status``: ``open`` or
``all``; the summary still counts every finding), and is rendered by
:func:`diffchunk.review.export.render`.  The ``html`` page also gets each
file's diff text from the loaded diff.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import InvalidArgument, PathError
from ...fdio import prune_newest_first, replace_file
from ...git.cache import default_cache_dir
from ...limits import SHORT_ID
from ..export import EXTENSIONS, normalize_format, render
from ..record.document import export_document
from ..record.store import RecordStore
from ..sessions.loading import session
from ..sessions.store import SessionStore

EXPORTS_KEPT = 50
"""Exports too large for one answer kept in the cache (``exports/``), the most
recently written: each is one review in one format, made again by asking again."""


#: The values of ``status``.
STATUSES = ("open", "all")


@dataclass(frozen=True, slots=True)
class Exported:
    """A rendered export: its text, and what it holds."""

    text: str
    format: str
    status: str
    findings: int  # the findings it carries

    @property
    def extension(self) -> str:
        return EXTENSIONS[self.format]


def export_review(
    absolute_file_path: str,
    format: str = "markdown",
    status: str = "open",
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
) -> Exported:
    """The review of the diff at ``absolute_file_path`` as ``format``."""
    fmt = normalize_format(format)
    wanted = _status(status)
    exported = export_document(absolute_file_path, store=store, record=record)
    document = exported.to_dict()
    if wanted == "open":
        document["findings"] = [f for f in document["findings"] if f["status"] == "open"]
    diffs = _diffs(exported.diff_path, store) if fmt == "html" else None
    text = render(document, fmt, diffs)
    return Exported(text, fmt, wanted, len(document["findings"]))


def _status(status: str) -> str:
    value = status.strip().lower() if isinstance(status, str) else None
    if value not in STATUSES:
        raise InvalidArgument(
            f"Unknown status {status!r}: valid values are {', '.join(STATUSES)}.",
            suggestion="Use 'open' for the findings still to act on, 'all' for the whole record.",
        )
    return value


def _diffs(absolute_file_path: str, store: SessionStore | None) -> dict[str, str]:
    """Each file's diff text (all its sections), as ``get_file_diff`` serves it."""
    parsed = session(absolute_file_path, store).review.parsed
    texts: dict[str, list[bytes]] = {}
    for fd in parsed.files:
        texts.setdefault(fd.path, []).append(parsed.raw(fd))
    return {path: b"".join(parts).decode("utf-8", "replace") for path, parts in texts.items()}


_OUT_ADVICE = "Pass --out a file in a directory that exists and that you can write to."
_CACHE_ADVICE = "Set DIFFCHUNK_CACHE_DIR to a directory you can write to, or export a smaller part."


def write_export(exported: Exported, out: Path, advice: str = _OUT_ADVICE) -> None:
    """Write ``exported`` to ``out`` at once (see :func:`diffchunk.fdio.replace_file`;
    an existing file keeps its permissions); ``advice``: what to do when it fails."""
    try:
        replace_file(out, exported.text.encode("utf-8", "surrogateescape"))
    except OSError as exc:
        raise PathError(
            f"Cannot write the export to {out}: {exc.strerror or exc}.", suggestion=advice
        ) from None


def exports_dir() -> Path:
    """Where an export too large for one answer is written (in the diff cache)."""
    return default_cache_dir() / "exports"


def _prune(directory: Path, keep: Path) -> None:
    """Remove the exports beyond :data:`EXPORTS_KEPT`, oldest first."""
    found: list[tuple[float, Path]] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            with contextlib.suppress(OSError):
                if entry.is_file(follow_symlinks=False):
                    found.append((entry.stat().st_mtime, Path(entry.path)))
    found.sort(reverse=True)
    prune_newest_first(
        ((0, path) for _, path in found), _unlink, max_count=EXPORTS_KEPT, spare=(keep,)
    )


def _unlink(path: Path) -> bool:
    try:
        path.unlink()
    except OSError:
        return False
    return True


def export_file_note(exported: Exported, absolute_file_path: str) -> dict[str, Any]:
    """Write an export too large for one answer to the cache; what the answer says instead."""
    directory = exports_dir()
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise PathError(
            f"Cannot make {directory} for an export too large for one answer: "
            f"{exc.strerror or exc}.",
            suggestion=_CACHE_ADVICE,
        ) from None
    # One file per diff, format and status: the diff's name alone can repeat
    # (two repositories), and github and json share an extension.
    stem = Path(absolute_file_path).name.removesuffix(".diff")
    key = hashlib.sha256(os.fsencode(os.path.realpath(absolute_file_path))).hexdigest()[:SHORT_ID]
    out = directory / f"{stem}-{key}-{exported.format}-{exported.status}{exported.extension}"
    write_export(exported, out, _CACHE_ADVICE)
    _prune(directory, keep=out)
    return {
        "format": exported.format,
        "status": exported.status,
        "findings": exported.findings,
        "characters": len(exported.text),
        "written_to": str(out),
        "note": "The export is larger than one answer holds: it was written to written_to. "
        "Read it with read_content, or write it elsewhere with `diffchunk export ... --out FILE`.",
    }
