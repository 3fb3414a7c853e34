"""A second review after a small amend of a large reviewed branch: what an assistant
spends reviewing everything again, against reviewing only what changed since.

    python -m benchmarks.bench_incremental [--mirror PATH] [--range A..B]
        [--max-chunk-lines N]

The branch is a real project's history: a release range of a local mirror
(default: SQLAlchemy's ``rel_2_0_36..rel_2_0_37``, 336 files, ~12,000 changed
lines), cloned (``--shared``) into a temporary directory, with ``main`` at
the range's start and ``feature`` at its end.  Through the installed
``diffchunk-mcp`` (the SDK's stdio client), an assistant:

1. reviews ``main..feature`` fully: ``load_git_diff``, then per chunk
   ``get_chunk`` and ``mark_reviewed``;
2. amends the branch's last commit slightly (one line of a file the branch
   changes, a line it does not change itself);
3. reviews it again, three ways, each from a copy of the record as the first
   review left it: everything again (no record at all); the chunks that
   ``review_status`` says are not reviewed (``next_chunk``, as before
   incremental review: marks follow each file's change, so only the chunk of
   the amended file is read again, whole); and since the review:
   ``load_git_diff(since_review=true)``, then per chunk of that diff
   ``get_chunk`` and ``mark_reviewed``.

Printed per review: the calls, the characters of the requests' arguments and
of the answers, and tokens (characters / 4), with the load's wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

MIRRORS = (
    "/work/.mirror/sqlalchemy+sqlalchemy/repo",
    "/work/.mirror/numpy+numpy/repo",
)
DEFAULT_RANGE = "rel_2_0_36..rel_2_0_37"
GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.org",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=GIT_ENV, check=True
    )
    return done.stdout.strip()


def prepare(mirror: str, rng: str, where: Path) -> tuple[Path, str]:
    """Clone the mirror; ``main`` at the range's start, ``feature`` checked out at its end.
    Returns the clone and the file whose line the amend will change."""
    start, end = rng.split("..")
    repo = where / "repo"
    subprocess.run(
        ["git", "clone", "-q", "--shared", "--no-checkout", mirror, str(repo)],
        check=True,
        env=GIT_ENV,
    )
    git(repo, "checkout", "-q", "-B", "feature", end)
    git(repo, "branch", "-f", "main", start)
    # A Python file the branch changes, with a line it leaves alone: that is what changes.
    for name in git(repo, "diff", "--name-only", "--diff-filter=M", "main", "feature").split():
        if name.endswith(".py") and name.startswith("lib/"):
            return repo, name
    raise SystemExit(f"{rng} changes no Python file under lib/")


def amend(repo: Path, name: str) -> str:
    """Change one line of ``name`` that the branch does not change, in the last commit."""
    path = repo / name
    lines = path.read_text().splitlines(keepends=True)
    changed = set()
    for line in git(repo, "diff", "-U0", "main", "feature", "--", name).splitlines():
        if line.startswith("@@"):
            new = line.split("+")[1].split(" ")[0]
            first, _, count = new.partition(",")
            changed.update(range(int(first), int(first) + int(count or 1) + 1))
    target = next(
        i for i, text in enumerate(lines, 1) if i > 20 and i not in changed and text.strip()
    )
    lines[target - 1] = lines[target - 1].rstrip("\n") + "  # amended\n"
    path.write_text("".join(lines))
    git(repo, "commit", "-q", "-a", "--amend", "--no-edit")
    return f"{name}:{target}"


@dataclass
class Review:
    """What one review cost: each call's name, request and answer sizes."""

    name: str
    calls: list[tuple[str, int, int]] = field(default_factory=list)
    load_seconds: float = 0.0

    @property
    def sent(self) -> int:
        return sum(s for _, s, _ in self.calls)

    @property
    def received(self) -> int:
        return sum(r for _, _, r in self.calls)


