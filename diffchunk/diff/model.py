"""The diff data model: offsets into one immutable buffer, never a copy per line.

A parsed diff is the input buffer plus a flat list of *sections* that tile it
exactly, in order: file sections (:class:`FileDiff`) and everything between
them (:class:`Segment`: commit headers and messages, mail trailers, stray or
malformed text).  ``b"".join(section bytes)`` is the input, byte for byte.

Hunks are spans too; nothing holds a Python object per diff line, so a
million-line diff costs a few objects per hunk.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple, overload

from diffchunk.diff import syntax as sx
from diffchunk.diff.buffer import DiffData


class FileStatus(str, Enum):
    MODIFIED = "modified"
    ADDED = "added"
    DELETED = "deleted"
    RENAMED = "renamed"
    COPIED = "copied"


class DiffKind(str, Enum):
    GIT = "git"  # ``diff --git`` sections
    COMBINED = "combined"  # ``diff --cc`` / ``diff --combined`` (merges)
    UNIFIED = "unified"  # plain ``---``/``+++`` sections (diff -u, svn, hg)


class SegmentKind(str, Enum):
    COMMIT = "commit"  # a commit header and message (git log -p, format-patch)
    TEXT = "text"  # anything else between file sections (preamble, trailers)
    MALFORMED = "malformed"  # looked like a diff section but could not be parsed


@dataclass(frozen=True, slots=True)
class Hunk:
    """One ``@@`` hunk: ``data[start:end]`` is its header line plus body."""

    start: int  # offset of the ``@@`` line
    body_start: int  # offset just after the header line's ``\n``
    end: int  # offset just after the hunk's last line (incl. ``\ No newline`` lines)
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    added: int  # lines starting with '+' (any column for combined diffs)
    removed: int  # lines starting with '-'
    section: str = ""  # function context after the closing ``@@`` (may be "")
    # For combined diffs, the old ranges of every parent; empty for two-way hunks.
    parents: tuple[tuple[int, int], ...] = ()


class HunkSpan(NamedTuple):
    """Where a two-way hunk is and what its header says, without its line counts.

    What cutting a file into parts needs (see :meth:`LazyHunks.spans`); the
    fields mean what they mean on :class:`Hunk`.
    """

    start: int
    body_start: int
    end: int
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    parents: tuple[tuple[int, int], ...] = ()


def _hunk_factory() -> Callable[[int, int, int, int, int, int, int, int, int, str], Hunk]:
    """A constructor for two-way hunks that skips the frozen dataclass ``__init__``.

    A frozen dataclass sets each field through ``object.__setattr__``, which
    costs more than the rest of a hunk's parsing; writing the slots directly
    gives an identical object at half the cost.  Falls back to the normal
    constructor if the fields are not the ones expected here.
    """
    names = (
        "start",
        "body_start",
        "end",
        "old_start",
        "old_count",
        "new_start",
        "new_count",
        "added",
        "removed",
        "section",
        "parents",
    )
    if tuple(f.name for f in dataclasses.fields(Hunk)) != names or not hasattr(Hunk, "__slots__"):
        return Hunk
    s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10 = (vars(Hunk)[n].__set__ for n in names)
    new = object.__new__

    def make(
        start: int,
        body_start: int,
        end: int,
        old_start: int,
        old_count: int,
        new_start: int,
        new_count: int,
        added: int,
        removed: int,
        section: str,
    ) -> Hunk:
        h = new(Hunk)
        s0(h, start)
        s1(h, body_start)
        s2(h, end)
        s3(h, old_start)
        s4(h, old_count)
        s5(h, new_start)
        s6(h, new_count)
        s7(h, added)
        s8(h, removed)
        s9(h, section)
        s10(h, ())
        return h

    return make


new_hunk = _hunk_factory()


class LazyHunks(Sequence[Hunk]):
    """The two-way hunks of one file section, built on first use.

    The parser checked the section at load time (see
    ``parser._Parser._lazy_hunks``): every line of ``data[start:end]`` is a
    hunk header, a ``' '``/``'+'``/``'-'`` line or a ``\\\\`` marker line, every
    line starting with ``@`` is a well-formed ``@@`` header, and each hunk's
    lines, up to the next header, make exactly its header counts.  So the
    hunks are exactly the spans from one header to the next, and building
    them can wait until a consumer iterates or indexes.  ``len()`` and
    truthiness use the known count.
    """

    __slots__ = (
        "_count",
        "_first",
        "_items",
        "_line_counts",
        "data",
        "end",
        "start",
    )

    def __init__(self, data: DiffData, start: int, end: int, count: int) -> None:
        self.data = data
        self.start = start  # offset of the first ``@@`` line
        self.end = end  # offset just after the last hunk
        self._count = count
        self._items: tuple[Hunk, ...] | None = None
        self._line_counts: tuple[int, ...] = ()
        self._first: Hunk | None = None

    # -- building --------------------------------------------------------------

    def _hunk_at(self, pos: int, end: int, lines: list[int] | None = None) -> Hunk:
        """The hunk whose header is at ``pos`` and whose body ends at ``end``.

        Appends the hunk's line count (header included) to ``lines``.
        """
        data = self.data
        n = len(data)
        m = sx.HUNK_HEADER.match(data, pos)
        if m is None:  # cannot happen for a section the parser checked
            raise ValueError(f"no hunk header at offset {pos}")
        old_start, old_count, new_start, new_count, section = sx.hunk_header_fields(m)
        body_start = min(m.end() + 1, n)
        count = data.count
        added = count(b"\n+", body_start - 1, end)
        removed = count(b"\n-", body_start - 1, end)
        span = count(b"\n", pos, end)
        if end > pos and data[end - 1] != 0x0A:
            span += 1  # an unterminated last line
        if lines is not None:
            lines.append(span)
        return new_hunk(
            pos,
            body_start,
            end,
            old_start,
            old_count,
            new_start,
            new_count,
            added,
            removed,
            section,
        )

    def _next_header(self, pos: int) -> int:
        """Start of the header after the one at ``pos`` (or the section end)."""
        nxt = self.data.find(b"\n@", pos, self.end)
        return self.end if nxt < 0 else nxt + 1

    def _build(self) -> tuple[Hunk, ...]:
        items = self._items
        if items is None:
            out: list[Hunk] = []
            lines: list[int] = []
            pos, end = self.start, self.end
            while pos < end:
                stop = self._next_header(pos)
                out.append(self._hunk_at(pos, stop, lines))
                pos = stop
            items = self._items = tuple(out)
            self._line_counts = tuple(lines)
            self._first = None
        return items

    @property
    def materialised(self) -> bool:
        return self._items is not None

    def spans(self) -> tuple[Sequence[Hunk | HunkSpan], tuple[int, ...]]:
        """Every hunk's span and header numbers, and its lines (header included).

        Cheaper than building the hunks (no added/removed counts); the built
        hunks are returned when they exist.
        """
        if self._items is not None:
            return self._items, self._line_counts
        data = self.data
        n = len(data)
        end = self.end
        match = sx.HUNK_HEADER.match
        find = data.find
        count = data.count
        spans: list[HunkSpan] = []
        lines: list[int] = []
        pos = self.start
        while pos < end:
            m = match(data, pos)
            if m is None:  # cannot happen for a section the parser checked
                raise ValueError(f"no hunk header at offset {pos}")
            nxt = find(b"\n@", pos, end)
            stop = end if nxt < 0 else nxt + 1
            g_old, g_old_count, g_new, g_new_count, _ = m.groups()
            spans.append(
                HunkSpan(
                    pos,
                    min(m.end() + 1, n),
                    stop,
                    int(g_old),
                    1 if g_old_count is None else int(g_old_count),
                    int(g_new),
                    1 if g_new_count is None else int(g_new_count),
                )
            )
            span = count(b"\n", pos, stop)
            if data[stop - 1] != 0x0A:
                span += 1  # an unterminated last line
            lines.append(span)
            pos = stop
        return spans, tuple(lines)

    def line_counts(self) -> tuple[int, ...]:
        """Lines of each hunk, header line included (measured while building)."""
        self._build()
        return self._line_counts

    # -- Sequence ----------------------------------------------------------------

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def __iter__(self) -> Iterator[Hunk]:
        return iter(self._build())

    @overload
    def __getitem__(self, index: int) -> Hunk: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Hunk]: ...

    def __getitem__(self, index: int | slice) -> Hunk | Sequence[Hunk]:
        if index == 0 and self._items is None and self._count:
            # the first hunk alone (file classification looks at it): no need to build all
            first = self._first
            if first is None:
                first = self._first = self._hunk_at(self.start, self._next_header(self.start))
            return first
        return self._build()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyHunks | tuple | list):
            return self._build() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._build())

    def __repr__(self) -> str:
        return f"LazyHunks({self.start}..{self.end}, {self._count} hunks)"

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (self._build(),))


@dataclass(frozen=True, slots=True)
class FileDiff:
    """One file's section: header lines, then hunks (or a binary payload)."""

    index: int  # position among the diff's files (0-based)
    start: int  # offset of the first header line (``diff --git``, ``Index:``, ``---``)
    header_end: int  # offset where the first hunk (or the binary payload) starts
    end: int  # offset just after the section
    kind: DiffKind
    status: FileStatus
    old_path: str | None  # None when the file is added (``/dev/null``)
    new_path: str | None  # None when the file is deleted
    # A tuple, or a :class:`LazyHunks` that builds the Hunk objects on first use.
    hunks: Sequence[Hunk] = ()
    added: int = 0
    removed: int = 0
    old_mode: str | None = None
    new_mode: str | None = None
    similarity: int | None = None  # rename/copy similarity index, percent
    is_binary: bool = False  # ``Binary files ... differ`` or ``GIT binary patch``
    binary_patch: bool = False  # carries a ``GIT binary patch`` payload (applies)
    is_submodule: bool = False  # a gitlink (mode 160000) change
    commit: int | None = None  # index into ParsedDiff.commits, for multi-commit streams
    # Path tokens as written in the ``---``/``+++`` lines (quoted, with prefix),
    # or synthesised from ``diff --git`` when those lines are absent.  The chunker
    # uses them to write a header for each continuation part of a split file.
    old_token: bytes = b""
    new_token: bytes = b""
    malformed: str | None = None  # why the section is suspect; it is still served
    # Lines of ``data[start:end]`` when the parser counted them (None: count them).
    line_count: int | None = None

    @property
    def path(self) -> str:
        """The path a reviewer knows the file by: the new path, else the old."""
        return self.new_path if self.new_path is not None else (self.old_path or "")

    @property
    def changed_lines(self) -> int:
        return self.added + self.removed

    @property
    def metadata_only(self) -> bool:
        """A real change without content lines: rename, copy, mode, binary, empty file."""
        return not self.hunks


