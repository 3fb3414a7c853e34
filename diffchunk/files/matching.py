"""Locating the search text of an edit in a file: exact, then fuzzy.

Everything works on the file's *bytes* in an ASCII-compatible encoding
(UTF-8 or a single-byte code page; other encodings are transcoded to UTF-8
first by the caller), so a 1 GB file is never decoded whole:

- **Exact**: the search text is encoded in the file's encoding; when it holds
  ``\\n``, a CRLF variant (``\\n`` -> ``\\r\\n``) is searched too, so an LF
  search text matches a CRLF file.  One pass of bounded windows (``pread``,
  never a whole-file mapping, so resident memory stays at the window size)
  finds every occurrence of every needle and counts lines on the way.
- **Fuzzy** (whole lines only): lines are compared with runs of blanks
  (space, tab, CR, VT, FF) collapsed and line ends stripped; windows of the search text's line count (and
  one line more or fewer) are scored with ``rapidfuzz`` ``ratio`` against
  the normalised search text.  Small files (up to :data:`FULL_FUZZY_LIMIT`)
  are scored everywhere after a per-line prefilter; bigger files only around
  exact occurrences of the search text's longest words (anchors; words that
  occur everywhere are ignored when rarer ones occur): a block whose
  distinctive words were all changed is not found there.  The number of
  windows scored is bounded by the search text's length.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from .reader import Reader

FULL_FUZZY_LIMIT = 32 * 1024 * 1024
"""Files up to this size get a full fuzzy scan; bigger ones an anchored one."""

IN_MEMORY_LIMIT = 32 * 1024 * 1024
"""Files up to this size are read into memory for an edit; bigger ones stream."""

DEFAULT_THRESHOLD = 0.85
AMBIGUITY_MARGIN = 0.03
"""Score differences below a third of this are "equal" (see :func:`is_ambiguous`)."""

MAX_OCCURRENCES = 1000
"""Occurrences of one needle recorded before the scan stops looking for it."""

_WINDOW = 16 * 1024 * 1024
"""Bytes per block of the exact scan of a file read by ``pread``."""
_PREFILTER_LIMIT = 400
_ANCHOR_HITS = 200
_SUGGESTIONS = 5
_SHOWN_CHARS = 200
_WORD = re.compile(r"\S{3,}")


def fuzzy_threshold() -> float:
    """Minimum similarity (0-1) of an accepted fuzzy match (``DIFFCHUNK_FUZZY_THRESHOLD``)."""
    raw = os.environ.get("DIFFCHUNK_FUZZY_THRESHOLD", "")
    try:
        value = float(raw) if raw else DEFAULT_THRESHOLD
    except ValueError:
        return DEFAULT_THRESHOLD
    return value if 0.0 < value <= 1.0 else DEFAULT_THRESHOLD


_WS_BYTES = bytes.maketrans(b"\t\r\x0b\x0c", b"    ")
_WS_TEXT = str.maketrans({"\t": " ", "\r": " ", "\x0b": " ", "\x0c": " ", "\ufeff": None})


def normalise(line: str) -> str:
    """A line with its ends stripped and inner runs of ASCII blanks collapsed."""
    text = line.translate(_WS_TEXT)
    while "  " in text:
        text = text.replace("  ", " ")
    return text.strip(" ")


def _normalise_lines(raw: bytes) -> bytes:
    """:func:`normalise` applied to every line of ``raw`` at once (C speed)."""
    data = raw.translate(_WS_BYTES)
    while b"  " in data:
        data = data.replace(b"  ", b" ")
    return data.replace(b"\n ", b"\n").replace(b" \n", b"\n").strip(b" ")


def leading_ws(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


# ---------------------------------------------------------------- exact scan


@dataclass(frozen=True, slots=True)
class Occurrence:
    start: int
    line: int  # 1-based line number of ``start``


def scan(
    source: Reader,
    needles: Sequence[bytes],
    *,
    limit: int = MAX_OCCURRENCES,
    line_of: Callable[[int], int] | None = None,
) -> list[list[Occurrence]]:
    """Every occurrence (overlapping ones included, at most ``limit + 1``) of
    each needle, with line numbers, in one pass over the file.

    Lines are counted on the way unless ``line_of`` (offset -> 1-based line,
    e.g. from an existing line index) is given.
    """
    found: list[list[Occurrence]] = [[] for _ in needles]
    if not needles:
        return found
    overlap = max(len(n) for n in needles) - 1
    lines_before = 1
    active = [bool(n) for n in needles]
    counts = [0] * len(needles)
    for offset, buf, body, filled in source.blocks(overlap, _WINDOW):
        hits: list[tuple[int, int]] = []
        for k, needle in enumerate(needles):
            if not active[k]:
                continue
            i = buf.find(needle, 0, filled)
            while 0 <= i < body:
                hits.append((i, k))
                counts[k] += 1
                if counts[k] > limit:
                    active[k] = False
                    break
                i = buf.find(needle, i + 1, filled)
        if line_of is not None:
            for i, k in hits:
                found[k].append(Occurrence(offset + i, line_of(offset + i)))
            if not any(active):
                break
            continue
        hits.sort()
        counted_to = 0
        line = lines_before
        for i, k in hits:
            line += buf.count(b"\n", counted_to, i)
            counted_to = i
            found[k].append(Occurrence(offset + i, line))
        if not any(active):
            break
        lines_before = line + buf.count(b"\n", counted_to, body)
    for occs in found:
        occs.sort(key=lambda occ: occ.start)
    return found


# ---------------------------------------------------------------------- fuzzy


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

    def preview(self) -> str:
        text = "\n".join(self.lines)
        return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "..."


@dataclass(frozen=True, slots=True)
class FuzzyOutcome:
    """Result of a fuzzy search: the accepted window, or why there is none."""

    match: FuzzyWindow | None
    ranked: tuple[FuzzyWindow, ...]  # distinct windows, best first
    error: str | None
    hints: tuple[dict[str, object], ...] = ()  # partial one-line matches, for a miss


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
        text = _normalise_lines(body).decode(encoding, errors="replace")
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


MAX_FUZZY_CHARS = 64 * 1024
"""Longest search text matched fuzzily (comparisons cost the product of the lengths)."""

_LENGTH_FILTER_ABOVE = 48
"""Anchor lines longer than this are only compared with lines of similar length."""


def _prefiltered_starts(region: _Region, search_norm: list[str]) -> dict[int, float]:
    """Window starts worth scoring, with a prior (best per-line similarity)."""
    n = len(search_norm)
    total = len(region.norm)
    if total <= 64:
        return dict.fromkeys(range(total), 1.0)
    order = sorted(range(n), key=lambda j: -len(search_norm[j]))
    anchors = [j for j in order if search_norm[j]][:3]
    starts: dict[int, float] = {}
    for j in anchors:
        anchor = search_norm[j]
        choices: list[str] | dict[int, str] = region.norm
        if len(anchor) > _LENGTH_FILTER_ABOVE:
            # ratio >= 50 needs the shorter text to be at least a third of the
            # longer: skip lines that cannot reach it instead of scoring them
            # (each comparison costs the product of the lengths).
            low, high = len(anchor) / 3, len(anchor) * 3
            choices = {i: line for i, line in enumerate(region.norm) if low <= len(line) <= high}
        for _, score, i in process.extract(
            anchor, choices, scorer=fuzz.ratio, score_cutoff=50, limit=_PREFILTER_LIMIT
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
    (quadratic in the search text's length); best priors go first.
    """
    n = len(search_norm)
    target = "\n".join(search_norm)
    cost = len(target) ** 2 // 64 + 1
    budget = max(30, min(60_000, 300_000_000 // cost))
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
            candidate = "\n".join(region.norm[s : s + k])
            scored.append((fuzz.ratio(candidate, target) / 100.0, s, k, region))
        if len(seen) >= budget:
            break
    return scored


def _anchor_words(search_lines: list[str]) -> list[str]:
    words = sorted({w for line in search_lines for w in _WORD.findall(line)}, key=len, reverse=True)
    return words[:5]


_Scored = tuple[float, int, int, "_Region"]  # (score, start index, line count, region)


def fuzzy_search(
    source: Reader,
    encoding: str,
    search: str,
    *,
    threshold: float,
) -> FuzzyOutcome:
    """Find the run of whole lines most similar to ``search`` (LF-separated).

    Accepts the best window when its score reaches ``threshold`` and no other,
    non-overlapping window is nearly as close (see :func:`is_ambiguous`).
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
    outcome = _decide(ranked, threshold, note)
    small = len(source) <= PARTIAL_HINTS_LIMIT
    if outcome.match is None and region is not None and len(search_norm) == 1 and small:
        hints = tuple(_line_hints(region, search_norm[0]))
        return FuzzyOutcome(None, outcome.ranked, outcome.error, hints)
    return outcome


PARTIAL_HINTS_LIMIT = 4 * 1024 * 1024
"""One-line searches also get partial-match hints in files up to this size."""


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


def _decide(ranked: list[FuzzyWindow], threshold: float, note: str | None) -> FuzzyOutcome:
    if not ranked:
        return FuzzyOutcome(None, (), note or "No similar text found.")
    best = ranked[0]
    if best.score < threshold:
        return FuzzyOutcome(
            None,
            tuple(ranked),
            f"No fuzzy match reaches the similarity threshold {threshold:.2f} "
            f"(best: {best.score:.2f} at line {best.line}).",
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
        )
    return FuzzyOutcome(best, tuple(ranked), None)


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
        if len(windows) >= 50:
            break
    return windows


def _anchored_candidates(
    source: Reader, encoding: str, search_lines: list[str], search_norm: list[str]
) -> tuple[list[_Scored], str | None]:
    words = _anchor_words(search_lines)
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
    per_word = scan(source, needles, limit=_ANCHOR_HITS)
    # Words occurring everywhere say little about where the block is: use
    # the rarer words' hits when there are any.
    rare = [w for w, occs in enumerate(per_word) if 0 < len(occs) <= _ANCHOR_HITS]
    chosen = rare or [w for w, occs in enumerate(per_word) if occs]
    hits = sorted({(occ.start, occ.line, w) for w in chosen for occ in per_word[w][:_ANCHOR_HITS]})
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


def suggestions(
    ranked: Sequence[FuzzyWindow], limit: int = _SUGGESTIONS
) -> list[dict[str, object]]:
    """``similar_matches`` entries: line, content (shortened), similarity."""
    return [
        {"line": w.line, "content": w.preview(), "similarity": round(w.score, 3)}
        for w in ranked[:limit]
    ]


def _line_hints(region: _Region, query: str, limit: int = _SUGGESTIONS) -> list[dict[str, object]]:
    """Lines containing text similar to a one-line search (partial matches)."""
    out: list[dict[str, object]] = []
    for _, score, i in process.extract(
        query, region.norm, scorer=fuzz.partial_ratio, score_cutoff=60, limit=limit
    ):
        text = region.text(i)
        out.append(
            {
                "line": region.first_line + i,
                "content": text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "...",
                "similarity": round(score / 100.0, 3),
            }
        )
    return out


# -------------------------------------------------------------- indentation


def reindent(lines: list[str], source_indent: str, target_indent: str) -> list[str]:
    """Shift replacement lines from the search text's indentation to the file's.

    Lines starting with ``source_indent`` get it swapped for
    ``target_indent``; less indented lines move by the width difference
    (adding the target's leading characters, or removing leading
    whitespace).  Blank lines are left alone.
    """
    if source_indent == target_indent:
        return lines
    delta = len(target_indent) - len(source_indent)
    out: list[str] = []
    for line in lines:
        if not line.strip():
            out.append(line)
        elif line.startswith(source_indent):
            out.append(target_indent + line[len(source_indent) :])
        elif delta > 0:
            out.append(target_indent[:delta] + line)
        else:
            lead = len(leading_ws(line))
            out.append(line[min(-delta, lead) :])
    return out
