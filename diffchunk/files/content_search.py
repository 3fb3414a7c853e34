"""``search_content``: lines matching a pattern (exact, regex or fuzzy), or not matching.

The scans are :mod:`.line_search` (exact and regex, ``grep`` for large files)
and :mod:`.fuzzy`; this module checks the arguments, turns the lines found
into results and keeps the reply within about 20k tokens:

- at most :data:`MAX_RESULTS` results with :data:`MAX_CONTEXT_LINES` lines
  of context each, and they stop before the answer's JSON text (escapes
  included: :mod:`.answer_size`) would exceed :data:`MAX_CONTENT_CHARS`
  characters (a warning says so, and that ``max_results`` was not the limit);
- a matched line longer than :data:`MATCH_CHARS` characters is cut around
  the match (``truncated``, ``match_offset``, ``line_length``); one longer
  than ``PIECEWISE_LINE_BYTES`` is read in pieces, never decoded whole
  (:mod:`.longline`);
- ``submatches`` are the character spans of the pattern in the line (at
  most 50): literal or regex matches, else, for a fuzzy search, the best
  alignment;
- ``count_only`` gives the number of matching lines alone, like ``grep -c``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import InvalidArgument
from ..limits import MAX_SUBMATCHES, SEARCH_DEFAULT_CONTEXT_LINES, SEARCH_DEFAULT_RESULTS
from ..regex import compile_literal, compile_regex
from .access import FileVersion, open_text_version
from .answer_size import echoed, json_size
from .fuzzy import anchored_alignment, best_alignment, similar_lines
from .line_reads import neighbours
from .line_search import count_lines, find_lines
from .longline import long_line_match, matched_line_end
from .matchers import Found, Hit
from .version_outline import describe, outline_of

if TYPE_CHECKING:
    from .outline_item import OutlineItem
from ..limits import CHARS_PER_TOKEN, RESPONSE_TOKENS

MAX_RESULTS = 500
"""Results search_content returns at most (a larger ``max_results`` is capped
with a warning); the answer's character bound usually stops earlier."""

MAX_CONTEXT_LINES = 50
"""Context lines around each result at most (capped with a warning): more is a
read, not a search."""

MAX_CONTENT_CHARS = RESPONSE_TOKENS * CHARS_PER_TOKEN
"""About 20k tokens: search results stop before the answer's JSON text (escapes
included) would exceed this many characters (an estimate of the unescaped text
once answered 81,047 for results full of quotes)."""

MATCH_CHARS = 500
"""Longest ``match`` text in a search result (longer lines are cut around the
match)."""

PIECEWISE_LINE_BYTES = 4 << 20
"""A matched line longer than this (in bytes) is decoded piece by piece, never
whole: a one-line log of gigabytes would otherwise be held as one string
several times its size (a 300 MB one-line log: 3.2 s -> 1.6 s)."""


Spans = list[tuple[int, int]]


@dataclass(frozen=True, slots=True)
class SearchFlags:
    """The options a search ran with, as it reports them."""

    fuzzy_enabled: bool
    regex_enabled: bool
    case_sensitive: bool
    inverted: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "fuzzy_enabled": self.fuzzy_enabled,
            "regex_enabled": self.regex_enabled,
            "case_sensitive": self.case_sensitive,
            "inverted": self.inverted,
        }


