"""``search_diff``: lines of a diff that match a pattern, by file, side and kind of line.

Only the lines inside hunks are searched: ``+`` lines (the new side), ``-``
lines (the old side) and context lines (both sides); headers never match.
The pattern is matched against a line's text without its ``+``/``-``/space
prefix and its line ending, as ``re.search(pattern, line)`` (``regex``, run
by the search engine :mod:`diffchunk.regex`: RE2, linear time) or as a
substring; a line counts once however many times it matches, so the total
agrees with ``grep -c`` over the diff's lines of that kind.

- ``side``: ``both`` (every line), ``new`` (``+`` and context lines, with
  their new-side numbers) or ``old`` (``-`` and context lines, with their
  old-side numbers); ``changed_only`` leaves out the context lines.
- ``file_pattern``: globs (or exact paths as listed) of the files to search.
- Each hit: the file, the chunk holding the line (left out for a file
  excluded from the chunks, which says why), the side and line number in
  that side's revision, the kind (``+``, ``-``, `` `` for context) and the
  text (cut to :data:`TEXT_CHARS` characters around the match).
- A file's lines are searched at once: its section with the prefixes and
  line-ending CRs cut, as the file tools search a window of lines
  (:func:`diffchunk.files.matchers.window_hits`: a match within one line is
  that line's match, as line mode sees a line break as the end of a text);
  a pattern that asserts the ends of the text, a combined diff's section, or
  one that is not UTF-8, is searched line by line.
- Hits come in diff order, ``max_results`` a page from ``offset``; the
  answer says the total and ``next_offset``.  A search runs at most
  :data:`TIME_BUDGET` seconds, checked between lines (each line's match is
  linear in its length): past it, an error says to narrow the search.
"""

from __future__ import annotations

import codecs
import itertools
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ...diff.hunk import hunks_once
from ...diff.model import DiffKind, FileDiff
from ...diff.patterns import PathQuery
from ...diff.pipeline import Review
from ...errors import InvalidArgument
from ...files.matchers import TextMatcher, window_hits
from ...limits import DIFF_SEARCH_DEFAULT_RESULTS
from ...regex import Pattern, compile_literal, compile_regex
from ..paging import check_search
from ..sessions.loading import session
from ..sessions.store import Session, SessionStore

TEXT_CHARS = 200
"""Characters of a search_diff hit's line shown (around the match when the
line is longer)."""

MAX_RESULTS = 200
"""Hits a search_diff page holds at most: about 80 characters each plus their
text, at most DIFF_SEARCH_TEXT_CHARS, so 200 hits stay under the ~20k tokens
of one answer."""

TIME_BUDGET = 5.0
"""Seconds a search_diff may take before it is stopped: a regex that
backtracks must not hold the server."""

MAX_PATTERN_CHARS = 1000
"""Longest search_diff (and search_code) pattern: a pattern is matched against
single lines, so a longer one is a pasted block (refused with a message) or a
hostile regex."""


SIDES = ("both", "new", "old")


@dataclass(frozen=True, slots=True)
class DiffHit:
    """One matching line of the diff."""

    file: str
    chunk: int | None
    side: str  # "new" or "old": whose line number ``line`` is
    line: int | None  # None: an old-side line of a merge's combined diff
    kind: str  # "+", "-" or " "
    text: str
    excluded: str | None = None  # why the file is in no chunk

    def to_dict(self) -> dict[str, Any]:
        hit: dict[str, Any] = {"file": self.file}
        if self.chunk is not None:
            hit["chunk"] = self.chunk
        if self.excluded is not None:
            hit["excluded"] = self.excluded
        hit["side"] = self.side
        if self.line is not None:
            hit["line"] = self.line
        hit["kind"] = self.kind
        hit["text"] = self.text
        return hit


@dataclass(frozen=True, slots=True)
class DiffSearch:
    """One page of ``search_diff``."""

    hits: tuple[DiffHit, ...]
    total: int
    files_matched: int
    next_offset: int | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "hits": [h.to_dict() for h in self.hits],
            "total": self.total,
            "files_matched": self.files_matched,
        }
        if self.next_offset is not None:
            result["next_offset"] = self.next_offset
        return result


@dataclass(frozen=True, slots=True)
class _Line:
    kind: str
    old: int | None
    new: int | None
    text: str
    offset: int  # where the line starts in the diff buffer


