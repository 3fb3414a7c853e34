"""The exact line search of a large file handed to the system's ``grep``.

For files of :data:`GREP_MIN_BYTES` and more, exact counts (``grep -c``) and
first matches (``grep -n -b -m N``, run beside the count) come from
``grep -F -a`` when it is installed, in the C locale, with the pattern passed
as data (``-e``).  The answers are those of the Python scan (a line is the
bytes up to ``\\n``; an unterminated last line counts; ASCII-only case
folding): any difference of meaning (a non-ASCII pattern searched without
case, a transcoded file, a NUL in the pattern, only a byte-order mark) keeps
the Python scan, and so does any failure.  ``DIFFCHUNK_NO_GREP=1`` turns the
hand-off off.  grep reads the very version the caller holds: a file that
changed (fingerprint) before or after is not used.  grep holds a whole line
in memory: its address space is capped (:data:`GREP_ADDRESS_SPACE`), and a
grep that runs out (a line of hundreds of megabytes) is a failure like any
other.
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import shutil
import subprocess
from collections.abc import Callable, Sequence
from typing import IO

from .. import settings
from ..paths import fingerprint
from .access import FileVersion
from .matchers import Found, Hit

GREP_MIN_BYTES = 8 * 1024 * 1024
"""Exact counts and searches on files at least this large are delegated to
``grep`` when present (``DIFFCHUNK_NO_GREP=1`` turns it off): below, starting
a process costs more than the scan."""

GREP_ADDRESS_SPACE = 256 * 1024 * 1024
"""Address space a grep child may use: GNU grep holds a whole line, about twice
(133 MB for a 64 MB line), so a gigabyte one-line file took 2 GB in grep
alone; capped, such a grep fails and the Python scan, which reads a long
line in pieces, answers (lines up to about 100 MB still go to grep)."""

_LISTING_BLOCK = 1 << 16
"""Bytes of grep's listing read at a time: the listing is read as a stream,
stepping over each listed line (a 300 MB one-line log: peak RSS 591 -> 24 MB)."""

GREP_HEADER_BYTES = 48
"""Room for the ``LINE:OFFSET:`` grep writes before a listed line: two 20-digit
numbers fit."""


@functools.lru_cache(maxsize=1)
def _grep_path() -> str | None:
    return shutil.which("grep")


def _grep_command(
    version: FileVersion, pattern: str, *, case_sensitive: bool, invert: bool
) -> list[str | bytes] | None:
    if settings.flag("DIFFCHUNK_NO_GREP") or version.transcoded or version.size < GREP_MIN_BYTES:
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


def _bound_memory(pid: int) -> None:
    """Cap grep's address space at :data:`GREP_ADDRESS_SPACE`: grep holds a whole line
    (twice), so a line of a gigabyte would take gigabytes; it fails instead, and the
    Python scan (which reads a long line in pieces) answers."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        resource.prlimit(pid, resource.RLIMIT_AS, (GREP_ADDRESS_SPACE, GREP_ADDRESS_SPACE))


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
            _bound_memory(procs[-1].pid)
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
        while buf.count(b":", pos, pos + GREP_HEADER_BYTES) < 2:  # two numbers and their colons
            if len(buf) - pos >= GREP_HEADER_BYTES:
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
