"""Benchmark: what each start-up measure of the ``diffchunk`` command is worth.

Usage::

    python -m benchmarks.bench_startup [--runs N]

Runs the console script (:mod:`diffchunk.console`) as installed (see
``benchmarks/bench_git.py``) with every measure on, with each measure off in
turn, and with all of them off, on:

* ``review A..B --json``, cold (empty diff cache: git diff runs) and warm,
  on the generated repository of ``bench_git`` (16 MB range);
* ``review FILE --json`` on the 7 MB corpus diff (when ``../shared`` is
  present) or a generated diff of the same size;
* ``--version`` (start and exit only).

The variants of one command run round by round, interleaved, so a shared
host's drift shifts them alike; the figures are medians of wall-clock time.
A measure's worth is the time its absence adds.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.bench_git import DEFAULT_REPO, ROOT, _installed_python, build_repo
from tests.property.gen_diff import generate

CORPUS = ROOT.parent / "shared" / "corpus" / "sqlalchemy_rel_1_4_0..rel_1_4_54.diff"
VARIANTS: dict[str, tuple[str, ...]] = {
    "all on": (),
    "gc off": ("gc",),
    "early start off": ("early",),
    "fast exit off": ("exit",),
    "all off": ("gc", "early", "exit"),
}


def _code(off: tuple[str, ...]) -> str:
    return f"from diffchunk.console import main; main(off={off!r})"


def _time(fn: Callable[[], None]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args(argv)
    if not (DEFAULT_REPO / ".git").exists():
        print(f"building {DEFAULT_REPO}...", file=sys.stderr)
        build_repo(DEFAULT_REPO)
    compileall.compile_dir(str(ROOT / "diffchunk"), quiet=1)
    scratch = Path(tempfile.mkdtemp(prefix="diffchunk-bench-startup-"))
    cache = scratch / "cache"
    cache.mkdir()
    installed = _installed_python(scratch / "venv")
    diff_file = CORPUS
    if not diff_file.exists():
        diff_file = scratch / "generated.diff"
        diff_file.write_bytes(generate(190_000, seed=7))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["DIFFCHUNK_CACHE_DIR"] = str(cache)
    commands: dict[str, tuple[list[str], bool]] = {
        "review A..B --json, cold": (
            ["review", "--repo", str(DEFAULT_REPO), "bench-a..bench-b", "--json"],
            True,
        ),
        "review A..B --json, warm": (
            ["review", "--repo", str(DEFAULT_REPO), "bench-a..bench-b", "--json"],
            False,
        ),
        "review FILE --json": (["review", str(diff_file), "--json"], False),
        "--version": (["--version"], False),
    }

    def clear_cache() -> None:
        for entry in cache.iterdir():
            entry.unlink()

    print(
        f"median wall-clock of {args.runs} interleaved rounds (ms); + = cost of the measure's absence"
    )
    header = "".join(f"{name:>17}" for name in VARIANTS)
    print(f"{'command':<28}{header}")
    with open(os.devnull, "wb") as null:
        for label, (cli_args, cold) in commands.items():

            def run(
                off: tuple[str, ...], cli_args: list[str] = cli_args, cold: bool = cold
            ) -> None:
                if cold:
                    clear_cache()
                subprocess.run(
                    [installed, "-c", _code(off), *cli_args], stdout=null, env=env, check=True
                )

            run(())  # warm the page cache (and the diff cache for the warm rows)
            samples: dict[str, list[float]] = {name: [] for name in VARIANTS}
            for _ in range(args.runs):
                for name, off in VARIANTS.items():
                    if cold:
                        clear_cache()
                    samples[name].append(_time(lambda off=off: run(off)))
            base = statistics.median(samples["all on"])
            cells = []
            for name in VARIANTS:
                value = statistics.median(samples[name]) * 1000
                delta = "" if name == "all on" else f" ({value - base * 1000:+.0f})"
                cells.append(f"{value:.0f}{delta}".rjust(17))
            print(f"{label:<28}{''.join(cells)}")
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