def _lines(review: Review, fd: FileDiff) -> Iterator[_Line]:
    """The lines of a section's hunks, numbered on both sides."""
    data = review.parsed.data
    combined = fd.kind is DiffKind.COMBINED
    for hunk in hunks_once(fd.hunks):
        columns = max(len(hunk.parents), 1)
        old, new = hunk.old_start, hunk.new_start
        pos, end = hunk.body_start, hunk.end
        while pos < end:
            nl = data.find(b"\n", pos, end)
            stop = end if nl < 0 else nl
            raw = bytes(data[pos:stop])
            start, pos = pos, stop + 1
            if raw.startswith(b"\\"):
                continue
            prefix = raw[:columns]
            kind = "+" if b"+" in prefix else "-" if b"-" in prefix else " "
            text = raw[columns:].removesuffix(b"\r").decode("utf-8", "replace")
            if kind == "+":
                yield _Line(kind, None, new, text, start)
                new += 1
            elif kind == "-":
                yield _Line(kind, None if combined else old, None, text, start)
                old += 1
            else:
                yield _Line(kind, None if combined else old, new, text, start)
                old += 1
                new += 1


def changed_lines(review: Review, side: str) -> dict[str, set[int]]:
    """The numbers of the lines each file's diff changes on ``side``: the ``+`` lines'
    new numbers (``new``), or the ``-`` lines' old numbers (``old``), by the file's path
    on that side."""
    kind = "+" if side == "new" else "-"
    found: dict[str, set[int]] = {}
    for fd in review.parsed.files:
        path = fd.new_path if side == "new" else fd.old_path
        if path is None or fd.kind is DiffKind.COMBINED:
            continue
        numbers = found.setdefault(path, set())
        for line in _lines(review, fd):
            number = line.new if side == "new" else line.old
            if line.kind == kind and number is not None:
                numbers.add(number)
    return found


def line_pattern(pattern: str, regex: bool, case_sensitive: bool) -> Pattern:
    """``pattern`` compiled to search lines one at a time (``search_diff``'s and
    ``search_code``'s), or the error saying what to pass."""
    if not isinstance(pattern, str) or pattern == "":
        raise InvalidArgument("The pattern is empty.", suggestion="Pass the text to look for.")
    if "\n" in pattern or "\r" in pattern:
        raise InvalidArgument(
            "The pattern holds a line break: lines are searched one at a time.",
            suggestion="Search for one line of it.",
        )
    if len(pattern) > MAX_PATTERN_CHARS:
        raise InvalidArgument(f"The pattern is longer than {MAX_PATTERN_CHARS} characters.")
    if regex:
        return compile_regex(pattern, case_sensitive=case_sensitive)
    return compile_literal(pattern, case_sensitive=case_sensitive)


# What is cut from a section's lines before they are searched at once: the prefix
# of a hunk line, a hunk header or "\ No newline" line whole, the CR of a CRLF.
_NOT_TEXT = re.compile(rb"^(?:@@[^\n]*|\\[^\n]*|[-+ ])|\r(?=\n)", re.MULTILINE)


def _matching_lines(data: bytes | Any, fd: FileDiff, compiled: Pattern) -> set[int] | None:
    """Where the section's lines the pattern matches start in ``data``, found in one
    search (see the module docstring); None when they must be searched one by one."""
    if compiled.ends_of_text or fd.kind is DiffKind.COMBINED:
        return None
    section = bytes(data[fd.header_end : fd.end])
    lines = _NOT_TEXT.sub(b"", section)
    try:
        codecs.utf_8_decode(lines, "strict", True)
    except UnicodeDecodeError:
        return None  # a line decoded holds U+FFFD where its bytes hold something else
    numbers: list[int] = []
    number = counted = 0
    for start, _end in window_hits(TextMatcher(compiled, "utf-8", "regex"), lines, len(lines)):
        number += lines.count(b"\n", counted, start)
        counted = start
        numbers.append(number)
    if not numbers:
        return set()
    starts = [0, *itertools.accumulate(len(line) + 1 for line in section.split(b"\n"))]
    return {fd.header_end + starts[n] for n in numbers}


