"""One cached, read-only view of a file version: bytes, encoding, line index.

:func:`open_version` validates a path (absolute, regular file) and returns a
:class:`FileVersion` keyed by ``(realpath, fingerprint)`` from a small LRU
cache, so repeated tool calls on an unchanged file share the mapping, the
detected encoding and the line index.  A changed file (new size, mtime, inode)
gets a new version.

Access strategy by size:

- up to :data:`SMALL_FILE` bytes the file is read into memory;
- larger files are read on demand: random access (a few lines, the tail)
  reads just the bytes it needs with ``pread``, and whole-file scans read
  line windows of a fixed size, so resident memory stays near the window
  size even for a 1 GB file (both through the one :class:`~.byte_reader.Reader`);
- UTF-16/UTF-32 files are decoded and re-encoded to UTF-8 in memory (up to
  :data:`MAX_TRANSCODE` bytes), so every search and line operation works on
  UTF-8 bytes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field

from .. import settings
from ..errors import FileToolError
from ..limits import ENCODING_SAMPLE_BYTES
from ..paths import fingerprint, resolve_regular_file
from .byte_reader import Reader, Step
from .encoding import display_name, is_utf16_or_32, sniff
from .lineindex import LineIndex

SMALL_FILE = 4 * 1024 * 1024
"""Files up to this size are read into memory; larger ones are read on demand
with pread (a mapping killed the process with SIGBUS when another program
truncated the file)."""

MAX_TRANSCODE = 256 * 1024 * 1024
"""Largest UTF-16/UTF-32 file the tools accept: it is transcoded in memory."""

WC_MIN_BYTES = 8 * 1024 * 1024
"""Line counts of files at least this large come from ``wc -l`` when it is on
PATH (``DIFFCHUNK_NO_GREP=1`` turns it off): below, starting a process costs
more than the count."""

CACHE_SIZE = 8
"""File versions kept open at once (each holds a descriptor and its line
index)."""


@dataclass(eq=False)
class FileVersion:
    """One version of one file, as the file tools see it.

    ``encoding`` is the codec of the body after ``bom``; ``data`` reads the
    searchable bytes and ``data_encoding`` is their codec (``utf-8`` for a
    transcoded UTF-16 file, else ``encoding``); content starts at
    ``data[start]`` (``data.start`` too).  ``newline`` is the dominant line ending (``b"\\r\\n"``
    when CRLF endings outnumber bare LF ones, else ``b"\\n"``).
    """

    realpath: str
    stat: os.stat_result
    size: int
    encoding: str | None
    bom: bytes
    newline: bytes
    is_binary: bool
    binary_hint: str | None
    data: Reader
    start: int
    data_encoding: str
    transcoded: bool
    fingerprint: tuple[int, int, int, int, int]
    _index: LineIndex | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    cache: dict[str, object] = field(default_factory=dict, repr=False)
    """Per-version memo for derived data (outline, long-line stats...)."""

    @property
    def end(self) -> int:
        """Offset just past the content in ``data``."""
        return len(self.data)

    @property
    def display_encoding(self) -> str | None:
        """Encoding as shown to users (``utf-8-sig``, ``utf-16-le``...)."""
        return display_name(self.encoding, self.bom)

    @property
    def index_built(self) -> bool:
        """True once :meth:`line_index` has been computed for this version."""
        return self._index is not None

    def require_text(self) -> None:
        """Raise :class:`FileToolError` when this version is binary."""
        if self.is_binary:
            kind = f" ({self.binary_hint})" if self.binary_hint else ""
            raise FileToolError(
                f"{self.realpath} is a binary file{kind}; text tools cannot read or edit it.",
                suggestion="Use get_overview to see its size and type, or pass a text file.",
            )

    def decode(self, raw: bytes | bytearray) -> str:
        """Text of a slice of ``data`` (undecodable bytes become U+FFFD)."""
        return raw.decode(self.data_encoding, errors="replace")

    def encode(self, text: str) -> bytes | None:
        """``text`` as bytes of ``data``; ``None`` if the encoding cannot hold it."""
        try:
            return text.encode(self.data_encoding)
        except UnicodeEncodeError:
            return None

    def line_index(self) -> LineIndex:
        """The sparse line index, built on first use (one pass over the file)."""
        index = self._index
        if index is None:
            with self._lock:
                index = self._index
                if index is None:
                    index = LineIndex.build(self.windows(), self.start, self.end)
                    self._index = index
        return index

    def line_count(self) -> int:
        """Lines as ``sed`` counts them, without building the index when that is slower.

        From the index when built; else, for large files, ``wc -l`` (when on
        PATH) plus one for an unterminated last line; else builds the index.
        """
        if self._index is not None:
            return self._index.line_count
        cached = self.cache.get("line_count")
        if isinstance(cached, int):
            return cached
        counted = None
        if self.size >= WC_MIN_BYTES and not self.transcoded:
            counted = _wc_newlines(self)
        if counted is None:
            return self.line_index().line_count
        if self.end > self.start and self.data[self.end - 1 : self.end] != b"\n":
            counted += 1
        self.cache["line_count"] = counted
        return counted

    def windows(
        self, start: int | None = None, end: int | None = None, size: int | None = None
    ) -> Iterator[Step]:
        """The reader's line windows of the content, and its long lines
        (see :meth:`.Reader.windows`)."""
        return self.data.windows(start, end, size)


def _wc_newlines(version: FileVersion) -> int | None:
    """Newlines counted by ``wc -l`` on this very version of the file, or ``None``."""
    if settings.flag("DIFFCHUNK_NO_GREP"):
        return None
    wc = shutil.which("wc")
    if wc is None:
        return None
    try:
        with open(version.realpath, "rb") as fh:
            if fingerprint(os.fstat(fh.fileno())) != version.fingerprint:
                return None
            done = subprocess.run(
                [wc, "-l"], stdin=fh, capture_output=True, check=False, env={"LC_ALL": "C"}
            )
            # wc reads to the end of the file as it is then: lines appended
            # (or a rewrite) meanwhile would be counted for this version.
            if fingerprint(os.fstat(fh.fileno())) != version.fingerprint:
                return None
        if done.returncode != 0:
            return None
        return int(done.stdout.split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _sample_regions(data: Reader, start: int, size: int) -> list[tuple[bytes, bool]]:
    """``(sample, truncated)`` pieces: the head, and for big files a few more."""
    head = bytes(data[start : start + ENCODING_SAMPLE_BYTES])
    regions = [(head, start + ENCODING_SAMPLE_BYTES < size)]
    if size > 4 * ENCODING_SAMPLE_BYTES:
        for fraction in (0.25, 0.5, 0.75):
            at = start + int((size - start) * fraction)
            piece = bytes(data[at : at + ENCODING_SAMPLE_BYTES // 4])
            # Skip UTF-8 continuation bytes of a character cut at the start.
            skip = 0
            while skip < 3 and skip < len(piece) and 0x80 <= piece[skip] <= 0xBF:
                skip += 1
            regions.append((piece[skip:], True))
        tail_at = max(start, size - ENCODING_SAMPLE_BYTES // 4)
        piece = bytes(data[tail_at:size])
        skip = 0
        while skip < 3 and skip < len(piece) and 0x80 <= piece[skip] <= 0xBF:
            skip += 1
        regions.append((piece[skip:], False))
    return regions


def _detect(data: Reader, size: int) -> tuple[str | None, bytes, bool, str | None]:
    regions = _sample_regions(data, 0, size)
    head, truncated = regions[0]
    found = sniff(head, truncated=truncated)
    if found.is_binary or found.encoding != "utf-8" or found.bom:
        return found.encoding, found.bom, found.is_binary, found.binary_hint
    for piece, cut in regions[1:]:
        other = sniff(piece, truncated=cut)
        if other.is_binary:
            return None, b"", True, other.binary_hint or "data"
        if other.encoding != "utf-8":
            joined = b"".join(p for p, _ in regions)
            legacy = sniff(joined.replace(b"\x00", b""), truncated=True)
            return legacy.encoding if legacy.encoding else "latin-1", b"", False, None
    return "utf-8", b"", False, None


def _dominant_newline(data: Reader, start: int) -> bytes:
    sample = data[start : start + ENCODING_SAMPLE_BYTES]
    lf = sample.count(b"\n")
    crlf = sample.count(b"\r\n")
    return b"\r\n" if lf and crlf * 2 > lf else b"\n"


def _open_reader(real: str, size: int) -> Reader:
    """A reader of the file: its bytes when small, else ``pread`` on demand."""
    try:
        if size == 0:
            # Empty, or a pseudo-file (/proc, /sys) whose size stat does not know.
            with open(real, "rb") as fh:
                data = fh.read(SMALL_FILE + 1)
            if len(data) > SMALL_FILE:
                raise FileToolError(
                    f"{real} reports a size of 0 but streams more than "
                    f"{SMALL_FILE // (1024 * 1024)} MB; it is a special file.",
                    suggestion="Copy the part you need to a regular file and pass that path.",
                )
            return Reader.of_bytes(data)
        if size <= SMALL_FILE:
            with open(real, "rb") as fh:
                return Reader.of_bytes(fh.read())
        handle = open(real, "rb")  # noqa: SIM115 - owned by the reader
        return Reader.of_file(handle, size, real)
    except PermissionError:
        raise FileToolError(
            f"{real} cannot be read (permission denied).",
            suggestion="Check the file's permissions.",
        ) from None
    except OSError as exc:
        raise FileToolError(f"{real} cannot be read: {exc.strerror}.") from None


def _transcode(real: str, data: Reader, encoding: str | None, start: int) -> Reader:
    """A UTF-16/UTF-32 file's text as UTF-8 bytes in memory (the file is closed)."""
    size = len(data)
    if size > MAX_TRANSCODE:
        raise FileToolError(
            f"{real} is {encoding} and {size} bytes; UTF-16/UTF-32 files are "
            f"supported up to {MAX_TRANSCODE // (1024 * 1024)} MB.",
            suggestion="Convert it to UTF-8 first, e.g. with iconv.",
        )
    text = data[start:size].decode(encoding or "utf-16", errors="replace")
    data.close()
    return Reader.of_bytes(text.encode("utf-8", errors="surrogatepass"))


