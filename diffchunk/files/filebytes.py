"""The bytes of a large file, read on demand with ``pread`` rather than mapped.

A memory mapping of a file that another program truncates meanwhile (a log
rotated with ``copytruncate``, a file rewritten in place) kills the whole
process with SIGBUS at the next access to a lost page: for the MCP server,
every session at once.  :class:`FileBytes` offers the few ``bytes`` methods
the file tools use on a large file (``len``, indexing and slicing, ``find``,
``rfind``, ``count``), each a bounded ``pread`` of the range it needs; a read
that comes back short says that the file became shorter, as a
:class:`~diffchunk.errors.FileToolError`.
"""

from __future__ import annotations

import weakref
from typing import BinaryIO, overload

from ..fdio import pread_exact

# The most bytes read per step of a search or count.
STEP = 1 << 20
# The first step of a search (most look for the end of a line, a few bytes
# away): each further step doubles, up to STEP.
FIRST_STEP = 1 << 12


class FileBytes:
    """Read-only bytes of an open file, of the size it had when opened.

    Owns the file object: it stays open as long as this object lives.
    """

    __slots__ = ("__weakref__", "_fd", "_file", "_path", "_size")

    def __init__(self, handle: BinaryIO, size: int, path: str) -> None:
        self._file = handle
        self._fd = handle.fileno()
        self._size = size
        self._path = path
        weakref.finalize(self, handle.close)

    def fileno(self) -> int:
        return self._fd

    def close(self) -> None:
        self._file.close()

    def __len__(self) -> int:
        return self._size

    def read(self, start: int, stop: int) -> bytes:
        """``self[start:stop]`` for ``0 <= start <= stop`` (clipped to the size)."""
        stop = min(stop, self._size)
        if stop <= start:
            return b""
        return pread_exact(
            self._fd,
            start,
            stop,
            what=self._path,
            suggestion="Run the tool again to read the new version.",
        )

    @overload
    def __getitem__(self, key: int) -> int: ...

    @overload
    def __getitem__(self, key: slice) -> bytes: ...

    def __getitem__(self, key: int | slice) -> int | bytes:
        if isinstance(key, slice):
            start, stop, step = key.indices(self._size)
            if step == 1:
                return self.read(start, stop)
            if step > 0:
                return self.read(start, stop)[::step]
            return bytes(self[i] for i in range(start, stop, step))
        index = key + self._size if key < 0 else key
        if not 0 <= index < self._size:
            raise IndexError("FileBytes index out of range")
        return self.read(index, index + 1)[0]

    def _bounds(self, start: int | None, end: int | None) -> tuple[int, int]:
        """``start`` and ``end`` made absolute as ``bytes.find`` makes them."""
        size = self._size
        stop = size if end is None or end > size else (max(0, end + size) if end < 0 else end)
        begin = 0 if start is None else (max(0, start + size) if start < 0 else start)
        return begin, stop

    def find(self, sub: bytes, start: int | None = None, end: int | None = None) -> int:
        begin, stop = self._bounds(start, end)
        if stop - begin < len(sub):
            return -1
        if not sub:
            return begin
        overlap = len(sub) - 1
        step = FIRST_STEP
        pos = begin
        while stop - pos >= len(sub):
            block = self.read(pos, min(stop, pos + step + overlap))
            found = block.find(sub)
            if found >= 0:
                return pos + found
            pos += max(1, len(block) - overlap)
            step = min(STEP, step * 2)
        return -1

    def rfind(self, sub: bytes, start: int | None = None, end: int | None = None) -> int:
        begin, stop = self._bounds(start, end)
        if stop - begin < len(sub):
            return -1
        if not sub:
            return stop
        overlap = len(sub) - 1
        step = FIRST_STEP
        hi = stop
        while hi - begin >= len(sub):
            lo = max(begin, hi - step - overlap)
            block = self.read(lo, hi)
            found = block.rfind(sub)
            if found >= 0:
                return lo + found
            hi = lo + overlap
            step = min(STEP, step * 2)
        return -1

    def count(self, sub: bytes, start: int | None = None, end: int | None = None) -> int:
        """Non-overlapping occurrences of a non-empty ``sub``, as ``bytes.count``."""
        if not sub:
            raise ValueError("FileBytes.count needs a non-empty byte string")
        begin, stop = self._bounds(start, end)
        total = 0
        pos = begin
        while stop - pos >= len(sub):
            end_of_block = min(stop, pos + STEP)
            # An occurrence starting in this block may end past it.
            block = self.read(pos, min(stop, end_of_block + len(sub) - 1))
            at = block.find(sub)
            resume = end_of_block
            while 0 <= at < end_of_block - pos:
                total += 1
                resume = max(resume, pos + at + len(sub))
                at = block.find(sub, at + len(sub))
            pos = resume
        return total
