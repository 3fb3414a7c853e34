"""More context around a hunk: lines of a file as it is on one side of the diff.

The lines come from the file at that revision as ``open_file_version`` gives
it (:mod:`diffchunk.review.tools.file_versions`: a range's blobs from the object
store, the index's blob, the work tree's file checked against the diff, or a
diff file's blobs in the repository named for it), read through the file
tools' reader (:mod:`diffchunk.files.line_reads`: long lines cut with a marker that
says how much).  Between two hunks, and before the first and after the last,
a line is the same on both sides (only its number differs), so the page asks
for the new side and gives the old side's numbers as a fallback: when the new
side cannot be read (a work-tree file changed since the load, a since-review
diff), the old side is.  At most :data:`PAGE_CONTEXT_LINES`
lines are read per call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...errors import DiffchunkError, InvalidArgument
from ...files.access import open_version
from ...files.line_reads import read_lines
from ..export.highlight import Budget, Span, lexer_for, tokens_of_lines, visible
from ..sessions.store import SessionStore
from ..tools.file_versions import open_file_version

PAGE_CONTEXT_LINES = 1_000
"""Lines of a file one request for more context may read (expanding a gap
larger than this takes several clicks)."""


@dataclass(frozen=True, slots=True)
class ContextLines:
    """Lines ``first`` .. of ``path`` on ``side``; ``total``: that side's line count."""

    path: str
    side: str
    first: int
    lines: tuple[tuple[Span, ...], ...]
    total: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "side": self.side,
            "first": self.first,
            "lines": [[[s.text, s.token] for s in line] for line in self.lines],
            "total": self.total,
        }


def _check(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidArgument(f"{name} must be a whole number >= {low}, got {value!r}.")
    return value


def _read(
    absolute_file_path: str,
    file_path: str,
    side: str,
    first: int,
    count: int,
    repo: str | None,
    store: SessionStore | None,
) -> ContextLines:
    opened = open_file_version(absolute_file_path, file_path, side, repo, store=store)
    if opened.binary:
        raise InvalidArgument(f"{opened.file_path} is binary: it has no lines to show.")
    version = open_version(opened.path)
    total = version.line_count()
    texts: list[str] = []
    if first <= total and count:
        lines = read_lines(version, first, min(count, total - first + 1))
        texts = [visible(t) for t in lines.text.split("\n")] if lines.count else []
    tokens = tokens_of_lines(lexer_for(opened.file_path) if Budget().take(texts) else None, texts)
    return ContextLines(
        path=opened.file_path,
        side=side,
        first=first,
        lines=tuple(tuple(Span(text, css) for text, css in line) for line in tokens),
        total=total,
    )


def context_lines(
    absolute_file_path: str,
    file_path: str,
    new_first: int,
    count: int,
    old_first: int | None = None,
    *,
    absolute_repo_path: str | None = None,
    store: SessionStore | None = None,
) -> ContextLines:
    """Up to ``count`` lines of ``file_path`` from line ``new_first`` of its new side;
    when the new side cannot be read and ``old_first`` is given, from that line of its
    old side (see the module doc).  ``absolute_repo_path``: the repository of a diff
    file (a range's is known)."""
    _check("new_first", new_first, 1)
    count = min(_check("count", count, 0), PAGE_CONTEXT_LINES)
    try:
        return _read(
            absolute_file_path, file_path, "new", new_first, count, absolute_repo_path, store
        )
    except DiffchunkError:
        if old_first is None:
            raise
    _check("old_first", old_first, 1)
    return _read(absolute_file_path, file_path, "old", old_first, count, absolute_repo_path, store)
