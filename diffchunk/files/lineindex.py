"""Sparse line index: line number <-> byte offset without a per-line object.

Line numbering agrees with ``sed -n 'Np'``: only ``\\n`` ends a line (``\\r\\n``
is one line ending whose ``\\r`` belongs to the line's end, a lone ``\\r`` is
content), and a final line without a newline still counts.  So the line count
is ``wc -l`` plus one when the file does not end with ``\\n``; an empty file has
no lines.

The index stores, for every block of :data:`BLOCK` bytes, the block's byte
offset and the number of newlines before it (two ``array('q')``: 256 KB per GB
of text).  It is built once per file version by ``bytes.count`` over the
reader's line windows (C speed); a lookup is one bisection plus a scan of at
most one block, through the reader (:mod:`.byte_reader`).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator

from .byte_reader import Buffer, LongLine, Step, skip_lines

BLOCK = 64 * 1024
"""Bytes per block of the sparse line index: the longest scan a lookup can
need."""


class LineIndex:
    """Block offsets and newline counts of one file version's content."""

    __slots__ = ("before", "end", "ends_with_newline", "newlines", "offsets", "start")

    def __init__(
        self,
        start: int,
        end: int,
        offsets: array[int],
        before: array[int],
        newlines: int,
        ends_with_newline: bool,
    ) -> None:
        self.start = start
        self.end = end
        self.offsets = offsets
        self.before = before
        self.newlines = newlines
        self.ends_with_newline = ends_with_newline

    @classmethod
    def build(cls, windows: Iterator[Step], start: int, end: int) -> LineIndex:
        """Count newlines block by block over ``windows`` of ``(offset, buffer, length)``
        and long lines (a block entry every :data:`BLOCK` bytes of them too, so a
        lookup inside one reads at most a block).

        The windows must tile ``[start, end)`` in order.
        """
        offsets = array("q")
        before = array("q")
        total = 0
        next_block = start
        last_byte: bytes | bytearray = b""
        for step in windows:
            if isinstance(step, LongLine):
                for absolute in range(max(next_block, step.start), step.stop, BLOCK):
                    offsets.append(absolute)
                    before.append(total)
                    next_block = absolute + BLOCK
                total += step.terminated
                last_byte = b"\n" if step.terminated else b"."
                continue
            base, buf, length = step
            count = buf.count
            pos = 0
            while pos < length:
                absolute = base + pos
                if absolute >= next_block:
                    offsets.append(absolute)
                    before.append(total)
                    next_block = absolute + BLOCK
                stop = min(length, next_block - base)
                total += count(b"\n", pos, stop)
                pos = stop
            if length:
                last_byte = buf[length - 1 : length]
        if not offsets:
            offsets.append(start)
            before.append(0)
        return cls(start, end, offsets, before, total, last_byte == b"\n" or end == start)

    @property
    def line_count(self) -> int:
        """Lines as ``sed`` sees them: newlines, plus a final unterminated line."""
        return self.newlines + (0 if self.ends_with_newline else 1)

    def line_start(self, data: Buffer, line: int) -> int:
        """Byte offset where 1-based ``line`` starts; ``end`` past the last line."""
        if line <= 1:
            return self.start
        if line > self.line_count:
            return self.end
        wanted = line - 1  # newlines before the line
        # Last block that starts with strictly fewer newlines before it.
        i = bisect_right(self.before, wanted - 1) - 1
        block_start = self.offsets[i]
        return skip_lines(data, block_start, wanted - self.before[i], self.end)

    def line_of_offset(self, data: Buffer, offset: int) -> int:
        """1-based line containing byte ``offset``."""
        offset = max(self.start, min(offset, self.end))
        i = bisect_right(self.offsets, offset) - 1
        block_start = self.offsets[i]
        chunk = data[block_start:offset]
        return self.before[i] + chunk.count(b"\n") + 1
