"""One hunk model (:class:`Hunk`), the one reader and writer of its ``@@`` header,
and the lazily built hunks of a file section (:class:`LazyHunks`).

A hunk is a span of the diff buffer: its header line, then its body.  The
header of a two-way hunk (git, GNU diff, svn, hg) reads::

    header  = "@@ -" range " +" range " @@" tail
    range   = start ["," count]        ; a missing count means 1
    start   = 1*18DIGIT                ; count likewise
    tail    = *(any byte but LF) [LF]  ; the function context ("section"), may be empty

:func:`read_hunk_header` reads it (for the parser, the lazy hunks, context
reduction and the chunker; :func:`read_start_line` reads one side's start
alone, for the filters); :func:`format_hunk_header` writes one the way git
does.  The lazy check of a whole file's hunks scans
for the same grammar with one regular expression
(:data:`~diffchunk.diff.syntax.HUNK_SCAN`), built from the same range pattern.
Combined hunks (``@@@``) have their own grammar, read in
:mod:`diffchunk.diff.parser.combined`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, AnyStr, NamedTuple, overload

from diffchunk.diff import syntax as sx
from diffchunk.diff.buffer import DiffData
from diffchunk.diff.frozen import fast_constructor

MAX_LINE_NUMBER = 10**18 - 1
"""The largest line number or count a hunk header may hold: the parser reads at
most 18 digits, so a header written with a larger number would not read back
(context reduction keeps such hunks as written)."""


__all__ = [
    "Hunk",
    "HunkHeader",
    "HunkRange",
    "LazyHunks",
    "format_hunk_header",
    "header_tail",
    "new_hunk",
    "number_lines",
    "read_hunk_header",
    "read_start_line",
    "section_text",
]


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


class HunkRange(NamedTuple):
    """A hunk's line ranges on each side, as its header gives them (a count may be 0):
    what the review record keeps of a hunk, and what its export document lists.

    A tuple, not a dataclass: a large review has tens of thousands of them.
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int

    def span(self, side: str) -> tuple[int, int] | None:
        """``(first, last)`` line numbers on ``side`` (``new`` or ``old``); None when the
        hunk has no lines there."""
        start, count = (
            (self.new_start, self.new_count) if side == "new" else (self.old_start, self.old_count)
        )
        return (start, start + count - 1) if count > 0 else None

    def holds(self, side: str, first: int, last: int) -> bool:
        """Whether lines ``first``..``last`` of ``side`` all lie in this hunk."""
        start, count = (
            (self.new_start, self.new_count) if side == "new" else (self.old_start, self.old_count)
        )
        return start <= first and last <= start + count - 1

    def to_dict(self) -> dict[str, int]:
        return {
            "old_start": self.old_start,
            "old_count": self.old_count,
            "new_start": self.new_start,
            "new_count": self.new_count,
        }


#: ``Hunk(...)`` at half the cost (see :mod:`diffchunk.diff.frozen`).
new_hunk: Callable[..., Hunk] = fast_constructor(Hunk)


