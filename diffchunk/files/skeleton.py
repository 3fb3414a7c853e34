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

The work is bounded: a block kept open (a class, a big body holding
definitions) inside :data:`OUTLINE_MAX_DEPTH` others is elided whatever it holds,
and ``cut`` (a list) is told where that first happened; each block's end is
searched once per block kept around it, so a file is scanned at most
``OUTLINE_MAX_DEPTH + 1`` times whatever its nesting, and every scan here is linear
in the text it reads (no pattern backtracks over a line).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TypeAlias

from ..limits import OUTLINE_MAX_DEPTH

SKELETON_KEEP_BODY_BYTES = 64 * 1024
"""Function bodies larger than this are outlined inside even in a skeleton
(a file that is one huge function keeps its inner definitions)."""

BLOCK_END_PATTERNS_KEPT = 256
"""Compiled block-end patterns of the skeleton kept (one per indentation)."""

SCAN_FACTOR = 8
"""Bytes a skeleton's searches for block ends may scan, as a multiple of the
file's size: each search scans the block it ends, and nested blocks are
scanned again by each one around them (2,400 nested Python functions: 86 s of
scanning); past it the skeleton elides nothing more and the parser reads the
rest whole."""


_CLASS_LIKE_HEADER = re.compile(
    rb"\b(?:class|interface|namespace|module|enum|struct|trait|impl|union|record|object|extern)\b"
)
# A line opening a block that looks like a definition (a word of these before a
# "{" ending the line): a large body holding one is outlined inside rather than
# elided.  Two scans, each linear: the "{" ending a line, then its line's words.
_BRACE_AT_EOL = re.compile(rb"\{[ \t]*\r?$", re.M)
_DEFINITION_WORD = re.compile(
    rb"\b(?:function|func|fn|def|class|interface|struct|impl|trait|namespace|module)\b|=>"
)
# A line ending with an opening bracket: a block, object, array or argument list.
_OPENER_AT_EOL = re.compile(rb"[{\[(][ \t]*\r?$", re.M)
_INDENT = re.compile(rb"[ \t]*")
# A Python "def" line (indentation and "async" before it), and the ":" ending it
# (a comment may follow); "def" starting a line (Ruby).
_PY_DEF_START = re.compile(rb"^([ \t]*)(?:async[ \t]+)?def[ \t]", re.M)
_PY_HEADER_END = re.compile(rb":[ \t]*(?:#|\r?$)", re.M)
_RUBY_DEF_HEADER = re.compile(rb"def[ \t][^\n]*\r?$", re.M)
_NESTED_DEF = _PY_DEF_START
_NONBLANK = re.compile(rb"\S")
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


def _holds_definition(text: bytes, start: int, stop: int) -> bool:
    """Whether a line of ``text[start:stop]`` opens a block that looks like a definition."""
    for brace in _BRACE_AT_EOL.finditer(text, start, stop):
        line_start = text.rfind(b"\n", start, brace.start()) + 1 or start
        if _DEFINITION_WORD.search(text, line_start, brace.start()) is not None:
            return True
    return False


class _Walk:
    """What bounds one skeleton's walk: the blocks kept open around its position (their
    nesting is capped) and the bytes its searches may still scan."""

    __slots__ = ("_budget", "_cut", "_ends", "_text")

    def __init__(self, text: bytes, cut: list[str] | None) -> None:
        self._text = text
        self._cut = cut
        self._ends: list[int] = []
        self._budget = SCAN_FACTOR * max(len(text), 1)

    def full(self, pos: int) -> bool:
        """Whether a block starting at ``pos`` sits inside OUTLINE_MAX_DEPTH kept ones."""
        while self._ends and self._ends[-1] <= pos:
            self._ends.pop()
        return len(self._ends) >= OUTLINE_MAX_DEPTH

    def keep(self, end: int) -> None:
        self._ends.append(end)

    def too_deep(self, pos: int) -> None:
        """Say (once) that a block at ``pos`` was elided for its depth alone."""
        if self._cut is not None:
            line = self._text.count(b"\n", 0, pos) + 1
            self._cut.append(
                f"definitions nested more than {OUTLINE_MAX_DEPTH} deep are left out (from line {line})"
            )
            self._cut = None

    def block_end(self, indent: bytes, start: int, hash_comments: bool = False) -> int | None:
        """Where the block whose header ends at ``start`` ends (its closing line, or
        the end of the text), found with :func:`_block_end`; None once the walk has
        scanned SCAN_FACTOR times the text (it elides nothing more)."""
        found = _block_end(indent, hash_comments).search(self._text, start)
        stop = len(self._text) if found is None else found.start() + 1
        self._budget -= stop - start
        return stop if self._budget >= 0 else None

    def scan(self, start: int, stop: int) -> bool:
        """Count a scan of ``text[start:stop]``; False once the budget is gone."""
        self._budget -= stop - start
        return self._budget >= 0


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


