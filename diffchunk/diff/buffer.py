"""A large diff's content, mapped from a private copy on disk instead of held in memory.

The diff engine reads its input through offsets into one buffer (see
:mod:`diffchunk.diff.model`).  For a diff file of a few megabytes that buffer is
a ``bytes``.  A larger one is copied into an unnamed temporary file of the
cache directory (and hashed there by a thread), and the engine reads a
read-only mapping of that copy: a :class:`DiffBuffer`.  Its pages come from
the page cache and go back to it (:meth:`DiffBuffer.trim`,
:meth:`DiffBuffer.release`), so a loaded 2 GB diff does not need 2 GB of the
process's memory.

Why a copy rather than the file itself: a mapped file that someone truncates
(``git diff > review.diff`` run again) kills the process that touches the lost
pages with SIGBUS, and its content would change under a loaded review.  The
copy has no name (``O_TMPFILE`` where the system has it): nobody else can
write it, and it disappears with the mapping.

:class:`DiffBuffer` answers the ``bytes`` methods the engine uses (``find``,
``rfind``, ``count``, ``startswith``, ``endswith``, slicing, indexing, the
buffer protocol for regular expressions); :data:`DiffData` names either.
"""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Callable
from typing import TypeAlias

from .. import settings
from ..fdio import BackgroundHash, copy_range

TRIM_STEP = 4 << 20
"""Pages touched by a pass over a mapped diff go back after this much progress:
often enough that a pass keeps a few MiB resident, rarely enough that the
madvise calls do not show in the load time."""

BUFFER_COMPARE_BLOCK = 1 << 20
"""Block of the comparisons over a diff buffer: one block is copied at a time."""

_COUNT_BLOCK = 1 << 20
"""Block of the line counts over a diff buffer: one block is copied at a time."""

BUFFER_HASH_BLOCK = 1 << 20
"""Block a mapped diff's hashing thread holds: small, so that the load's peak
stays low."""


def map_threshold() -> int:
    """Size from which a diff file is mapped (``$DIFFCHUNK_MAP_BYTES``, else 8 MiB)."""
    return settings.count("DIFFCHUNK_MAP_BYTES")


def _self_overlapping(sub: bytes) -> bool:
    """True when two occurrences of ``sub`` can overlap (a proper suffix is a prefix)."""
    return any(sub.endswith(sub[:k]) for k in range(1, len(sub)))


