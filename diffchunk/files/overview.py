"""``get_overview``: size, line count, encoding, long lines, outline and search hints.

The first call on any large file.  A binary file gets its size and kind
only.  A text file gets its line count (``wc -l`` for large files, see
:meth:`.FileVersion.line_count`), its encoding and dominant line ending,
long-line statistics (exact up to :data:`LONG_LINE_SAMPLE_ABOVE` bytes,
sampled beyond), its outline marked against git HEAD (:mod:`.changed_symbols`;
paged in file order, :data:`OUTLINE_PAGE_ITEMS` items a page, or the
definitions a ``symbol`` query names at any depth: :mod:`.outline_page`) and
searches worth trying next.  Trouble with git or the parser becomes a warning, never
an error.
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..limits import LONG_LINE_PIECE_BYTES, OUTLINE_PAGE_ITEMS
from ..snapshots import snapshot_of
from .access import FileVersion, open_version
from .byte_reader import LongLine, Window
from .line_reads import long_line_chars
from .longline import content_end
from .outline_item import count_items
from .outline_page import SymbolMatches, find_symbols, outline_page
from .version_outline import outline_cut, outline_of, skip_reason

if TYPE_CHECKING:
    from .outline_item import OutlineItem

OVERVIEW_SYMBOL_HINTS = 8
"""Top-level symbols an overview suggests as searches."""

OVERVIEW_MARKER_SCAN_BYTES = 64 * 1024 * 1024
"""Bytes of a file looked at for TODO/FIXME and log markers to suggest as
searches: a hint must not cost a scan of a huge file."""

COUNT_ONLY_HINT_ABOVE = 50 * 1024 * 1024
"""Above this size an overview suggests count_only=True before a search (the
seeds' 50 MB line between files read whole and files streamed)."""

LONG_LINE_SAMPLE_ABOVE = 200 * 1024 * 1024
"""Long-line statistics of an overview are sampled (not exact) for files larger
than this..."""

LONG_LINE_SAMPLES = 16
"""...in this many windows spread over the file..."""

LONG_LINE_SAMPLE_BYTES = 4 * 1024 * 1024
"""...of this many bytes each (64 MiB read in all, whatever the size)."""


logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LongLines:
    """Lines longer than ``threshold`` characters."""

    has_long_lines: bool
    count: int
    max_length: int
    threshold: int
    sampled: bool = False  # estimated from samples of a very large file

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "has_long_lines": self.has_long_lines,
            "count": self.count,
            "max_length": self.max_length,
            "threshold": self.threshold,
        }
        if self.sampled:
            data["sampled"] = True
        return data


@dataclass(frozen=True, slots=True)
class Overview:
    """The result of ``get_overview``.

    ``outline`` is already JSON (one page of the tree: ``outline_total``
    items in all, the next page at ``outline_next_offset``); with a
    ``symbol`` query it is empty and ``symbols`` lists the matching
    definitions (``symbols_total`` of them).  ``outline_cut`` says what the
    outline's bounds left out (nesting, time; see :mod:`.outline`), when they
    left out anything.  ``line_ending`` is None for a
    binary file, whose JSON has no such key but always ``warnings``.
    """

    line_count: int | None
    file_size: int
    encoding: str | None
    is_binary: bool
    binary_hint: str | None
    line_ending: str | None
    long_lines: LongLines
    outline: tuple[dict[str, Any], ...]
    changed_symbols: int
    search_hints: tuple[str, ...]
    warnings: tuple[str, ...]
    outline_total: int = 0
    outline_next_offset: int | None = None
    symbols: tuple[dict[str, Any], ...] | None = None  # set for a ``symbol`` query
    symbols_total: int = 0
    outline_cut: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "line_count": self.line_count,
            "file_size": self.file_size,
            "encoding": self.encoding,
            "is_binary": self.is_binary,
            "binary_hint": self.binary_hint,
        }
        if self.line_ending is not None:
            data["line_ending"] = self.line_ending
        data["long_lines"] = self.long_lines.to_dict()
        data["outline"] = list(self.outline)
        if not self.is_binary:
            data["outline_total"] = self.outline_total
        if self.outline_next_offset is not None:
            data["outline_next_offset"] = self.outline_next_offset
        if self.outline_cut is not None:
            data["outline_cut"] = self.outline_cut
        if self.symbols is not None:
            data["symbols"] = list(self.symbols)
            data["symbols_total"] = self.symbols_total
        data["changed_symbols"] = self.changed_symbols
        data["search_hints"] = list(self.search_hints)
        if self.warnings or self.is_binary:
            data["warnings"] = list(self.warnings)
        return data


