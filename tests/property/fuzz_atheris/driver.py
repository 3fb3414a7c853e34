"""The command: run the child, read its figures, confirm failures."""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from tests.property.fuzz_diff import seeds as diff_seeds

from .corpus import seed_inputs, write_dictionary

ROOT = diff_seeds.ROOT

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


def run(args: argparse.Namespace) -> int:
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
