"""The read-only large-file tools: ``get_overview``, ``search_content``, ``read_content``.

Pure functions returning JSON-ready dicts in the shapes of the tool
reference; failures raise :class:`~diffchunk.errors.DiffchunkError` subclasses
with a message and a suggestion.  The MCP server and the CLI are thin shells
over these.  Edits live in :mod:`diffchunk.files.edit`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from ..errors import DiffchunkError, FileToolError, InvalidArgument
from .access import FileVersion, open_text_version, open_version
from .fuzzy import best_alignment, similar_lines
from .grep import grep_search
from .matchers import Found, Hit, build_matcher
from .read import (
    LONG_LINE_CHARS,
    PIECEWISE_LINE_BYTES,
    Lines,
    cut_long,
    known_total,
    long_line_match,
    matched_line_end,
    neighbours,
    read_head,
    read_lines,
    read_tail,
)
from .search import best_line, count_matching_lines, search_lines

logger = logging.getLogger(__name__)

READ_MODES = ("lines", "semantic", "head", "tail")
MATCH_CHARS = 500
"""Longest ``match`` text in a search result (longer lines are cut around the match)."""
MAX_RESULTS = 500
MAX_CONTEXT_LINES = 50
MAX_CONTENT_CHARS = 80_000
"""About 20k tokens: read results stop at a line boundary before this."""
SEMANTIC_MAX_LINES = 2000
MAX_OUTLINE_ITEMS = 400
"""get_overview lists at most this many outline items (deeper levels go first)."""
LONG_LINE_SAMPLE_ABOVE = 200 * 1024 * 1024
"""Long-line statistics are sampled (not exact) for files larger than this."""
_SAMPLE_WINDOWS = 16
_SAMPLE_BYTES = 4 * 1024 * 1024


# -- shared helpers ----------------------------------------------------------


def _outline(version: FileVersion) -> list[Any]:
    """The version's outline (cached on the version); ``[]`` without a grammar."""
    cached = version.cache.get("outline")
    if cached is not None:
        return cached  # type: ignore[return-value]
    items: list[Any] = []
    if not version.is_binary:
        try:
            from .outline import outline_for_file

            items = outline_for_file(version.realpath, version.fingerprint, version.data)
        except ImportError:
            items = []
        except DiffchunkError:
            raise
        except Exception:  # a parser failure must not break search or read
            logger.warning("Outline failed for %s", version.realpath, exc_info=True)
            items = []
    version.cache["outline"] = items
    return items


def _describe(outline: list[Any], line: int) -> str | None:
    if not outline:
        return None
    try:
        from .outline import describe_context

        return describe_context(outline, line)
    except ImportError:  # pragma: no cover - outline module always ships
        return None


def _enclosing(outline: list[Any], line: int) -> Any | None:
    if not outline:
        return None
    from .outline import enclosing_item

    return enclosing_item(outline, line)


def _check_pattern(pattern: object) -> str:
    if not isinstance(pattern, str) or pattern == "":
        raise InvalidArgument(
            "The search pattern is empty.",
            suggestion="Pass the text (or regex) to look for.",
        )
    if "\n" in pattern:
        raise InvalidArgument(
            "The search pattern contains a line break; search matches one line at a time.",
            suggestion="Search for one line of the text (its most distinctive line).",
        )
    return pattern


# -- get_overview --------------------------------------------------------------


