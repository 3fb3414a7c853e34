"""Hunks widened with more context: the same change, shown with more of the new file around it.

:func:`widen_hunks` rewrites the hunks of one two-way file section so that
each covers at least the new-side lines asked for it (the whole function or
class around it, say): the lines added before and after are context lines
taken from the new file (unchanged lines read the same on both sides), the
old side's numbers follow from the new side's, hunks whose widened spans
overlap or touch become one, and every ``@@`` header is written anew with
:func:`~diffchunk.diff.hunk.format_hunk_header`.  The result still applies
with ``git apply``: each widened hunk's old side is exactly the old file's
lines there.

:func:`changed_new_lines` gives the new-side lines a hunk changes (an added
line's own number; for removed lines, the new line they were removed
before), from which a caller chooses the spans.  :func:`new_side_changes`
and :func:`change_runs` give a file's changed lines, the latter as the
hunks of ``git diff -U0`` (which old line is which new one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .buffer import DiffData
from .hunk import Hunk, format_hunk_header, header_tail

NO_NEWLINE = b"\\ No newline at end of file\n"


def split_lines(content: bytes) -> list[bytes]:
    """The lines of a file as a diff counts them (split on LF only), each with its LF."""
    lines = content.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
        return [line + b"\n" for line in lines]
    return [line + b"\n" for line in lines[:-1]] + ([lines[-1]] if lines else [])


def _body_lines(data: DiffData, hunk: Hunk) -> list[bytes]:
    body = bytes(data[hunk.body_start : hunk.end])
    lines = body.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line + b"\n" for line in lines]


def changed_new_lines(data: DiffData, hunk: Hunk) -> list[int]:
    """The new-side lines the hunk changes (see the module docstring), in order."""
    number = hunk.new_start if hunk.new_count else hunk.new_start + 1
    changed: list[int] = []
    for line in _body_lines(data, hunk):
        kind = line[:1]
        if kind == b"+":
            changed.append(number)
            number += 1
        elif kind == b"-":
            if not changed or changed[-1] != number:
                changed.append(number)
        elif kind != b"\\":
            number += 1
    return changed


def new_side_changes(
    data: DiffData, hunks: Sequence[Hunk]
) -> tuple[list[tuple[int, int]], list[int]]:
    """The new-side line ranges the hunks add (inclusive), and the points where they only
    remove lines (``p``: lines were removed between new lines ``p`` and ``p + 1``)."""
    ranges: list[tuple[int, int]] = []
    deletions: list[int] = []
    for hunk in hunks:
        number = hunk.new_start if hunk.new_count else hunk.new_start + 1
        run_start = -1
        removed = False
        for line in [*_body_lines(data, hunk), b" "]:
            kind = line[:1]
            if kind == b"\\":
                continue
            if kind == b"+":
                if run_start < 0:
                    run_start = number
                number += 1
                continue
            if run_start >= 0:
                ranges.append((run_start, number - 1))
                run_start = -1
                removed = False
            if kind == b"-":
                removed = True
                continue
            if removed:
                deletions.append(number - 1)
                removed = False
            number += 1
    return ranges, deletions


def change_runs(data: DiffData, hunks: Sequence[Hunk]) -> list[tuple[int, int, int, int]]:
    """``(old_start, old_count, new_start, new_count)`` of each run of removed and added
    lines, as ``git diff -U0`` would write the hunks (a side with no line gives the line
    before): where the lines outside them are on the other side is exact."""
    runs: list[tuple[int, int, int, int]] = []
    for hunk in hunks:
        old = hunk.old_start if hunk.old_count else hunk.old_start + 1
        new = hunk.new_start if hunk.new_count else hunk.new_start + 1
        removed = added = 0
        for line in [*_body_lines(data, hunk), b" "]:
            kind = line[:1]
            if kind == b"\\":
                continue
            if kind == b"-":
                removed += 1
                old += 1
                continue
            if kind == b"+":
                added += 1
                new += 1
                continue
            if removed or added:
                old_first = old - removed if removed else old - 1
                new_first = new - added if added else new - 1
                runs.append((old_first, removed, new_first, added))
                removed = added = 0
            old += 1
            new += 1
    return runs


@dataclass(frozen=True, slots=True)
class _Span:
    hunk: Hunk
    new_first: int  # the hunk's first new-side line (where it would be, when it has none)
    new_last: int  # its last new-side line (new_first - 1 when it has none)
    old_first: int
    start: int  # the widened span, new side
    end: int


def _span(hunk: Hunk, wanted: tuple[int, int], total: int) -> _Span:
    new_first = hunk.new_start if hunk.new_count else hunk.new_start + 1
    old_first = hunk.old_start if hunk.old_count else hunk.old_start + 1
    new_last = new_first + hunk.new_count - 1
    start = max(1, min(wanted[0], new_first))
    end = min(total, max(wanted[1], new_last))
    return _Span(hunk, new_first, new_last, old_first, start, end)


def widen_hunks(
    data: DiffData,
    hunks: Sequence[Hunk],
    new_lines: Sequence[bytes],
    wanted: Sequence[tuple[int, int]],
) -> bytes:
    """The hunks of one two-way section, each widened to cover at least the new-side
    lines ``wanted[i]`` (first, last; inclusive) of ``new_lines`` (the new file's lines,
    each with its LF), merged where they overlap or touch.  See the module docstring."""
    total = len(new_lines)
    spans = [_span(h, w, total) for h, w in zip(hunks, wanted, strict=True)]
    groups: list[list[_Span]] = []
    for span in spans:
        if groups and span.start <= groups[-1][-1].end + 1:
            groups[-1].append(span)
        else:
            groups.append([span])
    return b"".join(_group_text(data, group, new_lines) for group in groups)


def _context(new_lines: Sequence[bytes], first: int, last: int) -> list[bytes]:
    """New lines ``first..last`` as context lines (the file's last line without an LF
    gets its marker)."""
    out: list[bytes] = []
    for number in range(first, last + 1):
        line = new_lines[number - 1]
        if line.endswith(b"\n"):
            out.append(b" " + line)
        else:
            out.extend((b" " + line + b"\n", NO_NEWLINE))
    return out


def _group_text(data: DiffData, group: list[_Span], new_lines: Sequence[bytes]) -> bytes:
    """One widened hunk: the group's hunks with context from the new file between them."""
    start = group[0].start
    end = max(span.end for span in group)
    body: list[bytes] = []
    position = start  # the next new line to show
    added = removed = 0
    for span in group:
        body.extend(_context(new_lines, position, span.new_first - 1))
        body.extend(_body_lines(data, span.hunk))
        added += span.hunk.added
        removed += span.hunk.removed
        position = span.new_last + 1
    body.extend(_context(new_lines, position, end))
    first = group[0]
    old_first = first.old_first - (first.new_first - start)
    new_count = end - start + 1
    old_count = new_count - added + removed
    # git's function context names the line before a hunk: kept for a hunk that
    # starts where it did, left out for one that starts earlier now.
    tail = header_tail(data, first.hunk) if start == first.new_first else b"\n"
    header = format_hunk_header(
        old_first if old_count else old_first - 1,
        old_count,
        start if new_count else start - 1,
        new_count,
        tail,
    )
    return header + b"".join(body)
