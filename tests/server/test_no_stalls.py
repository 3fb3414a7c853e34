"""While one call is slow, the others keep answering: a ``read_content`` of a small file
sent beside a slow call, to the installed server over the SDK's stdio client, answers
within a second.

The slow calls are an outline of 150,000 nested functions and regex searches of a
large log; ``make bench-stalls`` measures these and more (the longest stretch any of
them holds the interpreter lock).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcpkit import Caller, RunningServer

READ_LIMIT = 1.0
"""Seconds a small read may take beside a slow call (a few milliseconds alone)."""
STUCK = 20.0
"""Seconds after which a read is given up: the server is not answering at all."""


def _log(path: Path, megabytes: int) -> Path:
    line = "2024-01-15T10:00:00.000Z [INFO ] worker-07 GET /api/v1/items/12345 status=200 ok\n"
    block = line * ((1 << 20) // len(line))
    with open(path, "w", encoding="utf-8") as out:
        for _ in range(megabytes):
            out.write(block)
    return path


async def _reads_beside(
    caller: Caller, tool: str, args: dict[str, Any], small: Path
) -> list[float]:
    """The times of the reads sent while ``tool`` ran (one every 50 ms)."""
    done = anyio.Event()
    answered: list[bool] = []

    async def slow() -> None:
        result = await caller.raw(tool, **args)
        answered.append(not result.is_error)
        done.set()

    times: list[float] = []
    async with anyio.create_task_group() as group:
        group.start_soon(slow)
        while not done.is_set():
            await anyio.sleep(0.05)
            sent = time.perf_counter()
            with anyio.fail_after(STUCK):
                await caller.json("read_content", absolute_file_path=str(small), limit=5)
            if not done.is_set():
                times.append(time.perf_counter() - sent)
    assert answered == [True], f"{tool} failed"
    return times


@pytest.mark.slow
def test_a_small_read_answers_beside_a_slow_outline_or_search(
    server: RunningServer, tmp_path: Path
) -> None:
    small = tmp_path / "small.txt"
    small.write_text("".join(f"line {i}\n" for i in range(20)), encoding="utf-8")
    nested = tmp_path / "nested.js"
    count = 150_000
    nested.write_text("".join(f"function f{i}(){{\n" for i in range(count)) + "}\n" * count)
    log = _log(tmp_path / "app.log", 96)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("get_overview", {"absolute_file_path": str(nested)}),
        (
            "search_content",
            {
                "absolute_file_path": str(log),
                "pattern": r"(\w+\s?)+\(|status=\d+ ok$",
                "regex": True,
                "fuzzy": False,
                "count_only": True,
            },
        ),
    ]
    seen: dict[str, list[float]] = {}

    async def script(caller: Caller) -> None:
        await caller.json("read_content", absolute_file_path=str(small), limit=5)  # warm
        for tool, args in calls:
            seen[tool] = await _reads_beside(caller, tool, args, small)

    server.run(script)
    for tool, times in seen.items():
        assert times, f"{tool} answered before a read could be sent beside it"
        assert max(times) < READ_LIMIT, f"beside {tool}: reads took {max(times):.2f} s"
