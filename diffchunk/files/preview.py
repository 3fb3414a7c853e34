"""The preview of an edit: a unified diff of the changed regions.

Each change is shown with :data:`CONTEXT_LINES` lines of context and its
real line numbers (changes whose regions touch share one region); the new
side's numbers account for the lines earlier changes added or removed.  The
regions are read from the snapshot, never the whole file.  Lines longer
than :data:`MAX_PREVIEW_LINE_CHARS` characters are cut, and the preview
stops after :data:`MAX_PREVIEW_LINES` lines with a note of how many more
there were.
"""

from __future__ import annotations

import difflib

from ..limits import MAX_PREVIEW_LINE_CHARS, MAX_PREVIEW_LINES
from ..limits import PREVIEW_CONTEXT_LINES as CONTEXT_LINES
from .locate import Located
from .reader import Reader
from .snapshot import Snapshot


def preview(snap: Snapshot, located: list[Located]) -> str:
    """The unified diff that applying ``located`` to ``snap`` would make."""
    source = snap.source
    bounds, regions = _regions(source, located)
    name = snap.realpath
    out = [f"--- {name}\t(before)", f"+++ {name}\t(after)"]
    shift = 0
    for (begin, end, first_line), locs in zip(bounds, regions, strict=True):
        old = source.read(begin, end)
        pieces: list[bytes] = []
        pos = begin
        for loc in locs:
            pieces.append(source.read(pos, loc.start))
            pieces.append(loc.replacement)
            pos = loc.end
        pieces.append(source.read(pos, end))
        new = b"".join(pieces)
        old_lines = _split(old, snap.encoding)
        new_lines = _split(new, snap.encoding)
        _hunks(out, old_lines, new_lines, first_line, first_line + shift)
        shift += len(new_lines) - len(old_lines)
    if len(out) > MAX_PREVIEW_LINES:
        hidden = len(out) - MAX_PREVIEW_LINES
        out = [*out[:MAX_PREVIEW_LINES], f"... ({hidden} more preview lines not shown)"]
    return "\n".join(out) + "\n"


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
        back = source.read(begin, first).count(b"\n")
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
