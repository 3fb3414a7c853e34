"""A line too long to read whole, read piece by piece.

A line longer than a window of the reader (a one-line log or minified JSON
of gigabytes: a :class:`~.byte_reader.LongLine` of a walk) is never held whole:
it is read in pieces of :data:`LONG_LINE_PIECE_BYTES` bytes (with an incremental
decoder where it is decoded), and memory stays at a few pieces.

- :func:`line_matches`: whether a search's matcher finds its pattern in
  such a line (the scan of ``search_content``);
- :func:`long_line_match`: a result's few hundred characters around the
  match, for any matched line longer than :data:`PIECEWISE_LINE_BYTES`.

Each gives what the whole line would give, with one exception: a regex
match longer than :data:`_OVERLAP_CHARS` characters that straddles two
pieces (see :func:`long_line_match`).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..limits import LONG_LINE_PIECE_BYTES, MAX_SUBMATCHES
from .access import FileVersion
from .byte_reader import LongLine
from .matchers import Literal, Matcher, TextMatcher

_OVERLAP_CHARS = 1 << 16
"""Characters two pieces overlap: a match this short that straddles two pieces
is still found."""


Spans = list[tuple[int, int]]
Scored = tuple[float, int, int]


@dataclass
class LongLineMatch:
    shown: str  # ``width`` characters of the line, from ``shift``
    spans: Spans  # character spans of the pattern in the whole line (at most 50)
    shift: int
    length: int  # the line's length in characters


def content_end(version: FileVersion, line: LongLine) -> int:
    """Where the text of a long line ends (before its ``\\r\\n`` or ``\\n``)."""
    stop = line.stop - 1 if line.terminated else line.stop
    if stop > line.start and version.data[stop - 1 : stop] == b"\r":
        stop -= 1
    return stop


def line_matches(
    version: FileVersion,
    line: LongLine,
    matcher: Matcher,
    each_piece: Callable[[int], None] | None = None,
) -> bool:
    """Whether ``matcher`` finds its pattern in ``line`` (as in the line alone, without
    its line ending), read in pieces; ``each_piece(bytes)`` is called before each
    (a regex search's time budget is per piece, as it is per window)."""
    stop = content_end(version, line)
    if isinstance(matcher, TextMatcher):
        return _text_matches(version, line.start, stop, matcher, each_piece)
    assert isinstance(matcher, Literal)
    overlap = max(0, len(matcher.needle) - 1)
    pos = line.start
    while pos < stop:
        piece = version.data.read(pos, min(stop, pos + LONG_LINE_PIECE_BYTES + overlap))
        hay = matcher.prepare(piece, len(piece))
        if matcher.find(hay, 0, len(hay)) >= 0:
            return True
        pos += LONG_LINE_PIECE_BYTES
    return False


_SEES_PAST_ITS_END = re.compile(r"\$|\\[bBZz]|\(\?<?[=!]")
"""Regex constructs whose match depends on the text around it (``$``, ``\\b``,
``\\B``, ``\\Z``, lookarounds): the end of a piece is not the end of the line."""


def _text_matches(
    version: FileVersion,
    start: int,
    stop: int,
    matcher: TextMatcher,
    each_piece: Callable[[int], None] | None,
) -> bool:
    """:func:`line_matches` for a pattern searched in the decoded text: each piece
    with the last :data:`_OVERLAP_CHARS` characters of the one before.  A match at
    the very start of a piece that is not the line's start was the search
    before's to find (``^`` and ``\\A`` see a start there); one at the very end of
    a piece that is not the line's end is left to the next search when the
    pattern looks past its end (a greedy match with no such construct stands:
    more text after it cannot undo it)."""
    sees_ahead = (
        matcher.kind == "regex" and _SEES_PAST_ITS_END.search(matcher.pattern.text) is not None
    )
    decoder = codecs.getincrementaldecoder(matcher.encoding)(errors="replace")
    back = ""
    pos = start
    while pos < stop:
        end = min(pos + LONG_LINE_PIECE_BYTES, stop)
        final = end >= stop
        if each_piece is not None:
            each_piece(end - pos)
        text = decoder.decode(version.data.read(pos, end), final)
        region = back + text
        data = region.encode("utf-8", "surrogatepass")
        for s, e in matcher.pattern.iter_spans(data):
            if (s == 0 and pos > start) or (sees_ahead and e == len(data) and not final):
                continue  # decided by the search before or after this one
            return True
        back = region[-_OVERLAP_CHARS:]
        pos = end
    return False


def matched_line_end(version: FileVersion, offset: int) -> int:
    """Where the text of the line at ``offset`` ends (before its ``\\r\\n`` or ``\\n``)."""
    nl = version.data.find(b"\n", offset, version.end)
    stop = version.end if nl < 0 else nl
    if stop > offset and version.data[stop - 1 : stop] == b"\r":
        stop -= 1
    return stop


def long_line_match(
    version: FileVersion,
    start: int,
    stop: int,
    spans_of: Callable[[str], Spans],
    *,
    width: int,
    best_of: Callable[[str], Scored | None] | None = None,
) -> LongLineMatch:
    """The pattern's spans in the line ``data[start:stop]`` and ``width`` characters
    from a quarter of ``width`` before the first span (the line's start when
    there is none), read in pieces.  The decoding goes on to the line's end
    for its length in characters; memory stays at a few pieces.

    ``spans_of`` is searched over each piece with the last
    :data:`_OVERLAP_CHARS` characters of the one before; a span found at the
    very start or end of a piece that is not the line's own start or end is
    left to the neighbouring search, so ``^``/``$`` and greedy matches are
    not cut at a piece boundary.  A match longer than the overlap that
    straddles a boundary is the one exception: its span ends there.

    With ``best_of`` (``(score, start, end)`` of the best place in a text, a
    fuzzy alignment) instead, the one span is the best-scoring place of the
    whole line (the first of equal ones).
    """
    decoder = codecs.getincrementaldecoder(version.data_encoding)(errors="replace")
    walk = _Walk(width)
    pos = start
    while True:
        end = min(pos + LONG_LINE_PIECE_BYTES, stop)
        final = end >= stop
        text = decoder.decode(version.data[pos:end], final)
        region_at, region = walk.region(text)
        if best_of is not None:
            walk.take_best(best_of(region), region_at)
        elif len(walk.spans) < MAX_SUBMATCHES:
            walk.take_spans(spans_of(region), region, region_at, final)
        walk.advance(text)
        pos = end
        if final:
            return walk.result()


class _Walk:
    """What :func:`long_line_match` keeps while it walks a line's pieces."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.spans: Spans = []
        self.reported_to = 0  # a span must start at or after the end of the last one
        self.back = ""  # the text before the current piece: its last overlap-and-width characters
        self.at = 0  # character position of the current piece's first character
        self.head = ""  # the line's first ``width`` characters
        self.tail = ""  # its last ``width`` characters so far
        self.wanted: int | None = None  # where the shown text starts, once a span is found
        self.best = -1.0
        self.window = ""

    def region(self, text: str) -> tuple[int, str]:
        """The text searched for this piece: the overlap before it, then ``text``."""
        keep = min(len(self.back), _OVERLAP_CHARS)
        return self.at - keep, self.back[len(self.back) - keep :] + text

    def take_best(self, scored: Scored | None, region_at: int) -> None:
        """Keep the region's best place when it beats the line's best so far."""
        if scored is not None and scored[0] > self.best and scored[2] > scored[1]:
            self.best = scored[0]
            self.spans = [(region_at + scored[1], region_at + scored[2])]
            self.wanted = None  # shown around the new best place

    def take_spans(self, found: Spans, region: str, region_at: int, final: bool) -> None:
        """Add the region's spans that this search decides (see long_line_match)."""
        again = len(region) - _OVERLAP_CHARS  # the next search starts here
        for s, e in found:
            if region_at + s < self.reported_to or (s == 0 and region_at > 0):
                continue  # found by the previous search (or cut by this one's start)
            if e == len(region) and not final and s > again:
                continue  # at this piece's end: the next search decides
            self.spans.append((region_at + s, region_at + e))
            self.reported_to = region_at + e
            if len(self.spans) >= MAX_SUBMATCHES:
                break

    def advance(self, text: str) -> None:
        """Keep what showing the line needs of the piece ``text``, and move past it."""
        width = self.width
        if self.wanted is None and self.spans:
            self.wanted = max(0, self.spans[0][0] - width // 4)
            # back reaches a quarter width before any span found (or to the line's start)
            both_at = self.at - len(self.back)
            offset = self.wanted - both_at
            self.window = (self.back + text)[offset : offset + width]
        elif self.wanted is not None and len(self.window) < width:
            self.window += text[: width - len(self.window)]
        if len(self.head) < width:
            self.head += text[: width - len(self.head)]
        self.tail = (self.tail + text[-width:])[-width:]
        self.at += len(text)
        self.back = (self.back + text)[-(_OVERLAP_CHARS + width) :]

    def result(self) -> LongLineMatch:
        length = self.at
        if self.wanted is None:
            return LongLineMatch(shown=self.head, spans=self.spans, shift=0, length=length)
        shift = max(0, min(self.wanted, length - self.width))
        if shift == self.wanted:
            shown = self.window
        else:
            shown = self.tail[len(self.tail) - (length - shift) :]
        return LongLineMatch(shown=shown, spans=self.spans, shift=shift, length=length)
