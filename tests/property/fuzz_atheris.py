"""Coverage-guided fuzzing of the diff engine with atheris (libFuzzer for Python).

Usage::

    python -m benchmarks.fuzz_atheris --runs 100000 [--seconds T] [--crash-dir DIR]
                                      [--corpus-dir DIR] [--max-len BYTES]
    python -m benchmarks.fuzz_atheris --replay FILE [FILE ...]
    python -m benchmarks.fuzz_atheris --minimize FILE

atheris (``pip install atheris``) drives the input; the properties are the
ones ``benchmarks/fuzz_diff.py`` checks (:func:`benchmarks.fuzz_diff.check_input`):
only ``NotADiffError`` from the parser and ``InvalidArgument`` from the
filters, sections that tile the input byte for byte, every file kept or
excluded exactly once, chunk budgets and counts, every chunk rendered and
formatted in every mode, chunks of sound files re-parsing to the same changes,
``reduce_context`` output re-parsing to the same files and counts.  On top of
those, one input (every call on it together) must take less than
``--time-limit`` seconds.  Applying chunks with ``git apply`` needs a
repository per case and stays with ``python -m benchmarks.fuzz_diff`` (its
``git`` cases); this harness runs in process.

An input is ``OPTION_BYTES`` option bytes followed by the diff text.  The option
bytes answer the draws ``check_input`` makes (skip trivial or generated files,
include/exclude patterns, gitattributes, chunk budgets, context lines), so the
fuzzer explores options and text together and a saved input replays exactly.

The seed corpus: the fixtures (``fixtures/``, ``fixtures/fuzz/`` but for its
``crash-*`` inputs still being looked at) and, when
present, windows of at most ``--max-len`` bytes of the ``../shared/corpus``
files, each starting at a section header.  A libFuzzer dictionary is made
from ``benchmarks.fuzz_diff.INTERESTING_LINES``.  Only the ``diffchunk.diff``
modules are instrumented.

The run happens in a child process (libFuzzer ends the process when it is
done); this command reads its output and prints executions, the coverage
figures libFuzzer reports (``cov``: covered edges of the instrumented code,
``ft``: features, ``corp``: corpus entries) at the start and at the end, and
every distinct failure.  A failing input is written to ``--crash-dir`` as
``<kind>-<hash>`` (kinds: ``error``, ``property``, ``slow``) with its
traceback in ``<kind>-<hash>.txt``; the run goes on (``--stop-on-crash``
ends it at the first one).  The instrumented child is slower than plain
Python, so it flags inputs over ``--time-limit`` times ``--slack`` and every
saved failure is then replayed in a fresh, uninstrumented process, where
``slow`` means over ``--time-limit`` itself.  The last line printed is
``N executions, N distinct failures (N confirmed)``; the exit code is 1 when
a failure other than an unconfirmed ``slow`` one was found.

``--replay`` checks saved inputs in plain Python and prints each failure's
traceback; ``--minimize`` shrinks a failing input (whole hunks and files,
then lines, then bytes, then option bytes set to zero) while it fails the
same way, and prints what is left.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import logging
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from diffchunk.errors import DiffchunkError
from tests.property import fuzz_diff as fz

ROOT = fz.ROOT
OPTION_BYTES = 16
MAX_LEN = 4096  # bytes per input, option bytes included
WINDOWS_PER_FILE = 8  # seed windows taken from each corpus file
DEFAULT_CRASH_DIR = ROOT / "bench-out" / "fuzz-atheris" / "crashes"
INSTRUMENTED = "diffchunk.diff"
_DICT_ENTRY_MAX = 64  # libFuzzer refuses longer dictionary entries
_SECTION_START = re.compile(rb"(?m)^(?:diff |commit [0-9a-f]|From [0-9a-f]{40} |Index: )")


# --------------------------------------------------------------------------
# One input
# --------------------------------------------------------------------------


class ByteSource:
    """A :class:`benchmarks.fuzz_diff.Source` answering draws from the option bytes.

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


class SlowInput(fz.PropertyFailure):
    """All the checks on one input (or one call) took longer than the time limit."""

    def __init__(self, message: str, elapsed: float) -> None:
        super().__init__(message)
        self.elapsed = elapsed


