"""Finding a file in a loaded diff: ``find_chunks_for_files`` and ``get_file_diff``.

Paths match case-insensitively with .gitignore rules
(:class:`~diffchunk.diff.patterns.PathPatterns`); a path exactly as listed
matches itself even where it reads differently as a glob.  A query that
matches no file gets an error naming the closest paths.

``get_file_diff`` of a glob (or a comma-separated list) matching several files
answers each of them in turn, as many as fit one answer
(:func:`get_files_diff`).

``find_chunks_for_files`` answers the list of matching chunks when it fits one
answer; otherwise (or when ``offset``/``limit`` ask for part of it) a page,
filled by :func:`~diffchunk.review.paging.fill_page` like ``list_chunks``'s.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...diff.chunk_parts import FileChunks
from ...diff.formatter import format_chunk, normalize_format
from ...diff.model import Excluded
from ...diff.patterns import MAX_PATTERN_LENGTH, PathQuery
from ...diff.pipeline import Review
from ...diff.table import ExcludedFiles, table_of
from ...errors import FileNotInDiff, InvalidArgument
from ...files.answer_size import json_size
from ...limits import RESPONSE_TOKENS
from ..answers import CHARS_PER_TOKEN, fit_response
from ..paging import check_page, fill_page
from ..sessions.file_match import match_file
from ..sessions.loading import session
from ..sessions.store import Session, SessionStore
from .lean_partners import partners

PAGE_CHARS = RESPONSE_TOKENS * CHARS_PER_TOKEN
"""A page of find_chunks_for_files, in characters of JSON: the bound of any answer
(pattern "*" over SQLAlchemy's rel_1_4_0..rel_2_0_0 answered 85,425 characters
unpaged; with 10-line chunks, 323,356 of them, 26,321,519).  Most queries fit one
page and are answered as the plain list."""

LISTED_CHARS = 4_000
"""Characters of paths the end of a several-file get_file_diff names for the
excluded files it skips: a glob over a diff of thousands of files must not name
them all (2,000 of them answered 254,410 characters); the rest are counted.  The
files it leaves out are named in a ``file_path`` that reads them next, within one
path's length (:data:`~diffchunk.diff.patterns.MAX_PATTERN_LENGTH`): the answer's
room is for the diffs."""

CHUNKS_NAMED = 20
"""Chunks the note of a cut file's diff names one by one: more (a file split into
thousands) are named as the span they run over, or the first of them and a count."""

NOTE_SLACK_CHARS = 64
"""Characters a cut file's text gives up beyond its note's length when the two do not
fit one answer: the note's counts of lines change by a few digits with the cut."""

TAIL_CHARS = LISTED_CHARS + MAX_PATTERN_LENGTH + 1_000
"""Characters of a several-file answer kept for its end: the two lists and their
words."""


def _query(pattern: str) -> PathQuery:
    if not isinstance(pattern, str) or not pattern.strip():
        raise InvalidArgument(
            "The pattern is empty.",
            suggestion="Pass a glob such as '*.py', 'src/**' or an exact path from list_chunks.",
        )
    return PathQuery(pattern, name="pattern")


def _file_chunks(review: Review) -> FileChunks:
    chunks = review.file_to_chunks
    if isinstance(chunks, FileChunks):
        return chunks
    return FileChunks(table_of(review.parsed.files, review.parsed.data), review.chunks)


def _wanted(review: Review, pattern: str) -> bytearray:
    """The sections of ``review``'s chunks whose paths ``pattern`` selects, as a byte per
    section (1: selected; a path's sections are all selected or none).

    A path as listed (case ignored, as in the globs) matches itself too, even
    where it reads differently as a glob (``app/[id]/page.tsx``, or a name
    shown with backslash escapes): the whole ``pattern`` (a name may hold a
    comma), or one of its comma-separated items (:meth:`PathQuery.matches`).
    """
    query = _query(pattern)
    files = table_of(review.parsed.files, review.parsed.data)
    chunks = _file_chunks(review)
    wanted = bytearray(len(files))
    for i in range(len(files)):
        if chunks.in_a_chunk(i) and query.matches(files.path(i)):
            wanted[i] = 1
    return wanted


def _numbers(review: Review, wanted: bytearray) -> list[int]:
    chunks = _file_chunks(review)
    selected = (i for i, w in enumerate(wanted) if w)
    return sorted({n for i in selected for n in chunks.chunks_of(i)})


