"""Hierarchical outline of a source file (classes, functions, headings...).

One tree-sitter query per language (:mod:`.outline_queries`) lists the
definition nodes and their name nodes; the query runs in C, and the
hierarchy is rebuilt in Python from the matches' byte ranges (sort by start,
keep a stack of open items), so no Python code walks the syntax tree node by
node.

Large files (above :data:`SKELETON_MIN_BYTES`) are first reduced to a
*skeleton* (:mod:`.skeleton`: function bodies elided, rows kept); Markdown
files that large are scanned for headings instead of parsed
(:mod:`.markdown_outline`).  Files above :data:`OUTLINE_MAX_BYTES` get no
outline at all.  The lines a skeleton elided are kept with the innermost item
holding them (``OutlineItem.elided``; those outside every item are not kept):
what a comparison of two revisions' outlines cannot see into.

Kept in the outline: classes and their methods, functions (a function nested
in a function, at most :data:`MAX_FUNCTION_NESTING` levels deep), interfaces,
structs, enums, traits, impl blocks, namespaces/modules, Markdown headings.
Functions bound to variables (``const f = () => {}``) are kept unless they are
locals of another function.  Outlines are cached per file version
(:func:`outline_for_file`); the items and lookups are :mod:`.outline_item`.

The work is bounded whatever the file (150,000 nested functions once took
104 s in the query cursor, with every other call waiting):

- definitions nested more than :data:`OUTLINE_MAX_DEPTH` deep are left out (and a
  skeleton elides blocks that deep), and the query starts no match deeper
  than :data:`MAX_START_DEPTH` levels of the syntax tree;
- the parse and the queries share :data:`TIME_BUDGET` seconds: the parse is
  fed in pieces with a progress callback that checks it (off the main
  thread: an exception in that callback would crash tree-sitter, and only
  the main thread receives signals), the queries run over
  :data:`QUERY_SLICE_BYTES` of source at a time, the budget checked between
  them; past it the outline is what was found so far;
- the query cursor keeps at most :data:`MATCH_LIMIT` matches in progress;
- tree-sitter's Python grammar crashes the process on a string inside 512
  levels of indentation (its scanner's saved state overflows): lines indented
  :data:`MAX_INDENT_CHARS` characters or :data:`MAX_INDENT_TABS` tabs deep
  are blanked before a Python parse (rows kept), which keeps the depth below
  473 levels.

tree-sitter holds the interpreter lock inside a parse or a query; the
progress callback and the slices give it back to other threads every few
milliseconds.  What was cut is told to the caller (``cut``: a list the
reasons are appended to, each with the line where it starts).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from ..limits import LANGUAGE_SNIFF_BYTES, OUTLINE_MAX_DEPTH
from .languages import language_for_path, load_language
from .markdown_outline import nest_headings, scan_headings, tree_headings
from .outline_item import (
    CALLABLE_TYPES,
    CLASS_LIKE_TYPES,
    OutlineItem,
    capture,
    count_items,
    describe_context,
    enclosing_item,
    enclosing_path,
    iter_items,
    node_text,
    qualified_name,
    qualified_parts,
)
from .outline_queries import QUERIES
from .skeleton import SKELETONS

OUTLINE_MAX_BYTES = 50 * 1024 * 1024
"""Files larger than this get no outline (callers report it as skipped): the
seeds' line between files parsed whole and files streamed."""

SKELETON_MIN_BYTES = 1024 * 1024
"""Above this size function bodies are elided before parsing (and Markdown
headings are scanned, not parsed): tree-sitter's time and memory grow with
the text it parses."""

MAX_FUNCTION_NESTING = 2
"""How many functions deep a nested function may sit and still be listed:
deeper ones are closures, not what an outline is read for."""

MAX_START_DEPTH = 512
"""Syntax-tree depth below which the outline's query starts no match: the
definitions of real code sit 20 levels deep or less (typescript.js: 18), and
tree-sitter's query cursor took 104 s on 150,000 nested functions (0.01 s with
this bound)."""

MATCH_LIMIT = 4096
"""Matches the outline's query cursor may have in progress at once: far above
what real code needs, a bound on the cursor's memory on hostile input; past it
the outline says that some definitions may be missing."""

