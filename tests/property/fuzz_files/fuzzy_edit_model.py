"""The reference model of fuzzy edits: the windows a change may replace, and how."""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from diffchunk.files import indent

from .measures import at_least, indel_ratio
from .models import encoded, occurrences
from .textfile import TextFile

FUZZY_EDIT_THRESHOLD = Fraction(85, 100)
"""Default of ``DIFFCHUNK_FUZZY_THRESHOLD`` (README, Configuration)."""


@dataclass(frozen=True)
class Placed:
    """Where the model puts one change: the LF text span it replaces, and with what."""

    start: int
    end: int
    text: str
    line: int  # 1-based first line
    match_type: str
    similarity: Fraction | None


@dataclass(frozen=True)
class Window:
    first: int  # 0-based first line
    count: int
    score: Fraction

    def overlaps(self, other: Window) -> bool:
        return self.first < other.first + other.count and other.first < self.first + self.count


_BLANK_RUN = re.compile(r"[ \t\r\x0b\x0c]+")


def normalise_line(line: str) -> str:
    """A line as fuzzy edits compare it: blank runs made one space, ends stripped."""
    return _BLANK_RUN.sub(" ", line.replace("\ufeff", "")).strip(" ")


def _search_lines(search: str) -> list[str]:
    lines = search.split("\n")
    if search.endswith("\n"):
        lines.pop()
    return lines


def fuzzy_windows(lines: list[str], search: str) -> list[Window] | None:
    """Every window of the search text's line count and one more or fewer, scored;
    None when the search text is only blanks."""
    wanted = [normalise_line(line) for line in _search_lines(search)]
    if not any(wanted):
        return None
    target = "\n".join(wanted)
    normal = [normalise_line(line) for line in lines]
    n = len(wanted)
    windows = []
    for count in (n - 1, n, n + 1):
        if count < 1:
            continue
        for first in range(len(lines) - count + 1):
            score = indel_ratio("\n".join(normal[first : first + count]), target)
            windows.append(Window(first, count, score))
    return windows


def _indent(lines: Sequence[str]) -> str | None:
    """Leading whitespace of the first non-blank line; None when all are blank."""
    for line in lines:
        if line.strip():
            return line[: len(line) - len(line.lstrip())]
    return None


def _mixing_refused(source: str, target: str, given: list[str], shifted: list[str]) -> bool:
    """The tool refuses a re-indent from tabs to spaces (or back) into a file whose
    indentation is of one kind when it leaves a line indented with both, unless
    that line was so as given."""

    def both(line: str) -> bool:
        lead = line[: len(line) - len(line.lstrip(" \t"))]
        return bool(line.strip()) and "\t" in lead and " " in lead

    if ("\t" in source) == ("\t" in target) or ("\t" in target and " " in target):
        return False
    return any(both(new) and not both(old) for old, new in zip(given, shifted, strict=True))


def _line_starts(lines: list[str]) -> list[int]:
    return list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))


def place_window(
    tf: TextFile, lines: list[str], search: str, replacement: str, window: Window
) -> Placed | None:
    """The span and text a fuzzy change replaces ``window`` with (None: refused)."""
    text = replacement
    source = _indent(_search_lines(search))
    target = _indent(lines[window.first : window.first + window.count])
    if source is not None and target is not None and source != target:
        # The shift rule itself is pinned by test_fuzzy_edit_ignores_blank_runs_and_reindents;
        # here the model only has to apply it where the tool should.
        given = text.split("\n")
        shifted = indent.reindent(given, source, target)
        if _mixing_refused(source, target, given, shifted):
            return None
        text = "\n".join(shifted)
    starts = _line_starts(lines)
    last = window.first + window.count - 1
    start = starts[window.first]
    end = starts[last] + len(lines[last])
    if search.endswith("\n"):
        if end < len(tf.text):
            end += 1  # the last line's line break goes too
        elif text.endswith("\n"):
            text = text[:-1]  # the file's last line has none: add none
    return Placed(start, end, text, window.first + 1, "fuzzy", window.score)


NEAR_EQUAL = Fraction(1, 100)
"""Distances below this count as equal (a third of ``AMBIGUITY_MARGIN``, 0.03,
documented with ``diffchunk.files.fuzzy_block.is_ambiguous``)."""


def _rival(best: Fraction, other: Fraction, threshold: Fraction) -> bool | None:
    """Is ``other`` nearly as close as ``best``? None when too close to call."""
    reaches = at_least(other, threshold)
    closer = at_least(max(2 * (1 - best), NEAR_EQUAL), 1 - other)  # 1 - other < bound
    if reaches is False or closer is False:
        return False
    return True if reaches and closer else None


def change_outcomes(
    tf: TextFile,
    lines: list[str],
    change: tuple[str, str, bool | None],
    threshold: Fraction,
    *,
    fuzzy: bool,
    anchored: bool,
) -> list[Placed | None]:
    """What the tool may do with one change: place it (one of these), or refuse (None)."""
    search, replacement, own = change
    hits = occurrences(tf.text, search)
    if len(hits) == 1:
        line = bisect_right(_line_starts(lines), hits[0]) if lines else 1
        return [Placed(hits[0], hits[0] + len(search), replacement, line, "exact", None)]
    if hits or not (fuzzy if own is None else own):
        return [None]
    windows = fuzzy_windows(lines, search)
    if not windows:
        return [None]
    if anchored:
        # Only windows near the search text's words are looked at: any window
        # that reaches the threshold may be the one used, or none.
        return [None] + [
            place_window(tf, lines, search, replacement, w)
            for w in windows
            if at_least(w.score, threshold) is not False
        ]
    best = max(w.score for w in windows)
    outcomes: list[Placed | None] = []
    reaches = at_least(best, threshold)
    if reaches is not True:
        outcomes.append(None)
    if reaches is False:
        return outcomes
    for chosen in (w for w in windows if w.score == best):
        rivals = [_rival(best, w.score, threshold) for w in windows if not w.overlaps(chosen)]
        if any(rivals):
            outcomes.append(None)
            continue
        if None in rivals:
            outcomes.append(None)
        outcomes.append(place_window(tf, lines, search, replacement, chosen))
    return list(dict.fromkeys(outcomes))


def _overlap(a: Placed, b: Placed) -> bool:
    first, second = sorted((a, b), key=lambda p: (p.start, p.end))
    return second.start < first.end or second.start == first.start


def batch_bytes(tf: TextFile, placed: Sequence[Placed]) -> bytes | None:
    """The new file for these placements; None when they overlap or cannot be encoded."""
    ordered = sorted(placed, key=lambda p: (p.start, p.end))
    if any(_overlap(a, b) for a, b in itertools.pairwise(ordered)):
        return None
    text = tf.text
    out = []
    cursor = 0
    for p in ordered:
        out.append(text[cursor : p.start])
        out.append(p.text)
        cursor = p.end
    out.append(text[cursor:])
    return encoded(tf, "".join(out))


def may_refuse(tf: TextFile, outcomes: list[list[Placed | None]]) -> bool:
    """Whether some allowed choice of placements makes the batch fail."""
    if any(None in options for options in outcomes):
        return True
    if any(encoded(tf, p.text) is None for options in outcomes for p in options if p):
        return True
    return any(
        _overlap(a, b)
        for i, j in itertools.combinations(range(len(outcomes)), 2)
        for a in outcomes[i]
        for b in outcomes[j]
        if a and b
    )
