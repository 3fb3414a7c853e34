"""Benchmark: what a review costs through diffchunk against plain git, in characters.

Usage::

    python -m benchmarks.bench_review [--only NAME ...] [--range REPO:A..B ...]
                                      [--path plan|chunks|files ...] [--quiet]
                                      [--dump DIR]

For a small and a medium release of real Python projects (:data:`RANGES`),
the characters a reviewer reads: plain git's commands
(:mod:`benchmarks.review_plain`) against an assistant that follows the
server's instructions through the SDK's stdio client
(:mod:`benchmarks.review_script`), both reading the same things, which
:mod:`benchmarks.review_reading` works out from git and Python's ``ast``:
the log, the overview, each changed file's diff (lock files aside), the
enclosing definitions of the changed lines of code, and the callers of the
changed definitions.  A request counts as written (a command, or a tool's
name and its JSON arguments), an answer as received; diffchunk's tool list
and instructions count once.  What diffchunk cannot read yet is a *gap*,
read with plain git and counted for it too.

Printed per range: each call and its size (not with ``--quiet``), then a
table of calls and characters per step, the totals, the ratio
diffchunk / plain git against the goal (at most 100% on the small range, 70%
on the medium one), and a warning for any changed line of code (or line of an
enclosing definition) that no answer showed.

Repositories are bare clones in ``$DIFFCHUNK_BENCH_REPOS`` (default
``bench-out/repos``), one directory per project (``click``, ``pydantic``),
cloned on first use from a local mirror when ``make bench-tokens``' lookup
finds one; without either, the range is skipped with the command that gets
it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks.bench_tokens import find_repo
from benchmarks.review_calls import (
    Reading,
    code_line_count,
    moved_lines,
    seen_lines,
    unread_definitions,
    unread_lines,
)
from benchmarks.review_plain import read_plain
from benchmarks.review_reading import RangeReading, git, read_range
from benchmarks.review_script import PATHS, run_path

ROOT = Path(__file__).resolve().parents[1]
#: The table's rows, in this order (steps no reader made are left out).
STEPS = (
    "connect",
    "overview",
    "log",
    "diffs: chunks",
    "diffs: code",
    "diffs: tests",
    "diffs: docs",
    "diffs: config",
    "unfold",
    "definitions",
    "callers",
    "record",
)


@dataclass(frozen=True)
class BenchRange:
    name: str  # the directory of its repository under the cache
    github: str  # owner/name
    rng: str
    size: str  # "small", "medium" or "" (no goal)
    goal: float | None  # diffchunk's characters at most this share of plain git's


RANGES = (
    BenchRange("pydantic", "pydantic/pydantic", "v2.13.3..v2.13.4", "small", 1.00),
    BenchRange("click", "pallets/click", "8.4.2..8.5.0", "medium", 0.70),
)


def repos_dir() -> Path:
    return Path(os.environ.get("DIFFCHUNK_BENCH_REPOS") or ROOT / "bench-out" / "repos")


def bench_repo(br: BenchRange) -> str | None:
    """The range's repository: a bare clone in :func:`repos_dir`, made from a mirror
    when there is one; None (and a line saying how to get it) when there is none or it
    lacks the range's revisions."""
    target = repos_dir() / br.name
    if not target.is_dir():
        source = find_repo((br.github.replace("/", "+") + "/repo", br.name))
        if source is None:
            print(
                f"(skipped {br.name} {br.rng}: no repository; get it with "
                f"`git clone --bare https://github.com/{br.github} {target}`)"
            )
            return None
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "--quiet", "--bare", source, str(target)], check=True)
    missing = _missing_revision(str(target), br.rng)
    if missing is not None:
        print(
            f"(skipped {br.name} {br.rng}: {missing}; "
            f"`git -C {target} fetch --tags https://github.com/{br.github}`)"
        )
        return None
    return str(target)


def _missing_revision(repo: str, rng: str) -> str | None:
    """What ``repo`` lacks to measure ``rng`` ("... has no 8.4.2"), or None."""
    if not Path(repo).is_dir():
        return f"{repo} is not a directory"
    for rev in rng.split(".."):
        try:
            git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        except subprocess.CalledProcessError:
            return f"{repo} has no {rev}"
    return None