TIME_BUDGET = 10.0
"""Seconds one outline's parse and queries may take: the 9 MB typescript.js
takes about 0.5 s; past it the outline stops where it got to and says so."""

QUERY_SLICE_BYTES = 128 * 1024
"""Bytes of source the outline's query covers in one call: tree-sitter holds the
interpreter for the whole call (512 KB of minified code: 0.4 s under load);
between calls other threads run and the time budget is checked."""

PARSE_PIECE_BYTES = 256 * 1024
"""Bytes handed to the parser at a time: its progress callback, which checks
the time budget and lets other threads run, comes between steps of the parse."""

MAX_INDENT_CHARS = 256
"""Lines indented this many whitespace characters deep are blanked before a
Python parse: tree-sitter-python's scanner overflows its saved state (and the
process dies) on a string inside 512 levels of indentation, and a line under
256 characters and 32 tabs (PYTHON_MAX_INDENT_TABS, a tab counting 8 columns
to it) sits at most 472 columns, so 472 levels, deep."""

MAX_INDENT_TABS = 32
"""Lines indented this many tabs deep are blanked before a Python parse (see
PYTHON_MAX_INDENT_CHARS)."""

OUTLINES_CACHED = 16
"""Outlines of file versions kept (by path and fingerprint)."""


__all__ = [
    "OUTLINE_MAX_BYTES",
    "SKELETON_MIN_BYTES",
    "OutlineItem",
    "build_outline",
    "cached_outline",
    "clear_cache",
    "count_items",
    "describe_context",
    "enclosing_item",
    "enclosing_path",
    "iter_items",
    "outline_for_file",
    "outline_skip_reason",
    "qualified_name",
    "qualified_parts",
    "syntax_tree",
]

logger = logging.getLogger(__name__)


# Types under which a "function" is called a "method", per language.
_METHOD_PARENTS: dict[str, frozenset[str]] = {
    "ruby": CLASS_LIKE_TYPES | {"module"},
}


@dataclass(slots=True)
class _Entry:
    start_byte: int
    end_byte: int
    pattern: int
    type: str
    name: str
    line_number: int
    end_line: int
    local_only: bool
    level: int | None = None


_query_cache: dict[str, Any] = {}
_query_lock = threading.Lock()


def _query_for(language: str, lang_obj: Any) -> Any | None:
    with _query_lock:
        if language in _query_cache:
            return _query_cache[language]
        query = _compile_query(language, lang_obj)
        _query_cache[language] = query
        return query


def _compile_query(language: str, lang_obj: Any) -> Any | None:
    from tree_sitter import Query, QueryError

    source = QUERIES[language]
    try:
        return Query(lang_obj, source)
    except (QueryError, ValueError, TypeError) as exc:
        # A grammar release renamed a node: keep the patterns that still work.
        logger.warning("outline query for %s partly invalid (%s)", language, exc)
    kept = []
    for pattern in re.split(r"\n(?=\()", source.strip()):
        try:
            Query(lang_obj, pattern)
        except (QueryError, ValueError, TypeError):
            continue
        kept.append(pattern)
    if not kept:
        return None
    return Query(lang_obj, "\n".join(kept))