def check_one(data: bytes) -> fz.CaseResult:
    """Every property on one fuzz input; raises on a failure.

    The time limit is ``benchmarks.fuzz_diff.TIME_LIMIT``, for each call (as
    ``check_input`` times them) and for the whole input.
    """
    options, diff = split_input(data)
    limit = fz.TIME_LIMIT
    start = time.perf_counter()
    try:
        result = fz.check_input(diff, ByteSource(options))
    except fz.PropertyFailure as exc:
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
    if isinstance(exc, fz.PropertyFailure):
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


# --------------------------------------------------------------------------
# Seeds and dictionary
# --------------------------------------------------------------------------


def windows(data: bytes, room: int, count: int) -> list[bytes]:
    """Up to ``count`` slices of ``data`` of at most ``room`` bytes, in whole lines,
    each starting at a section header (the first at the start of ``data``)."""
    if len(data) <= room:
        return [data]
    starts = [0, *(m.start() for m in _SECTION_START.finditer(data))]
    if len(starts) > count:
        step = len(starts) / count
        starts = [starts[int(k * step)] for k in range(count)]
    out: list[bytes] = []
    for start in starts:
        piece = data[start : start + room]
        cut = piece.rfind(b"\n") + 1
        piece = piece[:cut] if cut else piece
        if piece and piece not in out:
            out.append(piece)
    return out


def _corpus_files() -> list[Path]:
    if not fz.CORPUS.is_dir():
        return []
    return sorted(p for p in fz.CORPUS.iterdir() if p.is_file() and p.suffix in fz._SEED_SUFFIXES)


def _with_options(diff: bytes, variant: int) -> bytes:
    return hashlib.sha256(b"%d:" % variant + diff).digest()[:OPTION_BYTES] + diff


def seed_inputs(max_len: int = MAX_LEN, *, corpus: bool = True) -> list[bytes]:
    """The seed corpus: each fixture with two sets of option bytes, and windows of
    the shared corpus files (when present and ``corpus``), at most ``max_len`` bytes."""
    room = max_len - OPTION_BYTES
    if room <= 0:
        raise ValueError(f"max_len must be over {OPTION_BYTES} bytes")
    out: list[bytes] = []
    for diff in fz.load_seeds(corpus=False, crashes=False):
        for piece in windows(diff, room, WINDOWS_PER_FILE):
            out += [_with_options(piece, 0), _with_options(piece, 1)]
    if corpus:
        for path in _corpus_files():
            for piece in windows(path.read_bytes(), room, WINDOWS_PER_FILE):
                out.append(_with_options(piece, 0))
    return list(dict.fromkeys(out))


def dictionary_entry(token: bytes) -> str:
    """``token`` as a libFuzzer dictionary line."""
    chars = []
    for b in token:
        if b in (0x22, 0x5C):
            chars.append("\\" + chr(b))
        elif 0x20 <= b < 0x7F:
            chars.append(chr(b))
        else:
            chars.append(f"\\x{b:02X}")
    return '"' + "".join(chars) + '"'


def dictionary_tokens() -> list[bytes]:
    tokens: list[bytes] = []
    for line in fz.INTERESTING_LINES:
        for token in (line, line.rstrip(b"\r\n")):
            if 0 < len(token) <= _DICT_ENTRY_MAX and token not in tokens:
                tokens.append(token)
    return tokens


def write_dictionary(path: Path) -> int:
    tokens = dictionary_tokens()
    path.write_text("".join(dictionary_entry(t) + "\n" for t in tokens), encoding="ascii")
    return len(tokens)


# --------------------------------------------------------------------------
# Replay and minimize (plain Python, no instrumentation)
# --------------------------------------------------------------------------


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


# --------------------------------------------------------------------------
# The fuzzing child process
# --------------------------------------------------------------------------


def instrument(prefix: str = INSTRUMENTED) -> int:
    """Add atheris coverage and comparison tracing to every loaded function of ``prefix``."""
    import atheris

    count = 0
    for obj in gc.get_objects():
        if not isinstance(obj, types.FunctionType):
            continue
        module = getattr(obj, "__module__", None) or ""
        if module == prefix or module.startswith(prefix + "."):
            atheris.instrument_func(obj)
            count += 1
    return count