def get_overview(absolute_file_path: str) -> dict[str, Any]:
    """Size, line count, encoding, long lines, outline and search hints of a file."""
    version = open_version(absolute_file_path)
    if version.is_binary:
        return {
            "line_count": None,
            "file_size": version.size,
            "encoding": None,
            "is_binary": True,
            "binary_hint": version.binary_hint,
            "long_lines": {
                "has_long_lines": False,
                "count": 0,
                "max_length": 0,
                "threshold": LONG_LINE_CHARS,
            },
            "outline": [],
            "changed_symbols": 0,
            "search_hints": [],
            "warnings": ["Binary file: search_content, read_content and edit_content refuse it."],
        }
    warnings: list[str] = []
    outline = _outline(version)
    changed = 0
    if outline:
        try:
            from .changes import mark_changes

            outline = [item.copy() for item in outline]
            source = None if version.transcoded else version.data.memory
            changed = mark_changes(version.realpath, outline, source=source)
        except ImportError:
            pass
        except Exception as exc:  # git trouble must not hide the outline
            logger.debug("mark_changes failed", exc_info=True)
            warnings.append(f"Changed symbols not marked: {exc}")
    else:
        reason = _outline_skip_reason(version)
        if reason:
            warnings.append(reason.capitalize() + ".")
    long_lines = _long_line_stats(version)
    if long_lines.get("sampled"):
        warnings.append(
            "long_lines is estimated from samples of this large file; count and max_length "
            "may be higher."
        )
    shown, dropped = _limit_outline([item.to_dict() for item in outline], MAX_OUTLINE_ITEMS)
    if dropped:
        warnings.append(
            f"Outline shortened to {MAX_OUTLINE_ITEMS} items ({dropped} nested or later items "
            "left out); use read_content(mode='semantic') or search_content to go deeper."
        )
    result: dict[str, Any] = {
        "line_count": version.line_count(),
        "file_size": version.size,
        "encoding": version.display_encoding,
        "is_binary": False,
        "binary_hint": None,
        "line_ending": "crlf" if version.newline == b"\r\n" else "lf",
        "long_lines": long_lines,
        "outline": shown,
        "changed_symbols": changed,
        "search_hints": _search_hints(version, outline),
    }
    if warnings:
        result["warnings"] = warnings
    return result


def _limit_outline(items: list[dict[str, Any]], budget: int) -> tuple[list[dict[str, Any]], int]:
    """Keep the outline within ``budget`` items: shallow levels first, then file order."""

    def size(nodes: list[dict[str, Any]]) -> int:
        return sum(1 + size(n["children"]) for n in nodes)

    total = size(items)
    if total <= budget:
        return items, 0
    depth = 3
    while depth > 1:
        pruned = _prune(items, depth)
        if size(pruned) <= budget:
            return pruned, total - size(pruned)
        depth -= 1
    pruned = _prune(items, 1)[:budget]
    return pruned, total - len(pruned)


def _prune(items: list[dict[str, Any]], depth: int) -> list[dict[str, Any]]:
    out = []
    for item in items:
        copy = dict(item)
        copy["children"] = _prune(item["children"], depth - 1) if depth > 1 else []
        if depth == 1 and item["children"]:
            copy["children_omitted"] = len(item["children"])
        out.append(copy)
    return out


def _outline_skip_reason(version: FileVersion) -> str | None:
    try:
        from .outline import outline_skip_reason
    except ImportError:
        return None
    reason = outline_skip_reason(version.realpath, version.size)
    if reason == "no outline for this file type":
        return None
    return reason


def _sample_windows(version: FileVersion) -> tuple[list[tuple[int, int]], bool]:
    """Byte ranges to scan for statistics: all of it, or evenly spread samples."""
    size = version.end - version.start
    if size <= LONG_LINE_SAMPLE_ABOVE:
        return [(version.start, version.end)], False
    ranges = []
    step = size // _SAMPLE_WINDOWS
    data = version.data
    for i in range(_SAMPLE_WINDOWS):
        at = version.start + i * step
        if i:
            nl = data.find(b"\n", at, version.end)
            if nl < 0:
                break
            at = nl + 1
        stop = data.find(b"\n", min(version.end, at + _SAMPLE_BYTES), version.end)
        ranges.append((at, version.end if stop < 0 else stop + 1))
    return ranges, True


