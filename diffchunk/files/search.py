"""Line-oriented search over a file version: exact, regex, fuzzy, inverted.

Every search walks the file in line-aligned windows (see
``FileVersion.windows``) and works on bytes wherever it can:

- *exact*: the pattern, encoded like the file, is found with ``bytes.find``
  (``bytes.lower`` of the window first when case-insensitive and the pattern
  is ASCII); a line counts once however many times it matches, like
  ``grep -c``;
- *regex*: Python ``re`` on the decoded window, with ``re.MULTILINE``, to
  find candidate lines; a line matches when the pattern matches it alone,
  without its line ending (as ``re.search(pattern, line)``); a search that
  runs longer than :data:`REGEX_TIME_BUDGET` seconds stops with an error;
- *fuzzy*: a cheap prefilter keeps lines holding at least one piece of the
  pattern (by the pigeonhole principle a line within a few edits of the
  pattern holds one of ``edits + 1`` disjoint pieces exactly), then
  rapidfuzz's ``partial_ratio`` scores those lines (case ignored, the
  ``\\r`` of a CRLF ending left out), so a misspelt word is found inside a
  long line.

Results carry byte offsets of line starts and 1-based line numbers; the
service turns them into text.
"""

from __future__ import annotations

import functools
import heapq
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from typing import IO, AnyStr, cast

from rapidfuzz import fuzz

from ..errors import FileToolError, InvalidArgument
from ..paths import fingerprint
from .access import FileVersion
from .reader import Window, skip_lines

REGEX_TIME_BUDGET = 2.0
"""Seconds a regex search may spend on one window (16 MB) before it is stopped."""

REGEX_MIN_BUDGET = 0.5
"""Seconds allowed for any window, however small; larger windows get a share of
:data:`REGEX_TIME_BUDGET` in proportion to their size (a few KB of text that
takes half a second is backtracking, and the whole call stays well under 2 s)."""

_BUDGET_WINDOW = 16 * 1024 * 1024

FUZZY_CUTOFF = 80.0
"""Lowest rapidfuzz ``partial_ratio`` (0-100) a fuzzy result may have."""

FUZZY_TIME_BUDGET = 10.0
"""Seconds a fuzzy scan may take; then it stops and reports the lines it covered."""

_FUZZY_CHECK_EVERY = 4096
"""Candidate lines scored between two looks at the clock."""

SHORT_PATTERN = 6
SHORT_CUTOFF = 75.0
"""Patterns up to ``SHORT_PATTERN`` characters use this cutoff (one typo costs more)."""

_DENSE = 16384
"""Matching lines per window after which exact counting switches to ``findall``."""


@dataclass(slots=True)
class Hit:
    """One matching line."""

    offset: int
    """Byte offset of the line start in ``FileVersion.data``."""
    line_number: int
    score: float
    """Similarity 0.0-1.0 (1.0 for exact and regex matches)."""
    match_type: str


@dataclass(slots=True)
class Found:
    """What a search found: the lines kept, and how many lines matched in all."""

    hits: list[Hit]
    total: int
    timed_out: bool = False
    stopped_line: int | None = None
    """With ``timed_out``: the scan covered the lines before this one."""


class _Matcher:
    """Finds the first match at or after ``pos`` in a prepared window."""

    kind = "exact"

    def prepare(self, buf: Window, length: int) -> Window:
        return buf

    def find(self, hay: Window, pos: int, end: int) -> int:
        raise NotImplementedError

    def count_lines(self, hay: Window, length: int) -> int | None:
        """Matching lines of a whole window, or ``None`` to walk hits instead."""
        return None


