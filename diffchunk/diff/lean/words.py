"""Word-level pairs: a removed and an added line that differ in a few words, shown once.

A pair is one lean line: ``~`` and the added line's text, where each change
reads ``[-removed words-]{+added words+}`` (as ``git diff --word-diff``
writes).  So the line shows the new text whole once the ``[-...-]`` parts
are skipped and the ``{+``/``+}`` marks are dropped, and the old text
likewise the other way round: :func:`sides` reads both back, exactly.

A pair is made only when neither line holds one of the four marks (so the
marks cannot be misread), both lines are valid UTF-8 and shorter than
:data:`MAX_PAIR_CHARS`, the lines share most of their text
(:data:`MAX_CHANGED_SHARE`) in at most :data:`MAX_CHANGES` places, and the
pair line is shorter than the two lines it stands for.
"""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher

MAX_CHANGES = 3
"""Lines are paired word by word for "a few words" changed: at most this many
changed places in a line..."""

MAX_CHANGED_SHARE = 0.5
"""...touching at most this share of the longer line's characters (whitespace
aside)..."""

MAX_CHANGED_SHORT = 16
"""...or this many characters in a short line."""

MAX_PAIR_CHARS = 1000
"""Longer lines are not compared word by word (the comparison is quadratic in
the words of a line, and such lines are cut anyway)."""

MIN_SAVING = 8
"""A pair line must save at least this many characters over the two lines."""

MAX_COMPARISONS = 2500
"""Lines of a change block compared pairwise at most (removed x added): beyond,
only lines at the same position in the block are paired."""

PAIR_WINDOW = 8
"""A removed line is looked for among this many added lines after the last
pair."""


__all__ = ["MARKS", "pair_line", "pair_lines", "sides"]

DEL_OPEN, DEL_CLOSE, ADD_OPEN, ADD_CLOSE = "[-", "-]", "{+", "+}"
MARKS = (DEL_OPEN, DEL_CLOSE, ADD_OPEN, ADD_CLOSE)


_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _pairable(text: str) -> bool:
    return len(text) <= MAX_PAIR_CHARS and not any(mark in text for mark in MARKS)


_SPACES = str.maketrans("", "", " \t\r\x0b\x0c")


def _text_chars(tokens: list[str]) -> int:
    """Characters of ``tokens`` besides (ASCII) whitespace."""
    return len("".join(tokens).translate(_SPACES))


def _changes(
    a: list[str], b: list[str], allowed: float
) -> list[tuple[str, int, int, int, int]] | None:
    """The opcodes of the token lists ``a`` and ``b`` (as difflib's), or None when they
    surely change more than ``allowed`` characters besides whitespace.

    Their common first and last tokens are set apart first: most pairs differ
    in one place, and then no matching is needed.
    """
    n = min(len(a), len(b))
    p = 0
    while p < n and a[p] == b[p]:
        p += 1
    q = 0
    while q < n - p and a[-1 - q] == b[-1 - q]:
        q += 1
    a_end, b_end = len(a) - q, len(b) - q
    mid_a, mid_b = a[p:a_end], b[p:b_end]
    ops: list[tuple[str, int, int, int, int]] = [("equal", 0, p, 0, p)] if p else []
    if _text_chars(mid_a) + _text_chars(mid_b) <= allowed or not mid_a or not mid_b:
        ops.append(("replace", p, a_end, p, b_end))
    else:
        # what the middles share at most, counted by tokens: a lower bound of the change
        counts = Counter(t for t in mid_a if not t.isspace())
        shared = 0
        for t in mid_b:
            if counts.get(t, 0) > 0:
                counts[t] -= 1
                shared += len(t)
        if _text_chars(mid_a) + _text_chars(mid_b) - 2 * shared > allowed:
            return None
        matcher = SequenceMatcher(None, mid_a, mid_b, autojunk=False)
        ops += [(t, i1 + p, i2 + p, j1 + p, j2 + p) for t, i1, i2, j1, j2 in matcher.get_opcodes()]
    if q:
        ops.append(("equal", a_end, len(a), b_end, len(b)))
    return ops


