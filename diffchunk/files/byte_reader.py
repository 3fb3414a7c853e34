"""The one reader of a file version's bytes: in memory, or read on demand with ``pread``.

Every file tool reads through a :class:`Reader`, whatever the file's size:
the read-only tools through ``FileVersion.data`` (:mod:`.access`), an edit
through its snapshot (:mod:`.edit_snapshot`).  Callers never ask which kind they
hold; only the few hot paths that run C code over a whole buffer use
:attr:`Reader.memory` when it is there.

Rules and invariants:

- **Two backings, one interface.**  A reader holds either the bytes (small
  files, transcoded UTF-16/32 files, the in-memory copy an edit makes) or an
  open descriptor and the size the file had when it was opened.  A reader
  of a file is never memory-mapped: a mapping of a file that another
  program truncates meanwhile (``logrotate``'s copytruncate) kills the
  process with SIGBUS at the next access, and with it every session of the
  MCP server.
- **Truncation is an error, never a crash.**  A ``pread`` that comes back
  short raises :class:`~diffchunk.errors.FileToolError` ("``what`` became
  shorter while it was being read.").
- **Bounded memory, whatever the line lengths.**  No method holds more than
  one step or window of a descriptor-backed file: ``find``/``rfind``/``count``
  and the line steps read :data:`FIRST_STEP` bytes, doubling up to
  :data:`STEP`; the window walks reuse one buffer, which never grows (a
  one-line file of a gigabyte is one :class:`LongLine`).
- **Three ways to walk.**  Random access (:meth:`Reader.read`, slicing,
  ``find``/``rfind``/``count`` as ``bytes`` has them); *line windows*
  (:meth:`Reader.windows`: every window but the last ends just after a
  ``\\n``, so no line is split: searches and the line index; a line that
  does not fit a window is a :class:`LongLine`, its bounds alone, never
  read whole: whoever walks reads it in pieces); *blocks*
  (:meth:`Reader.blocks`: fixed windows plus an overlap, for needles that
  may hold line breaks: the exact scan of an edit).
- **Lines as ``sed`` sees them.**  Only ``\\n`` ends a line.  The line steps
  (:func:`skip_lines`, :func:`last_lines_start` and the reader's
  :meth:`~Reader.line_start`, :meth:`~Reader.line_end`,
  :meth:`~Reader.ending_at`) have one implementation over a buffer, which a
  reader applies to its bytes or, block by block, to its file.
- ``start`` is where the content begins (after a byte-order mark): a line
  never starts before it.
"""

from __future__ import annotations

import os
import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, TypeAlias, overload

from ..errors import FileToolError
from ..fdio import pread_exact
from ..limits import LINE_WINDOW

STEP = 1 << 20
"""The most bytes read per step of a search, count or line step of a file."""

FIRST_STEP = 1 << 12
"""The first step (most steps look for the end of a line, a few bytes away);
each further step doubles, up to READ_STEP."""

BLOCK = 16 * 1024 * 1024
"""Bytes per block of Reader.blocks (before the overlap): few blocks for a
gigabyte file, one block of memory."""

SKIP_LOOP_LINES = 48
"""Up to this many lines are skipped one find at a time; more with one compiled
pattern (cheaper per line, dearer to start)."""

SKIP_PATTERNS_KEPT = 256
"""Compiled line-skipping patterns kept (one per line count asked)."""


Window: TypeAlias = bytes | bytearray
"""One window of a walk over a file: a reused buffer, or the bytes themselves."""


@dataclass(frozen=True, slots=True)
class LongLine:
    """A line longer than a window, in a walk of line windows: bytes ``[start, stop)``
    (``stop`` just past its ``\\n``, or the end of the walk when it has none)."""

    start: int
    stop: int
    terminated: bool
    """Whether it ends with ``\\n`` (else it is the walk's unterminated last line)."""


Step: TypeAlias = tuple[int, Window, int] | LongLine
"""What a walk of line windows yields: ``(offset, buffer, length)``, or a long line."""

RETRY = "Something else is changing the file; retry when it is idle."
READ_AGAIN = "Run the tool again to read the new version."