class _Literal(_Matcher):
    def __init__(self, needle: bytes, lower: bool) -> None:
        self.needle = needle.lower() if lower else needle
        self.lower = lower
        self.rest_of_line = re.compile(re.escape(self.needle) + rb"[^\n]*")

    def prepare(self, buf: Window, length: int) -> Window:
        if self.lower:
            return buf[:length].lower()
        return buf

    def find(self, hay: Window, pos: int, end: int) -> int:
        return hay.find(self.needle, pos, end)

    def count_lines(self, hay: Window, length: int) -> int | None:
        # One pass: find, then skip to the next line; when hits are dense,
        # let findall (one match per line, as each runs to its line's end)
        # count the rest of the window in C.
        find = hay.find
        needle = self.needle
        count = 0
        pos = 0
        while True:
            hit = find(needle, pos, length)
            if hit < 0:
                return count
            count += 1
            end = find(b"\n", hit, length)
            if end < 0:
                return count
            pos = end + 1
            if count >= _DENSE:
                return count + len(self.rest_of_line.findall(hay, pos, length))


_LOOKS_AROUND = re.compile(r"\\[AZz]|\(\?<?[=!]|\(\?[a-zA-Z]*-[a-zA-Z]*m")
"""Regex constructs that look outside the text they match (``\\A``, ``\\Z``,
``\\z``, lookarounds, a group that turns line mode off such as ``(?-m:^)``):
patterns holding one are tried on every line."""


class _TextMatcher(_Matcher):
    """A str regex over the decoded window (every regex; exact search with case folding)."""

    def __init__(self, compiled: re.Pattern[str], encoding: str, kind: str) -> None:
        self.compiled = compiled
        self.encoding = encoding
        self.kind = kind
        self.every_line = kind == "regex" and _LOOKS_AROUND.search(compiled.pattern) is not None


def build_matcher(
    version: FileVersion, pattern: str, *, regex: bool, case_sensitive: bool
) -> _Matcher:
    """The fastest matcher that honours the options for this file's encoding."""
    flags = re.MULTILINE | (0 if case_sensitive else re.IGNORECASE)
    if regex:
        try:
            text_rx = re.compile(pattern, flags)
        except re.error as exc:
            raise InvalidArgument(
                f"Invalid regular expression {pattern!r}: {exc}.",
                suggestion="Fix the pattern (Python re syntax), or pass regex=false "
                "to search for the text literally.",
            ) from None
        # Always on characters: a bytes regex would see UTF-8 bytes, not
        # characters, in ".", "\w", "\s", "\b", classes and case folding.
        return _TextMatcher(text_rx, version.data_encoding, "regex")
    if case_sensitive or pattern.isascii():
        needle = version.encode(pattern)
        if needle is None:
            # The file's encoding cannot hold the pattern: it cannot occur.
            needle = b"\x00\x00never\x00\x00"
        return _Literal(needle, lower=not case_sensitive)
    return _TextMatcher(re.compile(re.escape(pattern), flags), version.data_encoding, "exact")


class _Deadline:
    """A time budget per window for regex searches.

    A healthy regex scans a 16 MB window in well under a second, so a window
    that takes longer than the budget means catastrophic backtracking.  On
    the main thread (Unix) ``SIGALRM`` interrupts ``re`` mid-match; elsewhere
    the budget is checked between windows.
    """

    def __init__(self, seconds: float) -> None:
        self.budget = seconds
        self.seconds = seconds
        self.started = time.monotonic()
        self.armed = False

    def restart(self, length: int | None = None) -> None:
        """Start a new window's budget (scaled to the window's ``length`` in bytes)."""
        if length is not None:
            share = self.budget * min(1.0, length / _BUDGET_WINDOW)
            self.seconds = max(min(REGEX_MIN_BUDGET, self.budget), share)
        self.started = time.monotonic()
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def check(self) -> None:
        if time.monotonic() - self.started > self.seconds:
            raise _Timeout

    @contextmanager
    def alarm(self) -> Iterator[None]:
        usable = (
            hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        )
        if not usable:
            yield
            return

        def on_alarm(signum: int, frame: object) -> None:
            raise _Timeout

        previous = signal.signal(signal.SIGALRM, on_alarm)
        self.armed = True
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        try:
            yield
        finally:
            self.armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