def fast_constructor(cls: type[Any]) -> Callable[..., Any]:
    """A constructor for a frozen slots dataclass that writes the slots directly.

    Same parameters (names, order, defaults) as the class's ``__init__``, and
    an identical object, at about half the cost of the frozen ``__init__``
    (which goes through ``object.__setattr__`` for every field).  Only for
    classes without ``default_factory`` fields or ``__post_init__``; others
    get their own constructor back.
    """
    fields = dataclasses.fields(cls)
    if (
        not hasattr(cls, "__slots__")
        or hasattr(cls, "__post_init__")
        or any(f.default_factory is not dataclasses.MISSING for f in fields)
    ):
        return cls
    names = [f.name for f in fields]
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def make({', '.join(names)}):", "    obj = _new(_cls)"]
    for k, name in enumerate(names):
        env[f"_set{k}"] = vars(cls)[name].__set__
        lines.append(f"    _set{k}(obj, {name})")
    lines.append("    return obj")
    exec("\n".join(lines), env)  # the source is built from the field names above
    make: Callable[..., Any] = env["make"]
    defaults = [f.default for f in fields if f.default is not dataclasses.MISSING]
    make.__defaults__ = tuple(defaults)
    return make


#: ``FileDiff(...)`` at half the cost, for the parser's per-file hot path.
new_file_diff: Callable[..., FileDiff] = fast_constructor(FileDiff)


