"""The parts of a review's chunks, kept in columns: :class:`PartStore`, :class:`ChunkParts`.

Most chunk parts are a whole file section, one span of the buffer: such a part
is kept as the section's position and its line count (16 bytes), and its
:class:`~diffchunk.diff.model.ChunkPart` is built when it is asked for, with
the path and span the :class:`~diffchunk.diff.table.FileTable` holds.  The
others (a part of a file cut across chunks, a file led by its commit's
message) are kept as they are.  A chunk's parts are a range of the store
(:class:`ChunkParts`, a :class:`~diffchunk.diff.lazy.LazySequence` of them).

Rule: a part built again equals the one the chunker made; a part kept as it
is comes back as the same object.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence

from .frozen import fast_constructor
from .lazy import LazySequence
from .model import Chunk, ChunkPart, Piece
from .table import FileTable

__all__ = ["ChunkParts", "FileChunks", "PartStore"]

#: ``ChunkPart(...)`` at half the cost (see :mod:`diffchunk.diff.frozen`).
_new_part: Callable[..., ChunkPart] = fast_constructor(ChunkPart)


class PartStore:
    """Every part of a review's chunks, in chunk order (see the module doc)."""

    __slots__ = ("_file_index", "_kept", "_lines", "files")

    def __init__(self, files: FileTable) -> None:
        self.files = files
        self._file_index = array("q")
        self._lines = array("q")
        self._kept: dict[int, ChunkPart] = {}  # parts other than one whole section

    def add_whole(self, file_index: int, lines: int) -> None:
        """The next part: the whole section ``file_index``, ``lines`` lines."""
        self._file_index.append(file_index)
        self._lines.append(lines)

    def add(self, part: ChunkPart) -> None:
        """The next part, kept as it is."""
        self._kept[len(self._file_index)] = part
        self._file_index.append(part.file_index)
        self._lines.append(part.lines)

    def __len__(self) -> int:
        return len(self._file_index)

    def file_index(self, k: int) -> int:
        return self._file_index[k]

    def lines(self, k: int) -> int:
        return self._lines[k]

    def is_whole(self, k: int) -> bool:
        """Whether part ``k`` is its section's whole span alone."""
        return k not in self._kept

    def pieces(self, k: int) -> tuple[Piece, ...]:
        kept = self._kept.get(k)
        if kept is not None:
            return kept.pieces
        return (self.files.span(self._file_index[k]),)

    def part(self, k: int) -> ChunkPart:
        kept = self._kept.get(k)
        if kept is not None:
            return kept
        i = self._file_index[k]
        return _new_part(i, self.files.path(i), (self.files.span(i),), self._lines[k])

    def chunk(self, lo: int, hi: int) -> ChunkParts:
        """The parts ``lo..hi-1`` (one chunk's)."""
        return ChunkParts(self, lo, hi)


class ChunkParts(LazySequence[ChunkPart]):
    """One chunk's parts: a range of a :class:`PartStore`."""

    ITEM = "chunk part"
    __slots__ = ("hi", "lo", "store")

    def __init__(self, store: PartStore, lo: int, hi: int) -> None:
        self.store = store
        self.lo = lo
        self.hi = hi

    def __len__(self) -> int:
        return self.hi - self.lo

    def _build(self, k: int) -> ChunkPart:
        return self.store.part(self.lo + k)

    def __iter__(self) -> Iterator[ChunkPart]:
        return map(self.store.part, range(self.lo, self.hi))

    def positions(self) -> range:
        """The parts' positions in the store."""
        return range(self.lo, self.hi)

    def __repr__(self) -> str:
        return f"ChunkParts({self.lo}..{self.hi})"


class FileChunks(Mapping[str, tuple[int, ...]]):
    """Path -> the numbers of the chunks holding (a part of) a section of that path, in
    order: a chunk number per section in an array, the few sections in several chunks
    (a file cut into parts) aside.  Iterated in the order the chunks first show each
    path."""

    __slots__ = ("_chunk", "_chunks", "_files", "_more")

    def __init__(self, files: FileTable, chunks: Sequence[Chunk]) -> None:
        self._files = files
        self._chunks = chunks
        self._chunk = array("q", bytes(8 * len(files)))  # 0: in no chunk
        self._more: dict[int, list[int]] = {}  # section -> every chunk holding it
        for chunk in chunks:
            for i in _file_indices(chunk):
                self._add(i, chunk.number)

    def _add(self, i: int, number: int) -> None:
        known = self._chunk[i]
        if not known:
            self._chunk[i] = number
            return
        more = self._more.setdefault(i, [known])
        if more[-1] != number:
            more.append(number)

    def split_sections(self) -> list[int]:
        """The sections that several chunks hold (files cut into parts)."""
        return list(self._more)

    def in_a_chunk(self, i: int) -> bool:
        return bool(self._chunk[i])

    def chunks_of(self, i: int) -> tuple[int, ...]:
        """The chunks holding section ``i``."""
        more = self._more.get(i)
        if more is not None:
            return tuple(more)
        number = self._chunk[i]
        return (number,) if number else ()

    def __getitem__(self, path: str) -> tuple[int, ...]:
        if not isinstance(path, str):
            raise KeyError(path)
        found: set[int] = set()
        for i in self._files.indices_of(path):
            found.update(self.chunks_of(i))
        if not found:
            raise KeyError(path)
        return tuple(sorted(found))

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for chunk in self._chunks:
            for i in _file_indices(chunk):
                path = self._files.path(i)
                if path not in seen:
                    seen.add(path)
                    yield path

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _file_indices(chunk: Chunk) -> Iterator[int]:
    """The sections of a chunk's parts, in order (without building the parts)."""
    parts = chunk.parts
    if isinstance(parts, ChunkParts):
        return map(parts.store.file_index, parts.positions())
    return (p.file_index for p in parts)
