"""Parse a diff while it arrives: :class:`StreamParser`."""

from __future__ import annotations

import logging

from diffchunk.diff import syntax as sx
from diffchunk.diff.buffer import DiffBuffer, DiffData, map_file
from diffchunk.diff.model import FileDiff, ParsedDiff
from diffchunk.diff.table import FileTable
from diffchunk.fdio import pread_exact

from .reader import SectionKind, SectionReader

PARSE_MIN_STEP = 1 << 20
"""Bytes of complete sections that make a step of the streaming parse by
default (a range review passes GIT_STREAM_BLOCK): a step's setup is paid per
step, not per section."""


logger = logging.getLogger(__name__)

__all__ = ["StreamParser"]

_GIT_LINE = b"\n" + sx.GIT_HEADER
# Section kinds read while the input still grows (others wait for finish()).
_STREAMED_KINDS: frozenset[SectionKind] = frozenset({"git", "cc", "commit"})


class StreamParser:
    """Parse a diff while it arrives: ``feed(block)`` repeatedly, then ``finish()``.

    ``finish()`` returns exactly what :func:`~.reader.parse_diff` returns for
    the concatenated blocks.  Sections are read as soon as they are known to
    be complete: everything before the last ``diff --git`` line received so
    far.  The :class:`~.reader.SectionReader` that :func:`parse_diff` uses
    reads the bytes received so far (in place) with its end of input set at
    that ``diff --git`` line, where every section grammar stops anyway.  A
    section that reaches past that line, looks malformed, fails, or is of a
    kind other than ``diff --git``, ``diff --cc`` or a ``git log`` commit, is
    rolled back and left (with everything after it) to ``finish()``, which
    reads the rest over the whole input.

    Its state, besides the reader:

    - the input so far: ``_buf`` (the blocks, appended), or, with ``growing``
      (the descriptor of the file the blocks are written to, from its
      start), ``_size`` bytes of that file, read through ``_view``, a
      mapping made anew at each step: nothing of the input is held in
      memory.  ``_tail`` keeps the last bytes fed, as a ``diff --git`` line
      may span two blocks;
    - ``_pos``: where the reader stopped (the sections before it are done);
      ``_cut``: the start of the last ``diff --git`` line seen; ``_scan``:
      where the search for the next one resumes;
    - ``_stalled``: a section was left to ``finish()``, so nothing more is
      read before it.
    """

    def __init__(self, *, min_step: int = PARSE_MIN_STEP, growing: int | None = None) -> None:
        self._growing = growing
        self._size = 0
        self._view: DiffBuffer | None = None
        self._tail = b""
        self._buf = bytearray()
        self._reader = SectionReader(b"")
        self._pos = 0
        self._scan = 0
        self._cut = 0
        self._min_step = min_step  # bytes of complete sections worth a step of reading
        self._stalled = False
        self.streamed = 0  # bytes parsed before finish() (for tests and logs)

    @property
    def size(self) -> int:
        return self._size if self._growing is not None else len(self._buf)

    @property
    def buffer(self) -> DiffData | bytearray:
        """Everything parsed so far, in place: the sections of :meth:`files_since` are in
        it at their offsets (read it, never keep it or a view of it across :meth:`feed`)."""
        if self._growing is not None:
            return self._view if self._view is not None else b""
        return self._buf

    @property
    def table(self) -> FileTable:
        """The table the file sections go to (the parse's ``files`` in the end)."""
        return self._reader.files

    @property
    def file_count(self) -> int:
        """File sections parsed so far."""
        return len(self._reader.files)

    def files_since(self, start: int) -> list[FileDiff]:
        """The file sections parsed so far from index ``start`` on (a later one may replace
        the last of them: use them for early work such as prefetching, not as the result;
        their hunks read :attr:`buffer` as it is now)."""
        files = self._reader.files
        files.rebind(self.buffer)
        try:
            return files[start:]
        finally:
            files.rebind(b"")

    def feed(self, block: bytes) -> None:
        """Append ``block`` and parse the sections now complete."""
        if self._growing is not None:
            self._feed_growing(block)
            return
        buf = self._buf
        try:
            buf += block
        except BufferError:  # something still views the buffer: grow a copy
            self._buf = buf = bytearray(buf)
            buf += block
        if self._stalled:
            return
        at = buf.rfind(_GIT_LINE, self._scan)
        self._scan = max(0, len(buf) - len(_GIT_LINE) + 1)
        if at >= 0:
            self._cut = at + 1
        if self._cut - self._pos >= self._min_step:
            self._advance(buf, self._cut)

    def _feed_growing(self, block: bytes) -> None:
        start = self._size - len(self._tail)
        self._size += len(block)
        if self._stalled:
            return
        seen = self._tail + block
        at = seen.rfind(_GIT_LINE)
        self._tail = seen[-(len(_GIT_LINE) - 1) :]
        if at >= 0:
            self._cut = start + at + 1
        if self._cut - self._pos >= self._min_step:
            self._advance(self._remap(), self._cut)

    def _remap(self) -> DiffBuffer | bytearray:
        """A mapping of the growing file as far as fed (the files parsed keep offsets
        only: finish() gives them the final buffer)."""
        assert self._growing is not None
        try:
            view = map_file(self._growing, self._size, "")
        except (OSError, ValueError) as exc:  # no mappings here: hold a copy after all
            logger.debug("growing file not mapped (%s): parsing a copy", exc)
            self._buf = bytearray(pread_exact(self._growing, 0, self._size))
            self._growing = None
            return self._buf
        self._view = view
        return view

    def _advance(self, data: bytearray | DiffBuffer, limit: int) -> None:
        """Read the sections of ``data`` that end before ``limit`` (see the class doc)."""
        reader = self._reader
        # The reader reads the buffer in place (no copy per step); what it keeps
        # from it is bytes or offsets, read from the buffer given in finish().
        reader.view(data, limit)
        pos = self._pos
        try:
            while pos < limit:
                start, kind = reader.next_section(pos)
                if kind is None or start >= limit:
                    break
                if kind not in _STREAMED_KINDS:
                    self._stalled = True
                    break
                mark = reader.checkpoint()
                try:
                    end = reader.read_section(start, kind)
                except Exception:  # left to finish(), which reads as parse_diff does
                    logger.debug("streamed parse stopped at %d", start, exc_info=True)
                    end = -1
                if end < 0 or end > limit or reader.malformed_since(mark):
                    reader.rollback(mark)
                    self._stalled = True
                    break
                pos = end
        finally:
            reader.view(b"", 0)  # nothing may keep the partial input alive past finish()
        self.streamed = pos
        self._pos = pos

    def finish(self, whole: DiffBuffer | None = None) -> ParsedDiff:
        """The parse of everything fed (raises :class:`NotADiffError` as :func:`parse_diff`).

        ``whole``: the same bytes, mapped from the file they were read from;
        the parse then refers to it instead of a copy of what was fed (or,
        for a parser of a ``growing`` file, instead of the file read anew).
        """
        data: DiffData
        if whole is not None:
            data = whole
        elif self._growing is not None:
            data = pread_exact(self._growing, 0, self._size)
        else:
            data = bytes(self._buf)
        self._view = None
        if len(data) != self.size:
            raise ValueError("StreamParser.finish: the mapped file is not what was fed")
        self._buf = bytearray()
        reader = self._reader
        reader.view(data, len(data))  # the files' hunks and tokens read it from now on
        return reader.read_to_end(self._pos)
