"""get_overview and the five file tools through the MCP app (in process)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from diffchunk.files import content_read, content_search, edit
from diffchunk.files.access import clear_cache
from diffchunk.files.overview import Overview, get_overview
from diffchunk.server import app

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
}

PY_SOURCE = '''"""Module."""


class Store:
    def get(self, key):
        return key

    def put(self, key, value):
        # TODO: validate
        return value


def main():
    return Store()
'''


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_cache()


def test_overview_of_source_file(tmp_path: Path) -> None:
    path = tmp_path / "store.py"
    path.write_text(PY_SOURCE, encoding="utf-8")
    overview = get_overview(str(path)).to_dict()
    assert overview["line_count"] == PY_SOURCE.count("\n")
    assert overview["file_size"] == len(PY_SOURCE.encode())
    assert overview["encoding"] == "utf-8" and overview["is_binary"] is False
    assert overview["long_lines"] == {
        "has_long_lines": False,
        "count": 0,
        "max_length": max(len(line) for line in PY_SOURCE.splitlines()),
        "threshold": 1000,
    }
    names = [(item["type"], item["name"]) for item in overview["outline"]]
    assert names == [("class", "Store"), ("function", "main")]
    store = overview["outline"][0]
    assert [child["name"] for child in store["children"]] == ["get", "put"]
    assert (store["line_number"], store["end_line"]) == (4, 10)
    assert "Store" in overview["search_hints"] and "main" in overview["search_hints"]
    assert any(hint.startswith("TODO|FIXME") for hint in overview["search_hints"])
    assert overview["changed_symbols"] == 0


def test_overview_marks_changed_symbols_in_a_git_work_tree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    path = repo / "store.py"
    path.write_text(PY_SOURCE, encoding="utf-8")
    for args in (["init", "-q"], ["add", "store.py"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=GIT_ENV)
    path.write_text(PY_SOURCE.replace("return key", "return key * 2"), encoding="utf-8")
    overview = get_overview(str(path)).to_dict()
    assert overview["changed_symbols"] >= 1
    get = overview["outline"][0]["children"][0]
    assert get["name"] == "get" and get["changes"] == "modified"
    assert overview["outline"][1]["changes"] is None


def test_overview_of_log_long_lines_and_hints(tmp_path: Path) -> None:
    path = tmp_path / "app.log"
    lines = ["INFO start", "ERROR boom " + "z" * 1500, "WARN slow", "x" * 1200 + "\r"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    overview = get_overview(str(path)).to_dict()
    assert overview["line_count"] == 4
    assert overview["outline"] == []
    assert overview["long_lines"] == {
        "has_long_lines": True,
        "count": 2,
        "max_length": len(lines[1]),
        "threshold": 1000,
    }
    assert "ERROR" in overview["search_hints"] and "WARN" in overview["search_hints"]


def test_overview_of_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "a.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4)
    overview = get_overview(str(path)).to_dict()
    assert overview["is_binary"] is True and overview["binary_hint"] == "compressed"
    assert overview["encoding"] is None


def _call(name: str, args: dict[str, Any]) -> Any:
    async def run() -> Any:
        return await app.call_tool(name, args)

    return anyio.run(run)


def _text(result: Any) -> str:
    if hasattr(result, "content"):
        return str(result.content[0].text)
    if isinstance(result, tuple):
        result = result[0]
    return str(result[0].text)


def test_mcp_tools_registered_with_annotations() -> None:
    async def run() -> Any:
        return await app.list_tools()

    tools = {tool.name: tool for tool in anyio.run(run)}
    for name in ("get_overview", "search_content", "read_content"):
        assert tools[name].annotations.read_only_hint is True
    for name in ("edit_content", "revert_edit"):
        assert tools[name].annotations.destructive_hint is True


def test_mcp_read_search_overview_return_seed_shapes(tmp_path: Path) -> None:
    path = tmp_path / "store.py"
    path.write_text(PY_SOURCE, encoding="utf-8")
    overview = json.loads(_text(_call("get_overview", {"absolute_file_path": str(path)})))
    assert overview["line_count"] == 14
    found = json.loads(
        _text(_call("search_content", {"absolute_file_path": str(path), "pattern": "retrun value"}))
    )
    first = found["results"][0]
    assert first["line_number"] == 10 and first["match_type"] == "fuzzy"
    assert first["semantic_context"] == "inside method Store.put()"
    content = json.loads(
        _text(
            _call(
                "read_content",
                {"absolute_file_path": str(path), "pattern": "def put", "mode": "semantic"},
            )
        )
    )
    assert content["start_line"] == 8 and content["end_line"] == 10


def test_mcp_errors_are_json_with_suggestion(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("x\n", encoding="utf-8")
    with pytest.raises(ToolError) as info:
        _call("read_content", {"absolute_file_path": str(path), "mode": "sideways"})
    text = str(info.value)
    payload = json.loads(text[text.index("{") :])
    assert "sideways" in payload["error"] and "lines, semantic, head, tail" in payload["suggestion"]
    with pytest.raises(ToolError) as info:
        _call("search_content", {"absolute_file_path": "relative.txt", "pattern": "x"})
    assert "absolute" in str(info.value)


def test_mcp_edit_preview_apply_and_revert(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("DIFFCHUNK_BACKUP_DIR", str(tmp_path / "backups"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = tmp_path / "conf.txt"
    path.write_text("name = old\nport = 1\n", encoding="utf-8")
    changes = [{"search": "name = old", "replace": "name = new"}]
    preview = json.loads(
        _text(_call("edit_content", {"absolute_file_path": str(path), "changes": changes}))
    )
    assert preview["success"] is True and "+name = new" in preview["preview"]
    assert path.read_text(encoding="utf-8") == "name = old\nport = 1\n"
    applied = json.loads(
        _text(
            _call(
                "edit_content",
                {"absolute_file_path": str(path), "changes": changes, "preview": False},
            )
        )
    )
    assert applied["success"] is True and applied["backup_created"]
    assert path.read_text(encoding="utf-8") == "name = new\nport = 1\n"
    # Reads see the new version right away.
    found = json.loads(
        _text(
            _call(
                "search_content",
                {"absolute_file_path": str(path), "pattern": "name = new", "fuzzy": False},
            )
        )
    )
    assert found["total_matches"] == 1
    reverted = json.loads(_text(_call("revert_edit", {"absolute_file_path": str(path)})))
    assert reverted["success"] is True
    assert path.read_text(encoding="utf-8") == "name = old\nport = 1\n"


def test_the_tools_return_typed_results_whose_json_the_mcp_server_sends(tmp_path: Path) -> None:
    path = tmp_path / "store.py"
    path.write_text(PY_SOURCE, encoding="utf-8")
    where = {"absolute_file_path": str(path)}
    overview = get_overview(str(path))
    assert isinstance(overview, Overview) and overview.line_count == 14
    assert json.loads(_text(_call("get_overview", where))) == overview.to_dict()
    found = content_search.search_content(str(path), "retrun value")
    assert isinstance(found, content_search.SearchResult)
    assert (
        isinstance(found.results[0], content_search.SearchMatch)
        and found.results[0].line_number == 10
    )
    sent = json.loads(_text(_call("search_content", {**where, "pattern": "retrun value"})))
    assert sent == found.to_dict()
    counted = content_search.search_content(str(path), "return", fuzzy=False, count_only=True)
    assert isinstance(counted, content_search.CountResult) and counted.count == 3
    sent = json.loads(
        _text(
            _call(
                "search_content", {**where, "pattern": "return", "fuzzy": False, "count_only": True}
            )
        )
    )
    assert sent == counted.to_dict()
    read = content_read.read_content(str(path), pattern="def put", mode="semantic")
    assert isinstance(read, content_read.ReadResult) and read.semantic_block is not None
    assert read.semantic_block.name == "put" and (read.start_line, read.end_line) == (8, 10)
    sent = json.loads(
        _text(_call("read_content", {**where, "pattern": "def put", "mode": "semantic"}))
    )
    assert sent == read.to_dict()
    assert list(sent)[-4:] == ["pattern", "match_line", "similarity_score", "semantic_block"]
    changes = [{"search": "return key", "replace": "return str(key)"}]
    previewed = edit.edit_content(str(path), changes)
    assert isinstance(previewed, edit.EditResult) and previewed.results[0].line_number == 6
    sent = json.loads(_text(_call("edit_content", {**where, "changes": changes})))
    assert sent == previewed.to_dict() and "warnings" not in sent