def _fmt(n: int) -> str:
    return f"{n:,}" if n else "-"


_PATH_ARG = re.compile(r'"absolute_file_path":"[^"]*",?')


def print_calls(reading: Reading) -> None:
    print(f"\n  {reading.reader}: each call (request + answer characters)")
    for i, call in enumerate(reading.calls, 1):
        flag = "  ERROR" if call.error else ""
        shown = _PATH_ARG.sub("", call.request) or "(tool list and instructions)"
        print(f"  {i:>4}. {call.step:<14} {call.size:>7,}  {shown[:110]}{flag}")
    for gap in reading.gaps:
        for call in gap.instead:
            print(f"     gap {call.step:<14} {call.size:>7,}  {call.request[:110]}")


def print_table(plain: Reading, paths: list[Reading]) -> None:
    readers = [plain, *paths]
    tables = [r.steps() for r in readers]
    found = {s for t in tables for s in t}
    steps = [s for s in STEPS if s in found] + sorted(found - set(STEPS))
    head = "".join(f" {r.reader:>26}" for r in readers)
    print(f"\n  {'step':<16}{head}")
    print(f"  {'':<16}" + "".join(f" {'calls':>8} {'characters':>17}" for _ in readers))
    for step in steps:
        cells = "".join(
            f" {_fmt(t.get(step, (0, 0))[0]):>8} {_fmt(t.get(step, (0, 0))[1]):>17}" for t in tables
        )
        print(f"  {step:<16}{cells}")
    cells = ""
    for r in readers:
        n, chars = r.total()
        cells += f" {n:>8} {chars:>17,}"
    print(f"  {'total':<16}{cells}")
    cells = f" {'':>8} {'':>17}"
    for r in paths:
        n, chars = r.total()
        own_n, own = r.total(with_gaps=False)
        cells += f" {n - own_n:>8} {chars - own:>17,}"
    print(f"  {'of which gaps':<16}{cells}")


def print_verdict(br: BenchRange | None, plain: Reading, paths: list[Reading]) -> None:
    _, base = plain.total()
    for r in paths:
        _, chars = r.total()
        _, own = r.total(with_gaps=False)
        ratio = chars / base
        line = (
            f"  {r.reader}: {ratio:.0%} of plain git's characters "
            f"({own / base:.0%} without the gaps, read by git instead)"
        )
        if br is not None and br.goal is not None:
            holds = "holds" if ratio <= br.goal else "does not hold"
            line += f"; goal ≤ {br.goal:.0%} ({br.size} range): {holds}"
        print(line)
        for gap in _gap_summary(r):
            print(f"    gap: {gap}")
        for note in r.notes:
            print(f"    note: {note}")


def _gap_summary(r: Reading) -> list[str]:
    by_step: dict[str, tuple[int, int, str]] = {}
    for gap in r.gaps:
        n, chars, what = by_step.get(gap.step, (0, 0, gap.what))
        by_step[gap.step] = (n + 1, chars + sum(c.size for c in gap.instead), what)
    return [
        f"{step}: {n} item(s), {chars:,} characters of git (e.g. {what})"
        for step, (n, chars, what) in by_step.items()
    ]


def check(reading: RangeReading, readers: list[Reading]) -> None:
    """Warn for each reader that left a changed line of code, or a line of an enclosing
    definition, unread."""
    added, removed = code_line_count(reading)
    defs = sum(len(f.enclosing) for f in reading.files)
    print(
        f"  check: {added:,} added and {removed:,} removed lines of code (blank ones aside), "
        f"{defs} enclosing definitions"
    )
    for r in readers:
        calls = r.calls + [c for g in r.gaps for c in g.instead]
        moved = moved_lines(reading, calls)  # each moved file read from git once
        seen = seen_lines(calls) | moved.texts
        if moved.lines:
            print(
                f"    {r.reader}: {moved.lines:,} line(s) of {moved.chars:,} characters named "
                "as moved unchanged and not shown (both places read from git: the same)"
            )
        for claim in moved.wrong:
            print(f"    WARNING: {r.reader} names a move that does not hold: {claim}")
        lines = unread_lines(reading, seen)
        unread_defs = unread_definitions(reading, seen)
        if not lines and not unread_defs:
            print(f"    {r.reader}: every one read")
        if lines:
            count = sum(len(v) for v in lines.values())
            print(f"    WARNING: {r.reader} did not show {count:,} changed line(s) of code:")
        for path, missed in lines.items():
            shown = " ".join(f"{sign}{n}" for sign, n in missed[:12])
            more = f" (+{len(missed) - 12} more)" if len(missed) > 12 else ""
            print(f"      {path}: {shown}{more}")
        if unread_defs:
            count = sum(missing for *_, missing in unread_defs)
            print(
                f"    WARNING: {r.reader} did not show {count:,} line(s) of "
                f"{len(unread_defs)} enclosing definition(s):"
            )
        for path, name, missing in unread_defs:
            print(f"      {path}: {name} ({missing})")


