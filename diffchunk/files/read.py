"""Reading lines of a file version: by number, from either end, by block.

Line numbers follow ``sed -n`` (see :mod:`.lineindex`).  ``head`` and
``tail`` never build the line index: head reads from the start, tail scans
backwards from the end with ``rfind``.  Their ``total_lines`` comes from the
index when it already exists, is counted when the file is at most
:data:`COUNT_FOR_TOTAL` bytes, and is otherwise ``None`` (with a warning).

Content is returned with ``\\n`` line breaks (a ``\\r`` before a ``\\n`` is
dropped; a lone ``\\r`` is kept) and lines longer than
:data:`LONG_LINE_CHARS` characters are cut with a visible marker.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from .access import FileVersion
from .reader import Buffer, last_lines_start, skip_lines

LONG_LINE_CHARS = max(100, int(os.environ.get("DIFFCHUNK_LONG_LINE_CHARS", "") or 1000))
"""Lines longer than this are truncated in read results and counted as long
(``DIFFCHUNK_LONG_LINE_CHARS`` changes it; at least 100)."""

COUNT_FOR_TOTAL = 64 * 1024 * 1024

BACKWARD_SCAN_LINES = 20_000
"""Reads this close to the end seek backwards from the end instead of indexing."""
"""head/tail count all lines for ``total_lines`` only up to this file size."""


@dataclass(slots=True)
class Lines:
    """A run of whole lines: text plus where it sits."""

    text: str
    start_line: int | None
    end_line: int | None
    count: int
    long_lines_cut: int = 0
    warnings: list[str] = field(default_factory=list)


def cut_long(line: str, limit: int = LONG_LINE_CHARS) -> tuple[str, bool]:
    """``line`` cut to ``limit`` characters with a marker saying how much was left out."""
    if len(line) <= limit:
        return line, False
    return f"{line[:limit]}… [line truncated: {len(line) - limit} more characters]", True


WHOLE_LINE_BYTES = 1 << 16
"""Lines up to this many bytes are decoded whole before being cut."""


def short_line(
    version: FileVersion, raw: Buffer, start: int, stop: int, limit: int
) -> tuple[str, bool]:
    """Line ``raw[start:stop]`` (no newline) as text, cut to ``limit`` characters.

    A line up to :data:`WHOLE_LINE_BYTES` is decoded whole (the marker counts
    the characters left out); a longer one only as far as ``limit``
    characters can reach (the marker counts bytes): a line of hundreds of
    megabytes (minified JSON) must not be decoded whole.
    """
    cap = max(limit * 4 + 4, WHOLE_LINE_BYTES)
    if stop - start <= cap:
        text = version.decode(raw[start:stop])
        if text.endswith("\r"):
            text = text[:-1]
        return cut_long(text, limit)
    if raw[stop - 1 : stop] == b"\r":
        stop -= 1  # the line ending's CR is not content
    kept = version.decode(raw[start : start + cap])[:limit]
    more = stop - start - len(kept.encode(version.data_encoding, errors="replace"))
    return f"{kept}… [line truncated: {more} more bytes]", True


def decode_lines(
    version: FileVersion, raw: bytes | bytearray, limit: int = LONG_LINE_CHARS
) -> tuple[str, int, int]:
    """``(text, lines, cut)``: ``raw`` (whole lines) as text with long lines cut."""
    if not raw:
        return "", 0, 0
    end = len(raw) - 1 if raw.endswith(b"\n") else len(raw)
    parts = []
    cut = 0
    pos = 0
    while True:
        nl = raw.find(b"\n", pos, end)
        stop = end if nl < 0 else nl
        text, was_cut = short_line(version, raw, pos, stop, limit)
        parts.append(text)
        cut += was_cut
        if nl < 0:
            break
        pos = nl + 1
    return "\n".join(parts), len(parts), cut


def _line_end(version: FileVersion, offset: int) -> tuple[int, int]:
    """Where the line at ``offset`` ends (its ``\n``, or the end) and the next one starts."""
    nl = version.data.find(b"\n", offset, version.end)
    return (version.end, version.end) if nl < 0 else (nl, nl + 1)


def _context_line(version: FileVersion, offset: int) -> tuple[str, int]:
    """The line at ``offset`` cut to 500 characters, and the next line's offset."""
    stop, following = _line_end(version, offset)
    return short_line(version, version.data, offset, stop, 500)[0], following


def neighbours(
    version: FileVersion, offset: int, before: int, after: int
) -> tuple[list[str], list[str]]:
    """Up to ``before`` lines before and ``after`` lines after the line at ``offset``."""
    data = version.data
    start = version.start
    first = offset
    for _ in range(before):
        if first <= start:
            break
        prev = data.rfind(b"\n", start, first - 1)
        first = start if prev < 0 else prev + 1
    before_lines: list[str] = []
    pos = first
    while pos < offset:
        text, pos = _context_line(version, pos)
        before_lines.append(text)
    after_lines: list[str] = []
    pos = _line_end(version, offset)[1]  # past the matched line, undecoded
    for _ in range(after):
        if pos >= version.end:
            break
        text, pos = _context_line(version, pos)
        after_lines.append(text)
    return before_lines, after_lines


def known_total(version: FileVersion) -> int | None:
    """Line count if cheap: already known, or counted for smaller files."""
    if version.index_built or "line_count" in version.cache or version.size <= COUNT_FOR_TOTAL:
        return version.line_count()
    return None


