"""What ``get_overview`` shows of an outline: a page of it, or the definitions a query names.

Every definition is reachable, whatever the outline's size:

- **Pages.**  The outline is read in file order, parents before their
  children (pre-order), and a page is :data:`OUTLINE_PAGE_ITEMS` consecutive items of
  that order, nested as in the file: a class keeps its members, the next
  page goes on where this one stops (``next_offset``).  An item whose
  parent is on an earlier page names that parent (``"parent"``: its
  qualified name); an item whose children run on past the page says how
  many are left out (``"children_omitted"``).
- **Queries.**  ``symbol`` is a name or a glob (``createProgram``,
  ``Parser.*``, ``*Handler``), matched against each definition's name and
  its qualified name (every enclosing definition, classes and functions
  alike: ``Outer.Inner.name``, ``Parser.run.helper``) at any depth; ``*``
  matches dots too (``Parser.*`` finds ``Parser.run.helper``); case matters,
  unless nothing matches with case (then case is ignored, and the result
  says so).  At most :data:`MAX_MATCHES` matches are listed, with their
  total.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidArgument
from ..limits import OUTLINE_PAGE_ITEMS
from .outline_item import OutlineItem, qualified_name

MAX_MATCHES = 200
"""Definitions a ``symbol`` query lists (the total is given beside them)."""

MAX_QUERY_CHARS = 500
"""A symbol query longer than any definition name could be is refused."""


def preorder(outline: Sequence[OutlineItem]) -> Iterator[tuple[list[OutlineItem], OutlineItem]]:
    """``(ancestors, item)`` for every item, in file order, parents before children."""
    pending: list[tuple[list[OutlineItem], OutlineItem]] = [([], i) for i in reversed(outline)]
    while pending:
        ancestors, item = pending.pop()
        yield ancestors, item
        inner = [*ancestors, item]
        pending.extend((inner, child) for child in reversed(item.children))


def _node(item: OutlineItem) -> dict[str, Any]:
    """An item's JSON without its children (they are added as the page holds them)."""
    node = item.to_dict()
    node["children"] = []
    return node


@dataclass(frozen=True, slots=True)
class OutlinePage:
    """One page of an outline (see the module docstring)."""

    items: tuple[dict[str, Any], ...]
    total: int
    offset: int
    shown: int
    next_offset: int | None


def outline_page(
    outline: Sequence[OutlineItem], offset: int, size: int = OUTLINE_PAGE_ITEMS
) -> OutlinePage:
    """Items ``offset .. offset + size - 1`` of the outline in pre-order, nested."""
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidArgument(
            f"outline_offset must be a non-negative integer, got {offset!r}.",
            suggestion="Use 0 for the first page, then the outline_next_offset of the last one.",
        )
    roots: list[dict[str, Any]] = []
    shown: list[tuple[OutlineItem, dict[str, Any]]] = []
    stack: list[tuple[int, dict[str, Any]]] = []  # open nodes: (depth, node)
    total = 0
    for ancestors, item in preorder(outline):
        index = total
        total += 1
        if not offset <= index < offset + size:
            continue
        depth = len(ancestors)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        node = _node(item)
        if stack:
            stack[-1][1]["children"].append(node)
        else:
            if ancestors:
                node["parent"] = qualified_name(ancestors)
            roots.append(node)
        stack.append((depth, node))
        shown.append((item, node))
    if offset > total or (offset == total and total):
        raise InvalidArgument(
            f"outline_offset={offset} is past the end: the outline has {total} items.",
            suggestion=f"Use an outline_offset between 0 and {max(total - 1, 0)}.",
        )
    for item, node in shown:  # children running on past the page
        if len(node["children"]) < len(item.children):
            node["children_omitted"] = len(item.children) - len(node["children"])
    end = min(total, offset + size)
    return OutlinePage(tuple(roots), total, offset, end - offset, end if end < total else None)


@dataclass(frozen=True, slots=True)
class SymbolMatches:
    """The definitions a ``symbol`` query found (at most :data:`MAX_MATCHES`)."""

    items: tuple[dict[str, Any], ...]
    total: int
    ignored_case: bool


def find_symbols(
    outline: Sequence[OutlineItem], query: str, limit: int = MAX_MATCHES
) -> SymbolMatches:
    """Definitions whose name or qualified name matches ``query`` (see the module docstring)."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidArgument(
            "symbol is empty.",
            suggestion="Pass a definition's name or a glob, e.g. 'createProgram' or 'Parser.*'.",
        )
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidArgument(f"symbol is longer than {MAX_QUERY_CHARS} characters.")
    query = query.strip()
    named = [(qualified_name([*a, i]), a, i) for a, i in preorder(outline)]
    found = [n for n in named if _matches(query, n[0], n[2].name)]
    ignored_case = False
    if not found:
        folded = query.lower()
        found = [n for n in named if _matches(folded, n[0].lower(), n[2].name.lower())]
        ignored_case = bool(found)
    return SymbolMatches(
        tuple(_match_entry(q, a, i) for q, a, i in found[:limit]), len(found), ignored_case
    )


def _matches(query: str, qualified: str, name: str) -> bool:
    return fnmatch.fnmatchcase(name, query) or fnmatch.fnmatchcase(qualified, query)


def _match_entry(qualified: str, ancestors: list[OutlineItem], item: OutlineItem) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": item.name,
        "type": item.type,
        "line_number": item.line_number,
        "end_line": item.end_line,
        "line_count": item.line_count,
    }
    if qualified != item.name:
        entry["qualified_name"] = qualified
    if ancestors:
        entry["parent"] = ancestors[-1].name
    if item.changes is not None:
        entry["changes"] = item.changes
    if item.children:
        entry["children"] = len(item.children)
    return entry
