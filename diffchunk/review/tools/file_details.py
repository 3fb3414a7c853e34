"""What a listing says of each file of a chunk: its kind of change and its +/- lines.

``status`` is always there (``added``, ``deleted``, ``modified``, ``renamed``,
``copied``, ``mode``, ``binary``: :func:`~diffchunk.diff.model.change_status`);
``added`` and ``removed`` count the file's ``+`` and ``-`` lines *in that
chunk*: a whole section's counts come from the parser, the part of a file
cut across chunks is counted in its own text (its lines after its first
``@@`` header that start with ``+`` or ``-``).  The changed symbols are
added by :mod:`diffchunk.review.tools.symbols`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...diff.model import ChunkPart, FileStatus, change_status
from ...diff.pipeline import Review
from ...diff.table import table_of
from ..results import FileDetail

if TYPE_CHECKING:
    from .symbols import FileSymbols

_FIRST_HUNK = re.compile(rb"^@@", re.MULTILINE)
_ADDED = re.compile(rb"^\+", re.MULTILINE)
_REMOVED = re.compile(rb"^-", re.MULTILINE)


def part_text(review: Review, part: ChunkPart) -> bytes:
    """The diff text of one chunk part (its pieces joined)."""
    data = review.parsed.data
    return b"".join(
        piece if isinstance(piece, bytes) else data[piece[0] : piece[1]] for piece in part.pieces
    )


def part_counts(review: Review, part: ChunkPart) -> tuple[int, int]:
    """``(added, removed)`` lines of one chunk part (see the module docstring)."""
    if part.parts is None:
        return table_of(review.parsed.files, review.parsed.data).counts(part.file_index)
    text = part_text(review, part)
    first = _FIRST_HUNK.search(text)
    if first is None:
        return 0, 0
    body = text[first.start() :]
    return len(_ADDED.findall(body)), len(_REMOVED.findall(body))


def file_detail(
    review: Review,
    file_index: int,
    path: str,
    lines: int,
    added: int,
    removed: int,
    symbols: FileSymbols | None = None,
) -> FileDetail:
    """The listing's detail of one file of a chunk (``symbols``: those of its share of
    the chunk, when computed)."""
    listed, more = symbols.listed() if symbols is not None else ((), 0)
    fd = review.parsed.files[file_index]
    renamed = fd.status in (FileStatus.RENAMED, FileStatus.COPIED) and bool(fd.old_path)
    return FileDetail(
        path=path,
        lines=lines,
        status=change_status(fd),
        renamed_from=fd.old_path if renamed else None,
        binary=fd.is_binary,
        metadata_only=fd.metadata_only,
        binary_by_attributes=path in review.binary_by_attributes,
        added=added,
        removed=removed,
        symbols=listed,
        symbols_more=more,
        symbols_from=symbols.source if symbols is not None and listed else None,
    )
