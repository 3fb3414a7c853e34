"""Answers a reader can afford: every token figure is that of the text returned, no answer
is over about 20k tokens whatever the content (a raw chunk larger than that comes in
parts that concatenate to it exactly), and the listing pages stay small."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from gitrepo import git_bytes, init_repo
from mcpkit import Caller, RunningServer

from diffchunk.diff.lean import expand, render_lean
from diffchunk.diff.options import FORMATS, LoadOptions
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools

LIMIT = diff_tools.RESPONSE_TOKENS * diff_tools.CHARS_PER_TOKEN


@pytest.fixture
def store() -> SessionStore:
    return SessionStore()


def _commit(repo: Path, files: dict[str, bytes], message: str) -> None:
    for name, data in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(data)
    git_bytes(repo, "add", "-A")
    git_bytes(repo, "commit", "-q", "-m", message)


@pytest.fixture(scope="module")
def heavy_diff(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two measured cases: one PNG's GIT binary patch (~29k tokens in a chunk), and
    an SVG of six very long lines (two chunks of ~48k tokens each); and some code."""
    root = tmp_path_factory.mktemp("heavy")
    repo = init_repo(root / "repo")
    rng = random.Random(19)
    svg = lambda seed: "".join(  # noqa: E731
        f'<path d="{" ".join(f"M {rng.randrange(999)} {rng.randrange(999)}" for _ in range(6_000))}"/>\n'
        for _ in range(3)
    ).encode()
    _commit(repo, {"logo.png": b"\x89PNG\r\n", "art.svg": svg(1), "app.py": b"x = 1\n"}, "base")
    png = b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(90_000))
    _commit(repo, {"logo.png": png, "art.svg": svg(2), "app.py": b"x = 2\n"}, "change")
    diff = root / "heavy.diff"
    diff.write_bytes(git_bytes(repo, "diff", "--binary", "HEAD~1", "HEAD"))
    return diff


def _banner_and_text(answer: str) -> tuple[str, str]:
    banner, _, text = answer.partition("\n\n")
    return banner, text


def test_no_answer_is_over_the_bound_and_raw_parts_give_the_exact_text(
    heavy_diff: Path, store: SessionStore
) -> None:
    path = str(heavy_diff)
    diff_tools.load_diff(path, LoadOptions(max_chunk_lines=10), store=store)
    listing = diff_tools.list_chunks(path, store=store).to_dict()
    heavy = [c for c in listing["chunks"] if c.get("parts")]
    assert {f for c in heavy for f in c["files"]} == {"logo.png", "art.svg"}
    assert len(heavy) >= 3  # the PNG's chunk, and the SVG's two
    for entry in listing["chunks"]:
        number = entry["chunk"]
        exact = diff_tools.get_chunk_bytes(path, number, store=store)
        for fmt in FORMATS:
            answer = diff_tools.get_chunk(path, number, format=fmt, store=store)
            assert len(answer) <= LIMIT, (number, fmt, len(answer))
        parts = entry.get("parts", 1)
        texts = [
            diff_tools.get_chunk(path, number, include_context=False, part=n, store=store)
            for n in range(1, parts + 1)
        ]
        assert "".join(texts).encode() == exact
        assert all(len(t) <= LIMIT for t in texts)
        lean = diff_tools.get_chunk(path, number, format="lean", store=store)
        assert len(lean) < 3_000  # binary data and long lines are folded
    png = next(c["chunk"] for c in heavy if c["files"] == ["logo.png"])
    lean = diff_tools.get_chunk(path, png, format="lean", store=store)
    assert "GIT binary patch of " in lean and "new 90,008 bytes (literal)" in lean
    svg = next(c["chunk"] for c in heavy if c["files"] == ["art.svg"])
    assert "more characters of this line" in diff_tools.get_chunk(
        path, svg, format="lean", store=store
    )
    parts = next(c["parts"] for c in heavy if c["chunk"] == svg)
    second = diff_tools.get_chunk(path, svg, part=2, store=store)
    assert f"Raw text part 2 of {parts} " in second


def test_every_token_figure_is_that_of_the_text_returned(
    heavy_diff: Path, store: SessionStore
) -> None:
    path = str(heavy_diff)
    diff_tools.load_diff(path, LoadOptions(max_chunk_lines=10), store=store)
    for fmt in FORMATS:
        listing = diff_tools.list_chunks(path, format=fmt, store=store).to_dict()
        total = 0
        for entry in listing["chunks"]:
            banner, text = _banner_and_text(
                diff_tools.get_chunk(path, entry["chunk"], format=fmt, store=store)
            )
            tokens = len(text) // diff_tools.CHARS_PER_TOKEN
            assert f"~{tokens:,} tokens" in banner or f"Tokens: ~{tokens} " in banner
            if fmt == "raw":  # the whole raw text, which comes in parts when it is large
                exact = diff_tools.get_chunk_bytes(path, entry["chunk"], store=store)
                assert entry["token_count"] == len(exact) // diff_tools.CHARS_PER_TOKEN
            else:  # the view as returned
                assert entry["token_count"] == tokens
            total += entry["token_count"]
        assert listing["total_token_count"] == total
        assert listing.get("format", "raw") == fmt


