"""Pack files into chunks: :func:`chunk_files`, and the text of a chunk."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from diffchunk.diff.buffer import DiffData, trimmer
from diffchunk.diff.frozen import fast_constructor
from diffchunk.diff.model import Chunk, ChunkPart, FileDiff, LookAhead, ParsedDiff

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

# ``ChunkPart(...)`` at half the cost: one is made per file of the diff (see
# diffchunk.diff.frozen).
_new_part: Callable[..., ChunkPart] = fast_constructor(ChunkPart)


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
    """
    budget = Budget.of(max_lines, max_tokens)
    data = parsed.data
    files = replaced_directories_emptied_first(copies_first(files))
    heads = commit_heads(parsed, files)
    packer = _Packer(data, budget)
    max_lines, max_bytes = budget.max_lines, budget.max_bytes
    add_whole = packer.add_whole
    trim = trimmer(data)
    for fd in files:
        if trim is not None:
            trim(fd.start)
        if (
            fd.commit is not None
            and fd.status in MOVES
            and packer.parts
            and source_changed_before(parsed, packer.parts, fd)
        ):
            packer.flush()
        lead = heads.get(fd.index) if heads else None
        lines = fd.line_count
        if lines is None:
            lines = span_lines(data, fd.start, fd.end)
        nbytes = fd.end - fd.start
        if lead is not None:
            lines += span_lines(data, *lead)
            nbytes += lead[1] - lead[0]
        if (lines > max_lines or nbytes > max_bytes) and fd.hunks:
            parts = FileSplitter(parsed, fd, lead, budget).run()
            if len(parts) > 1:
                packer.add_split(fd, parts)
                continue
        span = (fd.start, fd.end)
        pieces = (span,) if lead is None else (lead, span)
        add_whole(_new_part(fd.index, fd.path, pieces, lines), nbytes)
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
    def __init__(self, data: DiffData, budget: Budget) -> None:
        self.data = data
        self.budget = budget
        self.chunks: list[Chunk] = []
        self.parts: list[ChunkPart] = []
        self.lines = 0
        self.nbytes = 0

    def add_whole(self, part: ChunkPart, nbytes: int) -> None:
        b = self.budget
        if self.parts and (
            self.lines + part.lines > b.target_lines or self.nbytes + nbytes > b.target_bytes
        ):
            self.flush()
        self.parts.append(part)
        self.lines += part.lines
        self.nbytes += nbytes

    def add_split(self, fd: FileDiff, parts: Sequence[ChunkPart]) -> None:
        self.flush()
        for part in parts:
            self.parts.append(part)
            self.flush(parent_file=fd.path, sub_chunk_index=part.part)

    def flush(self, parent_file: str | None = None, sub_chunk_index: int | None = None) -> None:
        if not self.parts:
            return
        pieces = [p for part in self.parts for p in part.pieces]
        size = text_size(self.data, pieces)
        lines = sum(part.lines for part in self.parts)
        self.chunks.append(
            Chunk(
                number=len(self.chunks) + 1,
                parts=tuple(self.parts),
                line_count=lines,
                char_count=size,
                parent_file=parent_file,
                sub_chunk_index=sub_chunk_index,
                oversized=lines > self.budget.max_lines or size > self.budget.max_bytes,
            )
        )
        self.parts = []
        self.lines = 0
        self.nbytes = 0

    def finish(self) -> tuple[Chunk, ...]:
        self.flush()
        return tuple(self.chunks)