def _child(args: argparse.Namespace) -> int:
    import atheris

    fz.TIME_LIMIT = args.time_limit * args.slack
    # warnings about fuzzed inputs (a bad .gitattributes pattern...) are expected
    logging.disable(logging.WARNING)
    print(f"INFO: instrumented {instrument()} functions of {INSTRUMENTED}", flush=True)
    recorder = Recorder(
        Path(args.crash_dir),
        Path(args.failure_log) if args.failure_log else None,
        keep=args.keep,
        stop_on_crash=args.stop_on_crash,
    )
    flags = [
        f"-max_len={args.max_len}",
        f"-timeout={args.hang_timeout}",
        f"-artifact_prefix={Path(args.crash_dir)}{os.sep}",
        "-print_final_stats=1",
        f"-seed={args.seed}",
    ]
    if args.runs:
        flags.append(f"-runs={args.runs}")
    if args.seconds:
        flags.append(f"-max_total_time={args.seconds}")
    if args.dict:
        flags.append(f"-dict={args.dict}")
    flags += args.libfuzzer
    atheris.Setup([sys.argv[0], *flags, args.corpus_dir], recorder.run_one)
    atheris.Fuzz()
    return 0  # not reached: libFuzzer ends the process


# --------------------------------------------------------------------------
# The command: run the child, read its figures, confirm failures
# --------------------------------------------------------------------------

_STATUS = re.compile(
    r"^#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)"
    r"(?: lim: \d+)?(?: exec/s: (\d+))?(?: rss: (\d+)Mb)?"
)
_STAT = re.compile(r"^stat::(\w+):\s+(\d+)")
_DONE = re.compile(r"^Done (\d+) runs in (\d+) second")
# libFuzzer lines not worth showing: setup notes, sanitizer hooks Python has no use
# for, and the dictionary it recommends at the end (entries it learnt from comparisons)
_QUIET = (
    "INFO: Seed",
    "INFO: Loaded",
    "INFO: -max_len",
    "INFO: A corpus",
    "WARNING: Failed to find function",
    '"',
    "###### ",
)


@dataclass
class Figures:
    """What libFuzzer printed: status lines and final stats."""

    inited: dict[str, str] = field(default_factory=dict)
    last: dict[str, str] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)
    done_runs: int | None = None
    other: list[str] = field(default_factory=list)  # crash reports, errors

    def feed(self, line: str) -> str | None:
        """Take one output line; returns what to show of it (None: nothing)."""
        m = _STATUS.match(line)
        if m:
            status = {
                "execs": m[1],
                "event": m[2],
                "cov": m[3],
                "ft": m[4],
                "corp": m[5],
                "corp_size": m[6],
                "exec_s": m[7] or "?",
                "rss_mb": m[8] or "?",
            }
            self.last = status
            if m[2] == "INITED":
                self.inited = status
            return line if m[2] in ("INITED", "pulse", "DONE") else None
        m = _STAT.match(line)
        if m:
            self.stats[m[1]] = int(m[2])
            return line
        m = _DONE.match(line)
        if m:
            self.done_runs = int(m[1])
            return line
        if line.startswith(_QUIET):
            return None
        if line.strip():
            self.other.append(line)
        return line

    def executions(self) -> int:
        if "number_of_executed_units" in self.stats:
            return self.stats["number_of_executed_units"]
        if self.done_runs is not None:
            return self.done_runs
        return int(self.last.get("execs", 0))


def _read_log(path: Path) -> tuple[dict[str, int], dict[str, list[Path]]]:
    counts: dict[str, int] = {}
    saved: dict[str, list[Path]] = {}
    if not path.exists():
        return counts, saved
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        counts[entry["key"]] = counts.get(entry["key"], 0) + 1
        if entry["path"]:
            saved.setdefault(entry["key"], []).append(Path(entry["path"]))
    return counts, saved


def _replay_fresh(path: Path, time_limit: float) -> tuple[bool, str]:
    """Replay one input in a new, uninstrumented process: (fails, its report)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.property.fuzz_atheris",
            "--replay",
            str(path),
            "--time-limit",
            str(time_limit),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    return done.returncode != 0, lines[0] if lines else done.stderr.strip()[-300:]


def _new_artifacts(crash_dir: Path, before: set[Path]) -> list[Path]:
    """libFuzzer's own crash/timeout/oom files written during the run."""
    if not crash_dir.is_dir():
        return []
    return sorted(
        p
        for p in crash_dir.iterdir()
        if p not in before and p.name.startswith(("crash-", "timeout-", "oom-", "leak-"))
    )


