"""Load and memory checks of one ``diffchunk-mcp`` server over stdio.

``python -m benchmarks.load_mcp --clients 8 --seconds 60`` starts ONE server
and runs N concurrent client tasks over one MCP client session (requests in
flight at the same time) for a bounded time: a mixed stream of diff tools on
the corpus diff and a generated 1M-line diff, and file tools on a generated
log.  Every answer is compared with a reference computed in this process
beforehand; an overall timeout catches a deadlock.  It prints latency
percentiles per tool and a final "N passed, N failed" line.

``--memory`` instead loads many distinct generated diffs one after another in
one server and samples the server's resident memory (VmRSS) after each load.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from diffchunk.errors import DiffchunkError
from diffchunk.files import service
from diffchunk.review import diff_tools
from diffchunk.review.sessions import SessionStore

from .gen_diff import generate

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
CORPUS_DIFF = CORPUS / "sqlalchemy_rel_1_4_0..rel_1_4_54.diff"

Check = Callable[[bool, str], str | None]  # (is_error, text) -> failure message or None


@dataclass(frozen=True)
class Op:
    """One tool call and how to check its answer."""

    tool: str
    args: dict[str, Any]
    check: Check


@dataclass
class Outcome:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    passed: int = 0
    failed: int = 0
    failures: list[str] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0  # requests outstanding at once on the one session

    def record(self, tool: str, seconds: float, failure: str | None) -> None:
        self.latencies.setdefault(tool, []).append(seconds)
        if failure is None:
            self.passed += 1
        else:
            self.failed += 1
            if len(self.failures) < 20:
                self.failures.append(failure)


# ----------------------------------------------------------------- references


def _equal_text(expected: str) -> Check:
    def check(is_error: bool, text: str) -> str | None:
        if is_error:
            return f"unexpected error: {text[:200]}"
        if text != expected:
            return f"text differs ({len(text)} vs {len(expected)} chars)"
        return None

    return check


def _equal_json(expected: Any) -> Check:
    def check(is_error: bool, text: str) -> str | None:
        if is_error:
            return f"unexpected error: {text[:200]}"
        try:
            got = json.loads(text)
        except ValueError:
            return f"not JSON: {text[:200]}"
        if got != expected:
            return "JSON differs from the reference"
        return None

    return check


def _error_with(message: str) -> Check:
    def check(is_error: bool, text: str) -> str | None:
        if not is_error:
            return "expected an error result"
        # The server may return the message as JSON text (escaped characters).
        if message not in text and json.dumps(message)[1:-1] not in text:
            return f"error text lacks {message[:80]!r}: {text[:200]}"
        return None

    return check


def _expect(call: Callable[[], Any], as_json: bool) -> Check:
    try:
        value = call()
    except DiffchunkError as exc:
        return _error_with(exc.message)
    if as_json:
        if hasattr(value, "to_dict"):  # a typed result: the tool sends its to_dict()
            value = value.to_dict()
        return _equal_json(json.loads(json.dumps(value, ensure_ascii=False)))
    assert isinstance(value, str)
    return _equal_text(value)


def diff_ops(path: str, store: SessionStore, rng: random.Random, samples: int) -> list[Op]:
    """Calls of every diff tool on ``path`` with answers computed in-process."""
    ops: list[Op] = []

    def add(tool: str, args: dict[str, Any], call: Callable[[], Any], as_json: bool) -> None:
        ops.append(Op(tool, {"absolute_file_path": path, **args}, _expect(call, as_json)))

    add("load_diff", {}, lambda: diff_tools.load_diff(path, store=store), True)
    listing = diff_tools.list_chunks(path, store=store)
    add("list_chunks", {}, lambda: listing, True)
    if "next_offset" in listing:
        nxt = listing["next_offset"]
        add(
            "list_chunks",
            {"offset": nxt},
            lambda: diff_tools.list_chunks(path, nxt, store=store),
            True,
        )
    total = int(listing["total_chunks"])
    for _ in range(samples):
        n = rng.randint(1, total)
        fmt = rng.choice(("raw", "raw", "annotated", "compact"))
        ctx = rng.random() < 0.5
        add(
            "get_chunk",
            {"chunk_number": n, "include_context": ctx, "format": fmt},
            partial(diff_tools.get_chunk, path, n, ctx, fmt, store=store),
            False,
        )
    add(
        "get_chunk",
        {"chunk_number": total + 1},
        lambda: diff_tools.get_chunk(path, total + 1, store=store),
        False,
    )
    session = store.get(path)
    paths = [fd.path for fd in session.review.parsed.files if fd.path]
    for file_path in rng.sample(paths, min(samples, len(paths))):
        add(
            "get_file_diff",
            {"file_path": file_path},
            partial(diff_tools.get_file_diff, path, file_path, store=store),
            False,
        )
    for pattern in ("*.py", "*.rst", "lib/**", "test_*", "*.nothing", "src/*"):
        add(
            "find_chunks_for_files",
            {"pattern": pattern},
            partial(diff_tools.find_chunks_for_files, path, pattern, store=store),
            True,
        )
    return ops


def write_log(path: Path, lines: int, seed: int = 7) -> None:
    """A synthetic application log: timestamps, levels, request ids."""
    rng = random.Random(seed)
    levels = ("INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR")
    with open(path, "wb") as fh:
        buf: list[bytes] = []
        for i in range(lines):
            level = rng.choice(levels)
            code = rng.randrange(10_000)
            buf.append(
                f"2026-11-21T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d} "
                f"{level} worker-{rng.randrange(16)} request={rng.getrandbits(48):012x} "
                f"code={code} handled in {rng.randrange(1, 900)} ms\n".encode()
            )
            if len(buf) >= 10_000:
                fh.write(b"".join(buf))
                buf.clear()
        fh.write(b"".join(buf))


def log_ops(path: str, lines: int, rng: random.Random, samples: int) -> list[Op]:
    ops: list[Op] = []

    def add(tool: str, args: dict[str, Any], call: Callable[[], Any]) -> None:
        ops.append(Op(tool, {"absolute_file_path": path, **args}, _expect(call, True)))

    add("get_overview", {}, lambda: service.get_overview(path))
    for _ in range(samples):
        code = rng.randrange(10_000)
        add(
            "search_content",
            {"pattern": f"code={code} ", "fuzzy": False, "max_results": 5},
            partial(service.search_content, path, f"code={code} ", max_results=5, fuzzy=False),
        )
    add(
        "search_content",
        {"pattern": "ERROR", "fuzzy": False, "count_only": True},
        lambda: service.search_content(path, "ERROR", fuzzy=False, count_only=True),
    )
    add(
        "search_content",
        {"pattern": r"code=99\d\d handled", "fuzzy": False, "regex": True, "max_results": 10},
        lambda: service.search_content(
            path, r"code=99\d\d handled", max_results=10, fuzzy=False, regex=True
        ),
    )
    for _ in range(samples):
        offset = rng.randint(1, lines)
        add(
            "read_content",
            {"offset": offset, "limit": 50},
            partial(service.read_content, path, offset=offset, limit=50),
        )
    add(
        "read_content",
        {"mode": "tail", "limit": 100},
        lambda: service.read_content(path, mode="tail", limit=100),
    )
    add(
        "read_content",
        {"mode": "head", "limit": 100},
        lambda: service.read_content(path, mode="head", limit=100),
    )
    return ops


# ------------------------------------------------------------------ the server


def server_command() -> str:
    script = Path(sys.executable).with_name("diffchunk-mcp")
    if script.exists():
        return str(script)
    found = shutil.which("diffchunk-mcp")
    if found is None:
        raise SystemExit("diffchunk-mcp is not installed (pip install -e .)")
    return found


def _text(result: types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def _call(session: ClientSession, op: Op) -> tuple[float, str | None]:
    started = time.perf_counter()
    try:
        result = await session.call_tool(op.tool, op.args)
    except Exception as exc:  # a protocol failure is a failed check, not a crash
        return time.perf_counter() - started, f"{op.tool}: {type(exc).__name__}: {exc}"
    elapsed = time.perf_counter() - started
    failure = op.check(bool(result.is_error), _text(result))
    if failure is not None:
        failure = f"{op.tool} {json.dumps(op.args)[:160]}: {failure}"
    return elapsed, failure


async def run_clients(
    ops: list[Op],
    *,
    clients: int,
    seconds: float,
    warm: list[Op] | None = None,
    deadlock_timeout: float = 300.0,
    env: dict[str, str] | None = None,
    errlog_path: Path | None = None,
) -> Outcome:
    """Run ``clients`` concurrent tasks over ONE session to ONE server for ``seconds``."""
    params = StdioServerParameters(command=server_command(), args=[], env=env)
    outcome = Outcome()
    errlog = open(errlog_path or os.devnull, "w")  # noqa: SIM115 (closed below)
    try:
        with anyio.fail_after(deadlock_timeout):
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                for op in warm or []:
                    elapsed, failure = await _call(session, op)
                    outcome.record("warm-up " + op.tool, elapsed, failure)
                deadline = time.perf_counter() + seconds

                async def client(index: int) -> None:
                    rng = random.Random(1000 + index)
                    while time.perf_counter() < deadline:
                        op = rng.choice(ops)
                        outcome.in_flight += 1
                        outcome.max_in_flight = max(outcome.max_in_flight, outcome.in_flight)
                        try:
                            elapsed, failure = await _call(session, op)
                        finally:
                            outcome.in_flight -= 1
                        outcome.record(op.tool, elapsed, failure)

                async with anyio.create_task_group() as tg:
                    for index in range(clients):
                        tg.start_soon(client, index)
    except TimeoutError:
        outcome.failed += 1
        outcome.failures.append(f"no completion within {deadlock_timeout:.0f}s (deadlock?)")
    finally:
        errlog.close()
    return outcome


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = max(0, math.ceil(q / 100 * len(ordered)) - 1)
    return ordered[rank]


def latency_table(outcome: Outcome) -> str:
    rows = [f"{'tool':<32}{'calls':>7}{'p50 ms':>10}{'p90 ms':>10}{'p99 ms':>10}{'max ms':>10}"]
    for tool in sorted(outcome.latencies):
        values = outcome.latencies[tool]
        cells = [percentile(values, q) * 1000 for q in (50, 90, 99)] + [max(values) * 1000]
        rows.append(f"{tool:<32}{len(values):>7}" + "".join(f"{c:>10.1f}" for c in cells))
    return "\n".join(rows)


# --------------------------------------------------------------------- memory


def server_pid() -> int | None:
    """The pid of this process's ``diffchunk-mcp`` child."""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == me and b"diffchunk-mcp" in cmdline:
            return int(entry)
    return None


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@dataclass
class MemoryRun:
    rss_kib: list[int]  # after start-up, then after each load
    sizes: list[int]
    live_sessions: int
    session_bytes: int
    failures: list[str]


