"""Whether a word on a line of code is code or prose: a comment's or a string's text.

:func:`prose_lines` takes a source, its language, a word and the lines holding
it, and answers the lines where every occurrence of the word sits in a comment
or in the text of a string (a docstring, ``menu = "main"``, ``:meth:`invoke```):
inside one of the file's *prose spans*, the byte ranges of its syntax tree's
nodes of the types :data:`PROSE_NODES` names (found by one tree-sitter query
per language, in C).  An f-string's or a template's interpolation is code (the
grammars give a string's text and its interpolations apart); a Ruby symbol
(``:invoke``) is code too.

A file's spans are kept by the key the caller gives its content (a blob id), so
the names of one ``find_references`` call, and the next calls, parse each file
once; at most :data:`SPANS_KEPT` spans are kept in all (16 bytes each).

An occurrence is a run of the word's bytes with no ASCII letter, digit or
underscore on either side: at least every place a whole-word search found,
so a line is never called prose for an occurrence this missed.  Nothing is
called prose when in doubt: a language without a grammar, a source over
:func:`~.outline.syntax_tree`'s bound, a parse past the deadline, a line
where the word is not found all keep their lines as code.
"""

from __future__ import annotations

import bisect
import re
import threading
import time
from array import array
from collections import OrderedDict
from collections.abc import Hashable, Iterable
from typing import Any

from .languages import load_language
from .outline import syntax_tree

PROSE_NODES = (
    "comment",
    "line_comment",  # Rust, Java
    "block_comment",  # Rust, Java
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
)
"""The tree-sitter node types (of the grammars :mod:`.languages` loads) that hold a
comment or a string's text, not code; a grammar without one of them leaves it out."""

SPANS_KEPT = 1_000_000
"""Prose spans kept for the files parsed last (16 bytes each, 16 MB at most): a
large project's files referring to one name hold a few hundred thousand."""

_queries: dict[str, Any] = {}
_spans: OrderedDict[Hashable, tuple[array[int], array[int]]] = OrderedDict()  # by (key, language)
_lock = threading.Lock()


def _query(language: str) -> Any | None:
    """The query capturing ``language``'s prose nodes (each type its grammar knows)."""
    with _lock:
        if language in _queries:
            return _queries[language]
    from tree_sitter import Query, QueryError

    lang_obj = load_language(language)
    query = None
    if lang_obj is not None:
        kept = []
        for kind in PROSE_NODES:
            try:
                Query(lang_obj, f"({kind}) @prose")
            except (QueryError, ValueError, TypeError):
                continue  # a node type this grammar does not have
            kept.append(f"({kind}) @prose")
        query = Query(lang_obj, "\n".join(kept)) if kept else None
    with _lock:
        _queries[language] = query
    return query


_Spans = tuple["array[int]", "array[int]"]


def _find_spans(source: bytes, language: str, deadline: float) -> _Spans | None:
    """The starts and ends of the prose spans of ``source``, sorted and disjoint; None
    when it could not be parsed (its bound, the deadline)."""
    from tree_sitter import QueryCursor

    query = _query(language)
    if query is None:
        return array("q"), array("q")
    tree = syntax_tree(source, language, deadline)
    if tree is None:
        return None
    nodes = QueryCursor(query).captures(tree.root_node).get("prose", [])
    starts, ends = array("q"), array("q")
    for start, end in sorted((n.start_byte, n.end_byte) for n in nodes):
        if ends and start <= ends[-1]:
            ends[-1] = max(ends[-1], end)
        else:
            starts.append(start)
            ends.append(end)
    return starts, ends


def _spans_of(key: Hashable, source: bytes, language: str, deadline: float) -> _Spans | None:
    """The prose spans of ``source``, kept by ``key``; None when it cannot be parsed
    (not kept: a later call, with time left, may)."""
    with _lock:
        found = _spans.get((key, language))
        if found is not None:
            _spans.move_to_end((key, language))
            return found
    if time.monotonic() > deadline:
        return None
    found = _find_spans(source, language, deadline)
    if found is None:
        return None
    with _lock:
        _spans[(key, language)] = found
        held = sum(len(starts) for starts, _ in _spans.values())
        while len(_spans) > 1 and held > SPANS_KEPT:
            _, (starts, _ends) = _spans.popitem(last=False)
            held -= len(starts)
    return found


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
    key: Hashable, source: bytes, language: str, word: str, lines: Iterable[int], deadline: float
) -> set[int]:
    """Those of ``lines`` (1-based) of ``source`` (its content, known by ``key``) where
    every occurrence of ``word`` sits in a comment or a string's text (see the module
    doc); a source not parsed yet is parsed only before ``deadline`` (a
    :func:`time.monotonic` time)."""
    wanted = sorted(set(lines))
    if not wanted:
        return set()
    found = _spans_of(key, source, language, deadline)
    if found is None or not found[0]:
        return set()
    starts, ends = found
    occurrence = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(word.encode()) + rb"(?![A-Za-z0-9_])")
    prose: set[int] = set()
    for number, (start, end) in _line_starts(source, wanted).items():
        spans = [m.span() for m in occurrence.finditer(source, start, end)]
        if spans and all(_inside(starts, ends, first, last) for first, last in spans):
            prose.add(number)
    return prose


def _inside(starts: array[int], ends: array[int], first: int, last: int) -> bool:
    at = bisect.bisect_right(starts, first) - 1
    return at >= 0 and last <= ends[at]
