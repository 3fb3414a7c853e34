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
file header).  Hunk ranges are read by the engine's header reader.

**Memory.**  A diff of a million files is a million paths: nothing here holds
an object per path.  Paths are numbered in diff order (*ordinals*: a path's
position among the diff's distinct paths, its first section's position when
no path repeats); a path's change id is computed when first needed and kept
as 32 bytes in an array; a :class:`FileChange` is built when asked for (the
last few are kept); only paths with several sections or chunk parts (a
``git log -p`` stream, a file cut across chunks) have entries of their own.
The sections' fields are read from the parse's
:class:`~diffchunk.diff.table.FileTable` columns.
"""

from __future__ import annotations

import hashlib
import re
import threading
from array import array
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...diff import syntax as sx
from ...diff.buffer import DiffData, trimmer
from ...diff.chunk_parts import ChunkParts, FileChunks
from ...diff.hunk import HunkRange, hunks_once
from ...diff.model import ChunkPart, DiffKind, FileDiff, FileStatus, Hunk
from ...diff.patterns import PathQuery
from ...diff.table import ExcludedFiles, FileTable, table_of
from ...errors import InvalidArgument
from ..sessions.since_sidecar import SinceRecord, read_since
from . import hunk_lines
from .hunk_lines import Located, SideIndex

if TYPE_CHECKING:
    from ...diff.pipeline import Review
    from ..sessions.store import Session, SessionStore

RECORD_CHANGES_KEPT = 1_024
"""Files' changes a loaded diff keeps once built for the record (the last ones
used): a page of a listing or a review's findings reuses them, and a diff of a
million files never holds a million of them."""

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


def _encode(text: str | None) -> bytes:
    return (text or "").encode("utf-8", "surrogateescape")


def _combined_changes(data: bytes, columns: int) -> Iterator[bytes]:
    """The lines of a combined hunk body with a '+' or '-' in their ``columns`` prefix."""
    for match in _LINE.finditer(data):
        line = match.group()
        prefix = line[:columns]
        if b"+" in prefix or b"-" in prefix:
            yield line


_STATUS_BYTES = {s: s.value.encode() for s in FileStatus}
_SURROGATE = b"\xed"  # how a lone surrogate starts in the table's pool (never in UTF-8 text)


def _path_bytes(files: FileTable, i: int) -> tuple[bytes, bytes]:
    """The old and new paths of section ``i`` as :func:`_encode` gives them (from the
    table's pool: the same bytes unless a path holds a surrogate)."""
    old, new = files.path_bytes(i)
    if (old and _SURROGATE in old) or (new and _SURROGATE in new):
        return _encode(files.old_path(i)), _encode(files.new_path(i))
    return old or b"", new or b""


def change_digest(data: DiffData, files: FileTable, sections: Sequence[int]) -> bytes:
    """The change id (as 32 bytes) of one path from its sections, positions in ``files``
    (see the module docstring); read from the table's columns (a FileDiff is built
    for a combined diff's section only)."""
    digest = hashlib.sha256()
    for i in sections:
        old, new = _path_bytes(files, i)
        digest.update(b"%s\0%s\0%s\0" % (old, new, _STATUS_BYTES[files.status(i)]))
        start, end = files.span(i)
        if files.has_hunks(i) and files.kind(i) is DiffKind.COMBINED:
            for hunk in files[i].hunks:
                body = data[hunk.body_start : hunk.end]
                digest.update(b"".join(_combined_changes(body, max(len(hunk.parents), 1))))
        elif files.has_hunks(i):
            digest.update(b"".join(_CHANGE_LINE.findall(data[files.header_end(i) : end])))
        else:
            text = data[start:end]
            if text.startswith(b"diff --git "):
                text = text[text.find(b"\n") + 1 :] if b"\n" in text else b""
            digest.update(text)
        digest.update(b"\0")
    return digest.digest()


def change_id(data: DiffData, sections: Sequence[FileDiff]) -> str:
    """The change id of one path from its sections (see the module docstring)."""
    files = FileTable(data, sections)
    return change_digest(data, files, range(len(files))).hex()


def _change_status(files: FileTable, i: int) -> str:
    """:func:`~diffchunk.diff.model.change_status` of section ``i``, from the columns."""
    status = files.status(i)
    if status is not FileStatus.MODIFIED:
        return status.value
    if files.is_binary(i):
        return "binary"
    old_mode, new_mode = files.modes(i)
    if not files.has_hunks(i) and old_mode and new_mode and old_mode != new_mode:
        return "mode"
    return "modified"


def hunk_ranges(data: DiffData, files: FileTable, i: int) -> Iterator[HunkRange]:
    """The ranges of section ``i``'s hunks: read from their ``@@`` lines when they are
    lazy (no Hunk built), else from its hunks."""
    count = files.lazy_hunks(i)
    if count:
        # Checked lazy hunks: every line of theirs that starts with '@' is a header.
        found = sx.HUNK_RANGES.findall(data, files.header_end(i), files.end(i))
        if len(found) == count:
            for old_start, old_count, new_start, new_count in found:
                yield HunkRange(
                    int(old_start),
                    int(old_count) if old_count else 1,
                    int(new_start),
                    int(new_count) if new_count else 1,
                )
            return
    for h in hunks_once(files[i].hunks) if files.has_hunks(i) else ():
        yield HunkRange(h.old_start, h.old_count, h.new_start, h.new_count)


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


_NO_REASON = 0xFF  # a section in a chunk (kept), in RecordedDiff._reasons
_MOVES = (FileStatus.RENAMED, FileStatus.COPIED)  # a change with an old path of its own


class RecordedDiff:
    """The record's view of one loaded diff (one session): built lazily, then kept.

    ``path`` is the diff file's real path, ``sha256`` its content's digest.
    ``since``: the record of a since-review diff (:mod:`diffchunk.review.sessions.since_sidecar`),
    None for any other diff; a file of a since-review diff has the change id of
    its whole change in the range now, not that of its section.
    Paths are numbered by their *ordinal* (see the module doc).
    Thread-safe: two threads may compute the same value; either is kept.
    """

    def __init__(
        self, path: str, sha256: str, review: Review, since: SinceRecord | None = None
    ) -> None:
        self.path = path
        self.sha256 = sha256
        self.since = since
        self._review = review
        self._data = review.parsed.data
        # A mapped diff's pages go back as a pass over its files moves on (the change
        # ids of a review's marks are read in the diff's order, most often).
        self._trim = trimmer(self._data)
        self._files = table_of(review.parsed.files, self._data)
        chunks = review.file_to_chunks
        self._chunks = chunks if isinstance(chunks, FileChunks) else None
        self._lock = threading.Lock()
        self._firsts: Sequence[int] | None = None  # each path's first section, in order
        self._repeated: dict[str, list[int]] = {}  # paths with several sections
        self._reasons: bytearray | None = None  # per section: exclusion reason (index)
        self._reason_names: list[str] = []
        self._multi: dict[str, list[tuple[int, int]]] | None = None  # (chunk, part) per path
        self._digests = bytearray()  # 32 bytes per ordinal, once known
        self._known = bytearray()  # 1 per ordinal whose digest is known
        self._changes: OrderedDict[str, FileChange] = OrderedDict()  # the last few built
        self._part_keys: dict[tuple[str, int], str] = {}
        self._indexes: dict[tuple[int, str], SideIndex] = {}  # (hunk offset, side)

    # ------------------------------------------------------------- structure

    @property
    def total_chunks(self) -> int:
        return len(self._review.chunks)

    @property
    def review(self) -> Review:
        return self._review

    def _first_sections(self) -> Sequence[int]:
        firsts = self._firsts
        if firsts is None:
            with self._lock:  # once: the arrays below are written by every thread after
                firsts = self._firsts
                if firsts is None:
                    files = self._files
                    repeated = files.repeated()
                    if repeated:
                        later = {i for ids in repeated.values() for i in ids[1:]}
                        firsts = array("q", (i for i in range(len(files)) if i not in later))
                    else:
                        firsts = range(len(files))
                    self._repeated = repeated
                    self._digests = bytearray(32 * len(firsts))
                    self._known = bytearray(len(firsts))
                    self._firsts = firsts
        return firsts

    def count(self) -> int:
        """How many paths the diff has."""
        return len(self._first_sections())

    def path_of(self, ordinal: int) -> str:
        return self._files.path(self._first_sections()[ordinal])

    def ordinal(self, path: str) -> int | None:
        """The ordinal of ``path`` (None: not a path of the diff)."""
        found = self._files.indices_of(path) if isinstance(path, str) else []
        if not found:
            return None
        firsts = self._first_sections()
        if isinstance(firsts, range):
            return found[0]
        return bisect_left(firsts, found[0])

    def ordinal_of_path(self, path: str) -> int:
        """The ordinal of ``path``, a path of the diff (KeyError otherwise)."""
        ordinal = self.ordinal(path)
        if ordinal is None:
            raise KeyError(path)
        return ordinal

    def ordinal_of_section(self, i: int) -> int:
        """The ordinal of the path of section ``i``."""
        firsts = self._first_sections()
        if isinstance(firsts, range):
            return i
        if self._repeated:
            path = self._files.path(i)
            sections = self._repeated.get(path)
            if sections is not None:
                i = sections[0]
        return bisect_left(firsts, i)

    def sections(self, ordinal: int) -> Sequence[int]:
        """The sections of the path ``ordinal``, in order."""
        first = self._first_sections()[ordinal]
        if self._repeated:
            found = self._repeated.get(self._files.path(first))
            if found is not None:
                return found
        return (first,)

    def paths(self) -> list[str]:
        """Every path of the diff (excluded ones too), in diff order."""
        return list(self.iter_paths())

    def iter_paths(self) -> Iterator[str]:
        return map(self._files.path, self._first_sections())

    def has(self, path: str) -> bool:
        return isinstance(path, str) and bool(self._files.indices_of(path))

    # ------------------------------------------------------------- per path

    def digest(self, ordinal: int) -> bytes:
        """The change id of path ``ordinal`` as 32 bytes (computed once, then kept)."""
        if self._firsts is None:
            self._first_sections()
        at = 32 * ordinal
        if self._known[ordinal]:
            return bytes(self._digests[at : at + 32])
        entry = self.since.files.get(self.path_of(ordinal)) if self.since is not None else None
        if entry is not None:
            value = bytes.fromhex(entry.change_id)
        else:
            sections = self.sections(ordinal)
            if self._trim is not None:
                self._trim(self._files.start(sections[0]))
            value = change_digest(self._data, self._files, sections)
        self._digests[at : at + 32] = value
        self._known[ordinal] = 1
        return value

    def change_hex(self, ordinal: int) -> str:
        return self.digest(ordinal).hex()

    def all_digests(self) -> None:
        """Compute every path's change id now, in one pass over the diff (its pages go
        back as the pass moves on)."""
        trim = trimmer(self._data)
        firsts = self._first_sections()
        if self.since is not None or self._repeated:
            for ordinal in range(len(firsts)):
                if trim is not None:
                    trim(self._files.start(firsts[ordinal]))
                self.digest(ordinal)
            return
        data, files, known, digests = self._data, self._files, self._known, self._digests
        for i in range(len(firsts)):  # a section a path: its position is its ordinal
            if not known[i]:
                if trim is not None:
                    trim(files.start(i))
                digests[32 * i : 32 * i + 32] = change_digest(data, files, (i,))
                known[i] = 1

    def excluded_reason(self, ordinal: int) -> str | None:
        """Why path ``ordinal`` is in no chunk (None: it is in one)."""
        one_each = self._firsts is not None and not self._repeated  # a path: one section
        if one_each and self._chunks is not None and self._chunks.in_a_chunk(ordinal):
            return None
        sections = self.sections(ordinal)
        if any(self._chunks_of_section(i) for i in sections):
            return None
        reasons = self._section_reasons()
        for i in sections:
            if reasons[i] != _NO_REASON:
                return self._reason_names[reasons[i]]
        return "excluded"

    def _section_reasons(self) -> bytearray:
        reasons = self._reasons
        if reasons is None:
            reasons = bytearray([_NO_REASON]) * len(self._files)
            names: dict[str, int] = {}
            excluded = self._review.excluded
            if isinstance(excluded, ExcludedFiles):
                items = ((excluded.file_index(k), excluded.reason(k)) for k in range(len(excluded)))
            else:
                items = ((ex.file_index, ex.reason) for ex in excluded)
            for i, reason in items:
                if 0 <= i < len(reasons) and reasons[i] == _NO_REASON:
                    reasons[i] = names.setdefault(reason.value, len(names))
            self._reason_names = list(names)
            self._reasons = reasons
        return reasons

    def _chunks_of_section(self, i: int) -> tuple[int, ...]:
        if self._chunks is not None:
            return self._chunks.chunks_of(i)
        return tuple(self._review.file_to_chunks.get(self._files.path(i), ()))

    def chunks_of(self, ordinal: int) -> tuple[int, ...]:
        """The chunks holding path ``ordinal``, in order."""
        sections = self.sections(ordinal)
        if len(sections) == 1:
            return self._chunks_of_section(sections[0])
        return tuple(sorted({n for i in sections for n in self._chunks_of_section(i)}))

    def file(self, path: str) -> FileChange:
        """The change of ``path`` (a path of :meth:`paths`)."""
        found = self._changes.get(path)
        if found is None:
            ordinal = self.ordinal(path)
            if ordinal is None:
                raise KeyError(path)
            found = self._build(ordinal)
            with self._lock:
                self._changes[path] = found
                while len(self._changes) > RECORD_CHANGES_KEPT:
                    self._changes.popitem(last=False)
        return found

    def file_at(self, ordinal: int) -> FileChange:
        """The change of path ``ordinal`` (built, not kept)."""
        return self._build(ordinal)

    def files(self) -> Iterator[FileChange]:
        """Every path's change, in diff order, each built when reached."""
        trim = trimmer(self._data)
        firsts = self._first_sections()
        for ordinal in range(len(firsts)):
            if trim is not None:
                trim(self._files.start(firsts[ordinal]))
            yield self._build(ordinal)

    def since_section(self, path: str) -> str | None:
        """What the section of ``path`` shows in a since-review diff (``plain``,
        ``interdiff``, ``new``); None in any other diff."""
        if self.since is None:
            return None
        entry = self.since.files.get(path)
        return entry.section if entry is not None else None

    def _build(self, ordinal: int) -> FileChange:
        files, data = self._files, self._data
        sections = self.sections(ordinal)
        first = sections[0]
        path = files.path(first)
        status = files.status(first)
        if len(sections) == 1:  # most paths: one section
            added, removed = files.counts(first)
            binary = files.is_binary(first)
            combined = files.kind(first) is DiffKind.COMBINED
            hunks = tuple(hunk_ranges(data, files, first))
        else:
            added = sum(files.counts(i)[0] for i in sections)
            removed = sum(files.counts(i)[1] for i in sections)
            binary = any(files.is_binary(i) for i in sections)
            combined = any(files.kind(i) is DiffKind.COMBINED for i in sections)
            hunks = tuple(h for i in sections for h in hunk_ranges(data, files, i))
        parts = self._parts_by_path().get(path)
        keys = (
            tuple(self._key_of(path, k + 1, chunk, at) for k, (chunk, at) in enumerate(parts))
            if parts
            else ()
        )
        chunks = self.chunks_of(ordinal)
        return FileChange(
            order=ordinal,
            path=path,
            old_path=files.old_path(first) if status in _MOVES else None,
            status=_change_status(files, first),
            change_id=self.change_hex(ordinal),
            added=added,
            removed=removed,
            binary=binary,
            combined=combined,
            hunks=hunks,
            chunks=chunks,
            excluded_reason=None if chunks else self.excluded_reason(ordinal),
            parts=keys,
        )

    # ---------------------------------------------------------------- parts

    def _parts_by_path(self) -> dict[str, list[tuple[int, int]]]:
        """The paths whose text lies in several chunk parts, each with its parts as
        ``(chunk number, position in the chunk's parts)``: the files cut across chunks
        and the paths of several sections."""
        multi = self._multi
        if multi is None:
            self._first_sections()
            review, files = self._review, self._files
            candidates: dict[str, set[int]] = {p: set(ids) for p, ids in self._repeated.items()}
            if self._chunks is not None:
                for i in self._chunks.split_sections():
                    candidates.setdefault(files.path(i), set()).add(i)
            else:
                for path, held in review.file_to_chunks.items():
                    if len(held) > 1:
                        candidates.setdefault(path, set()).update(files.indices_of(path))
            multi = {}
            for path, sections in candidates.items():
                chunks = sorted({n for i in sections for n in self._chunks_of_section(i)})
                found = [
                    (n, k)
                    for n in chunks
                    for k, part in enumerate(_part_files(review.chunk(n)))
                    if part in sections
                ]
                if len(found) > 1:
                    multi[path] = found
            self._multi = multi
        return multi

    def _part(self, number: int, at: int) -> ChunkPart:
        return self._review.chunk(number).parts[at]

    def _key_of(self, path: str, number: int, chunk: int, at: int) -> str:
        cached = self._part_keys.get((path, number))
        if cached is None:
            data = self._data
            text = b"".join(
                piece if isinstance(piece, bytes) else data[piece[0] : piece[1]]
                for piece in self._part(chunk, at).pieces
            )
            cached = _part_key(path, number, text)
            with self._lock:
                self._part_keys[(path, number)] = cached
        return cached

    def part_keys(self, path: str) -> tuple[str, ...]:
        """The part keys of ``path`` (empty: its text is in one part)."""
        parts = self._parts_by_path().get(path)
        if not parts:
            return ()
        return tuple(self._key_of(path, k + 1, n, at) for k, (n, at) in enumerate(parts))

    def chunk_parts(self, number: int) -> list[PartRef]:
        """The files of chunk ``number`` (1-based, checked), each whole or as one part."""
        chunk = self._review.chunk(number)
        multi = self._parts_by_path()
        files = self._files
        refs: dict[PartRef, None] = {}
        for at, i in enumerate(_part_files(chunk)):
            path = files.path(i)
            parts = multi.get(path)
            if parts is None:
                ref = PartRef(path, None)
            else:
                k = parts.index((number, at))
                ref = PartRef(path, self._key_of(path, k + 1, number, at))
            refs[ref] = None
        return list(refs)

    def chunk_sections(self, number: int) -> Iterator[int]:
        """The sections of chunk ``number``'s parts, in order."""
        return _part_files(self._review.chunk(number))

    def multi_part(self, path: str) -> bool:
        """Whether ``path``'s text lies in several chunk parts."""
        return path in self._parts_by_path()

    def chunk_numbers(self) -> range:
        return range(1, self.total_chunks + 1)

    # ---------------------------------------------------------------- paths

    def matching(self, pattern: str) -> list[str]:
        """Paths (excluded ones too) that ``pattern`` selects: a path exactly as listed
        alone, else what its globs match (:meth:`PathQuery.select`)."""
        return list(map(self.path_of, self.matching_ordinals(pattern)))

    def matching_ordinals(self, pattern: str) -> Sequence[int]:
        """The ordinals of :meth:`matching`'s paths, in diff order."""
        if not isinstance(pattern, str) or not pattern.strip():
            raise InvalidArgument(
                "file_pattern is empty.",
                suggestion="Pass a glob such as '*.py' or 'src/**', or a path as listed.",
            )
        query = PathQuery(pattern, name="file_pattern")
        text = query.text
        exact = self.ordinal(text)
        if exact is not None:
            return [exact]
        if query.matches_everything():
            return range(self.count())
        # One pass, as PathQuery.select decides: the path case ignored, then a renamed
        # file's old path exactly, then what the query matches.
        files, firsts = self._files, self._first_sections()
        lowered = text.lower()
        folded: list[int] = []
        renamed: int | None = None
        found = array("q")
        for ordinal, i in enumerate(firsts):
            path = files.path(i)
            if len(path) == len(text) and path.lower() == lowered:
                folded.append(ordinal)
            moved = files.status(i) in (FileStatus.RENAMED, FileStatus.COPIED)
            if moved and files.old_path(i) == text:
                renamed = ordinal
            if query.matches(path):
                found.append(ordinal)
        if folded:
            return folded
        if renamed is not None:
            return [renamed]
        return found

    # ---------------------------------------------------------------- lines

    def _hunk_holding(self, path: str, side: str, line: int, end_line: int) -> Hunk | None:
        """The hunk of ``path`` whose ``side`` holds lines ``line..end_line`` (None: none)."""
        ordinal = self.ordinal(path)
        for i in self.sections(ordinal) if ordinal is not None else ():
            for hunk in self._files[i].hunks:
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
                    found = SideIndex(self._data, hunk, side)
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
        ordinal = self.ordinal(path)
        for i in self.sections(ordinal) if ordinal is not None else ():
            for hunk in self._files[i].hunks:
                index = self._index(hunk, side)
                texts = hunk_lines.all_lines(index)
                if texts:
                    runs.append((index.first, texts))
        return runs

    def position(self, path: str, side: str, line: int) -> int | None:
        """Where ``line`` of ``side`` of ``path`` is in the diff (a buffer offset: an old
        line and a new line compare as they are shown); None when no hunk holds it."""
        hunk = self._hunk_holding(path, side, line, line)
        return None if hunk is None else hunk_lines.offset_of(self._index(hunk, side), line)

    def _parts_of(self, path: str) -> list[tuple[int, ChunkPart]]:
        """``(chunk number, part)`` of every chunk part of ``path``, in order."""
        multi = self._parts_by_path().get(path)
        if multi is not None:
            return [(n, self._part(n, at)) for n, at in multi]
        ordinal = self.ordinal(path)
        chunks = self.chunks_of(ordinal) if ordinal is not None else ()
        if not chunks:
            return []
        number = chunks[0]
        sections = set(self.sections(ordinal)) if ordinal is not None else set()
        chunk = self._review.chunk(number)
        at = next(k for k, i in enumerate(_part_files(chunk)) if i in sections)
        return [(number, chunk.parts[at])]

    def chunk_of(self, path: str, offset: int | None) -> int | None:
        """The chunk holding the diff byte at ``offset`` of ``path`` (its first chunk when
        ``offset`` is None or lies in no part); None when the file is in no chunk."""
        parts = self._parts_of(path)
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
        ordinal = self.ordinal(path)
        chunks = self.chunks_of(ordinal) if ordinal is not None else ()
        hunk = self._hunk_holding(path, side, line, line) if chunks else None
        if not chunks or hunk is None:
            return None
        if not self.multi_part(path):
            return chunks[0]
        return self.chunk_of(path, hunk_lines.offset_of(self._index(hunk, side), line))


def _part_files(chunk: object) -> Iterator[int]:
    """The sections of a chunk's parts, in order (without building the parts)."""
    parts = getattr(chunk, "parts", ())
    if isinstance(parts, ChunkParts):
        return map(parts.store.file_index, parts.positions())
    return (p.file_index for p in parts)


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