def _stream(cmd: list[str], figures: Figures, verbose: bool, report_every: float) -> int:
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    )
    assert proc.stdout is not None
    last_report = time.monotonic()
    for line in _lines(proc.stdout):
        shown = figures.feed(line)
        if verbose or (shown is not None):
            print(line, flush=True)
        elif figures.last and time.monotonic() - last_report >= report_every:
            print(line, flush=True)  # a status line now and then on long runs
            last_report = time.monotonic()
    return proc.wait()


def _lines(stream: IO[str]) -> Iterator[str]:
    for line in stream:
        yield line.rstrip("\n")


def _run(args: argparse.Namespace) -> int:
    try:
        import atheris  # noqa: F401
    except ImportError as exc:
        print(f"atheris is not importable ({exc}): pip install atheris", file=sys.stderr)
        return 2
    crash_dir = Path(args.crash_dir).resolve()
    crash_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="fuzz-atheris-") as tmp:
        work = Path(tmp)
        corpus_dir = Path(args.corpus_dir).resolve() if args.corpus_dir else work / "corpus"
        corpus_dir.mkdir(parents=True, exist_ok=True)
        seeds = seed_inputs(args.max_len, corpus=not args.no_shared_corpus)
        for data in seeds:
            (corpus_dir / f"seed-{hashlib.sha1(data).hexdigest()}").write_bytes(data)
        dict_path = work / "diff.dict"
        tokens = write_dictionary(dict_path)
        log = work / "failures.jsonl"
        print(
            f"{len(seeds)} seed inputs (max {args.max_len} bytes) in {corpus_dir}; "
            f"{tokens} dictionary tokens; failures go to {crash_dir}",
            flush=True,
        )
        cmd = [
            sys.executable,
            "-m",
            "tests.property.fuzz_atheris",
            "--child",
            "--runs",
            str(args.runs),
            "--seconds",
            str(args.seconds),
            "--max-len",
            str(args.max_len),
            "--time-limit",
            str(args.time_limit),
            "--slack",
            str(args.slack),
            "--hang-timeout",
            str(args.hang_timeout),
            "--seed",
            str(args.seed),
            "--keep",
            str(args.keep),
            "--crash-dir",
            str(crash_dir),
            "--corpus-dir",
            str(corpus_dir),
            "--dict",
            str(dict_path),
            "--failure-log",
            str(log),
            *(["--stop-on-crash"] if args.stop_on_crash else []),
            *(f"--libfuzzer={flag}" for flag in args.libfuzzer),
        ]
        before = set(crash_dir.iterdir())
        figures = Figures()
        started = time.monotonic()
        code = _stream(cmd, figures, args.verbose, args.report_every)
        wall = time.monotonic() - started
        counts, saved = _read_log(log)
        artifacts = _new_artifacts(crash_dir, before)
        corpus_final = sum(1 for _ in corpus_dir.iterdir())
    return _summary(args, figures, code, wall, counts, saved, artifacts, corpus_final)


def _summary(
    args: argparse.Namespace,
    figures: Figures,
    code: int,
    wall: float,
    counts: dict[str, int],
    saved: dict[str, list[Path]],
    artifacts: list[Path],
    corpus_final: int,
) -> int:
    execs = figures.executions()
    print()
    print(f"exit code of the fuzzing process: {code}")
    print(f"executions: {execs} in {wall:.0f}s wall ({execs / max(wall, 1e-9):.0f}/s)")
    if figures.inited:
        i = figures.inited
        print(f"coverage at start (seed corpus): cov {i['cov']}, ft {i['ft']}, corp {i['corp']}")
    if figures.last:
        last = figures.last
        print(
            f"coverage at end: cov {last['cov']}, ft {last['ft']}, "
            f"corp {last['corp']}/{last['corp_size']}, rss {last['rss_mb']} MB"
        )
    if figures.stats:
        print("final stats: " + ", ".join(f"{k}={v}" for k, v in figures.stats.items()))
    print(f"corpus files at the end: {corpus_final}")
    confirmed = 0
    known: dict[bytes, Path] = {}
    for key, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        paths = [p for p in dict.fromkeys(saved.get(key, [])) if p.exists()]
        print(f"failure x{n}: {key}")
        verdict = "NOT reproduced"
        for path in paths:
            known[path.read_bytes()] = path
            fails, report = _replay_fresh(path, args.time_limit)
            print(f"    {path}: {report}")
            if fails:
                verdict = "confirmed"
                break
        confirmed += verdict == "confirmed"
        if paths:
            print(f"    {verdict} in a fresh, uninstrumented process")
    extra = 0
    for path in artifacts:
        same = known.get(path.read_bytes())
        if same is not None:
            print(f"libFuzzer stopped on {path} (the input of {same.name})")
            continue
        extra += 1
        print(f"libFuzzer artifact (a crash, hang or memory blow-up the run stopped on): {path}")
    if code != 0 and not artifacts and not counts:
        print("the fuzzing process failed; its last lines:")
        for line in figures.other[-20:]:
            print(f"    {line}")
    distinct = len(counts) + extra
    confirmed += extra
    print(f"{execs} executions, {distinct} distinct failures ({confirmed} confirmed)", flush=True)
    # an unconfirmed slow input is the instrumented process being slow; anything else counts
    real = confirmed or any(key != "slow" for key in counts)
    return 1 if real or (code != 0 and not counts and not artifacts) else 0


