"""Reference models of exact edits, exact and regex search, and fuzzy search.

Each is written on the decoded text from the documented rules (see the
package doc), not from the tool's code.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from fractions import Fraction

from .cases import EditCase, SearchCase
from .measures import ascii_fold, at_least, partial_ratio, substring_distance
from .textfile import TextFile, model_lines


def occurrences(text: str, needle: str) -> list[int]:
    """Every start of ``needle`` in ``text``, overlapping ones included."""
    found = []
    pos = text.find(needle)
    while pos >= 0:
        found.append(pos)
        pos = text.find(needle, pos + 1)
    return found


def expected_edit(case: EditCase) -> bytes | None:
    """The model: the new file bytes, or None when the batch must be refused."""
    tf = case.file
    text = tf.text
    spans = []
    for search, replace in case.changes:
        hits = occurrences(text, search)
        if len(hits) != 1:
            return None
        spans.append((hits[0], hits[0] + len(search), replace))
    spans.sort()
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        if start < end:
            return None
    out = []
    cursor = 0
    for start, end, replace in spans:
        out.append(text[cursor:start])
        out.append(replace)
        cursor = end
    out.append(text[cursor:])
    return encoded(tf, "".join(out))


def encoded(tf: TextFile, new_text: str) -> bytes | None:
    """``new_text`` (LF) stored like ``tf``; None when its encoding cannot hold it."""
    try:
        raw = new_text.replace("\n", tf.effective_newline()).encode(tf.effective_encoding())
    except UnicodeEncodeError:
        return None
    return (b"\xef\xbb\xbf" if tf.bom else b"") + raw


def expected_lines(case: SearchCase, *, case_sensitive: bool, invert: bool) -> list[int]:
    """1-based numbers of matching lines (like ``grep -n``; a final line break ends a line)."""
    pattern = case.pattern
    out = []
    for number, line in enumerate(model_lines(case.file), 1):
        if case_sensitive:
            hit = pattern in line
        else:
            hit = pattern.lower() in line.lower()
        if hit != invert:
            out.append(number)
    return out


# What RE2 cannot run, as the generated patterns write it: a lookaround or a
# backreference (a digit after an escaped backslash is not one).
_RE2_REFUSES = re.compile(r"\(\?<?[=!]|(?<!\\)(?:\\\\)*\\[1-9]|\(\?P=")
# RE2's word boundaries: ASCII word characters on one side only (or on both, for
# \B), whatever the case folding.
_ASCII_WORD = "[0-9A-Za-z_]"
_ASCII_BOUNDARY = f"(?-i:(?<!{_ASCII_WORD})(?={_ASCII_WORD})|(?<={_ASCII_WORD})(?!{_ASCII_WORD}))"
_ASCII_NON_BOUNDARY = (
    f"(?-i:(?<={_ASCII_WORD})(?={_ASCII_WORD})|(?<!{_ASCII_WORD})(?!{_ASCII_WORD}))"
)
_BOUNDARY = re.compile(r"(?<!\\)((?:\\\\)*)\\([bB])")


def regex_lines(pattern: str, lines: list[str], *, case_sensitive: bool) -> list[int] | None:
    """1-based numbers of the lines ``re.search`` finds ``pattern`` in, ``\\b`` and
    ``\\B`` being RE2's ASCII ones; None if the tool must refuse it (Python refuses
    it, or it holds what RE2 cannot run)."""
    flags = re.MULTILINE | (0 if case_sensitive else re.IGNORECASE)
    try:
        re.compile(pattern, flags)
    except re.error:
        return None
    if _RE2_REFUSES.search(pattern):
        return None
    ascii_words = _BOUNDARY.sub(
        lambda m: m.group(1) + (_ASCII_BOUNDARY if m.group(2) == "b" else _ASCII_NON_BOUNDARY),
        pattern,
    )
    compiled = re.compile(ascii_words, flags)
    return [n for n, line in enumerate(lines, 1) if compiled.search(line) is not None]


FUZZY_CUTOFF = Fraction(80, 100)
FUZZY_SHORT_CUTOFF = Fraction(75, 100)
FUZZY_SHORT_PATTERN = 6
"""The documented cutoffs of fuzzy search (``diffchunk.files.line_search``): 80, or 75
for patterns of up to 6 characters (blanks around them not counted)."""


@dataclass(frozen=True)
class FuzzyLine:
    score: Fraction  # partial_ratio, 0..1
    contains: bool  # holds the pattern (case ignored)
    must_find: bool  # the documented prefilter cannot drop it


@dataclass(frozen=True)
class FuzzyModel:
    cutoff: Fraction
    lines: tuple[FuzzyLine, ...]


def fuzzy_search_model(pattern: str, lines: list[str]) -> FuzzyModel:
    # Case is ignored: str.lower on both sides, ASCII letters alone for an
    # ASCII pattern (which scores every line the same; see fuzzy_search).
    fold = ascii_fold if pattern.isascii() else str.lower
    needle = fold(pattern)
    core = needle.strip()
    cutoff = FUZZY_SHORT_CUTOFF if len(core) <= FUZZY_SHORT_PATTERN else FUZZY_CUTOFF
    # Lines too short to reach the cutoff with the whole pattern are skipped
    # (n pattern characters need n * c / (2 - c) of them); the prefilter keeps
    # lines holding one of the pattern's pieces, so a line within one edit of
    # the pattern (two for 15 characters and more) is always a candidate.
    shortest = math.floor(len(core) * cutoff / (2 - cutoff))
    edits = 0 if len(core) < 4 else 1 if len(core) < 15 else 2
    out = []
    for line in lines:
        folded = fold(line)
        contains = needle in folded
        score = Fraction(1) if contains else partial_ratio(needle, folded)
        near = (
            edits > 0
            and at_least(score, cutoff) is True
            and len(folded.rstrip()) >= shortest
            and substring_distance(core, folded) <= edits
        )
        out.append(FuzzyLine(score, contains, contains or near))
    return FuzzyModel(cutoff, tuple(out))
