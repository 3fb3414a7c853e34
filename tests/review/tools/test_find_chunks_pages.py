"""find_chunks_for_files answers within one response: the plain list when every matching
chunk fits, pages (``offset``/``limit``, ``total``, ``next_offset``) otherwise, and a
chunk of more files than an answer holds lists as many as fit (``files_total``).

The data: a real repository whose branch adds 1,500 files with long paths (a listing
of all of them, unpaged, is about twice the bound of an answer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from gitrepo import commit, git, init_repo
from mcpkit import Caller, RunningServer

from diffchunk.diff.options import LoadOptions
from diffchunk.errors import InvalidArgument
from diffchunk.review.incremental.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools

LIMIT = diff_tools.RESPONSE_TOKENS * diff_tools.CHARS_PER_TOKEN
FILES = 1500


def _name(i: int) -> str:
    return f"pkg/area_{i % 7}/a_rather_long_directory_name_for_paging/module_{i:04d}.py"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = init_repo(tmp_path_factory.mktemp("find") / "repo")
    commit(repo, {"README.md": "base\n"}, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, {_name(i): f"value = {i}\n" for i in range(FILES)}, "many files")
    return repo


def _load(repo: Path, store: SessionStore, **options: Any) -> str:
    return load_git_diff(
        str(repo), "main..feature", options=LoadOptions(**options), store=store
    ).file_path


def _text(value: Any) -> str:
    """The answer as the tool sends it (compact JSON)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _every_page(path: str, pattern: str, store: SessionStore) -> list[dict[str, Any]]:
    """The pages of a query from the first, following next_offset."""
    pages: list[dict[str, Any]] = []
    offset: int | None = 0
    while offset is not None:
        answer = diff_tools.find_chunks_page(path, pattern, offset, store=store).answer()
        assert isinstance(answer, dict) and len(_text(answer)) <= LIMIT
        pages.append(answer)
        offset = answer.get("next_offset")
    return pages


@pytest.mark.parametrize("max_chunk_lines", [10, 1000])
def test_pages_of_a_query_hold_every_chunk_within_the_bound(
    repo: Path, store: SessionStore, max_chunk_lines: int
) -> None:
    path = _load(repo, store, max_chunk_lines=max_chunk_lines)
    whole = [c.to_dict() for c in diff_tools.find_chunks_with_files(path, "*", store=store)]
    assert len(_text(whole)) > LIMIT  # what the tool answered before it paged
    pages = _every_page(path, "*", store)
    assert len(pages) >= 2
    assert [c for page in pages for c in page["chunks"]] == whole
    assert {page["total"] for page in pages} == {len(whole)}
    assert "next_offset" not in pages[-1]
    # "**" selects the same files.
    assert _every_page(path, "**", store) == pages


def test_a_query_that_fits_is_the_plain_list(repo: Path, store: SessionStore) -> None:
    path = _load(repo, store, max_chunk_lines=10)
    numbers = diff_tools.find_chunks_for_files(path, "module_000?.py", store=store)
    answer = diff_tools.find_chunks_page(path, "module_000?.py", store=store).answer()
    assert isinstance(answer, list) and [c["chunk"] for c in answer] == numbers
    assert answer[0] == {"chunk": numbers[0], "files": [{"path": _name(0), "lines": 7}]}
    assert diff_tools.find_chunks_page(path, "*.rs", store=store).answer() == []
    # A part asked for is a page, even when it fits.
    part = diff_tools.find_chunks_page(path, "module_000?.py", 2, 3, store=store).answer()
    assert part == {"chunks": answer[2:5], "total": 10, "next_offset": 5}
    last = diff_tools.find_chunks_page(path, "module_000?.py", 8, store=store).answer()
    assert last == {"chunks": answer[8:], "total": 10}
    with pytest.raises(InvalidArgument, match="past the end"):
        diff_tools.find_chunks_page(path, "module_000?.py", 11, store=store)
    with pytest.raises(InvalidArgument, match="limit must be a positive integer"):
        diff_tools.find_chunks_page(path, "*", 0, 0, store=store)


def test_a_chunk_of_more_files_than_a_page_holds(repo: Path, store: SessionStore) -> None:
    # A chunk's files take less JSON than its diff text, which fits an answer: a page
    # smaller than a chunk's entry shows how one too large is cut.
    path = _load(repo, store)
    first = diff_tools.find_chunks_with_files(path, "pkg/**", store=store)[0]
    page = diff_tools.find_chunks_page(path, "pkg/**", store=store, max_chars=4_000)
    answer = page.answer()
    assert isinstance(answer, dict) and len(_text(answer)) <= 4_000
    (chunk,) = answer["chunks"]
    assert answer["next_offset"] == 1 and chunk["chunk"] == first.chunk == 1
    assert chunk["files_total"] == len(first.files) > len(chunk["files"]) > 10
    assert [(f["path"], f["lines"]) for f in chunk["files"]] == list(
        first.files[: len(chunk["files"])]
    )


def test_find_chunks_for_files_pages_over_mcp(repo: Path, server: RunningServer) -> None:
    seen: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        load = await c.json(
            "load_git_diff",
            absolute_repo_path=str(repo),
            revision_range="main..feature",
            max_chunk_lines=10,
        )
        path = load["file_path"]
        pages, texts, offset = [], [], 0
        while offset is not None:
            result = await c.raw(
                "find_chunks_for_files", absolute_file_path=path, pattern="**", offset=offset
            )
            texts.append(result.content[0].text)  # type: ignore[union-attr]
            pages.append(json.loads(texts[-1]))
            offset = pages[-1].get("next_offset")
        seen["pages"], seen["texts"] = pages, texts
        seen["one"] = await c.json(
            "find_chunks_for_files", absolute_file_path=path, pattern=_name(7)
        )

    server.run(script)
    assert max(len(t) for t in seen["texts"]) <= LIMIT and len(seen["pages"]) >= 2
    chunks = [c["chunk"] for page in seen["pages"] for c in page["chunks"]]
    assert len(chunks) == len(set(chunks)) == seen["pages"][0]["total"] >= FILES // 2
    assert seen["one"] == [
        {"chunk": seen["one"][0]["chunk"], "files": [{"path": _name(7), "lines": 7}]}
    ]
