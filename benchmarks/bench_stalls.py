"""Benchmark what slow calls do to the calls beside them.

    python -m benchmarks.bench_stalls [--dir DIR] [--log-mb 256] [--diff-lines 1000000]

For each slow case (hostile outlines, the outline of a large real file and of a
minified one, regex and fuzzy searches of a large log, a large load and a search
of the diff it loads) it prints:

- in one process, the case's time and the longest stretch the interpreter lock
  was held from the other threads: a thread that sleeps 10 ms at a time
  timestamps every wake-up while the case runs on a worker thread (as the
  server runs its tools), and the longest gap between two wake-ups, less the
  10 ms, is the stall;
- through the installed ``diffchunk-mcp`` over the SDK's stdio client, the
  case's time and the slowest ``read_content`` of a small file sent while it
  ran (one every 50 ms).

The inputs are generated (once, deterministically) in ``--dir`` (default: a
directory under the system's temporary one); ``typescript.js`` is read from
``.test-data`` when ``make test-data`` fetched it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from benchmarks.bench_files import generate_log
from tests.property.gen_diff import generate

TICK = 0.01
READ_EVERY = 0.05
TYPESCRIPT = Path(".test-data/typescript5/package/lib/typescript.js")


@dataclass(frozen=True)
class Case:
    name: str
    tool: str
    args: dict[str, Any]


def _inputs(directory: Path, log_mb: int, diff_lines: int) -> list[Case]:
    directory.mkdir(parents=True, exist_ok=True)
    nested = directory / "nested.js"
    if not nested.is_file():
        count = 150_000
        nested.write_text("".join(f"function f{i}(){{\n" for i in range(count)) + "}\n" * count)
    indented = directory / "indented.py"
    if not indented.is_file():
        count = 2_400
        indented.write_text(
            "".join(" " * i + f"def f{i}():\n" + " " * (i + 1) + "x = 1\n" for i in range(count))
        )
    log = directory / f"log_{log_mb}M.txt"
    if not log.is_file():
        generate_log(log, log_mb * 1024 * 1024)
    diff = directory / f"generated_{diff_lines}.diff"
    if not diff.is_file():
        diff.write_bytes(generate(diff_lines))
    cases = [
        Case("outline: 150,000 nested functions (3.2 MB)", "get_overview", {"path": nested}),
        Case("outline: 2,400 indented Python functions", "get_overview", {"path": indented}),
    ]
    minified = directory / "minified.js"
    if not minified.is_file():
        code = "function f{0}(a,b){{return a+b*{0}}}var v{0}=[1,2,{0}];"
        minified.write_text("".join(code.format(i) for i in range(60_000)) + "\n")
    cases.append(
        Case("outline: 3.5 MB of minified JS, one line", "get_overview", {"path": minified})
    )
    if TYPESCRIPT.is_file():
        cases.append(
            Case("outline: typescript.js (9 MB)", "get_overview", {"path": TYPESCRIPT.resolve()})
        )
    regex = {"regex": True, "fuzzy": False, "count_only": True}
    cases += [
        Case(
            f"regex count, {log_mb} MB log: status=5\\d\\d .*timeout",
            "search_content",
            {"path": log, "pattern": r"status=5\d\d .*timeout", **regex},
        ),
        Case(
            f"regex count, {log_mb} MB log: (\\w+\\s?)+\\(",
            "search_content",
            {"path": log, "pattern": r"(\w+\s?)+\(", **regex},
        ),
        Case(
            f"fuzzy search, {log_mb} MB log",
            "search_content",
            {"path": log, "pattern": "recieve heartbeat"},
        ),
        Case(f"load_diff, {diff_lines:,}-line diff", "load_diff", {"path": diff}),
        Case(
            f"search_diff regex, {diff_lines:,}-line diff: def \\w+\\(",
            "search_diff",
            {"path": diff, "pattern": r"def \w+\(", "regex": True},
        ),
        Case(
            f"search_diff regex, {diff_lines:,}-line diff: (\\w+\\s?)+\\(",
            "search_diff",
            {"path": diff, "pattern": r"(\w+\s?)+\(", "regex": True},
        ),
    ]
    return cases


def _core(case: Case) -> Callable[[], Any]:
    """The case as a call of the core, as the server makes it."""
    path = str(case.args["path"])
    rest = {k: v for k, v in case.args.items() if k != "path"}
    if case.tool == "get_overview":
        from diffchunk.files.overview import get_overview

        return lambda: get_overview(path)
    if case.tool == "search_content":
        from diffchunk.files.content_search import search_content

        return lambda: search_content(path, **rest)
    from diffchunk.review.sessions.loading import load_diff
    from diffchunk.review.sessions.store import SessionStore
    from diffchunk.review.tools.diff_search import search_diff

    if case.tool == "load_diff":
        return lambda: load_diff(path, store=SessionStore())
    return lambda: search_diff(path, store=SessionStore(), **rest)


def in_process(case: Case) -> tuple[float, float, str]:
    """``(seconds, longest stall, error)`` of the case on a worker thread, the stall
    seen by a thread that wakes every TICK seconds (``error``: how the call failed)."""
    from diffchunk.files import access, outline

    access.clear_cache()
    outline.clear_cache()
    call = _core(case)
    failed: list[str] = []

    def work() -> None:
        try:
            call()
        except Exception as exc:  # a case may run out of its budget: say so
            failed.append(str(exc).split(":")[0])

    finished = threading.Event()
    worst = [0.0]

    def tick() -> None:
        last = time.perf_counter()
        while not finished.is_set():
            time.sleep(TICK)
            now = time.perf_counter()
            worst[0] = max(worst[0], now - last - TICK)
            last = now

    ticker = threading.Thread(target=tick)
    ticker.start()
    began = time.perf_counter()
    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    elapsed = time.perf_counter() - began
    finished.set()
    ticker.join()
    return elapsed, worst[0], failed[0] if failed else ""


async def _beside(raw: Any, case: Case, small: Path) -> tuple[float, float, int]:
    """The case through the server: its time, the slowest read_content sent while it
    ran, and how many were."""
    args = {k: v for k, v in case.args.items() if k != "path"}
    args["absolute_file_path"] = str(case.args["path"])
    done = anyio.Event()
    began = time.perf_counter()
    elapsed = [0.0]

    async def slow() -> None:
        await raw.call_tool(case.tool, args)
        elapsed[0] = time.perf_counter() - began
        done.set()

    slowest = 0.0
    reads = 0
    async with anyio.create_task_group() as group:
        group.start_soon(slow)
        while not done.is_set():
            await anyio.sleep(READ_EVERY)
            sent = time.perf_counter()
            await raw.call_tool("read_content", {"absolute_file_path": str(small)})
            if not done.is_set():
                slowest = max(slowest, time.perf_counter() - sent)
                reads += 1
    return elapsed[0], slowest, reads


async def through_server(cases: list[Case], small: Path) -> list[tuple[float, float, int]]:
    """:func:`_beside` for each case, in one server."""
    from benchmarks.record_session import served

    async with served() as session:
        return [await _beside(session.session, case, small) for case in cases]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_stalls")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "bench-stalls")
    parser.add_argument("--log-mb", type=int, default=256)
    parser.add_argument("--diff-lines", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    cases = _inputs(args.dir, args.log_mb, args.diff_lines)
    small = args.dir / "small.txt"
    small.write_text("".join(f"line {i}\n" for i in range(50)))
    os.environ.setdefault("DIFFCHUNK_CACHE_DIR", str(args.dir / "cache"))
    os.environ.setdefault("DIFFCHUNK_STATE_DIR", str(args.dir / "state"))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    print(f"{'case':<52} {'in process':>11} {'held the lock':>14}", flush=True)
    for case in cases:
        elapsed, stall, error = in_process(case)
        note = f"  ({error})" if error else ""
        print(f"{case.name:<52} {elapsed:>10.2f}s {stall * 1000:>11.0f} ms{note}", flush=True)
    print(f"\n{'case':<52} {'via MCP':>11} {'slowest read':>14} {'reads':>6}", flush=True)
    for case, (elapsed, slowest, reads) in zip(
        cases, anyio.run(through_server, cases, small), strict=True
    ):
        print(
            f"{case.name:<52} {elapsed:>10.2f}s {slowest * 1000:>11.0f} ms {reads:>6}", flush=True
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