def pair_line(old: str, new: str, tokens: tuple[list[str], list[str]] | None = None) -> str | None:
    """The pair line (without its ``~``) of the contents ``old`` and ``new``, or None
    when they do not differ in a few words (see the module doc).  ``tokens``: the
    words of both, when already split."""
    if old == new or not _pairable(old) or not _pairable(new):
        return None
    a, b = tokens if tokens is not None else (_tokens(old), _tokens(new))
    allowed = max(MAX_CHANGED_SHARE * max(len(old.strip()), len(new.strip())), MAX_CHANGED_SHORT)
    opcodes = _changes(a, b, allowed)
    if opcodes is None:
        return None
    ops = [op for op in opcodes if op[0] != "equal"]
    if not ops or len(ops) > MAX_CHANGES:
        return None
    changed = sum(_text_chars(a[i1:i2]) + _text_chars(b[j1:j2]) for _, i1, i2, j1, j2 in ops)
    if changed > allowed:
        return None
    out: list[str] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            out.append("".join(a[i1:i2]))
            continue
        if i2 > i1:
            out.append(DEL_OPEN + "".join(a[i1:i2]) + DEL_CLOSE)
        if j2 > j1:
            out.append(ADD_OPEN + "".join(b[j1:j2]) + ADD_CLOSE)
    line = "".join(out)
    if len(line) + 1 + MIN_SAVING > len(old) + len(new) + 2:
        return None
    return line


def sides(line: str) -> tuple[str, str]:
    """``(old, new)`` contents read back from a pair line (without its ``~``)."""
    old: list[str] = []
    new: list[str] = []
    pos = 0
    while pos < len(line):
        d = line.find(DEL_OPEN, pos)
        a = line.find(ADD_OPEN, pos)
        nxt = min((x for x in (d, a) if x >= 0), default=-1)
        if nxt < 0:
            old.append(line[pos:])
            new.append(line[pos:])
            break
        old.append(line[pos:nxt])
        new.append(line[pos:nxt])
        if nxt == d:
            end = line.find(DEL_CLOSE, d + 2)
            if end < 0:
                raise ValueError("a '[-' mark is not closed")
            old.append(line[d + 2 : end])
        else:
            end = line.find(ADD_CLOSE, a + 2)
            if end < 0:
                raise ValueError("a '{+' mark is not closed")
            new.append(line[a + 2 : end])
        pos = end + 2
    return "".join(old), "".join(new)


def _similar(old: str, new: str) -> bool:
    """A cheap bound first: lines of very different lengths are never a pair."""
    longer = max(len(old), len(new))
    return longer > 0 and abs(len(old) - len(new)) <= MAX_CHANGED_SHARE * longer


def pair_lines(removed: list[str], added: list[str]) -> dict[int, tuple[int, str]]:
    """Pairs of a change block: removed index -> (added index, pair line).

    Pairs keep the block's order (a later removed line pairs with a later
    added line), so the block can be read back side by side.
    """
    pairs: dict[int, tuple[int, str]] = {}
    if len(removed) * len(added) > MAX_COMPARISONS:
        for i, (old, new) in enumerate(zip(removed, added, strict=False)):
            if _similar(old, new) and (line := pair_line(old, new)) is not None:
                pairs[i] = (i, line)
        return pairs
    words: dict[int, list[str]] = {}  # added index -> its words, split once
    start = 0
    for i, old in enumerate(removed):
        mine: list[str] | None = None
        for j in range(start, min(len(added), start + PAIR_WINDOW)):
            new = added[j]
            if not _similar(old, new):
                continue
            if mine is None:
                mine = _tokens(old)
            theirs = words.get(j)
            if theirs is None:
                theirs = words[j] = _tokens(new)
            if (line := pair_line(old, new, (mine, theirs))) is not None:
                pairs[i] = (j, line)
                start = j + 1
                break
    return pairs
