"""A review as an assistant makes it, through the installed ``diffchunk-mcp``: the calls
and the size of each answer (characters; a token is about four).

    python -m benchmarks.record_session --repo PATH --range A..B [--max-chunk-lines N]

Load the range, ask where the review stands, list the chunks, then per chunk:
read it, record a finding on a line it shows (one deliberately outside the
hunks first, to see the correction the error offers), mark it reviewed; then,
as after a context reset, ask the status again and the open findings, finish,
resolve a finding, and ask the status a last time.  The record lives in a
temporary state directory unless ``DIFFCHUNK_STATE_DIR`` is set.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def changed_line(text: str, want: str = "+") -> tuple[str, int] | None:
    """The first ``want`` ('+' or '-') line of a chunk's text: (path, its line number)."""
    path = ""
    old = new = 0
    in_hunk = False
    for line in text.splitlines():
        if line.startswith("diff --git "):
            in_hunk = False
        elif not in_hunk and line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else path
        elif not in_hunk and line.startswith("--- a/"):
            path = line[6:]
        elif (m := HUNK.match(line)) is not None:
            old, new = int(m.group(1)), int(m.group(2))
            in_hunk = True
        elif in_hunk and line[:1] in (" ", "+", "-"):
            if line[:1] == want:
                return path, new if want == "+" else old
            if line[:1] != "-":
                new += 1
            if line[:1] != "+":
                old += 1
    return None


class Session:
    def __init__(self, session: Any) -> None:
        self.session = session
        self.calls: list[tuple[str, int, bool, float]] = []

    async def call(self, tool: str, **args: Any) -> Any:
        began = time.perf_counter()
        result = await self.session.call_tool(tool, args)
        elapsed = time.perf_counter() - began
        text = result.content[0].text
        shown = ", ".join(f"{k}={v!r}" for k, v in args.items() if k != "absolute_file_path")
        self.calls.append((f"{tool}({shown})", len(text), bool(result.is_error), elapsed))
        number = len(self.calls)
        flag = "  ERROR" if result.is_error else ""
        print(f"{number:>2}. {tool}({shown[:120]}) -> {len(text):,} chars{flag}", flush=True)
        if result.is_error:
            print(f"      {text[:300]}", flush=True)
            return text
        return json.loads(text) if text[:1] in "[{" else text


@asynccontextmanager
async def served() -> AsyncIterator[Session]:
    """A :class:`Session` with the installed ``diffchunk-mcp``, over the SDK's stdio
    client (the record and cache of ``DIFFCHUNK_STATE_DIR``/``DIFFCHUNK_CACHE_DIR``)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command = str(Path(sys.executable).with_name("diffchunk-mcp"))
    env = {
        k: os.environ[k] for k in ("DIFFCHUNK_STATE_DIR", "DIFFCHUNK_CACHE_DIR") if k in os.environ
    }
    params = StdioServerParameters(command=command, args=[], env=env)
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as raw,
        ):
            await raw.initialize()
            yield Session(raw)


def print_totals(session: Session) -> None:
    """The session's calls in one line: how many, their characters, errors and time."""
    sizes = [size for _, size, _, _ in session.calls]
    errors = sum(1 for _, _, error, _ in session.calls if error)
    print(
        f"{len(sizes)} calls, {sum(sizes):,} characters in all (~{sum(sizes) // 4:,} tokens); "
        f"largest {max(sizes):,}; {errors} error answer(s); "
        f"{sum(t for *_, t in session.calls):.2f} s"
    )


async def review(repo: str, rng: str, max_chunk_lines: int) -> Session:
    async with served() as s:
        load = await s.call(
            "load_git_diff",
            absolute_repo_path=repo,
            revision_range=rng,
            max_chunk_lines=max_chunk_lines,
        )
        path = load["file_path"]
        at = {"absolute_file_path": path}
        status = await s.call("review_status", **at)
        await s.call("list_chunks", **at)
        total = status["total_chunks"]
        findings: list[int] = []
        for number in range(1, min(total, 3) + 1):
            text = await s.call("get_chunk", **at, chunk_number=number)
            added = changed_line(text, "+")
            if number == 1 and added is not None:
                wrong = await s.call(
                    "add_finding", **at, file_path=added[0], line=added[1] + 5000,
                    message="Check this value",
                )  # fmt: skip
                assert "hunks" in wrong
            if added is not None:
                made = await s.call(
                    "add_finding", **at, file_path=added[0], line=added[1],
                    message="Check this value", severity="minor",
                )  # fmt: skip
                findings.append(made["id"])
            removed = changed_line(text, "-")
            if number == 2 and removed is not None:
                await s.call(
                    "add_finding", **at, file_path=removed[0], line=removed[1], side="old",
                    message="Was this removal intended?", severity="question",
                )  # fmt: skip
            await s.call("mark_reviewed", **at, chunk_number=number)
        # As after a context reset: where was I, what did I find?
        status = await s.call("review_status", **at)
        await s.call("list_findings", **at)
        while status["next_chunk"] is not None:
            number = status["next_chunk"]
            text = await s.call("get_chunk", **at, chunk_number=number)
            added = changed_line(text, "+")
            if added is not None:
                await s.call(
                    "add_finding", **at, file_path=added[0], line=added[1],
                    message="Simpler this way", severity="nit", suggestion="pass\n",
                )  # fmt: skip
            marked = await s.call("mark_reviewed", **at, chunk_number=number)
            status = {"next_chunk": marked["next_chunk"]}
        if findings:
            await s.call("update_finding", **at, finding_id=findings[0], status="resolved")
        await s.call("review_status", **at)
        await s.call("list_findings", **at, status="all")
        return s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", required=True)
    parser.add_argument("--range", required=True, dest="rng")
    parser.add_argument("--max-chunk-lines", type=int, default=400)
    args = parser.parse_args(argv)
    if not os.environ.get("DIFFCHUNK_STATE_DIR"):
        os.environ["DIFFCHUNK_STATE_DIR"] = tempfile.mkdtemp(prefix="diffchunk-state-")
    session = anyio.run(review, os.path.abspath(args.repo), args.rng, args.max_chunk_lines)
    print_totals(session)
    return 0


if __name__ == "__main__":
    sys.exit(main())
