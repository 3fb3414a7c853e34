"""The record tools of the installed ``diffchunk-mcp``, through the SDK's stdio client:
a review that outlives its server, on a git range and on a diff file.

Tests that need a server, not a new one, share the module's two (``server`` and
``other_server`` of tests/conftest.py: a review made in one is read in the other)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from gitrepo import commit, git
from mcp import types
from mcpkit import Caller, RunningServer, serve
from recordkit import feature_repo, numbered, write_diff

from diffchunk.review import record as core

RECORD_TOOLS = {"mark_reviewed", "add_finding", "update_finding", "list_findings", "review_status"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return feature_repo(tmp_path / "repo")


def test_tools_are_listed_with_their_annotations(server: RunningServer) -> None:
    found: dict[str, types.Tool] = {}

    async def script(c: Caller) -> None:
        for tool in (await c.session.list_tools()).tools:
            found[tool.name] = tool

    server.run(script)
    assert set(found) >= RECORD_TOOLS
    for name in RECORD_TOOLS:
        notes = found[name].annotations
        reads = name in ("list_findings", "review_status")
        assert notes is not None and notes.read_only_hint is reads
        # the destructive hint means something only for a tool that writes (the protocol's
        # default for it is "destructive"): a writer says it destroys nothing
        assert notes.destructive_hint is (None if reads else False)
    assert found["mark_reviewed"].annotations.idempotent_hint is True  # type: ignore[union-attr]
    for name in RECORD_TOOLS:  # descriptions stay short: they are paid in every conversation
        assert len(found[name].description or "") < 900, name


def _review_in_a_first_server(repo: Path, tmp_path: Path) -> tuple[str, int]:
    """Through a first server: load the range, read and mark its chunk, add findings.
    Returns the review's path and the first finding's id."""
    first: dict[str, Any] = {}

    async def one(c: Caller) -> None:
        load = await c.json(
            "load_git_diff", absolute_repo_path=str(repo), revision_range="main..feature"
        )
        first["path"] = path = load["file_path"]
        await c.json("get_chunk", absolute_file_path=path, chunk_number=1)
        first["mark"] = await c.json("mark_reviewed", absolute_file_path=path, chunk_number=1)
        first["finding"] = await c.json(
            "add_finding",
            absolute_file_path=path,
            file_path="src/b.py",
            message="Thirty in words",
            line=30,
            severity="minor",
        )
        first["outside"] = await c.error(
            "add_finding", absolute_file_path=path, file_path="src/b.py", message="x", line=500
        )
        first["old"] = await c.json(
            "add_finding",
            absolute_file_path=path,
            file_path="src/a.py",
            message="Removed line",
            line=40,
            side="old",
            severity="nit",
        )
        first["suggest"] = await c.json(
            "add_finding",
            absolute_file_path=path,
            file_path="src/a.py",
            message="Digits",
            line=10,
            suggestion="a 10\n",
        )
        first["both"] = await c.error(
            "mark_reviewed", absolute_file_path=path, chunk_number=1, file_pattern="*"
        )

    serve(tmp_path, one)
    assert first["mark"] == {"marked": 4, "reviewed": 4, "of": 5, "next_chunk": None}
    assert first["finding"] == {
        "id": first["finding"]["id"],
        "at": "src/b.py:30",
        "line": "b thirty",
    }
    assert "src/b.py has 60 lines on the new side" in first["outside"]
    assert first["old"]["at"] == "src/a.py:40 (old)" and first["old"]["line"] == "a 40"
    assert "exactly one of chunk_number and file_pattern" in first["both"]
    return first["path"], first["finding"]["id"]


def _resume_in_a_second_server(path: str, finding_id: int, tmp_path: Path) -> None:
    """A new server on the same record: the status, a view of the review, pages of
    findings and an update hold what the first server wrote."""
    second: dict[str, Any] = {}

    async def two(c: Caller) -> None:
        second["status"] = await c.json("review_status", absolute_file_path=path)
        # Another chunk size and other filters in this server: a view of the same
        # review, whose marks hold; the diff's own path keeps its default view.
        view = await c.json(
            "load_diff", absolute_file_path=path, max_chunk_lines=40, exclude_patterns="docs/**"
        )
        second["view"] = view["file_path"]
        second["small"] = await c.json(
            "review_status", absolute_file_path=view["file_path"], limit=2
        )
        second["whole"] = await c.json("review_status", absolute_file_path=path)
        second["findings"] = await c.json("list_findings", absolute_file_path=path, limit=2)
        second["rest"] = await c.json(
            "list_findings", absolute_file_path=path, offset=second["findings"]["next_offset"]
        )
        second["resolved"] = await c.json(
            "update_finding", absolute_file_path=path, finding_id=finding_id, status="resolved"
        )
        second["open"] = await c.json("list_findings", absolute_file_path=path)

    serve(tmp_path, two)
    status = second["status"]
    assert status["review"]["source"]["range"] == "main..feature"
    assert status["totals"]["reviewed"] == 4 and status["next_chunk"] is None
    assert status["chunks"] == [
        {
            "chunk": 1,
            "status": "reviewed",
            "files": ["docs/c.md", "src/a.py", "src/b.py", "src/big.py"],
        }
    ]
    assert status["findings"]["open"] == {
        "blocker": 0,
        "major": 1,
        "minor": 1,
        "nit": 1,
        "question": 0,
    }
    assert second["view"].endswith(".diffview") and second["view"] != path
    assert second["whole"]["total_chunks"] == 1 and second["whole"]["review"] == status["review"]
    small = second["small"]
    assert small["review"] == status["review"]  # the view is the same review
    assert small["total_chunks"] > 2 and small["next_offset"] == 2
    assert [c["status"] for c in small["chunks"]] == ["reviewed", "reviewed"]
    assert small["totals"]["excluded_by_reason"] == {"generated": 1, "pattern": 1}
    assert small["next_chunk"] is None
    assert len(second["findings"]["findings"]) == 2 and second["findings"]["total"] == 3
    assert len(second["rest"]["findings"]) == 1
    # A write answers in a line: what it wrote, not the finding back.
    assert second["resolved"] == {"id": finding_id, "status": "resolved", "severity": "minor"}
    assert second["open"]["total"] == 2


def test_a_review_outlives_its_server(repo: Path, tmp_path: Path) -> None:
    path, finding_id = _review_in_a_first_server(repo, tmp_path)
    _resume_in_a_second_server(path, finding_id, tmp_path)


def test_an_edit_after_the_mark_shows_as_changed(
    repo: Path, server: RunningServer, other_server: RunningServer
) -> None:
    out: dict[str, Any] = {}

    async def before(c: Caller) -> None:
        load = await c.json(
            "load_git_diff", absolute_repo_path=str(repo), revision_range="main..feature"
        )
        await c.json("mark_reviewed", absolute_file_path=load["file_path"], file_pattern="src/**")

    server.run(before)
    commit(repo, {"src/b.py": numbered("b", 60, {30: "b thirty-one"})})

    async def after(c: Caller) -> None:
        load = await c.json(
            "load_git_diff", absolute_repo_path=str(repo), revision_range="main..feature"
        )
        out["status"] = await c.json("review_status", absolute_file_path=load["file_path"])

    other_server.run(after)
    status = out["status"]
    assert status["review"]["revision"]["head"] == git(repo, "rev-parse", "feature")
    assert status["totals"]["changed"] == 1 and status["changed_files"] == ["src/b.py"]
    assert status["totals"]["reviewed"] == 2


def test_a_diff_file_and_allowed_roots(repo: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    diff = write_diff(repo, work / "x.diff", "main", "feature")
    out: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        out["status"] = await c.json("review_status", absolute_file_path=str(diff))
        await c.json("get_file_diff", absolute_file_path=str(diff), file_path="src/a.py")
        out["after"] = await c.json("review_status", absolute_file_path=str(diff))
        # The cached diff of a range lies outside the roots, yet its review can be recorded.
        load = await c.json(
            "load_git_diff", absolute_repo_path=str(repo), revision_range="main..feature"
        )
        out["mark"] = await c.json(
            "mark_reviewed", absolute_file_path=load["file_path"], chunk_number=1
        )
        out["outside"] = await c.error(
            "review_status", absolute_file_path=str(tmp_path / "elsewhere.diff")
        )

    serve(tmp_path, script, "--allow-root", str(tmp_path / "work"), "--allow-root", str(repo))
    assert out["status"]["review"]["source"] == {
        "kind": "file",
        "diff_file": str(diff.resolve()),
        "sha256": out["status"]["review"]["revision"]["sha256"],
    }
    assert out["after"]["totals"]["seen"] == 1
    assert out["mark"]["reviewed"] == 4
    assert "outside the allowed roots" in out["outside"]
    assert os.path.exists(tmp_path / "state" / "reviews.sqlite3")


def test_answers_about_long_findings_stay_bounded(
    server: RunningServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", str(server.directory / "state"))  # its record
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(server.directory / "cache"))
    count = 100_000
    diff = tmp_path / "big.diff"
    diff.write_text(
        "diff --git a/big.txt b/big.txt\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,{count} @@\n"
        + "".join(f"+line {i}\n" for i in range(1, count + 1))
    )
    path = str(diff)
    sizes: dict[str, int] = {}
    answers: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        for name, args in (
            ("whole", {"line": 1, "end_line": count, "message": "The whole file is wrong"}),
            ("suggested", {"line": 5, "message": "Five", "suggestion": "five\n" * 39_000}),
        ):
            result = await c.raw(
                "add_finding", absolute_file_path=path, file_path="big.txt", **args
            )
            block = result.content[0]
            assert isinstance(block, types.TextContent) and not result.is_error, block
            sizes[name] = len(block.text)
            answers[name] = json.loads(block.text)
        listed = await c.raw("list_findings", absolute_file_path=path)
        block = listed.content[0]
        assert isinstance(block, types.TextContent)
        sizes["list"] = len(block.text)
        answers["list"] = json.loads(block.text)

    server.run(script)
    assert max(sizes.values()) < 20_000, sizes  # 1.19 MB answers before
    whole = answers["whole"]
    text = "".join(f"line {i}\n" for i in range(1, count + 1))
    # A write answers in a line: the id, where it sits and the first line it anchored.
    assert whole == {"id": whole["id"], "at": f"big.txt:1-{count}", "line": "line 1"}
    assert sizes["whole"] < 100 and sizes["suggested"] < 100
    listed = answers["list"]
    assert listed["total"] == 2 and len(listed["findings"]) == 2  # both on the first page
    suggested = next(f for f in listed["findings"] if f["message"] == "Five")
    assert suggested["suggestion_cut"]["lines"] == 39_000
    # The record and the exports keep every line.
    document = core.export_document(path).to_dict()
    kept = {f["message"]: f for f in document["findings"]}
    assert kept["The whole file is wrong"]["lines"] == text
    assert kept["Five"]["suggestion"] == "five\n" * 39_000
    assert "lines_cut" not in kept["Five"]