def get_overview(
    absolute_file_path: str, outline_offset: int = 0, symbol: str | None = None
) -> Overview:
    """Size, line count, encoding, long lines, outline and search hints of a file.

    ``outline_offset`` pages the outline (items in file order, parents first);
    ``symbol`` (a name or glob) lists the matching definitions at any depth
    instead of a page of the outline.
    """
    if symbol is not None and not symbol.strip():
        symbol = None
    version = open_version(absolute_file_path)
    if version.is_binary:
        return Overview(
            line_count=None,
            file_size=version.size,
            encoding=None,
            is_binary=True,
            binary_hint=version.binary_hint,
            line_ending=None,
            long_lines=LongLines(False, 0, 0, long_line_chars()),
            outline=(),
            changed_symbols=0,
            search_hints=(),
            warnings=("Binary file: search_content, read_content and edit_content refuse it.",),
        )
    warnings: list[str] = []
    outline, changed = _marked_outline(version, warnings)
    long_lines = long_line_stats(version)
    if long_lines.sampled:
        warnings.append(
            "long_lines is estimated from samples of this large file; count and max_length "
            "may be higher."
        )
    view = _outline_view(outline, outline_offset, symbol, warnings)
    return Overview(
        line_count=version.line_count(),
        file_size=version.size,
        encoding=version.display_encoding,
        is_binary=False,
        binary_hint=None,
        line_ending="crlf" if version.newline == b"\r\n" else "lf",
        long_lines=long_lines,
        outline=view.items,
        changed_symbols=changed,
        search_hints=tuple(_search_hints(version, outline)),
        warnings=tuple(warnings),
        outline_total=view.total,
        outline_next_offset=view.next_offset,
        symbols=view.symbols.items if view.symbols is not None else None,
        symbols_total=view.symbols.total if view.symbols is not None else 0,
        outline_cut=outline_cut(version),
    )


@dataclass(frozen=True, slots=True)
class _OutlineView:
    items: tuple[dict[str, Any], ...]
    total: int
    next_offset: int | None
    symbols: SymbolMatches | None


def _outline_view(
    outline: list[OutlineItem], offset: int, symbol: str | None, warnings: list[str]
) -> _OutlineView:
    """The page of the outline at ``offset``, or the definitions ``symbol`` names
    (notes on what is left out go to ``warnings``)."""
    if symbol is not None:
        found = find_symbols(outline, symbol)
        if found.ignored_case:
            warnings.append(f"No definition matches {symbol!r} with its case; case ignored.")
        if found.total > len(found.items):
            warnings.append(
                f"{found.total} definitions match; the first {len(found.items)} are listed: "
                "pass a narrower symbol."
            )
        return _OutlineView((), count_items(outline), None, found)
    page = outline_page(outline, offset, OUTLINE_PAGE_ITEMS)
    if page.total > page.shown:
        following = (
            f"; the next page: outline_offset={page.next_offset}" if page.next_offset else ""
        )
        warnings.append(
            f"Outline items {page.offset + 1}-{page.offset + page.shown} of {page.total} "
            f"(file order, a class with its members){following}; symbol='name' (or a glob) "
            "finds a definition at any depth."
        )
    return _OutlineView(page.items, page.total, page.next_offset, None)


def _marked_outline(version: FileVersion, warnings: list[str]) -> tuple[list[OutlineItem], int]:
    """A copy of the outline marked against git HEAD, and how many symbols changed
    (trouble goes to ``warnings``)."""
    outline = outline_of(version)
    if not outline:
        reason = skip_reason(version)
        if reason:
            warnings.append(reason.capitalize() + ".")
        return outline, 0
    if snapshot_of(version.realpath) is not None:
        return outline, 0  # a revision's snapshot: nothing to compare with HEAD
    try:
        from .changed_symbols import mark_changes

        outline = [item.copy() for item in outline]
        source = None if version.transcoded else version.data.memory
        head_cut: list[str] = []
        changed = mark_changes(version.realpath, outline, source=source, cut=head_cut)
        if head_cut:
            warnings.append(
                "Changed symbols compared with a cut outline of HEAD's version: "
                + "; ".join(head_cut)
                + "."
            )
        return outline, changed
    except ImportError:
        return outline, 0
    except Exception as exc:  # git trouble must not hide the outline
        logger.debug("mark_changes failed", exc_info=True)
        warnings.append(f"Changed symbols not marked: {exc}")
        return outline, 0


