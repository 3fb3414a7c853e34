"""The code around a change, through the installed server and the SDK's stdio client:
files at either revision (bare clone, work tree, index, a linked worktree), widened
hunks, symbols, search, commits, paths, views and the excluded summary."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from gitrepo import commit, git, git_bytes, init_repo, run_git
from mcpkit import Caller, RunningServer
from symbolkit import symbol_texts


def _fn(name: str, body: int, tag: str = "") -> str:
    return (
        f"def {name}(x):\n"
        + "".join(f"    x += {i}{tag}\n" for i in range(body))
        + "    return x\n\n\n"
    )


@pytest.fixture()
def repos(tmp_path: Path) -> dict[str, Path]:
    """A work tree with main and feature (an edit, a rename with an edit, a deletion, an
    addition, vendored files), its bare clone and a linked worktree of main."""
    repo = init_repo(tmp_path / "repo")
    util = "".join(_fn(f"u{i}", 3) for i in range(6))
    commit(
        repo,
        {
            "app.py": _fn("alpha", 20) + _fn("beta", 20),
            "util.py": util,
            "gone.py": "bye = 1\n",
            "docs/guide.md": "# Guide\n\nold words\n",
            **{f"vendor/lib{i}/x.js": f"v{i}\n" for i in range(30)},
        },
    )
    git(repo, "checkout", "-q", "-b", "feature")
    os.rename(repo / "util.py", repo / "helpers.py")
    (repo / "gone.py").unlink()
    commit(
        repo,
        {
            "app.py": _fn("alpha", 20).replace("x += 10\n", "x += 100\n") + _fn("beta", 20),
            "helpers.py": util.replace("x += 1\n", "x -= 1\n", 1),
            "added.py": _fn("fresh", 2),
            "docs/guide.md": "# Guide\n\nnew words\n",
            **{f"vendor/lib{i}/x.js": f"v{i} two\n" for i in range(30)},
        },
        "feature work",
    )
    git(repo, "checkout", "-q", "main")
    bare = tmp_path / "bare.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked), "main")
    return {"repo": repo, "bare": bare, "linked": linked}


def test_reviewing_the_code_around_a_change_over_mcp(
    repos: dict[str, Path], tmp_path: Path, server: RunningServer
) -> None:
    """One conversation with one server over stdio, kept whole: much of what it checks
    lives in that server between calls (the loaded diff and its views, the file versions
    it handed out, which go stale when the work tree changes under them)."""
    repo, bare, linked = repos["repo"], repos["bare"], repos["linked"]
    out: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        rng = await c.json(
            "load_git_diff", absolute_repo_path=str(bare), revision_range="main..feature"
        )
        diff = rng["file_path"]
        out["load"] = rng
        out["list"] = await c.json("list_chunks", absolute_file_path=diff)
        out["excluded"] = await c.json(
            "list_chunks", absolute_file_path=diff, excluded=True, limit=20
        )
        old = await c.json(
            "open_file_version", absolute_file_path=diff, file_path="helpers.py", side="old"
        )
        out["old"] = old
        out["semantic"] = await c.json(
            "read_content", absolute_file_path=old["path"], offset=3, mode="semantic"
        )
        out["symbol_query"] = await c.json(
            "get_overview", absolute_file_path=old["path"], symbol="u*"
        )
        out["edit"] = await c.error(
            "edit_content",
            absolute_file_path=old["path"],
            changes=[{"search": "x += 0", "replace": "x += 9"}],
        )
        out["widened"] = await c.json(
            "get_file_diff", absolute_file_path=diff, file_path="app.py", context="symbol"
        )
        out["search"] = await c.json(
            "search_diff", absolute_file_path=diff, pattern="x -= 1", side="new"
        )
        out["commits"] = await c.json(
            "list_commits", absolute_file_path=diff, file_path="helpers.py"
        )
        out["paths"] = await c.json(
            "load_git_diff",
            absolute_repo_path=str(bare),
            revision_range="main..feature",
            paths=["docs"],
        )
        narrowed = await c.json(
            "load_git_diff",
            absolute_repo_path=str(bare),
            revision_range="main..feature",
            max_chunk_lines=20,
            include_patterns="*.py",
        )
        out["narrowed"] = narrowed
        last = narrowed["chunks"]
        out["view_chunk"] = await c.json(
            "get_chunk", absolute_file_path=narrowed["file_path"], chunk_number=last
        )
        out["full_again"] = await c.json("list_chunks", absolute_file_path=diff)
        out["missing"] = await c.error(
            "get_chunk", absolute_file_path=narrowed["file_path"], chunk_number=last + 1
        )
        # The work tree, the index and a linked worktree.
        (repo / "app.py").write_text(_fn("alpha", 20, " # wt") + _fn("beta", 20))
        work = await c.json("load_git_diff", absolute_repo_path=str(repo))
        out["work"] = await c.json(
            "open_file_version", absolute_file_path=work["file_path"], file_path="app.py"
        )
        (repo / "app.py").write_text("changed again\n")
        out["stale"] = await c.error(
            "open_file_version", absolute_file_path=work["file_path"], file_path="app.py"
        )
        (repo / "app.py").write_text("staged = 1\n")
        git(repo, "add", "app.py")
        staged = await c.json("load_git_diff", absolute_repo_path=str(repo), staged=True)
        out["staged"] = await c.json(
            "open_file_version", absolute_file_path=staged["file_path"], file_path="app.py"
        )
        (linked / "gone.py").write_text("still here = 2\n")
        side = await c.json("load_git_diff", absolute_repo_path=str(linked))
        out["linked"] = await c.json(
            "open_file_version", absolute_file_path=side["file_path"], file_path="gone.py"
        )

    server.run(script)

    details = {d["path"]: d for c in out["list"]["chunks"] for d in c["file_details"]}
    assert {p: d["status"] for p, d in details.items()} == {
        "added.py": "added",
        "app.py": "modified",
        "docs/guide.md": "modified",
        "gone.py": "deleted",
        "helpers.py": "renamed",
    }
    assert details["helpers.py"]["from"] == "util.py"
    assert symbol_texts(details["app.py"]["symbols"]) == ["alpha (function, modified, 1-22)"]
    assert "symbols_from" not in details["app.py"]  # from the outline
    assert out["list"]["excluded_summary"]["by_dir"] == {"vendor": 30}
    assert out["excluded"]["excluded_total"] == 30 and out["excluded"]["next_offset"] == 20

    old = out["old"]
    assert old["file_path"] == "util.py" and old["side"] == "old"
    assert Path(old["path"]).read_bytes() == git_bytes(repo, "show", "main:util.py")
    assert out["semantic"]["semantic_block"]["name"] == "u0"
    assert out["symbol_query"]["symbols_total"] == 6
    edit = json.loads(out["edit"])
    assert "read-only snapshot of util.py, old side" in edit["error"]
    assert "bare repository" in edit["error"]

    widened = out["widened"]
    assert widened.count("\n def alpha(x):\n") == 1 and "def beta" not in widened
    work = tmp_path / "apply"
    run_git(tmp_path, "clone", "-q", str(repo), str(work))
    (tmp_path / "app.diff").write_text(widened)
    git(work, "apply", str(tmp_path / "app.diff"))
    assert (work / "app.py").read_bytes() == git_bytes(repo, "show", "feature:app.py")

    [hit] = out["search"]["hits"]
    assert (hit["file"], hit["kind"], hit["side"], hit["line"]) == ("helpers.py", "+", "new", 3)
    assert [c["subject"] for c in out["commits"]["commits"]] == ["feature work"]
    assert out["paths"]["files"] == 1 and out["paths"]["paths"] == ["docs"]
    assert out["narrowed"]["file_path"].endswith(".diffview")
    assert out["view_chunk"].startswith("=== Chunk")
    assert out["full_again"] == out["list"]  # the full view is still there
    missing = json.loads(out["missing"])
    assert "view" in missing["error"] and out["load"]["file_path"] in missing["suggestion"]

    assert Path(out["work"]["path"]).read_text() == _fn("alpha", 20, " # wt") + _fn("beta", 20)
    assert out["work"]["revision"] == "working tree"
    assert "changed since the diff was loaded" in json.loads(out["stale"])["error"]
    assert Path(out["staged"]["path"]).read_bytes() == b"staged = 1\n"
    assert out["staged"]["revision"] == "index"
    assert Path(out["linked"]["path"]).read_bytes() == b"still here = 2\n"