class _Timeout(Exception):
    pass


def _timeout_error(pattern: str, seconds: float) -> FileToolError:
    return FileToolError(
        f"The search for {pattern!r} timed out: one part of the file took over {seconds:g}s.",
        suggestion="Simplify the pattern (avoid nested quantifiers such as (a+)+), "
        "or search for a literal with regex=false.",
    )


def _line_start(hay: Window, pos: int) -> int:
    return hay.rfind(b"\n", 0, pos) + 1


def _text_window_hits(matcher: _TextMatcher, buf: Window, length: int) -> Iterator[tuple[int, int]]:
    """``(line_start, line_end)`` byte offsets of the window's lines the pattern matches
    as ``re.search(pattern, line)`` does on each line without its line ending.

    A search over the whole window jumps to candidate lines.  A match within
    a non-empty line is that line's match (``^``, ``$``, ``\\b``, ``\\B`` see
    a line break as they see the ends of a string); a match across a line
    break or in an empty line, or any line when the pattern looks outside
    what it matches (``\\A``, ``\\Z``, lookarounds), counts only if the
    pattern matches the line alone.
    """
    text = bytes(buf[:length]).decode(matcher.encoding, errors="replace")
    crlf = buf.find(b"\r", 0, length) >= 0 and "\r\n" in text
    if crlf:
        text = text.replace("\r\n", "\n")  # the \r of CRLF is not part of the line
    # One byte per character (ASCII, single-byte code pages) and no \r dropped:
    # offsets in ``text`` are offsets in ``buf``.
    same_offsets = not crlf and len(text) == length
    search = matcher.compiled.search
    every_line = matcher.every_line
    size = len(text)
    pos = 0  # start of the next line to look at, in ``text``
    known_char = known_byte = 0  # a line start in ``text`` and in ``buf``
    while pos < size:
        if every_line:
            start = pos
            end = text.find("\n", start)
            crossing = True
        else:
            found = search(text, pos)
            if found is None:
                return
            begin, finish = found.span()
            start = text.rfind("\n", pos, begin) + 1 or pos
            if start >= size:
                return  # an empty match after the final line break: no line there
            end = text.find("\n", begin)
            crossing = 0 <= end < finish
        if end < 0:
            end = size
        pos = end + 1
        if (crossing or start == end) and search(text[start:end]) is None:
            continue  # (empty lines too: "\B" never matches an empty string)
        if same_offsets:
            yield start, end
            continue
        byte_start = skip_lines(buf, known_byte, text.count("\n", known_char, start), length)
        byte_end = buf.find(b"\n", byte_start, length)
        if byte_end < 0:
            byte_end = length
        yield byte_start, byte_end
        known_char, known_byte = pos, byte_end + 1


def _window_hits(matcher: _Matcher, hay: Window, length: int) -> Iterator[tuple[int, int]]:
    """``(line_start, line_end)`` offsets (``line_end`` at ``\\n`` or ``length``)."""
    if isinstance(matcher, _TextMatcher):
        yield from _text_window_hits(matcher, hay, length)
        return
    find = matcher.find
    pos = 0
    while pos < length:
        hit = find(hay, pos, length)
        if hit < 0:
            return
        start = _line_start(hay, hit)
        end = hay.find(b"\n", hit, length)
        if end < 0:
            end = length
        yield start, end
        pos = end + 1


GREP_MIN_BYTES = 8 * 1024 * 1024
"""Exact counts on files at least this large are delegated to ``grep`` when present."""


@functools.lru_cache(maxsize=1)
def _grep_path() -> str | None:
    return shutil.which("grep")


