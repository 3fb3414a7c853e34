"""Raw text too large for one answer, served in parts that concatenate to it exactly.

A part ends at the last line end that keeps it within :data:`PART_BYTES`,
unless that would leave the part less than half full: a long line is then
cut inside, between two UTF-8 characters (so each part decodes alone, and the decoded parts join into the
decoded whole).  Bytes are counted, which bounds the characters an answer
holds.
"""

from __future__ import annotations

__all__ = ["PART_BYTES", "part_spans"]

# A part of a raw chunk fills one answer (20k tokens of about 4 characters)
# but the few lines of its header.
PART_BYTES = 78_000


def part_spans(raw: bytes, limit: int = PART_BYTES) -> list[tuple[int, int]]:
    """``(start, end)`` of each part of ``raw`` (one span when it fits; none when empty)."""
    if len(raw) <= limit:
        return [(0, len(raw))] if raw else []
    spans: list[tuple[int, int]] = []
    start = 0
    while len(raw) - start > limit:
        cut = raw.rfind(b"\n", start, start + limit) + 1
        if cut <= start + limit // 2:  # a line too long to end the part: cut inside it
            cut = start + limit
            # back over at most three continuation bytes (0b10xxxxxx) of a character
            while cut > start + limit - 3 and raw[cut] & 0xC0 == 0x80:
                cut -= 1
        spans.append((start, cut))
        start = cut
    spans.append((start, len(raw)))
    return spans