def test_lean_banner_says_the_raw_cost_and_how_to_read_the_view(
    heavy_diff: Path, store: SessionStore
) -> None:
    path = str(heavy_diff)
    answer = diff_tools.get_chunk(path, 1, format="lean", store=store)
    banner, text = _banner_and_text(answer)
    first, legend = banner.split("\n")[:2]
    raw = diff_tools.list_chunks(path, store=store).to_dict()["chunks"][0]["token_count"]
    assert first.startswith("=== Chunk 1 of ") and f"(raw ~{raw:,})" in first
    assert "'@@ N'" in legend and 'format="raw"' in legend
    view = render_lean(diff_tools.get_chunk_bytes(path, 1, store=store))
    assert text == view.text
    assert expand(text, view.originals) == diff_tools.get_chunk_bytes(path, 1, store=store)


def test_get_file_diff_in_lean_says_it_and_counts_its_tokens(
    heavy_diff: Path, store: SessionStore
) -> None:
    answer = diff_tools.get_file_diff(str(heavy_diff), "app.py", "lean", store=store)
    head, _, *rest = answer.split("\n")
    text = "\n".join(rest)
    raw = len(diff_tools.get_file_diff_bytes(str(heavy_diff), "app.py", store=store).data)
    assert head == f"=== app.py | lean | ~{len(text) // 4:,} tokens (raw ~{raw // 4}) ==="
    assert "lean view:" not in answer  # the legend is the instructions' (said once)
    assert "~x = [-1-]{+2+}" in text or "-x = 1" in text


def test_listing_pages_are_small_and_name_the_excluded_files_once(
    tmp_path: Path, store: SessionStore
) -> None:
    lines = "".join(f"+line {i}\n" for i in range(12))
    sections = "".join(
        f"diff --git a/src/module_{i:04d}_with_a_longer_name.py b/src/module_{i:04d}_with_a_longer_name.py\n"
        f"--- a/src/module_{i:04d}_with_a_longer_name.py\n+++ b/src/module_{i:04d}_with_a_longer_name.py\n"
        f"@@ -0,0 +1,12 @@\n{lines}"
        for i in range(600)
    )
    locks = "".join(
        f"diff --git a/pkg{i}/package-lock.json b/pkg{i}/package-lock.json\n"
        f"--- a/pkg{i}/package-lock.json\n+++ b/pkg{i}/package-lock.json\n@@ -0,0 +1 @@\n+{{}}\n"
        for i in range(5)
    )
    diff = tmp_path / "many.diff"
    diff.write_text(sections + locks)
    path = str(diff)
    diff_tools.load_diff(path, LoadOptions(max_chunk_lines=10), store=store)
    offset: int | None = 0
    seen: list[int] = []
    pages = []
    while offset is not None:
        page = diff_tools.list_chunks(path, offset, store=store).to_dict()
        pages.append(page)
        size = len(json.dumps(page, ensure_ascii=False, separators=(",", ":")))
        assert size <= 25_000
        seen += [c["chunk"] for c in page["chunks"]]
        offset = page.get("next_offset")
    assert seen == list(range(1, pages[0]["total_chunks"] + 1))
    assert len(pages) > 3
    assert len(pages[0]["excluded"]) == 5
    for page in pages[1:]:
        assert page["excluded"] == [] and page["excluded_total"] == 5


def test_the_new_parameters_over_the_real_stdio_client(
    heavy_diff: Path, server: RunningServer
) -> None:
    out: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        at = {"absolute_file_path": str(heavy_diff)}

        async def call(tool: str, **args: Any) -> str:
            result = await c.raw(tool, **at, **args)
            text = result.content[0].text
            assert not result.is_error, text
            return text

        out["load"] = json.loads(await call("load_diff", max_chunk_lines=10, order="review"))
        out["listing"] = json.loads(await call("list_chunks", format="lean"))
        heavy = next(c for c in out["listing"]["chunks"] if c.get("parts"))
        out["part"] = await call("get_chunk", chunk_number=heavy["chunk"], part=2)
        out["lean"] = await call("get_chunk", chunk_number=heavy["chunk"], format="lean")
        out["file"] = await call("get_file_diff", file_path="app.py", format="lean")
        tools = (await c.session.list_tools()).tools
        out["schemas"] = {t.name: t.input_schema for t in tools}

    server.run(script)
    files = [f for c in out["listing"]["chunks"] for f in c["files"]]
    assert files[0] == "app.py"  # review order: code before the assets
    assert out["listing"]["format"] == "lean"
    assert "Raw text part 2 of" in out["part"] and len(out["part"]) <= LIMIT
    assert out["lean"].split("\n")[0].endswith("===") and len(out["lean"]) < 3_000
    assert out["file"].startswith("=== app.py | lean |")
    chunk = out["schemas"]["get_chunk"]["properties"]
    assert chunk["part"] == {"type": ["integer", "null"]}
    assert "title" not in out["schemas"]["get_chunk"]
