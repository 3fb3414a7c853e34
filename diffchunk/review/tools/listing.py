"""``list_chunks``: each chunk's files, lines and tokens, paged to fit a response.

A page only builds the entries it shows (a listing of a large diff is never
built whole by one call), and the entries and their JSON sizes are kept with
the session for the next page.  A page holds about :data:`PAGE_TOKENS`
tokens; the excluded files are summarised (by reason and top directory) on
every page and listed on the first page only as far as
:data:`~diffchunk.review.sessions.excluded.LISTED_CHARS` (``list_excluded`` pages them
all).  Token figures are those of ``get_chunk``'s text in the format asked
for (the raw text's by default; another format's are counted by formatting
the chunks of the page, and all of them for the total).  The files' changed
symbols are computed for a page's files at once, when the page is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ...diff.formatter import format_chunk, normalize_format
from ...diff.model import Chunk
from ...diff.pipeline import Review
from ...files.answer_size import json_size
from ..answers import CHARS_PER_TOKEN, PART_BYTES, RESPONSE_TOKENS, part_spans, shortened
from ..paging import check_page, fill_page
from ..results import ChunkEntry, ChunkListing, ExcludedFile
from ..sessions.excluded import LISTED_CHARS, ExcludedListing, excluded_page, listed_part, summarise
from ..sessions.loading import ExcludedView, session
from ..sessions.store import Session, SessionStore
from .file_details import file_detail, part_counts, part_text
from .lean_partners import partners

if TYPE_CHECKING:  # the symbols are computed for pages of the MCP listing only
    from .symbols import FileSymbols

PAGE_TOKENS = 6_000
"""A page of list_chunks: small enough to read whole (about 24,000
characters), so that a model reads a listing before it asks for chunks."""


__all__ = ["CHARS_PER_TOKEN", "PAGE_TOKENS", "RESPONSE_TOKENS", "list_chunks", "list_excluded"]


def chunk_tokens(loaded: Session, number: int, fmt: str) -> int:
    """Tokens of chunk ``number``'s text as get_chunk returns it in ``fmt`` (its banner
    aside): the whole raw text (served in parts when it is larger than one answer),
    or the view, shortened when it is larger than one answer."""
    review = loaded.review
    if fmt == "raw":
        return review.chunk(number).token_count
    raw = review.chunk_bytes(number)
    if fmt == "lean":
        from ...diff.lean import render_lean  # on first use: most listings are raw

        text = render_lean(raw, partners=partners(loaded)).text
    else:
        text = format_chunk(raw, fmt, review.look_ahead(number))
    if len(text) > RESPONSE_TOKENS * CHARS_PER_TOKEN:
        text = shortened(text)[0]
    return len(text) // CHARS_PER_TOKEN


def raw_parts(review: Review, chunk: Chunk) -> int | None:
    """How many answers chunk's raw text comes in, when more than one."""
    if chunk.char_count <= PART_BYTES:
        return None
    return len(part_spans(review.chunk_bytes(chunk.number)))


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
    loaded: Session,
    chunk: Chunk,
    fmt: str = "raw",
    symbols: Mapping[int, FileSymbols] | None = None,
    token_count: int | None = None,
) -> ChunkEntry:
    """The list_chunks entry of one chunk (a file's parts in the chunk are one detail):
    its token count is that of the chunk's text in ``fmt`` (``token_count`` when it is
    known already); ``symbols``: the changed definitions of its files by file index,
    when computed."""
    review = loaded.review
    if symbols:
        from .symbols import for_part, merged
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
        token_count=(
            token_count if token_count is not None else chunk_tokens(loaded, chunk.number, fmt)
        ),
        summary=_summary(chunk),
        parent_file=chunk.parent_file,
        sub_chunk_index=chunk.sub_chunk_index if chunk.parent_file is not None else None,
        oversized=chunk.oversized,
        parts=raw_parts(review, chunk),
    )


