"""Pack files into chunks: :func:`chunk_files`, and the text of a chunk."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from diffchunk.diff.buffer import DiffData, trimmer
from diffchunk.diff.chunk_parts import PartStore
from diffchunk.diff.model import Chunk, ChunkPart, FileDiff, LookAhead, ParsedDiff
from diffchunk.diff.table import FileView, table_of

from ...limits import CHUNK_DEFAULT_LINES
from .order import (
    MOVES,
    commit_heads,
    copies_first,
    replaced_directories_emptied_first,
    source_changed_before,
)
from .parts import FileSplitter
from .pieces import DEFAULT_MAX_TOKENS, Budget, render_pieces, span_lines, text_size

logger = logging.getLogger(__name__)

__all__ = ["chunk_files", "look_ahead_lines", "render_chunk"]


def chunk_files(
    parsed: ParsedDiff,
    files: Sequence[FileDiff],
    *,
    max_lines: int = CHUNK_DEFAULT_LINES,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> tuple[Chunk, ...]:
    """Chunks holding ``files`` (sections of ``parsed``), in the order given.

    Except copies: one moves right before the first section of its commit
    that changes its source (see the module doc).

    A chunk aims at 80% of ``max_lines`` and of ``max_tokens`` (a token is 4
    bytes) and exceeds 100% only when one unit that cannot be cut (a line, a
    binary payload, a header, a combined-diff hunk) is bigger on its own; such
    a chunk has ``oversized=True``.

    The parts are kept in a :class:`~diffchunk.diff.chunk_parts.PartStore` (a
    whole file as its position and line count).
    """
    budget = Budget.of(max_lines, max_tokens)
    data = parsed.data
    table = table_of(parsed.files, data)
    files = replaced_directories_emptied_first(copies_first(files))
    heads = commit_heads(parsed, files)
    packer = _Packer(data, budget, PartStore(table))
    max_lines, max_bytes = budget.max_lines, budget.max_bytes
    add_whole = packer.add_whole
    span, status, commit, line_count = table.span, table.status, table.commit, table.line_count
    trim = trimmer(data)
    # The sections by position, read from the table's columns: a FileDiff is built
    # only for a file to cut into parts.
    positions: Sequence[int]
    if files is table:
        positions = range(len(table))
    elif isinstance(files, FileView) and files.table is table:
        positions = files.indices
    else:
        positions = [fd.index for fd in files]
    for i in positions:
        start, end = span(i)
        if trim is not None:
            trim(start)
        if (
            commit(i) is not None
            and status(i) in MOVES
            and packer.count
            and source_changed_before(table, packer.file_indices(), i)
        ):
            packer.flush()
        lead = heads.get(i) if heads else None
        lines = line_count(i)
        if lines is None:
            lines = span_lines(data, start, end)
        nbytes = end - start
        if lead is not None:
            lines += span_lines(data, *lead)
            nbytes += lead[1] - lead[0]
        if (lines > max_lines or nbytes > max_bytes) and table.has_hunks(i):
            fd = table[i]
            parts = FileSplitter(parsed, fd, lead, budget).run()
            if len(parts) > 1:
                packer.add_split(fd, parts)
                continue
        if lead is None:
            add_whole(i, lines, nbytes)
        else:
            packer.add(ChunkPart(i, table.path(i), (lead, (start, end)), lines), nbytes)
    return packer.finish()


def render_chunk(parsed: ParsedDiff, chunk: Chunk) -> bytes:
    """The exact text of ``chunk``: its pieces joined."""
    return b"".join(render_pieces(parsed.data, [p for part in chunk.parts for p in part.pieces]))


def look_ahead_lines(parsed: ParsedDiff, chunk: Chunk) -> frozenset[int]:
    """Offsets in :func:`render_chunk`'s text of the lines borrowed as trailing
    context by the pieces of cut hunks (see :class:`~diffchunk.diff.model.LookAhead`)."""
    pieces = [p for part in chunk.parts for p in part.pieces]
    if not any(isinstance(p, LookAhead) for p in pieces):
        return frozenset()
    starts: list[int] = []
    render_pieces(parsed.data, pieces, starts)
    return frozenset(at for at, p in zip(starts, pieces, strict=True) if isinstance(p, LookAhead))


class _Packer:
    """Fills chunks with parts, in order: the current chunk's parts are the store's
    from ``first`` on."""

    def __init__(self, data: DiffData, budget: Budget, store: PartStore) -> None:
        self.data = data
        self.budget = budget
        self.target_lines, self.target_bytes = budget.target_lines, budget.target_bytes
        self.store = store
        self._add_whole = store.add_whole
        self.chunks: list[Chunk] = []
        self.first = 0
        self.count = 0  # parts in the current chunk
        self.lines = 0
        self.nbytes = 0

    def file_indices(self) -> list[int]:
        """The files of the current chunk's parts."""
        return [self.store.file_index(k) for k in range(self.first, len(self.store))]

    def add_whole(self, file_index: int, lines: int, nbytes: int) -> None:
        """A whole file section, ``lines`` lines and ``nbytes`` bytes of text (the hot
        path: one call per file)."""
        if self.count and (
            self.lines + lines > self.target_lines or self.nbytes + nbytes > self.target_bytes
        ):
            self.flush()
        self.lines += lines
        self.nbytes += nbytes
        self.count += 1
        self._add_whole(file_index, lines)

    def add(self, part: ChunkPart, nbytes: int) -> None:
        if self.count and (
            self.lines + part.lines > self.target_lines or self.nbytes + nbytes > self.target_bytes
        ):
            self.flush()
        self.lines += part.lines
        self.nbytes += nbytes
        self.count += 1
        self.store.add(part)

    def add_split(self, fd: FileDiff, parts: Sequence[ChunkPart]) -> None:
        self.flush()
        for part in parts:
            self.store.add(part)
            self.count += 1
            self.flush(parent_file=fd.path, sub_chunk_index=part.part)

    def flush(self, parent_file: str | None = None, sub_chunk_index: int | None = None) -> None:
        store, lo, hi = self.store, self.first, len(self.store)
        if lo == hi:
            return
        pieces = [p for k in range(lo, hi) for p in store.pieces(k)]
        size = text_size(self.data, pieces)
        lines = sum(store.lines(k) for k in range(lo, hi))
        self.chunks.append(
            Chunk(
                number=len(self.chunks) + 1,
                parts=store.chunk(lo, hi),
                line_count=lines,
                char_count=size,
                parent_file=parent_file,
                sub_chunk_index=sub_chunk_index,
                oversized=lines > self.budget.max_lines or size > self.budget.max_bytes,
            )
        )
        self.first = hi
        self.count = 0
        self.lines = 0
        self.nbytes = 0

    def finish(self) -> tuple[Chunk, ...]:
        self.flush()
        return tuple(self.chunks)