def find_chunks_for_files(
    absolute_file_path: str, pattern: str, *, store: SessionStore | None = None
) -> list[int]:
    """Numbers of the chunks holding files that match ``pattern`` (sorted; see
    :func:`_wanted` for what matches)."""
    review = session(absolute_file_path, store).review
    return _numbers(review, _wanted(review, pattern))


@dataclass(frozen=True, slots=True)
class ChunkFiles:
    """A chunk holding files that match a query: those files and their lines in it."""

    chunk: int
    files: tuple[tuple[str, int], ...]  # (path, lines of diff text in this chunk)
    files_total: int | None = None  # set when ``files`` is cut to fit one answer

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "chunk": self.chunk,
            "files": [{"path": path, "lines": lines} for path, lines in self.files],
        }
        if self.files_total is not None:
            result["files_total"] = self.files_total
        return result


def _chunk_files(review: Review, number: int, wanted: bytearray) -> ChunkFiles:
    counts: dict[str, int] = {}
    for part in review.chunks[number - 1].parts:
        if wanted[part.file_index]:
            counts[part.path] = counts.get(part.path, 0) + part.lines
    return ChunkFiles(number, tuple(counts.items()))


def find_chunks_with_files(
    absolute_file_path: str, pattern: str, *, store: SessionStore | None = None
) -> tuple[ChunkFiles, ...]:
    """The chunks holding files that match ``pattern`` (as :func:`find_chunks_for_files`
    matches them), each with the matching files it holds and their lines in it (all of
    them: :func:`find_chunks_page` is the answer of the tool)."""
    review = session(absolute_file_path, store).review
    wanted = _wanted(review, pattern)
    return tuple(_chunk_files(review, n, wanted) for n in _numbers(review, wanted))


@dataclass(frozen=True, slots=True)
class FoundChunks:
    """One answer of ``find_chunks_for_files``: the chunks from ``offset`` that fit."""

    chunks: tuple[ChunkFiles, ...]
    total: int  # chunks matching in all
    offset: int = 0
    next_offset: int | None = None

    @property
    def whole(self) -> bool:
        """Whether this answer holds every matching chunk."""
        return self.offset == 0 and len(self.chunks) == self.total

    def to_dict(self) -> dict[str, Any]:
        """The page: ``chunks``, ``total`` and ``next_offset`` when more remain."""
        result: dict[str, Any] = {
            "chunks": [c.to_dict() for c in self.chunks],
            "total": self.total,
        }
        if self.next_offset is not None:
            result["next_offset"] = self.next_offset
        return result

    def answer(self) -> list[dict[str, Any]] | dict[str, Any]:
        """What the tool answers: the list of chunks as it always was when it holds
        them all, else the page (:meth:`to_dict`)."""
        return [c.to_dict() for c in self.chunks] if self.whole else self.to_dict()


def find_chunks_page(
    absolute_file_path: str,
    pattern: str,
    offset: int = 0,
    limit: int | None = None,
    *,
    store: SessionStore | None = None,
    max_chars: int | None = PAGE_CHARS,
) -> FoundChunks:
    """The chunks holding files that match ``pattern`` from ``offset`` (at most ``limit``)
    with their matching files, as many as fit ``max_chars`` characters of JSON (None:
    all); a chunk whose files alone exceed them lists as many as fit (``files_total``)."""
    review = session(absolute_file_path, store).review
    wanted = _wanted(review, pattern)
    numbers = _numbers(review, wanted)
    total = len(numbers)
    check_page(offset, limit, total, "chunks")
    end = total if limit is None else min(total, offset + limit)

    def sized(i: int) -> tuple[ChunkFiles, int]:
        entry = _chunk_files(review, numbers[i], wanted)
        return entry, json_size(entry.to_dict())

    used = json_size(FoundChunks((), total, offset, next_offset=total).to_dict())
    page, stop = fill_page(
        sized, offset, end, max_chars, used=used, shorten=_shortened, separator=1
    )
    return FoundChunks(tuple(page), total, offset, stop if stop < total else None)


