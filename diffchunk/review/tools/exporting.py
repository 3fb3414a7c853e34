"""``export_review``: a recorded review rendered in a format other tools read.

The review of the loaded diff at a path (see :mod:`diffchunk.review.record`)
becomes its export document (:func:`~diffchunk.review.record.export_document`),
whose findings are narrowed to those asked for (``status``: ``open`` or
``all``; the summary still counts every finding), and is rendered by
:func:`diffchunk.review.export.render_to`.  The ``html`` page also gets each
file's diff text from the loaded diff, one file at a time.

An export is written to its destination as it is made (:func:`write_review`),
never held whole: to a file (:func:`export_to_file`: a temporary file beside
it, renamed over it at the end), to the cache entry an MCP answer names when
it is larger than one answer (:func:`export_answer`), or to any ``write``
(the CLI's standard output).  :func:`export_review` gives the text itself,
for a caller that wants a string.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import InvalidArgument, PathError
from ...fdio import prune_files, replacing
from ...git.cache import default_cache_dir
from ...limits import SHORT_ID
from ..export import DIFF_TEXTS, EXTENSIONS, normalize_format, render_to
from ..export.sink import TextSink
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
class Written:
    """What an export wrote: its format, which findings, how many, its length."""

    format: str
    status: str
    findings: int  # the findings it carries
    characters: int

    @property
    def extension(self) -> str:
        return EXTENSIONS[self.format]


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


def write_review(
    absolute_file_path: str,
    write: Callable[[str], object],
    format: str = "markdown",
    status: str = "open",
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
    diff_text: str = "all",
) -> Written:
    """Write the review of the diff at ``absolute_file_path`` as ``format`` to ``write``,
    in pieces of at most about :data:`~diffchunk.review.export.sink.EXPORT_FLUSH_CHARS` characters;
    ``diff_text="findings"`` (html only) leaves out the diffs of files without findings."""
    fmt = normalize_format(format)
    wanted = _status(status)
    text = _diff_text(diff_text, fmt)
    exported = export_document(absolute_file_path, store=store, record=record)
    document = exported.to_dict(lazy=True)
    if wanted == "open":
        document["findings"] = [f for f in document["findings"] if f["status"] == "open"]
    diffs = FileTexts(exported.diff_path, store) if fmt == "html" else None
    sink = TextSink(write)
    render_to(document, fmt, sink, diffs, diff_text=text)
    sink.flush()
    return Written(fmt, wanted, len(document["findings"]), sink.characters)


def export_review(
    absolute_file_path: str,
    format: str = "markdown",
    status: str = "open",
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
    diff_text: str = "all",
) -> Exported:
    """The review of the diff at ``absolute_file_path`` as ``format``, as one string."""
    parts: list[str] = []
    written = write_review(
        absolute_file_path,
        parts.append,
        format,
        status,
        store=store,
        record=record,
        diff_text=diff_text,
    )
    return Exported("".join(parts), written.format, written.status, written.findings)


def _status(status: str) -> str:
    value = status.strip().lower() if isinstance(status, str) else None
    if value not in STATUSES:
        raise InvalidArgument(
            f"Unknown status {status!r}: valid values are {', '.join(STATUSES)}.",
            suggestion="Use 'open' for the findings still to act on, 'all' for the whole record.",
        )
    return value


def _diff_text(diff_text: str, fmt: str) -> str:
    value = diff_text.strip().lower() if isinstance(diff_text, str) else None
    if value not in DIFF_TEXTS:
        raise InvalidArgument(
            f"Unknown diff_text {diff_text!r}: valid values are {', '.join(DIFF_TEXTS)}.",
            suggestion="Use 'all' for every file's diff, 'findings' for only the diffs of the "
            "files with findings (the html export).",
        )
    if value != "all" and fmt != "html":
        raise InvalidArgument(
            f"diff_text={value!r} applies to the html export only: the {fmt} export "
            "carries no diff text.",
            suggestion="Leave diff_text out, or export with format 'html'.",
        )
    return value


class FileTexts(Mapping[str, str]):
    """Each file's diff text (all its sections), as ``get_file_diff`` serves it: read
    from the loaded diff when asked for, one file at a time."""

    def __init__(self, absolute_file_path: str, store: SessionStore | None) -> None:
        review = session(absolute_file_path, store).review
        from ...diff.buffer import trimmer  # the diff's sections, read from its table
        from ...diff.table import table_of

        self._parsed = review.parsed
        self._trim = trimmer(review.parsed.data)  # a mapped diff's pages go back as it is read
        self._files = table_of(review.parsed.files, review.parsed.data)
        self._repeated = self._files.repeated()
        self._next = 0  # the section asked for next when the files are read in order

    def _sections(self, path: str) -> list[int]:
        files, following = self._files, self._next
        if following < len(files) and files.path(following) == path:
            found = self._repeated.get(path, [following])
        else:
            found = files.indices_of(path) if isinstance(path, str) else []
        if found:
            self._next = found[0] + 1
        return found

    def __getitem__(self, path: str) -> str:
        sections = self._sections(path)
        if not sections:
            raise KeyError(path)
        data = self._parsed.data
        if self._trim is not None:
            self._trim(self._files.start(sections[0]))
        raw = b"".join(data[start:end] for start, end in map(self._files.span, sections))
        return raw.decode("utf-8", "replace")

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(self._files.paths()))

    def __len__(self) -> int:
        return sum(1 for _ in self)


_OUT_ADVICE = "Pass --out a file in a directory that exists and that you can write to."
_CACHE_ADVICE = "Set DIFFCHUNK_CACHE_DIR to a directory you can write to, or export a smaller part."


def export_to_file(
    absolute_file_path: str,
    out: Path,
    format: str = "markdown",
    status: str = "open",
    *,
    advice: str = _OUT_ADVICE,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
    diff_text: str = "all",
) -> Written:
    """Write the export to ``out`` as it is made: to a temporary file beside it, renamed
    over it once whole (see :func:`diffchunk.fdio.replacing`: an existing file keeps its
    permissions, a failure leaves it as it was); ``advice``: what to do when it fails."""
    try:
        with replacing(out) as write:
            return write_review(
                absolute_file_path,
                lambda text: write(text.encode("utf-8", "surrogateescape")),
                format,
                status,
                store=store,
                record=record,
                diff_text=diff_text,
            )
    except OSError as exc:
        raise PathError(
            f"Cannot write the export to {out}: {exc.strerror or exc}.", suggestion=advice
        ) from None


def write_export(exported: Exported, out: Path, advice: str = _OUT_ADVICE) -> None:
    """Write ``exported`` to ``out`` at once (see :func:`diffchunk.fdio.replacing`; an
    existing file keeps its permissions); ``advice``: what to do when it fails."""
    try:
        with replacing(out) as write:
            write(exported.text.encode("utf-8", "surrogateescape"))
    except OSError as exc:
        raise PathError(
            f"Cannot write the export to {out}: {exc.strerror or exc}.", suggestion=advice
        ) from None


def exports_dir() -> Path:
    """Where an export too large for one answer is written (in the diff cache)."""
    return default_cache_dir() / "exports"


def _prune(directory: Path, keep: Path) -> None:
    """Remove the exports beyond :data:`EXPORTS_KEPT`, oldest first."""
    prune_files(directory, keep, max_count=EXPORTS_KEPT)


def _cache_entry(absolute_file_path: str, fmt: str, status: str, diff_text: str = "all") -> Path:
    """The cache entry of an export too large for one answer (its directory made)."""
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
    part = "" if diff_text == "all" else f"-{diff_text}"
    return directory / f"{stem}-{key}-{fmt}-{status}{part}{EXTENSIONS[fmt]}"


def _note(written: Written, out: Path) -> dict[str, Any]:
    """What an answer says of an export written to the cache instead."""
    return {
        "format": written.format,
        "status": written.status,
        "findings": written.findings,
        "characters": written.characters,
        "written_to": str(out),
        "note": "The export is larger than one answer holds: it was written to written_to. "
        "Read it with read_content, or write it elsewhere with `diffchunk export ... --out FILE`.",
    }


def export_file_note(exported: Exported, absolute_file_path: str) -> dict[str, Any]:
    """Write an export too large for one answer to the cache; what the answer says instead."""
    out = _cache_entry(absolute_file_path, exported.format, exported.status)
    write_export(exported, out, _CACHE_ADVICE)
    _prune(out.parent, keep=out)
    written = Written(exported.format, exported.status, exported.findings, len(exported.text))
    return _note(written, out)


class _Spill:
    """An export's text held while it fits in one answer, then written to its cache
    entry (opened when the text first goes past ``limit``), as it is made."""

    def __init__(self, limit: int, entry: Callable[[], Path], stack: contextlib.ExitStack) -> None:
        self.limit = limit
        self.held: list[str] = []
        self.size = 0
        self._entry = entry
        self._stack = stack  # the entry's writing ends with it (renamed, or removed)
        self._write: Callable[[bytes], None] | None = None
        self.path: Path | None = None

    def write(self, text: str) -> None:
        if self._write is None:
            self.held.append(text)
            self.size += len(text)
            if self.size <= self.limit:
                return
            self.path = self._entry()
            self._write = self._stack.enter_context(replacing(self.path))
            text, self.held = "".join(self.held), []
        self._write(text.encode("utf-8", "surrogateescape"))


def export_answer(
    absolute_file_path: str,
    format: str = "markdown",
    status: str = "open",
    *,
    limit: int,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
    diff_text: str = "all",
) -> str | dict[str, Any]:
    """The export as an answer: its text when it has at most ``limit`` characters, else
    what the answer says instead (:func:`_note`) of the cache entry it was written to as
    it was made (never held whole)."""
    fmt, wanted = normalize_format(format), _status(status)
    text = _diff_text(diff_text, fmt)
    spill: _Spill | None = None
    try:
        with contextlib.ExitStack() as stack:
            spill = _Spill(
                limit, lambda: _cache_entry(absolute_file_path, fmt, wanted, text), stack
            )
            written = write_review(
                absolute_file_path,
                spill.write,
                fmt,
                wanted,
                store=store,
                record=record,
                diff_text=text,
            )
    except OSError as exc:
        where = spill.path if spill is not None and spill.path is not None else exports_dir()
        raise PathError(
            f"Cannot write the export to {where}: {exc.strerror or exc}.",
            suggestion=_CACHE_ADVICE,
        ) from None
    if spill.path is None:
        return "".join(spill.held)
    _prune(spill.path.parent, keep=spill.path)
    return _note(written, spill.path)
