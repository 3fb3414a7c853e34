"""A review of a release range as an assistant makes it, looking at the code around the
change, through the installed ``diffchunk-mcp``: each call and the size of its answer.

    python -m benchmarks.code_around_session --repo PATH --range A..B

The repository is cloned bare into a temporary directory first (the review
touches no work tree).  Then: load the range, list the chunks, read the first
chunk holding a changed Python definition, open that file at the new revision
to read the whole definition around the hunk, at the old revision to read its
imports, find a class's definitions by name, widen the file's hunks to their
definitions, search the diff for the definition's name, list the commits of
the file, look at one directory through a narrowed load (a view), go back to
the full view without reloading, page the excluded files, and limit the range
to the file's directory.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from typing import Any

import anyio

from benchmarks.record_session import Session, print_totals, served

# A listing's symbol from outlines: "Parser.run (method, modified, 12-40)".
_SYMBOL = re.compile(r"^(\S+) \((\w+), modified, (\d+)(?:-\d+)?\)$")


def _python_change(listing: dict[str, Any]) -> tuple[int, dict[str, Any], str, int] | None:
    """The first chunk with a Python file whose change touches a definition: (chunk,
    file detail, the definition's name, its first line)."""
    for chunk in listing["chunks"]:
        for detail in chunk["file_details"]:
            if not detail["path"].endswith(".py"):
                continue
            for symbol in detail.get("symbols", []):
                m = _SYMBOL.match(symbol)
                if m is not None:
                    return chunk["chunk"], detail, m.group(1), int(m.group(3))
    return None


def _added_name(diff: str) -> str:
    """The first longish identifier of the first added line (a name the change uses)."""
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]{5,}", line):
                if word not in _COMMON:
                    return word
    return "return"


_COMMON = frozenset({"return", "import", "assert", "lambda", "string", "object", "default"})


async def review(repo: str, rng: str) -> Session:
    async with served() as s:
        load = await s.call("load_git_diff", absolute_repo_path=repo, revision_range=rng)
        path = load["file_path"]
        at = {"absolute_file_path": path}
        listing = await s.call("list_chunks", **at)
        found = _python_change(listing)
        assert found is not None, "no changed Python definition in this range"
        number, detail, name, first_line = found
        file_path = detail["path"]
        await s.call("get_chunk", **at, chunk_number=number)
        new = await s.call("open_file_version", **at, file_path=file_path)
        await s.call(
            "read_content",
            absolute_file_path=new["path"],
            offset=first_line,
            mode="semantic",
        )
        old = await s.call("open_file_version", **at, file_path=file_path, side="old")
        await s.call("read_content", absolute_file_path=old["path"], mode="head", limit=40)
        # The definitions of the class around the change (or the definition itself).
        owner, dot, _ = name.partition(".")
        query = f"{owner}.*" if dot else owner
        await s.call("get_overview", absolute_file_path=new["path"], symbol=query)
        widened = await s.call("get_file_diff", **at, file_path=file_path, context="symbol")
        # Where else does the diff use a name this change adds?
        await s.call("search_diff", **at, pattern=_added_name(widened), max_results=20)
        await s.call("list_commits", **at, file_path=file_path)
        directory = file_path.rsplit("/", 1)[0]
        await s.call("find_chunks_for_files", **at, pattern=f"{directory}/*")
        view = await s.call(
            "load_git_diff",
            absolute_repo_path=repo,
            revision_range=rng,
            include_patterns=f"{directory}/**",
            max_chunk_lines=400,
        )
        await s.call("list_chunks", absolute_file_path=view["file_path"])
        await s.call("get_chunk", absolute_file_path=view["file_path"], chunk_number=1)
        # Back to the full view: nothing to reload.
        await s.call("get_chunk", **at, chunk_number=listing["total_chunks"])
        await s.call(
            "get_chunk",
            absolute_file_path=view["file_path"],
            chunk_number=view["chunks"] + 1,
        )
        if load["files_excluded"]:
            await s.call("list_chunks", **at, excluded=True, limit=20)
        limited = await s.call(
            "load_git_diff", absolute_repo_path=repo, revision_range=rng, paths=[directory]
        )
        await s.call("list_commits", absolute_file_path=limited["file_path"], limit=10)
        return s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", required=True, help="a repository to clone (bare) and review")
    parser.add_argument("--range", required=True, dest="rng")
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix="diffchunk-review-")
    os.environ.setdefault("DIFFCHUNK_STATE_DIR", os.path.join(work, "state"))
    os.environ.setdefault("DIFFCHUNK_CACHE_DIR", os.path.join(work, "cache"))
    bare = os.path.join(work, "repo.git")
    subprocess.run(["git", "clone", "--quiet", "--bare", args.repo, bare], check=True)
    session = anyio.run(review, bare, args.rng)
    print_totals(session)
    return 0


if __name__ == "__main__":
    sys.exit(main())
