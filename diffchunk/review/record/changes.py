"""What the record reads from a loaded diff, through this one module.

Everything the record knows of a diff — its files, each file's change id and
hunk ranges, its chunks and their parts, the text of the lines a finding
points at — comes from :class:`RecordedDiff`, built once per session of the
session store (:mod:`diffchunk.review.sessions.store`) and kept in its cache.  When
the diff model changes, this module is the one to re-point.

**A file's change id** (``change_id``): sha256 over, for each section of the
path in diff order, its old path, new path and status, then every line inside
its hunks that starts with ``+`` or ``-`` (a ``\\ No newline at end of file``
marker right after such a line included: it is part of that line's content);
``@@`` lines and context lines are left out, so line numbers, context width
(``context_lines``) and chunking do not count.  A section without hunks
(binary, mode-only, rename-only) contributes its header lines other than
``diff --git``.  Like ``git patch-id --stable``, but aware of paths and exact
about whitespace: the same edit shifted by edits elsewhere keeps its id, any
edit of the change gets a new one.

**Parts.**  A path whose text lies in more than one chunk part (a file cut
across chunks, or a path with several sections in a ``git log -p`` stream)
has a *part key* per part: sha256 over the path, the part's 1-based number
and the ``+``/``-`` lines of the part's hunks.  Marks made through a chunk are
kept per part, so marking the first part of a split file does not mark the
rest; under other load options the parts differ and only whole-file marks
apply.

The one place this module reads diff text itself rather than the model's
fields: a part's text is the chunker's pieces joined, and its hunks start at
its first line that begins with ``@@`` (the lines before it are the part's
file header).  No ``@@`` header is parsed for numbers here: hunk ranges come
from :class:`~diffchunk.diff.model.Hunk`.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...diff.buffer import DiffData
from ...diff.hunk import HunkRange, hunks_once
from ...diff.model import (
    ChunkPart,
    DiffKind,
    FileDiff,
    FileStatus,
    Hunk,
    change_status,
)
from ...diff.patterns import PathQuery
from ...errors import InvalidArgument
from ..sessions.since_sidecar import SinceRecord, read_since
from . import hunk_lines
from .hunk_lines import Located, SideIndex

if TYPE_CHECKING:
    from ...diff.pipeline import Review
    from ..sessions.store import Session, SessionStore

# A '+' or '-' line of a two-way hunk, with the '\ No newline' marker that may follow it.
_CHANGE_LINE = re.compile(rb"^[+-][^\n]*\n?(?:\\[^\n]*\n?)?", re.MULTILINE)
_LINE = re.compile(rb"[^\n]*\n|[^\n]+")
_FIRST_HUNK = re.compile(rb"^@@", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class FileChange:
    """One path of the loaded diff (all its sections), as the record sees it."""

    order: int  # position among the diff's paths
    path: str
    old_path: str | None  # set for a rename or a copy
    status: str  # added, deleted, modified, renamed, copied, mode, binary
    change_id: str
    added: int
    removed: int
    binary: bool
    combined: bool  # a merge's combined diff: lines have one column per parent
    hunks: tuple[HunkRange, ...]
    chunks: tuple[int, ...]  # chunks holding it (empty: excluded)
    excluded_reason: str | None
    parts: tuple[str, ...]  # part keys when its text lies in several chunk parts, else ()

    def spans(self, side: str) -> list[tuple[int, int]]:
        return [s for s in (h.span(side) for h in self.hunks) if s is not None]


@dataclass(frozen=True, slots=True)
class PartRef:
    """A file's share of one chunk: ``key`` is its part key, None for a whole file."""

    path: str
    key: str | None


def _status(fd: FileDiff) -> str:
    return change_status(fd)


def _encode(text: str | None) -> bytes:
    return (text or "").encode("utf-8", "surrogateescape")


def _combined_changes(data: bytes, columns: int) -> Iterator[bytes]:
    """The lines of a combined hunk body with a '+' or '-' in their ``columns`` prefix."""
    for match in _LINE.finditer(data):
        line = match.group()
        prefix = line[:columns]
        if b"+" in prefix or b"-" in prefix:
            yield line