def _sample_windows(version: FileVersion) -> tuple[list[tuple[int, int]], bool]:
    """Byte ranges to scan for statistics: all of it, or evenly spread samples."""
    size = version.end - version.start
    if size <= LONG_LINE_SAMPLE_ABOVE:
        return [(version.start, version.end)], False
    ranges = []
    step = size // LONG_LINE_SAMPLES
    data = version.data
    for i in range(LONG_LINE_SAMPLES):
        at = version.start + i * step
        if i:
            nl = data.find(b"\n", at, version.end)
            if nl < 0:
                break
            at = nl + 1
        stop = data.find(b"\n", min(version.end, at + LONG_LINE_SAMPLE_BYTES), version.end)
        ranges.append((at, version.end if stop < 0 else stop + 1))
    return ranges, True


def long_line_stats(version: FileVersion, threshold: int | None = None) -> LongLines:
    """Lines longer than ``threshold`` characters: count and the longest length
    (memoised on the version).

    A regex finds line breaks followed by at least ``threshold`` bytes
    before the next one (C speed, no per-line object); only those lines are
    decoded to count characters.  ``threshold`` defaults to :func:`long_line_chars`.
    """
    threshold = long_line_chars() if threshold is None else threshold
    key = f"long_lines:{threshold}"
    cached = version.cache.get(key)
    if isinstance(cached, LongLines):
        return cached
    count = 0
    longest = 0
    ranges, sampled = _sample_windows(version)
    for begin, end in ranges:
        for step in version.windows(begin, end):
            if isinstance(step, LongLine):
                chars = _long_line_chars(version, step)
                count += chars > threshold
                longest = max(longest, chars)
                continue
            _base, buf, length = step
            window_count, window_longest = _window_long_lines(
                buf, length, threshold, version.data_encoding
            )
            count += window_count
            longest = max(longest, window_longest)
    stats = LongLines(count > 0, count, longest, threshold, sampled)
    version.cache[key] = stats
    return stats


_UTF8_CONTINUATION = bytes(range(0x80, 0xC0))


def _long_line_chars(version: FileVersion, line: LongLine) -> int:
    """Characters of a line too long for a window, counted piece by piece (in UTF-8,
    the bytes that start a character)."""
    stop = content_end(version, line)
    if version.data_encoding != "utf-8":
        return stop - line.start
    continuing = 0
    for pos in range(line.start, stop, LONG_LINE_PIECE_BYTES):
        piece = version.data.read(pos, min(stop, pos + LONG_LINE_PIECE_BYTES))
        continuing += len(piece) - len(piece.translate(None, _UTF8_CONTINUATION))
    return stop - line.start - continuing


@functools.lru_cache(maxsize=8)
def _long_line_patterns(threshold: int) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """A long line at the window's start, and one after a line break.

    A UTF-8 line of N characters has at least N bytes; other codecs here are
    single-byte: a line of ``threshold`` bytes or more may be long.
    """
    return re.compile(rb"[^\n]{%d,}" % threshold), re.compile(rb"\n([^\n]{%d,})" % threshold)


def _window_long_lines(buf: Window, length: int, threshold: int, encoding: str) -> tuple[int, int]:
    """``(long lines, longest line in characters)`` of one window."""
    at_start, after_break = _long_line_patterns(threshold)
    first = at_start.match(buf, 0, length)
    found = [first.group()] if first is not None else []
    found.extend(m.group(1) for m in after_break.finditer(buf, 0, length))
    short = not found
    if short:
        # No long line here: the longest short one, from a C-speed split.
        raw = max(bytes(buf[:length]).split(b"\n"), key=len)
        found = [raw] if raw else []
    count = 0
    longest = 0
    for raw in found:
        chars = len(raw) if encoding != "utf-8" else len(raw.decode("utf-8", "replace"))
        if raw.endswith(b"\r"):
            chars -= 1
        if chars > threshold and not short:
            count += 1
        longest = max(longest, chars)
    return count, longest


_LOG_MARKERS = (b"ERROR", b"WARN", b"Exception", b"Traceback", b"FATAL")


def _search_hints(version: FileVersion, outline: list[OutlineItem]) -> list[str]:
    """Searches worth trying next: top-level symbols, markers present in the file."""
    hints: list[str] = []
    for item in outline[:OVERVIEW_SYMBOL_HINTS]:
        if item.type != "heading":
            hints.append(item.name)
    data = version.data
    stop = min(version.end, version.start + OVERVIEW_MARKER_SCAN_BYTES)
    if (
        data.find(b"TODO", version.start, stop) >= 0
        or data.find(b"FIXME", version.start, stop) >= 0
    ):
        hints.append("TODO|FIXME (regex=True, fuzzy=False)")
    if not outline:
        for marker in _LOG_MARKERS:
            if data.find(marker, version.start, stop) >= 0:
                hints.append(marker.decode())
    if version.size > COUNT_ONLY_HINT_ABOVE:
        hints.append("use count_only=True first on a file this large")
    return hints