class Reader:
    """Read-only bytes of one file version, of the size it had when opened.

    Build one with :meth:`of_bytes`, :meth:`of_file` (which owns the file
    object: it stays open as long as the reader lives) or :meth:`of_fd` (a
    descriptor the caller owns and closes).  :attr:`start` is set once, by
    whoever detects the byte-order mark (:func:`.access.open_version`).
    """

    __slots__ = ("__weakref__", "_closer", "_fd", "_memory", "_size", "start", "suggestion", "what")

    def __init__(
        self, memory: bytes | None, fd: int, size: int, *, start: int, what: str, suggestion: str
    ) -> None:
        self._memory = memory
        self._fd = fd
        self._size = len(memory) if memory is not None else size
        self.start = start
        self.what = what
        self.suggestion = suggestion
        self._closer: weakref.finalize[[], Reader] | None = None

    @classmethod
    def of_bytes(cls, data: bytes, *, start: int = 0) -> Reader:
        """A reader of bytes already in memory."""
        return cls(data, -1, len(data), start=start, what="The file", suggestion=RETRY)

    @classmethod
    def of_file(cls, handle: BinaryIO, size: int, path: str, *, start: int = 0) -> Reader:
        """A reader of the first ``size`` bytes of ``handle``, which it closes when let go."""
        reader = cls(None, handle.fileno(), size, start=start, what=path, suggestion=READ_AGAIN)
        reader._closer = weakref.finalize(reader, handle.close)
        return reader

    @classmethod
    def of_fd(cls, fd: int, size: int, *, start: int = 0) -> Reader:
        """A reader of the first ``size`` bytes of ``fd`` (the caller closes it)."""
        return cls(None, fd, size, start=start, what="The file", suggestion=RETRY)

    @property
    def memory(self) -> bytes | None:
        """The bytes, when they are in memory (for C-speed scans of the whole)."""
        return self._memory

    def fileno(self) -> int:
        """The descriptor read from (``-1`` for bytes in memory)."""
        return self._fd

    def close(self) -> None:
        """Close the file a reader made by :meth:`of_file` owns (else nothing)."""
        if self._closer is not None:
            self._closer()

    def __len__(self) -> int:
        return self._size

    # -- random access ---------------------------------------------------------------

    def read(self, start: int, stop: int) -> bytes:
        """``self[start:stop]``, clipped to ``[0, len)``."""
        start = max(0, start)
        stop = min(stop, self._size)
        if stop <= start:
            return b""
        if self._memory is not None:
            return self._memory[start:stop]
        return pread_exact(self._fd, start, stop, what=self.what, suggestion=self.suggestion)

    @overload
    def __getitem__(self, key: int) -> int: ...

    @overload
    def __getitem__(self, key: slice) -> bytes: ...

    def __getitem__(self, key: int | slice) -> int | bytes:
        if self._memory is not None:
            return self._memory[key]
        if isinstance(key, slice):
            start, stop, step = key.indices(self._size)
            if step == 1:
                return self.read(start, stop)
            if step > 0:
                return self.read(start, stop)[::step]
            return bytes(self[i] for i in range(start, stop, step))
        index = key + self._size if key < 0 else key
        if not 0 <= index < self._size:
            raise IndexError("Reader index out of range")
        return self.read(index, index + 1)[0]

    def _bounds(self, start: int | None, end: int | None) -> tuple[int, int]:
        """``start`` and ``end`` made absolute as ``bytes.find`` makes them."""
        size = self._size
        stop = size if end is None or end > size else (max(0, end + size) if end < 0 else end)
        begin = 0 if start is None else (max(0, start + size) if start < 0 else start)
        return begin, stop

    def find(self, sub: bytes, start: int | None = None, end: int | None = None) -> int:
        if self._memory is not None:
            return self._memory.find(sub, start, end)
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
        if self._memory is not None:
            return self._memory.rfind(sub, start, end)
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
            raise ValueError("Reader.count needs a non-empty byte string")
        if self._memory is not None:
            return self._memory.count(sub, start, end)
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

    # -- walks -------------------------------------------------------------------------

    def windows(
        self, start: int | None = None, end: int | None = None, size: int | None = None
    ) -> Iterator[Step]:
        """Yield ``(offset, buffer, length)`` windows tiling ``[start, end)``
        (default: the content, from :attr:`start` to the end), and a
        :class:`LongLine` in place of each line that does not fit ``size``
        bytes (default :data:`LINE_WINDOW`).

        Every window but the last ends just after a ``\\n``, so no line is
        split between windows; no window is longer than ``size``.  The
        buffer is reused between iterations: copy what must outlive one.
        """
        begin = self.start if start is None else start
        stop = self._size if end is None else end
        size = size or LINE_WINDOW
        if begin >= stop:
            return
        if self._memory is not None:
            yield from _memory_windows(self._memory, begin, stop, size)
        else:
            yield from self._file_windows(begin, stop, size)

    def _long_line(self, start: int, after: int, stop: int) -> LongLine:
        """The long line starting at ``start`` (no ``\\n`` before ``after``)."""
        nl = self.find(b"\n", after, stop)
        return LongLine(start, stop if nl < 0 else nl + 1, nl >= 0)

    def _file_windows(self, begin: int, stop: int, size: int) -> Iterator[Step]:
        buf = bytearray(size)
        pos = begin
        carry = 0  # bytes of an unterminated line kept at the front of buf
        while pos + carry < stop:
            want = min(len(buf) - carry, stop - pos - carry)
            got = self._fill(buf, carry, want, pos + carry, whole=False)
            filled = carry + got
            if pos + filled >= stop:
                yield pos, buf, filled
                return
            nl = buf.rfind(b"\n", 0, filled)
            if nl < 0:
                if filled < len(buf):
                    carry = filled  # a short read: fill the rest of the buffer first
                    continue
                # A line longer than the buffer: its bounds, never the line itself.
                long = self._long_line(pos, pos + filled, stop)
                yield long
                pos, carry = long.stop, 0
                continue
            cut = nl + 1
            yield pos, buf, cut
            rest = filled - cut
            # Keep the partial last line for the next window.
            buf[:rest] = buf[cut:filled]
            pos += cut
            carry = rest

    def blocks(
        self, overlap: int, size: int | None = None
    ) -> Iterator[tuple[int, Window, int, int]]:
        """Yield ``(offset, buffer, body, filled)``: ``buffer[:filled]`` holds the
        bytes at ``offset``; occurrences starting before ``body`` belong to this
        block, the ``overlap`` bytes after it let a needle straddle blocks.

        Bytes in memory are one block (from offset 0, the byte-order mark
        included); a file is read in blocks of ``size`` (default
        :data:`BLOCK`) plus the overlap, into one reused buffer.
        """
        if self._memory is not None:
            yield 0, self._memory, self._size, self._size
            return
        step = size or BLOCK
        buf = bytearray(step + overlap)
        pos = 0
        while pos < self._size:
            want = min(len(buf), self._size - pos)
            self._fill(buf, 0, want, pos, whole=True)
            yield pos, buf, min(step, self._size - pos), want
            pos += step

    def _fill(self, buf: bytearray, at: int, want: int, offset: int, *, whole: bool) -> int:
        """Read up to ``want`` bytes at ``offset`` into ``buf[at:]``; with ``whole``
        all of them.  A file that ends first is an error."""
        view = memoryview(buf)[at : at + want]
        try:
            got = 0
            while got < want:
                done = os.preadv(self._fd, [view[got:]], offset + got)
                if done <= 0:
                    raise FileToolError(
                        f"{self.what} became shorter while it was being read.",
                        suggestion=self.suggestion,
                    )
                got += done
                if not whole:
                    break
        finally:
            view.release()
        return got

    # -- lines -------------------------------------------------------------------------

    def line_start(self, pos: int) -> int:
        """Offset of the start of the line holding ``pos`` (never before :attr:`start`)."""
        return max(self.start, self.rfind(b"\n", self.start, pos) + 1)

    def line_end(self, pos: int) -> int:
        """Offset just past the ``\\n`` ending the line holding ``pos`` (or the size)."""
        nl = self.find(b"\n", pos)
        return self._size if nl < 0 else nl + 1

    def ending_at(self, pos: int) -> bytes | None:
        """Line ending of the line holding ``pos``; ``None`` for an unterminated last line."""
        end = self.line_end(pos)
        if end == self._size and (end == 0 or self.read(end - 1, end) != b"\n"):
            return None
        return b"\r\n" if end - 2 >= 0 and self.read(end - 2, end - 1) == b"\r" else b"\n"

    def skip_lines(self, pos: int, count: int, end: int | None = None) -> int:
        """Offset just after the ``count``-th newline at or after ``pos``; ``end`` if fewer."""
        stop = self._size if end is None else end
        if self._memory is not None:
            return skip_lines(self._memory, pos, count, stop)
        if count <= 0:
            return pos
        # Step through in blocks, counting; the last block locates the newline.
        step = FIRST_STEP
        while pos < stop:
            block = self.read(pos, min(stop, pos + step))
            newlines = block.count(b"\n")
            if newlines >= count:
                return pos + skip_lines(block, 0, count, len(block))
            count -= newlines
            pos += len(block)
            step = min(STEP, step * 2)
        return stop

    def last_lines_start(self, start: int, end: int, count: int) -> int:
        """Offset where the last ``count`` lines of ``self[start:end]`` begin."""
        if self._memory is not None:
            return last_lines_start(self._memory, start, end, count)
        if count <= 0 or end <= start:
            return end
        pos = end
        # A trailing newline ends the last line; it does not start a new one.
        if self.read(end - 1, end) == b"\n":
            pos = end - 1
        # Step back in blocks, counting; the block that holds enough newlines
        # locates the line start.
        step = FIRST_STEP
        while pos > start:
            lo = max(start, pos - step)
            block = self.read(lo, pos)
            newlines = block.count(b"\n")
            if newlines >= count:
                at = len(block)
                for _ in range(count):
                    at = block.rfind(b"\n", 0, at)
                return lo + at + 1
            count -= newlines
            pos = lo
            step = min(STEP, step * 2)
        return start


