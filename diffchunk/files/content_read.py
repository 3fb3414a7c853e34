"""``read_content``: lines by number, from either end, or the whole block around a line.

The reads are :mod:`.line_reads` (line numbers as ``sed -n`` gives them; head and
tail never build the line index); this module checks the arguments, finds
the start (a line number, or the line a ``pattern`` best matches: exact
first, then fuzzy), reads a function or class whole in ``semantic`` mode
(at most :data:`SEMANTIC_MAX_LINES` lines, from the outline), and keeps the
answer's JSON text (escapes included: :mod:`.answer_size`) within
:data:`READ_MAX_CONTENT_CHARS` characters, cut at a line boundary (``truncated``
then says more lines follow, and a warning where to read on).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import FileToolError, InvalidArgument
from ..limits import READ_DEFAULT_LINES, READ_MAX_CONTENT_CHARS
from .access import FileVersion, open_text_version
from .answer_size import echoed, escaped_size, fitting_head, fitting_tail, json_size
from .content_search import check_pattern
from .line_reads import (
    Lines,
    known_total,
    long_line_chars,
    read_head,
    read_lines,
    read_tail,
)
from .line_search import best_line
from .version_outline import enclosing, outline_of

SEMANTIC_MAX_LINES = 2000
"""Lines of a definition read_content(mode="semantic") returns at most: at 40
characters a line, 2,000 lines fill one answer."""


READ_MODES = ("lines", "semantic", "head", "tail")


@dataclass(frozen=True, slots=True)
class PatternMatch:
    """Where the ``pattern`` of a read was found."""

    pattern: str
    match_line: int
    similarity_score: float


@dataclass(frozen=True, slots=True)
class SemanticBlock:
    """The symbol a semantic read returned."""

    name: str
    type: str
    line_number: int
    end_line: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "line_number": self.line_number,
            "end_line": self.end_line,
        }


@dataclass(frozen=True, slots=True)
class ReadResult:
    """The result of ``read_content``."""

    content: str
    start_line: int | None
    end_line: int | None
    lines_returned: int
    total_lines: int | None
    mode: str
    truncated: bool
    warnings: tuple[str, ...]
    pattern_match: PatternMatch | None = None
    semantic_block: SemanticBlock | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "content": self.content,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "lines_returned": self.lines_returned,
            "total_lines": self.total_lines,
            "mode": self.mode,
            "truncated": self.truncated,
            "warnings": list(self.warnings),
        }
        if self.pattern_match is not None:
            data["pattern"] = echoed(self.pattern_match.pattern)
            data["match_line"] = self.pattern_match.match_line
            data["similarity_score"] = self.pattern_match.similarity_score
        if self.semantic_block is not None:
            data["semantic_block"] = self.semantic_block.to_dict()
        return data


def _check_arguments(mode: object, offset: object, limit: object) -> None:
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


def read_content(
    absolute_file_path: str,
    offset: int = 1,
    limit: int = READ_DEFAULT_LINES,
    pattern: str | None = None,
    mode: str = "lines",
) -> ReadResult:
    """Read lines by number, from either end, or the whole code block around a line."""
    _check_arguments(mode, offset, limit)
    if pattern is not None and pattern == "":
        pattern = None
    # Every line costs at least one character: more never fit in one reply, and
    # reading them (limit=10**9) would only take time.
    span = min(limit, READ_MAX_CONTENT_CHARS + 1)
    version = open_text_version(absolute_file_path)
    warnings: list[str] = []
    if mode in ("head", "tail"):
        return _read_end(version, mode, span, pattern, offset, warnings)
    total = version.line_count()
    target = offset
    found: PatternMatch | None = None
    if pattern is not None:
        found = _pattern_line(version, pattern)
        target = found.match_line
        if offset != 1:
            warnings.append("offset ignored: pattern locates the start.")
    if total == 0:
        lines = Lines("", None, None, 0)
        return _result(lines, total, mode, False, warnings, found)
    if target > total:
        raise InvalidArgument(
            f"offset {target} is past the end of the file ({total} lines).",
            suggestion=f"Use an offset between 1 and {total}, or mode='tail'.",
        )
    if mode == "semantic":
        return _read_semantic(version, target, span, limit, total, warnings, found)
    lines = read_lines(version, target, span)
    truncated = lines.end_line is not None and lines.end_line < total
    return _result(lines, total, mode, truncated, warnings, found)


def _read_end(
    version: FileVersion,
    mode: str,
    span: int,
    pattern: str | None,
    offset: int,
    warnings: list[str],
) -> ReadResult:
    """The first or last ``span`` lines (``mode`` head or tail)."""
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
    # "truncated" says that more lines follow: not after a whole tail, which ends at
    # the file's last line (its start_line says what comes before); a tail cut to fit
    # one answer is truncated (see _result).
    truncated = False if total is None or mode == "tail" else (lines.count < total)
    return _result(lines, total, mode, truncated, warnings, None)


def _pattern_line(version: FileVersion, pattern: str) -> PatternMatch:
    """The line ``pattern`` best matches (exact first, then fuzzy), or an error."""
    hit = best_line(version, check_pattern(pattern))
    if hit is None:
        raise FileToolError(
            f"Pattern {pattern!r} not found in {version.realpath}.",
            suggestion="Check the spelling, or use search_content to look for it.",
        )
    return PatternMatch(pattern, hit.line_number, hit.score)


def _read_semantic(
    version: FileVersion,
    target: int,
    span: int,
    limit: int,
    total: int,
    warnings: list[str],
    found: PatternMatch | None,
) -> ReadResult:
    """The whole function or class holding line ``target`` (else ``span`` lines from it)."""
    outline = outline_of(version)
    item = enclosing(outline, target)
    if item is None:
        reason = (
            "no enclosing function or class at that line"
            if outline
            else "no outline for this file type"
        )
        warnings.append(f"semantic mode fell back to lines: {reason}.")
        lines = read_lines(version, target, span)
        truncated = lines.end_line is not None and lines.end_line < total
        return _result(lines, total, "semantic", truncated, warnings, found)
    count = item.end_line - item.line_number + 1
    if count > SEMANTIC_MAX_LINES:
        warnings.append(
            f"{item.type} {item.name} has {count} lines; showing the first {SEMANTIC_MAX_LINES}."
        )
        count = SEMANTIC_MAX_LINES
    lines = read_lines(version, item.line_number, count)
    block = SemanticBlock(item.name, item.type, item.line_number, item.end_line)
    if limit != READ_DEFAULT_LINES:
        warnings.append("limit ignored in semantic mode: the whole block is returned.")
    truncated = lines.end_line is not None and lines.end_line < item.end_line
    return _result(lines, total, "semantic", truncated, warnings, found, block)


def _result(
    lines: Lines,
    total: int | None,
    mode: str,
    truncated: bool,
    warnings: list[str],
    found: PatternMatch | None,
    block: SemanticBlock | None = None,
) -> ReadResult:
    """The lines read as a result, cut at a line boundary so that the answer's JSON text
    (the content escaped, every other field counted) stays within READ_MAX_CONTENT_CHARS."""
    notes = [*lines.warnings, *warnings]
    if lines.long_lines_cut:
        notes.append(
            f"{lines.long_lines_cut} line(s) longer than {long_line_chars()} characters were cut; "
            "search_content shows the part around a match."
        )

    def result(text: str, start: int | None, end: int | None, count: int, cut: bool) -> ReadResult:
        return ReadResult(
            content=text,
            start_line=start,
            end_line=end,
            lines_returned=count,
            total_lines=total,
            mode=mode,
            truncated=cut,
            warnings=tuple(notes),
            pattern_match=found,
            semantic_block=block,
        )

    text, count = lines.text, lines.count
    start_line, end_line = lines.start_line, lines.end_line
    frame = json_size(result("", start_line, end_line, count, truncated).to_dict())
    if (
        len(text) <= READ_MAX_CONTENT_CHARS - frame
        and frame + escaped_size(text) <= READ_MAX_CONTENT_CHARS
    ):
        return result(text, start_line, end_line, count, truncated)
    # The note of the cut, as long as it can be (the numbers only shrink), is counted.
    notes.append(_stopped(mode, count, start_line, end_line))
    room = READ_MAX_CONTENT_CHARS - json_size(
        result("", start_line, end_line, count, True).to_dict()
    )
    notes.pop()
    if mode == "tail":
        cut = fitting_tail(text, room)
        dropped = text.count("\n", 0, cut)
        text = text[cut:]
        if start_line is not None:
            start_line += dropped
    else:
        cut = fitting_head(text, room)
        dropped = text.count("\n", cut)
        text = text[:cut]
        if end_line is not None:
            end_line -= dropped
    count -= dropped
    notes.append(_stopped(mode, count, start_line, end_line))
    # Cut to fit: fewer lines than asked (a tail's missing ones come before it).
    return result(text, start_line, end_line, count, True)


def _stopped(mode: str, count: int, start_line: int | None, end_line: int | None) -> str:
    """The note of a read cut to fit one answer: what it holds and where to go on."""
    head = f"Output stopped at about {READ_MAX_CONTENT_CHARS} characters of answer ({count} lines)"
    if mode == "tail":
        if start_line is None:
            return f"{head}: the lines before these are left out."
        return (
            f"{head}: the lines before line {start_line} are left out; read them with mode='lines'."
        )
    if end_line is None:
        return f"{head}; read the rest with a further call."
    also = "" if mode == "lines" else " and mode='lines'"  # head and semantic reread
    return f"{head}; read on with offset={end_line + 1}{also}."