@dataclass(frozen=True, slots=True)
class Commit:
    """A commit header and message of a ``git log -p`` or format-patch stream."""

    index: int
    sha: str | None
    subject: str
    segment: int  # index into ParsedDiff.segments of its header+message text


@dataclass(frozen=True, slots=True)
class Segment:
    """Bytes between file sections: ``data[start:end]``."""

    start: int
    end: int
    kind: SegmentKind
    commit: int | None = None  # the commit whose header/message this is (COMMIT kind)
    note: str | None = None  # why it is MALFORMED


@dataclass(frozen=True, slots=True)
class ParsedDiff:
    """A parsed diff: the buffer and the sections that tile it."""

    data: DiffData
    files: tuple[FileDiff, ...]
    segments: tuple[Segment, ...]
    commits: tuple[Commit, ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def sections(self) -> list[FileDiff | Segment]:
        """Every section in input order; their spans tile ``[0, len(data))``."""
        items: list[FileDiff | Segment] = [*self.files, *self.segments]
        items.sort(key=lambda s: s.start)
        return items

    def raw(self, item: FileDiff | Segment | Hunk) -> bytes:
        return self.data[item.start : item.end]


# --------------------------------------------------------------------------
# Filtering and chunking results
# --------------------------------------------------------------------------


class ExcludeReason(str, Enum):
    TRIVIAL = "trivial"  # whitespace-only content change
    GENERATED = "generated"  # .gitattributes linguist-generated, or heuristics
    VENDORED = "vendored"  # .gitattributes linguist-vendored, or vendored trees
    PATTERN = "pattern"  # include_patterns / exclude_patterns


@dataclass(frozen=True, slots=True)
class Excluded:
    """A file of the diff left out of the chunks, and why."""

    path: str
    reason: ExcludeReason
    file_index: int
    detail: str | None = None  # e.g. "lockfile", "linguist-generated", "*.min.js"


# A piece of chunk text: a span ``(start, end)`` of ParsedDiff.data, or literal
# bytes the chunker had to write (a repeated header, a split hunk).
Piece = tuple[int, int] | bytes


class LookAhead(bytes):
    """The line a cut hunk's piece borrows as trailing context: the next line of
    the file as the earlier pieces leave it, which a later piece may still
    change or remove (so it has no line number in the new file yet)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class ChunkPart:
    """One file's share of a chunk (a whole file, or one part of a split file)."""

    file_index: int
    path: str
    pieces: tuple[Piece, ...]
    lines: int  # lines of diff text in this part (header lines included)
    part: int | None = None  # 1-based part number when the file is split
    parts: int | None = None  # how many parts the file was split into


@dataclass(frozen=True, slots=True)
class Chunk:
    number: int  # 1-based
    parts: tuple[ChunkPart, ...]
    line_count: int
    char_count: int  # bytes of chunk text; token_count is char_count // 4
    parent_file: str | None = None  # set when the chunk holds one part of a split file
    sub_chunk_index: int | None = None  # that part's 1-based number
    oversized: bool = False  # a single hunk line or binary payload exceeds the budget

    @property
    def files(self) -> list[str]:
        seen: dict[str, None] = {}
        for p in self.parts:
            seen.setdefault(p.path, None)
        return list(seen)

    @property
    def token_count(self) -> int:
        return self.char_count // 4

    @property
    def file_line_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for p in self.parts:
            counts[p.path] = counts.get(p.path, 0) + p.lines
        return counts
