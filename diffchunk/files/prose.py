"""Whether a word on a line of code is code or prose: a comment's or a string's text.

:func:`prose_lines` takes a source, its language, a word and the lines holding
it, and answers the lines where every occurrence of the word sits in a comment
or in the text of a string (a docstring, ``menu = "main"``, ``:meth:`invoke```),
from the file's tree-sitter parse: the innermost named node around each
occurrence is one of :data:`PROSE_NODES` (or a kind of comment).  An
f-string's or template's interpolation is code (its names are identifiers);
a Ruby symbol (``:invoke``) is code too.

An occurrence is a run of the word's bytes with no ASCII letter, digit or
underscore on either side: at least every place a whole-word search found,
so a line is never called prose for an occurrence this missed.  Nothing is
called prose when in doubt: a language without a grammar, a source over
:func:`~.outline.syntax_tree`'s bound, a parse past the deadline, a line
where the word is not found, an occurrence in a node the parse could not
place (an error node) all keep their lines as code.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from typing import Any

from .outline import syntax_tree

PROSE_NODES = frozenset(
    {
        "string_content",  # Python, Rust, C, C# interpolated, Ruby, PHP
        "string_fragment",  # JavaScript, TypeScript, Java
        "multiline_string_fragment",  # Java text blocks
        "string_literal_content",  # C#
        "verbatim_string_literal",  # C# @"..."
        "interpreted_string_literal_content",  # Go "..."
        "raw_string_literal_content",  # Go `...`
        "raw_string_content",  # C++ R"(...)"
        "heredoc_content",  # Ruby
        "regex_pattern",  # JavaScript /.../
    }
)
"""The tree-sitter node types (of the grammars :mod:`.languages` loads) that hold a
string's text, not code; any type ending in ``comment`` is prose too (``comment``,
``line_comment``, ``block_comment``, ``doc_comment``)."""


def _is_prose(node: Any) -> bool:
    kind = str(node.type)
    return kind in PROSE_NODES or kind.endswith("comment")


def _line_starts(source: bytes, lines: list[int]) -> dict[int, tuple[int, int]]:
    """``{line: (start, end)}`` byte offsets of each of the sorted 1-based ``lines``."""
    found: dict[int, tuple[int, int]] = {}
    number, start = 1, 0
    for wanted in lines:
        while number < wanted:
            at = source.find(b"\n", start)
            if at < 0:
                return found
            number, start = number + 1, at + 1
        end = source.find(b"\n", start)
        found[wanted] = (start, len(source) if end < 0 else end)
    return found


def prose_lines(
    source: bytes, language: str, word: str, lines: Iterable[int], deadline: float
) -> set[int]:
    """Those of ``lines`` (1-based) where every occurrence of ``word`` sits in a comment
    or a string's text (see the module doc); ``deadline``: a :func:`time.monotonic`
    time the parse must end by."""
    wanted = sorted(set(lines))
    if not wanted or time.monotonic() > deadline:
        return set()
    tree = syntax_tree(source, language, deadline)
    if tree is None:
        return set()
    root = tree.root_node
    occurrence = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(word.encode()) + rb"(?![A-Za-z0-9_])")
    prose: set[int] = set()
    for number, (start, end) in _line_starts(source, wanted).items():
        spans = [m.span() for m in occurrence.finditer(source, start, end)]
        if spans and all(_prose_at(root, first, last) for first, last in spans):
            prose.add(number)
    return prose


def _prose_at(root: Any, start: int, end: int) -> bool:
    node = root.named_descendant_for_byte_range(start, end)
    return node is not None and _is_prose(node)
