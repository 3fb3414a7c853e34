"""Fuzzy matching: every approximate comparison the file tools make, in one place.

The file tools ask two fuzzy questions, with one set of rules:

- *Which lines hold something like this one-line pattern?*  ``search_content``
  with ``fuzzy=True``, ``read_content``'s ``pattern``: :func:`similar_lines`
  here.  Measure: rapidfuzz ``partial_ratio`` (the best-aligned part of the
  line), case ignored, the ``\\r`` of a CRLF ending left out; a line holding
  the pattern scores 100 and is typed "exact".  Cutoff :data:`LINE_CUTOFF`
  (:data:`SHORT_CUTOFF` for patterns of up to :data:`SHORT_PATTERN`
  characters: one typo costs them more).
- *Which run of whole lines is most like this search text?*  The edit
  matcher (:mod:`.fuzzy_block`).  Measure: rapidfuzz ``ratio`` (InDel) over
  lines normalised by :func:`normalise`.

What both share, and the only place that does it:

- **The measures** (:func:`partial_ratio`, :func:`ratio`,
  :func:`best_alignment`, :func:`rank`): no other module imports rapidfuzz.
- **The length bound** (:func:`length_bounds`): a text of ``n`` characters
  can reach a cutoff ``c`` only against texts of at least
  ``n * c / (200 - c)`` characters (and, for ``ratio``, at most
  ``n * (200 - c) / c``).  The line search skips lines below it (a short
  line would otherwise align inside a long pattern and score 100); the
  block search compares long anchor lines only with lines within it.
- **The prefilter: exact anchors.**  A text within a few edits of another
  holds one of ``edits + 1`` disjoint pieces of it exactly (the pigeonhole
  principle), so only lines holding an *anchor* are scored.  The line
  search anchors on :func:`pieces` of the pattern, found as bytes in the
  reader's line windows (:func:`lines_holding`); the block search of a big
  file on the search text's longest words (:func:`anchor_words`), found by
  the exact scan (:mod:`.scan`).
- **A time budget**: the line search stops after :data:`FUZZY_TIME_BUDGET`
  seconds and says where (``Found.stopped_line``).
- **Bounded memory**: a line too long for a window of the reader (a
  :class:`~.byte_reader.LongLine`) is scored piece by piece
  (:func:`_score_long_line`), never decoded whole.
"""

from __future__ import annotations

import heapq
import re
import time
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import AnyStr, cast

from rapidfuzz import fuzz, process

from ..limits import LONG_LINE_PIECE_BYTES
from .access import FileVersion
from .byte_reader import LongLine, Window, skip_lines
from .longline import content_end
from .matchers import Found, Hit

LINE_CUTOFF = 80.0
"""Lowest ``partial_ratio`` (0-100) a fuzzy search result may have."""

SHORT_PATTERN = 6
"""Patterns up to this many characters use SHORT_CUTOFF..."""

SHORT_CUTOFF = 75.0
"""...a lower cutoff: one typo costs more of a short pattern's score."""

FUZZY_TIME_BUDGET = 10.0
"""Seconds a fuzzy line search may take; then it stops and reports the lines it
covered."""

FUZZY_CHECK_EVERY = 4096
"""Anchors found, or candidate lines scored, between two looks at the clock."""

ANCHOR_WORDS = 5
"""Longest distinct words of a search text used as its anchors in a file too
large for a full fuzzy scan."""

ANCHOR_PIECE_SAMPLE_BYTES = 1 << 20
"""Bytes of a file looked at to choose the rarest pieces of a fuzzy pattern as
anchors."""


# -- measures --------------------------------------------------------------------------


def partial_ratio(pattern: str, text: str, cutoff: float = 0.0) -> float:
    """Similarity 0-100 of ``pattern`` to the best-aligned part of ``text`` (0 below ``cutoff``)."""
    return float(fuzz.partial_ratio(pattern, text, score_cutoff=cutoff))


def ratio(a: str, b: str) -> float:
    """InDel similarity 0-100 of two whole texts."""
    return float(fuzz.ratio(a, b))