class _Listing:
    """list_chunks entries (their tokens counted in ``fmt``) and their JSON sizes, built
    on demand and kept."""

    def __init__(self, loaded: Session, fmt: str = "raw") -> None:
        review = loaded.review
        self._loaded = loaded
        self._review = review
        self.format = fmt
        self._entries: list[ChunkEntry | None] = [None] * len(review.chunks)
        self._sizes: list[int] = [-1] * len(review.chunks)
        self._total_tokens = -1
        self.excluded = ExcludedView(review)
        self.excluded_summary = summarise(self.excluded)
        self._excluded_chars = -1
        self._symbolled: set[int] = set()  # entries that carry their symbols

    @property
    def total_tokens(self) -> int:
        """Tokens of every chunk's text in the listing's format."""
        if self._total_tokens < 0:
            if self.format == "raw":
                self._total_tokens = sum(c.token_count for c in self._review.chunks)
            else:
                self._total_tokens = sum(e.token_count for e in map(self.entry, range(len(self))))
        return self._total_tokens

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def excluded_chars(self) -> int:
        """The length of the JSON text of :attr:`excluded` (measured for paging only)."""
        if self._excluded_chars < 0:
            # The JSON list's length, its entries measured one at a time.
            count = chars = 0
            for ex in self.excluded:
                chars += json_size(ex.to_dict())
                count += 1
            self._excluded_chars = 2 + chars + max(count - 1, 0)
        return self._excluded_chars

    def entry(self, i: int) -> ChunkEntry:
        """The entry of chunk index ``i`` (0-based)."""
        entry = self._entries[i]
        if entry is None:
            # Two threads may both build it; either result is the same.
            entry = chunk_entry(self._loaded, self._review.chunks[i], self.format)
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
        from .symbols import compute as compute_symbols

        chunks = [self._review.chunks[i] for i in todo]
        found = compute_symbols(loaded, [p.file_index for c in chunks for p in c.parts])
        for i, chunk in zip(todo, chunks, strict=True):
            # Its tokens as counted already: a lean or annotated text is not made again.
            tokens = self.entry(i).token_count
            entry = chunk_entry(self._loaded, chunk, self.format, found, tokens)
            # The size first: a reader between the two sees a size too large, never
            # too small (its page may end early, never overrun).
            self._sizes[i] = json_size(entry.to_dict())
            self._entries[i] = entry
            self._symbolled.add(i)
        return True


def _listing(loaded: Session, fmt: str = "raw") -> _Listing:
    """The session's listing in ``fmt`` (created once per session and format)."""
    key = "listing" if fmt == "raw" else f"listing:{fmt}"
    cached = loaded.cache.get(key)
    if cached is None:
        cached = _Listing(loaded, fmt)
        loaded.cache[key] = cached
    assert isinstance(cached, _Listing)
    return cached


def list_chunks(
    absolute_file_path: str,
    offset: int = 0,
    limit: int | None = None,
    format: str = "raw",
    *,
    store: SessionStore | None = None,
    max_tokens: int | None = PAGE_TOKENS,
) -> ChunkListing:
    """Chunk metadata (files, lines, tokens, summaries, changed symbols) and what was
    excluded.

    The listing pages when it would exceed ``max_tokens``: the result then
    carries ``next_offset`` (pass it as ``offset``).  ``max_tokens=None``
    returns everything (the CLI's ``--json``; no symbols there, which would
    mean outlining every file).  Token figures count the chunks' text in
    ``format`` (see the module doc).
    """
    fmt = normalize_format(format)
    loaded = session(absolute_file_path, store)
    listing = _listing(loaded, fmt)
    total = len(listing)
    check_page(offset, limit, total, "chunks")
    end = total if limit is None else min(total, offset + limit)
    summary = listing.excluded_summary
    if max_tokens is None:
        chunks = tuple(listing.entry(i) for i in range(offset, end))
        return ChunkListing(
            chunks,
            listing.total_tokens,
            total,
            tuple(listing.excluded),
            format=fmt,
            excluded_summary=summary,
        )

    budget = max_tokens * CHARS_PER_TOKEN
    if offset == 0:
        excluded, excluded_total = _excluded_part(listing, min(budget // 2, LISTED_CHARS))
    else:  # listed on the first page; later pages give their number
        excluded, excluded_total = (), (len(listing.excluded) or None)
    head = ChunkListing(
        (),
        listing.total_tokens,
        total,
        excluded,
        excluded_total,
        format=fmt,
        excluded_summary=summary,
    )
    used = json_size(head.to_dict()) + 24  # room for next_offset
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
        format=fmt,
        excluded_summary=summary,
    )


def _page(
    listing: _Listing, offset: int, end: int, used: int, budget: int
) -> tuple[list[ChunkEntry], int]:
    """The entries from ``offset`` that fit in ``budget`` characters (``used`` taken by
    the rest of the page, entries in compact JSON), and the index after the last one."""
    return fill_page(
        listing.sized_entry, offset, end, budget, used=used, shorten=_shortened_entry, separator=1
    )


def _excluded_part(listing: _Listing, room: int) -> tuple[tuple[ExcludedFile, ...], int | None]:
    """The excluded files that fit in ``room`` characters, and their total when cut."""
    if listing.excluded_chars <= room:
        return tuple(listing.excluded), None
    return listed_part(listing.excluded, room)[0], len(listing.excluded)


def list_excluded(
    absolute_file_path: str,
    offset: int = 0,
    limit: int | None = None,
    *,
    store: SessionStore | None = None,
    max_tokens: int | None = PAGE_TOKENS,
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
    shortened_entry = entry
    while keep > 1 and size > room:
        keep = max(1, min(keep - 1, keep * room // size))
        shortened_entry = ChunkEntry(
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
            parts=entry.parts,
        )
        size = json_size(shortened_entry.to_dict())
    return shortened_entry, size
