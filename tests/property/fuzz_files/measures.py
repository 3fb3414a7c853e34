"""Similarity measures, written from the documented definitions, not from the tool's code.

The InDel ratio of two texts is 2 * LCS / (len(a) + len(b)) (1 for two empty
texts); partial_ratio is the best ratio of the shorter text against every
alignment in the longer one (each window of its length, and the shorter
prefixes and suffixes of the longer text at its ends), tried both ways for
equal lengths.
"""

from __future__ import annotations

from fractions import Fraction


def _masks(text: str) -> dict[str, int]:
    masks: dict[str, int] = {}
    for i, char in enumerate(text):
        masks[char] = masks.get(char, 0) | (1 << i)
    return masks


def _lcs_with(masks: dict[str, int], size: int, other: str) -> int:
    """LCS length of the text behind ``masks`` (``size`` characters) and ``other``.

    Bit-parallel: bit i of ``row`` is 0 where the LCS grew at position i.
    """
    full = (1 << size) - 1
    row = full
    for char in other:
        hit = row & masks.get(char, 0)
        row = ((row + hit) | (row - hit)) & full
    return size - bin(row).count("1")


def lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence of ``a`` and ``b``."""
    if len(a) < len(b):
        a, b = b, a
    return _lcs_with(_masks(b), len(b), a) if b else 0


def indel_ratio(a: str, b: str) -> Fraction:
    """Normalised InDel similarity, 0..1."""
    total = len(a) + len(b)
    return Fraction(2 * lcs_length(a, b), total) if total else Fraction(1)


def _aligned(short: str, long: str) -> Fraction:
    m, n = len(short), len(long)
    masks = _masks(short)
    windows = [long[i : i + m] for i in range(n - m + 1)]
    windows += [long[:k] for k in range(1, m)] + [long[n - k :] for k in range(1, m)]
    best_lcs, best_len = 0, 1
    for window in windows:
        common = _lcs_with(masks, m, window)
        # Compare 2*common/(m+len) fractions without building them.
        if common * (m + best_len) > best_lcs * (m + len(window)):
            best_lcs, best_len = common, len(window)
    return Fraction(2 * best_lcs, m + best_len)


def partial_ratio(a: str, b: str) -> Fraction:
    """Similarity of the best alignment of the shorter text in the longer, 0..1."""
    if not a and not b:
        return Fraction(1)
    if not a or not b:
        return Fraction(0)
    if len(a) > len(b):
        a, b = b, a
    best = _aligned(a, b)
    if len(a) == len(b) and best < 1:
        best = max(best, _aligned(b, a))
    return best


def substring_distance(pattern: str, text: str) -> int:
    """Fewest edits (Levenshtein) turning ``pattern`` into some substring of ``text``."""
    column = list(range(len(pattern) + 1))
    best = column[-1]
    for char in text:
        diagonal, column[0] = column[0], 0
        for i, want in enumerate(pattern, 1):
            above = column[i]
            column[i] = min(above + 1, column[i - 1] + 1, diagonal + (want != char))
            diagonal = above
        best = min(best, column[-1])
    return best


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_fold(text: str) -> str:
    return text.translate(_ASCII_LOWER)


EPSILON = Fraction(1, 10**9)
"""Scores this close to a bound may fall either side of it in floating point."""


def at_least(value: Fraction, bound: Fraction) -> bool | None:
    """``value >= bound``, or None when too close to call."""
    if value >= bound + EPSILON:
        return True
    if value < bound - EPSILON:
        return False
    return None