def read_lines(version: FileVersion, first: int, limit: int) -> Lines:
    """Lines ``first`` .. ``first + limit - 1`` (1-based).

    Near the end of a file whose index is not built yet, the start is found
    by scanning backwards from the end (with the line count from
    :meth:`FileVersion.line_count`); otherwise the line index is used.
    """
    data: Buffer = version.data
    total = version.line_count()
    from_end = total - first + 1
    if not version.index_built and 0 < from_end <= BACKWARD_SCAN_LINES:
        start = last_lines_start(data, version.start, version.end, from_end)
    else:
        start = version.line_index().line_start(data, first)
    end = skip_lines(data, start, limit, version.end)
    text, count, cut = decode_lines(version, data[start:end])
    return Lines(text, first if count else None, first + count - 1 if count else None, count, cut)


def read_head(version: FileVersion, limit: int) -> Lines:
    """The first ``limit`` lines, without an index."""
    data = version.data
    end = skip_lines(data, version.start, limit, version.end)
    text, count, cut = decode_lines(version, data[version.start : end])
    return Lines(text, 1 if count else None, count if count else None, count, cut)


def read_tail(version: FileVersion, limit: int) -> Lines:
    """The last ``limit`` lines, scanning backwards from the end of the file."""
    data = version.data
    start = last_lines_start(data, version.start, version.end, limit)
    text, count, cut = decode_lines(version, data[start : version.end])
    total = known_total(version)
    lines = Lines(text, None, None, count, cut)
    if total is not None and count:
        lines.start_line = total - count + 1
        lines.end_line = total
    elif count:
        lines.warnings.append(
            "start_line/end_line/total_lines are not computed for tail reads of files over "
            f"{COUNT_FOR_TOTAL // (1024 * 1024)} MB (it would mean counting every line); "
            "call get_overview or read with mode='lines' once to count them."
        )
    return lines


# -- a matched line too long to decode whole -------------------------------------------

Spans = list[tuple[int, int]]

PIECEWISE_LINE_BYTES = 4 << 20
"""A matched line longer than this (in bytes) is decoded piece by piece
(:func:`long_line_match`), never whole: a one-line log of gigabytes would
otherwise be held as one string several times its size."""

_PIECE_BYTES = 1 << 20
_OVERLAP_CHARS = 1 << 16  # a match this short that straddles two pieces is still found
_MAX_SPANS = 50

Scored = tuple[float, int, int]


@dataclass
class LongLineMatch:
    shown: str  # ``width`` characters of the line, from ``shift``
    spans: Spans  # character spans of the pattern in the whole line (at most 50)
    shift: int
    length: int  # the line's length in characters


def matched_line_end(version: FileVersion, offset: int) -> int:
    """Where the text of the line at ``offset`` ends (before its ``\\r\\n`` or ``\\n``)."""
    stop = _line_end(version, offset)[0]
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
    data = version.data
    spans: Spans = []
    reported_to = 0  # a span must start at or after the end of the last one
    back = ""  # the text before the current piece: its last overlap-and-width characters
    at = 0  # character position of the current piece's first character
    head = ""  # the line's first ``width`` characters
    tail = ""  # its last ``width`` characters so far
    wanted: int | None = None  # where the shown text starts, once a span is found
    best = -1.0
    window = ""
    pos = start
    while True:
        end = min(pos + _PIECE_BYTES, stop)
        final = end >= stop
        text = decoder.decode(data[pos:end], final)
        keep = min(len(back), _OVERLAP_CHARS)
        region_at = at - keep
        region = back[len(back) - keep :] + text
        if best_of is not None:
            scored = best_of(region)
            if scored is not None and scored[0] > best and scored[2] > scored[1]:
                best = scored[0]
                spans = [(region_at + scored[1], region_at + scored[2])]
                wanted = None  # shown around the new best place
        elif len(spans) < _MAX_SPANS:
            again = len(region) - _OVERLAP_CHARS  # the next search starts here
            for s, e in spans_of(region):
                if region_at + s < reported_to or (s == 0 and region_at > 0):
                    continue  # found by the previous search (or cut by this one's start)
                if e == len(region) and not final and s > again:
                    continue  # at this piece's end: the next search decides
                spans.append((region_at + s, region_at + e))
                reported_to = region_at + e
                if len(spans) >= _MAX_SPANS:
                    break
        if wanted is None and spans:
            wanted = max(0, spans[0][0] - width // 4)
            # back reaches a quarter width before any span found (or to the line's start)
            both_at = at - len(back)
            window = (back + text)[wanted - both_at : wanted - both_at + width]
        elif wanted is not None and len(window) < width:
            window += text[: width - len(window)]
        if len(head) < width:
            head += text[: width - len(head)]
        tail = (tail + text[-width:])[-width:]
        at += len(text)
        back = (back + text)[-(_OVERLAP_CHARS + width) :]
        pos = end
        if final:
            break
    length = at
    if wanted is None:
        return LongLineMatch(shown=head, spans=spans, shift=0, length=length)
    shift = max(0, min(wanted, length - width))
    shown = window if shift == wanted else tail[len(tail) - (length - shift) :]
    return LongLineMatch(shown=shown, spans=spans, shift=shift, length=length)