Buffer: TypeAlias = bytes | bytearray | Reader
"""What the line steps read: bytes or a window in memory, or a reader."""


def _memory_windows(data: bytes, begin: int, stop: int, size: int) -> Iterator[Step]:
    pos = begin
    while pos < stop:
        cut = min(stop, pos + size)
        if cut < stop:
            nl = data.rfind(b"\n", pos, cut)
            if nl < 0:  # a line longer than a window: its bounds, not a copy
                nl = data.find(b"\n", cut, stop)
                yield LongLine(pos, stop if nl < 0 else nl + 1, nl >= 0)
                pos = stop if nl < 0 else nl + 1
                continue
            cut = nl + 1
        if pos == 0 and cut == len(data):
            yield 0, data, cut
        else:
            yield pos, data[pos:cut], cut - pos
        pos = cut


_SKIP_CACHE: dict[int, re.Pattern[bytes]] = {}


def skip_lines(data: Buffer, pos: int, count: int, end: int) -> int:
    """Offset just after the ``count``-th newline at or after ``pos``; ``end`` if fewer."""
    if isinstance(data, Reader):
        return data.skip_lines(pos, count, end)
    if count <= 0:
        return pos
    if count <= SKIP_LOOP_LINES:
        for _ in range(count):
            nl = data.find(b"\n", pos, end)
            if nl < 0:
                return end
            pos = nl + 1
        return pos
    pattern = _SKIP_CACHE.get(count)
    if pattern is None:
        if len(_SKIP_CACHE) > SKIP_PATTERNS_KEPT:
            _SKIP_CACHE.clear()
        pattern = re.compile(b"(?:[^\\n]*\\n){%d}" % count)
        _SKIP_CACHE[count] = pattern
    match = pattern.match(data, pos, end)
    if match is not None:
        return int(match.end())
    # Fewer than ``count`` newlines remain: everything to the end.
    return end


def last_lines_start(data: Buffer, start: int, end: int, count: int) -> int:
    """Offset where the last ``count`` lines of ``data[start:end]`` begin (scans backwards)."""
    if isinstance(data, Reader):
        return data.last_lines_start(start, end, count)
    if count <= 0 or end <= start:
        return end
    pos = end
    # A trailing newline ends the last line; it does not start a new one.
    if data[end - 1 : end] == b"\n":
        pos = end - 1
    for _ in range(count):
        nl = data.rfind(b"\n", start, pos)
        if nl < 0:
            return start
        pos = nl
    return pos + 1