def _brace_bodies(text: bytes, cut: list[str] | None = None) -> Iterator[_Elision]:
    """Block bodies, replaced by their blank rows: see the module doc.

    A block is a line ending with ``{``, ``[`` or ``(``, then lines indented
    deeper (or blank), then a line at the same indentation starting with the
    closing bracket.  Formatted code (by hand or by a formatter) has this
    shape; anything else is left alone.
    """
    pos = 0
    walk = _Walk(text, cut)
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
        close = walk.block_end(indent, newline)
        if close is None:
            return
        if not text.startswith(indent + closers[text[opener.start()]], close):
            continue
        header = text[indent_end : opener.start()]
        if not header.strip() and line_start > 0:
            # A lone bracket (Allman style): the header is the line above.
            header = text[text.rfind(b"\n", 0, line_start - 1) + 1 : line_start]
        # Keep class bodies (their methods are outlined) and big bodies holding
        # definitions (outlined inside), unless nested too deep.
        big = close - pos > SKELETON_KEEP_BODY_BYTES
        if big and not walk.scan(pos, close):
            return
        if _CLASS_LIKE_HEADER.search(header) is not None or (
            big and _holds_definition(text, pos, close)
        ):
            if not walk.full(line_start):
                walk.keep(close)
                continue
            walk.too_deep(line_start)
        rows = text.count(b"\n", pos, close)
        yield pos, close, b"\n" * rows, rows
        pos = close


def _python_bodies(text: bytes, cut: list[str] | None = None) -> Iterator[_Elision]:
    """``def`` bodies, replaced by their rows with ``pass`` on the body's last row."""
    pos = 0
    walk = _Walk(text, cut)
    while True:
        start = _PY_DEF_START.search(text, pos)
        if start is None:
            return
        eol = text.find(b"\n", start.end())
        header_end = len(text) if eol < 0 else eol
        pos = header_end + 1
        if _PY_HEADER_END.search(text, start.end(), header_end) is None:
            continue  # not a whole "def ...:" line
        indent = start.group(1)
        close = walk.block_end(indent, header_end, hash_comments=True)
        if close is None:
            return
        close = min(close, len(text))
        if _NONBLANK.search(text, pos, close) is None:
            continue
        deep = walk.full(start.start())
        if any(text.find(mark, pos, close) >= 0 for mark in (b'"""', b"'''", b"\\\n")):
            # The "end" may be a line inside a triple-quoted string or after a
            # backslash continuation (a quote in a comment fools any count):
            # keep the body (and look no deeper when it sits too deep).
            if deep:
                pos = close
            else:
                walk.keep(close)
            continue
        if close - pos > SKELETON_KEEP_BODY_BYTES and _NESTED_DEF.search(text, pos, close):
            if not deep:
                walk.keep(close)
                continue  # a big body holding definitions: outline inside it
            walk.too_deep(start.start())
        body = text[pos:close]
        before = body.rstrip().count(b"\n")
        after = body.count(b"\n") - before - 1
        # The rows elided: the body's up to its last one (where ``pass`` stands).
        yield pos, close, b"\n" * before + indent + b" pass\n" + b"\n" * after, before + 1
        pos = close


def _ruby_bodies(text: bytes) -> Iterator[_Elision]:
    """``def ... end`` bodies, replaced by their blank rows."""
    pos = 0
    walk = _Walk(text, None)
    while True:
        header = _RUBY_DEF_HEADER.search(text, pos)
        if header is None:
            return
        pos = header.end() + 1
        found = _def_line(text, header.start())
        if found is None or found[1] + b"def" != text[found[0] : header.start() + 3]:
            continue
        _, indent = found
        close = walk.block_end(indent, header.end())
        if close is None:
            return
        if not text.startswith(indent + b"end", close):
            continue
        rows = text.count(b"\n", pos, close)
        yield pos, close, b"\n" * rows, rows
        pos = close


def _brace_skeleton(text: bytes, spans: Spans = None, cut: list[str] | None = None) -> bytes:
    return _elided(text, _brace_bodies(text, cut), spans)


def _python_skeleton(text: bytes, spans: Spans = None, cut: list[str] | None = None) -> bytes:
    return _elided(text, _python_bodies(text, cut), spans)


def _ruby_skeleton(text: bytes, spans: Spans = None, cut: list[str] | None = None) -> bytes:
    return _elided(text, _ruby_bodies(text), spans)


Skeleton: TypeAlias = Callable[[bytes, Spans, "list[str] | None"], bytes]
"""A skeleton: ``(text, spans, cut)``, see the module doc."""

SKELETONS: dict[str, Skeleton] = {
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
