"""Whether a word on a line of code is code or prose: a comment's or a string's text.

:func:`prose_lines` takes a source, its language, a word and the lines holding
it, and answers the lines where every occurrence of the word sits in a comment
or in the text of a string (a docstring, ``menu = "main"``, ``:meth:`invoke```):
inside one of the file's *prose spans*, the byte ranges of its syntax tree's
nodes of the types :data:`PROSE_NODES` names (found by one tree-sitter query
per language, in C).  An f-string's or a template's interpolation is code (the
grammars give a string's text and its interpolations apart); a Ruby symbol
(``:invoke``) is code too.  So are the strings a reader must change with the
name, found by a second query (:data:`CODE_NODES`): a Python annotation, a
forward reference ``"Foo"`` included (type checkers read it as code), and the
names ``__all__`` lists; and a Rust format string's inline argument
(``format!("{name}")`` reads the variable).  A comment or a string inside
what the grammar could not parse (an ``ERROR`` node) is code too: there its
nodes are guesses (a Ruby string nested 300 interpolations deep parses as a
comment).

The work is bounded whatever the file, as the outline's (:mod:`.outline`): a
source over its bound is not parsed, the queries start no capture deeper than
:data:`~.outline.MAX_START_DEPTH` levels (a string nested deeper stays code:
130,000 nested arrays held the query cursor 207 s, every other thread waiting)
and run over :data:`~.outline.QUERY_SLICE_BYTES` of source at a time, the
deadline checked between them; past it nothing of the file is called prose.

A file's spans are kept by the key the caller gives its content (a blob id), so
the names of one ``find_references`` call, and the next calls, parse each file
once; at most :data:`SPANS_KEPT` spans are kept in all (16 bytes each), a file
counted as one more (one without any is kept too), each file kept added in
constant time.

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
from .outline import MAX_START_DEPTH, QUERY_SLICE_BYTES, syntax_tree

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

CODE_NODES = {
    "python": (
        "(type) @code",
        '(assignment left: (identifier) @_name right: (_) @code (#eq? @_name "__all__"))',
        '(augmented_assignment left: (identifier) @_name right: (_) @code (#eq? @_name "__all__"))',
    ),
}
"""Per language, the tree-sitter patterns whose ``@code`` nodes are code though they
hold strings: no prose span inside one is kept (nor inside an ``ERROR`` node, in
every language)."""

_queries: dict[str, tuple[Any | None, Any | None]] = {}
_spans: OrderedDict[Hashable, tuple[array[int], array[int]]] = OrderedDict()  # by (key, language)
_held = 0  # the spans _spans holds, and one for each file (a file without any counts)
_lock = threading.Lock()


def _query(language: str) -> tuple[Any | None, Any | None]:
    """The queries capturing ``language``'s prose nodes (each type its grammar knows)
    and its :data:`CODE_NODES`."""
    with _lock:
        if language in _queries:
            return _queries[language]
    from tree_sitter import Query, QueryError

    lang_obj = load_language(language)
    queries: tuple[Any | None, Any | None] = (None, None)
    if lang_obj is not None:
        kept = []
        for kind in PROSE_NODES:
            try:
                Query(lang_obj, f"({kind}) @prose")
            except (QueryError, ValueError, TypeError):
                continue  # a node type this grammar does not have
            kept.append(f"({kind}) @prose")
        code = (*CODE_NODES.get(language, ()), "(ERROR) @code")
        queries = (
            Query(lang_obj, "\n".join(kept)) if kept else None,
            Query(lang_obj, "\n".join(code)),
        )
    with _lock:
        _queries[language] = queries
    return queries


_Spans = tuple["array[int]", "array[int]"]


def _captured(query: Any, name: str, root: Any, deadline: float) -> _Spans | None:
    """The byte ranges of ``query``'s ``name`` captures under ``root``, sorted, those
    that overlap merged; None past ``deadline`` (see the module doc: one slice of the
    source at a time, no capture deeper than :data:`~.outline.MAX_START_DEPTH`)."""
    from tree_sitter import QueryCursor

    cursor = QueryCursor(query)
    cursor.set_max_start_depth(MAX_START_DEPTH)
    ranges: list[tuple[int, int]] = []
    start, stop = root.start_byte, root.end_byte
    while start < stop:
        if time.monotonic() > deadline:
            return None
        end = min(stop, start + QUERY_SLICE_BYTES)
        cursor.set_byte_range(start, end)
        ranges.extend((n.start_byte, n.end_byte) for n in cursor.captures(root).get(name, []))
        start = end
    starts, ends = array("q"), array("q")
    for first, last in sorted(ranges):
        if ends and first <= ends[-1]:
            ends[-1] = max(ends[-1], last)
        else:
            starts.append(first)
            ends.append(last)
    return starts, ends


def _find_spans(source: bytes, language: str, deadline: float) -> _Spans | None:
    """The starts and ends of the prose spans of ``source``, sorted and disjoint; None
    when it could not be parsed or queried (its bound, the deadline)."""
    prose_query, code_query = _query(language)
    if prose_query is None:
        return array("q"), array("q")
    tree = syntax_tree(source, language, deadline)
    if tree is None:
        return None
    prose = _captured(prose_query, "prose", tree.root_node, deadline)
    code = None if code_query is None else _captured(code_query, "code", tree.root_node, deadline)
    if prose is None or (code_query is not None and code is None):
        return None
    if code is None or not code[0]:
        return prose
    starts, ends = array("q"), array("q")
    for first, last in zip(*prose, strict=True):
        if not _inside(code[0], code[1], first, last):
            starts.append(first)
            ends.append(last)
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
    global _held
    with _lock:
        if (key, language) not in _spans:  # (another thread may have put it)
            _spans[(key, language)] = found
            _held += len(found[0]) + 1
        while len(_spans) > 1 and _held > SPANS_KEPT:
            _, (starts, _ends) = _spans.popitem(last=False)
            _held -= len(starts) + 1
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
    occurrence = re.compile(rb"(?<![A-Za-z0-9_])" + re.escape(word.encode()) + rb"(?![A-Za-z0-9_])")
    prose: set[int] = set()
    for number, (start, end) in _line_starts(source, wanted).items():
        spans = [m.span() for m in occurrence.finditer(source, start, end)]
        if spans and all(_prose_at(source, language, found, *span) for span in spans):
            prose.add(number)
    return prose


def _prose_at(source: bytes, language: str, spans: _Spans, first: int, last: int) -> bool:
    """Whether the word at ``first:last`` sits in one of the prose ``spans``; a Rust
    format string's inline argument (``{name}``, ``{name:>8}``) does not: ``format!``
    reads the variable."""
    if not _inside(spans[0], spans[1], first, last):
        return False
    argument = source[first - 1 : first] == b"{" and source[last : last + 1] in (b"}", b":")
    return language != "rust" or not argument


def _inside(starts: array[int], ends: array[int], first: int, last: int) -> bool:
    at = bisect.bisect_right(starts, first) - 1
    return at >= 0 and last <= ends[at]