def build_outline(
    source: bytes | bytearray | memoryview,
    language: str,
    *,
    skeleton_above: int = SKELETON_MIN_BYTES,
    cut: list[str] | None = None,
) -> list[OutlineItem]:
    """The outline of ``source`` written in ``language`` (see module doc).

    Returns ``[]`` for an unknown language, a missing grammar, or a source
    above :data:`OUTLINE_MAX_BYTES`.  Syntax errors do not prevent an
    outline: whatever tree-sitter recovers is listed.  ``skeleton_above``:
    the size above which function bodies are elided first (lines kept; a
    caller outlining many files at once may ask for it sooner).  ``cut``:
    a list told what the outline's bounds left out, if anything.
    """
    if language not in QUERIES or len(source) > OUTLINE_MAX_BYTES:
        return []
    lang_obj = load_language(language)
    if lang_obj is None:
        return []
    query = _query_for(language, lang_obj)
    if query is None:
        return []
    reasons: list[str] = [] if cut is None else cut
    deadline = time.monotonic() + TIME_BUDGET
    data = bytes(source)
    if language == "markdown" and len(data) > SKELETON_MIN_BYTES:
        return nest_headings(scan_headings(data), data)
    skeleton = SKELETONS.get(language)
    elided: list[tuple[int, int]] = []
    if skeleton is not None and len(data) > skeleton_above:
        text = skeleton(data, elided, reasons)
    else:
        text = data
    if language == "python":
        text = _shallow(text, reasons)
    tree = _parse(lang_obj, text, deadline)
    if tree is None:
        reasons.append(f"the parse took over {TIME_BUDGET:g} s: no outline")
        return []
    # Each slice's matches become entries (or headings) at once: the node objects of
    # a large file, held all together, made the collector and their release hold the
    # interpreter for half a second each.
    entries: list[_Entry] = []
    headings: list[tuple[int, int, str]] = []
    batch: list[tuple[int, dict[str, Any]]] = []
    for batch in _matches(query, tree.root_node, text, deadline, reasons):
        if language == "markdown":
            headings += tree_headings(batch, text)
        else:
            entries += [e for e in (_entry(language, m, text) for m in batch) if e is not None]
    del batch, tree  # the tree goes now, not after the outline is built
    if language == "markdown":
        return nest_headings(list(dict.fromkeys(headings)), data)  # once each across slices
    roots = _nest(entries, _METHOD_PARENTS.get(language, CLASS_LIKE_TYPES), reasons)
    if elided:
        _attach_elided(roots, elided)
    return roots


_DEEP_INDENT = re.compile(
    rb"^(?:[ \t]{%d,}| *(?:\t *){%d,})[^\n]*" % (MAX_INDENT_CHARS, MAX_INDENT_TABS), re.M
)


def _shallow(text: bytes, cut: list[str]) -> bytes:
    """``text`` with its lines indented too deep for the Python grammar blanked (see the
    module doc); ``cut`` says from which line."""
    first = _DEEP_INDENT.search(text)
    if first is None:
        return text
    line = text.count(b"\n", 0, first.start()) + 1
    cut.append(
        f"lines indented {MAX_INDENT_CHARS} characters or {MAX_INDENT_TABS} tabs deep are "
        f"left out (from line {line})"
    )
    return _DEEP_INDENT.sub(b"", text)


def _parse(lang_obj: Any, text: bytes, deadline: float) -> Any | None:
    """The syntax tree of ``text``; None when the parse ran past ``deadline``."""
    from tree_sitter import Parser

    parser = Parser(lang_obj)
    if threading.current_thread() is threading.main_thread():
        return parser.parse(text)  # see the module doc: no callback here

    def read(offset: int, _point: Any) -> bytes:
        return text[offset : offset + PARSE_PIECE_BYTES]

    def progress(_offset: int, _has_error: bool) -> bool:
        return time.monotonic() > deadline

    try:
        return parser.parse(read, progress_callback=progress)
    except ValueError:  # "Parsing failed": the progress callback stopped it
        return None


def syntax_tree(source: bytes, language: str, deadline: float) -> Any | None:
    """The tree-sitter tree of ``source`` written in ``language``, its byte offsets
    those of ``source``; None without a grammar, for a source over
    :data:`SKELETON_MIN_BYTES` (it would be parsed whole), for Python indented too deep
    for the grammar (see the module doc: blanking those lines would move the offsets),
    or when the parse runs past ``deadline``."""
    lang_obj = load_language(language)
    if lang_obj is None or len(source) > SKELETON_MIN_BYTES:
        return None
    if language == "python" and _DEEP_INDENT.search(source):
        return None
    return _parse(lang_obj, source, deadline)


