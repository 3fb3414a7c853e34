"""Concurrent client tasks over one MCP session to one server, and their latencies."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from .references import Op


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


def server_command() -> str:
    script = Path(sys.executable).with_name("diffchunk-mcp")
    if script.exists():
        return str(script)
    found = shutil.which("diffchunk-mcp")
    if found is None:
        raise SystemExit("diffchunk-mcp is not installed (pip install -e .)")
    return found


def result_text(result: types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))


async def _call(session: ClientSession, op: Op) -> tuple[float, str | None]:
    started = time.perf_counter()
    try:
        result = await session.call_tool(op.tool, op.args)
    except Exception as exc:  # a protocol failure is a failed check, not a crash
        return time.perf_counter() - started, f"{op.tool}: {type(exc).__name__}: {exc}"
    elapsed = time.perf_counter() - started
    failure = op.check(bool(result.is_error), result_text(result))
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
    """Run ``clients`` concurrent tasks over ONE session to ONE new server for ``seconds``."""
    if env is None and os.environ.get("DIFFCHUNK_STATE_DIR"):
        env = {"DIFFCHUNK_STATE_DIR": os.environ["DIFFCHUNK_STATE_DIR"]}  # the review record
    params = StdioServerParameters(command=server_command(), args=[], env=env)
    errlog = open(errlog_path or os.devnull, "w")  # noqa: SIM115 (closed below)
    try:
        with anyio.fail_after(deadlock_timeout):
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await drive(
                    session,
                    ops,
                    clients=clients,
                    seconds=seconds,
                    warm=warm,
                    deadlock_timeout=deadlock_timeout,
                )
    except TimeoutError:
        outcome = Outcome(failed=1)
        outcome.failures.append(f"no completion within {deadlock_timeout:.0f}s (deadlock?)")
        return outcome
    finally:
        errlog.close()


async def drive(
    session: ClientSession,
    ops: list[Op],
    *,
    clients: int,
    seconds: float,
    warm: list[Op] | None = None,
    deadlock_timeout: float = 300.0,
) -> Outcome:
    """Run ``clients`` concurrent tasks over ``session`` (one server's) for ``seconds``,
    after the ``warm`` calls one at a time."""
    outcome = Outcome()
    try:
        with anyio.fail_after(deadlock_timeout):
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