def _load(real: str, st: os.stat_result) -> FileVersion:
    data = _open_reader(real, st.st_size)
    encoding, bom, is_binary, hint = _detect(data, len(data))
    data.start = len(bom)
    data_encoding = encoding or "latin-1"
    transcoded = not is_binary and is_utf16_or_32(encoding)
    if transcoded:
        data = _transcode(real, data, encoding, data.start)
        data_encoding = "utf-8"
    newline = b"\n" if is_binary else _dominant_newline(data, data.start)
    return FileVersion(
        realpath=real,
        stat=st,
        size=st.st_size or len(data),
        encoding=encoding,
        bom=bom,
        newline=newline,
        is_binary=is_binary,
        binary_hint=hint,
        data=data,
        start=data.start,
        data_encoding=data_encoding,
        transcoded=transcoded,
        fingerprint=fingerprint(st),
    )


_cache: OrderedDict[tuple[str, tuple[int, int, int, int, int]], FileVersion] = OrderedDict()
_cache_lock = threading.Lock()


def open_version(path: str) -> FileVersion:
    """The current version of ``path`` (text or binary), from the cache when unchanged."""
    real, st = resolve_regular_file(path)
    key = (real, fingerprint(st))
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    version = _load(real, st)
    with _cache_lock:
        # Drop older versions of the same file: they can never be asked for again.
        for old in [k for k in _cache if k[0] == real and k != key]:
            del _cache[old]
        _cache[key] = version
        _cache.move_to_end(key)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return version


def open_text_version(path: str) -> FileVersion:
    """Like :func:`open_version`, but refuse binary files with :class:`FileToolError`."""
    version = open_version(path)
    version.require_text()
    return version


def clear_cache() -> None:
    """Forget every cached version (tests, or after external rewrites)."""
    with _cache_lock:
        _cache.clear()


def detect_encoding(sample: bytes) -> tuple[str | None, bytes]:
    """``(encoding, bom)`` of a sample; ``encoding`` is ``None`` for binary data."""
    found = sniff(sample, truncated=True)
    return found.encoding, found.bom
