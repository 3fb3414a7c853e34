"""The server's resident memory while it loads many distinct diffs."""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.property.gen_diff import generate

from .clients import result_text, server_command


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
                    failures.append(f"load {path.name}: {result_text(result)[:200]}")
                rss.append(rss_kib(pid))
            result = await session.call_tool("get_current_overview", {})
            overview = json.loads(result_text(result))
    live = overview.get("loaded_diffs", [])
    live_bytes = sum(sizes[int(Path(d["file_path"]).stem.split("-")[1])] for d in live)
    return MemoryRun(rss, sizes, int(overview.get("total_sessions", -1)), live_bytes, failures)
