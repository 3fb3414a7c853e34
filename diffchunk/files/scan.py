"""Every exact occurrence of a few needles in a file, with line numbers, in one pass.

The edit matcher locates each change's search text with it (:mod:`.locate`),
and the fuzzy block search of a big file its anchor words
(:mod:`.fuzzy_block`).  The file is read in the reader's overlapping blocks
(:meth:`.Reader.blocks`): a needle may hold line breaks and straddle two
blocks; resident memory stays at one block however large the file.
Overlapping occurrences count; a needle found more than ``limit`` times is
no longer looked for (its list then holds ``limit + 1`` occurrences).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .byte_reader import Reader

MAX_OCCURRENCES = 1000
"""Occurrences of one needle recorded before the exact scan stops looking for
it (an edit's search text that occurs more often is ambiguous anyway)."""


@dataclass(frozen=True, slots=True)
class Occurrence:
    """Where a needle starts: a byte offset and its 1-based line."""

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
    for offset, buf, body, filled in source.blocks(overlap):
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