def _file_name(text: str) -> str:
    return re.sub(r"[^\w.-]+", "_", text)


def dump(directory: Path, label: str, readers: list[Reading]) -> None:
    """Each call's request and answer in a file of its own under ``directory``
    (``<range>/<reader>/NNN-step.txt``), to read what each call cost."""
    for r in readers:
        where = directory / _file_name(label) / _file_name(r.reader)
        where.mkdir(parents=True, exist_ok=True)
        calls = r.calls + [c for g in r.gaps for c in g.instead]
        for i, call in enumerate(calls, 1):
            name = f"{i:03}-{_file_name(call.step)}.txt"
            (where / name).write_text(f"{call.request}\n\n{call.answer}\n", encoding="utf-8")


def bench(
    repo: str,
    rng: str,
    br: BenchRange | None,
    paths: list[str],
    quiet: bool,
    dump_to: Path | None = None,
) -> None:
    import anyio

    reading = read_range(repo, rng)
    raw = git(repo, "diff", rng)
    code = [f for f in reading.files if f.is_code]
    label = f"{br.name} {rng} ({br.size})" if br else f"{repo} {rng}"
    print(
        f"\n{label}: {len(reading.files) + len(reading.generated)} files "
        f"({len(code)} of code and tests; generated, not read: "
        f"{', '.join(reading.generated) or 'none'}); `git diff` {len(raw):,} characters"
    )
    plain = read_plain(reading)
    readers: list[Reading] = []
    for path in paths:
        with tempfile.TemporaryDirectory(prefix="bench-review-") as tmp:
            os.environ["DIFFCHUNK_STATE_DIR"] = os.path.join(tmp, "state")
            os.environ["DIFFCHUNK_CACHE_DIR"] = os.path.join(tmp, "cache")
            readers.append(anyio.run(run_path, reading, path))
    if not quiet:
        for r in [plain, *readers]:
            print_calls(r)
    print_table(plain, readers)
    print_verdict(br, plain, readers)
    check(reading, [plain, *readers])
    if dump_to is not None:
        dump(dump_to, br.name if br else rng, [plain, *readers])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="only these ranges of RANGES (pydantic, click)")  # fmt: skip
    parser.add_argument("--range", action="append", default=[], metavar="REPO:A..B",
                        help="another range to measure (no goal)")  # fmt: skip
    parser.add_argument("--path", action="append", choices=sorted(PATHS),
                        help="diffchunk's paths to run (default: all)")  # fmt: skip
    parser.add_argument("--quiet", action="store_true", help="no list of calls")
    parser.add_argument("--dump", type=Path, metavar="DIR",
                        help="write each call's request and answer under DIR")  # fmt: skip
    args = parser.parse_args(argv)
    paths = args.path or list(PATHS)
    for br in RANGES:
        if args.only and br.name not in args.only:
            continue
        if args.range and not args.only:
            continue
        repo = bench_repo(br)
        if repo is not None:
            bench(repo, br.rng, br, paths, args.quiet, args.dump)
    for spec in args.range:
        repo, _, rng = spec.rpartition(":")
        repo = os.path.abspath(repo)
        if rng.count("..") != 1 or "..." in rng:
            parser.error(f"--range {spec}: give REPO:A..B")
        missing = _missing_revision(repo, rng)
        if missing is not None:
            parser.error(f"--range {spec}: {missing}")
        bench(repo, rng, None, paths, args.quiet, args.dump)
    return 0


if __name__ == "__main__":
    sys.exit(main())
