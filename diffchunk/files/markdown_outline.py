"""The outline of a Markdown file: its headings, nested by level.

Small files are parsed by tree-sitter (:func:`tree_headings` reads the
query's matches); large ones (above ``outline.SKELETON_MIN_BYTES``) are
scanned line by line (:func:`scan_headings`): fenced code blocks are
skipped, a setext underline counts when the line above is ordinary text;
lists, quotes and HTML blocks are not tracked.  Either way a heading's
section runs to the line before the next heading of its level or higher
(:func:`nest_headings`).
"""

from __future__ import annotations

import re
from typing import Any

from .outline_item import OutlineItem, capture, node_text, short_name

_ATX_CLOSING = re.compile(r"\s+#+\s*$")


def tree_headings(matches: list[Any], source: bytes) -> list[tuple[int, int, str]]:
    """``(line, level, title)`` of the headings a tree-sitter query matched in ``source``."""
    headings: list[tuple[int, int, str]] = []  # (line, level, title)
    for _, captures in matches:
        node = capture(captures, "def.heading")
        if node is None:
            continue
        level = _heading_level(node)
        content = node.child_by_field_name("heading_content")
        title = node_text(content, source) if content is not None else ""
        if node.type == "atx_heading":
            title = _ATX_CLOSING.sub("", " " + title).strip() if title else ""
        if not title or level is None:
            continue
        headings.append((node.start_point[0] + 1, level, title))
    return headings


def nest_headings(headings: list[tuple[int, int, str]], source: bytes) -> list[OutlineItem]:
    """Headings as an outline: each holds the deeper ones that follow it."""
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


def scan_headings(source: bytes) -> list[tuple[int, int, str]]:
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
            title = _ATX_CLOSING.sub("", " " + short_name(match.group("title") or b"")).strip()
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
            headings.append((row, level, short_name(previous)))
    return headings


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
