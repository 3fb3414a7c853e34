"""Incremental review end to end through the installed ``diffchunk-mcp`` and the SDK's
stdio client: a reviewed branch is amended and rebased, then reviewed again since the
review; its history is pruned, and the since-review load says so.  Each first review
is made in the module's ``server``, each second one in ``other_server``, another
process on the same record (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gitrepo import commit, git, run_git
from incrementalkit import branch_text, five_files
from mcpkit import Caller, RunningServer
from recordkit import numbered


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return five_files(tmp_path / "repo")


def test_a_second_review_after_an_amend_and_a_rebase(
    repo: Path, server: RunningServer, other_server: RunningServer
) -> None:
    seen: dict[str, Any] = {}

    async def first(c: Caller) -> None:
        load = await c.json(
            "load_git_diff", absolute_repo_path=str(repo), revision_range="main..feature"
        )
        seen["full"] = path = load["file_path"]
        assert "since_review" not in load
        await c.json("mark_reviewed", absolute_file_path=path, file_pattern="*.py")
        seen["finding"] = await c.json(
            "add_finding", absolute_file_path=path, file_path="f1.py", message="Forty?", line=40
        )

    server.run(first)
    # Upstream changes f2.py; the branch is rebased and its f3.py change amended, and
    # ten lines are added at the top of f1.py.
    git(repo, "checkout", "-q", "main")
    commit(repo, {"f2.py": numbered("f2", 60, {50: "f2 upstream"})}, "upstream")
    git(repo, "checkout", "-q", "feature")
    git(repo, "rebase", "-q", "main")
    commit(
        repo,
        {
            "f1.py": "".join(f"top {i}\n" for i in range(10)) + branch_text("f1.py"),
            "f3.py": branch_text("f3.py", {10: "f3 TEN"}),
        },
    )
    git(repo, "reset", "-q", "--soft", "main")
    git(repo, "commit", "-q", "-m", "feature, again")

    async def second(c: Caller) -> None:
        load = await c.json(
            "load_git_diff",
            absolute_repo_path=str(repo),
            revision_range="main..feature",
            since_review=True,
        )
        seen["since"] = load
        path = load["file_path"]
        seen["chunk"] = await c.json("get_chunk", absolute_file_path=path, chunk_number=1)
        seen["status"] = await c.json("review_status", absolute_file_path=path)
        seen["findings"] = await c.json("list_findings", absolute_file_path=path, status="all")
        await c.json("mark_reviewed", absolute_file_path=path, chunk_number=1)
        full = await c.json(
            "review_status", absolute_file_path=load["since_review"]["full_file_path"]
        )
        seen["full_status"] = full

    other_server.run(second)
    since = seen["since"]["since_review"]
    assert since["history"] == "rewritten"
    assert since["files"] == {"unchanged": 3, "changed": 2, "new": 0, "no_longer_changed": 0}
    assert sorted(since["changed"]) == ["f1.py", "f3.py"]
    # The full diff of the range now (other commits than the first load's), not this one.
    assert since["full_file_path"] not in (seen["full"], seen["since"]["file_path"])
    assert "/since-" in seen["since"]["file_path"] and "/since-" not in since["full_file_path"]
    chunk = seen["chunk"]
    assert "f2 upstream" not in chunk  # upstream's change is not the branch's
    assert "+top 0" in chunk and "+f3 TEN" in chunk
    states = seen["status"]["chunks"][0]["file_states"]
    assert states == {"f1.py": "changed since review", "f3.py": "changed since review"}
    (finding,) = seen["findings"]["findings"]
    assert (finding["status"], finding["line"]) == ("open", 50)  # shifted by ten lines
    assert seen["full_status"]["totals"]["reviewed"] == 5


def test_pruned_history_through_the_server(
    repo: Path, server: RunningServer, other_server: RunningServer
) -> None:
    answers: dict[str, Any] = {}

    async def first(c: Caller) -> None:
        load = await c.json(
            "load_git_diff", absolute_repo_path=str(repo), revision_range="main..feature"
        )
        answers["head"] = load["head"]
        await c.json("mark_reviewed", absolute_file_path=load["file_path"], chunk_number=1)

    server.run(first)
    commit(repo, {"f4.py": branch_text("f4.py", {30: "f4 thirty"})})
    git(repo, "reset", "-q", "--soft", "main")
    git(repo, "commit", "-q", "-m", "rewritten")
    run_git(repo, "reflog", "expire", "--expire=now", "--all")
    run_git(repo, "gc", "-q", "--prune=now")

    async def second(c: Caller) -> None:
        answers["error"] = await c.error(
            "load_git_diff",
            absolute_repo_path=str(repo),
            revision_range="main..feature",
            since_review=True,
        )
        answers["full"] = await c.json(
            "load_git_diff", absolute_repo_path=str(repo), revision_range="main..feature"
        )

    other_server.run(second)
    error = answers["error"]
    assert "no longer in the repository" in error and answers["head"][:12] in error
    assert "since_review=false" in error
    assert answers["full"]["since_review"]["commits_gone"] is True


def test_list_commits_of_a_since_review_diff(
    repo: Path, server: RunningServer, other_server: RunningServer
) -> None:
    answers: dict[str, Any] = {}
    commit(repo, {"f4.py": branch_text("f4.py", {40: "f4 forty"})}, "f4: forty")

    async def first(c: Caller) -> None:
        load = await c.json(
            "load_git_diff", absolute_repo_path=str(repo), revision_range="main..feature"
        )
        await c.json("mark_reviewed", absolute_file_path=load["file_path"], file_pattern="*")

    server.run(first)
    reviewed = git(repo, "rev-parse", "feature")
    # The last commit amended, and one added on top.
    (repo / "f2.py").write_text(branch_text("f2.py", {20: "f2 twenty"}))
    git(repo, "commit", "-q", "-a", "--amend", "-m", "f4 and f2")
    commit(repo, {"f5.py": branch_text("f5.py", {30: "f5 thirty"})}, "f5: thirty")

    async def second(c: Caller) -> None:
        load = await c.json(
            "load_git_diff",
            absolute_repo_path=str(repo),
            revision_range="main..feature",
            since_review=True,
        )
        answers["load"] = load
        answers["since"] = await c.json("list_commits", absolute_file_path=load["file_path"])
        answers["full"] = await c.json(
            "list_commits", absolute_file_path=load["since_review"]["full_file_path"]
        )

    other_server.run(second)
    since, full = answers["since"], answers["full"]
    assert "/since-" in answers["load"]["file_path"]
    assert [c["subject"] for c in since["commits"]] == ["f5: thirty", "f4 and f2"]
    assert [c["id"] for c in since["commits"]] == git(
        repo, "log", "--format=%H", "feature", "^main", f"^{reviewed}"
    ).split()
    assert since["since_review"]["reviewed_head"] == reviewed
    full_path = answers["load"]["since_review"]["full_file_path"]
    assert since["since_review"]["full_file_path"] == full_path
    assert "older diffchunk" not in str(since) and "since-review diff" in since["note"]
    assert [c["subject"] for c in full["commits"]] == ["f5: thirty", "f4 and f2", "feature"]
    assert "since_review" not in full and full["total"] == 3
