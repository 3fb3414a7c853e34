"""Exact and regex line searches over a file version, and counts of matching lines.

Every search walks the file in the reader's line windows (:mod:`.byte_reader`)
with a matcher (:mod:`.matchers`); a line too long for a window is matched
piece by piece (:func:`.longline.line_matches`); exact searches of large
files go to ``grep`` when it gives the same answer faster (:mod:`.grep`).
Fuzzy search is :mod:`.fuzzy`.

A regex runs in the search engine (:mod:`diffchunk.regex`, RE2): in time
linear in the text, whatever the pattern, so a search needs no time budget
to stop a pattern that backtracks, and any thread may run it.
"""

from __future__ import annotations

from .access import FileVersion
from .byte_reader import LongLine, Window
from .fuzzy import similar_lines
from .grep import grep_count, grep_search
from .longline import line_matches
from .matchers import Found, Hit, Literal, Matcher, build_matcher, window_hits


def count_lines(
    version: FileVersion, pattern: str, *, regex: bool, case_sensitive: bool, invert: bool
) -> int:
    """Lines matching ``pattern`` (or, with ``invert``, not), like ``grep -c [-v]``."""
    matcher = build_matcher(version, pattern, regex=regex, case_sensitive=case_sensitive)
    return count_matching_lines(version, matcher, invert=invert, pattern=pattern)


def find_lines(
    version: FileVersion,
    pattern: str,
    *,
    regex: bool,
    case_sensitive: bool,
    invert: bool,
    limit: int,
) -> Found:
    """The first ``limit`` matching (or non-matching) lines and the total: from
    ``grep`` for an exact search of a large file when it can, else the scan."""
    matcher = build_matcher(version, pattern, regex=regex, case_sensitive=case_sensitive)
    fast = (
        None
        if regex
        else grep_search(
            version, pattern, case_sensitive=case_sensitive, invert=invert, limit=limit
        )
    )
    if fast is not None:
        return fast
    return search_lines(version, matcher, limit=limit, invert=invert)


def count_matching_lines(
    version: FileVersion, matcher: Matcher, *, invert: bool, pattern: str
) -> int:
    """Lines that match (or, with ``invert``, do not), like ``grep -c [-v]``."""
    if isinstance(matcher, Literal):
        counted = grep_count(version, pattern, case_sensitive=not matcher.lower, invert=invert)
        if counted is not None:
            return counted
    total = 0
    lines = 0
    for step in version.windows():
        if isinstance(step, LongLine):
            total += line_matches(version, step, matcher)
            lines += 1
            continue
        _base, buf, length = step
        if invert:
            lines += buf.count(b"\n", 0, length)
            if length and buf[length - 1] != 10:
                lines += 1
        hay = matcher.prepare(buf, length)
        fast = matcher.count_lines(hay, length)
        if fast is not None:
            total += fast
            continue
        for _hit in window_hits(matcher, hay, length):
            total += 1
    return lines - total if invert else total


def search_lines(
    version: FileVersion,
    matcher: Matcher,
    *,
    limit: int,
    invert: bool,
    need_total: bool = True,
) -> Found:
    """The first ``limit`` matching (or non-matching) lines in file order, and the total.

    Without ``need_total`` the scan stops once ``limit`` lines are found (and
    ``total`` counts only those).
    """
    hits: list[Hit] = []
    total = 0
    line_base = 1  # line number of the window's first line
    kind = "inverted" if invert else matcher.kind
    for step in version.windows():
        if len(hits) >= limit and not need_total:
            break
        if isinstance(step, LongLine):
            if line_matches(version, step, matcher) != invert:
                total += 1
                if len(hits) < limit:
                    hits.append(Hit(step.start, line_base, 1.0, kind))
            line_base += 1
            continue
        base, buf, length = step
        hay = matcher.prepare(buf, length)
        if len(hits) >= limit:
            # Only the total is still needed: count as fast as possible.
            matched = matcher.count_lines(hay, length)
            if matched is None:
                matched = sum(1 for _ in window_hits(matcher, hay, length))
            if invert:
                lines = buf.count(b"\n", 0, length)
                lines += 1 if length and buf[length - 1] != 10 else 0
                total += lines - matched
            else:
                total += matched
            continue
        cursor = 0
        cursor_line = line_base
        for start, end in window_hits(matcher, hay, length):
            if invert:
                # Lines between the previous match and this one do not match.
                cursor, cursor_line, total = _collect_gap(
                    buf, base, cursor, start, cursor_line, total, hits, limit
                )
                cursor = end + 1
                cursor_line += 1
                continue
            total += 1
            if len(hits) < limit:
                cursor_line += buf.count(b"\n", cursor, start)
                cursor = start
                hits.append(Hit(base + start, cursor_line, 1.0, kind))
        if invert and cursor < length:
            cursor, cursor_line, total = _collect_gap(
                buf, base, cursor, length, cursor_line, total, hits, limit
            )
        line_base += buf.count(b"\n", 0, length)
    return Found(hits, total)


def _collect_gap(
    buf: Window,
    base: int,
    cursor: int,
    stop: int,
    line: int,
    total: int,
    hits: list[Hit],
    limit: int,
) -> tuple[int, int, int]:
    """Record the non-matching lines in ``buf[cursor:stop]`` (inverted search)."""
    if cursor >= stop:
        return cursor, line, total
    room = limit - len(hits)
    if room <= 0:
        lines = buf.count(b"\n", cursor, stop) + (1 if buf[stop - 1] != 10 else 0)
        return stop, line + lines, total + lines
    while cursor < stop:
        if len(hits) >= limit:
            lines = buf.count(b"\n", cursor, stop) + (1 if buf[stop - 1] != 10 else 0)
            return stop, line + lines, total + lines
        hits.append(Hit(base + cursor, line, 1.0, "inverted"))
        total += 1
        nl = buf.find(b"\n", cursor, stop)
        cursor = nl + 1 if nl >= 0 else stop
        line += 1
    return cursor, line, total


# -- where a pattern is best found -------------------------------------------------


def best_line(version: FileVersion, pattern: str) -> Hit | None:
    """Where ``pattern`` best matches: first exact occurrence, else best fuzzy line."""
    matcher = build_matcher(version, pattern, regex=False, case_sensitive=True)
    exact = search_lines(version, matcher, limit=1, invert=False, need_total=False)
    if exact.hits:
        return exact.hits[0]
    fuzzy = similar_lines(version, pattern, limit=1)
    return fuzzy.hits[0] if fuzzy.hits else None
