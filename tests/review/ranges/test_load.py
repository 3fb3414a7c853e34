"""Reviewing a git range end to end: load_git_diff, the MCP tool and `diffchunk review
RANGE` (what the repository's attributes leave out, reloads, the working tree and the
index)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from attributes_repo import attributes_repo
from click.testing import CliRunner
from gitrepo import git

from diffchunk.cli import main
from diffchunk.diff.options import LoadOptions
from diffchunk.git.runner import GitCommand
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore, default_store
from diffchunk.review.tools import diff_tools

# Each test has a cache of its own (DIFFCHUNK_CACHE_DIR).


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return attributes_repo(tmp_path / "repo")


def _paths(entries: list[dict[str, Any]]) -> dict[str, str]:
    return {e["path"]: e["reason"] for e in entries}


def test_load_git_diff_uses_repository_attributes(repo: Path) -> None:
    store = SessionStore()
    summary = load_git_diff(str(repo), "main~1..main", store=store).to_dict()
    assert summary["base"] == git(repo, "rev-parse", "main~1")
    assert summary["head"] == git(repo, "rev-parse", "main")
    assert summary["cached"] is False and summary["range"] == "main~1..main"
    excluded = _paths(summary["excluded"])
    assert excluded == {"src/schema_gen.py": "generated", "vendor/lib.js": "vendored"}
    listing = diff_tools.list_chunks(summary["file_path"], store=store).to_dict()
    kept = {f for c in listing["chunks"] for f in c["files"]}
    assert kept == {"src/app.py", "package-lock.json"}
    chunk = diff_tools.get_chunk(summary["file_path"], 1, include_context=False, store=store)
    assert "+a = 2" in chunk
    # A small diff is held in memory: a mapping would hold a descriptor per session.
    assert type(store.get(summary["file_path"]).review.parsed.data) is bytes
    again = load_git_diff(str(repo), "main~1..main", store=store).to_dict()
    assert again["cached"] is True and again["file_path"] == summary["file_path"]


def test_fresh_process_sees_the_same_chunks(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = load_git_diff(str(repo), "HEAD^!", store=SessionStore()).to_dict()
    # Another process (new store) given only the cached path: attributes come
    # from the sidecar, without asking git again.
    calls: list[str] = []
    real = GitCommand.run

    def spy(self: GitCommand, args: list[str], **kw: object) -> object:
        calls.append(args[0])
        return real(self, args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(GitCommand, "run", spy)
    listing = diff_tools.list_chunks(summary["file_path"], store=SessionStore()).to_dict()
    assert _paths(listing["excluded"]) == _paths(summary["excluded"])
    # No attribute lookup; only the blobs the listing's changed symbols are read from.
    assert set(calls) <= {"cat-file"}


def test_reload_with_other_patterns_keeps_repository_attributes(repo: Path) -> None:
    first = load_git_diff(
        str(repo), "HEAD^!", options=LoadOptions(exclude_patterns="src/**"), store=SessionStore()
    ).to_dict()
    assert _paths(first["excluded"])["src/schema_gen.py"] == "pattern"
    # Paths the first load never asked about are looked up now, then recorded.
    second = load_git_diff(str(repo), "HEAD^!", store=SessionStore()).to_dict()
    assert _paths(second["excluded"])["src/schema_gen.py"] == "generated"
    sidecar = json.loads(Path(second["file_path"] + ".gitattrs.json").read_text())
    assert sidecar["attributes"]["src/schema_gen.py"] == {"linguist-generated": True}
    assert sidecar["attributes"]["src/app.py"] == {}


def test_attributes_are_read_as_of_the_reviewed_commit(repo: Path) -> None:
    (repo / ".gitattributes").write_text("src/app.py linguist-generated\n")  # not committed
    summary = load_git_diff(str(repo), "main~1..main", store=SessionStore()).to_dict()
    assert "src/app.py" not in _paths(summary["excluded"])
    worktree = load_git_diff(
        str(repo), store=SessionStore()
    ).to_dict()  # the working tree's own attributes
    assert worktree["head"] is None
    assert worktree["files"] == 1 and worktree["files_excluded"] == 0  # .gitattributes itself


def test_working_tree_and_staged_reviews(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("a = 3\n")
    (repo / "new.py").write_text("n = 1\n")
    git(repo, "add", "new.py")
    store = SessionStore()
    worktree = load_git_diff(str(repo), store=store).to_dict()
    staged = load_git_diff(str(repo), staged=True, store=store).to_dict()
    wt_text = Path(worktree["file_path"]).read_text()
    st_text = Path(staged["file_path"]).read_text()
    assert "+a = 3" in wt_text and "new.py" in wt_text
    assert "new.py" in st_text and "+a = 3" not in st_text
    (repo / "src" / "app.py").write_text("a = 4\n")
    again = load_git_diff(str(repo), store=store).to_dict()
    assert again["cached"] is False and "+a = 4" in Path(again["file_path"]).read_text()
    assert "+a = 4" in diff_tools.get_chunk(again["file_path"], 1, store=store)


def test_invalid_options_fail_before_git_runs(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="context_lines"):
        load_git_diff(str(repo), "HEAD^!", options=LoadOptions(context_lines=-1)).to_dict()
    assert not (tmp_path / "cache").exists()


def test_mcp_tool_loads_range_and_reports_errors(repo: Path) -> None:
    from mcp import Client, types

    from diffchunk.server import app

    async def run() -> dict[str, types.CallToolResult]:
        async with Client(app) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["load_git_diff"].annotations is not None
            assert tools["load_git_diff"].annotations.read_only_hint is True
            return {
                "ok": await client.call_tool(
                    "load_git_diff",
                    {"absolute_repo_path": str(repo), "revision_range": "main~1..main"},
                ),
                "unknown": await client.call_tool(
                    "load_git_diff",
                    {"absolute_repo_path": str(repo), "revision_range": "main..nosuch"},
                ),
                "refused": await client.call_tool(
                    "load_git_diff",
                    {"absolute_repo_path": str(repo), "revision_range": "--output=/tmp/x"},
                ),
                "not_repo": await client.call_tool(
                    "load_git_diff", {"absolute_repo_path": str(repo.parent / "cache-none")}
                ),
            }

    out = anyio.run(run)

    def text(result: types.CallToolResult) -> str:
        block = result.content[0]
        assert isinstance(block, types.TextContent)
        return block.text

    assert not out["ok"].is_error
    summary = json.loads(text(out["ok"]))
    assert summary["chunks"] >= 1 and os.path.isabs(summary["file_path"])
    assert out["unknown"].is_error and "git log --oneline" in text(out["unknown"])
    assert out["refused"].is_error and "refused" in text(out["refused"])
    assert out["not_repo"].is_error and "does not exist" in text(out["not_repo"])


def test_cli_review_range_overview_chunk_and_json(repo: Path) -> None:
    default_store().clear()
    runner = CliRunner()
    result = runner.invoke(main, ["review", "--repo", str(repo), "main~1..main"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "main~1..main in" in out and "src/app.py" in out
    assert "src/schema_gen.py" in out and "generated" in out
    cached = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("Cached"))
    assert f"diffchunk review --chunk N {cached}" in out
    assert "Next:" not in out  # one way to read a chunk, not two
    assert "get_chunk(absolute_file_path=" in out
    # The printed command, in a "new process" (empty store), gives the same chunk.
    default_store().clear()
    chunk = runner.invoke(main, ["review", "--chunk", "1", cached])
    by_range = runner.invoke(main, ["review", "--repo", str(repo), "--chunk", "1", "main~1..main"])
    assert chunk.exit_code == 0 and chunk.output == by_range.output
    assert "+a = 2" in chunk.output
    as_json = runner.invoke(main, ["review", "--repo", str(repo), "HEAD^!", "--json"])
    data = json.loads(as_json.output)
    # HEAD^! is main~1..main's commits, but another review: a cache entry of its own
    # (its handle), reused when it is loaded again.
    assert data["summary"]["cached"] is False and data["summary"]["file_path"] != cached
    again = runner.invoke(main, ["review", "--repo", str(repo), "HEAD^!", "--json"])
    assert json.loads(again.output)["summary"]["cached"] is True
    assert data["summary"]["head"] == git(repo, "rev-parse", "HEAD")
    assert {e["path"] for e in data["excluded"]} == {"src/schema_gen.py", "vendor/lib.js"}
    # Without a range: the uncommitted changes of the current repository.
    (repo / "src" / "app.py").write_text("a = 5\n")
    wt = runner.invoke(main, ["review", "--repo", str(repo), "--chunk", "1"])
    assert wt.exit_code == 0 and "+a = 5" in wt.output
    bad = runner.invoke(main, ["review", "--repo", str(repo), "nosuch..main"])
    assert bad.exit_code == 1 and "Unknown revision 'nosuch'" in bad.output
    usage = runner.invoke(main, ["review", "--repo", str(repo), "HEAD^!", "--gitattributes", "x"])
    assert usage.exit_code == 2


def test_cli_review_still_reads_diff_files(repo: Path, tmp_path: Path) -> None:
    diff = tmp_path / "HEAD^!"  # a file whose name looks like a range is a file
    diff.write_text(git(repo, "diff", "main~1", "main", "--", "src/app.py") + "\n")
    result = CliRunner().invoke(main, ["review", str(diff), "--chunk", "1"])
    assert result.exit_code == 0 and "+a = 2" in result.output


def test_cli_cache_path_and_clear(repo: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    load_git_diff(str(repo), "HEAD^!", store=SessionStore()).to_dict()
    path = runner.invoke(main, ["cache", "path"])
    assert path.exit_code == 0 and path.output.splitlines()[0] == str(tmp_path / "cache")
    cleared = runner.invoke(main, ["cache", "clear"])
    assert cleared.exit_code == 0 and "Removed 1 cached diff" in cleared.output
    assert list((tmp_path / "cache").glob("*.diff")) == []
    assert list((tmp_path / "cache").glob("*.json")) == []


def test_cli_review_range_out_and_file(repo: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "review"
    result = runner.invoke(main, ["review", "--repo", str(repo), "HEAD^!", "--out", str(out)])
    assert result.exit_code == 0, result.output
    index = json.loads((out / "index.json").read_text())
    assert index["summary"]["range"] == "HEAD^!" and index["total_chunks"] >= 1
    assert "+a = 2" in (out / "chunk-0001.diff").read_text()
    one = runner.invoke(main, ["review", "--repo", str(repo), "HEAD^!", "--file", "vendor/lib.js"])
    assert one.exit_code == 0 and "+var v;" in one.output
