"""The fuzzy search of an edit: the run of whole lines most like a search text.

When a change's search text does not occur exactly, the edit matcher
(:mod:`.locate`) asks :func:`similar_block` for the run of lines closest to
it, with the measures and the prefilter of :mod:`.fuzzy`:

- Lines are compared normalised (:func:`.fuzzy.normalise`: runs of blanks
  -- space, tab, CR, VT, FF -- collapsed, line ends stripped); windows of
  the search text's line count (and one line more or fewer) are scored
  with rapidfuzz ``ratio`` against the normalised search text.
- Files up to :data:`FULL_FUZZY_LIMIT` are read whole and scored everywhere
  after a per-line prefilter (the lines most like the search text's three
  longest lines, :func:`.fuzzy.rank`, with the length bound for long
  ones).  Bigger files are scored only around exact occurrences of the
  search text's longest words (:func:`.fuzzy.anchor_words`, found by the
  exact scan; words that occur everywhere are ignored when rarer ones
  occur): such an outcome is ``anchored``, and a block whose distinctive
  words were all changed is not found there.  The number of windows scored
  is bounded by the search text's length.
- The best window is accepted when it reaches the threshold
  (``DIFFCHUNK_FUZZY_THRESHOLD``, default :data:`DEFAULT_THRESHOLD`) and no
  other, non-overlapping window is nearly as close (:func:`is_ambiguous`).
- A miss comes with the closest windows (``similar_matches``), and for a
  one-line search text in a file up to :data:`PARTIAL_HINTS_LIMIT` with
  lines that hold something like it (``partial_ratio``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from .. import settings
from ..limits import SUGGESTIONS
from .byte_reader import Reader
from .fuzzy import anchor_words, length_bounds, normalise, normalise_lines, rank, ratio
from .scan import scan

FULL_FUZZY_LIMIT = 32 * 1024 * 1024
"""Files up to this size get a full fuzzy scan for an edit; bigger ones an
anchored one (around exact occurrences of the search text's longest words)."""

AMBIGUITY_MARGIN = 0.03
"""A runner-up must be at least twice as far from the search text as the best
window, and more than a third of this (distances under it count as "equal"
for near-perfect matches): otherwise the match is ambiguous, and the edit is
refused rather than guessed."""

MAX_FUZZY_CHARS = 64 * 1024
"""Longest search text matched fuzzily: comparisons cost the product of the
lengths (a 1 MB fuzzy edit search ran for minutes)."""

PARTIAL_HINTS_LIMIT = 4 * 1024 * 1024
"""One-line searches also get partial-match hints in files up to this size."""

FULL_SCORE_LINES = 64
"""A region of at most this many lines is scored at every start, without a
prefilter."""

PREFILTER_LIMIT = 400
"""Lines kept per anchor line by the prefilter of a full fuzzy scan: the window
starts worth scoring."""

PREFILTER_CUTOFF = 50
"""Lowest ratio (0-100) a line must reach to be kept by the prefilter."""

ANCHOR_HITS = 200
"""Occurrences of an anchor word looked at: a word found more often is too
common to place a block, when rarer ones occur."""

WINDOW_BUDGET_COST = 300_000_000
"""Fuzzy windows scored for an edit at most: this divided by the cost of one
comparison (the search text's length squared / 64)..."""

WINDOW_BUDGET_MIN = 30
"""...but at least this many windows..."""

WINDOW_BUDGET_MAX = 60_000
"""...and at most this many: the edit stays within seconds whatever the file."""

FUZZY_WINDOWS_KEPT = 50
"""Best non-overlapping windows kept for the answer and its ambiguity check."""

LINE_HINT_CUTOFF = 60
"""Lowest ``partial_ratio`` (0-100) of a line offered as a partial-match hint."""

SUGGESTION_CHARS = 200
"""Characters of a similar text shown in a suggestion."""

LENGTH_FILTER_ABOVE = 48
"""Anchor lines longer than this are only compared with lines of similar length
(a ratio of 50 needs the shorter text to be a third of the longer)."""


def fuzzy_threshold() -> float:
    """Minimum similarity (0-1) of an accepted fuzzy match (``DIFFCHUNK_FUZZY_THRESHOLD``)."""
    return settings.number("DIFFCHUNK_FUZZY_THRESHOLD")


@dataclass(frozen=True, slots=True)
class SimilarText:
    """A place like a search text that was not used: shown in ``similar_matches``."""

    line: int
    content: str  # shortened to 200 characters
    similarity: float  # 0..1, rounded to 3 places

    def to_dict(self) -> dict[str, object]:
        return {"line": self.line, "content": self.content, "similarity": self.similarity}


def _shown(text: str) -> str:
    return text if len(text) <= SUGGESTION_CHARS else text[:SUGGESTION_CHARS] + "..."


@dataclass(frozen=True, slots=True)
class FuzzyWindow:
    """A run of whole lines scored against a search text."""

    line: int  # 1-based first line
    count: int  # number of lines
    score: float  # 0..1, whitespace-insensitive
    start: int  # byte offset of the first line
    end: int  # byte offset after the last line's text (before its line ending)
    after: int  # byte offset after the last line's line ending
    lines: tuple[str, ...]  # the window's lines, decoded, without line endings

    def similar(self) -> SimilarText:
        """This window as an entry of ``similar_matches``."""
        return SimilarText(self.line, _shown("\n".join(self.lines)), round(self.score, 3))


@dataclass(frozen=True, slots=True)
class FuzzyOutcome:
    """Result of a fuzzy search: the accepted window, or why there is none."""

    match: FuzzyWindow | None
    ranked: tuple[FuzzyWindow, ...]  # distinct windows, best first
    error: str | None
    hints: tuple[SimilarText, ...] = ()  # partial one-line matches, for a miss
    anchored: bool = False
    """Only areas around anchor words were scored (files over FULL_FUZZY_LIMIT)."""


class _Region:
    """Consecutive whole lines of the file, normalised for comparison.

    Normalisation runs over the whole region's bytes at once (no Python loop
    per line); line texts are decoded lazily for the few windows reported.
    """

    def __init__(self, raw: bytes, offset: int, first_line: int, encoding: str) -> None:
        body = raw[:-1] if raw.endswith(b"\n") else raw
        lengths = [len(piece) + 1 for piece in body.split(b"\n")]
        self.starts = list(itertools.accumulate(lengths, initial=offset))
        self.raw = raw
        self.offset = offset
        self.limit = offset + len(raw)
        text = normalise_lines(body).decode(encoding, errors="replace")
        self.norm = text.split("\n")
        if self.norm[0].startswith("\ufeff"):
            self.norm[0] = self.norm[0][1:].lstrip(" ")
        self.first_line = first_line
        self.encoding = encoding

    def _line(self, i: int) -> tuple[int, int, int, str]:
        """(start, end of text, after line ending, text) of line ``i``."""
        start = self.starts[i]
        after = min(self.starts[i + 1], self.limit)
        end = after
        if end > start and self.raw[end - 1 - self.offset] == 0x0A:
            end -= 1
            if end > start and self.raw[end - 1 - self.offset] == 0x0D:
                end -= 1
        piece = self.raw[start - self.offset : end - self.offset]
        return start, end, after, piece.decode(self.encoding, errors="replace")

    def text(self, i: int) -> str:
        return self._line(i)[3]

    def window(self, s: int, k: int, score: float) -> FuzzyWindow:
        first = self._line(s)
        last = self._line(s + k - 1)
        return FuzzyWindow(
            line=self.first_line + s,
            count=k,
            score=score,
            start=first[0],
            end=last[1],
            after=last[2],
            lines=tuple(self.text(i) for i in range(s, s + k)),
        )


_Scored = tuple[float, int, int, "_Region"]  # (score, start index, line count, region)


def _prefiltered_starts(region: _Region, search_norm: list[str]) -> dict[int, float]:
    """Window starts worth scoring, with a prior (best per-line similarity)."""
    n = len(search_norm)
    total = len(region.norm)
    if total <= FULL_SCORE_LINES:
        return dict.fromkeys(range(total), 1.0)
    order = sorted(range(n), key=lambda j: -len(search_norm[j]))
    anchors = [j for j in order if search_norm[j]][:3]
    starts: dict[int, float] = {}
    for j in anchors:
        anchor = search_norm[j]
        # ratio >= 50 needs the shorter text to be at least a third of the
        # longer: long anchors skip lines that cannot reach it.
        lengths = (
            length_bounds(len(anchor), PREFILTER_CUTOFF)
            if len(anchor) > LENGTH_FILTER_ABOVE
            else None
        )
        for i, score in rank(
            anchor,
            region.norm,
            partial=False,
            cutoff=PREFILTER_CUTOFF,
            limit=PREFILTER_LIMIT,
            lengths=lengths,
        ):
            for s in (i - j - 1, i - j, i - j + 1):
                if 0 <= s < total and starts.get(s, -1.0) < score:
                    starts[s] = score
    return starts


def _score_windows(
    candidates: list[tuple[float, _Region, int]], search_norm: list[str]
) -> list[_Scored]:
    """Score windows of n-1, n and n+1 lines at each candidate start.

    The number of windows scored is bounded by the cost of one comparison
    (quadratic in the search text's length); best priors go first.  A window
    too long to reach PREFILTER_CUTOFF gets that bound as its score, uncompared.
    """
    n = len(search_norm)
    target = "\n".join(search_norm)
    cost = len(target) ** 2 // 64 + 1
    budget = max(WINDOW_BUDGET_MIN, min(WINDOW_BUDGET_MAX, WINDOW_BUDGET_COST // cost))
    longest = length_bounds(len(target), PREFILTER_CUTOFF)[1]
    candidates.sort(key=lambda item: -item[0])
    seen: set[tuple[int, int, int]] = set()
    scored: list[_Scored] = []
    for _, region, s in candidates:
        total = len(region.norm)
        for k in (n, n - 1, n + 1):
            key = (id(region), s, k)
            if k < 1 or s + k > total or key in seen:
                continue
            seen.add(key)
            length = sum(len(line) for line in region.norm[s : s + k]) + k - 1
            if length > longest:
                # Below PREFILTER_CUTOFF whatever it holds: its bound is its score
                # (a line of megabytes is never compared, nor joined).
                scored.append((2.0 * len(target) / (len(target) + length), s, k, region))
                continue
            candidate = "\n".join(region.norm[s : s + k])
            scored.append((ratio(candidate, target) / 100.0, s, k, region))
        if len(seen) >= budget:
            break
    return scored


def similar_block(source: Reader, encoding: str, search: str, *, threshold: float) -> FuzzyOutcome:
    """Find the run of whole lines most similar to ``search`` (LF-separated).

    Accepts the best window when its score reaches ``threshold`` and no other,
    non-overlapping window is nearly as close (see :func:`is_ambiguous`).
    ``source`` reads bytes in ``encoding`` (ASCII-compatible).
    """
    if len(search) > MAX_FUZZY_CHARS:
        return FuzzyOutcome(
            None,
            (),
            f"Search text not found, and at {len(search):,} characters it is too long for "
            f"fuzzy matching (up to {MAX_FUZZY_CHARS:,}): copy the exact text, or search "
            "for a shorter, distinctive part.",
        )
    search_lines = search.split("\n")
    if search.endswith("\n"):
        search_lines.pop()
    search_norm = [normalise(line) for line in search_lines]
    if not any(search_norm):
        return FuzzyOutcome(None, (), "The search text is only whitespace.")
    scored: list[_Scored] = []
    note: str | None = None
    region: _Region | None = None
    if len(source) <= FULL_FUZZY_LIMIT:
        region = _Region(source.read(source.start, len(source)), source.start, 1, encoding)
        starts = _prefiltered_starts(region, search_norm)
        scored = _score_windows([(prior, region, s) for s, prior in starts.items()], search_norm)
    else:
        scored, note = _anchored_candidates(source, encoding, search_lines, search_norm)
    ranked = _distinct(scored, len(search_norm))
    outcome = _decide(ranked, threshold, note, anchored=region is None)
    small = len(source) <= PARTIAL_HINTS_LIMIT
    if outcome.match is None and region is not None and len(search_norm) == 1 and small:
        hints = tuple(_line_hints(region, search_norm[0]))
        return FuzzyOutcome(None, outcome.ranked, outcome.error, hints)
    return outcome


def is_ambiguous(best: float, other: float, threshold: float) -> bool:
    """True when ``other`` is too close to ``best`` to pick ``best`` safely.

    Compared as distances (1 - score): the runner-up must be at least twice
    as far from the search text as the best window, plus a small slack
    (:data:`AMBIGUITY_MARGIN` of the score scale counts as "equal" for
    near-perfect matches).
    """
    if other < threshold:
        return False
    best_distance = 1.0 - best
    other_distance = 1.0 - other
    return other_distance < max(2.0 * best_distance, AMBIGUITY_MARGIN / 3)


def _decide(
    ranked: list[FuzzyWindow], threshold: float, note: str | None, *, anchored: bool
) -> FuzzyOutcome:
    if not ranked:
        return FuzzyOutcome(None, (), note or "No similar text found.", anchored=anchored)
    best = ranked[0]
    if best.score < threshold:
        return FuzzyOutcome(
            None,
            tuple(ranked),
            f"No fuzzy match reaches the similarity threshold {threshold:.2f} "
            f"(best: {best.score:.2f} at line {best.line}).",
            anchored=anchored,
        )
    rivals = [w for w in ranked[1:] if is_ambiguous(best.score, w.score, threshold)]
    if rivals:
        lines = ", ".join(str(w.line) for w in [best, *rivals][:10])
        more = " ..." if len(rivals) > 9 else ""
        return FuzzyOutcome(
            None,
            tuple(ranked),
            f"The search text is ambiguous: similar text at lines {lines}{more} "
            f"(scores {best.score:.2f} and {rivals[0].score:.2f}). Add lines that differ "
            "between these places, or copy the exact text.",
            anchored=anchored,
        )
    return FuzzyOutcome(best, tuple(ranked), None, anchored=anchored)


def _distinct(scored: list[_Scored], n: int) -> list[FuzzyWindow]:
    """Best-first windows, dropping any that overlaps a better one."""
    scored.sort(key=lambda item: (-item[0], abs(item[2] - n), item[3].first_line + item[1]))
    chosen: list[tuple[int, int]] = []  # (first line, count)
    windows: list[FuzzyWindow] = []
    for score, s, k, region in scored:
        line = region.first_line + s
        if any(line < other + count and other < line + k for other, count in chosen):
            continue
        chosen.append((line, k))
        windows.append(region.window(s, k, score))
        if len(windows) >= FUZZY_WINDOWS_KEPT:
            break
    return windows


def _anchored_candidates(
    source: Reader, encoding: str, search_lines: list[str], search_norm: list[str]
) -> tuple[list[_Scored], str | None]:
    words = anchor_words(search_lines)
    needles: list[bytes] = []
    for word in words:
        try:
            needles.append(word.encode(encoding))
        except UnicodeEncodeError:
            continue
    if not needles:
        return [], (
            "Fuzzy matching in files over "
            f"{FULL_FUZZY_LIMIT // (1024 * 1024)} MB looks only near words of the search "
            "text, and it has no word of 3 or more characters."
        )
    per_word = scan(source, needles, limit=ANCHOR_HITS)
    # Words occurring everywhere say little about where the block is: use
    # the rarer words' hits when there are any.
    rare = [w for w, occs in enumerate(per_word) if 0 < len(occs) <= ANCHOR_HITS]
    chosen = rare or [w for w, occs in enumerate(per_word) if occs]
    hits = sorted({(occ.start, occ.line, w) for w in chosen for occ in per_word[w][:ANCHOR_HITS]})
    if not hits:
        return [], (
            f"Fuzzy matching in files over {FULL_FUZZY_LIMIT // (1024 * 1024)} MB looks only "
            f"near exact occurrences of the search text's longest words ({', '.join(words)}); "
            "none occurs in the file."
        )
    # Search lines holding each word: a hit on line L of a word on search
    # line j puts the window start near L - j.
    word_lines = [[j for j, text in enumerate(search_lines) if word in text] for word in words]
    n = len(search_lines)
    spans: list[tuple[int, int, int, list[tuple[int, int]]]] = []
    for pos, line, w in hits:
        here = source.line_start(pos)
        begin = source.last_lines_start(source.start, here, n + 1)
        end = source.skip_lines(here, n + 2)
        if spans and begin <= spans[-1][1]:
            first_start, last_end, first_line, members = spans[-1]
            members.append((line, w))
            spans[-1] = (first_start, max(end, last_end), first_line, members)
        else:
            back = _count_lines(source, begin, here)
            spans.append((begin, end, line - back, [(line, w)]))
    candidates: list[tuple[float, _Region, int]] = []
    for begin, end, first_line, members in spans:
        region = _Region(source.read(begin, end), begin, first_line, encoding)
        for line, w in members:
            for j in word_lines[w] or [0]:
                for d in (-1, 0, 1):
                    s = line - first_line - j + d
                    if 0 <= s < len(region.norm):
                        candidates.append((1.0, region, s))
    return _score_windows(candidates, search_norm), None


def _count_lines(source: Reader, begin: int, end: int) -> int:
    return source.read(begin, end).count(b"\n")


def suggestions(ranked: Sequence[FuzzyWindow], limit: int = SUGGESTIONS) -> list[SimilarText]:
    """``similar_matches`` entries for the best ``limit`` windows."""
    return [window.similar() for window in ranked[:limit]]


def _line_hints(region: _Region, query: str, limit: int = SUGGESTIONS) -> list[SimilarText]:
    """Lines containing text similar to a one-line search (partial matches)."""
    return [
        SimilarText(region.first_line + i, _shown(region.text(i)), round(score / 100.0, 3))
        for i, score in rank(query, region.norm, partial=True, cutoff=LINE_HINT_CUTOFF, limit=limit)
    ]
