"""What a line search looks for, and where it finds it in one window.

A *matcher* (:func:`build_matcher`) finds the pattern in a window of whole
lines (the reader's line windows, :mod:`.byte_reader`) and works on bytes
wherever it can:

- *exact*: the pattern, encoded like the file, is found with ``bytes.find``
  (``bytes.lower`` of the window first when case-insensitive and the pattern
  is ASCII); a line counts once however many times it matches, like
  ``grep -c``;
- *regex* (and exact search with Unicode case folding): the search engine
  (:mod:`diffchunk.regex`, RE2: linear time) on the window as UTF-8 lines
  ending in ``\n`` (the window itself when it is that already, else decoded
  and encoded again), in line mode, to find candidate lines; a line matches
  when the pattern matches it alone, without its line ending (as
  ``re.search(pattern, line)``).

:func:`window_hits` turns a matcher's finds into ``(line_start, line_end)``
offsets of the window's matching lines; :class:`Hit` and :class:`Found`
are what every line search (exact, regex, ``grep``, fuzzy) returns: byte
offsets of line starts and 1-based line numbers, which the tools turn into
text.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..regex import Pattern, compile_literal, compile_regex
from .access import FileVersion
from .byte_reader import Window, skip_lines

DENSE_MATCHES = 16384
"""Matching lines per window after which exact counting switches to
``findall`` (faster when nearly every line matches)."""


@dataclass(slots=True)
class Hit:
    """One matching line."""

    offset: int
    """Byte offset of the line start in ``FileVersion.data``."""
    line_number: int
    score: float
    """Similarity 0.0-1.0 (1.0 for exact and regex matches)."""
    match_type: str


@dataclass(slots=True)
class Found:
    """What a search found: the lines kept, and how many lines matched in all."""

    hits: list[Hit]
    total: int
    timed_out: bool = False
    stopped_line: int | None = None
    """With ``timed_out``: the scan covered the lines before this one."""
    budget: float | None = None
    """With ``timed_out``: the seconds the scan was allowed."""


class Matcher:
    """Finds the first match at or after ``pos`` in a prepared window."""

    kind = "exact"

    def prepare(self, buf: Window, length: int) -> Window:
        return buf

    def find(self, hay: Window, pos: int, end: int) -> int:
        raise NotImplementedError

    def count_lines(self, hay: Window, length: int) -> int | None:
        """Matching lines of a whole window, or ``None`` to walk hits instead."""
        return None


class Literal(Matcher):
    def __init__(self, needle: bytes, lower: bool) -> None:
        self.needle = needle.lower() if lower else needle
        self.lower = lower
        self.rest_of_line = re.compile(re.escape(self.needle) + rb"[^\n]*")

    def prepare(self, buf: Window, length: int) -> Window:
        if self.lower:
            return buf[:length].lower()
        return buf

    def find(self, hay: Window, pos: int, end: int) -> int:
        return hay.find(self.needle, pos, end)

    def count_lines(self, hay: Window, length: int) -> int | None:
        # One pass: find, then skip to the next line; when hits are dense,
        # let findall (one match per line, as each runs to its line's end)
        # count the rest of the window in C.
        find = hay.find
        needle = self.needle
        count = 0
        pos = 0
        while True:
            hit = find(needle, pos, length)
            if hit < 0:
                return count
            count += 1
            end = find(b"\n", hit, length)
            if end < 0:
                return count
            pos = end + 1
            if count >= DENSE_MATCHES:
                return count + len(self.rest_of_line.findall(hay, pos, length))


class TextMatcher(Matcher):
    """A pattern of the search engine over the window's UTF-8 lines (every regex; exact
    search with Unicode case folding)."""

    def __init__(self, pattern: Pattern, encoding: str, kind: str) -> None:
        self.pattern = pattern
        self.encoding = encoding
        self.kind = kind
        self.utf8 = codecs.lookup(encoding).name in ("utf-8", "ascii")


def build_matcher(
    version: FileVersion, pattern: str, *, regex: bool, case_sensitive: bool
) -> Matcher:
    """The fastest matcher that honours the options for this file's encoding."""
    if regex:
        # Always on characters: the engine reads UTF-8, so ".", "\w", "\s", "\b",
        # classes and case folding see characters, not the file's bytes.
        compiled = compile_regex(pattern, case_sensitive=case_sensitive)
        return TextMatcher(compiled, version.data_encoding, "regex")
    if case_sensitive or pattern.isascii():
        needle = version.encode(pattern)
        if needle is None:
            # The file's encoding cannot hold the pattern: it cannot occur.
            needle = b"\x00\x00never\x00\x00"
        return Literal(needle, lower=not case_sensitive)
    folded = compile_literal(pattern, case_sensitive=False)
    return TextMatcher(folded, version.data_encoding, "exact")


