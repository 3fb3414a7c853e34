"""Reading lines of a file version: by number, from either end, by block.

Line numbers follow ``sed -n`` (see :mod:`.lineindex`).  ``head`` and
``tail`` never build the line index: head reads from the start, tail scans
backwards from the end with ``rfind``.  Their ``total_lines`` comes from the
index when it already exists, is counted when the file is at most
:data:`COUNT_FOR_TOTAL` bytes, and is otherwise ``None`` (with a warning).

Content is returned with ``\\n`` line breaks (a ``\\r`` before a ``\\n`` is
dropped; a lone ``\\r`` is kept) and lines longer than
:func:`long_line_chars` characters are cut with a visible marker.

Memory stays bounded whatever the line lengths: a range of lines up to
:data:`LINE_WINDOW` bytes is read at once; a longer one line by line, each line
read only as far as it is shown (:func:`short_line`), and the reading stops
once the text passes what one answer holds (:data:`READ_MAX_CONTENT_CHARS`; the tool
cuts it there and says where to read on).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import settings
from ..limits import LINE_WINDOW, READ_MAX_CONTENT_CHARS
from .access import FileVersion
from .byte_reader import Buffer, last_lines_start, skip_lines

COUNT_FOR_TOTAL = 64 * 1024 * 1024
"""head/tail count all lines for ``total_lines`` only up to this file size: a
tail of a large log must not read it all."""

BACKWARD_SCAN_LINES = 20_000
"""Reads this close to the end seek backwards from the end instead of
indexing the file from its start."""

WHOLE_LINE_BYTES = 1 << 16
"""Lines up to this many bytes are decoded whole before being cut; a longer
one only as far as the cut reaches (a line of hundreds of megabytes, minified
JSON, must not be decoded whole)."""

CONTEXT_LINE_CHARS = 500
"""A line read as the context of another (around a match) is cut to this many
characters."""


def long_line_chars() -> int:
    """Lines longer than this are truncated in read results and counted as long
    (``DIFFCHUNK_LONG_LINE_CHARS``; see :data:`diffchunk.settings.DEFAULT_LONG_LINE_CHARS`)."""
    return settings.count("DIFFCHUNK_LONG_LINE_CHARS")


@dataclass(slots=True)
class Lines:
    """A run of whole lines: text plus where it sits."""

    text: str
    start_line: int | None
    end_line: int | None
    count: int
    long_lines_cut: int = 0
    warnings: list[str] = field(default_factory=list)


def cut_long(line: str, limit: int | None = None) -> tuple[str, bool]:
    """``line`` cut to ``limit`` characters (default: :func:`long_line_chars`) with a marker
    saying how much was left out."""
    limit = long_line_chars() if limit is None else limit
    if len(line) <= limit:
        return line, False
    return f"{line[:limit]}… [line truncated: {len(line) - limit} more characters]", True


def short_line(
    version: FileVersion, raw: Buffer, start: int, stop: int, limit: int
) -> tuple[str, bool]:
    """Line ``raw[start:stop]`` (no newline) as text, cut to ``limit`` characters.

    A line up to :data:`WHOLE_LINE_BYTES` is decoded whole (the marker counts
    the characters left out); a longer one only as far as ``limit``
    characters can reach (the marker counts bytes): a line of hundreds of
    megabytes (minified JSON) must not be decoded whole.
    """
    cap = max(limit * 4 + 4, WHOLE_LINE_BYTES)
    if stop - start <= cap:
        text = version.decode(raw[start:stop])
        if text.endswith("\r"):
            text = text[:-1]
        return cut_long(text, limit)
    if raw[stop - 1 : stop] == b"\r":
        stop -= 1  # the line ending's CR is not content
    kept = version.decode(raw[start : start + cap])[:limit]
    more = stop - start - len(kept.encode(version.data_encoding, errors="replace"))
    return f"{kept}… [line truncated: {more} more bytes]", True


def decode_lines(
    version: FileVersion, raw: bytes | bytearray, limit: int | None = None
) -> tuple[str, int, int]:
    """``(text, lines, cut)``: ``raw`` (whole lines) as text with long lines cut."""
    limit = long_line_chars() if limit is None else limit
    if not raw:
        return "", 0, 0
    end = len(raw) - 1 if raw.endswith(b"\n") else len(raw)
    parts = []
    cut = 0
    pos = 0
    while True:
        nl = raw.find(b"\n", pos, end)
        stop = end if nl < 0 else nl
        text, was_cut = short_line(version, raw, pos, stop, limit)
        parts.append(text)
        cut += was_cut
        if nl < 0:
            break
        pos = nl + 1
    return "\n".join(parts), len(parts), cut


def _range_text(version: FileVersion, start: int, end: int) -> tuple[str, int, int]:
    """:func:`decode_lines` of the whole lines ``data[start:end]``: read at once when
    they fit a window, else line by line, each only as far as it is shown, up to
    about :data:`READ_MAX_CONTENT_CHARS` characters (the lines after are not read)."""
    data = version.data
    if end - start <= LINE_WINDOW:
        return decode_lines(version, data[start:end])
    parts: list[str] = []
    cut = 0
    size = 0
    pos = start
    limit = long_line_chars()
    while pos < end and size <= READ_MAX_CONTENT_CHARS:
        nl = data.find(b"\n", pos, end)
        stop = end if nl < 0 else nl
        text, was_cut = short_line(version, data, pos, stop, limit)
        parts.append(text)
        cut += was_cut
        size += len(text) + 1
        pos = end if nl < 0 else nl + 1
    return "\n".join(parts), len(parts), cut


def _tail_text(version: FileVersion, start: int, end: int) -> tuple[str, int, int]:
    """:func:`_range_text` of the last lines, from ``start`` to the end: the lines read
    backwards from the end when they do not fit a window, up to about
    :data:`READ_MAX_CONTENT_CHARS` characters (the lines before are not read)."""
    data = version.data
    if end - start <= LINE_WINDOW:
        return decode_lines(version, data[start:end])
    parts: list[str] = []
    cut = 0
    size = 0
    stop = end - 1 if data[end - 1 : end] == b"\n" else end
    limit = long_line_chars()
    while size <= READ_MAX_CONTENT_CHARS:
        nl = data.rfind(b"\n", start, stop)
        text, was_cut = short_line(version, data, nl + 1 if nl >= 0 else start, stop, limit)
        parts.append(text)
        cut += was_cut
        size += len(text) + 1
        if nl < 0:
            break
        stop = nl
    parts.reverse()
    return "\n".join(parts), len(parts), cut


def _line_end(version: FileVersion, offset: int) -> tuple[int, int]:
    """Where the line at ``offset`` ends (its ``\n``, or the end) and the next one starts."""
    nl = version.data.find(b"\n", offset, version.end)
    return (version.end, version.end) if nl < 0 else (nl, nl + 1)


def _context_line(version: FileVersion, offset: int) -> tuple[str, int]:
    """The line at ``offset`` cut to CONTEXT_LINE_CHARS characters, and the next line's offset."""
    stop, following = _line_end(version, offset)
    return short_line(version, version.data, offset, stop, CONTEXT_LINE_CHARS)[0], following