class Client:
    def __init__(self, session: Any, review: Review) -> None:
        self.session = session
        self.review = review

    async def call(self, tool: str, **args: Any) -> Any:
        result = await self.session.call_tool(tool, args)
        text = result.content[0].text
        if result.is_error:
            raise SystemExit(f"{tool} failed: {text}")
        self.review.calls.append((tool, len(json.dumps(args)), len(text)))
        return json.loads(text) if text[:1] in "[{" else text


async def review_range(
    repo: Path, state: Path, cache: Path, name: str, how: str, max_chunk_lines: int
) -> Review:
    """``how``: ``full`` (every chunk), ``status`` (the chunks not reviewed yet, by
    ``review_status``) or ``since`` (the since-review diff's chunks)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command = str(Path(sys.executable).with_name("diffchunk-mcp"))
    env = {"DIFFCHUNK_STATE_DIR": str(state), "DIFFCHUNK_CACHE_DIR": str(cache)}
    params = StdioServerParameters(command=command, args=[], env=env)
    review = Review(name)
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as raw,
        ):
            await raw.initialize()
            c = Client(raw, review)
            began = time.perf_counter()
            load = await c.call(
                "load_git_diff",
                absolute_repo_path=str(repo),
                revision_range="main..feature",
                max_chunk_lines=max_chunk_lines,
                since_review=how == "since",
            )
            review.load_seconds = time.perf_counter() - began
            path = load["file_path"]
            if how == "status":
                status = await c.call("review_status", absolute_file_path=path, limit=1)
                number = status["next_chunk"]
                while number is not None:
                    await c.call("get_chunk", absolute_file_path=path, chunk_number=number)
                    marked = await c.call(
                        "mark_reviewed", absolute_file_path=path, chunk_number=number
                    )
                    number = marked["next_chunk"]
                return review
            for number in range(1, load["chunks"] + 1):
                await c.call("get_chunk", absolute_file_path=path, chunk_number=number)
                await c.call("mark_reviewed", absolute_file_path=path, chunk_number=number)
    return review


def show(reviews: list[Review]) -> None:
    print(f"{'review':<46} {'calls':>6} {'sent':>8} {'received':>10} {'tokens':>9} {'load':>7}")
    for r in reviews:
        tokens = (r.sent + r.received) // 4
        print(
            f"{r.name:<46} {len(r.calls):>6} {r.sent:>8,} {r.received:>10,} {tokens:>9,} "
            f"{r.load_seconds:>6.2f}s"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", default=next((m for m in MIRRORS if os.path.isdir(m)), None))
    parser.add_argument("--range", dest="rng", default=DEFAULT_RANGE)
    parser.add_argument("--max-chunk-lines", type=int, default=1000)
    args = parser.parse_args(argv)
    if args.mirror is None:
        print("No mirror of a real project found (--mirror PATH); nothing measured.")
        return 0
    with tempfile.TemporaryDirectory(prefix="diffchunk-bench-incremental-") as tmp:
        where = Path(tmp)
        repo, name = prepare(args.mirror, args.rng, where)
        stat = git(repo, "diff", "--shortstat", "main", "feature")
        print(f"{args.mirror} {args.rng} as main..feature:{stat}")
        cache = where / "cache"
        first = anyio.run(
            review_range, repo, where / "state", cache, "first review (full)", "full",
            args.max_chunk_lines,
        )  # fmt: skip
        shutil.copytree(where / "state", where / "state-marks")
        changed = amend(repo, name)
        print(f"amended the last commit: one line of {changed}")
        again = anyio.run(
            review_range, repo, where / "state-none", cache, "second review, everything again",
            "full", args.max_chunk_lines,
        )  # fmt: skip
        marks = anyio.run(
            review_range, repo, where / "state-marks", cache,
            "second review, chunks not reviewed (status)", "status", args.max_chunk_lines,
        )  # fmt: skip
        since = anyio.run(
            review_range, repo, where / "state", cache, "second review, since_review=true",
            "since", args.max_chunk_lines,
        )  # fmt: skip
        show([first, again, marks, since])
        saved = 1 - (since.sent + since.received) / (again.sent + again.received)
        print(f"since_review saves {saved:.1%} of the second review's tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
