"""Hierarchical outline of a source file (classes, functions, headings...).

One tree-sitter query per language lists the definition nodes and their name
nodes; the query runs in C, and the hierarchy is rebuilt in Python from the
matches' byte ranges (sort by start, keep a stack of open items), so no
Python code walks the syntax tree node by node.

Large files (above :data:`SKELETON_MIN_BYTES`) are first reduced to a
*skeleton*: the bodies of functions are replaced by as many newlines as they
held, so row numbers are unchanged while the parser sees a fraction of the
text.  Class-like blocks (class, namespace, impl...) and very large function
bodies that contain further blocks are kept, so methods and the nested
functions of big closures still appear; definitions nested in small function
bodies do not.  Files above :data:`OUTLINE_MAX_BYTES` get no outline at all.

Kept in the outline: classes and their methods, functions (a function nested
in a function, at most :data:`MAX_FUNCTION_NESTING` levels deep), interfaces,
structs, enums, traits, impl blocks, namespaces/modules, Markdown headings.
Functions bound to variables (``const f = () => {}``) are kept unless they are
locals of another function.
"""

from __future__ import annotations

import bisect
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .languages import language_for_path, load_language

logger = logging.getLogger(__name__)

#: Files larger than this get no outline (callers report it as skipped).
OUTLINE_MAX_BYTES = 50 * 1024 * 1024
#: Above this size function bodies are elided before parsing (see module doc).
SKELETON_MIN_BYTES = 1024 * 1024
#: Function bodies larger than this are outlined inside even in a skeleton.
SKELETON_KEEP_BODY_BYTES = 64 * 1024
#: How many functions deep a nested function may sit and still be listed.
MAX_FUNCTION_NESTING = 2
#: Names longer than this are cut (with an ellipsis).
MAX_NAME_CHARS = 200

_CALLABLE_TYPES = frozenset({"function", "method", "constructor"})
_CLASS_LIKE_TYPES = frozenset(
    {"class", "struct", "interface", "trait", "impl", "enum", "record", "union", "object"}
)


@dataclass(slots=True)
class OutlineItem:
    """One symbol of the outline; ``children`` are the symbols inside it.

    Line numbers are 1-based and inclusive.  For an item with
    ``changes == "removed"`` (a symbol present in HEAD but gone from the
    file) the lines are those it had in HEAD's version of the file.
    """

    name: str
    type: str
    line_number: int
    end_line: int
    line_count: int
    children: list[OutlineItem] = field(default_factory=list)
    changes: str | None = None
    level: int | None = None  # heading level (1-6) for Markdown headings

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, children included (recursively)."""
        data: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "line_number": self.line_number,
            "end_line": self.end_line,
            "line_count": self.line_count,
        }
        if self.level is not None:
            data["level"] = self.level
        data["changes"] = self.changes
        data["children"] = [child.to_dict() for child in self.children]
        return data

    def copy(self) -> OutlineItem:
        """A deep copy (children copied too)."""
        return OutlineItem(
            self.name,
            self.type,
            self.line_number,
            self.end_line,
            self.line_count,
            [child.copy() for child in self.children],
            self.changes,
            self.level,
        )


# --------------------------------------------------------------------------
# Queries.  Capture names: ``def.<type>`` a definition kept anywhere,
# ``top.<type>`` one dropped when it is local to a function, ``name`` its
# name; ``recv`` (Go receiver type), ``trait`` (Rust impl), ``decl`` (C/C++
# declarator to search for the function name), ``obj`` (Ruby singleton).

_JS_COMMON = """
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(method_definition name: (_) @name) @def.method
(variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @top.function
(variable_declarator name: (identifier) @name value: (class)) @def.class
(assignment_expression left: (member_expression) @name
  right: [(arrow_function) (function_expression)]) @top.function
"""

_QUERIES: dict[str, str] = {
    "python": """
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name) @def.function
""",
    "javascript": _JS_COMMON
    + """
(class_declaration name: (identifier) @name) @def.class
(field_definition property: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @def.method
""",
    "typescript": _JS_COMMON
    + """
(class_declaration name: (type_identifier) @name) @def.class
(abstract_class_declaration name: (type_identifier) @name) @def.class
(interface_declaration name: (type_identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(type_alias_declaration name: (type_identifier) @name) @def.type
(internal_module name: (_) @name) @def.namespace
(module name: (_) @name) @def.module
(abstract_method_signature name: (_) @name) @def.method
(method_signature name: (_) @name) @def.method
(public_field_definition name: (_) @name
  value: [(arrow_function) (function_expression)]) @def.method
""",
    "go": """
(function_declaration name: (identifier) @name) @def.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @recv))
  name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name type: (struct_type)) @def.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name) @def.type
