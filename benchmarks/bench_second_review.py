"""A second review of a real range after a push, by an assistant, with and without the
first review's marks and dismissals: calls and characters.

    python -m benchmarks.bench_second_review [--mirror PATH] [--range A..B]

The range of a local mirror (default: click ``8.4.2..8.5.0``) is cloned into a
temporary directory with the branch ``rb`` at its end.  Through the installed
``diffchunk-mcp`` (the SDK's stdio client), an assistant reviews ``8.4.2..rb``:
``load_git_diff``, then per chunk ``get_chunk`` and ``mark_reviewed``, and an
``add_finding`` on the first changed line of each of three files; a person
dismisses two of them with a reason (``update_finding(status="dismissed",
comment=...)``).  One commit is pushed on top (a line changed in one file the
range changes).  The assistant reviews again, twice, from a copy of the state:

- **with the record**: ``load_git_diff`` (the branch's review continues), then
  ``review_status`` and, for each chunk not reviewed, ``get_chunk`` and
  ``mark_reviewed``; then it posts its three findings again;
- **without it** (a new record): every chunk again, and the three findings.

Printed per review: calls, characters of the requests' arguments and of the
answers, the findings opened (the two dismissed ones are not opened again with
the record).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

MIRROR = "/work/.mirror/pallets+click/repo"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@b",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@b",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(repo: Path, *args: str) -> str:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, **GIT_ENV}
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip()


@dataclass
class Tally:
    calls: int = 0
    sent: int = 0
    received: int = 0
    opened: int = 0


class Assistant:
    def __init__(self, session: Any, tally: Tally) -> None:
        self.session, self.tally = session, tally

    async def call(self, tool: str, **args: Any) -> Any:
        result = await self.session.call_tool(tool, args)
        text = result.content[0].text
        self.tally.calls += 1
        self.tally.sent += len(json.dumps(args))
        self.tally.received += len(text)
        if result.is_error:
            raise RuntimeError(f"{tool}: {text}")
        return json.loads(text) if text[:1] in "[{" else text


async def _session(state: Path, script: Any) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("diffchunk-mcp")),
        env={**os.environ, "DIFFCHUNK_STATE_DIR": str(state / "state"),
             "DIFFCHUNK_CACHE_DIR": str(state / "cache"), "DIFFCHUNK_REVIEWER": "assistant"},
    )  # fmt: skip
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await script(session)


def _first_added(diff: str, path: str) -> int | None:
    """The first added line of ``path`` in a chunk's text (new-side number)."""
    inside, new = False, 0
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            inside = line.endswith(f" b/{path}")
        elif inside and line.startswith("@@"):
            new = int(line.split("+")[1].split(",")[0].split(" ")[0]) - 1
        elif inside and new:
            if line.startswith("+") and not line.startswith("+++"):
                return new + 1
            if not line.startswith("-"):
                new += 1
    return None


FINDINGS = (
    "Does this still hold when the option is not given?",
    "This changes the public behaviour; is it in the changelog?",
    "A test for this path would help.",
)


async def _findings(a: Assistant, path: str, chunks: dict[int, str], tally: Tally) -> None:
    """Post the three findings on the first added line of three files, as found."""
    posted = 0
    for text in chunks.values():
        for line in text.splitlines():
            if posted == len(FINDINGS):
                return
            if line.startswith("diff --git ") and line.endswith(".py"):
                name = line.split(" b/", 1)[1]
                at = _first_added(text, name)
                if at is None:
                    continue
                answer = await a.call("add_finding", absolute_file_path=path, file_path=name,
                                      message=FINDINGS[posted], line=at)  # fmt: skip
                tally.opened += 0 if answer.get("added") is False else 1
                posted += 1


async def first_review(repo: Path, rng: str, state: Path, tally: Tally) -> None:
    async def script(session: Any) -> None:
        a = Assistant(session, tally)
        loaded = await a.call("load_git_diff", absolute_repo_path=str(repo), revision_range=rng)
        path = loaded["file_path"]
        chunks = {}
        for n in range(1, loaded["chunks"] + 1):
            chunks[n] = await a.call("get_chunk", absolute_file_path=path, chunk_number=n)
            await a.call("mark_reviewed", absolute_file_path=path, chunk_number=n)
        await _findings(a, path, chunks, tally)
        found = await a.call("list_findings", absolute_file_path=path)
        for f in found["findings"][:2]:  # a person dismisses two, saying why
            await session.call_tool("update_finding", {
                "absolute_file_path": path, "finding_id": f["id"], "status": "dismissed",
                "comment": "Intended: see the 8.5 release notes."})  # fmt: skip

    await _session(state, script)


async def second_review(repo: Path, rng: str, state: Path, tally: Tally, fresh: bool) -> None:
    async def script(session: Any) -> None:
        a = Assistant(session, tally)
        loaded = await a.call("load_git_diff", absolute_repo_path=str(repo), revision_range=rng)
        path = loaded["file_path"]
        chunks = {}
        if fresh:
            todo = list(range(1, loaded["chunks"] + 1))
        else:
            status = await a.call("review_status", absolute_file_path=path)
            todo = [c["chunk"] for c in status["chunks"] if c["status"] != "reviewed"]
        for n in todo:
            chunks[n] = await a.call("get_chunk", absolute_file_path=path, chunk_number=n)
            await a.call("mark_reviewed", absolute_file_path=path, chunk_number=n)
        if not fresh:  # the findings it would post, read from the whole diff as before
            for n in range(1, loaded["chunks"] + 1):
                if n not in chunks:
                    chunks[n] = (await session.call_tool(
                        "get_chunk", {"absolute_file_path": path, "chunk_number": n}
                    )).content[0].text  # fmt: skip
        await _findings(a, path, dict(sorted(chunks.items())), tally)

    await _session(state, script)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=MIRROR)
    parser.add_argument("--range", default="8.4.2..8.5.0")
    args = parser.parse_args()
    base, head = args.range.split("..")
    with tempfile.TemporaryDirectory(prefix="bench-second-") as tmp:
        root = Path(tmp)
        repo = root / "click"
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", args.mirror, str(repo)],
                       check=True)  # fmt: skip
        git(repo, "checkout", "-q", "-b", "rb", head)
        rng = f"{base}..rb"
        first = Tally()
        anyio.run(first_review, repo, rng, root / "one", first)
        # A push on top: one changed line of a file the range changes.
        changed = git(repo, "diff", "--name-only", base, "rb", "--", "*.py").splitlines()[0]
        target = repo / changed
        target.write_text(target.read_text().replace("\n", "\n# reviewed\n", 1))
        git(repo, "commit", "-qam", "after review")
        shutil.copytree(root / "one" / "state", root / "two" / "state")  # the record, not the cache
        again, fresh = Tally(), Tally()
        anyio.run(second_review, repo, rng, root / "two", again, False)
        anyio.run(second_review, repo, rng, root / "three", fresh, True)
        print(f"{args.range} ({rng} after one more commit)")
        for label, t in (("first review", first), ("second, with the record", again),
                         ("second, without it", fresh)):  # fmt: skip
            print(f"  {label:26} {t.calls:4} calls  {t.sent:8,} chars sent  "
                  f"{t.received:9,} chars received  {t.opened} findings opened")  # fmt: skip


if __name__ == "__main__":
    main()