def _long_line_stats(version: FileVersion, threshold: int = LONG_LINE_CHARS) -> dict[str, Any]:
    """Lines longer than ``threshold`` characters: count and the longest length.

    A regex finds line breaks followed by at least ``threshold`` bytes
    before the next one (C speed, no per-line object); only those lines are
    decoded to count characters.
    """
    key = f"long_lines:{threshold}"
    cached = version.cache.get(key)
    if cached is not None:
        return dict(cached)  # type: ignore[call-overload]
    # A UTF-8 line of N characters has at least N bytes; other codecs here are single-byte.
    floor = threshold
    after_break = re.compile(rb"\n([^\n]{%d,})" % floor)
    at_start = re.compile(rb"[^\n]{%d,}" % floor)
    count = 0
    longest = 0
    ranges, sampled = _sample_windows(version)
    encoding = version.data_encoding
    for begin, end in ranges:
        for _base, buf, length in version.windows(begin, end):
            first = at_start.match(buf, 0, length)
            found = [first.group()] if first is not None else []
            found.extend(m.group(1) for m in after_break.finditer(buf, 0, length))
            if not found:
                # No long line here: the longest short one, from a C-speed split.
                raw = max(bytes(buf[:length]).split(b"\n"), key=len)
                found = [raw] if raw else []
                short = True
            else:
                short = False
            for raw in found:
                chars = len(raw) if encoding != "utf-8" else len(raw.decode("utf-8", "replace"))
                if raw.endswith(b"\r"):
                    chars -= 1
                if chars > threshold and not short:
                    count += 1
                longest = max(longest, chars)
    stats: dict[str, Any] = {
        "has_long_lines": count > 0,
        "count": count,
        "max_length": longest,
        "threshold": threshold,
    }
    if sampled:
        stats["sampled"] = True
    version.cache[key] = stats
    return dict(stats)


_LOG_MARKERS = (b"ERROR", b"WARN", b"Exception", b"Traceback", b"FATAL")


def _search_hints(version: FileVersion, outline: list[Any]) -> list[str]:
    """Searches worth trying next: top-level symbols, markers present in the file."""
    hints: list[str] = []
    for item in outline[:8]:
        if item.type != "heading":
            hints.append(item.name)
    data = version.data
    stop = min(version.end, version.start + 64 * 1024 * 1024)
    if (
        data.find(b"TODO", version.start, stop) >= 0
        or data.find(b"FIXME", version.start, stop) >= 0
    ):
        hints.append("TODO|FIXME (regex=True, fuzzy=False)")
    if not outline:
        for marker in _LOG_MARKERS:
            if data.find(marker, version.start, stop) >= 0:
                hints.append(marker.decode())
    if version.size > 50 * 1024 * 1024:
        hints.append("use count_only=True first on a file this large")
    return hints


# -- search_content --------------------------------------------------------------