def _shortened(entry: ChunkFiles, size: int, room: int) -> tuple[ChunkFiles, int]:
    """A chunk's entry whose files alone exceed ``room`` characters (thousands of files
    in one chunk), with as many of them as fit (one at least) and their total."""
    keep = len(entry.files)
    cut = entry
    while keep > 1 and size > room:
        keep = max(1, min(keep - 1, keep * room // size))
        cut = ChunkFiles(entry.chunk, entry.files[:keep], len(entry.files))
        size = json_size(cut.to_dict())
    return cut, size


@dataclass(frozen=True, slots=True)
class FileDiffText:
    path: str
    data: bytes  # the file's sections, exactly as in the loaded diff
    sections: int  # how many sections (several in a multi-commit stream)
    excluded: Excluded | None  # why it is not in any chunk, if it is not


def get_file_diff_bytes(
    absolute_file_path: str, file_path: str, *, store: SessionStore | None = None
) -> FileDiffText:
    """The whole diff of one file (all its sections), even if split or excluded."""
    review = session(absolute_file_path, store).review
    path = match_file(review, file_path)
    files = table_of(review.parsed.files, review.parsed.data)
    sections = files.indices_of(path)
    data = b"".join(review.parsed.data[start:end] for start, end in map(files.span, sections))
    excluded = _excluded(review, sections)
    if excluded is not None and path in review.file_to_chunks:
        excluded = None  # excluded in one commit, kept in another
    return FileDiffText(path=path, data=data, sections=len(sections), excluded=excluded)


def file_diff_text(
    absolute_file_path: str, result: FileDiffText, fmt: str, *, store: SessionStore | None = None
) -> str:
    """A file's whole diff (:func:`get_file_diff_bytes`) in ``fmt``, uncut (the command
    line's ``--file``): lean as ``get_file_diff`` makes it, moves across the diff found."""
    if normalize_format(fmt) != "lean":
        return format_chunk(result.data, fmt)
    from ...diff.lean import render_lean  # on first use: most calls are raw

    loaded = session(absolute_file_path, store)
    return render_lean(result.data, partners=partners(loaded)).text


def _excluded(review: Review, sections: list[int]) -> Excluded | None:
    """Why the first of ``sections`` that was left out was (None: none was)."""
    excluded = review.excluded
    if isinstance(excluded, ExcludedFiles):
        # In diff order: each section is found by bisection, not by a walk through
        # them all (get_file_diff of a glob asks for every path of the diff).
        positions = range(len(excluded))
        for section in sorted(sections):
            k = bisect_left(positions, section, key=excluded.file_index)
            if k < len(excluded) and excluded.file_index(k) == section:
                return excluded[k]
        return None
    return next((ex for ex in excluded if ex.file_index in sections), None)


#: What ``get_file_diff`` shows around each change: the hunks as the diff has
#: them, or widened to the whole definition around them (:mod:`.symbol_context`).
CONTEXTS = ("hunks", "symbol")


def get_file_diff(
    absolute_file_path: str,
    file_path: str,
    format: str = "raw",
    *,
    store: SessionStore | None = None,
    context: str = "hunks",
) -> str:
    """The diff text of the file ``file_path`` names (several: see :func:`get_files_diff`)
    in ``format`` (see :func:`~.chunk_text.get_chunk`); an excluded file is served with
    a note saying why, a text larger than one answer is cut with a note saying how to
    read on.

    ``context="symbol"`` widens each hunk to the whole function or class around
    it at the new revision (a valid patch still); in lean, the widened lines are
    shown (none when no change sits in a definition: lean then hides git's context
    lines as it always does).  A lean answer has no legend line (``get_chunk``'s has one): a review
    reads a file's diff per file, dozens of times, and the server's instructions
    say how lean reads."""
    return get_files_diff(absolute_file_path, file_path, format, store=store, context=context)[0]


def get_files_diff(
    absolute_file_path: str,
    file_path: str,
    format: str = "raw",
    *,
    store: SessionStore | None = None,
    context: str = "hunks",
) -> tuple[str, list[str]]:
    """:func:`get_file_diff`'s text, and the paths it shows.

    A query naming one file (a path as listed, or a glob matching one) answers
    that file's diff.  A glob or a comma-separated list matching several files
    answers their diffs one after the other, in the diff's order, each as its
    own answer would be without the lean head line (its ``##`` line names it),
    as many whole files as fit one answer (the first at least, cut as one file
    is); the answer ends with the files it leaves out, as a ``file_path`` that
    reads them next, and the excluded files it skips (served one at a time),
    each list named within a bound (:data:`LISTED_CHARS`) and the rest counted."""
    fmt = normalize_format(format)
    if context not in CONTEXTS:
        raise InvalidArgument(
            f"context must be one of {', '.join(CONTEXTS)}, got {context!r}.",
            suggestion="'hunks' shows the diff as it is; 'symbol' widens each hunk to the "
            "whole definition around it.",
        )
    loaded = session(absolute_file_path, store)
    paths = _matching(loaded.review, file_path)
    if len(paths) == 1:
        return _one_file(absolute_file_path, paths[0], fmt, context, store, head=True), paths
    return _several_files(absolute_file_path, paths, fmt, context, store)


def _matching(review: Review, file_path: str) -> list[str]:
    """The paths ``file_path`` names: the one :func:`match_file` finds, else every path a
    glob or a comma-separated list of paths and globs matches (in the diff's order)."""
    try:
        return [match_file(review, file_path)]
    except FileNotInDiff:
        query = PathQuery(file_path, name="file_path")
        paths = list(dict.fromkeys(table_of(review.parsed.files, review.parsed.data).paths()))
        found = [p for p in paths if query.matches(p)]
        if len(found) < 2:
            raise
        return found


def _several_files(
    absolute_file_path: str,
    paths: list[str],
    fmt: str,
    context: str,
    store: SessionStore | None,
) -> tuple[str, list[str]]:
    """The diffs of ``paths`` (see :func:`get_files_diff`)."""
    review = session(absolute_file_path, store).review
    files = table_of(review.parsed.files, review.parsed.data)
    excluded: list[str] = []
    shown: list[str] = []
    texts: list[str] = []
    used = 0
    left: list[str] = []
    for path in paths:
        ex = _excluded(review, files.indices_of(path))
        if ex is not None and path not in review.file_to_chunks:
            excluded.append(f"{path} ({ex.reason.value})")
            continue
        if left:
            left.append(path)
            continue
        text = _one_file(
            absolute_file_path, path, fmt, context, store, head=False, room=PAGE_CHARS - TAIL_CHARS
        )
        if shown and used + len(text) > PAGE_CHARS - TAIL_CHARS:
            left.append(path)
            continue
        shown.append(path)
        texts.append(text)
        used += len(text)
    tail = []
    if left:
        named = _named(left, ",", MAX_PATTERN_LENGTH)
        reads = (
            "reads them"
            if len(named) == len(left)
            else f"reads the next {len(named)} (find_chunks_for_files lists them all)"
        )
        tail.append(
            f"=== {len(left)} more file(s) match, left out to fit one answer: "
            f'file_path="{",".join(named)}" {reads} ==='
        )
    if excluded:
        named = _named(excluded, ", ", LISTED_CHARS)
        more = len(excluded) - len(named)
        tail.append(
            f"=== excluded from the chunks, not shown (each is served alone): "
            f"{', '.join(named)}"
            + (
                f" and {more} more (list_chunks names them all among the excluded files)"
                if more
                else ""
            )
            + " ==="
        )
    body = "".join(t if t.endswith("\n") else t + "\n" for t in texts)
    return body + "".join(line + "\n" for line in tail), shown


def _named(items: list[str], separator: str, room: int) -> list[str]:
    """The first of ``items`` that fit ``room`` characters joined (one at least)."""
    used = -len(separator)
    for count, item in enumerate(items):
        used += len(item) + len(separator)
        if count and used > room:
            return items[:count]
    return items


def _one_file(
    absolute_file_path: str,
    path: str,
    fmt: str,
    context: str,
    store: SessionStore | None,
    head: bool,
    room: int = PAGE_CHARS,
) -> str:
    """One file's diff text (see :func:`get_file_diff`) in at most ``room`` characters;
    ``head``: with the lean head line."""
    loaded = session(absolute_file_path, store)
    result = get_file_diff_bytes(absolute_file_path, path, store=store)
    notes = []
    widened = None
    definitions: tuple[tuple[int, int], ...] = ()
    if context == "symbol":
        from .symbol_context import symbol_context

        widened, note, definitions = symbol_context(absolute_file_path, loaded, result.path, store)
        if not definitions:
            widened = None  # its changes sit in no definition: git's context lines only
        if widened is not None:
            result = FileDiffText(result.path, widened, 1, result.excluded)
        if note:
            notes.append(note)
    if fmt == "lean":
        from ...diff.lean import render_lean  # on first use: most calls are raw

        # Widened to whole definitions: their unchanged lines are what was asked for (git's
        # context lines outside them are left out as lean leaves them out).
        view = render_lean(
            result.data,
            keep_context=widened is not None,
            context_spans=definitions if widened is not None else None,
            partners=partners(loaded),
        )
        whole = view.text
    else:
        whole = format_chunk(result.data, fmt)
    if result.excluded is not None:
        ex = result.excluded
        why = ex.reason.value + (f": {ex.detail}" if ex.detail else "")
        notes.append(f"{result.path} is excluded from the chunks ({why})")
    # The head line says where a cut falls, and the cut leaves room for the head line:
    # cut again, shorter, until both fit one answer (its counts change by a few digits).
    cut = room
    while True:
        text, left_out = fit_response(whole, cut)
        top = _top(loaded, result, notes, text, left_out, whole, fmt, head)
        if top is None:
            return text
        if len(top) + 2 + len(text) <= room or cut <= NOTE_SLACK_CHARS:
            return f"{top}\n\n{text}"
        cut = max(NOTE_SLACK_CHARS, min(cut, room - len(top) - 2) - NOTE_SLACK_CHARS)


def _top(
    loaded: Session,
    result: FileDiffText,
    notes: list[str],
    text: str,
    left_out: int,
    whole: str,
    fmt: str,
    head: bool,
) -> str | None:
    """The line above a file's diff text: its notes, and how to read on when the text
    is cut; else the lean head line (``head``); else none."""
    if left_out:
        return (
            f"=== {'; '.join([*notes, _read_on(loaded, result, text, left_out, whole, fmt)])} ==="
        )
    if notes:
        return f"=== {'; '.join(notes)}; its full diff follows ==="
    if fmt == "lean" and head:
        tokens, raw_tokens = len(text) // CHARS_PER_TOKEN, len(result.data) // CHARS_PER_TOKEN
        return f"=== {result.path} | lean | ~{tokens:,} tokens (raw ~{raw_tokens:,}) ==="
    return None


def _chunk_numbers(numbers: Sequence[int]) -> str:
    """The chunks a file's note names: all of them when few, else the span they run
    over (a file in 2,000 chunks named each in 11,000 characters), or the first few."""
    if len(numbers) <= CHUNKS_NAMED:
        return ", ".join(map(str, numbers))
    if numbers[-1] - numbers[0] == len(numbers) - 1:
        return f"{numbers[0]} to {numbers[-1]}"
    named = ", ".join(map(str, numbers[:CHUNKS_NAMED]))
    return f"{named} and {len(numbers) - CHUNKS_NAMED:,} more: find_chunks_for_files lists them"


def _read_on(
    loaded: Session,
    result: FileDiffText,
    text: str,
    left_out: int,
    whole: str,
    fmt: str,
) -> str:
    """The note of a file's diff cut to fit one answer: how much is left out, where it
    is served whole, and (raw text of the diff file's own lines) where to read on."""
    review = loaded.review
    tokens = len(whole) // CHARS_PER_TOKEN
    shown = text.count("\n")
    numbers = _chunk_numbers(review.file_to_chunks.get(result.path, ()))
    more = f"get_chunk serves it whole in parts (chunks {numbers})" if numbers else ""
    # The diff file's own lines: not those of a view with its context reduced,
    # nor of a widened diff or another format.
    own_lines = fmt == "raw" and loaded.options.context_lines is None
    if result.sections == 1 and own_lines:
        files = table_of(review.parsed.files, review.parsed.data)
        found = files.indices_of(result.path)
        start, end = files.span(found[0]) if found else (0, 0)
        if found and review.parsed.data[start:end] == result.data:
            line = review.parsed.data.count(b"\n", 0, start) + 1 + shown
            rest = (
                f'read_content(absolute_file_path="{loaded.path}", offset={line}) '
                "reads on from there"
            )
            more = f"{more}; {rest}" if more else rest
    return (
        f"{result.path}: ~{tokens} tokens, more than one response holds; the first "
        f"{shown} lines follow and {left_out} more are left out" + (f" ({more})" if more else "")
    )
