"""The outline's data: :class:`OutlineItem`, the kinds of symbols, and lookups.

An outline is a list of items in file order, each with its children (the
symbols inside it).  Line numbers are 1-based and inclusive.  The lookups
find the items around a line (:func:`enclosing_path`), name them as a
reader would (``Outer.method.inner``: every enclosing definition,
:func:`qualified_name`) and say where a line sits
(:func:`describe_context`).  Items an outline marks ``removed`` (symbols
gone since git HEAD, see :mod:`.changed_symbols`) are never "around" a line.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

MAX_NAME_CHARS = 200
"""Outline names longer than this are cut (with an ellipsis): a C++ template
or a Markdown heading can run on for a line."""


CALLABLE_TYPES = frozenset({"function", "method", "constructor"})
CLASS_LIKE_TYPES = frozenset(
    {"class", "struct", "interface", "trait", "impl", "enum", "record", "union", "object"}
)


@dataclass(slots=True)
class OutlineItem:
    """One symbol of the outline; ``children`` are the symbols inside it.

    Line numbers are 1-based and inclusive.  For an item with
    ``changes == "removed"`` (a symbol present in HEAD but gone from the
    file) the lines are those it had in HEAD's version of the file.

    ``elided``: the lines inside this item (and inside none of its children)
    whose text a skeleton elided before parsing (:mod:`.skeleton`), sorted:
    definitions there, if any, are not in the outline.  Not part of the JSON.
    """

    name: str
    type: str
    line_number: int
    end_line: int
    line_count: int
    children: list[OutlineItem] = field(default_factory=list)
    changes: str | None = None
    level: int | None = None  # heading level (1-6) for Markdown headings
    elided: tuple[tuple[int, int], ...] = ()

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
            self.elided,
        )


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
    """``Outer.method.inner`` for the last item of ``path``: every enclosing definition
    (classes, functions, namespaces...) qualifies it, so that two functions of one name
    nested in different methods are told apart.  Headings do not qualify."""
    return ".".join(qualified_parts(path))


def qualified_parts(path: Sequence[OutlineItem]) -> list[str]:
    """The names :func:`qualified_name` joins, outermost first."""
    parts = [_qualifier(item) for item in path[:-1] if item.type != "heading"]
    parts.append(path[-1].name)
    return parts


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
    if inner.type in CALLABLE_TYPES:
        return f"inside {inner.type} {qualified_name(path)}()"
    return f"inside {inner.type} {qualified_name(path)}"


def short_name(raw: bytes) -> str:
    """A name from source bytes: blanks collapsed, cut to :data:`MAX_NAME_CHARS`."""
    name = b" ".join(raw.split()).decode("utf-8", "replace")
    if len(name) > MAX_NAME_CHARS:
        name = name[: MAX_NAME_CHARS - 1] + "…"
    return name


def node_text(node: Any, source: bytes) -> str:
    """The :func:`short_name` of a tree-sitter node's text in the ``source`` it was
    parsed from (read there: a tree parsed through a callback would call it again)."""
    return short_name(source[node.start_byte : node.end_byte])


def capture(captures: dict[str, Any], key: str) -> Any | None:
    """The first node captured as ``key`` in a query match, or None."""
    value = captures.get(key)
    if value is None:
        return None
    if isinstance(value, list):
        return value[0] if value else None
    return value