def search_content(
    absolute_file_path: str,
    pattern: str,
    max_results: int = 20,
    context_lines: int = 3,
    fuzzy: bool = True,
    regex: bool = False,
    case_sensitive: bool = True,
    invert: bool = False,
    count_only: bool = False,
) -> dict[str, Any]:
    """Find lines matching ``pattern`` (exact, regex or fuzzy; or not matching with ``invert``)."""
    pattern = _check_pattern(pattern)
    if regex and fuzzy:
        raise InvalidArgument(
            "regex=True cannot be combined with fuzzy=True.",
            suggestion="Set fuzzy=False to search with a regular expression.",
        )
    if not isinstance(max_results, int) or max_results < 1:
        raise InvalidArgument(
            f"max_results must be at least 1 (got {max_results!r}).",
            suggestion="Pass max_results=20, or count_only=True for just the number.",
        )
    if not isinstance(context_lines, int) or context_lines < 0:
        raise InvalidArgument(
            f"context_lines must be 0 or more (got {context_lines!r}).",
            suggestion="Pass context_lines=3 (or 0 for none).",
        )
    warnings: list[str] = []
    if invert and fuzzy:
        fuzzy = False
        warnings.append("fuzzy ignored with invert=True: inverted search matches exactly.")
    version = open_text_version(absolute_file_path)
    flags = {
        "fuzzy_enabled": fuzzy,
        "regex_enabled": regex,
        "case_sensitive": case_sensitive,
        "inverted": invert,
    }
    if fuzzy and not case_sensitive:
        warnings.append("case_sensitive ignored: fuzzy search always ignores case.")
    if count_only:
        if max_results != 20:
            warnings.append("max_results ignored with count_only=True.")
        if context_lines != 3:
            warnings.append("context_lines ignored with count_only=True.")
        if fuzzy:
            fuzzy_found = similar_lines(version, pattern, limit=1)
            count = fuzzy_found.total
            _fuzzy_time_warning(fuzzy_found, warnings)
        else:
            matcher = build_matcher(version, pattern, regex=regex, case_sensitive=case_sensitive)
            count = count_matching_lines(version, matcher, invert=invert, pattern=pattern)
        result: dict[str, Any] = {"count": count, "pattern": pattern, **flags}
        result["warnings"] = warnings
        return result
    if max_results > MAX_RESULTS:
        warnings.append(f"max_results capped at {MAX_RESULTS}.")
        max_results = MAX_RESULTS
    if context_lines > MAX_CONTEXT_LINES:
        warnings.append(f"context_lines capped at {MAX_CONTEXT_LINES}.")
        context_lines = MAX_CONTEXT_LINES
    if fuzzy:
        found = similar_lines(version, pattern, limit=max_results)
        _fuzzy_time_warning(found, warnings)
    else:
        matcher = build_matcher(version, pattern, regex=regex, case_sensitive=case_sensitive)
        fast = (
            None
            if regex
            else grep_search(
                version, pattern, case_sensitive=case_sensitive, invert=invert, limit=max_results
            )
        )
        if fast is not None:
            found = fast
        else:
            found = search_lines(
                version, matcher, limit=max_results, invert=invert, pattern=pattern
            )
    outline = _outline(version)
    submatch = _submatcher(pattern, regex=regex, case_sensitive=case_sensitive, fuzzy=fuzzy)
    results: list[dict[str, Any]] = []
    size = 0
    for hit in found.hits:
        item = _result(version, hit, context_lines, outline, submatch, invert)
        size += _result_chars(item)
        if results and size > MAX_CONTENT_CHARS:
            warnings.append(
                f"Results stopped at about {MAX_CONTENT_CHARS} characters; lower "
                "context_lines or narrow the pattern to see the others."
            )
            break
        results.append(item)
    out: dict[str, Any] = {
        "results": results,
        "total_matches": found.total,
        "pattern": pattern,
        **flags,
    }
    if found.total > len(results):
        warnings.append(
            f"Showing {len(results)} of {found.total} matching lines; raise max_results "
            "or narrow the pattern to see others."
        )
    if not found.total:
        warnings.append(
            "No match."
            + (" Try fuzzy=True for approximate matches." if not fuzzy and not regex else "")
        )
    out["warnings"] = warnings
    return out


def _fuzzy_time_warning(found: Found, warnings: list[str]) -> None:
    if found.timed_out:
        warnings.append(
            f"Fuzzy search stopped after {found.budget:g}s at line {found.stopped_line}: "
            "results and counts cover the lines before it only. Use fuzzy=False (exact or "
            "regex) to search the whole file."
        )


def _result_chars(item: dict[str, Any]) -> int:
    """About how many characters a search result adds to the reply."""
    lines = item["context_before"] + item["context_after"]
    return len(item["match"]) + sum(len(line) + 4 for line in lines) + 200


class _Submatcher(NamedTuple):
    """Where the pattern is in a line: ``spans`` (a line's character spans: literal
    matches, else with fuzzy the best alignment), ``literal`` (the first part
    alone) and ``best`` (the alignment's ``(score, start, end)``, or None)."""

    spans: Callable[[str], list[tuple[int, int]]]
    literal: Callable[[str], list[tuple[int, int]]]
    best: Callable[[str], tuple[float, int, int] | None] | None


