"""A narrowed load does not take the full view away: views of a diff side by side."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from gitrepo import commit, git_bytes, init_repo
from mcp import types
from mcp.client import Client

from diffchunk.diff.options import LoadOptions
from diffchunk.errors import ChunkNotFound, PathError
from diffchunk.paths import PathPolicy
from diffchunk.review import record as record_tools
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.sessions.views import SUFFIX, read_view
from diffchunk.review.tools import diff_tools
from diffchunk.server import app
from diffchunk.server.app import configure_policy


def _lines(n: int, tag: str) -> str:
    return "".join(f"{tag} {i}\n" for i in range(n))


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """Forty modules and a doc, each changed: with 40-line chunks, about twenty chunks."""
    repo = init_repo(tmp_path / "repo")
    files = {f"src/m{i:02d}.py": _lines(30, f"m{i}") for i in range(40)}
    files["docs/guide.md"] = _lines(10, "guide")
    commit(repo, files)
    commit(repo, {name: text.replace(" 7\n", " seven\n") for name, text in files.items()}, "two")
    return repo


@pytest.fixture()
def diff(repo: Path, tmp_path: Path) -> Path:
    path = tmp_path / "change.diff"
    path.write_bytes(git_bytes(repo, "diff", "HEAD~1", "HEAD"))
    return path


def test_a_narrowed_load_leaves_the_full_view_to_other_calls(diff: Path) -> None:
    store = SessionStore()
    path = str(diff)
    full = diff_tools.load_diff(path, LoadOptions(max_chunk_lines=40), store=store)
    assert full.file_path.endswith(SUFFIX)  # 40 lines a chunk: a view of its own
    last = full.chunks
    before = diff_tools.get_chunk(full.file_path, last, store=store)
    narrowed = diff_tools.load_diff(
        path, LoadOptions(max_chunk_lines=40, include_patterns="docs/**"), store=store
    )
    assert narrowed.chunks == 1 and narrowed.file_path not in (full.file_path, path)
    # Both views are served at once: nothing to reload.
    assert diff_tools.get_chunk(full.file_path, last, store=store) == before
    assert diff_tools.list_chunks(narrowed.file_path, store=store).total_chunks == 1
    # The diff's own path keeps its default view all along.
    assert diff_tools.list_chunks(path, store=store).to_dict()["total_chunks"] == 1
    assert len(store.sessions()) == 3
    with pytest.raises(ChunkNotFound) as err:
        diff_tools.get_chunk(narrowed.file_path, last, store=store)
    message, suggestion = err.value.message, err.value.suggestion or ""
    assert f"Chunk {last} does not exist" in message
    assert f"the view {narrowed.file_path} of {diff.resolve()}" in message
    assert "include_patterns='docs/**'" in message
    assert f"The diff's own path {diff.resolve()} serves its default view" in suggestion
    assert f"{full.file_path} (max_chunk_lines=40, {last} chunks)" in suggestion


def test_a_handle_outlives_the_process_and_follows_its_diff(diff: Path) -> None:
    handle = diff_tools.load_diff(
        str(diff), LoadOptions(include_patterns="src/m0*"), store=SessionStore()
    ).file_path
    view = read_view(handle)
    assert view.diff == str(diff.resolve()) and view.options.include_patterns == "src/m0*"
    again = diff_tools.load_diff(str(diff), LoadOptions(include_patterns="src/m0*"))
    assert again.file_path == handle  # the same options, the same handle
    fresh = SessionStore()  # another process: the handle alone says what to load
    listing = diff_tools.list_chunks(handle, store=fresh).to_dict()
    files = {f for c in listing["chunks"] for f in c["files"]}
    assert files == {f"src/m0{i}.py" for i in range(10)}
    # A handle with the default options is that view itself.
    assert diff_tools.load_diff(handle, store=fresh).file_path == handle
    # The diff changes: the view shows its new content.
    diff.write_text(diff.read_text().replace("+m1 seven", "+m1 SEVEN"))
    assert "+m1 SEVEN" in diff_tools.get_file_diff(handle, "src/m01.py", store=fresh)
    os.unlink(handle)
    with pytest.raises(PathError, match="Load the diff again"):
        diff_tools.list_chunks(handle, store=SessionStore())


def test_a_view_shares_the_loaded_diff(diff: Path) -> None:
    store = SessionStore()
    diff_tools.list_chunks(str(diff), store=store)
    handle = diff_tools.load_diff(
        str(diff), LoadOptions(exclude_patterns="docs/**"), store=store
    ).file_path
    default, view = store.peek(str(diff)), store.peek(handle)
    assert default is not None and view is not None and view.view == handle
    assert view.review.parsed is default.review.parsed  # one buffer, one parse
    reduced = diff_tools.load_diff(str(diff), LoadOptions(context_lines=0), store=store)
    shown = store.peek(reduced.file_path)
    # Its text is the reduced one; the diff was not read again (the same digest).
    assert shown is not None and shown.digest == default.digest
    assert len(shown.review.parsed.data) < len(default.review.parsed.data)
    assert b"\n m1 6\n" not in diff_tools.get_chunk_bytes(reduced.file_path, 1, store=store)


def test_views_sharing_a_buffer_count_it_once_against_the_memory_bound(diff: Path) -> None:
    size = len(diff.read_bytes())
    store = SessionStore(max_bytes=size + size // 2)  # room for one buffer, not two
    diff_tools.list_chunks(str(diff), store=store)
    handle = diff_tools.load_diff(
        str(diff), LoadOptions(exclude_patterns="docs/**"), store=store
    ).file_path
    # One buffer held by two sessions: both stay (counted twice, the diff was evicted).
    assert store.peek(str(diff)) is not None and store.peek(handle) is not None


def test_a_range_view_is_the_same_review(repo: Path) -> None:
    full = load_git_diff(str(repo), "HEAD~1..HEAD", store=SessionStore())
    narrowed = load_git_diff(
        str(repo), "HEAD~1..HEAD", options=LoadOptions(include_patterns="docs/**")
    )
    assert not full.file_path.endswith(SUFFIX) and narrowed.file_path.endswith(SUFFIX)
    assert read_view(narrowed.file_path).diff == full.file_path
    record_tools.mark_reviewed(narrowed.file_path, chunk_number=1)
    status = record_tools.review_status(full.file_path)
    assert status.review.id == record_tools.review_status(narrowed.file_path).review.id
    assert status.totals.reviewed == 1  # the mark made through the view holds
    whole = diff_tools.list_chunks(full.file_path).to_dict()  # the full view, still
    assert sum(len(c["files"]) for c in whole["chunks"]) == 41


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def test_a_handle_does_not_open_a_diff_outside_the_roots(tmp_path: Path, diff: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    handle = diff_tools.load_diff(str(diff), LoadOptions(context_lines=1)).file_path
    configure_policy(PathPolicy.from_paths([str(root)], "--allow-root"))
    try:

        async def go() -> list[Any]:
            async with Client(app) as session:
                return [
                    await session.call_tool("list_chunks", {"absolute_file_path": handle}),
                    await session.call_tool(
                        "load_diff", {"absolute_file_path": handle, "context_lines": 0}
                    ),
                ]

        results = anyio.run(go)
    finally:
        configure_policy(None)
    for result in results:
        assert result.is_error and "outside the allowed roots" in _text(result)
        assert str(diff.resolve()) in json.loads(_text(result))["error"]


def test_a_repository_outside_the_roots_is_not_read_through_its_diff(
    tmp_path: Path, repo: Path
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=SessionStore()).file_path
    configure_policy(PathPolicy.from_paths([str(root)], "--allow-root"))
    try:

        async def go() -> list[Any]:
            async with Client(app) as session:
                reads = [
                    await session.call_tool(
                        "open_file_version", {"absolute_file_path": diff, "file_path": "src/m01.py"}
                    ),
                    await session.call_tool("list_commits", {"absolute_file_path": diff}),
                    await session.call_tool(
                        "get_file_diff",
                        {
                            "absolute_file_path": diff,
                            "file_path": "src/m01.py",
                            "context": "symbol",
                        },
                    ),
                ]
                # The diff itself stays readable (diffchunk's own cache).
                reads.append(
                    await session.call_tool(
                        "get_file_diff", {"absolute_file_path": diff, "file_path": "src/m01.py"}
                    )
                )
                return reads

        results = anyio.run(go)
    finally:
        configure_policy(None)
    for result in results[:3]:
        assert result.is_error and "outside the allowed roots" in _text(result)
        assert str(repo) in json.loads(_text(result))["error"]
    assert not results[3].is_error