def _line_start(hay: Window, pos: int) -> int:
    return hay.rfind(b"\n", 0, pos) + 1


def _utf8_lines(matcher: TextMatcher, buf: Window, length: int) -> tuple[bytes | bytearray, bool]:
    """The window as UTF-8 lines ending in ``\n`` (the ``\r`` of CRLF is not part of a
    line), and whether its offsets are the window's."""
    raw = buf if len(buf) == length else buf[:length]  # a reused buffer holds more
    crlf = raw.find(b"\r") >= 0
    if matcher.utf8:
        try:
            codecs.utf_8_decode(raw, "strict", True)
        except UnicodeDecodeError:
            pass
        else:
            if not crlf:
                return raw, True
            lines = raw.replace(b"\r\n", b"\n")
            return lines, len(lines) == length
    text = codecs.decode(raw, matcher.encoding, "replace")
    dropped = crlf and "\r\n" in text
    if dropped:
        text = text.replace("\r\n", "\n")
    lines = text.encode("utf-8", "surrogatepass")
    # No \r dropped and one byte per character: offsets in ``lines`` are offsets in ``buf``.
    return lines, not dropped and len(lines) == length


def _text_window_hits(matcher: TextMatcher, buf: Window, length: int) -> Iterator[tuple[int, int]]:
    """``(line_start, line_end)`` byte offsets of the window's lines the pattern matches
    as ``re.search(pattern, line)`` does on each line without its line ending.

    A search over the whole window jumps to candidate lines.  A match within
    a non-empty line is that line's match (``^``, ``$``, ``\\b``, ``\\B`` see
    a line break as they see the ends of a string); a match across a line
    break or in an empty line, or any line when the pattern asserts the ends
    of the text (``\\A``, ``\\Z``, line mode off), counts only if the pattern
    matches the line alone.
    """
    lines, same_offsets = _utf8_lines(matcher, buf, length)
    search = matcher.pattern.search
    every_line = matcher.pattern.ends_of_text
    size = len(lines)
    pos = 0  # start of the next line to look at, in ``lines``
    known_at = known_byte = 0  # a line start in ``lines`` and in ``buf``
    while pos < size:
        if every_line:
            start = pos
            end = lines.find(b"\n", start)
            crossing = True
        else:
            found = search(lines, pos)
            if found is None:
                return
            begin, finish = found
            start = lines.rfind(b"\n", pos, begin) + 1 or pos
            if start >= size:
                return  # an empty match after the final line break: no line there
            end = lines.find(b"\n", begin)
            crossing = 0 <= end < finish
        if end < 0:
            end = size
        pos = end + 1
        if (crossing or start == end) and search(lines[start:end]) is None:
            continue  # (empty lines too: "\B" never matches an empty string)
        if same_offsets:
            yield start, end
            continue
        byte_start = skip_lines(buf, known_byte, lines.count(b"\n", known_at, start), length)
        byte_end = buf.find(b"\n", byte_start, length)
        if byte_end < 0:
            byte_end = length
        yield byte_start, byte_end
        known_at, known_byte = pos, byte_end + 1


def window_hits(matcher: Matcher, hay: Window, length: int) -> Iterator[tuple[int, int]]:
    """``(line_start, line_end)`` offsets (``line_end`` at ``\\n`` or ``length``)."""
    if isinstance(matcher, TextMatcher):
        yield from _text_window_hits(matcher, hay, length)
        return
    find = matcher.find
    pos = 0
    while pos < length:
        hit = find(hay, pos, length)
        if hit < 0:
            return
        start = _line_start(hay, hit)
        end = hay.find(b"\n", hit, length)
        if end < 0:
            end = length
        yield start, end
        pos = end + 1