def _matches(
    query: Any, root: Any, text: bytes, deadline: float, cut: list[str]
) -> Iterator[list[tuple[int, dict[str, Any]]]]:
    """The query's matches over ``root``, one slice of the source at a time (a match
    across slices comes once per slice: :func:`_nest` keeps one)."""
    from tree_sitter import QueryCursor

    cursor = QueryCursor(query, match_limit=MATCH_LIMIT)
    cursor.set_max_start_depth(MAX_START_DEPTH)
    start, stop = root.start_byte, root.end_byte
    exceeded = False
    while start < stop:
        if time.monotonic() > deadline:
            line = text.count(b"\n", 0, start) + 1
            cut.append(
                f"listing the definitions took over {TIME_BUDGET:g} s: the outline stops "
                f"at line {line}"
            )
            break
        end = min(stop, start + QUERY_SLICE_BYTES)
        cursor.set_byte_range(start, end)
        yield cursor.matches(root)
        exceeded = exceeded or cursor.did_exceed_match_limit
        start = end
    if exceeded:
        cut.append("too many overlapping candidates: some definitions may be missing")


def _attach_elided(roots: list[OutlineItem], spans: list[tuple[int, int]]) -> None:
    """Give each elided span (sorted) to the innermost item holding its first line: one
    sweep of the items in file order (parents first) beside the spans."""
    items = iter_items(roots)
    found: dict[int, list[tuple[int, int]]] = {}
    open_items: list[OutlineItem] = []  # the items around the line reached, outermost first
    next_item = 0
    for span in spans:
        first = span[0]
        while next_item < len(items) and items[next_item].line_number <= first:
            item = items[next_item]
            while open_items and open_items[-1].end_line < item.line_number:
                open_items.pop()
            open_items.append(item)
            next_item += 1
        while open_items and open_items[-1].end_line < first:
            open_items.pop()
        if open_items:
            found.setdefault(id(open_items[-1]), []).append(span)
    for item in items:
        if id(item) in found:
            item.elided = tuple(found[id(item)])


def _entry(language: str, match: tuple[int, dict[str, Any]], text: bytes) -> _Entry | None:
    pattern, captures = match
    node = None
    kind = ""
    local_only = False
    for key, value in captures.items():
        if key.startswith(("def.", "top.")):
            node = value[0] if isinstance(value, list) else value
            kind = key[4:]
            local_only = key[0] == "t"
            break
    if node is None:
        return None
    name = _entry_name(kind, node, captures, text)
    if not name:
        return None
    start = node
    if language == "python":
        parent = node.parent
        if parent is not None and parent.type == "decorated_definition":
            start = parent
    start_row = start.start_point[0]
    end_row, end_col = node.end_point
    if end_col == 0 and end_row > start_row:
        end_row -= 1
    return _Entry(
        start.start_byte, node.end_byte, pattern, kind, name, start_row + 1, end_row + 1, local_only
    )


def _entry_name(kind: str, node: Any, captures: dict[str, Any], text: bytes) -> str | None:
    if len(captures) == 2 and "name" in captures and kind != "impl":  # the common case
        name = node_text(capture(captures, "name"), text)
        return "~" + name if node.type == "destructor_declaration" else name
    decl = capture(captures, "decl")
    if decl is not None:
        name_node = _c_function_name(decl)
        return node_text(name_node, text) if name_node is not None else None
    name_node = capture(captures, "name")
    if name_node is None:
        return None
    name = node_text(name_node, text)
    recv = capture(captures, "recv")
    if recv is not None:
        return f"({node_text(recv, text)}) {name}"
    if kind == "impl":
        trait = capture(captures, "trait")
        return f"impl {node_text(trait, text)} for {name}" if trait is not None else f"impl {name}"
    obj = capture(captures, "obj")
    if obj is not None:
        return f"{node_text(obj, text)}.{name}"
    return name


def _c_function_name(node: Any) -> Any | None:
    """The name node inside a C/C++ declarator (through pointers/references)."""
    for _ in range(10):
        if node.type == "function_declarator":
            return node.child_by_field_name("declarator")
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children if c.type.endswith("declarator")), None)
        if inner is None:
            return None
        node = inner
    return None