@dataclass(frozen=True, slots=True)
class SearchMatch:
    """One matching line; ``match_offset`` and ``line_length`` only when ``truncated``."""

    line_number: int
    match: str
    context_before: tuple[str, ...]
    context_after: tuple[str, ...]
    semantic_context: str | None
    similarity_score: float
    truncated: bool
    match_type: str
    submatches: tuple[tuple[int, int], ...]
    match_offset: int | None = None
    line_length: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "line_number": self.line_number,
            "match": self.match,
            "context_before": list(self.context_before),
            "context_after": list(self.context_after),
            "semantic_context": self.semantic_context,
            "similarity_score": self.similarity_score,
            "truncated": self.truncated,
            "match_type": self.match_type,
            "submatches": [{"start": s, "end": e} for s, e in self.submatches],
        }
        if self.truncated:
            data["match_offset"] = self.match_offset
            data["line_length"] = self.line_length
        return data


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The result of ``search_content``: the lines shown and how many matched."""

    results: tuple[SearchMatch, ...]
    total_matches: int
    pattern: str
    flags: SearchFlags
    warnings: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "results": [item.to_dict() for item in self.results],
            "total_matches": self.total_matches,
            "pattern": echoed(self.pattern),
            **self.flags.to_dict(),
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True, slots=True)
class CountResult:
    """The result of ``search_content(count_only=True)``."""

    count: int
    pattern: str
    flags: SearchFlags
    warnings: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "pattern": echoed(self.pattern),
            **self.flags.to_dict(),
            "warnings": list(self.warnings),
        }


def check_pattern(pattern: object) -> str:
    """A one-line, non-empty pattern, or :class:`InvalidArgument`."""
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


def _check_arguments(
    pattern: object, regex: bool, fuzzy: bool, max_results: object, context_lines: object
) -> str:
    pattern = check_pattern(pattern)
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
    return pattern


def search_content(
    absolute_file_path: str,
    pattern: str,
    max_results: int = SEARCH_DEFAULT_RESULTS,
    context_lines: int = SEARCH_DEFAULT_CONTEXT_LINES,
    fuzzy: bool = True,
    regex: bool = False,
    case_sensitive: bool = True,
    invert: bool = False,
    count_only: bool = False,
) -> SearchResult | CountResult:
    """Find lines matching ``pattern`` (exact, regex or fuzzy; or not matching with ``invert``)."""
    pattern = _check_arguments(pattern, regex, fuzzy, max_results, context_lines)
    warnings: list[str] = []
    if invert and fuzzy:
        fuzzy = False
        warnings.append("fuzzy ignored with invert=True: inverted search matches exactly.")
    version = open_text_version(absolute_file_path)
    flags = SearchFlags(fuzzy, regex, case_sensitive, invert)
    if fuzzy and not case_sensitive:
        warnings.append("case_sensitive ignored: fuzzy search always ignores case.")
    if count_only:
        if max_results != SEARCH_DEFAULT_RESULTS:
            warnings.append("max_results ignored with count_only=True.")
        if context_lines != SEARCH_DEFAULT_CONTEXT_LINES:
            warnings.append("context_lines ignored with count_only=True.")
        count = _count(version, pattern, flags, warnings)
        return CountResult(count, pattern, flags, tuple(warnings))
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
        found = find_lines(
            version,
            pattern,
            regex=regex,
            case_sensitive=case_sensitive,
            invert=invert,
            limit=max_results,
        )
    results, full = _matches(version, found, pattern, flags, context_lines, warnings)
    if full:
        warnings.append(_full_note(len(results), found.total))
    elif found.total > len(results):
        warnings.append(
            f"Showing {len(results)} of {found.total} matching lines; raise max_results "
            "or narrow the pattern to see others."
        )
    if not found.total:
        warnings.append(
            "No match."
            + (" Try fuzzy=True for approximate matches." if not fuzzy and not regex else "")
        )
    return SearchResult(tuple(results), found.total, pattern, flags, tuple(warnings))


def _count(version: FileVersion, pattern: str, flags: SearchFlags, warnings: list[str]) -> int:
    if flags.fuzzy_enabled:
        found = similar_lines(version, pattern, limit=1)
        _fuzzy_time_warning(found, warnings)
        return found.total
    return count_lines(
        version,
        pattern,
        regex=flags.regex_enabled,
        case_sensitive=flags.case_sensitive,
        invert=flags.inverted,
    )


def _fuzzy_time_warning(found: Found, warnings: list[str]) -> None:
    if found.timed_out:
        warnings.append(
            f"Fuzzy search stopped after {found.budget:g}s at line {found.stopped_line}: "
            "results and counts cover the lines before it only. Use fuzzy=False (exact or "
            "regex) to search the whole file."
        )


def _full_note(shown: int, total: int) -> str:
    """The warning of results stopped by the answer's size, not by ``max_results``."""
    return (
        f"Results stopped at about {MAX_CONTENT_CHARS} characters of answer: showing "
        f"{shown} of {total} matching lines; lower context_lines or narrow the pattern "
        "to see the others (a higher max_results would not show more)."
    )


def _matches(
    version: FileVersion,
    found: Found,
    pattern: str,
    flags: SearchFlags,
    context_lines: int,
    warnings: list[str],
) -> tuple[list[SearchMatch], bool]:
    """The found lines as results while the answer's JSON text (the rest of the answer,
    its warnings included, counted) fits MAX_CONTENT_CHARS, and whether the answer's
    size stopped them (at least one result is given, its context cut if it must)."""
    outline = outline_of(version)
    submatch = _submatcher(
        pattern,
        regex=flags.regex_enabled,
        case_sensitive=flags.case_sensitive,
        fuzzy=flags.fuzzy_enabled,
    )
    # Room for the warning of a full answer, as long as it can be.
    frame = SearchResult(
        (), found.total, pattern, flags, (*warnings, _full_note(*[found.total] * 2))
    )
    used = json_size(frame.to_dict())
    results: list[SearchMatch] = []
    for hit in found.hits:
        item = _match(version, hit, context_lines, outline, submatch, flags.inverted)
        size = json_size(item.to_dict()) + 1  # and the comma before it
        if used + size > MAX_CONTENT_CHARS:
            if results:
                return results, True
            item, size = _narrowed(item, MAX_CONTENT_CHARS - used, warnings)
        results.append(item)
        used += size
    return results, False


