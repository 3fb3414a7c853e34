"""Reduce the context lines of a parsed diff: ``reduce_context(parsed, n) -> bytes``.

Every two-way hunk is cut into *runs* (consecutive context lines, or
consecutive changed lines) with bytes searches, not per-line objects.  Each
run of changes keeps up to ``n`` context lines before and after it; when two
runs are at most ``2 * n`` context lines apart they stay in one hunk, so
shared lines appear once.  Hunk headers are recomputed; a side with no lines
follows git's convention of naming the line *before* the change
(``@@ -5,0 +6,2 @@``).  A ``\\ No newline at end of file`` marker travels with
the line it follows, and the text after the closing ``@@`` is kept on every
hunk cut from the original one.

Copied unchanged: commit headers and other segments, file headers, binary
payloads, metadata-only files, files flagged malformed, and combined diffs
of merges (their N-way context cannot be cut the same way, and ``git apply``
does not apply them anyway).

The result is a new diff text; parse it again to work with it.  With ``n=0``
it applies with ``git apply --unidiff-zero``, otherwise with plain ``git apply``.
"""

from __future__ import annotations

import re

from diffchunk.diff.buffer import DiffData
from diffchunk.diff.hunk import MAX_LINE_NUMBER, Hunk, format_hunk_header, header_tail
from diffchunk.diff.model import DiffKind, FileDiff, ParsedDiff, Segment
from diffchunk.errors import InvalidArgument

__all__ = ["reduce_context"]

_CHANGE_RUN_END = re.compile(rb"\n[^+\-\\]")
_CONTEXT_RUN_END = re.compile(rb"\n[+\-]")


def reduce_context(parsed: ParsedDiff, context_lines: int) -> bytes:
    """A new diff text with at most ``context_lines`` context lines around each change."""
    if isinstance(context_lines, bool) or not isinstance(context_lines, int):
        raise InvalidArgument(
            f"context_lines must be a whole number, got {context_lines!r}.",
            suggestion="Use 0 for changed lines only, or a small count such as 3.",
        )
    if context_lines < 0:
        raise InvalidArgument(
            f"context_lines must be 0 or more, got {context_lines}.",
            suggestion="Use 0 for changed lines only, 3 for git's default, or omit it to keep all.",
        )
    data = parsed.data
    out: list[bytes] = []
    for section in parsed.sections():
        if isinstance(section, Segment) or not _reducible(section):
            out.append(data[section.start : section.end])
            continue
        first = section.hunks[0]
        out.append(data[section.start : first.start])
        previous_end = first.start
        for hunk in section.hunks:
            out.append(data[previous_end : hunk.start])
            _reduce_hunk(data, hunk, context_lines, out)
            previous_end = hunk.end
        out.append(data[previous_end : section.end])
    return b"".join(out)


def _reducible(f: FileDiff) -> bool:
    return bool(f.hunks) and f.kind is not DiffKind.COMBINED and f.malformed is None


class _Group:
    """One output hunk: byte spans of the original body plus line bookkeeping."""

    __slots__ = ("new_before", "new_count", "old_before", "old_count", "spans")

    def __init__(self, old_before: int, new_before: int) -> None:
        self.old_before = old_before
        self.new_before = new_before
        self.old_count = 0
        self.new_count = 0
        self.spans: list[tuple[int, int]] = []

    def add(self, start: int, end: int, old: int, new: int) -> None:
        if start >= end:
            return
        if self.spans and self.spans[-1][1] == start:
            self.spans[-1] = (self.spans[-1][0], end)
        else:
            self.spans.append((start, end))
        self.old_count += old
        self.new_count += new


def _runs(data: DiffData, hunk: Hunk) -> list[tuple[bool, int, int, int, int]]:
    """``(is_change, start, end, old_lines, new_lines)`` for each run of the body."""
    runs: list[tuple[bool, int, int, int, int]] = []
    pos, end = hunk.body_start, hunk.end
    count = data.count
    while pos < end:
        c = data[pos]
        if c == 0x2B or c == 0x2D:
            m = _CHANGE_RUN_END.search(data, pos - 1, end)
            run_end = m.start() + 1 if m else end
            removed = count(b"\n-", pos - 1, run_end)
            added = count(b"\n+", pos - 1, run_end)
            runs.append((True, pos, run_end, removed, added))
        else:
            m = _CONTEXT_RUN_END.search(data, pos - 1, end)
            run_end = m.start() + 1 if m else end
            lines = count(b"\n", pos - 1, run_end - 1) - count(b"\n\\", pos - 1, run_end)
            runs.append((False, pos, run_end, lines, lines))
        pos = run_end
    return runs