def _shown(text: str, match: tuple[int, int]) -> str:
    if len(text) <= TEXT_CHARS:
        return text
    start = max(0, min(match[0] - TEXT_CHARS // 4, len(text) - TEXT_CHARS))
    cut = text[start : start + TEXT_CHARS]
    return ("…" if start else "") + cut + ("…" if start + TEXT_CHARS < len(text) else "")


class _Chunks:
    """The chunk that holds a byte of a file's text (kept with the session)."""

    def __init__(self, review: Review) -> None:
        self.review = review
        self.spans: dict[str, list[tuple[int, int, int]]] = {}
        for chunk in review.chunks:
            for part in chunk.parts:
                for piece in part.pieces:
                    if isinstance(piece, tuple):
                        self.spans.setdefault(part.path, []).append((*piece, chunk.number))

    def of(self, path: str, offset: int) -> int | None:
        numbers = self.review.file_to_chunks.get(path)
        if not numbers:
            return None
        if len(numbers) > 1:
            for begin, end, number in self.spans.get(path, ()):
                if begin <= offset < end:
                    return number
        return numbers[0]


def _chunks(loaded: Session) -> _Chunks:
    found = loaded.cache.get("diff_search.chunks")
    if not isinstance(found, _Chunks):
        found = loaded.cache["diff_search.chunks"] = _Chunks(loaded.review)
    return found


def _matches(
    review: Review,
    compiled: Pattern,
    kinds: str,
    files: PathQuery | None,
    literal: bytes | None,
) -> Iterator[tuple[FileDiff, _Line]]:
    """Every matching line of the chosen files and kinds, in diff order (within the
    time budget)."""
    deadline = time.monotonic() + TIME_BUDGET
    data = review.parsed.data
    for fd in review.parsed.files:
        if files is not None and not files.matches(fd.path):
            continue
        if not fd.hunks or (literal is not None and data.find(literal, fd.header_end, fd.end) < 0):
            continue
        matching = _matching_lines(data, fd, compiled)
        if matching is not None and not matching:
            continue
        for line in _lines(review, fd):
            if time.monotonic() > deadline:
                raise InvalidArgument(
                    f"The search stopped after {TIME_BUDGET:g} s in {fd.path}: the pattern is "
                    "too costly for this diff.",
                    suggestion="Use a simpler pattern (regex=false for plain text), or narrow "
                    "it with file_pattern.",
                )
            if line.kind not in kinds:
                continue
            if matching is not None:
                found = line.offset in matching
            else:
                found = compiled.search_text(line.text) is not None
            if found:
                yield fd, line


def search_diff(
    absolute_file_path: str,
    pattern: str,
    regex: bool = False,
    case_sensitive: bool = True,
    file_pattern: str | None = None,
    side: str = "both",
    changed_only: bool = False,
    max_results: int = DIFF_SEARCH_DEFAULT_RESULTS,
    offset: int = 0,
    *,
    store: SessionStore | None = None,
) -> DiffSearch:
    """The lines of the diff that match ``pattern`` (see the module docstring)."""
    check_search(side, SIDES, max_results, MAX_RESULTS, offset)
    compiled = line_pattern(pattern, regex, case_sensitive)
    loaded = session(absolute_file_path, store)
    review = loaded.review
    files = PathQuery(file_pattern, name="file_pattern") if file_pattern else None
    kinds = {"both": "+- ", "new": "+ ", "old": "- "}[side]
    if changed_only:
        kinds = kinds.replace(" ", "")
    literal = None if regex or not case_sensitive else pattern.encode("utf-8")
    excluded = {ex.path: ex.reason.value for ex in review.excluded}
    chunks = _chunks(loaded)
    hits: list[DiffHit] = []
    total = 0
    matched: set[str] = set()
    for fd, line in _matches(review, compiled, kinds, files, literal):
        total += 1
        matched.add(fd.path)
        if not offset < total <= offset + max_results:
            continue
        on_new = line.kind == "+" or (line.kind == " " and side != "old")
        chunk = chunks.of(fd.path, line.offset)
        hits.append(
            DiffHit(
                file=fd.path,
                chunk=chunk,
                side="new" if on_new else "old",
                line=line.new if on_new else line.old,
                kind=line.kind,
                text=_shown(line.text, compiled.search_text(line.text) or (0, 0)),
                excluded=excluded.get(fd.path, "excluded") if chunk is None else None,
            )
        )
    following = offset + len(hits)
    return DiffSearch(tuple(hits), total, len(matched), following if following < total else None)