def _narrowed(item: SearchMatch, room: int, warnings: list[str]) -> tuple[SearchMatch, int]:
    """``item`` with its context lines dropped, farthest first, until it fits ``room``
    characters of the answer with the warning that says so (the match itself is at
    most MATCH_CHARS characters), and the characters the two take."""
    before, after = list(item.context_before), list(item.context_after)

    def note() -> str:
        return (
            f"The context of line {item.line_number} is cut to {len(before)} line(s) before "
            f"and {len(after)} after to fit one answer."
        )

    room -= json_size(note()) + 1  # the numbers only shrink
    size = json_size(item.to_dict()) + 1
    while (before or after) and size > room:
        if len(before) > len(after):
            before.pop(0)
        else:
            after.pop()
        item = replace(item, context_before=tuple(before), context_after=tuple(after))
        size = json_size(item.to_dict()) + 1
    warnings.append(note())
    return item, size + json_size(warnings[-1]) + 1


class _Submatcher(NamedTuple):
    """Where the pattern is in a line: ``spans`` (a line's character spans: literal
    matches, else with fuzzy the best alignment), ``literal`` (the first part
    alone) and ``best`` (the alignment's ``(score, start, end)``, or None; in a
    piece of a long line, only where the line search could have found it)."""

    spans: Callable[[str], Spans]
    literal: Callable[[str], Spans]
    best: Callable[[str], tuple[float, int, int] | None] | None
    best_in_piece: Callable[[str], tuple[float, int, int] | None] | None = None


def _submatcher(pattern: str, *, regex: bool, case_sensitive: bool, fuzzy: bool) -> _Submatcher:
    """The pattern's :class:`_Submatcher`."""
    if regex:
        compiled = compile_regex(pattern, case_sensitive=case_sensitive)
        return _Submatcher(compiled.spans, compiled.spans, None)
    literal = compile_literal(pattern, case_sensitive=case_sensitive and not fuzzy)
    lowered = pattern.lower()
    found = literal.spans

    def best(line: str) -> tuple[float, int, int] | None:
        return best_alignment(lowered, line.lower())

    def spans(line: str) -> Spans:
        hits = found(line)
        if hits or not fuzzy:
            return hits
        aligned = best(line)
        return [] if aligned is None else [aligned[1:]]

    if not fuzzy:
        return _Submatcher(spans, found, None)
    return _Submatcher(spans, found, best, anchored_alignment(pattern))


def _no_spans(_text: str) -> Spans:
    return []


def _match(
    version: FileVersion,
    hit: Hit,
    context_lines: int,
    outline: list[OutlineItem],
    submatch: _Submatcher,
    invert: bool,
) -> SearchMatch:
    """One found line as a result: its text around the match, spans and context."""
    stop = matched_line_end(version, hit.offset)
    if stop - hit.offset > PIECEWISE_LINE_BYTES:  # read in pieces, never decoded whole
        # A fuzzy hit holds no literal match (the line search would have typed it exact).
        literal = _no_spans if invert or hit.match_type == "fuzzy" else submatch.literal
        long = long_line_match(version, hit.offset, stop, literal, width=MATCH_CHARS)
        if not long.spans and not invert and submatch.best_in_piece is not None:
            # no literal match anywhere: the best fuzzy alignment, a second pass
            long = long_line_match(
                version,
                hit.offset,
                stop,
                _no_spans,
                width=MATCH_CHARS,
                best_of=submatch.best_in_piece,
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
    return SearchMatch(
        line_number=hit.line_number,
        match=shown,
        context_before=tuple(before),
        context_after=tuple(after),
        semantic_context=describe(outline, hit.line_number),
        similarity_score=hit.score,
        truncated=truncated,
        match_type=hit.match_type,
        submatches=tuple(spans[:MAX_SUBMATCHES]),
        match_offset=shift if truncated else None,
        line_length=length if truncated else None,
    )
