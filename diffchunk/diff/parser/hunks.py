"""Two-way hunk bodies: measured hunk by hunk (:func:`read_hunks`), or checked a
whole file at a time and built later (:func:`check_hunks`).

Grammar::

    hunks   = *hunk
    hunk    = header LF body              ; header: see diffchunk.diff.hunk
    body    = *(line *marker)             ; as many lines as the header counts
    line    = " " context / "-" removed / "+" added
            / LF                          ; a context line whose space was stripped
    marker  = "\\" text LF                ; "\\ No newline at end of file"

The header counts decide where a hunk ends (``--- x`` inside a hunk is a
removed line).  An empty line is read as a stripped context line only where
the counts still expect lines on both sides.
"""

from __future__ import annotations

from typing import NamedTuple

from diffchunk.diff import syntax as sx
from diffchunk.diff.buffer import DiffBuffer, DiffData
from diffchunk.diff.hunk import Hunk, LazyHunks, new_hunk, read_hunk_header, section_text

from .cursor import Cursor

__all__ = ["HunkRun", "check_hunks", "read_hunks"]


class HunkRun(NamedTuple):
    """The hunks read from one position on, and how reading them ended."""

    hunks: list[Hunk]
    end: int  # offset just after the last hunk (where reading stopped)
    added: int
    removed: int
    problem: str | None  # why the hunks end early or cannot be read (None: they are sound)


# end, added, removed, problem: how one hunk body was measured
_Measured = tuple[int, int, int, "str | None"]


def read_hunks(r: Cursor, pos: int) -> HunkRun:
    """Every two-way hunk from ``pos`` on, each measured by its header counts.

    Fast path per hunk: the span up to the first line that cannot be hunk
    content, counted with ``bytes.count``; only when that span does not
    hold exactly the header's counts is the body measured further
    (:func:`_measure`).  Stops at the first line that is not an ``@`` line,
    at an unreadable header, or after a hunk that ends early.
    """
    data = r.data
    n = r.limit
    hunks: list[Hunk] = []
    total_added = total_removed = 0
    search_end = sx.NOT_HUNK_LINE.search
    count = data.count
    append = hunks.append
    while pos < n and data[pos] == 0x40:
        header = read_hunk_header(data, pos)
        if header is None or (header.line_end < n and data[header.line_end] != 0x0A):
            return HunkRun(hunks, pos, total_added, total_removed, "unreadable hunk header")
        hend = header.line_end
        old_count, new_count = header.old_count, header.new_count
        body_start = hend + 1
        problem = None
        if body_start < n:
            # fast path: the span up to the first line that cannot be hunk content
            found = search_end(data, hend)
            end = found.start() + 1 if found else n
            lines = count(b"\n", hend, end - 1)
            added = count(b"\n+", hend, end)
            removed = count(b"\n-", hend, end)
            # lines = context + removed + added + "\ No newline" marker lines
            marks = count(b"\n\\", hend, end)
            if lines - added - marks != old_count or lines - removed - marks != new_count:
                end, added, removed, problem = _measure(r, body_start, old_count, new_count)
        else:
            body_start = n
            end, added, removed, problem = _measure(r, body_start, old_count, new_count)
        append(
            new_hunk(
                pos,
                body_start,
                end,
                header.old_start,
                old_count,
                header.new_start,
                new_count,
                added,
                removed,
                section_text(data, header),
            )
        )
        total_added += added
        total_removed += removed
        pos = end
        if problem:
            return HunkRun(hunks, pos, total_added, total_removed, problem)
    return HunkRun(hunks, pos, total_added, total_removed, None)


def _measure(r: Cursor, pos: int, old: int, new: int) -> _Measured:
    """Where a two-way hunk body starting at ``pos`` ends, for ``old`` and ``new``
    lines: span by span (each up to a line that cannot be hunk content), an empty
    line between two spans being a stripped context line, then line by line
    (:func:`_walk`) once a span holds more than the counts."""
    data = r.data
    n = r.limit
    count = data.count
    search = sx.NOT_HUNK_LINE.search
    added = removed = context = 0
    stripped = False
    while True:
        if pos >= n:
            a = rm = c = 0
            region_end = n
        else:
            m = search(data, pos - 1)
            region_end = m.start() + 1 if m else n
            a = count(b"\n+", pos - 1, region_end)
            rm = count(b"\n-", pos - 1, region_end)
            c = count(b"\n ", pos - 1, region_end)
        got_old = removed + rm + context + c
        got_new = added + a + context + c
        if got_old == old and got_new == new:
            return _body(r, region_end, added + a, removed + rm, None, stripped)
        if got_old > old or got_new > new:
            return _walk(
                r, pos, old - removed - context, new - added - context, added, removed, stripped
            )
        if region_end < n and data[region_end] == 0x0A and got_old < old and got_new < new:
            # an empty line where a context line is expected
            added += a
            removed += rm
            context += c + 1
            stripped = True
            pos = region_end + 1
            continue
        return _body(
            r,
            region_end,
            added + a,
            removed + rm,
            f"hunk ends early: its header promises {old} old and {new} new lines, "
            f"found {got_old} and {got_new}",
            stripped,
        )