def _grep_command(
    version: FileVersion, pattern: str, *, case_sensitive: bool, invert: bool
) -> list[str | bytes] | None:
    if os.environ.get("DIFFCHUNK_NO_GREP") or version.transcoded or version.size < GREP_MIN_BYTES:
        return None
    if version.end <= version.start:
        return None  # only a byte-order mark: no line, though grep would see one
    if not case_sensitive and not pattern.isascii():
        return None
    needle = version.encode(pattern)
    grep = _grep_path()
    if grep is None or not needle or b"\x00" in needle:
        return None
    cmd: list[str | bytes] = [grep, "-F", "-a"]
    if not case_sensitive:
        cmd.append("-i")
    if invert:
        cmd.append("-v")
    return [*cmd, "-e", needle]


def _read_all(stream: IO[bytes]) -> bytes:
    return stream.read()


def _run_greps(
    version: FileVersion,
    commands: list[list[str | bytes]],
    readers: Sequence[Callable[[IO[bytes]], object]] = (),
) -> list[object] | None:
    """Run grep commands side by side on this version's file; what each one's
    reader (default: read all) made of its output, or None.  A reader raising
    ``ValueError`` (output it cannot parse) gives None too."""
    env = {"LC_ALL": "C", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    procs: list[subprocess.Popen[bytes]] = []
    handles = []
    try:
        for cmd in commands:
            fh = open(version.realpath, "rb")  # noqa: SIM115 - one file offset per grep
            handles.append(fh)
            # Search the very version the caller holds, not a newer file.
            if fingerprint(os.fstat(fh.fileno())) != version.fingerprint:
                return None
            procs.append(
                subprocess.Popen(
                    cmd, stdin=fh, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
                )
            )
        outputs = []
        for i, proc in enumerate(procs):
            assert proc.stdout is not None
            read = readers[i] if i < len(readers) else _read_all
            with proc.stdout:
                outputs.append(read(proc.stdout))
            if proc.wait() not in (0, 1):
                return None
        # grep reads to the end of the file as it is then: lines appended (or
        # a rewrite) meanwhile would be reported as lines of this version.
        if fingerprint(os.fstat(handles[0].fileno())) != version.fingerprint:
            return None
        return outputs
    except (OSError, ValueError):
        return None
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        for fh in handles:
            fh.close()


def grep_count(
    version: FileVersion, pattern: str, *, case_sensitive: bool, invert: bool
) -> int | None:
    """Matching lines counted by ``grep -c -F`` (C locale), or ``None`` when not applicable.

    Same semantics as the Python scan (a line is the bytes up to ``\n``; an
    unterminated last line counts; ASCII-only case folding), only faster:
    used for exact searches on large files.  ``DIFFCHUNK_NO_GREP=1`` turns it
    off.  Any failure returns ``None`` and the caller scans in Python.
    """
    cmd = _grep_command(version, pattern, case_sensitive=case_sensitive, invert=invert)
    if cmd is None:
        return None
    outputs = _run_greps(version, [[cmd[0], "-c", *cmd[1:]]], [_read_count])
    if outputs is None:
        return None
    count = outputs[0]
    assert isinstance(count, int)
    return count


def _read_count(stream: IO[bytes]) -> int:
    """The number ``grep -c`` printed (``ValueError`` for anything else)."""
    return int(stream.read(64).strip() or b"0")


def grep_search(
    version: FileVersion, pattern: str, *, case_sensitive: bool, invert: bool, limit: int
) -> Found | None:
    """First ``limit`` matching lines and the total via two parallel greps, or ``None``."""
    cmd = _grep_command(version, pattern, case_sensitive=case_sensitive, invert=invert)
    if cmd is None:
        return None
    kind = "inverted" if invert else "exact"
    outputs = _run_greps(
        version,
        [[cmd[0], "-c", *cmd[1:]], [cmd[0], "-n", "-b", "-m", str(limit), *cmd[1:]]],
        [_read_count, functools.partial(_read_listing, version, kind)],
    )
    if outputs is None:
        return None
    total, hits = outputs
    assert isinstance(total, int) and isinstance(hits, list)
    return Found(hits[: min(limit, total)], total)


_LISTING_BLOCK = 1 << 16
_HEADER_BYTES = 48  # "LINE:OFFSET:" of two 20-digit numbers fits


def _read_listing(version: FileVersion, kind: str, stream: IO[bytes]) -> list[Hit]:
    """The hits of ``grep -n -b`` output, ``LINE:OFFSET:text`` each, read as a stream.

    The text may hold anything, and a line may be gigabytes long: it is
    stepped over, never kept, by its length in the file itself.  Some greps
    give the match's offset, not the line's: the line's start is found in the
    file (and past a byte-order mark, which grep counts in line 1).
    """
    data = version.data
    hits: list[Hit] = []
    buf = b""
    pos = 0  # where the next entry starts in buf
    while True:
        while buf.count(b":", pos, pos + _HEADER_BYTES) < 2:  # two numbers and their colons
            if len(buf) - pos >= _HEADER_BYTES:
                raise ValueError("grep output without its line number and offset")
            block = stream.read(_LISTING_BLOCK)
            if not block:
                if pos < len(buf):
                    raise ValueError("grep output ends inside a line")
                return hits
            buf, pos = buf[pos:] + block, 0
        colon = buf.index(b":", pos)
        colon2 = buf.index(b":", colon + 1)
        if not (buf[pos:colon].isdigit() and buf[colon + 1 : colon2].isdigit()):
            raise ValueError("grep output out of step")  # int() would take " 4" too
        line = int(buf[pos:colon])
        offset = int(buf[colon + 1 : colon2])
        printed = data.rfind(b"\n", 0, offset) + 1  # grep prints line 1 with its BOM
        end = data.find(b"\n", offset, version.end)
        pos = colon2 + 1 + (version.end if end < 0 else end) - printed + 1  # text and newline
        while pos > len(buf):  # step over the rest of a long line unread
            block = stream.read(min(pos - len(buf), _LISTING_BLOCK))
            if not block:
                pos = len(buf)  # an unterminated last line has no newline to step over
                break
            pos -= len(block)
        hits.append(Hit(max(printed, version.start), line, 1.0, kind))


def count_matching_lines(
    version: FileVersion, matcher: _Matcher, *, invert: bool, pattern: str
) -> int:
    """Lines that match (or, with ``invert``, do not), like ``grep -c [-v]``."""
    if isinstance(matcher, _Literal):
        counted = grep_count(version, pattern, case_sensitive=not matcher.lower, invert=invert)
        if counted is not None:
            return counted
    deadline = _Deadline(REGEX_TIME_BUDGET) if matcher.kind == "regex" else None
    total = 0
    lines = 0
    try:
        with deadline.alarm() if deadline else _nullcontext():
            for _base, buf, length in version.windows():
                if deadline:
                    deadline.restart(length)
                if invert:
                    lines += buf.count(b"\n", 0, length)
                    if length and buf[length - 1] != 10:
                        lines += 1
                hay = matcher.prepare(buf, length)
                fast = matcher.count_lines(hay, length)
                if fast is not None:
                    total += fast
                    continue
                for _hit in _window_hits(matcher, hay, length):
                    total += 1
                if deadline:
                    deadline.check()
    except _Timeout:
        raise _timeout_error(pattern, deadline.seconds if deadline else REGEX_TIME_BUDGET) from None
    return lines - total if invert else total


@contextmanager
def _nullcontext() -> Iterator[None]:
    yield


def search_lines(
    version: FileVersion,
    matcher: _Matcher,
    *,
    limit: int,
    invert: bool,
    pattern: str,
    need_total: bool = True,
) -> Found:
    """The first ``limit`` matching (or non-matching) lines in file order, and the total.

    Without ``need_total`` the scan stops once ``limit`` lines are found (and
    ``total`` counts only those).
    """
    deadline = _Deadline(REGEX_TIME_BUDGET) if matcher.kind == "regex" else None
    hits: list[Hit] = []
    total = 0
    line_base = 1  # line number of the window's first line
    kind = "inverted" if invert else matcher.kind
    try:
        with deadline.alarm() if deadline else _nullcontext():
            for base, buf, length in version.windows():
                if len(hits) >= limit and not need_total:
                    break
                if deadline:
                    deadline.restart(length)
                hay = matcher.prepare(buf, length)
                if len(hits) >= limit:
                    # Only the total is still needed: count as fast as possible.
                    matched = matcher.count_lines(hay, length)
                    if matched is None:
                        matched = sum(1 for _ in _window_hits(matcher, hay, length))
                    if invert:
                        lines = buf.count(b"\n", 0, length)
                        lines += 1 if length and buf[length - 1] != 10 else 0
                        total += lines - matched
                    else:
                        total += matched
                    if deadline:
                        deadline.check()
                    continue
                cursor = 0
                cursor_line = line_base
                for start, end in _window_hits(matcher, hay, length):
                    if invert:
                        # Lines between the previous match and this one do not match.
                        cursor, cursor_line, total = _collect_gap(
                            buf, base, cursor, start, cursor_line, total, hits, limit
                        )
                        cursor = end + 1
                        cursor_line += 1
                        continue
                    total += 1
                    if len(hits) < limit:
                        cursor_line += buf.count(b"\n", cursor, start)
                        cursor = start
                        hits.append(Hit(base + start, cursor_line, 1.0, kind))
                if invert and cursor < length:
                    cursor, cursor_line, total = _collect_gap(
                        buf, base, cursor, length, cursor_line, total, hits, limit
                    )
                if deadline:
                    deadline.check()
                line_base += buf.count(b"\n", 0, length)
    except _Timeout:
        raise _timeout_error(pattern, deadline.seconds if deadline else REGEX_TIME_BUDGET) from None
    return Found(hits, total)


def _collect_gap(
    buf: Window,
    base: int,
    cursor: int,
    stop: int,
    line: int,
    total: int,
    hits: list[Hit],
    limit: int,
) -> tuple[int, int, int]:
    """Record the non-matching lines in ``buf[cursor:stop]`` (inverted search)."""
    if cursor >= stop:
        return cursor, line, total
    room = limit - len(hits)
    if room <= 0:
        lines = buf.count(b"\n", cursor, stop) + (1 if buf[stop - 1] != 10 else 0)
        return stop, line + lines, total + lines
    while cursor < stop:
        if len(hits) >= limit:
            lines = buf.count(b"\n", cursor, stop) + (1 if buf[stop - 1] != 10 else 0)
            return stop, line + lines, total + lines
        hits.append(Hit(base + cursor, line, 1.0, "inverted"))
        total += 1
        nl = buf.find(b"\n", cursor, stop)
        cursor = nl + 1 if nl >= 0 else stop
        line += 1
    return cursor, line, total


# -- fuzzy -----------------------------------------------------------------


def _pieces(pattern: str, sample: bytes, encoding: str) -> list[bytes]:
    """Disjoint pieces of ``pattern`` (lowered): a line close to it holds one of them exactly.

    The pattern is cut into about one piece per five characters (the edits a
    80% score allows), trying a few cut points and keeping the cut whose
    pieces are rarest in ``sample``.
    """
    text = pattern.strip()
    if not text:
        # Only blanks: look for them as they are.
        blanks = pattern.encode(encoding, errors="ignore")
        return [blanks] if blanks else []
    encoded = text.encode(encoding, errors="ignore")
    if len(text) <= 3:
        return [encoded] if encoded else []
    count = max(2, len(text) // 6 + 1)
    size = len(text) // count
    shortest = 2 if len(text) < 8 else 3
    best: list[bytes] = []
    best_cost = -1
    for shift in (0, 1) if count == 2 else (0, 1, -1):
        inner = [i * size + shift for i in range(1, count)]
        cuts = [0, *inner, len(text)]
        if any(b - a < shortest for a, b in pairwise(cuts)):
            continue
        pieces = [text[a:b].encode(encoding, errors="ignore") for a, b in pairwise(cuts)]
        pieces = [p for p in pieces if p.strip()]
        if len(pieces) < count:
            continue
        # A repetitive pattern ("qqqq...") cuts into equal pieces: look for each once.
        pieces = list(dict.fromkeys(pieces))
        cost = sum(sample.count(p) for p in pieces)
        if count == 2:
            # Two pieces: one transposition across the cut breaks both, so
            # also take a partition cut one character later.
            best = list(dict.fromkeys([*best, *pieces]))
            continue
        if best_cost < 0 or cost < best_cost:
            best, best_cost = pieces, cost
    if not best:
        # Every cut leaves a piece of blanks only: keep such pieces (slower, as
        # blanks are common, but no line close to the pattern is dropped).
        cuts = [0, *(i * size for i in range(1, count)), len(text)]
        pieces = [text[a:b].encode(encoding, errors="ignore") for a, b in pairwise(cuts)]
        best = [p for p in dict.fromkeys(pieces) if p]
    return best


def _candidate_lines(
    hay: Window, length: int, pieces: list[bytes], deadline: float | None = None
) -> list[int] | None:
    """Sorted start offsets of lines of ``hay`` holding any of ``pieces``.

    ``None`` when ``deadline`` (a ``time.monotonic()`` value) passes first.
    """
    # A bytearray window reads like bytes here.
    return _lines_holding(cast(bytes, hay), length, pieces, b"\n", deadline)


def _lines_holding(
    hay: AnyStr, length: int, pieces: list[AnyStr], newline: AnyStr, deadline: float | None
) -> list[int] | None:
    starts: set[int] = set()
    find = hay.find
    rfind = hay.rfind
    found = 0
    for piece in pieces:
        pos = find(piece, 0, length)
        while pos >= 0:
            found += 1
            if (
                deadline is not None
                and not found % _FUZZY_CHECK_EVERY
                and time.monotonic() > deadline
            ):
                return None
            starts.add(rfind(newline, 0, pos) + 1)
            end = find(newline, pos, length)
            if end < 0:
                break
            pos = find(piece, end + 1, length)
    return sorted(starts)


def _folded_candidate_lines(
    buf: Window, length: int, encoding: str, pieces: list[str], deadline: float | None = None
) -> list[int] | None:
    """Like :func:`_candidate_lines` with Unicode case folding (``str.lower``).

    The window is decoded and lowered; the offsets returned are byte offsets
    of line starts in ``buf``.  ``None`` when ``deadline`` passes first.
    """
    low = bytes(buf[:length]).decode(encoding, errors="surrogateescape").lower()
    ordered = _lines_holding(low, len(low), pieces, "\n", deadline)
    if ordered is None:
        return None
    # Decoding and lowering keep every line break (even where a character
    # grows when lowered, as U+0130 does): count lines, as _text_window_hits does.
    offsets: list[int] = []
    known_char = known_byte = 0
    for start in ordered:
        known_byte = skip_lines(buf, known_byte, low.count("\n", known_char, start), length)
        known_char = start
        offsets.append(known_byte)
    return offsets


def fuzzy_search(
    version: FileVersion,
    pattern: str,
    *,
    limit: int,
    cutoff: float = FUZZY_CUTOFF,
) -> Found:
    """Lines most similar to ``pattern`` (case-insensitive), best first.

    Case is ignored: the pattern and the lines are compared lowered
    (``str.lower``; for an ASCII pattern, ASCII letters alone are folded,
    which scores every line the same and works on the bytes directly).  A
    line containing the pattern (case ignored) scores 1.0 and is typed
    "exact"; others are scored with ``partial_ratio`` (the best-aligned part
    of the line), so a misspelt word inside a long line is found.
    """
    needle = pattern.lower()
    # A non-ASCII pattern: lines are decoded and lowered to be compared.
    folded = not pattern.isascii()
    if cutoff == FUZZY_CUTOFF and len(needle.strip()) <= SHORT_PATTERN:
        cutoff = SHORT_CUTOFF
    encoding = version.data_encoding
    exact_needle = version.encode(needle)  # None: no line can hold it
    pieces: list[bytes] | None = None
    text_pieces: list[str] = []
    heap: list[tuple[float, int]] = []  # min-heap of (score, -offset)
    total = 0
    window_starts: list[int] = []
    window_lines: list[int] = []
    line_base = 1
    scorer = fuzz.partial_ratio
    # A line much shorter than the pattern cannot be that similar to all of it
    # (partial_ratio would align the line inside the pattern and score it 100):
    # with n pattern characters a line needs n * c / (200 - c) of them to reach
    # cutoff c.  Line bytes >= line characters, so the byte length is a safe test.
    shortest_line = int(len(needle.strip()) * cutoff / (200.0 - cutoff))
    deadline = time.monotonic() + FUZZY_TIME_BUDGET
    stopped_line: int | None = None  # where a scan over its time budget stopped
    for base, buf, length in version.windows():
        if time.monotonic() > deadline:
            stopped_line = line_base
            break
        window_starts.append(base)
        window_lines.append(line_base)
        hay = buf[:length].lower()
        if pieces is None:
            pieces = _pieces(needle, bytes(hay[: 1 << 20]), encoding)
            if not pieces:
                return Found([], 0)
            if folded:
                text_pieces = [p.decode(encoding, errors="replace") for p in pieces]
        find = hay.find
        if folded:
            candidates = _folded_candidate_lines(buf, length, encoding, text_pieces, deadline)
        else:
            candidates = _candidate_lines(hay, length, pieces, deadline)
        if candidates is None:
            stopped_line = line_base
            break
        for seen, start in enumerate(candidates):
            if seen % _FUZZY_CHECK_EVERY == _FUZZY_CHECK_EVERY - 1 and time.monotonic() > deadline:
                stopped_line = line_base + hay.count(b"\n", 0, start)
                break
            end = find(b"\n", start, length)
            raw = hay[start : end if end >= 0 else length]
            if end >= 0 and raw.endswith(b"\r"):
                raw = raw[:-1]  # the \r of a CRLF ending is not part of the line
            if len(raw.rstrip()) < shortest_line:
                continue
            if folded:
                line_text = raw.decode(encoding, errors="replace").lower()
                score = (
                    100.0 if needle in line_text else scorer(needle, line_text, score_cutoff=cutoff)
                )
            elif exact_needle and exact_needle in raw:
                score = 100.0
            else:
                score = scorer(needle, raw.decode(encoding, errors="replace"), score_cutoff=cutoff)
            if not score:
                continue
            total += 1
            item = (score, -(base + start))
            if len(heap) < limit:
                heapq.heappush(heap, item)
            elif item > heap[0]:
                heapq.heapreplace(heap, item)
        if stopped_line is not None:
            break
        line_base += hay.count(b"\n")
    hits = []
    for score, neg_offset in sorted(heap, reverse=True):
        offset = -neg_offset
        i = bisect_right(window_starts, offset) - 1
        line = window_lines[i] + version.data[window_starts[i] : offset].count(b"\n")
        kind = "exact" if score >= 100.0 else "fuzzy"
        hits.append(Hit(offset, line, round(score / 100.0, 4), kind))
    found = Found(hits, total)
    if stopped_line is not None:
        found.timed_out = True
        found.stopped_line = stopped_line
    return found


def best_line(version: FileVersion, pattern: str) -> Hit | None:
    """Where ``pattern`` best matches: first exact occurrence, else best fuzzy line."""
    matcher = build_matcher(version, pattern, regex=False, case_sensitive=True)
    exact = search_lines(version, matcher, limit=1, invert=False, pattern=pattern, need_total=False)
    if exact.hits:
        return exact.hits[0]
    fuzzy = fuzzy_search(version, pattern, limit=1)
    return fuzzy.hits[0] if fuzzy.hits else None