def change_id(data: DiffData, sections: Sequence[FileDiff]) -> str:
    """The change id of one path from its sections (see the module docstring)."""
    digest = hashlib.sha256()
    for fd in sections:
        digest.update(
            b"%s\0%s\0%s\0" % (_encode(fd.old_path), _encode(fd.new_path), _encode(fd.status.value))
        )
        if fd.hunks and fd.kind is DiffKind.COMBINED:
            for hunk in fd.hunks:
                body = data[hunk.body_start : hunk.end]
                digest.update(b"".join(_combined_changes(body, max(len(hunk.parents), 1))))
        elif fd.hunks:
            digest.update(b"".join(_CHANGE_LINE.findall(data[fd.header_end : fd.end])))
        else:
            text = data[fd.start : fd.end]
            if text.startswith(b"diff --git "):
                text = text[text.find(b"\n") + 1 :] if b"\n" in text else b""
            digest.update(text)
        digest.update(b"\0")
    return digest.hexdigest()


def _part_key(path: str, number: int, text: bytes) -> str:
    first = _FIRST_HUNK.search(text)
    if first is not None:
        lines = b"".join(_CHANGE_LINE.findall(text, first.start()))
    else:  # a section without hunks: its header lines but 'diff --git'
        lines = b"".join(
            m.group() for m in _LINE.finditer(text) if not m.group().startswith(b"diff --git ")
        )
    digest = hashlib.sha256(b"part\0%s\0%d\0" % (_encode(path), number))
    digest.update(lines)
    return digest.hexdigest()