def _walk(
    r: Cursor,
    pos: int,
    old_left: int,
    new_left: int,
    added: int,
    removed: int,
    stripped: bool,
) -> _Measured:
    """Line-by-line end of a hunk whose span holds more than its counts."""
    data = r.data
    n = r.limit
    find = data.find
    while pos < n and (old_left > 0 or new_left > 0):
        c = data[pos]
        if c == 0x20:
            if old_left <= 0 or new_left <= 0:
                break
            old_left -= 1
            new_left -= 1
        elif c == 0x2D:
            if old_left <= 0:
                break
            old_left -= 1
            removed += 1
        elif c == 0x2B:
            if new_left <= 0:
                break
            new_left -= 1
            added += 1
        elif c == 0x0A and old_left > 0 and new_left > 0:
            old_left -= 1
            new_left -= 1
            stripped = True
            pos += 1
            continue
        elif c != 0x5C:
            break
        nl = find(b"\n", pos)
        pos = n if nl < 0 else nl + 1
    while pos < n and data[pos] == 0x5C:
        nl = find(b"\n", pos)
        pos = n if nl < 0 else nl + 1
    problem = None
    if old_left > 0 or new_left > 0:
        problem = (
            f"hunk ends early: {max(old_left, 0)} old and {max(new_left, 0)} new lines missing"
        )
    return _body(r, pos, added, removed, problem, stripped)


def _body(
    r: Cursor, end: int, added: int, removed: int, problem: str | None, stripped: bool
) -> _Measured:
    if stripped:
        r.stripped_hunks += 1
    return end, added, removed, problem


def check_hunks(r: Cursor, pos: int) -> tuple[LazyHunks, int, int, int, int] | None:
    """Check the hunks from ``pos`` on without building them: ``(hunks, end, added,
    removed, lines)``, or None when :func:`read_hunks` must decide.

    The region runs to the first line that cannot be in a two-way hunk.
    Each hunk runs from its header to the next one (or the region's end)
    and must hold exactly what its header counts: ``removed + context ==
    old`` and ``added + context == new`` (``\\`` marker lines aside).
    Then the exact per-hunk reading would end every hunk at the same line,
    so the hunks can be built later, on first use.  The region must also
    end at a line that is not an ``@`` line (an unreadable header is
    reported as such).  Anything else (a plain diff's next ``---`` header,
    a mail signature, a context line stripped to an empty line, bad
    counts) returns None.

    One regex scan (:data:`~diffchunk.diff.syntax.HUNK_SCAN`) finds every
    header with its counts and the region's end; each hunk is counted when
    the next header (or the end) closes it.
    """
    data = r.data
    n = r.limit
    if data[pos - 1] != 0x0A:
        return None
    find = data.find
    headers = added = removed = lines = marks = 0
    body = -1  # where the current hunk's body starts (-1: before the first header)
    old = new = hunk_marks = 0
    end = n
    for m in sx.HUNK_SCAN.finditer(data, pos - 1):
        at = m.start() + 1
        if m.lastindex == 3:  # a line that is not ' ', '+' or '-' and not a header
            c = data[at]
            if c == 0x5C:  # a "\\ No newline at end of file" line
                hunk_marks += 1
                marks += 1
                continue
            if c == 0x40:  # an "@" line that is not a well-formed hunk header
                return None
            end = at
            break
        if body >= 0:
            counted = _body_counts(data, body, at, old, new, hunk_marks, 0)
            if counted is None:
                return None
            lines += counted[0]
            added += counted[1]
            removed += counted[2]
        headers += 1
        old_count, new_count, _ = m.groups()
        old = 1 if old_count is None else int(old_count)
        new = 1 if new_count is None else int(new_count)
        hunk_marks = 0
        nl = find(b"\n", m.end(), end)
        body = end if nl < 0 else nl + 1
    if not headers:
        return None
    unterminated = int(end == n and body < n and data[n - 1] != 0x0A)
    counted = _body_counts(data, body, end, old, new, hunk_marks, unterminated)
    if counted is None:
        return None
    lines += counted[0] + headers
    added += counted[1]
    removed += counted[2]
    return LazyHunks(data, pos, end, headers, marks), end, added, removed, lines


def _body_counts(
    data: DiffData | bytearray,
    body: int,
    end: int,
    old: int,
    new: int,
    marks: int,
    unterminated: int,
) -> tuple[int, int, int] | None:
    """``(lines, added, removed)`` of the hunk body ``data[body:end]``, or None when its
    lines do not make exactly ``old`` old and ``new`` new lines.

    Every line there is a ``' '``, ``'+'``, ``'-'`` or ``\\`` marker line
    (``marks`` of those); ``unterminated`` is 1 when the last one has no ``\\n``.
    """
    if isinstance(data, DiffBuffer):  # a mapped diff: one copy of the body, not one per count
        data, body, end = data[body - 1 : end], 1, end - body + 1
    count = data.count
    lines = count(b"\n", body, end) + unterminated
    added = count(b"\n+", body - 1, end)
    removed = count(b"\n-", body - 1, end)
    context = lines - marks - added - removed
    if context < 0 or removed + context != old or added + context != new:
        return None
    return lines, added, removed