async def memory_run(
    count: int,
    workdir: Path,
    *,
    min_lines: int,
    max_lines: int,
    env: dict[str, str] | None = None,
    timeout: float = 900.0,
) -> MemoryRun:
    """Load ``count`` distinct generated diffs one after another in one server."""
    params = StdioServerParameters(command=server_command(), args=[], env=env)
    rng = random.Random(99)
    rss: list[int] = []
    sizes: list[int] = []
    failures: list[str] = []
    overview: dict[str, Any] = {}
    with anyio.fail_after(timeout), open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            pid = server_pid()
            if pid is None:
                raise RuntimeError("cannot find the server process")
            rss.append(rss_kib(pid))
            for i in range(count):
                path = workdir / f"gen-{i:03d}.diff"
                data = generate(rng.randint(min_lines, max_lines), seed=i + 1)
                path.write_bytes(data)
                sizes.append(len(data))
                del data
                result = await session.call_tool("load_diff", {"absolute_file_path": str(path)})
                if result.is_error:
                    failures.append(f"load {path.name}: {_text(result)[:200]}")
                rss.append(rss_kib(pid))
            result = await session.call_tool("get_current_overview", {})
            overview = json.loads(_text(result))
    live = overview.get("loaded_diffs", [])
    live_bytes = sum(sizes[int(Path(d["file_path"]).stem.split("-")[1])] for d in live)
    return MemoryRun(rss, sizes, int(overview.get("total_sessions", -1)), live_bytes, failures)