class RecordedDiff:
    """The record's view of one loaded diff (one session): built lazily, then kept.

    ``path`` is the diff file's real path, ``sha256`` its content's digest.
    ``since``: the record of a since-review diff (:mod:`diffchunk.review.sessions.since_sidecar`),
    None for any other diff; a file of a since-review diff has the change id of
    its whole change in the range now, not that of its section.
    Thread-safe: two threads may compute the same value; either is kept.
    """

    def __init__(
        self, path: str, sha256: str, review: Review, since: SinceRecord | None = None
    ) -> None:
        self.path = path
        self.sha256 = sha256
        self.since = since
        self._review = review
        self._lock = threading.Lock()
        self._sections: dict[str, list[FileDiff]] | None = None
        self._order: dict[str, int] = {}
        self._excluded: dict[str, str] | None = None
        self._parts: dict[str, list[tuple[int, ChunkPart]]] | None = None
        self._changes: dict[str, FileChange] = {}
        self._part_keys: dict[tuple[str, int], str] = {}
        self._indexes: dict[tuple[int, str], SideIndex] = {}  # (hunk offset, side)

    # ------------------------------------------------------------- structure

    @property
    def total_chunks(self) -> int:
        return len(self._review.chunks)

    def _by_path(self) -> dict[str, list[FileDiff]]:
        sections = self._sections
        if sections is None:
            sections = {}
            for fd in self._review.parsed.files:
                sections.setdefault(fd.path, []).append(fd)
            self._order = {path: i for i, path in enumerate(sections)}
            self._sections = sections
        return sections

    def _parts_by_path(self) -> dict[str, list[tuple[int, ChunkPart]]]:
        parts = self._parts
        if parts is None:
            parts = {}
            for chunk in self._review.chunks:
                for part in chunk.parts:
                    parts.setdefault(part.path, []).append((chunk.number, part))
            self._parts = parts
        return parts

    def paths(self) -> list[str]:
        """Every path of the diff (excluded ones too), in diff order."""
        return list(self._by_path())

    def has(self, path: str) -> bool:
        return path in self._by_path()

    def file(self, path: str) -> FileChange:
        """The change of ``path`` (a path of :meth:`paths`)."""
        found = self._changes.get(path)
        if found is None:
            found = self._build(path)
            with self._lock:
                self._changes[path] = found
        return found

    def files(self) -> list[FileChange]:
        return [self.file(path) for path in self.paths()]

    def since_section(self, path: str) -> str | None:
        """What the section of ``path`` shows in a since-review diff (``plain``,
        ``interdiff``, ``new``); None in any other diff."""
        if self.since is None:
            return None
        entry = self.since.files.get(path)
        return entry.section if entry is not None else None

    def _build(self, path: str) -> FileChange:
        sections = self._by_path()[path]
        review = self._review
        first = sections[0]
        since = self.since.files.get(path) if self.since is not None else None
        chunks = tuple(review.file_to_chunks.get(path, ()))
        excluded = None
        if not chunks:
            if self._excluded is None:
                reasons: dict[str, str] = {}
                for ex in review.excluded:
                    reasons.setdefault(ex.path, ex.reason.value)
                self._excluded = reasons
            excluded = self._excluded.get(path, "excluded")
        parts = self._parts_by_path().get(path, [])
        keys = (
            tuple(self._key_of(path, k + 1, part) for k, (_, part) in enumerate(parts))
            if len(parts) > 1
            else ()
        )
        return FileChange(
            order=self._order[path],
            path=path,
            old_path=first.old_path
            if first.status in (FileStatus.RENAMED, FileStatus.COPIED)
            else None,
            status=_status(first),
            change_id=since.change_id
            if since is not None
            else change_id(review.parsed.data, sections),
            added=sum(fd.added for fd in sections),
            removed=sum(fd.removed for fd in sections),
            binary=any(fd.is_binary for fd in sections),
            combined=any(fd.kind is DiffKind.COMBINED for fd in sections),
            hunks=tuple(
                HunkRange(h.old_start, h.old_count, h.new_start, h.new_count)
                for fd in sections
                for h in hunks_once(fd.hunks)
            ),
            chunks=chunks,
            excluded_reason=excluded,
            parts=keys,
        )

    def _key_of(self, path: str, number: int, part: ChunkPart) -> str:
        cached = self._part_keys.get((path, number))
        if cached is None:
            data = self._review.parsed.data
            text = b"".join(
                piece if isinstance(piece, bytes) else data[piece[0] : piece[1]]
                for piece in part.pieces
            )
            cached = _part_key(path, number, text)
            with self._lock:
                self._part_keys[(path, number)] = cached
        return cached

    def chunk_parts(self, number: int) -> list[PartRef]:
        """The files of chunk ``number`` (1-based, checked), each whole or as one part."""
        chunk = self._review.chunk(number)
        refs: list[PartRef] = []
        for part in chunk.parts:
            parts = self._parts_by_path()[part.path]
            if len(parts) == 1:
                ref = PartRef(part.path, None)
            else:
                k = next(i for i, (_, p) in enumerate(parts) if p is part)
                ref = PartRef(part.path, self._key_of(part.path, k + 1, part))
            if ref not in refs:
                refs.append(ref)
        return refs

    def chunk_numbers(self) -> range:
        return range(1, self.total_chunks + 1)

    # ---------------------------------------------------------------- paths

    def matching(self, pattern: str) -> list[str]:
        """Paths (excluded ones too) that ``pattern`` selects: a path exactly as listed
        alone, else what its globs match (:meth:`PathQuery.select`)."""
        if not isinstance(pattern, str) or not pattern.strip():
            raise InvalidArgument(
                "file_pattern is empty.",
                suggestion="Pass a glob such as '*.py' or 'src/**', or a path as listed.",
            )
        renamed = {c.old_path: c.path for c in self.files() if c.old_path}
        return PathQuery(pattern, name="file_pattern").select(self.paths(), renamed)

    # ---------------------------------------------------------------- lines

    def _hunk_holding(self, path: str, side: str, line: int, end_line: int) -> Hunk | None:
        """The hunk of ``path`` whose ``side`` holds lines ``line..end_line`` (None: none)."""
        for fd in self._by_path()[path]:
            for hunk in fd.hunks:
                start, count = (
                    (hunk.new_start, hunk.new_count)
                    if side == "new"
                    else (hunk.old_start, hunk.old_count)
                )
                if count > 0 and start <= line and end_line <= start + count - 1:
                    return hunk
        return None

    def _index(self, hunk: Hunk, side: str) -> SideIndex:
        """The line index of ``side`` of ``hunk`` (made on first use, kept with the diff)."""
        key = (hunk.start, side)
        found = self._indexes.get(key)
        if found is None:
            with self._lock:
                found = self._indexes.get(key)
                if found is None:
                    found = SideIndex(self._review.parsed.data, hunk, side)
                    self._indexes[key] = found
        return found

    def locate(self, path: str, side: str, line: int, end_line: int) -> Located | None:
        """The lines ``line..end_line`` on ``side`` when one hunk of ``path`` holds them all."""
        hunk = self._hunk_holding(path, side, line, end_line)
        return None if hunk is None else hunk_lines.locate(self._index(hunk, side), line, end_line)

    def side_lines(self, path: str, side: str) -> list[tuple[int, list[str]]]:
        """The lines of ``side`` of each hunk of ``path``: ``(first line number, texts)``,
        texts decoded as findings keep them (line ends included)."""
        runs = []
        for fd in self._by_path().get(path, ()):
            for hunk in fd.hunks:
                index = self._index(hunk, side)
                texts = hunk_lines.all_lines(index)
                if texts:
                    runs.append((index.first, texts))
        return runs

    def chunk_of(self, path: str, offset: int | None) -> int | None:
        """The chunk holding the diff byte at ``offset`` of ``path`` (its first chunk when
        ``offset`` is None or lies in no part); None when the file is in no chunk."""
        parts = self._parts_by_path().get(path)
        if not parts:
            return None
        if offset is not None and len(parts) > 1:
            for number, part in parts:
                for piece in part.pieces:
                    if isinstance(piece, tuple) and piece[0] <= offset < piece[1]:
                        return number
        return parts[0][0]

    def chunk_at(self, path: str, side: str, line: int) -> int | None:
        """The chunk holding ``line`` of ``path`` on ``side``; None when no hunk holds it
        or the file is in no chunk.  Only a file cut into several parts has its lines
        read (as far as ``line``), to tell which part holds it."""
        parts = self._parts_by_path().get(path)
        hunk = self._hunk_holding(path, side, line, line) if parts else None
        if not parts or hunk is None:
            return None
        if len(parts) == 1:
            return parts[0][0]
        return self.chunk_of(path, hunk_lines.offset_of(self._index(hunk, side), line))


