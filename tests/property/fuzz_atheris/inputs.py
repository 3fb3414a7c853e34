"""One fuzz input: option bytes that answer the checks' draws, then the diff text.

:func:`check_one` runs every property of :mod:`tests.property.fuzz_diff.checks`
on it under the time limit; :class:`Recorder` is the fuzz target, which keeps
the fuzzer going on a failure and saves the failing input.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from diffchunk.errors import DiffchunkError
from tests.property.fuzz_diff import checks

OPTION_BYTES = 16
MAX_LEN = 4096  # bytes per input, option bytes included


class ByteSource:
    """A :class:`tests.property.fuzz_diff.draws.Source` answering draws from the option bytes.

    Each draw takes as many option bytes as its range needs; once they run out,
    draws come from a PRNG seeded with the option bytes, so an input always
    replays the same way.
    """

    def __init__(self, options: bytes) -> None:
        self.options = options
        self.used = 0
        self._rng = random.Random(options)

    def integer(self, lo: int, hi: int) -> int:
        span = hi - lo + 1
        if span <= 1:
            return lo
        width = ((span - 1).bit_length() + 7) // 8
        if self.used + width > len(self.options):
            return self._rng.randint(lo, hi)
        value = int.from_bytes(self.options[self.used : self.used + width], "big")
        self.used += width
        return lo + value % span

    def raw(self, lo: int, hi: int) -> bytes:
        return self._rng.randbytes(self.integer(lo, hi))


def split_input(data: bytes) -> tuple[bytes, bytes]:
    """(option bytes, diff text) of a fuzz input."""
    return data[:OPTION_BYTES], data[OPTION_BYTES:]


class SlowInput(checks.PropertyFailure):
    """All the checks on one input (or one call) took longer than the time limit."""

    def __init__(self, message: str, elapsed: float) -> None:
        super().__init__(message)
        self.elapsed = elapsed


def check_one(data: bytes) -> checks.CaseResult:
    """Every property on one fuzz input; raises on a failure.

    The time limit is ``tests.property.fuzz_diff.checks.TIME_LIMIT``, for each call (as
    ``check_input`` times them) and for the whole input.
    """
    options, diff = split_input(data)
    limit = checks.TIME_LIMIT
    start = time.perf_counter()
    try:
        result = checks.check_input(diff, ByteSource(options))
    except checks.PropertyFailure as exc:
        elapsed = time.perf_counter() - start
        if elapsed >= limit:
            raise SlowInput(f"{exc} (the input took {elapsed:.3f}s)", elapsed) from exc
        raise
    elapsed = time.perf_counter() - start
    if elapsed >= limit:
        raise SlowInput(f"the input took {elapsed:.3f}s (limit {limit}s)", elapsed)
    return result


def failure_kind(exc: BaseException) -> str:
    if isinstance(exc, SlowInput):
        return "slow"
    if isinstance(exc, checks.PropertyFailure):
        return "property"
    return "error"


def _where(exc: BaseException) -> str:
    """The innermost frame of the package in the traceback, as ``module.py:function``."""
    place = "?"
    for frame in traceback.extract_tb(exc.__traceback__):
        if f"{os.sep}diffchunk{os.sep}" in frame.filename:
            place = f"{Path(frame.filename).name}:{frame.name}"
    return place


def signature(exc: BaseException) -> str:
    """What tells one failure from another: kind, type, place and message shape."""
    kind = failure_kind(exc)
    if kind == "slow":
        return "slow"
    # numbers, quoted names and lists vary between inputs that hit the same bug
    message = str(exc).splitlines()[0] if str(exc) else ""
    message = re.sub(r"'[^']*'|\"[^\"]*\"|\[[^\]]*\]|\([^)]*\)", "…", message)
    message = re.sub(r"\d+", "N", message)[:60]
    if kind == "property":
        return f"property: {message}"
    documented = ""
    if isinstance(exc, DiffchunkError):
        documented = " (a documented error type, raised where none may be)"
    return f"{type(exc).__name__} at {_where(exc)}{documented}: {message}"


def describe(data: bytes) -> str:
    """The option bytes of ``data`` (in hex) and the size of its diff text."""
    options, diff = split_input(data)
    return f"option bytes {options.hex()}; diff text {len(diff)} bytes"


@dataclass
class Recorder:
    """Runs inputs, keeps the fuzzer going on failures, saves failing inputs
    (the first ``keep`` of each distinct failure; the ``keep`` slowest slow ones)."""

    crash_dir: Path
    log: Path | None = None
    keep: int = 3  # inputs saved per distinct failure
    stop_on_crash: bool = False
    counts: dict[str, int] = field(default_factory=dict)
    saved: dict[str, list[Path]] = field(default_factory=dict)
    runs: int = 0
    _slow: dict[Path, float] = field(default_factory=dict)

    def run_one(self, data: bytes) -> None:
        """The fuzz target: check ``data``; a failure is recorded, not raised."""
        self.runs += 1
        try:
            check_one(data)
        except Exception as exc:
            self.record(data, exc)
            if self.stop_on_crash:
                raise

    def record(self, data: bytes, exc: BaseException) -> Path | None:
        key = signature(exc)
        first = key not in self.counts
        self.counts[key] = self.counts.get(key, 0) + 1
        saved = self.saved.setdefault(key, [])
        path = None
        if isinstance(exc, SlowInput) and len(saved) >= self.keep > 0:
            fastest = min(saved, key=lambda p: self._slow[p])
            if exc.elapsed > self._slow[fastest]:
                saved.remove(fastest)
                fastest.unlink(missing_ok=True)
                fastest.with_name(fastest.name + ".txt").unlink(missing_ok=True)
        if len(saved) < self.keep:
            path = self.save(data, exc)
            if path not in saved:
                saved.append(path)
            if isinstance(exc, SlowInput):
                self._slow[path] = exc.elapsed
        if first:
            where = f" -> {path}" if path else ""
            print(f"FAIL after {self.runs} inputs: {key}{where}", file=sys.stderr, flush=True)
        if self.log is not None:
            entry = {"key": key, "kind": failure_kind(exc), "path": str(path) if path else None}
            with self.log.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry) + "\n")
        return path

    def save(self, data: bytes, exc: BaseException) -> Path:
        self.crash_dir.mkdir(parents=True, exist_ok=True)
        path = self.crash_dir / f"{failure_kind(exc)}-{hashlib.sha1(data).hexdigest()[:16]}"
        path.write_bytes(data)
        error = "".join(traceback.format_exception(exc))
        text = f"{signature(exc)}\n{describe(data)}\n\n{error}"
        path.with_name(path.name + ".txt").write_text(text, encoding="utf-8")
        return path