def _after_lines(data: DiffData, start: int, end: int, k: int) -> int:
    """Offset after the first ``k`` lines of ``data[start:end]`` (plus any ``\\`` marker).

    Marker lines are not counted, wherever they are (as in :func:`_runs`).
    """
    pos = start
    got = 0
    while pos < end and (got < k or data[pos] == 0x5C):
        if data[pos] != 0x5C:
            got += 1
        nl = data.find(b"\n", pos, end)
        pos = end if nl < 0 else nl + 1
    return pos


def _last_lines(data: DiffData, start: int, end: int, k: int) -> int:
    """Offset of the first of the last ``k`` lines of ``data[start:end]`` (markers not counted)."""
    pos = end
    got = 0
    while got < k and pos > start:
        line_start = data.rfind(b"\n", start, pos - 1) + 1
        if line_start <= 0 or line_start < start:
            line_start = start
        if data[line_start] != 0x5C:
            got += 1
        pos = line_start
    return pos


def _reduce_hunk(data: DiffData, hunk: Hunk, n: int, out: list[bytes]) -> None:
    runs = _runs(data, hunk)
    old_before = hunk.old_start - 1 if hunk.old_count > 0 else hunk.old_start
    new_before = hunk.new_start - 1 if hunk.new_count > 0 else hunk.new_start
    groups: list[_Group] = []
    current: _Group | None = None
    previous: tuple[int, int, int] | None = None  # last context run: start, end, lines
    for i, (is_change, start, end, old, new) in enumerate(runs):
        if is_change:
            if current is None:
                lead = 0
                lead_start = start
                if previous is not None:
                    lead = min(n, previous[2])
                    lead_start = _last_lines(data, previous[0], previous[1], lead)
                current = _Group(old_before - lead, new_before - lead)
                current.add(lead_start, start, lead, lead)
            current.add(start, end, old, new)
            previous = None
        else:
            if current is not None:
                if i + 1 < len(runs) and old <= 2 * n:
                    current.add(start, end, old, new)
                else:
                    keep = min(n, old)
                    current.add(start, _after_lines(data, start, end, keep), keep, keep)
                    groups.append(current)
                    current = None
                    previous = (start, end, old)
            else:
                previous = (start, end, old)
        old_before += old
        new_before += new
    if current is not None:
        groups.append(current)

    heads = [
        (
            g.old_before + 1 if g.old_count else g.old_before,
            g.old_count,
            g.new_before + 1 if g.new_count else g.new_before,
            g.new_count,
        )
        for g in groups
    ]
    if (
        not groups
        or (len(groups) == 1 and groups[0].spans == [(hunk.body_start, hunk.end)])
        or max(max(h) for h in heads) > MAX_LINE_NUMBER
        or min(min(h) for h in heads) < 0
        or (hunk.old_start == 0 and hunk.old_count > 0)
        or (hunk.new_start == 0 and hunk.new_count > 0)
    ):
        # Nothing to cut; or a hunk without any change (git never writes one, but
        # dropping it could leave a file section with headers and no hunk at all);
        # or line numbers a header cannot hold (a header claiming lines past
        # 10**18, or lines counted from line 0, which no cut of it could make
        # right): keep the hunk as written.
        out.append(data[hunk.start : hunk.end])
        return
    tail = header_tail(data, hunk)
    for g, (old_start, old_count, new_start, new_count) in zip(groups, heads, strict=True):
        out.append(format_hunk_header(old_start, old_count, new_start, new_count, tail))
        for s, e in g.spans:
            out.append(data[s:e])
        if data[g.spans[-1][1] - 1 : g.spans[-1][1]] != b"\n" and g is not groups[-1]:
            out.append(b"\n")