def best_alignment(pattern: str, text: str) -> tuple[float, int, int] | None:
    """``(score, start, end)`` of the part of ``text`` most like ``pattern``
    (``partial_ratio``'s alignment); None when nothing aligns."""
    align = fuzz.partial_ratio_alignment(pattern, text)
    if align is None or align.dest_end <= align.dest_start:
        return None
    return align.score, align.dest_start, align.dest_end


def _fewest(anchors: list[AnyStr]) -> list[AnyStr]:
    """The anchors a text must hold one of, without those holding another (a text
    without the shorter one has not the longer either)."""
    return [a for a in anchors if not any(b != a and b in a for b in anchors)]


def anchored_alignment(pattern: str) -> Callable[[str], tuple[float, int, int] | None]:
    """:func:`best_alignment` of the lowered ``pattern`` in a piece of a long line, for a
    piece that holds one of its :func:`pieces` (else None at once): no place reaching
    the line search's cutoff is without one, so the best place of a long line the
    line search found is in such a piece (and the others cost a few ``in``)."""
    needle = pattern.lower()
    anchors = _fewest([p.decode() for p in pieces(needle, b"", "utf-8")])

    def best(text: str) -> tuple[float, int, int] | None:
        low = text.lower()
        if needle not in low and not any(anchor in low for anchor in anchors):
            return None
        return best_alignment(needle, low)

    return best


def length_bounds(length: int, cutoff: float) -> tuple[float, float]:
    """``(shortest, longest)`` text lengths that ``ratio`` can rate at least
    ``cutoff`` against a text of ``length`` characters; ``partial_ratio`` needs
    the shortest too (a shorter line aligns inside the pattern instead)."""
    return length * cutoff / (200.0 - cutoff), length * (200.0 - cutoff) / cutoff


def rank(
    text: str,
    lines: Sequence[str],
    *,
    partial: bool,
    cutoff: float,
    limit: int,
    lengths: tuple[float, float] | None = None,
) -> list[tuple[int, float]]:
    """``(index, score)`` of the ``limit`` lines most like ``text`` (best first),
    each at least ``cutoff``; with ``lengths``, lines of other lengths are
    not compared (each comparison costs the product of the lengths)."""
    choices: Sequence[str] | dict[int, str] = lines
    if lengths is not None:
        low, high = lengths
        choices = {i: line for i, line in enumerate(lines) if low <= len(line) <= high}
    scorer = fuzz.partial_ratio if partial else fuzz.ratio
    found = process.extract(text, choices, scorer=scorer, score_cutoff=cutoff, limit=limit)
    return [(int(index), float(score)) for _, score, index in found]


_WS_BYTES = bytes.maketrans(b"\t\r\x0b\x0c", b"    ")
_WS_TEXT = str.maketrans({"\t": " ", "\r": " ", "\x0b": " ", "\x0c": " ", "\ufeff": None})


def normalise(line: str) -> str:
    """A line with its ends stripped and inner runs of ASCII blanks collapsed."""
    text = line.translate(_WS_TEXT)
    while "  " in text:
        text = text.replace("  ", " ")
    return text.strip(" ")


def normalise_lines(raw: bytes) -> bytes:
    """:func:`normalise` applied to every line of ``raw`` at once (C speed)."""
    data = raw.translate(_WS_BYTES)
    while b"  " in data:
        data = data.replace(b"  ", b" ")
    return data.replace(b"\n ", b"\n").replace(b" \n", b"\n").strip(b" ")


# -- the prefilter: exact anchors ----------------------------------------------------------


