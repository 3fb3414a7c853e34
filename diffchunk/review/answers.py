"""What fits one answer: about :data:`RESPONSE_TOKENS` tokens, whatever the content.

Raw text too large for one answer is served in parts that concatenate to it
exactly (:func:`part_spans`); a view (another format) is shortened line by
line and then cut at a line boundary (:func:`shortened`), with notes saying so.

A part ends at the last line end that keeps it within :data:`PART_BYTES`,
unless that would leave the part less than half full: a long line is then
cut inside, between two UTF-8 characters (so each part decodes alone, and the decoded parts join into the
decoded whole).  Bytes are counted, which bounds the characters an answer
holds.
"""

from __future__ import annotations

from ..limits import CHARS_PER_TOKEN, RESPONSE_TOKENS

PART_BYTES = RESPONSE_TOKENS * CHARS_PER_TOKEN - 2_000
"""A part of a raw chunk too large for one answer fills an answer but the few
lines of its header (2,000 characters of room)."""

LONG_LINE_CHARS = 2_000
"""Lines longer than this are shortened in a view too large for one answer:
one minified line must not take the whole answer."""


__all__ = [
    "CHARS_PER_TOKEN",
    "LONG_LINE_CHARS",
    "PART_BYTES",
    "RESPONSE_TOKENS",
    "fit_response",
    "part_spans",
    "shortened",
]


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


def _shorten_long_lines(text: str, limit: int) -> tuple[str, int]:
    out: list[str] = []
    shortened = 0
    for line in text.splitlines(keepends=True):
        if len(line) > limit:
            shortened += 1
            body = line.rstrip("\r\n")
            ending = line[len(body) :]
            line = f"{body[:limit]} … [{len(body) - limit} more characters]{ending}"
        out.append(line)
    return "".join(out), shortened


def shortened(text: str) -> tuple[str, list[str]]:
    """``text`` made to fit one answer (a format that adds to the text, or an
    oversized unit), and the notes that say how."""
    notes: list[str] = []
    text, shortened = _shorten_long_lines(text, LONG_LINE_CHARS)
    if shortened:
        notes.append(
            f"Note: {shortened} very long line(s) shortened to {LONG_LINE_CHARS} characters; "
            'format="raw" gives the exact text (in parts).'
        )
    text, left_out = fit_response(text)
    if left_out:
        notes.append(
            f"Note: cut after {text.count(chr(10))} lines to fit one response; {left_out} "
            'more line(s) follow. format="raw" gives the whole chunk in parts; a smaller '
            "max_chunk_lines makes chunks that fit."
        )
    return text, notes


def fit_response(text: str, limit: int = RESPONSE_TOKENS * CHARS_PER_TOKEN) -> tuple[str, int]:
    """``text`` up to its last line that fits one response (``limit`` characters: less
    when the answer adds its own words), and how many lines are left out."""
    if len(text) <= limit:
        return text, 0
    cut = text.rfind("\n", 0, limit) + 1 or limit
    rest = text[cut:]
    return text[:cut], rest.count("\n") + (not rest.endswith("\n"))
