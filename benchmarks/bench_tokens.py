"""Benchmark: what a review costs the reader, in characters and tokens.

Usage::

    python -m benchmarks.bench_tokens [--diff FILE ...] [--range REPO:A..B ...]
                                      [--no-corpus] [--no-ranges] [--server-path DIR]

For each diff (the corpus diffs when ``../shared/corpus`` is present, the
public ranges below when their repositories are found, and any ``--diff`` or
``--range`` given): the characters of ``get_chunk`` for every chunk in each
format, banners included, as a share of the raw diff; the listing's overhead
(every ``list_chunks`` page, as the JSON a tool returns); what each kind of
lean fold saves; and the floor of a lean reading: the added lines, one line
per file and one per hunk of the chunks.  Then the tool list an assistant receives when it
connects (every tool's name, description and input schema, and the server's
instructions), read through the real stdio client from ``diffchunk-mcp``, or
from the tree at ``--server-path`` (to compare with another version).

Tokens are characters / 4, the project's rule of thumb (a model's own
tokenizer is not at hand).  A range's diff is what ``load_git_diff`` writes
(``git diff`` with the options of ``diffchunk/git/diffwrite.py``), from a
local repository: ``--range PATH:A..B``, or the ranges of :data:`RANGES`
when their repositories are found under ``$DIFFCHUNK_BENCH_REPOS`` or
``/work/.mirror``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
CORPUS_FILES = (
    "flask_2.3.3..3.0.0.diff",
    "sqlalchemy_rel_2_0_30..rel_2_0_31.diff",
    "flask_format-patch_3.1.1..3.1.2.mbox",
    "flask_log-p_3.1.2..3.1.3.txt",
    "flask_merge_cc.diff",
)
#: Public ranges measured when their repositories are found: (directory names, range).
RANGES = (
    (("sqlalchemy+sqlalchemy/repo", "sqlalchemy"), "rel_2_0_35..rel_2_0_36"),
    (("numpy+numpy/repo", "numpy"), "v2.0.0..v2.0.1"),
)
REPO_DIRS = ("DIFFCHUNK_BENCH_REPOS",)
FORMATS = ("raw", "annotated", "compact", "lean")
CHARS_PER_TOKEN = 4


@dataclass
class Measured:
    name: str
    raw: int
    chunks: int
    formats: dict[str, int] = field(default_factory=dict)
    listing: int = 0
    pages: int = 0
    folds: Counter[str] = field(default_factory=Counter)
    fold_counts: Counter[str] = field(default_factory=Counter)
    floor: int = 0
    added: int = 0


def _floor(raw: bytes) -> tuple[int, int]:
    """(added lines' characters, the floor: added lines + a line per file and per hunk)
    of one chunk's text."""
    from diffchunk.diff.parser import parse_diff

    parsed = parse_diff(raw)
    added = 0
    heads = 0
    for fd in parsed.files:
        heads += len(f"## {fd.path} (+{fd.added} -{fd.removed})\n")
        for hunk in fd.hunks:
            body = bytes(parsed.data[hunk.body_start : hunk.end]).decode("utf-8", "replace")
            added += sum(len(line) + 1 for line in body.split("\n") if line.startswith("+"))
            heads += len(f"@@ {hunk.new_start}\n")
    return added, added + heads


def measure(path: str, name: str) -> Measured:
    from diffchunk.diff.lean import render_lean
    from diffchunk.review.tools import diff_tools as core

    summary = core.load_diff(path)
    raw = Path(path).read_bytes()
    m = Measured(name, len(raw.decode("utf-8", "replace")), summary.chunks)
    for fmt in FORMATS:
        m.formats[fmt] = sum(
            len(core.get_chunk(path, n, True, fmt)) for n in range(1, summary.chunks + 1)
        )
    offset: int | None = 0
    while offset is not None:
        page = core.list_chunks(path, offset).to_dict()
        m.listing += len(json.dumps(page, ensure_ascii=False, separators=(",", ":")))
        m.pages += 1
        offset = page.get("next_offset")
    for n in range(1, summary.chunks + 1):
        text = core.get_chunk_bytes(path, n)
        view = render_lean(text)
        for kind, stats in view.stats.items():
            m.folds[kind] += stats.saved
            m.fold_counts[kind] += stats.count
        added, floor = _floor(text)
        m.added += added
        m.floor += floor
    return m


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


def report(m: Measured) -> None:
    raw = m.raw
    print(f"\n{m.name}: {raw:,} characters (~{raw // CHARS_PER_TOKEN:,} tokens), {m.chunks} chunks")
    print(f"  {'format':<10} {'characters':>11} {'tokens':>8} {'of raw':>7}")
    for fmt in FORMATS:
        chars = m.formats[fmt]
        print(f"  {fmt:<10} {chars:>11,} {chars // CHARS_PER_TOKEN:>8,} {_share(chars, raw):>7}")
    print(
        f"  listing: {m.listing:,} characters in {m.pages} page(s) "
        f"(~{m.listing // CHARS_PER_TOKEN:,} tokens, {_share(m.listing, raw).strip()} of raw)"
    )
    print(
        f"  lean floor (added lines + a line per file and hunk): {_share(m.floor, raw).strip()}"
        f" (added lines alone {_share(m.added, raw).strip()})"
    )
    print("  lean folds, characters saved (share of raw):")
    for kind, saved in m.folds.most_common():
        print(f"    {kind:<11} {saved:>9,} {_share(saved, raw)}  ({m.fold_counts[kind]:,} folds)")


def find_repo(names: tuple[str, ...]) -> str | None:
    """The first of ``names`` found as a directory under ``$DIFFCHUNK_BENCH_REPOS`` or
    ``/work/.mirror`` (also used by ``make bench-review``)."""
    bases = [os.environ[v] for v in REPO_DIRS if os.environ.get(v)] + ["/work/.mirror"]
    for base in bases:
        for name in names:
            path = Path(base) / name
            if path.is_dir():
                return str(path)
    return None


def range_diff(repo: str, rng: str) -> str:
    from diffchunk.review.ranges.load import load_git_diff

    return load_git_diff(repo, rng).file_path


async def _tool_list(server_path: str | None) -> tuple[list[dict[str, Any]], str]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {k: v for k, v in os.environ.items() if k.startswith("DIFFCHUNK_")}
    if server_path:
        env["PYTHONPATH"] = server_path
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "diffchunk.server"], env=env, cwd=server_path
    )
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            tools = (await session.list_tools()).tools
    listed = [
        t.model_dump(
            by_alias=True, exclude_none=True, include={"name", "description", "input_schema"}
        )
        for t in tools
    ]
    return listed, init.instructions or ""