def _submatcher(pattern: str, *, regex: bool, case_sensitive: bool, fuzzy: bool) -> _Submatcher:
    """The pattern's :class:`_Submatcher`."""
    if regex:
        compiled = re.compile(pattern, re.MULTILINE | (0 if case_sensitive else re.IGNORECASE))

        def matches(line: str) -> list[tuple[int, int]]:
            return [m.span() for m in compiled.finditer(line) if m.end() > m.start()]

        return _Submatcher(matches, matches, None)
    literal = re.compile(re.escape(pattern), 0 if case_sensitive and not fuzzy else re.IGNORECASE)
    lowered = pattern.lower()

    def found(line: str) -> list[tuple[int, int]]:
        return [m.span() for m in literal.finditer(line)]

    def best(line: str) -> tuple[float, int, int] | None:
        return best_alignment(lowered, line.lower())

    def spans(line: str) -> list[tuple[int, int]]:
        hits = found(line)
        if hits or not fuzzy:
            return hits
        aligned = best(line)
        return [] if aligned is None else [aligned[1:]]

    return _Submatcher(spans, found, best if fuzzy else None)


def _no_spans(_text: str) -> list[tuple[int, int]]:
    return []


def _result(
    version: FileVersion,
    hit: Hit,
    context_lines: int,
    outline: list[Any],
    submatch: _Submatcher,
    invert: bool,
) -> dict[str, Any]:
    stop = matched_line_end(version, hit.offset)
    if stop - hit.offset > PIECEWISE_LINE_BYTES:  # read in pieces, never decoded whole
        long = long_line_match(
            version, hit.offset, stop, _no_spans if invert else submatch.literal, width=MATCH_CHARS
        )
        if not long.spans and not invert and submatch.best is not None:
            # no literal match anywhere: the best fuzzy alignment, a second pass
            long = long_line_match(
                version, hit.offset, stop, _no_spans, width=MATCH_CHARS, best_of=submatch.best
            )
        shown, spans, shift, length = long.shown, long.spans, long.shift, long.length
    else:
        line = version.decode(version.data[hit.offset : stop])
        spans = [] if invert else submatch.spans(line)
        shown, shift, length = line, 0, len(line)
        if length > MATCH_CHARS:
            anchor = spans[0][0] if spans else 0
            shift = max(0, min(anchor - MATCH_CHARS // 4, length - MATCH_CHARS))
            shown = line[shift : shift + MATCH_CHARS]
    truncated = length > MATCH_CHARS
    before, after = neighbours(version, hit.offset, context_lines, context_lines)
    result: dict[str, Any] = {
        "line_number": hit.line_number,
        "match": shown,
        "context_before": before,
        "context_after": after,
        "semantic_context": _describe(outline, hit.line_number),
        "similarity_score": hit.score,
        "truncated": truncated,
        "match_type": hit.match_type,
        "submatches": [{"start": s, "end": e} for s, e in spans[:50]],
    }
    if truncated:
        result["match_offset"] = shift
        result["line_length"] = length
    return result


# -- read_content ------------------------------------------------------------------


def read_content(
    absolute_file_path: str,
    offset: int = 1,
    limit: int = 100,
    pattern: str | None = None,
    mode: str = "lines",
) -> dict[str, Any]:
    """Read lines by number, from either end, or the whole code block around a line."""
    if mode not in READ_MODES:
        raise InvalidArgument(
            f"Unknown read mode {mode!r}.",
            suggestion=f"Use one of: {', '.join(READ_MODES)}.",
        )
    if not isinstance(offset, int) or offset < 1:
        raise InvalidArgument(
            f"offset must be a line number of 1 or more (got {offset!r}).",
            suggestion="Lines are numbered from 1; use mode='tail' to read the end.",
        )
    if not isinstance(limit, int) or limit < 1:
        raise InvalidArgument(
            f"limit must be 1 or more (got {limit!r}).",
            suggestion="Pass limit=100 (lines to return).",
        )
    if pattern is not None and pattern == "":
        pattern = None
    # Every line costs at least one character: more never fit in one reply, and
    # reading them (limit=10**9) would only take time.
    span = min(limit, MAX_CONTENT_CHARS + 1)
    version = open_text_version(absolute_file_path)
    warnings: list[str] = []
    extra: dict[str, Any] = {}
    if mode in ("head", "tail"):
        if pattern is not None:
            warnings.append(f"pattern ignored in {mode} mode.")
        if offset != 1:
            warnings.append(f"offset ignored in {mode} mode.")
        lines = read_head(version, span) if mode == "head" else read_tail(version, span)
        total = known_total(version)
        if total is None and mode == "head":
            warnings.append(
                "total_lines is not computed for head reads of files this large; "
                "get_overview counts them."
            )
        truncated = False if total is None else (lines.count < total)
        return _read_result(version, lines, total, mode, truncated, warnings, extra)

    total = version.line_count()
    target = offset
    if pattern is not None:
        hit = best_line(version, _check_pattern(pattern))
        if hit is None:
            raise FileToolError(
                f"Pattern {pattern!r} not found in {version.realpath}.",
                suggestion="Check the spelling, or use search_content to look for it.",
            )
        target = hit.line_number
        extra = {"pattern": pattern, "match_line": hit.line_number, "similarity_score": hit.score}
        if offset != 1:
            warnings.append("offset ignored: pattern locates the start.")
    if total == 0:
        lines = Lines("", None, None, 0)
        return _read_result(version, lines, total, mode, False, warnings, extra)
    if target > total:
        raise InvalidArgument(
            f"offset {target} is past the end of the file ({total} lines).",
            suggestion=f"Use an offset between 1 and {total}, or mode='tail'.",
        )
    if mode == "semantic":
        outline = _outline(version)
        item = _enclosing(outline, target)
        if item is None:
            reason = (
                "no enclosing function or class at that line"
                if outline
                else "no outline for this file type"
            )
            warnings.append(f"semantic mode fell back to lines: {reason}.")
            lines = read_lines(version, target, span)
        else:
            first = item.line_number
            count = item.end_line - item.line_number + 1
            if count > SEMANTIC_MAX_LINES:
                warnings.append(
                    f"{item.type} {item.name} has {count} lines; showing the first "
                    f"{SEMANTIC_MAX_LINES}."
                )
                count = SEMANTIC_MAX_LINES
            lines = read_lines(version, first, count)
            extra["semantic_block"] = {
                "name": item.name,
                "type": item.type,
                "line_number": item.line_number,
                "end_line": item.end_line,
            }
            if limit != 100:
                warnings.append("limit ignored in semantic mode: the whole block is returned.")
        truncated = lines.end_line is not None and lines.end_line < (
            item.end_line if item is not None else total
        )
        return _read_result(version, lines, total, mode, truncated, warnings, extra)
    lines = read_lines(version, target, span)
    truncated = lines.end_line is not None and lines.end_line < total
    return _read_result(version, lines, total, mode, truncated, warnings, extra)


def _read_result(
    version: FileVersion,
    lines: Lines,
    total: int | None,
    mode: str,
    truncated: bool,
    warnings: list[str],
    extra: dict[str, Any],
) -> dict[str, Any]:
    text = lines.text
    count = lines.count
    end_line = lines.end_line
    start_line = lines.start_line
    if len(text) > MAX_CONTENT_CHARS:
        if mode == "tail":
            cut = text.find("\n", len(text) - MAX_CONTENT_CHARS) + 1
            dropped = text[:cut].count("\n")
            text = text[cut:]
            if start_line is not None:
                start_line += dropped
        else:
            cut = text.rfind("\n", 0, MAX_CONTENT_CHARS)
            if cut < 0:
                cut = MAX_CONTENT_CHARS
            dropped = text[cut:].count("\n")
            text = text[:cut]
            if end_line is not None:
                end_line -= dropped
        count -= dropped
        truncated = True
        warnings.append(
            f"Output stopped at about {MAX_CONTENT_CHARS} characters ({count} lines); "
            "read the rest with a further call."
        )
    warnings = [*lines.warnings, *warnings]
    if lines.long_lines_cut:
        warnings.append(
            f"{lines.long_lines_cut} line(s) longer than {LONG_LINE_CHARS} characters were cut; "
            "search_content shows the part around a match."
        )
    result: dict[str, Any] = {
        "content": text,
        "start_line": start_line,
        "end_line": end_line,
        "lines_returned": count,
        "total_lines": total,
        "mode": mode,
        "truncated": truncated,
        "warnings": warnings,
    }
    result.update(extra)
    return result


__all__ = ["READ_MODES", "cut_long", "get_overview", "read_content", "search_content"]
