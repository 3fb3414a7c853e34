"""Helpers of the outline tests (``tests/test_files_outline_*.py``)."""

from __future__ import annotations

import textwrap

from diffchunk.files.outline import OutlineItem


def src(text: str) -> bytes:
    return textwrap.dedent(text).lstrip("\n").encode()


def flat(items: list[OutlineItem], depth: int = 0) -> list[tuple[int, str, str, int, int]]:
    out = []
    for item in items:
        out.append((depth, item.type, item.name, item.line_number, item.end_line))
        assert item.line_count == item.end_line - item.line_number + 1
        out.extend(flat(item.children, depth + 1))
    return out
