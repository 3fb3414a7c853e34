"""Benchmark: ``get_overview`` of a file changed since HEAD (the change-aware outline).

Usage::

    python -m benchmarks.bench_changes [--functions N] [--runs N]

Builds a repository in a temporary directory holding one Python file of
``--functions`` functions, commits it, changes a few of them, and calls
``get_overview`` on it in this process ``--runs`` times.  Printed: the first
call (outlines not cached yet), the median and the fastest of the others (the
outlines are cached: what is left is mostly git), the number of git
processes each call starts, and the same for ``get_overview`` of the
unchanged file (one git lookup and no diff).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], env=_ENV, check=True, capture_output=True)


def _source(functions: int, changed: frozenset[int]) -> str:
    parts = []
    for i in range(functions):
        body = f"    return {i} * 2" if i in changed else f"    return {i}"
        parts.append(f"def function_{i}(value):\n    value += {i}\n{body}\n\n\n")
    return "".join(parts)


def _build(where: Path, functions: int) -> tuple[Path, Path]:
    repo = where / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    changed = repo / "changed.py"
    same = repo / "same.py"
    changed.write_text(_source(functions, frozenset()))
    same.write_text(_source(functions, frozenset()))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "one")
    changed.write_text(_source(functions, frozenset({1, functions // 2, functions - 1})))
    return changed, same


def _git_starts(call: Callable[[], object]) -> int:
    """How many git processes ``call`` starts (counted at ``subprocess.Popen``)."""
    started = 0
    real = subprocess.Popen.__init__

    def counting(self: subprocess.Popen[bytes], args: object, *rest: object, **kw: object) -> None:
        nonlocal started
        if isinstance(args, (list, tuple)) and args and os.path.basename(str(args[0])) == "git":
            started += 1
        real(self, args, *rest, **kw)  # type: ignore[arg-type]

    subprocess.Popen.__init__ = counting  # type: ignore[assignment,method-assign]
    try:
        call()
    finally:
        subprocess.Popen.__init__ = real  # type: ignore[method-assign]
    return started


def _timed(call: Callable[[], object], runs: int) -> tuple[object, float, list[float]]:
    start = time.perf_counter()
    result = call()
    first = time.perf_counter() - start
    rest = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        rest.append(time.perf_counter() - start)
    return result, first, rest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--functions", type=int, default=500)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args(argv)
    from diffchunk.files.overview import get_overview

    with tempfile.TemporaryDirectory(prefix="diffchunk-bench-changes-") as tmp:
        changed, same = _build(Path(tmp), args.functions)
        for label, path in (("changed file", changed), ("unchanged file", same)):
            result, first, rest = _timed(lambda p=path: get_overview(str(p)), args.runs)  # type: ignore[misc]
            assert isinstance(result, dict)
            starts = _git_starts(lambda p=path: get_overview(str(p)))  # type: ignore[misc]
            print(
                f"get_overview, {label} ({args.functions} functions, "
                f"{result['changed_symbols']} symbols marked): "
                f"first {first * 1000:.1f} ms, median {statistics.median(rest) * 1000:.1f} ms, "
                f"best {min(rest) * 1000:.1f} ms over {args.runs} runs; "
                f"{starts} git processes per call"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