# --------------------------------------------------------------------------
# From a diff file path to its RecordedDiff
# --------------------------------------------------------------------------

_CACHE_KEY = "record.loaded"


def of_session(session: Session) -> RecordedDiff:
    """The record's view of a session (made once per session, kept in its cache)."""
    cached = session.cache.get(_CACHE_KEY)
    if not isinstance(cached, RecordedDiff):
        since = read_since(session.path)
        cached = RecordedDiff(session.path, session.digest, session.review, since)
        session.cache[_CACHE_KEY] = cached
    return cached


def loaded(absolute_file_path: str, store: SessionStore | None = None) -> RecordedDiff:
    """The loaded diff at ``absolute_file_path`` (loaded now with the defaults if it is
    not yet; a loaded one keeps its options), as the diff tools see it."""
    from ..sessions.loading import session as loaded_session

    return of_session(loaded_session(absolute_file_path, store=store))


def match_file(absolute_file_path: str, file_path: str, store: SessionStore | None = None) -> str:
    """The one path of the diff that ``file_path`` names, as ``get_file_diff`` matches it
    (exact, case-insensitive, a renamed file's old path, or a glob matching one file).
    A path exactly as listed is taken as it is, without a look at every other path."""
    if isinstance(file_path, str) and loaded(absolute_file_path, store).has(file_path):
        return file_path
    from ..sessions.file_match import match_file as match_path
    from ..sessions.loading import session as loaded_session

    return match_path(loaded_session(absolute_file_path, store=store).review, file_path)
