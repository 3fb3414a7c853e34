"""A matched line too long to decode whole, read piece by piece.

A search result shows a few hundred characters of its line around the
match.  A matched line longer than :data:`PIECEWISE_LINE_BYTES` (a
one-line log or minified JSON of gigabytes) is never decoded whole: it is
read in pieces of :data:`_PIECE_BYTES` bytes with an incremental decoder,
and memory stays at a few pieces.  :func:`long_line_match` gives what the
whole line would give (see its docstring for the one exception).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from dataclasses import dataclass

from ..limits import LONG_LINE_OVERLAP_CHARS as _OVERLAP_CHARS
from ..limits import LONG_LINE_PIECE_BYTES as _PIECE_BYTES
from ..limits import MAX_SUBMATCHES
from .access import FileVersion

Spans = list[tuple[int, int]]
Scored = tuple[float, int, int]


@dataclass
class LongLineMatch:
    shown: str  # ``width`` characters of the line, from ``shift``
    spans: Spans  # character spans of the pattern in the whole line (at most 50)
    shift: int
    length: int  # the line's length in characters


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
        end = min(pos + _PIECE_BYTES, stop)
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