class HunkHeader(NamedTuple):
    """What a two-way hunk header says, and where its parts are."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    tail: int  # offset just after the closing ``@@`` (the function context follows)
    line_end: int  # offset of the ``\n`` ending the header line (the data's end when none)


# What ``HunkHeader(...)`` runs, without its Python-level ``__new__``: 0.12
# instead of 0.25 us, for a function the chunker calls for every hunk it cuts.
_new_header = tuple.__new__


def read_hunk_header(data: DiffData | bytearray, pos: int) -> HunkHeader | None:
    """The two-way hunk header at ``pos`` (grammar in the module doc), or None."""
    m = sx.HUNK_HEADER.match(data, pos)
    if m is None:
        return None
    old_start, old_count, new_start, new_count, _ = m.groups()
    tail, line_end = m.span(5)
    return _new_header(
        HunkHeader,
        (
            int(old_start),
            1 if old_count is None else int(old_count),
            int(new_start),
            1 if new_count is None else int(new_count),
            tail,
            line_end,
        ),
    )


def read_start_line(data: DiffData | bytearray, pos: int, *, old: bool) -> int | None:
    """The start line of one side of the two-way hunk header at ``pos`` (the old
    side when ``old``), or None when there is none: what
    :func:`read_hunk_header` reads, without the rest, for a header known to be
    well-formed, such as the first of :class:`LazyHunks` (the filters ask it
    of every file: 0.37 us instead of 1.2)."""
    m = sx.HUNK_HEADER_START.match(data, pos)
    return None if m is None else int(m.group(1 if old else 3))


def section_text(data: DiffData | bytearray, header: HunkHeader) -> str:
    """The function context of a two-way header, stripped ("" when none)."""
    raw = data[header.tail : header.line_end].strip()
    return raw.decode("utf-8", errors="replace") if raw else ""


# What the first column of a two-way hunk's body line says (see number_lines).
_BOTH, _ADDED, _REMOVED, _NOTE, _OTHER = range(5)
_KINDS: dict[Any, int] = {
    **{" ": _BOTH, "": _BOTH, "\n": _BOTH, "+": _ADDED, "-": _REMOVED, "\\": _NOTE},
    **{b" ": _BOTH, b"": _BOTH, b"\n": _BOTH, b"+": _ADDED, b"-": _REMOVED, b"\\": _NOTE},
}


def number_lines(
    lines: Iterable[AnyStr],
    old: int,
    new: int,
    *,
    columns: int = 1,
    old_count: int | None = None,
    new_count: int | None = None,
) -> Iterator[tuple[AnyStr, int, int]]:
    """The lines of one hunk's body (``str`` or ``bytes``, line ends kept or not), each
    with its line numbers: ``(line, old, new)``, a number being 0 on a side the line is
    not on.  ``old`` and ``new`` are the header's starts.  The one numbering of a
    body's lines: the review record and the HTML export read a hunk's lines through
    it.

    - Two-way hunk (``columns`` 1): ``+`` is on the new side only, ``-`` on the
      old side only, a space (or nothing: an empty context line) on both, a
      ``\\`` note ("No newline at end of file") on neither.  Any other line
      ends the body (it is not the hunk's); so does using up the header's
      counts, when ``old_count`` and ``new_count`` are given (the lines after
      are the next header or file; a note right after the last line is left
      to the caller).
    - Combined hunk (``columns``: one per parent): a ``\\`` note is on neither
      side; another line is on the new side unless one of its columns holds
      ``-``, on the (first) old side unless one holds ``+``; every line is read.
    """
    if columns > 1:
        yield from _number_combined(lines, old, new, columns)
        return
    counted = old_count is not None and new_count is not None
    old_left = old_count or 0
    new_left = new_count or 0
    if counted and old_left <= 0 and new_left <= 0:
        return
    kind_of = _KINDS.get
    for line in lines:
        kind = kind_of(line[:1], _OTHER)
        if kind == _BOTH:
            yield line, old, new
            old += 1
            new += 1
            old_left -= 1
            new_left -= 1
        elif kind == _ADDED:
            yield line, 0, new
            new += 1
            new_left -= 1
        elif kind == _REMOVED:
            yield line, old, 0
            old += 1
            old_left -= 1
        elif kind == _NOTE:
            yield line, 0, 0
            continue
        else:
            return
        if old_left <= 0 and new_left <= 0 and counted:
            return


def _number_combined(
    lines: Iterable[AnyStr], old: int, new: int, columns: int
) -> Iterator[tuple[AnyStr, int, int]]:
    """:func:`number_lines` of a combined hunk (see there)."""
    for line in lines:
        if _KINDS.get(line[:1]) == _NOTE:
            yield line, 0, 0
            continue
        tags = line[:columns]
        plus, minus = ("+", "-") if isinstance(line, str) else (b"+", b"-")
        on_old, on_new = plus not in tags, minus not in tags
        yield line, old if on_old else 0, new if on_new else 0
        old += on_old
        new += on_new


def header_tail(data: DiffData, hunk: Hunk) -> bytes:
    """What follows the closing ``@@`` of a two-way hunk's header, its newline
    included (one is added when the header line has none).

    Where :func:`read_hunk_header` finds its ``tail``, without reading the
    numbers (the chunker asks it of every hunk it moves: 0.4 us instead of 1.2).
    """
    m = sx.HUNK_HEADER.match(data, hunk.start)
    tail = data[m.start(5) : hunk.body_start] if m is not None else b"\n"
    return tail if tail.endswith(b"\n") else tail + b"\n"


def _range(start: int, count: int) -> bytes:
    # Sound input always gives 0 <= start <= MAX_LINE_NUMBER; a start beyond
    # (a header with impossible numbers, cut) is written as near as it can be.
    start = min(max(start, 0), MAX_LINE_NUMBER)
    return b"%d" % start if count == 1 else b"%d,%d" % (start, count)


def format_hunk_header(
    old_start: int, old_count: int, new_start: int, new_count: int, tail: bytes = b"\n"
) -> bytes:
    """``@@ -a,b +c,d @@`` the way git writes it (a count of 1 is omitted).

    ``tail`` is what follows the closing ``@@``: b"\\n", or b" def f():\\n".
    For a side with no lines, pass the line *before* the change as its start.
    A start outside 0..10**18-1 is written as the nearest of those.
    """
    return b"@@ -%s +%s @@%s" % (_range(old_start, old_count), _range(new_start, new_count), tail)


class LazyHunks(Sequence[Hunk]):
    """The two-way hunks of one file section, built on first use.

    The parser checked the section at load time (see
    :func:`diffchunk.diff.parser.hunks.check_hunks`): every line of
    ``data[start:end]`` is a hunk header, a ``' '``/``'+'``/``'-'`` line or a
    ``\\`` marker line, every line starting with ``@`` is a well-formed ``@@``
    header, and each hunk's lines, up to the next header, make exactly its
    header counts.  So the hunks are exactly the spans from one header to the
    next, and building them can wait until a consumer iterates or indexes.
    ``len()`` and truthiness use the known count.

    The same check gives a built hunk's ``added`` and ``removed`` without
    reading its lines by kind: a body of ``L`` lines, ``M`` of them marker
    lines, that holds exactly ``old`` old and ``new`` new lines has
    ``L - M - old`` added and ``L - M - new`` removed lines (context lines
    are on both sides).  The markers are counted only in a section that has
    any (``marks``, known from the check).
    """

    __slots__ = ("_count", "_first", "_items", "_line_counts", "_marks", "data", "end", "start")

    def __init__(
        self, data: DiffData | bytearray, start: int, end: int, count: int, marks: int
    ) -> None:
        self.data = data
        self.start = start  # offset of the first ``@@`` line
        self.end = end  # offset just after the last hunk
        self._count = count
        self._marks = marks  # ``\`` marker lines in the section
        self._items: tuple[Hunk, ...] | None = None
        self._line_counts: tuple[int, ...] = ()
        self._first: Hunk | None = None

    def rebind(self, data: DiffData | bytearray) -> None:
        """Read the hunks from ``data`` from now on: the same bytes at the same
        offsets (the whole diff after a streamed parse), or ``b""`` to let go
        of a buffer nobody reads through these hunks any more."""
        self.data = data

    # -- building --------------------------------------------------------------

    def _hunk_at(self, pos: int, end: int, lines: list[int] | None = None) -> Hunk:
        """The hunk whose header is at ``pos`` and whose body ends at ``end``.

        Appends the hunk's line count (header included) to ``lines``.
        """
        data = self.data
        header = read_hunk_header(data, pos)
        if header is None:  # cannot happen for a section the parser checked
            raise ValueError(f"no hunk header at offset {pos}")
        body_start = min(header.line_end + 1, len(data))
        count = data.count
        span = count(b"\n", pos, end)
        if end > pos and data[end - 1] != 0x0A:
            span += 1  # an unterminated last line
        if lines is not None:
            lines.append(span)
        # The body's lines less its markers; see the class doc for why this gives
        # the added and removed lines.
        content = span - 1 - (count(b"\n\\", body_start - 1, end) if self._marks else 0)
        added = content - header.old_count
        removed = content - header.new_count
        return new_hunk(
            pos,
            body_start,
            end,
            header.old_start,
            header.old_count,
            header.new_start,
            header.new_count,
            added,
            removed,
            section_text(data, header),
        )

    def _next_header(self, pos: int) -> int:
        """Start of the header after the one at ``pos`` (or the section end)."""
        nxt = self.data.find(b"\n@", pos, self.end)
        return self.end if nxt < 0 else nxt + 1

    def _build(self) -> tuple[Hunk, ...]:
        return self.with_line_counts()[0]

    @property
    def marks(self) -> int:
        """``\\`` marker lines in the section (what :class:`~diffchunk.diff.table.FileTable`
        keeps, with the count, to build the hunks again)."""
        return self._marks

    @property
    def materialised(self) -> bool:
        return self._items is not None

    def with_line_counts(self, *, keep: bool = True) -> tuple[tuple[Hunk, ...], tuple[int, ...]]:
        """The hunks, and the lines of each, header line included.

        ``keep=False``: hunks built for this call are not kept (a pass that
        needs them once, such as cutting a big file into parts, leaves the
        file as light as it found it).
        """
        if self._items is not None:
            return self._items, self._line_counts
        out: list[Hunk] = []
        lines: list[int] = []
        pos, end = self.start, self.end
        find = self.data.find
        while pos < end:
            nxt = find(b"\n@", pos, end)  # the next header (see _next_header)
            stop = end if nxt < 0 else nxt + 1
            out.append(self._hunk_at(pos, stop, lines))
            pos = stop
        items, line_counts = tuple(out), tuple(lines)
        if keep:
            self._items, self._line_counts = items, line_counts
            self._first = None
        return items, line_counts

    def line_counts(self) -> tuple[int, ...]:
        """Lines of each hunk, header line included (measured while building)."""
        return self.with_line_counts()[1]

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


def hunks_once(hunks: Sequence[Hunk]) -> Sequence[Hunk]:
    """A file's hunks for one pass: a lazy section's are built for this call only, not
    kept with the file (a pass over every file of a large diff would keep them all)."""
    return hunks.with_line_counts(keep=False)[0] if isinstance(hunks, LazyHunks) else hunks
