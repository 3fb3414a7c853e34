"""``list_chunks``: each chunk's files, lines and tokens, paged to fit a response.

A page only builds the entries it shows (a listing of a large diff is never
built whole by one call), and the entries and their JSON sizes are kept with
the session for the next page.
"""

from __future__ import annotations

import json
from typing import Any

from ..diff.model import Chunk, FileStatus
from ..diff.pipeline import Review
from .loading import excluded_file, session
from .paging import check_page, fill_page
from .results import ChunkEntry, ChunkListing, ExcludedFile, FileDetail
from .sessions import Session, SessionStore

# A response should stay under about 20k tokens (token ~ 4 characters).
RESPONSE_TOKENS = 20_000
CHARS_PER_TOKEN = 4


def json_size(value: Any) -> int:
    """The length of ``value`` as the JSON text a tool returns."""
    return len(json.dumps(value, ensure_ascii=False))


def _file_detail(review: Review, file_index: int, path: str, lines: int) -> FileDetail:
    fd = review.parsed.files[file_index]
    renamed = fd.status in (FileStatus.RENAMED, FileStatus.COPIED) and bool(fd.old_path)
    return FileDetail(
        path=path,
        lines=lines,
        status=None if fd.status is FileStatus.MODIFIED else fd.status.value,
        renamed_from=fd.old_path if renamed else None,
        binary=fd.is_binary,
        metadata_only=fd.metadata_only,
        binary_by_attributes=path in review.binary_by_attributes,
    )


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


def chunk_entry(review: Review, chunk: Chunk) -> ChunkEntry:
    """The list_chunks entry of one chunk (a file's parts in the chunk are one detail)."""
    order: list[str] = []
    parts: dict[str, tuple[int, int]] = {}  # path -> (file index, lines)
    for part in chunk.parts:
        seen = parts.get(part.path)
        if seen is None:
            order.append(part.path)
            parts[part.path] = (part.file_index, part.lines)
        else:
            parts[part.path] = (seen[0], seen[1] + part.lines)
    details = tuple(_file_detail(review, parts[path][0], path, parts[path][1]) for path in order)
    return ChunkEntry(
        chunk=chunk.number,
        files=tuple(chunk.files),
        file_details=details,
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
        self._excluded_chars = -1

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


def _listing(loaded: Session) -> _Listing:
    """The session's listing (created once per session)."""
    cached = loaded.cache.get("listing")
    if cached is None:
        cached = _Listing(loaded.review)
        loaded.cache["listing"] = cached
    assert isinstance(cached, _Listing)
    return cached


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
    listing = _listing(session(absolute_file_path, store))
    total = len(listing)
    check_page(offset, limit, total, "chunks")
    end = total if limit is None else min(total, offset + limit)
    if max_tokens is None:
        chunks = tuple(listing.entry(i) for i in range(offset, end))
        return ChunkListing(chunks, listing.total_tokens, total, listing.excluded)

    budget = max_tokens * CHARS_PER_TOKEN
    excluded, excluded_total = _excluded_part(listing, budget // 2)
    head = ChunkListing((), listing.total_tokens, total, excluded, excluded_total)
    used = json_size(head.to_dict()) + 64  # room for next_offset
    page, stop = fill_page(
        listing.sized_entry, offset, end, budget, used=used, shorten=_shortened_entry
    )
    return ChunkListing(
        tuple(page),
        listing.total_tokens,
        total,
        excluded,
        excluded_total,
        next_offset=stop if stop < total else None,
    )


def _excluded_part(listing: _Listing, room: int) -> tuple[tuple[ExcludedFile, ...], int | None]:
    """The excluded files that fit in ``room`` characters, and their total when cut."""
    if listing.excluded_chars <= room:
        return listing.excluded, None
    kept: list[ExcludedFile] = []
    used = 0
    for item in listing.excluded:
        size = json_size(item.to_dict()) + 2
        if used + size > room:
            break
        kept.append(item)
        used += size
    return tuple(kept), len(listing.excluded)


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