def _nest(
    entries: list[_Entry], method_parents: frozenset[str], cut: list[str]
) -> list[OutlineItem]:
    """The entries as a tree of items, in file order; those nested more than OUTLINE_MAX_DEPTH
    deep are left out (``cut`` says from where, unless a skeleton said it first)."""
    entries.sort(key=lambda e: (e.start_byte, -e.end_byte, e.pattern))
    deep_noted = any(reason.startswith(_TOO_DEEP) for reason in cut)
    roots: list[OutlineItem] = []
    # Open items: (end_byte, item or None when dropped, functions deep).
    stack: list[tuple[int, OutlineItem | None, int]] = []
    last_range = (-1, -1)
    for entry in entries:
        rng = (entry.start_byte, entry.end_byte)
        if rng == last_range:  # same node matched by two patterns
            continue
        last_range = rng
        while stack and stack[-1][0] < entry.end_byte:
            stack.pop()
        if stack and stack[-1][1] is None:
            continue  # inside a dropped item
        parent = stack[-1][1] if stack else None
        depth = stack[-1][2] if stack else 0
        is_callable = entry.type in CALLABLE_TYPES
        if (entry.local_only and depth > 0) or (is_callable and depth >= MAX_FUNCTION_NESTING + 1):
            stack.append((entry.end_byte, None, depth))
            continue
        if len(stack) >= OUTLINE_MAX_DEPTH:
            stack.append((entry.end_byte, None, depth))
            if not deep_noted:
                cut.append(f"{_TOO_DEEP} (from line {entry.line_number})")
                deep_noted = True
            continue
        kind = entry.type
        if kind == "function" and parent is not None and parent.type in method_parents:
            kind = "method"
        item = OutlineItem(
            entry.name,
            kind,
            entry.line_number,
            entry.end_line,
            entry.end_line - entry.line_number + 1,
            [],
        )
        (parent.children if parent is not None else roots).append(item)
        stack.append((entry.end_byte, item, depth + (1 if is_callable else 0)))
    return roots


_TOO_DEEP = f"definitions nested more than {OUTLINE_MAX_DEPTH} deep are left out"

_cache: OrderedDict[tuple[str, Hashable], tuple[list[OutlineItem], tuple[str, ...]]] = OrderedDict()
_cache_lock = threading.Lock()


def outline_skip_reason(path: str, size: int) -> str | None:
    """Why ``path`` gets no outline, or None when it can have one."""
    language = language_for_path(path)
    if language is None:
        return "no outline for this file type"
    if size > OUTLINE_MAX_BYTES:
        return f"outline skipped: file too large (over {OUTLINE_MAX_BYTES // (1024 * 1024)} MB)"
    if load_language(language) is None:
        return f"outline unavailable: the tree-sitter grammar for {language} is not installed"
    return None


def outline_for_file(
    path: str,
    fingerprint: Hashable,
    source: bytes | bytearray | memoryview | Any,
    language: str | None = None,
    *,
    cut: list[str] | None = None,
) -> list[OutlineItem]:
    """The outline of one version of a file, parsed once and cached.

    ``fingerprint`` identifies the version (e.g. ``diffchunk.paths.fingerprint``
    of its stat); ``source`` is its content (bytes, memoryview or a reader).
    Each call returns a fresh copy, so callers may mark or extend it;
    ``cut`` is told what the outline's bounds left out (see the module doc).
    """
    key = (path, fingerprint)
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
    if cached is None:
        if language is None:
            language = language_for_path(path, bytes(source[:LANGUAGE_SNIFF_BYTES]))
        if language is None or len(source) > OUTLINE_MAX_BYTES:
            return []
        whole = source if isinstance(source, bytes) else bytes(source[0 : len(source)])
        told: list[str] = []
        cached = (build_outline(whole, language, cut=told), tuple(told))
        with _cache_lock:
            _cache[key] = cached
            _cache.move_to_end(key)
            while len(_cache) > OUTLINES_CACHED:
                _cache.popitem(last=False)
    items, reasons = cached
    if cut is not None:
        cut.extend(reasons)
    return [item.copy() for item in items]


def cached_outline(
    path: str, fingerprint: Hashable, *, cut: list[str] | None = None
) -> list[OutlineItem] | None:
    """A copy of the outline cached for ``(path, fingerprint)``, or None."""
    key = (path, fingerprint)
    with _cache_lock:
        cached = _cache.get(key)
        if cached is None:
            return None
        _cache.move_to_end(key)
    items, reasons = cached
    if cut is not None:
        cut.extend(reasons)
    return [item.copy() for item in items]


def clear_cache() -> None:
    """Forget every cached outline."""
    with _cache_lock:
        _cache.clear()