def _replay_command(paths: Sequence[Path]) -> int:
    failed = 0
    for path in paths:
        key, seconds, error = replay(path)
        if key is None:
            print(f"ok {path} ({seconds:.3f}s; {describe(path.read_bytes())})")
        else:
            failed += 1
            print(f"FAIL {path} ({seconds:.3f}s): {key}")
            print(error)
    return 1 if failed else 0


def _minimize_command(path: Path, out: Path | None) -> int:
    data = path.read_bytes()
    key, _, _ = replay(path)
    if key is None:
        print(f"{path} does not fail: nothing to minimize")
        return 1
    small = minimize(data, key)
    target = out or path.with_name(path.name + ".min")
    target.write_bytes(small)
    options, diff = split_input(small)
    print(f"{key}\n{len(data)} -> {len(small)} bytes: {target}")
    print(f"option bytes: {options.hex()}")
    print("diff text:")
    sys.stdout.write(diff.decode("utf-8", errors="backslashreplace"))
    print()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.fuzz_atheris",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--runs", type=int, default=100_000, help="executions (0: no limit)")
    ap.add_argument("--seconds", type=int, default=0, help="stop after this long (0: no limit)")
    ap.add_argument("--crash-dir", default=str(DEFAULT_CRASH_DIR), help="failing inputs go here")
    ap.add_argument("--corpus-dir", help="keep the corpus here (default: a temporary directory)")
    ap.add_argument("--max-len", type=int, default=MAX_LEN, help="bytes per input")
    ap.add_argument("--time-limit", type=float, default=fz.TIME_LIMIT, help="seconds per input")
    ap.add_argument(
        "--slack", type=float, default=3.0, help="time-limit factor in the instrumented process"
    )
    ap.add_argument("--hang-timeout", type=int, default=30, help="libFuzzer -timeout (seconds)")
    ap.add_argument("--seed", type=int, default=1, help="libFuzzer -seed")
    ap.add_argument("--keep", type=int, default=3, help="inputs saved per distinct failure")
    ap.add_argument("--stop-on-crash", action="store_true", help="end at the first failure")
    ap.add_argument("--no-shared-corpus", action="store_true", help="seed from fixtures only")
    ap.add_argument(
        "--libfuzzer",
        action="append",
        default=[],
        help="an extra libFuzzer flag, e.g. -len_control=0",
    )
    ap.add_argument("--report-every", type=float, default=60.0, help="seconds between status lines")
    ap.add_argument("--verbose", action="store_true", help="show every libFuzzer line")
    ap.add_argument("--replay", nargs="+", type=Path, metavar="FILE", help="check saved inputs")
    ap.add_argument("--minimize", type=Path, metavar="FILE", help="shrink a failing input")
    ap.add_argument("--out", type=Path, help="where --minimize writes (default FILE.min)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--dict", help=argparse.SUPPRESS)
    ap.add_argument("--failure-log", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.max_len <= OPTION_BYTES:
        ap.error(f"--max-len must be over {OPTION_BYTES}")
    if not (args.replay or args.minimize or args.child or args.runs or args.seconds):
        ap.error("give --runs or --seconds (or both)")
    previous, fz.TIME_LIMIT = fz.TIME_LIMIT, args.time_limit
    try:
        if args.replay:
            return _replay_command(args.replay)
        if args.minimize:
            return _minimize_command(args.minimize, args.out)
        if args.child:
            return _child(args)
        return _run(args)
    finally:
        fz.TIME_LIMIT = previous


if __name__ == "__main__":
    sys.exit(main())
