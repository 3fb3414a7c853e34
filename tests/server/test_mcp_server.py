"""The installed ``diffchunk-mcp`` server, driven through the SDK's stdio client (the
worker's servers of tests/conftest.py: one without roots, one with an allowed root)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from mcp import types
from mcp.client.session import ClientSession
from mcpkit import Confined, RunningServer

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
DIFF_TOOLS = {
    "load_diff",
    "list_chunks",
    "get_chunk",
    "find_chunks_for_files",
    "get_file_diff",
    "get_current_overview",
}


def _make_diff(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    run = lambda *a: subprocess.run([*GIT, *a], cwd=repo, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    (repo / "app.py").write_text("".join(f"line {i}\n" for i in range(40)))
    run("add", "-A")
    run("commit", "-q", "-m", "one")
    (repo / "app.py").write_text("".join(f"line {i * 2}\n" for i in range(40)))
    (repo / "notes.md").write_text("hello\n")
    run("add", "-A")
    run("commit", "-q", "-m", "two")
    diff = tmp_path / "change.diff"
    diff.write_bytes(run("diff", "HEAD~1", "HEAD").stdout)
    return diff


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def _session_checks(session: ClientSession, diff: Path, out: dict[str, Any]) -> None:
    tools = (await session.list_tools()).tools
    out["tools"] = {t.name: t for t in tools}
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    out["load"] = await session.call_tool(
        "load_diff",
        {"absolute_file_path": str(diff), "max_chunk_lines": 20},
        progress_callback=on_progress,
    )
    out["progress"] = seen
    # Not the default options: the load answers a view handle to read it through.
    view = json.loads(_text(out["load"]))["file_path"]
    out["list"] = await session.call_tool("list_chunks", {"absolute_file_path": view})
    out["chunk"] = await session.call_tool(
        "get_chunk",
        {"absolute_file_path": view, "chunk_number": 1, "include_context": False},
    )
    out["find"] = await session.call_tool(
        "find_chunks_for_files", {"absolute_file_path": view, "pattern": "*.MD"}
    )
    out["bad_chunk"] = await session.call_tool(
        "get_chunk", {"absolute_file_path": view, "chunk_number": 999}
    )
    out["default"] = await session.call_tool("list_chunks", {"absolute_file_path": str(diff)})
    out["relative"] = await session.call_tool("list_chunks", {"absolute_file_path": "change.diff"})
    out["resource"] = await session.read_resource("diffchunk://current")


def test_stdio_server_serves_the_diff_tools(server: RunningServer, tmp_path: Path) -> None:
    diff = _make_diff(tmp_path)
    out: dict[str, Any] = {}
    server.run(lambda c: _session_checks(c.session, diff, out))

    tools = out["tools"]
    assert set(tools) >= DIFF_TOOLS
    for name in DIFF_TOOLS:
        tool = tools[name]
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.output_schema is None
        assert "absolute_file_path" in tool.input_schema["properties"] or name == (
            "get_current_overview"
        )
    assert "ctx" not in tools["load_diff"].input_schema["properties"]

    assert not out["load"].is_error, _text(out["load"])
    summary = json.loads(_text(out["load"]))
    assert summary["file_path"].endswith(".diffview") and summary["files"] == 2
    # The diff's own path still serves its default view (one chunk of 1000 lines).
    assert json.loads(_text(out["default"]))["total_chunks"] == 1
    assert out["progress"] and out["progress"][-1] == 100

    listing = json.loads(_text(out["list"]))
    assert listing["total_chunks"] == summary["chunks"] > 1
    assert out["chunk"].is_error is False
    assert _text(out["chunk"]).startswith("diff --git a/app.py b/app.py")
    notes_chunks = json.loads(_text(out["find"]))
    assert [found["chunk"] for found in notes_chunks] == [summary["chunks"]]
    assert [f["path"] for f in notes_chunks[0]["files"]] == ["notes.md"]
    assert notes_chunks[0]["files"][0]["lines"] > 0

    assert out["bad_chunk"].is_error
    assert f"numbered 1..{summary['chunks']}" in _text(out["bad_chunk"])
    assert out["relative"].is_error
    assert "absolute path is required" in _text(out["relative"])

    contents = out["resource"].contents[0]
    overview = json.loads(contents.text)
    # The worker's server holds other tests' diffs too: this one's are the view and the
    # diff's default view.
    assert overview["total_sessions"] == len(overview["loaded_diffs"])
    loaded = {d["file_path"]: d for d in overview["loaded_diffs"]}
    diff_path = str(diff.resolve())
    ours = {path for path, d in loaded.items() if diff_path in (path, d.get("view_of"))}
    assert ours == {summary["file_path"], str(diff.resolve())}
    assert loaded[summary["file_path"]]["options"]["max_chunk_lines"] == 20
    assert loaded[summary["file_path"]]["view_of"] == str(diff.resolve())
    assert loaded[str(diff.resolve())]["options"]["max_chunk_lines"] == 1000


async def _failures(session: ClientSession, diff: Path, out: dict[str, Any]) -> None:
    path = str(diff)
    calls: dict[str, tuple[str, dict[str, Any]]] = {
        "diff tool": ("get_chunk", {"absolute_file_path": path, "chunk_number": 999}),
        "file tool": ("read_content", {"absolute_file_path": path, "mode": "sideways"}),
        "git tool": ("load_git_diff", {"absolute_repo_path": str(diff.parent / "nowhere")}),
        "unknown parameter": ("list_chunks", {"absolute_file_path": path, "page": 2}),
        "boolean for an integer": ("get_chunk", {"absolute_file_path": path, "chunk_number": True}),
        "schema": ("get_chunk", {"absolute_file_path": path, "chunk_number": "one"}),
        "missing argument": ("get_chunk", {"absolute_file_path": path}),
        "outside the roots": ("get_overview", {"absolute_file_path": "/etc/hostname"}),
        "unknown tool": ("no_such_tool", {}),
        # An error that repeats a 100,000-character argument stays within an answer.
        "long regex": (
            "search_content",
            {
                "absolute_file_path": path,
                "pattern": "(" + "q" * 100_000,
                "regex": True,
                "fuzzy": False,
            },
        ),
    }
    for what, (name, arguments) in calls.items():
        out[what] = await session.call_tool(name, arguments)


def test_every_failure_comes_back_in_one_shape(confined: Confined, tmp_path: Path) -> None:
    root, _ = confined.layout(tmp_path)  # the worker's server with an allowed root
    diff = _make_diff(root)
    results: dict[str, types.CallToolResult] = {}
    confined.server.run(lambda c: _failures(c.session, diff, results))
    for what, result in results.items():
        assert result.is_error, what
        payload = json.loads(_text(result))
        assert set(payload) == {"error", "suggestion"}, (what, payload)
        assert isinstance(payload["error"], str) and payload["error"], what
    assert "numbered 1.." in json.loads(_text(results["diff tool"]))["error"]
    assert "lines, semantic" in json.loads(_text(results["file tool"]))["suggestion"]
    assert "does not exist" in json.loads(_text(results["git tool"]))["error"]
    unknown = json.loads(_text(results["unknown parameter"]))
    assert "unknown parameter(s) page" in unknown["error"]
    assert "list_chunks takes: absolute_file_path" in unknown["suggestion"]
    assert "expected an integer" in json.loads(_text(results["boolean for an integer"]))["error"]
    assert "chunk_number" in json.loads(_text(results["schema"]))["error"]
    assert "chunk_number is required" in json.loads(_text(results["missing argument"]))["error"]
    roots = json.loads(_text(results["outside the roots"]))
    assert "outside the allowed roots" in roots["error"] and roots["suggestion"]
    assert "no_such_tool" in json.loads(_text(results["unknown tool"]))["error"]
    long = _text(results["long regex"])
    assert len(long) < 5_000 and "characters cut" in json.loads(long)["error"]
