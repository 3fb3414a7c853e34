"""The size of a file tool's answer as it is sent: JSON text, escapes included.

A tool answers the compact JSON of its result (``ensure_ascii=False``), where a
quote, a backslash or a line break in the content takes two characters and
another control character six (``\\u0001``): content capped at a number of
characters can answer several percent more (80,000 characters of Python read
answered 83,272).  So the read and search tools measure what they send:
:func:`json_size` of a result, and :func:`fitting_head`/:func:`fitting_tail`
to cut a text at a line boundary so that its escaped form fits the room left.
"""

from __future__ import annotations

import json
from typing import Any

ECHOED_PATTERN_CHARS = 500
"""Characters of a search pattern a file tool's answer repeats back: enough to
recognise it; a pattern of a whole pasted file would otherwise take the room
of the results."""


def json_size(value: Any) -> int:
    """The length of ``value`` as the JSON text a tool answers (compact separators)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def escaped_size(text: str) -> int:
    """The characters ``text`` takes inside a JSON string (its quotes aside)."""
    return len(json.dumps(text, ensure_ascii=False)) - 2


def _chars_fitting(text: str, room: int, from_end: bool) -> int:
    """The most characters of ``text`` (its start, or its end) whose escaping fits ``room``."""
    low, high = 0, min(len(text), max(room, 0))
    while low < high:
        mid = (low + high + 1) // 2
        part = text[len(text) - mid :] if from_end else text[:mid]
        if escaped_size(part) <= room:
            low = mid
        else:
            high = mid - 1
    return low


def fitting_head(text: str, room: int) -> int:
    """Where to cut ``text`` so that ``text[:cut]`` escaped takes at most ``room``
    characters: ``len(text)`` when it all fits, else at a line break (the break left
    out), else, when not even the first line fits, inside it."""
    room = max(room, 0)
    if len(text) <= room and escaped_size(text) <= room:
        return len(text)
    # An escaped text is never shorter than the text: no fitting prefix is longer
    # than ``room``, so lines ending beyond it need no look.
    used, best, pos = 0, -1, 0
    while True:
        nl = text.find("\n", pos, room + 1)
        if nl < 0:
            break
        used += escaped_size(text[pos:nl]) + (2 if pos else 0)  # the break before it: \n
        if used > room:
            break
        best, pos = nl, nl + 1
    if best >= 0:
        return best
    first = text.find("\n")
    return _chars_fitting(text if first < 0 else text[:first], room, from_end=False)


def fitting_tail(text: str, room: int) -> int:
    """Where ``text`` must start so that ``text[start:]`` escaped takes at most ``room``
    characters: 0 when it all fits, else just after a line break, else, when not even
    the last line fits, inside it."""
    room = max(room, 0)
    if len(text) <= room and escaped_size(text) <= room:
        return 0
    floor = max(len(text) - room - 1, 0)
    used, best, end = 0, -1, len(text)
    while True:
        nl = text.rfind("\n", floor, end)
        if nl < 0:
            break
        used += escaped_size(text[nl + 1 : end]) + (2 if end < len(text) else 0)
        if used > room:
            break
        best, end = nl + 1, nl
    if best >= 0:
        return best
    last = text.rfind("\n") + 1
    return len(text) - _chars_fitting(text[last:], room, from_end=True)


def echoed(pattern: str) -> str:
    """``pattern`` as an answer repeats it: whole, or its start and its length when it
    is longer than :data:`ECHOED_PATTERN_CHARS`."""
    if len(pattern) <= ECHOED_PATTERN_CHARS:
        return pattern
    return f"{pattern[:ECHOED_PATTERN_CHARS]}… ({len(pattern):,} characters)"