# ----------------------------------------------------------------------- main


def build_workload(
    workdir: Path, *, big_lines: int, log_lines: int, samples: int, corpus: Path | None
) -> tuple[list[Op], list[Op]]:
    """(mixed ops, warm-up ops): references computed here, in-process."""
    rng = random.Random(20261121)
    store = SessionStore(max_sessions=8, max_bytes=1 << 32)
    diffs: list[Path] = []
    if corpus is not None and corpus.is_file():
        diffs.append(corpus)
    big = workdir / "big.diff"
    big.write_bytes(generate(big_lines, seed=5))
    diffs.append(big)
    log = workdir / "app.log"
    write_log(log, log_lines)
    ops: list[Op] = []
    warm: list[Op] = []
    for diff in diffs:
        diff_side = diff_ops(str(diff), store, rng, samples)
        ops.extend(diff_side)
        warm.append(diff_side[0])
    file_side = log_ops(str(log), log_lines, rng, samples)
    ops.extend(file_side)
    warm.append(file_side[0])
    return ops, warm


def _main_load(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="diffchunk-load-") as tmp:
        workdir = Path(tmp)
        started = time.perf_counter()
        ops, warm = build_workload(
            workdir,
            big_lines=args.big_lines,
            log_lines=args.log_lines,
            samples=args.samples,
            corpus=None if args.no_corpus else CORPUS_DIFF,
        )
        print(f"references: {len(ops)} calls computed in {time.perf_counter() - started:.1f}s")
        outcome = anyio.run(
            lambda: run_clients(
                ops,
                clients=args.clients,
                seconds=args.seconds,
                warm=warm,
                deadlock_timeout=args.seconds + args.grace,
            )
        )
    print(latency_table(outcome))
    print(f"requests in flight at once on the session: up to {outcome.max_in_flight}")
    for failure in outcome.failures:
        print("FAIL", failure)
    print(f"{outcome.passed} passed, {outcome.failed} failed")
    return 1 if outcome.failed else 0