def report_tool_list(server_path: str | None) -> None:
    import anyio

    tools, instructions = anyio.run(_tool_list, server_path)
    sizes = [(t["name"], len(json.dumps(t, ensure_ascii=False))) for t in tools]
    total = sum(size for _, size in sizes)
    where = server_path or "this tree"
    print(
        f"\nTool list ({where}): {len(tools)} tools, {total:,} characters (~{total // 4:,} tokens)"
    )
    for name, size in sorted(sizes, key=lambda item: -item[1]):
        print(f"  {name:<24} {size:>6,}")
    print(
        f"  server instructions: {len(instructions):,} characters; with the tools "
        f"{total + len(instructions):,} (~{(total + len(instructions)) // 4:,} tokens)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--diff", action="append", default=[], help="a diff file to measure")
    parser.add_argument(
        "--range", action="append", default=[], metavar="REPO:A..B", help="a range to measure"
    )
    parser.add_argument("--no-corpus", action="store_true")
    parser.add_argument("--no-ranges", action="store_true")
    parser.add_argument("--server-path", help="measure the tool list of the tree at this path")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bench-tokens-") as tmp:
        os.environ["DIFFCHUNK_STATE_DIR"] = os.path.join(tmp, "state")
        os.environ["DIFFCHUNK_CACHE_DIR"] = os.path.join(tmp, "cache")
        targets: list[tuple[str, str]] = []
        if not args.no_corpus:
            if CORPUS.is_dir():
                targets += [(str(CORPUS / n), n) for n in CORPUS_FILES if (CORPUS / n).is_file()]
            else:
                print(f"(no corpus at {CORPUS})")
        ranges = [(r.rsplit(":", 1)[0], r.rsplit(":", 1)[1]) for r in args.range]
        if not args.no_ranges:
            for names, rng in RANGES:
                repo = find_repo(names)
                if repo is None:
                    print(f"(no repository for {rng}: set DIFFCHUNK_BENCH_REPOS)")
                else:
                    ranges.append((repo, rng))
        for repo, rng in ranges:
            targets.append((range_diff(repo, rng), f"{Path(repo).parent.name or repo} {rng}"))
        targets += [(os.path.abspath(p), p) for p in args.diff]
        for path, name in targets:
            report(measure(path, name))
        report_tool_list(args.server_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