def pieces(pattern: str, sample: bytes, encoding: str) -> list[bytes]:
    """Disjoint pieces of ``pattern`` (lowered): a line close to it holds one of them exactly.

    The pattern is cut into about one piece per five characters (the edits a
    80% score allows), trying a few cut points and keeping the cut whose
    pieces are rarest in ``sample``.
    """
    text = pattern.strip()
    if not text:
        # Only blanks: look for them as they are.
        blanks = pattern.encode(encoding, errors="ignore")
        return [blanks] if blanks else []
    encoded = text.encode(encoding, errors="ignore")
    if len(text) <= 3:
        return [encoded] if encoded else []
    count = max(2, len(text) // 6 + 1)
    size = len(text) // count
    shortest = 2 if len(text) < 8 else 3
    best: list[bytes] = []
    best_cost = -1
    for shift in (0, 1) if count == 2 else (0, 1, -1):
        inner = [i * size + shift for i in range(1, count)]
        cuts = [0, *inner, len(text)]
        if any(b - a < shortest for a, b in pairwise(cuts)):
            continue
        cut = [text[a:b].encode(encoding, errors="ignore") for a, b in pairwise(cuts)]
        cut = [p for p in cut if p.strip()]
        if len(cut) < count:
            continue
        # A repetitive pattern ("qqqq...") cuts into equal pieces: look for each once.
        cut = list(dict.fromkeys(cut))
        cost = sum(sample.count(p) for p in cut)
        if count == 2:
            # Two pieces: one transposition across the cut breaks both, so
            # also take a partition cut one character later.
            best = list(dict.fromkeys([*best, *cut]))
            continue
        if best_cost < 0 or cost < best_cost:
            best, best_cost = cut, cost
    if not best:
        # Every cut leaves a piece of blanks only: keep such pieces (slower, as
        # blanks are common, but no line close to the pattern is dropped).
        cuts = [0, *(i * size for i in range(1, count)), len(text)]
        cut = [text[a:b].encode(encoding, errors="ignore") for a, b in pairwise(cuts)]
        best = [p for p in dict.fromkeys(cut) if p]
    return best


_WORD = re.compile(r"\S{3,}")


def anchor_words(lines: Sequence[str]) -> list[str]:
    """The :data:`ANCHOR_WORDS` longest distinct words (runs of three or more non-blanks) of
    ``lines``: the anchors of a block."""
    words = sorted({w for line in lines for w in _WORD.findall(line)}, key=len, reverse=True)
    return words[:ANCHOR_WORDS]


def lines_holding(
    hay: AnyStr, length: int, anchors: list[AnyStr], newline: AnyStr, deadline: float | None
) -> list[int] | None:
    """Sorted start offsets of the lines of ``hay[:length]`` holding any of ``anchors``.

    ``None`` when ``deadline`` (a ``time.monotonic()`` value) passes first.
    """
    starts: set[int] = set()
    find = hay.find
    rfind = hay.rfind
    found = 0
    for anchor in anchors:
        pos = find(anchor, 0, length)
        while pos >= 0:
            found += 1
            if (
                deadline is not None
                and not found % FUZZY_CHECK_EVERY
                and time.monotonic() > deadline
            ):
                return None
            starts.add(rfind(newline, 0, pos) + 1)
            end = find(newline, pos, length)
            if end < 0:
                break
            pos = find(anchor, end + 1, length)
    return sorted(starts)


def _folded_lines_holding(
    buf: Window, length: int, encoding: str, anchors: list[str], deadline: float | None
) -> list[int] | None:
    """Like :func:`lines_holding` with Unicode case folding (``str.lower``).

    The window is decoded and lowered; the offsets returned are byte offsets
    of line starts in ``buf``.  ``None`` when ``deadline`` passes first.
    """
    low = bytes(buf[:length]).decode(encoding, errors="surrogateescape").lower()
    ordered = lines_holding(low, len(low), anchors, "\n", deadline)
    if ordered is None:
        return None
    # Decoding and lowering keep every line break (even where a character
    # grows when lowered, as U+0130 does): count lines to find the bytes.
    offsets: list[int] = []
    known_char = known_byte = 0
    for start in ordered:
        known_byte = skip_lines(buf, known_byte, low.count("\n", known_char, start), length)
        known_char = start
        offsets.append(known_byte)
    return offsets


# -- the line search ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _LineQuery:
    """A one-line pattern prepared for one file version."""

    needle: str  # the pattern, lowered
    exact: bytes | None  # the needle in the file's encoding (None: no line can hold it)
    folded: bool  # a non-ASCII pattern: lines are decoded and lowered to be compared
    cutoff: float
    shortest: int  # lines shorter than this (stripped, in bytes) cannot reach the cutoff
    encoding: str

    @classmethod
    def build(cls, version: FileVersion, pattern: str, cutoff: float) -> _LineQuery:
        needle = pattern.lower()
        if cutoff == LINE_CUTOFF and len(needle.strip()) <= SHORT_PATTERN:
            cutoff = SHORT_CUTOFF
        # Line bytes >= line characters, so the byte length is a safe test.
        shortest = int(length_bounds(len(needle.strip()), cutoff)[0])
        return cls(
            needle,
            version.encode(needle),
            not pattern.isascii(),
            cutoff,
            shortest,
            version.data_encoding,
        )


class _Best:
    """The ``limit`` best lines seen, as a min-heap of ``(score, -offset)``, and
    how many lines reached the cutoff (filled by :func:`_score_candidates`)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.heap: list[tuple[float, int]] = []
        self.total = 0

    def add(self, score: float, offset: int) -> None:
        """One line's score (0: below the cutoff), outside the hot loop."""
        if not score:
            return
        self.total += 1
        item = (score, -offset)
        if len(self.heap) < self.limit:
            heapq.heappush(self.heap, item)
        elif item > self.heap[0]:
            heapq.heapreplace(self.heap, item)

    def ranked(self) -> list[tuple[float, int]]:
        """``(score, offset)``, best first (the earlier line of equal ones)."""
        return [(score, -neg) for score, neg in sorted(self.heap, reverse=True)]


def similar_lines(
    version: FileVersion, pattern: str, *, limit: int, cutoff: float = LINE_CUTOFF
) -> Found:
    """Lines most similar to ``pattern`` (case-insensitive), best first.

    Case is ignored: the pattern and the lines are compared lowered
    (``str.lower``; for an ASCII pattern, ASCII letters alone are folded,
    which scores every line the same and works on the bytes directly).  A
    line containing the pattern (case ignored) scores 1.0 and is typed
    "exact"; others are scored with ``partial_ratio``, so a misspelt word
    inside a long line is found.  Only lines holding one of the pattern's
    :func:`pieces` and not below the length bound are scored.
    """
    query = _LineQuery.build(version, pattern, cutoff)
    best = _Best(limit)
    window_starts: list[int] = []
    window_lines: list[int] = []
    line_base = 1
    anchors: list[bytes] | None = None
    text_anchors: list[str] = []
    deadline = time.monotonic() + FUZZY_TIME_BUDGET
    stopped: int | None = None  # where a scan over its time budget stopped
    for step in version.windows():
        if time.monotonic() > deadline:
            stopped = line_base
            break
        if isinstance(step, LongLine):
            window_starts.append(step.start)
            window_lines.append(line_base)
            if anchors is None:
                sample = version.data.read(step.start, step.start + ANCHOR_PIECE_SAMPLE_BYTES)
                anchors = pieces(query.needle, sample.lower(), query.encoding)
                if not anchors:
                    return Found([], 0)
                text_anchors = [p.decode(query.encoding, errors="replace") for p in anchors]
            score = _score_long_line(query, version, step, anchors, text_anchors, deadline)
            if score is None:
                stopped = line_base
                break
            best.add(score, step.start)
            line_base += 1
            continue
        base, buf, length = step
        window_starts.append(base)
        window_lines.append(line_base)
        # Lowered whole when the window fills most of the reused buffer: one
        # window-sized copy, not two (a slice, then its lowered copy).  Every
        # use below stops at ``length``.
        hay = buf.lower() if 2 * length > len(buf) else buf[:length].lower()
        if anchors is None:
            anchors = pieces(
                query.needle, bytes(hay[: min(length, ANCHOR_PIECE_SAMPLE_BYTES)]), query.encoding
            )
            if not anchors:
                return Found([], 0)
            if query.folded:
                text_anchors = [p.decode(query.encoding, errors="replace") for p in anchors]
        if query.folded:
            candidates = _folded_lines_holding(buf, length, query.encoding, text_anchors, deadline)
        else:
            # A bytearray window reads like bytes here.
            candidates = lines_holding(cast(bytes, hay), length, anchors, b"\n", deadline)
        if candidates is None:
            stopped = line_base
            break
        at = _score_candidates(query, hay, length, base, candidates, best, deadline)
        if at is not None:
            stopped = line_base + hay.count(b"\n", 0, at)
            break
        line_base += hay.count(b"\n", 0, length)
    hits = []
    for score, offset in best.ranked():
        i = bisect_right(window_starts, offset) - 1
        line = window_lines[i] + version.data[window_starts[i] : offset].count(b"\n")
        kind = "exact" if score >= 100.0 else "fuzzy"
        hits.append(Hit(offset, line, round(score / 100.0, 4), kind))
    if stopped is None:
        return Found(hits, best.total)
    return Found(hits, best.total, timed_out=True, stopped_line=stopped, budget=FUZZY_TIME_BUDGET)


def _score_long_line(
    query: _LineQuery,
    version: FileVersion,
    line: LongLine,
    anchors: list[bytes],
    text_anchors: list[str],
    deadline: float,
) -> float | None:
    """The score of a line too long for a window, read in pieces: 100 when a piece
    holds the pattern, else the best ``partial_ratio`` of the pieces holding an
    anchor (each piece with the bytes before it a pattern needs: an alignment
    across two pieces is seen whole); 0 below the cutoff, None past ``deadline``."""
    stop = content_end(version, line)
    overlap = 4 * len(query.needle) + 4  # bytes: a character is at most four
    anchors, text_anchors = _fewest(anchors), _fewest(text_anchors)
    best = 0.0
    pos = line.start
    while pos < stop:
        if time.monotonic() > deadline:
            return None
        raw = version.data.read(
            max(line.start, pos - overlap), min(stop, pos + LONG_LINE_PIECE_BYTES)
        )
        pos += LONG_LINE_PIECE_BYTES
        if query.folded:
            text = raw.decode(query.encoding, errors="replace").lower()
            if query.needle in text:
                return 100.0
            if not any(anchor in text for anchor in text_anchors):
                continue
        else:
            hay = raw.lower()
            if query.exact and query.exact in hay:
                return 100.0
            if not any(anchor in hay for anchor in anchors):
                continue
            text = hay.decode(query.encoding, errors="replace")
        best = max(best, partial_ratio(query.needle, text, query.cutoff))
    return best


def _score_candidates(
    query: _LineQuery,
    hay: Window,
    length: int,
    base: int,
    candidates: list[int],
    best: _Best,
    deadline: float,
) -> int | None:
    """Score the candidate lines (start offsets in the lowered window ``hay``)
    into ``best``; the offset where the time budget ran out, else None.

    The hot loop of a fuzzy search (one pass per candidate line, tens of
    thousands in a large log): it stays one function, with the names it
    uses bound to locals and the heap kept inline, as a call per line costs
    a measurable share of the search.
    """
    find = hay.find
    scorer = fuzz.partial_ratio
    heap, limit, push, replace = best.heap, best.limit, heapq.heappush, heapq.heapreplace
    kept = 0
    needle, exact, cutoff, shortest = query.needle, query.exact, query.cutoff, query.shortest
    encoding, folded = query.encoding, query.folded
    for seen, start in enumerate(candidates):
        if seen % FUZZY_CHECK_EVERY == FUZZY_CHECK_EVERY - 1 and time.monotonic() > deadline:
            best.total += kept
            return start
        end = find(b"\n", start, length)
        raw = hay[start : end if end >= 0 else length]
        if end >= 0 and raw.endswith(b"\r"):
            raw = raw[:-1]  # the \r of a CRLF ending is not part of the line
        if len(raw.rstrip()) < shortest:
            continue
        if folded:
            line_text = raw.decode(encoding, errors="replace").lower()
            score = 100.0 if needle in line_text else scorer(needle, line_text, score_cutoff=cutoff)
        elif exact and exact in raw:
            score = 100.0
        else:
            score = scorer(needle, raw.decode(encoding, errors="replace"), score_cutoff=cutoff)
        if not score:
            continue
        kept += 1
        item = (score, -(base + start))
        if len(heap) < limit:
            push(heap, item)
        elif item > heap[0]:
            replace(heap, item)
    best.total += kept
    return None