class DiffBuffer(mmap.mmap):
    """A read-only mapping of a diff file (see the module doc); make one with
    :func:`map_copy` or :func:`map_file`."""

    _mark: int = 0  # where the current pass was when pages last went back
    trim_step: int = TRIM_STEP  # see trim()
    _digest: str = ""
    _hashing: BackgroundHash | None = None

    @property
    def digest(self) -> str:
        """sha256 hex of the content ("" when nobody needed it); waits for the
        thread that reads the file to compute it, and raises its ``OSError``."""
        if self._hashing is not None:
            self._digest = self._hashing.result()
            self._hashing = None
        return self._digest

    def stop_digest(self) -> None:
        """Stop the hashing thread (nobody asks for the digest any more)."""
        hashing, self._hashing = self._hashing, None
        if hashing is not None:
            hashing.cancel()
            with contextlib.suppress(Exception):
                hashing.result()  # the thread has ended

    # -- bytes methods the engine uses that mmap lacks or answers differently -------

    def count(self, sub: bytes, start: int = 0, end: int | None = None) -> int:
        """``bytes.count``: non-overlapping occurrences of ``sub`` in ``[start:end]``.

        Counted a block at a time, so that a long range is never copied whole.
        """
        if not sub:  # the answer depends on the length alone
            return bytes(len(self)).count(sub, start, end)
        if end is None or end > len(self):
            end = len(self)
        if start >= 0 and end - start <= _COUNT_BLOCK:
            return self[start:end].count(sub)  # one copy of a short range
        start, end, _ = slice(start, end).indices(len(self))
        if end <= start or _self_overlapping(sub):
            with memoryview(self) as view:
                return bytes(view[start:end]).count(sub)
        reach = len(sub) - 1  # a match starting in a block may end in the next
        total = 0
        with memoryview(self) as view:
            for lo in range(start, end, _COUNT_BLOCK):
                hi = min(lo + _COUNT_BLOCK, end)
                total += bytes(view[lo : min(hi + reach, end)]).count(sub)
        return total

    def startswith(self, prefix: bytes, start: int = 0) -> bool:
        if start < 0:
            start = max(0, len(self) + start)
        return self[start : start + len(prefix)] == prefix

    def endswith(self, suffix: bytes) -> bool:
        n = len(self)
        return len(suffix) <= n and self[n - len(suffix) :] == suffix

    def __contains__(self, sub: object) -> bool:
        # mmap's own ``in`` takes one byte only and answers False for a longer one.
        if isinstance(sub, int):
            return self.find(bytes([sub])) >= 0
        if not isinstance(sub, (bytes, bytearray, memoryview)):
            raise TypeError(f"a bytes-like object is required, not {type(sub).__name__!r}")
        return self.find(bytes(sub)) >= 0

    def decode(self, encoding: str = "utf-8", errors: str = "strict") -> str:
        return self[:].decode(encoding, errors)

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if isinstance(other, (bytes, bytearray, DiffBuffer)):
            return len(other) == len(self) and _same_content(self, other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    # -- memory ------------------------------------------------------------------

    def trim(self, pos: int) -> None:
        """Give touched pages back when a pass has moved ``trim_step`` on (or started over).

        Cheap enough to call once per section.  Giving pages back is always
        safe: a later read brings them in again from the page cache or the disk.
        """
        if pos - self._mark >= self.trim_step or pos < self._mark:
            self.release()
            self._mark = pos

    def release(self) -> None:
        """Give every touched page back (the process's resident memory drops)."""
        if not self.closed and len(self):
            self.madvise(mmap.MADV_DONTNEED)


def _same_content(a: DiffBuffer, b: bytes | bytearray | DiffBuffer) -> bool:
    step = BUFFER_COMPARE_BLOCK
    return all(a[lo : lo + step] == b[lo : lo + step] for lo in range(0, len(a), step))


DiffData: TypeAlias = bytes | DiffBuffer


def trimmer(data: object) -> Callable[[int], None] | None:
    """``data.trim`` for a :class:`DiffBuffer` (call it with a pass's position), else None."""
    return data.trim if isinstance(data, DiffBuffer) else None


def release(data: object) -> None:
    """Give back the pages of a :class:`DiffBuffer` a pass touched (no-op for bytes)."""
    if isinstance(data, DiffBuffer):
        data.release()


def map_copy(source: int, size: int, directory: str) -> DiffBuffer:
    """Copy the first ``size`` bytes of the file open at descriptor ``source`` into
    ``directory`` and map the copy.

    The copy has no name (it goes with the mapping) and is hashed in a thread
    (:attr:`DiffBuffer.digest`).  ``OSError`` when the directory cannot take
    the copy; :class:`~diffchunk.errors.FileToolError` when the file ended
    early (it shrank meanwhile).
    """
    import tempfile  # not at import: only large diffs come here

    with tempfile.TemporaryFile(dir=directory, prefix="diffchunk-map-") as copy:
        copy_range(source, copy.fileno(), 0, size)
        return map_file(copy.fileno(), size)


def map_file(fd: int, size: int, digest: str | None = None) -> DiffBuffer:
    """Map the file open at ``fd`` itself: a copy, or a file nobody rewrites in
    place (a cache entry, written once and renamed into place).

    ``digest``: its sha256 when known, ``""`` when nobody needs it; None hashes
    the file in a thread, reading it with ``pread`` so that the mapping's pages
    stay out.  ``OSError``/``ValueError`` when it cannot be mapped (an empty
    file, a file system without mappings).
    """
    buffer = DiffBuffer(fd, size, access=mmap.ACCESS_READ)
    if digest is None:
        buffer._hashing = BackgroundHash(fd, size, block=BUFFER_HASH_BLOCK)
    else:
        buffer._digest = digest
    return buffer
