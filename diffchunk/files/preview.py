"""The preview of an edit: a unified diff of the changed regions.

Each change is shown with :data:`CONTEXT_LINES` lines of context and its
real line numbers (changes whose regions touch share one region); the new
side's numbers account for the lines earlier changes added or removed.  The
regions are read from the snapshot, never the whole file, and never a whole
long line: a line longer than :data:`_LONG` bytes is read only around the
changes in it (:data:`_AROUND` bytes on each side; its start when none is),
the rest shown as ``[... N bytes]`` on both sides (:func:`_kept`).  Lines
longer than :data:`MAX_PREVIEW_LINE_CHARS` characters are cut, and the
preview stops after :data:`MAX_PREVIEW_LINES` lines with a note of how many
more there were.
"""

from __future__ import annotations

import difflib

from .byte_reader import Reader
from .edit_snapshot import EditSnapshot
from .locate import Located

CONTEXT_LINES = 3
"""Context lines around each change in an edit's preview: git's default."""

MAX_PREVIEW_LINES = 400
"""An edit's preview stops after this many lines, with a note of how many more
there were: about 12k tokens at 120 characters a line."""

MAX_PREVIEW_LINE_CHARS = 400
"""Lines of a preview longer than this are cut."""

_LONG = 4 * MAX_PREVIEW_LINE_CHARS
"""A line of a preview's region longer than this is read in excerpts (around
its changes, else its start), never whole: in UTF-8 a character is at most
four bytes, so a shorter line is cut by MAX_PREVIEW_LINE_CHARS anyway, and a
gigabyte line no longer costs gigabytes (a 1 GB one-line file took 6.2 GB)."""

_AROUND = MAX_PREVIEW_LINE_CHARS // 4
"""Bytes shown on each side of a change in such a line: the change stays in
the first MAX_PREVIEW_LINE_CHARS characters shown, with context around it."""


def preview(snap: EditSnapshot, located: list[Located]) -> str:
    """The unified diff that applying ``located`` to ``snap`` would make."""
    source = snap.source
    bounds, regions = _regions(source, located)
    name = snap.realpath
    out = [f"--- {name}\t(before)", f"+++ {name}\t(after)"]
    shift = 0
    for (begin, end, first_line), locs in zip(bounds, regions, strict=True):
        old, new = _sides(source, begin, end, _kept(source, begin, end, locs), locs)
        old_lines = _split(old, snap.encoding)
        new_lines = _split(new, snap.encoding)
        _hunks(out, old_lines, new_lines, first_line, first_line + shift)
        shift += len(new_lines) - len(old_lines)
    if len(out) > MAX_PREVIEW_LINES:
        hidden = len(out) - MAX_PREVIEW_LINES
        out = [*out[:MAX_PREVIEW_LINES], f"... ({hidden} more preview lines not shown)"]
    return "\n".join(out) + "\n"


def _kept(source: Reader, begin: int, end: int, locs: list[Located]) -> list[tuple[int, int]]:
    """The byte ranges of the region ``[begin, end)`` (whole lines) the preview reads,
    in order, those that meet merged: every line up to :data:`_LONG` bytes; of a
    longer one, the bytes around each change that touches it (else its first
    :data:`_LONG` bytes) and its line ending.  Every change lies inside one range."""
    kept: list[tuple[int, int]] = []
    pos = begin
    while pos < end:
        nl = source.find(b"\n", pos, end)
        stop = end if nl < 0 else nl + 1
        if stop - pos <= _LONG:
            kept.append((pos, stop))
        else:
            touching = [loc for loc in locs if loc.start <= stop and loc.end >= pos]
            for loc in touching:
                kept.append((max(pos, loc.start - _AROUND), min(stop, loc.end + _AROUND)))
            if not touching:
                kept.append((pos, pos + _LONG))
            if nl >= 0:
                kept.append((nl - 1 if source.read(nl - 1, nl) == b"\r" else nl, stop))
        pos = stop
    merged: list[tuple[int, int]] = []
    for start, stop in sorted(kept):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], stop))
        else:
            merged.append((start, stop))
    return merged


def _sides(
    source: Reader, begin: int, end: int, kept: list[tuple[int, int]], locs: list[Located]
) -> tuple[bytes, bytes]:
    """The old and the new text of the region ``[begin, end)``, read in the ranges
    ``kept``: a ``[... N bytes]`` where a line's bytes are left out (the same on
    both sides)."""
    old: list[bytes] = []
    new: list[bytes] = []
    ordered = sorted(locs, key=lambda loc: loc.start)
    previous = begin
    for start, stop in [*kept, (end, end)]:
        if start > previous:
            gap = b"[... %d bytes]" % (start - previous)
            old.append(gap)
            new.append(gap)
        if start >= end:
            break
        old.append(source.read(start, stop))
        pos = start
        for loc in ordered:
            if start <= loc.start < stop:
                new.append(source.read(pos, loc.start))
                new.append(loc.replacement)
                pos = loc.end
        new.append(source.read(pos, stop))
        previous = stop
    return b"".join(old), b"".join(new)


def _regions(
    source: Reader, located: list[Located]
) -> tuple[list[tuple[int, int, int]], list[list[Located]]]:
    """``(begin, end, first line)`` of each region to show, and the changes in it:
    each change with its context lines, regions that touch merged."""
    ordered = sorted(located, key=lambda loc: loc.start)
    regions: list[list[Located]] = []
    bounds: list[tuple[int, int, int]] = []
    for loc in ordered:
        first = source.line_start(loc.start)
        begin = source.last_lines_start(source.start, first, CONTEXT_LINES)
        back = source.count(b"\n", begin, first) if first > begin else 0
        last = (
            source.line_end(max(loc.start, loc.end - 1))
            if loc.end > loc.start
            else source.line_end(loc.start)
        )
        end = source.skip_lines(last, CONTEXT_LINES)
        if bounds and begin <= bounds[-1][1]:
            b0, e0, l0 = bounds[-1]
            bounds[-1] = (b0, max(e0, end), l0)
            regions[-1].append(loc)
        else:
            bounds.append((begin, end, loc.line - back))
            regions.append([loc])
    return bounds, regions


def _split(raw: bytes, encoding: str) -> list[str]:
    text = raw.decode(encoding, errors="replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = []
    for line in lines:
        line = line[:-1] if line.endswith("\r") else line
        if len(line) > MAX_PREVIEW_LINE_CHARS:
            line = line[:MAX_PREVIEW_LINE_CHARS] + " [...]"
        out.append(line)
    return out


def _hunks(out: list[str], old: list[str], new: list[str], old_first: int, new_first: int) -> None:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        out.append(f"@@ -{_range(old_first + i1, i2 - i1)} +{_range(new_first + j1, j2 - j1)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(" " + line for line in old[a1:a2])
                continue
            out.extend("-" + line for line in old[a1:a2])
            out.extend("+" + line for line in new[b1:b2])


def _range(start: int, length: int) -> str:
    if length == 1:
        return str(start)
    if length == 0:
        return f"{start - 1},0"
    return f"{start},{length}"
