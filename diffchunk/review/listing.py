"""``list_chunks``: each chunk's files, lines and tokens, paged to fit a response.

A page only builds the entries it shows (a listing of a large diff is never
built whole by one call), and the entries and their JSON sizes are kept with
the session for the next page.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..diff.model import Chunk
from ..diff.pipeline import Review
from ..errors import InvalidArgument
from .excluded import LISTED_CHARS, ExcludedListing, excluded_page, listed_part, summarise
from .file_details import file_detail, part_counts, part_text
from .loading import excluded_file, session
from .results import ChunkEntry, ChunkListing, ExcludedFile
from .sessions import Session, SessionStore
from .symbols import FileSymbols, for_part, merged
from .symbols import compute as compute_symbols

# A response should stay under about 20k tokens (token ~ 4 characters).
RESPONSE_TOKENS = 20_000
CHARS_PER_TOKEN = 4


def json_size(value: Any) -> int:
    """The length of ``value`` as the JSON text a tool returns."""
    return len(json.dumps(value, ensure_ascii=False))


def _summary(chunk: Chunk) -> str:
    files = chunk.files
    lines = f"{chunk.line_count} line{'s' if chunk.line_count != 1 else ''}"
    if chunk.parent_file is not None:
        part = next((p for p in chunk.parts if p.path == chunk.parent_file), None)
        of = f" of {part.parts}" if part is not None and part.parts else ""
        text = f"part {chunk.sub_chunk_index}{of} of {chunk.parent_file}, {lines}"
    else:
        text = f"{len(files)} file{'s' if len(files) != 1 else ''}, {lines}"
    if chunk.oversized:
        text += " (oversized: a single line or binary payload exceeds the budget)"
    return text


def chunk_entry(
    review: Review, chunk: Chunk, symbols: Mapping[int, FileSymbols] | None = None
) -> ChunkEntry:
    """The list_chunks entry of one chunk (a file's parts in the chunk are one detail);
    ``symbols``: the changed definitions of its files by file index, when computed."""
    order: list[str] = []
    # path -> (file index, lines, added, removed)
    parts: dict[str, tuple[int, int, int, int]] = {}
    shown: dict[str, list[FileSymbols]] = {}
    for part in chunk.parts:
        added, removed = part_counts(review, part)
        seen = parts.get(part.path)
        if seen is None:
            order.append(part.path)
            parts[part.path] = (part.file_index, part.lines, added, removed)
        else:
            parts[part.path] = (seen[0], seen[1] + part.lines, seen[2] + added, seen[3] + removed)
        if symbols is not None and part.file_index in symbols:
            text = part_text(review, part) if part.parts is not None else None
            shown.setdefault(part.path, []).append(for_part(symbols[part.file_index], part, text))
    details = []
    for path in order:
        file_index, lines, added, removed = parts[path]
        found = merged(shown[path]) if path in shown else None
        details.append(file_detail(review, file_index, path, lines, added, removed, found))
    return ChunkEntry(
        chunk=chunk.number,
        files=tuple(chunk.files),
        file_details=tuple(details),
        lines=chunk.line_count,
        token_count=chunk.token_count,
        summary=_summary(chunk),
        parent_file=chunk.parent_file,
        sub_chunk_index=chunk.sub_chunk_index if chunk.parent_file is not None else None,
        oversized=chunk.oversized,
    )


class _Listing:
    """list_chunks entries and their JSON sizes, built on demand and kept."""

    def __init__(self, review: Review) -> None:
        self._review = review
        self._entries: list[ChunkEntry | None] = [None] * len(review.chunks)
        self._sizes: list[int] = [-1] * len(review.chunks)
        self.total_tokens = sum(c.token_count for c in review.chunks)
        self.excluded = tuple(excluded_file(review, ex) for ex in review.excluded)
        self.excluded_summary = summarise(self.excluded)
        self._excluded_chars = -1
        self._symbolled: set[int] = set()  # entries that carry their symbols

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def excluded_chars(self) -> int:
        """The length of the JSON text of :attr:`excluded` (measured for paging only)."""
        if self._excluded_chars < 0:
            self._excluded_chars = json_size([ex.to_dict() for ex in self.excluded])
        return self._excluded_chars

    def entry(self, i: int) -> ChunkEntry:
        """The entry of chunk index ``i`` (0-based)."""
        entry = self._entries[i]
        if entry is None:
            # Two threads may both build it; either result is the same.
            entry = chunk_entry(self._review, self._review.chunks[i])
            self._entries[i] = entry
        return entry

    def sized_entry(self, i: int) -> tuple[ChunkEntry, int]:
        """The entry of chunk index ``i`` and the length of its JSON text."""
        entry = self.entry(i)
        size = self._sizes[i]
        if size < 0:
            size = self._sizes[i] = json_size(entry.to_dict())
        return entry, size

    def add_symbols(self, loaded: Session, first: int, stop: int) -> bool:
        """Give the entries of chunk indexes ``first..stop-1`` their files' changed
        symbols (computed for all of them at once); whether any entry changed."""
        todo = [i for i in range(first, stop) if i not in self._symbolled]
        if not todo:
            return False
        chunks = [self._review.chunks[i] for i in todo]
        found = compute_symbols(loaded, [p.file_index for c in chunks for p in c.parts])
        for i, chunk in zip(todo, chunks, strict=True):
            entry = chunk_entry(self._review, chunk, found)
            # The size first: a reader between the two sees a size too large, never
            # too small (its page may end early, never overrun).
            self._sizes[i] = json_size(entry.to_dict())
            self._entries[i] = entry
            self._symbolled.add(i)
        return True


def _listing(loaded: Session) -> _Listing:
    """The session's listing (created once per session)."""
    cached = loaded.cache.get("listing")
    if cached is None:
        cached = _Listing(loaded.review)
        loaded.cache["listing"] = cached
    assert isinstance(cached, _Listing)
    return cached


def check_page(offset: int, limit: int | None, total: int, what: str = "chunks") -> None:
    """Refuse an ``offset``/``limit`` pair that names no page of ``total`` items."""
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidArgument(
            f"offset must be a non-negative integer, got {offset!r}.",
            suggestion="Use 0 for the first page, then the next_offset of the previous page.",
        )
    if offset > total:
        raise InvalidArgument(
            f"offset={offset} is past the end: this diff has {total} {what}.",
            suggestion=f"Use an offset between 0 and {max(total - 1, 0)}.",
        )
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InvalidArgument(
            f"limit must be a positive integer, got {limit!r}.",
            suggestion=f"Leave it unset to get as many {what} as fit in one response.",
        )


def list_chunks(
    absolute_file_path: str,
    offset: int = 0,
    limit: int | None = None,
    *,
    store: SessionStore | None = None,
    max_tokens: int | None = RESPONSE_TOKENS,
) -> ChunkListing:
    """Chunk metadata (files, lines, tokens, summaries) and what was excluded.

    The listing pages when it would exceed ``max_tokens``: the result then
    carries ``next_offset`` (pass it as ``offset``).  ``max_tokens=None``
    returns everything (the CLI's ``--json``).
    """
    loaded = session(absolute_file_path, store)
    listing = _listing(loaded)
    total = len(listing)
    check_page(offset, limit, total)
    end = total if limit is None else min(total, offset + limit)
    if max_tokens is None:
        chunks = tuple(listing.entry(i) for i in range(offset, end))
        return ChunkListing(
            chunks,
            listing.total_tokens,
            total,
            listing.excluded,
            excluded_summary=listing.excluded_summary,
        )

    budget = max_tokens * CHARS_PER_TOKEN
    excluded, excluded_total = _excluded_part(listing, min(budget // 2, LISTED_CHARS))
    summary = listing.excluded_summary
    head = ChunkListing(
        (), listing.total_tokens, total, excluded, excluded_total, excluded_summary=summary
    )
    used = json_size(head.to_dict()) + 64  # room for next_offset
    page, stop = _page(listing, offset, end, used, budget)
    if listing.add_symbols(loaded, offset, stop):  # the page's files, in one go
        page, stop = _page(listing, offset, end, used, budget)
    return ChunkListing(
        tuple(page),
        listing.total_tokens,
        total,
        excluded,
        excluded_total,
        next_offset=stop if stop < total else None,
        excluded_summary=summary,
    )


def _page(
    listing: _Listing, offset: int, end: int, used: int, budget: int
) -> tuple[list[ChunkEntry], int]:
    """The entries from ``offset`` that fit in ``budget`` characters (``used`` taken by
    the rest of the page), and the index after the last one."""
    page: list[ChunkEntry] = []
    stop = offset
    while stop < end:
        entry, size = listing.sized_entry(stop)
        if page and used + size + 2 > budget:
            break
        if not page and used + size + 2 > budget:
            entry, size = _shortened_entry(entry, size, budget - used - 2)
        page.append(entry)
        used += size + 2
        stop += 1
    return page, stop


def _excluded_part(listing: _Listing, room: int) -> tuple[tuple[ExcludedFile, ...], int | None]:
    """The excluded files that fit in ``room`` characters, and their total when cut."""
    if listing.excluded_chars <= room:
        return listing.excluded, None
    return listed_part(listing.excluded, room)[0], len(listing.excluded)


def list_excluded(
    absolute_file_path: str,
    offset: int = 0,
    limit: int | None = None,
    *,
    store: SessionStore | None = None,
    max_tokens: int | None = RESPONSE_TOKENS,
) -> ExcludedListing:
    """The files left out of the chunks, with their reasons, paged like the chunks
    (``list_chunks(..., excluded=True)`` over MCP)."""
    listing = _listing(session(absolute_file_path, store))
    check_page(offset, limit, len(listing.excluded), "excluded files")
    budget = None if max_tokens is None else max_tokens * CHARS_PER_TOKEN
    return excluded_page(listing.excluded, listing.excluded_summary, offset, limit, budget)


def _shortened_entry(entry: ChunkEntry, size: int, room: int) -> tuple[ChunkEntry, int]:
    """A chunk's listing entry (``size`` characters as JSON) whose file lists alone
    exceed a response (thousands of files with long names), with as many files
    as fit and the counts."""
    files = entry.files
    keep = len(files)
    shortened = entry
    while keep > 1 and size > room:
        keep = max(1, min(keep - 1, keep * room // size))
        shortened = ChunkEntry(
            chunk=entry.chunk,
            files=files[:keep],
            file_details=entry.file_details[:keep],
            lines=entry.lines,
            token_count=entry.token_count,
            summary=entry.summary,
            parent_file=entry.parent_file,
            sub_chunk_index=entry.sub_chunk_index,
            oversized=entry.oversized,
            files_total=len(files),
        )
        size = json_size(shortened.to_dict())
    return shortened, size
