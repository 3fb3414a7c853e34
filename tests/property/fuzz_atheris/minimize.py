"""Replay and minimize saved inputs (plain Python, no instrumentation)."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from pathlib import Path

from .inputs import check_one, signature, split_input


def replay_bytes(data: bytes) -> tuple[str | None, float, str]:
    """(failure signature or None, seconds, traceback) of one input."""
    start = time.perf_counter()
    try:
        check_one(data)
    except Exception as exc:
        return signature(exc), time.perf_counter() - start, "".join(traceback.format_exception(exc))
    return None, time.perf_counter() - start, ""


def replay(path: Path) -> tuple[str | None, float, str]:
    """:func:`replay_bytes` of a saved input."""
    return replay_bytes(path.read_bytes())


def _fails_as(data: bytes, key: str) -> bool:
    try:
        check_one(data)
    except Exception as exc:
        return signature(exc) == key
    return False


def _reduce(parts: list[bytes], keeps: Callable[[list[bytes]], bool]) -> list[bytes]:
    """Drop runs of parts while ``keeps`` says the failure stays.

    Runs of every length from half the parts down to one are tried at every
    position (a hunk to drop is rarely aligned to a power of two), repeated
    until nothing more can go.
    """
    changed = True
    while changed and parts:
        changed = False
        size = max(1, len(parts) // 2)
        while size >= 1:
            k = 0
            while k + size <= len(parts):
                trial = parts[:k] + parts[k + size :]
                if keeps(trial):
                    parts = trial
                    changed = True
                else:
                    k += 1
            size = size // 2 if size > 8 else size - 1
    return parts


_BLOCK_START = (b"@@", b"diff ", b"--- ", b"commit ", b"From ", b"Index: ")


def _blocks(diff: bytes) -> list[bytes]:
    """``diff`` cut before every header line (hunk, file, commit)."""
    blocks: list[bytes] = []
    for line in diff.splitlines(keepends=True):
        if not blocks or line.startswith(_BLOCK_START):
            blocks.append(line)
        else:
            blocks[-1] += line
    return blocks


def minimize(data: bytes, key: str, *, max_bytes_pass: int = 2000) -> bytes:
    """A smaller input failing with the same signature: whole hunks and files out,
    then lines, then bytes (when at most ``max_bytes_pass`` are left), then option
    bytes set to zero where that changes nothing."""
    options, diff = split_input(data)

    def keeps(parts: list[bytes]) -> bool:
        return _fails_as(options + b"".join(parts), key)

    diff = b"".join(_reduce(_blocks(diff), keeps))
    diff = b"".join(_reduce(diff.splitlines(keepends=True), keeps))
    if len(diff) <= max_bytes_pass:
        diff = b"".join(_reduce([bytes([b]) for b in diff], keeps))
    opts = bytearray(options)
    for k in range(len(opts)):
        if opts[k]:
            old, opts[k] = opts[k], 0
            if not _fails_as(bytes(opts) + diff, key):
                opts[k] = old
    return bytes(opts) + diff
