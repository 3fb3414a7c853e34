"""Skeletons of large source files: function bodies elided, rows kept.

Above ``outline.SKELETON_MIN_BYTES`` a file is reduced before it is parsed:
the bodies of functions are replaced by as many newlines as they held, so
row numbers are unchanged while the parser sees a fraction of the text.
Class-like blocks (class, namespace, impl...) and function bodies over
:data:`SKELETON_KEEP_BODY_BYTES` that contain further definitions are kept,
so methods and the nested functions of big closures still appear;
definitions nested in small function bodies do not.

Three shapes are recognised (:data:`SKELETONS` says which language uses
which): brace blocks (a line ending with ``{``, ``[`` or ``(``, deeper lines,
a closing line at the same indentation), Python ``def`` bodies (replaced
by ``pass`` on their last row) and Ruby ``def ... end``.  Anything else is
left alone.

Each skeleton can also say which lines it elided (``spans``: a list it
appends ``(first, last)`` line numbers to, in order): the outline attaches
them to the item holding them (``OutlineItem.elided``), so that a comparison
of two outlines does not take a definition hidden in one of them for one
removed or added.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TypeAlias

from ..limits import BLOCK_END_PATTERNS_KEPT, SKELETON_KEEP_BODY_BYTES

_CLASS_LIKE_HEADER = re.compile(
    rb"\b(?:class|interface|namespace|module|enum|struct|trait|impl|union|record|object|extern)\b"
)
# A line opening a block that looks like a definition: a large body holding
# one is outlined inside rather than elided.
_NESTED_DEFINITION = re.compile(
    rb"^[^\n]*?(?:\b(?:function|func|fn|def|class|interface|struct|impl|trait|namespace|module)\b|=>)"
    rb"[^\n]*\{[ \t]*\r?$",
    re.M,
)
# A line ending with an opening bracket: a block, object, array or argument list.
_OPENER_AT_EOL = re.compile(rb"[{\[(][ \t]*\r?$", re.M)
_INDENT = re.compile(rb"[ \t]*")
# "def" ending its line with ":" (Python) / "def" starting a line (Ruby).
_PY_DEF_HEADER = re.compile(rb"def[ \t][^\n]*:[ \t]*(?:#[^\n]*)?\r?$", re.M)
_RUBY_DEF_HEADER = re.compile(rb"def[ \t][^\n]*\r?$", re.M)
_NESTED_DEF = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]", re.M)
_block_end_patterns: dict[tuple[bytes, bool], re.Pattern[bytes]] = {}

Spans: TypeAlias = list[tuple[int, int]] | None


class _Lines:
    """Line numbers of increasing offsets of one text, counted once."""

    __slots__ = ("_line", "_pos", "_text")

    def __init__(self, text: bytes) -> None:
        self._text = text
        self._pos = 0
        self._line = 1

    def at(self, pos: int) -> int:
        """The 1-based line of offset ``pos`` (no smaller than the last one asked)."""
        self._line += self._text.count(b"\n", self._pos, pos)
        self._pos = pos
        return self._line


def _note(spans: Spans, lines: _Lines, pos: int, rows: int) -> None:
    """Record that ``rows`` lines from offset ``pos`` on were elided."""
    if spans is not None and rows > 0:
        first = lines.at(pos)
        spans.append((first, first + rows - 1))


def _block_end(indent: bytes, hash_comments: bool = False) -> re.Pattern[bytes]:
    """Finds the first line after a header that is neither blank nor deeper.

    With ``hash_comments`` a ``#`` comment line counts as blank (Python).
    """
    key = (indent, hash_comments)
    pattern = _block_end_patterns.get(key)
    if pattern is None:
        blank = rb"[ \t]*(?:#[^\n]*)?\r?\n" if hash_comments else rb"[ \t]*\r?\n"
        pattern = re.compile(rb"\n(?!" + re.escape(indent) + rb"[ \t]|" + blank + rb")")
        if len(_block_end_patterns) < BLOCK_END_PATTERNS_KEPT:
            _block_end_patterns[key] = pattern
    return pattern


def _def_line(text: bytes, header_start: int) -> tuple[int, bytes] | None:
    """(line start, indentation) when only indentation (or "async") precedes."""
    line_start = text.rfind(b"\n", 0, header_start) + 1
    prefix = text[line_start:header_start]
    stripped = prefix.strip()
    if stripped and stripped != b"async":
        return None
    indent_end = _INDENT.match(text, line_start).end()  # type: ignore[union-attr]
    return line_start, text[line_start:indent_end]


# An elided body: its start and end offsets, what stands in for it, and the rows of
# the original it stands for (recorded in ``spans``).
_Elision = tuple[int, int, bytes, int]


def _elided(text: bytes, elisions: Iterator[_Elision], spans: Spans) -> bytes:
    """``text`` with each body of ``elisions`` (in order, not overlapping) replaced."""
    out: list[bytes] = []
    copied = 0
    lines = _Lines(text)
    for start, end, replacement, rows in elisions:
        _note(spans, lines, start, rows)
        out.append(text[copied:start])
        out.append(replacement)
        copied = end
    out.append(text[copied:])
    return b"".join(out)


def _brace_bodies(text: bytes) -> Iterator[_Elision]:
    """Block bodies, replaced by their blank rows: see the module doc.

    A block is a line ending with ``{``, ``[`` or ``(``, then lines indented
    deeper (or blank), then a line at the same indentation starting with the
    closing bracket.  Formatted code (by hand or by a formatter) has this
    shape; anything else is left alone.
    """
    pos = 0
    closers = {ord("{"): b"}", ord("["): b"]", ord("("): b")"}
    while True:
        opener = _OPENER_AT_EOL.search(text, pos)
        if opener is None:
            return
        newline = opener.end()  # the "\n" ending the header line (or the end)
        pos = newline + 1
        line_start = text.rfind(b"\n", 0, opener.start()) + 1
        indent_end = _INDENT.match(text, line_start).end()  # type: ignore[union-attr]
        if indent_end == opener.start() and text[opener.start()] != ord("{"):
            continue  # a lone "[" or "(" line: not worth the risk
        indent = text[line_start:indent_end]
        end = _block_end(indent).search(text, newline)
        if end is None:
            continue
        close = end.start() + 1
        if not text.startswith(indent + closers[text[opener.start()]], close):
            continue
        header = text[indent_end : opener.start()]
        if not header.strip() and line_start > 0:
            # A lone bracket (Allman style): the header is the line above.
            header = text[text.rfind(b"\n", 0, line_start - 1) + 1 : line_start]
        if _CLASS_LIKE_HEADER.search(header) is not None:
            continue  # keep class bodies: their methods are outlined
        if close - pos > SKELETON_KEEP_BODY_BYTES and _NESTED_DEFINITION.search(text, pos, close):
            continue  # a big body holding definitions: outline inside it
        rows = text.count(b"\n", pos, close)
        yield pos, close, b"\n" * rows, rows
        pos = close


def _python_bodies(text: bytes) -> Iterator[_Elision]:
    """``def`` bodies, replaced by their rows with ``pass`` on the body's last row."""
    pos = 0
    while True:
        header = _PY_DEF_HEADER.search(text, pos)
        if header is None:
            return
        pos = header.end() + 1
        found = _def_line(text, header.start())
        if found is None:
            continue
        _, indent = found
        end = _block_end(indent, hash_comments=True).search(text, header.end())
        close = end.start() + 1 if end is not None else len(text)
        body = text[pos:close]
        if not body.strip():
            continue
        if b'"""' in body or b"'''" in body or b"\\\n" in body:
            # The "end" may be a line inside a triple-quoted string or after a
            # backslash continuation (a quote in a comment fools any count):
            # keep the body.
            continue
        if len(body) > SKELETON_KEEP_BODY_BYTES and _NESTED_DEF.search(body) is not None:
            continue  # a big body holding definitions: outline inside it
        before = body.rstrip().count(b"\n")
        after = body.count(b"\n") - before - 1
        # The rows elided: the body's up to its last one (where ``pass`` stands).
        yield pos, close, b"\n" * before + indent + b" pass\n" + b"\n" * after, before + 1
        pos = close


def _ruby_bodies(text: bytes) -> Iterator[_Elision]:
    """``def ... end`` bodies, replaced by their blank rows."""
    pos = 0
    while True:
        header = _RUBY_DEF_HEADER.search(text, pos)
        if header is None:
            return
        pos = header.end() + 1
        found = _def_line(text, header.start())
        if found is None or found[1] + b"def" != text[found[0] : header.start() + 3]:
            continue
        _, indent = found
        end = _block_end(indent).search(text, header.end())
        if end is None:
            continue
        close = end.start() + 1
        if not text.startswith(indent + b"end", close):
            continue
        rows = text.count(b"\n", pos, close)
        yield pos, close, b"\n" * rows, rows
        pos = close


def _brace_skeleton(text: bytes, spans: Spans = None) -> bytes:
    return _elided(text, _brace_bodies(text), spans)


def _python_skeleton(text: bytes, spans: Spans = None) -> bytes:
    return _elided(text, _python_bodies(text), spans)


def _ruby_skeleton(text: bytes, spans: Spans = None) -> bytes:
    return _elided(text, _ruby_bodies(text), spans)


SKELETONS: dict[str, Callable[[bytes, Spans], bytes]] = {
    "python": _python_skeleton,
    "ruby": _ruby_skeleton,
    **{
        lang: _brace_skeleton
        for lang in (
            "javascript",
            "typescript",
            "tsx",
            "go",
            "rust",
            "java",
            "c",
            "cpp",
            "csharp",
            "php",
        )
    },
}