def neighbours(
    version: FileVersion, offset: int, before: int, after: int
) -> tuple[list[str], list[str]]:
    """Up to ``before`` lines before and ``after`` lines after the line at ``offset``."""
    data = version.data
    start = version.start
    first = offset
    for _ in range(before):
        if first <= start:
            break
        prev = data.rfind(b"\n", start, first - 1)
        first = start if prev < 0 else prev + 1
    before_lines: list[str] = []
    pos = first
    while pos < offset:
        text, pos = _context_line(version, pos)
        before_lines.append(text)
    after_lines: list[str] = []
    pos = _line_end(version, offset)[1]  # past the matched line, undecoded
    for _ in range(after):
        if pos >= version.end:
            break
        text, pos = _context_line(version, pos)
        after_lines.append(text)
    return before_lines, after_lines


def known_total(version: FileVersion) -> int | None:
    """Line count if cheap: already known, or counted for smaller files."""
    if version.index_built or "line_count" in version.cache or version.size <= COUNT_FOR_TOTAL:
        return version.line_count()
    return None


def read_lines(version: FileVersion, first: int, limit: int) -> Lines:
    """Lines ``first`` .. ``first + limit - 1`` (1-based).

    Near the end of a file whose index is not built yet, the start is found
    by scanning backwards from the end (with the line count from
    :meth:`FileVersion.line_count`); otherwise the line index is used.
    """
    data: Buffer = version.data
    total = version.line_count()
    from_end = total - first + 1
    if not version.index_built and 0 < from_end <= BACKWARD_SCAN_LINES:
        start = last_lines_start(data, version.start, version.end, from_end)
    else:
        start = version.line_index().line_start(data, first)
    end = skip_lines(data, start, limit, version.end)
    text, count, cut = _range_text(version, start, end)
    return Lines(text, first if count else None, first + count - 1 if count else None, count, cut)


def read_head(version: FileVersion, limit: int) -> Lines:
    """The first ``limit`` lines, without an index."""
    data = version.data
    end = skip_lines(data, version.start, limit, version.end)
    text, count, cut = _range_text(version, version.start, end)
    return Lines(text, 1 if count else None, count if count else None, count, cut)


def read_tail(version: FileVersion, limit: int) -> Lines:
    """The last ``limit`` lines, scanning backwards from the end of the file."""
    data = version.data
    start = last_lines_start(data, version.start, version.end, limit)
    text, count, cut = _tail_text(version, start, version.end)
    total = known_total(version)
    lines = Lines(text, None, None, count, cut)
    if total is not None and count:
        lines.start_line = total - count + 1
        lines.end_line = total
    elif count:
        lines.warnings.append(
            "start_line/end_line/total_lines are not computed for tail reads of files over "
            f"{COUNT_FOR_TOTAL // (1024 * 1024)} MB (it would mean counting every line); "
            "call get_overview or read with mode='lines' once to count them."
        )
    return lines