""",
    "rust": """
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(union_item name: (type_identifier) @name) @def.union
(trait_item name: (type_identifier) @name) @def.trait
(impl_item trait: (_)? @trait type: (_) @name) @def.impl
(mod_item name: (identifier) @name body: (declaration_list)) @def.module
(macro_definition name: (identifier) @name) @def.macro
(type_item name: (type_identifier) @name) @def.type
""",
    "java": """
(class_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(record_declaration name: (identifier) @name) @def.record
(annotation_type_declaration name: (identifier) @name) @def.interface
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.constructor
""",
    "c": """
(function_definition declarator: (_) @decl) @def.function
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @def.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @def.union
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @def.enum
(type_definition type: (struct_specifier !name body: (field_declaration_list))
  declarator: (type_identifier) @name) @def.struct
""",
    "cpp": """
(function_definition declarator: (_) @decl) @def.function
(class_specifier name: (_) @name body: (field_declaration_list)) @def.class
(struct_specifier name: (_) @name body: (field_declaration_list)) @def.struct
(union_specifier name: (_) @name body: (field_declaration_list)) @def.union
(enum_specifier name: (_) @name body: (enumerator_list)) @def.enum
(namespace_definition name: (_) @name) @def.namespace
(type_definition type: (struct_specifier !name body: (field_declaration_list))
  declarator: (type_identifier) @name) @def.struct
""",
    "csharp": """
(namespace_declaration name: (_) @name) @def.namespace
(file_scoped_namespace_declaration name: (_) @name) @def.namespace
(class_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(struct_declaration name: (identifier) @name) @def.struct
(enum_declaration name: (identifier) @name) @def.enum
(record_declaration name: (identifier) @name) @def.record
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.constructor
(destructor_declaration name: (identifier) @name) @def.method
(local_function_statement name: (identifier) @name) @def.function
""",
    "ruby": """
(class name: (_) @name) @def.class
(module name: (_) @name) @def.module
(method name: (_) @name) @def.function
(singleton_method object: (_) @obj name: (_) @name) @def.function
""",
    "php": """
(namespace_definition name: (_) @name) @def.namespace
(class_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(trait_declaration name: (name) @name) @def.trait
(enum_declaration name: (name) @name) @def.enum
(function_definition name: (name) @name) @def.function
(method_declaration name: (name) @name) @def.method
""",
    "markdown": """
(atx_heading) @def.heading
(setext_heading) @def.heading
""",
}
_QUERIES["tsx"] = _QUERIES["typescript"]

# Types under which a "function" is called a "method", per language.
_METHOD_PARENTS: dict[str, frozenset[str]] = {
    "ruby": _CLASS_LIKE_TYPES | {"module"},
}


# --------------------------------------------------------------------------
# Skeletons for large files.

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


def _block_end(indent: bytes, hash_comments: bool = False) -> re.Pattern[bytes]:
    """Finds the first line after a header that is neither blank nor deeper.

    With ``hash_comments`` a ``#`` comment line counts as blank (Python).
    """
    key = (indent, hash_comments)
    pattern = _block_end_patterns.get(key)
    if pattern is None:
        blank = rb"[ \t]*(?:#[^\n]*)?\r?\n" if hash_comments else rb"[ \t]*\r?\n"
        pattern = re.compile(rb"\n(?!" + re.escape(indent) + rb"[ \t]|" + blank + rb")")
        if len(_block_end_patterns) < 256:
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


def _brace_skeleton(text: bytes) -> bytes:
    """Elide block bodies, keeping rows: see the module doc.

    A block is a line ending with ``{``, ``[`` or ``(``, then lines indented
    deeper (or blank), then a line at the same indentation starting with the
    closing bracket.  Formatted code (by hand or by a formatter) has this
    shape; anything else is left alone.
    """
    out: list[bytes] = []
    copied = 0
    pos = 0
    closers = {ord("{"): b"}", ord("["): b"]", ord("("): b")"}
    while True:
        opener = _OPENER_AT_EOL.search(text, pos)
        if opener is None:
            break
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
        out.append(text[copied:pos])
        out.append(b"\n" * text.count(b"\n", pos, close))
        copied = pos = close
    out.append(text[copied:])
    return b"".join(out)


def _python_skeleton(text: bytes) -> bytes:
    """Elide ``def`` bodies, keeping rows; ``pass`` sits on the body's last row."""
    out: list[bytes] = []
    copied = pos = 0
    while True:
        header = _PY_DEF_HEADER.search(text, pos)
        if header is None:
            break
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
        content = body.rstrip()
        before = content.count(b"\n")
        after = body.count(b"\n") - before - 1
        out.append(text[copied:pos])
        out.append(b"\n" * before + indent + b" pass\n" + b"\n" * after)
        copied = pos = close
    out.append(text[copied:])
    return b"".join(out)


def _ruby_skeleton(text: bytes) -> bytes:
    """Elide ``def ... end`` bodies, keeping rows."""
    out: list[bytes] = []
    copied = pos = 0
    while True:
        header = _RUBY_DEF_HEADER.search(text, pos)
        if header is None:
            break
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
        out.append(text[copied:pos])
        out.append(b"\n" * text.count(b"\n", pos, close))
        copied = pos = close
    out.append(text[copied:])
    return b"".join(out)


_SKELETONS: dict[str, Callable[[bytes], bytes]] = {
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


# --------------------------------------------------------------------------
# Building.


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

    source = _QUERIES[language]
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


def build_outline(source: bytes | bytearray | memoryview, language: str) -> list[OutlineItem]:
    """The outline of ``source`` written in ``language`` (see module doc).

    Returns ``[]`` for an unknown language, a missing grammar, or a source
    above :data:`OUTLINE_MAX_BYTES`.  Syntax errors do not prevent an
    outline: whatever tree-sitter recovers is listed.
    """
    if language not in _QUERIES or len(source) > OUTLINE_MAX_BYTES:
        return []
    lang_obj = load_language(language)
    if lang_obj is None:
        return []
    query = _query_for(language, lang_obj)
    if query is None:
        return []
    data = bytes(source)
    if language == "markdown" and len(data) > SKELETON_MIN_BYTES:
        return _nest_headings(_scan_markdown_headings(data), data)
    skeleton = _SKELETONS.get(language)
    text = skeleton(data) if skeleton is not None and len(data) > SKELETON_MIN_BYTES else data

    from tree_sitter import Parser, QueryCursor

    tree = Parser(lang_obj).parse(text)
    if tree is None:
        return []
    matches = QueryCursor(query).matches(tree.root_node)
    if language == "markdown":
        return _markdown_outline(matches, data)
    entries = [e for e in (_entry(language, m) for m in matches) if e is not None]
    return _nest(entries, _METHOD_PARENTS.get(language, _CLASS_LIKE_TYPES))


def _nodes(captures: dict[str, Any], key: str) -> Any | None:
    value = captures.get(key)
    if value is None:
        return None
    if isinstance(value, list):
        return value[0] if value else None
    return value


def _text(node: Any) -> str:
    raw = node.text or b""
    name = b" ".join(raw.split()).decode("utf-8", "replace")
    if len(name) > MAX_NAME_CHARS:
        name = name[: MAX_NAME_CHARS - 1] + "…"
    return name


def _entry(language: str, match: tuple[int, dict[str, Any]]) -> _Entry | None:
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
    name = _entry_name(kind, node, captures)
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


def _entry_name(kind: str, node: Any, captures: dict[str, Any]) -> str | None:
    if len(captures) == 2 and "name" in captures and kind != "impl":  # the common case
        name = _text(_nodes(captures, "name"))
        return "~" + name if node.type == "destructor_declaration" else name
    decl = _nodes(captures, "decl")
    if decl is not None:
        name_node = _c_function_name(decl)
        return _text(name_node) if name_node is not None else None
    name_node = _nodes(captures, "name")
    if name_node is None:
        return None
    name = _text(name_node)
    recv = _nodes(captures, "recv")
    if recv is not None:
        return f"({_text(recv)}) {name}"
    if kind == "impl":
        trait = _nodes(captures, "trait")
        return f"impl {_text(trait)} for {name}" if trait is not None else f"impl {name}"
    obj = _nodes(captures, "obj")
    if obj is not None:
        return f"{_text(obj)}.{name}"
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


def _nest(entries: list[_Entry], method_parents: frozenset[str]) -> list[OutlineItem]:
    entries.sort(key=lambda e: (e.start_byte, -e.end_byte, e.pattern))
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
        is_callable = entry.type in _CALLABLE_TYPES
        if (entry.local_only and depth > 0) or (is_callable and depth >= MAX_FUNCTION_NESTING + 1):
            stack.append((entry.end_byte, None, depth))
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


_ATX_CLOSING = re.compile(r"\s+#+\s*$")


def _markdown_outline(matches: list[Any], source: bytes) -> list[OutlineItem]:
    headings: list[tuple[int, int, str]] = []  # (line, level, title)
    for _, captures in matches:
        node = _nodes(captures, "def.heading")
        if node is None:
            continue
        level = _heading_level(node)
        content = node.child_by_field_name("heading_content")
        title = _text(content) if content is not None else ""
        if node.type == "atx_heading":
            title = _ATX_CLOSING.sub("", " " + title).strip() if title else ""
        if not title or level is None:
            continue
        headings.append((node.start_point[0] + 1, level, title))
    return _nest_headings(headings, source)


def _nest_headings(headings: list[tuple[int, int, str]], source: bytes) -> list[OutlineItem]:
    headings.sort()
    total = source.count(b"\n") + (1 if source and not source.endswith(b"\n") else 0)
    roots: list[OutlineItem] = []
    stack: list[OutlineItem] = []  # open headings, levels strictly increasing
    for line, level, title in headings:
        while stack and (stack[-1].level or 0) >= level:
            _close(stack.pop(), line - 1)
        item = OutlineItem(title, "heading", line, line, 1, [], None, level)
        (stack[-1].children if stack else roots).append(item)
        stack.append(item)
    while stack:
        _close(stack.pop(), total)
    return roots


def _close(item: OutlineItem, end: int) -> None:
    item.end_line = max(end, item.line_number)
    item.line_count = item.end_line - item.line_number + 1


# Lines that matter for headings in a large Markdown file: fences, ATX
# headings and setext underlines (each at most 3 spaces in).
_MD_LINE = re.compile(
    rb"^ {0,3}(?:(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)"
    rb"|(?P<atx>#{1,6})(?:[ \t]+(?P<title>[^\n]*?))?[ \t]*\r?"
    rb"|(?P<setext>=+|-+)[ \t]*\r?)$",
    re.M,
)
_FRONT_MATTER = re.compile(rb"---[ \t]*\r?\n(?:[^\n]*\n)*?(?:---|\.\.\.)[ \t]*\r?(?:\n|\Z)")
# A line that cannot be the text of a setext heading.
_NOT_PARAGRAPH = re.compile(
    rb"^(?: {4}|\t| {0,3}(?:>|(?:#{1,6}|[*+-]|\d{1,9}[.)])(?:[ \t]|\r?$)|`{3}|~{3}|\r?$))"
)


def _scan_markdown_headings(source: bytes) -> list[tuple[int, int, str]]:
    """Headings of a large Markdown file without a full parse.

    Fenced code blocks are skipped; a setext underline counts when the line
    above is ordinary text.  Lists, quotes and HTML blocks are not tracked.
    """
    headings: list[tuple[int, int, str]] = []
    fence: bytes | None = None
    row = 0
    last = 0
    front = _FRONT_MATTER.match(source)
    for match in _MD_LINE.finditer(source, front.end() if front is not None else 0):
        start = match.start()
        row += source.count(b"\n", last, start)
        last = start
        marker = match.group("fence")
        if fence is not None:
            closes = marker and marker[0] == fence[0] and len(marker) >= len(fence)
            if closes and not match.group("info").strip():
                fence = None
            continue
        if marker:
            if marker[0] == ord("`") and b"`" in match.group("info"):
                continue  # not a fence: backticks in the info string
            fence = marker
            continue
        atx = match.group("atx")
        if atx:
            title = _ATX_CLOSING.sub("", " " + _plain(match.group("title") or b"")).strip()
            if title:
                headings.append((row + 1, len(atx), title))
            continue
        if row == 0:
            continue
        prev_start = source.rfind(b"\n", 0, start - 1) + 1
        previous = source[prev_start : start - 1]
        if _NOT_PARAGRAPH.match(previous) is None:
            level = 1 if match.group("setext")[0] == ord("=") else 2
            if headings and headings[-1][0] == row:
                continue  # the line above is itself a heading
            headings.append((row, level, _plain(previous)))
    return headings


def _plain(raw: bytes) -> str:
    name = b" ".join(raw.split()).decode("utf-8", "replace")
    if len(name) > MAX_NAME_CHARS:
        name = name[: MAX_NAME_CHARS - 1] + "…"
    return name


def _heading_level(node: Any) -> int | None:
    for child in node.children:
        kind = child.type
        if kind.startswith("atx_h") and kind.endswith("_marker"):
            return int(kind[5])
        if kind == "setext_h1_underline":
            return 1
        if kind == "setext_h2_underline":
            return 2
    return None


# --------------------------------------------------------------------------
# Lookups.


def iter_items(outline: Sequence[OutlineItem]) -> list[OutlineItem]:
    """Every item of ``outline``, depth first, parents before children."""
    out: list[OutlineItem] = []
    pending = list(reversed(outline))
    while pending:
        item = pending.pop()
        out.append(item)
        pending.extend(reversed(item.children))
    return out


def count_items(outline: Sequence[OutlineItem]) -> int:
    """How many items ``outline`` holds, nested ones included."""
    return sum(1 + count_items(item.children) for item in outline)


def enclosing_path(outline: Sequence[OutlineItem], line: int) -> list[OutlineItem]:
    """Items containing ``line``, outermost first (removed items ignored)."""
    path: list[OutlineItem] = []
    items: Sequence[OutlineItem] = outline
    while True:
        found = _containing(items, line)
        if found is None:
            return path
        path.append(found)
        items = found.children


def _containing(items: Sequence[OutlineItem], line: int) -> OutlineItem | None:
    # Current items are sorted by start line; removed ones come last.
    current = [i for i in items if i.changes != "removed"] if items else []
    index = bisect.bisect_right(current, line, key=lambda i: i.line_number)
    # Siblings may overlap only in pathological recoveries: look back a bit.
    for item in reversed(current[max(0, index - 4) : index]):
        if item.line_number <= line <= item.end_line:
            return item
    return None


def enclosing_item(outline: Sequence[OutlineItem], line: int) -> OutlineItem | None:
    """The innermost item whose lines contain ``line``, or None."""
    path = enclosing_path(outline, line)
    return path[-1] if path else None


def qualified_name(path: Sequence[OutlineItem]) -> str:
    """``Outer.Inner.name`` for the last item of ``path`` (classes as qualifiers)."""
    parts = [_qualifier(item) for item in path[:-1] if item.type in _QUALIFIER_TYPES]
    parts.append(path[-1].name)
    return ".".join(parts)


_QUALIFIER_TYPES = _CLASS_LIKE_TYPES | {"module"}


def _qualifier(item: OutlineItem) -> str:
    if item.type == "impl":
        name = item.name.removeprefix("impl ")
        return name.rsplit(" for ", 1)[-1]
    return item.name


def describe_context(outline: Sequence[OutlineItem], line: int) -> str | None:
    """Where ``line`` sits, e.g. ``inside method Parser.run()``; None at top level."""
    path = enclosing_path(outline, line)
    if not path:
        return None
    inner = path[-1]
    if inner.type == "heading":
        return 'in section "' + " > ".join(item.name for item in path) + '"'
    if inner.type in _CALLABLE_TYPES:
        return f"inside {inner.type} {qualified_name(path)}()"
    return f"inside {inner.type} {qualified_name(path)}"


# --------------------------------------------------------------------------
# Per-file cache.

_CACHE_SIZE = 16
_cache: OrderedDict[tuple[str, Hashable], list[OutlineItem]] = OrderedDict()
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
) -> list[OutlineItem]:
    """The outline of one version of a file, parsed once and cached.

    ``fingerprint`` identifies the version (e.g. ``diffchunk.paths.fingerprint``
    of its stat); ``source`` is its content (bytes, memoryview or a reader).
    Each call returns a fresh copy, so callers may mark or extend it.
    """
    key = (path, fingerprint)
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
    if cached is None:
        if language is None:
            language = language_for_path(path, bytes(source[:200]))
        if language is None or len(source) > OUTLINE_MAX_BYTES:
            return []
        whole = source if isinstance(source, bytes) else bytes(source[0 : len(source)])
        cached = build_outline(whole, language)
        with _cache_lock:
            _cache[key] = cached
            _cache.move_to_end(key)
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return [item.copy() for item in cached]


def cached_outline(path: str, fingerprint: Hashable) -> list[OutlineItem] | None:
    """A copy of the outline cached for ``(path, fingerprint)``, or None."""
    key = (path, fingerprint)
    with _cache_lock:
        cached = _cache.get(key)
        if cached is None:
            return None
        _cache.move_to_end(key)
    return [item.copy() for item in cached]


def clear_cache() -> None:
    """Forget every cached outline."""
    with _cache_lock:
        _cache.clear()