def _main_memory(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    if args.max_sessions is not None:
        env["DIFFCHUNK_MAX_SESSIONS"] = str(args.max_sessions)
    if args.max_session_mb is not None:
        env["DIFFCHUNK_MAX_SESSION_BYTES"] = str(args.max_session_mb << 20)
    with tempfile.TemporaryDirectory(prefix="diffchunk-mem-") as tmp:
        started = time.perf_counter()
        run = anyio.run(
            lambda: memory_run(
                args.diffs, Path(tmp), min_lines=args.min_lines, max_lines=args.max_lines, env=env
            )
        )
    mib = [r / 1024 for r in run.rss_kib]
    print(
        f"{args.diffs} diffs, {sum(run.sizes) / 2**20:.0f} MiB in all "
        f"({min(run.sizes) / 2**20:.1f}..{max(run.sizes) / 2**20:.1f} MiB each), "
        f"{time.perf_counter() - started:.1f}s"
    )
    print("RSS MiB after each load:", " ".join(f"{m:.0f}" for m in mib[1:]))
    print(f"RSS MiB: start {mib[0]:.0f}, max {max(mib):.0f}, end {mib[-1]:.0f}")
    tail = mib[len(mib) // 2 :]
    print(f"RSS MiB over the second half of the loads: {min(tail):.0f}..{max(tail):.0f}")
    print(
        f"live sessions: {run.live_sessions}, their diff bytes: {run.session_bytes / 2**20:.1f} MiB"
    )
    for failure in run.failures:
        print("FAIL", failure)
    print(f"{args.diffs - len(run.failures)} passed, {len(run.failures)} failed")
    return 1 if run.failures else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--grace", type=float, default=240.0, help="deadlock timeout beyond --seconds"
    )
    parser.add_argument("--big-lines", type=int, default=1_000_000)
    parser.add_argument("--log-lines", type=int, default=500_000)
    parser.add_argument("--samples", type=int, default=40, help="calls sampled per tool and input")
    parser.add_argument("--no-corpus", action="store_true")
    parser.add_argument("--memory", action="store_true", help="run the memory check instead")
    parser.add_argument("--diffs", type=int, default=50)
    parser.add_argument("--min-lines", type=int, default=160_000)
    parser.add_argument("--max-lines", type=int, default=320_000)
    parser.add_argument("--max-sessions", type=int, default=None)
    parser.add_argument("--max-session-mb", type=int, default=None)
    args = parser.parse_args()
    sys.exit(_main_memory(args) if args.memory else _main_load(args))


if __name__ == "__main__":
    main()
