"""The load's plan (:mod:`diffchunk.review.tools.plan`), through the installed server and
the SDK's stdio client: a small change whole in the answer with its plan, a larger one
planned by kind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gitrepo import commit, git, init_repo
from mcp import types
from mcpkit import Caller, RunningServer

from diffchunk.review.tools.plan import LOAD_CHANGE_CHARS, PLAN_COMMITS


def _release(repo: Path) -> None:
    """A small change: a function's body edited, a test added, a doc, a rename, a
    deleted module, and a release commit that also changes code."""
    init_repo(repo)
    body = "".join(f"    total += {i}\n" for i in range(30))
    commit(
        repo,
        {
            "pkg/core.py": "def compute(total):\n" + body + "    return total\n",
            "pkg/old_name.py": "VALUE = 1\n",
            "pkg/gone.py": "def unused():\n    return 2\n",
            "docs/guide.md": "# Guide\n\nUse compute.\n",
        },
        "base",
    )
    git(repo, "tag", "v1")
    git(repo, "mv", "pkg/old_name.py", "pkg/new_name.py")
    git(repo, "rm", "-q", "pkg/gone.py")
    commit(
        repo,
        {
            "pkg/core.py": "def compute(total):\n"
            + body.replace("total += 7\n", "total += 70\n")
            + "    return total\n",
            "tests/test_core.py": "def test_compute():\n    assert compute(0) > 0\n",
            "docs/guide.md": "# Guide\n\nUse compute, now faster.\n",
        },
        "Faster compute\n\nSeven was too small.\n\nMeasured on the suite.",
    )
    commit(repo, {"pkg/version.py": "VERSION = '1.1'\n"}, "Release version 1.1")
    git(repo, "tag", "v2")


def test_a_small_change_comes_whole_in_the_load_with_its_plan(
    server: RunningServer, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    _release(repo)
    out: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        result = await c.raw("load_git_diff", absolute_repo_path=str(repo), revision_range="v1..v2")
        out["blocks"] = [b.text for b in result.content if isinstance(b, types.TextContent)]

    server.run(script)
    head, change = out["blocks"]
    load = json.loads(head)
    plan = load["plan"]
    # The change is the answer's second block, in lean; a code file widened to its
    # definition shows the unchanged lines of that definition.
    assert load["change"] == "below" and len(change) <= LOAD_CHANGE_CHARS
    lines = change.split("\n")
    assert "-    total += 7" in lines and "+    total += 70" in lines
    assert "     total += 29" in lines  # compute's unchanged line: widened
    assert load["change_widened"] == ["pkg/core.py"]
    assert "## tests/test_core.py (new, +2)" in change
    # The plan: counts by kind (the change lists the files), the facts, the short log.
    assert plan["code"] == {"files": 4, "added": 2, "removed": 3}
    assert plan["tests"] == {"files": 1, "added": 2, "removed": 0}
    assert plan["docs"] == {"files": 1, "added": 1, "removed": 1}
    facts = plan["facts"]
    assert "renamed: pkg/old_name.py -> pkg/new_name.py" in facts
    assert "deleted: pkg/gone.py (-2)" in facts
    assert any("'Release version 1.1'" in f and f.endswith("pkg/version.py") for f in facts)
    # The log whole: the rest of each message under its subject, no blank lines.
    assert plan["commits"] == 2 and [entry.split(" ", 1)[1] for entry in plan["log"]] == [
        "Release version 1.1",
        "Faster compute\n  Seven was too small.\n  Measured on the suite.",
    ]


def test_a_larger_change_is_planned_by_kind_without_its_text(
    server: RunningServer, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    init_repo(repo)
    files = {f"src/mod_{i:02d}.py": "".join(f"x_{j} = {j}\n" for j in range(400)) for i in range(8)}
    commit(repo, {"README.md": "r\n"}, "base")
    git(repo, "tag", "v1")
    for i in range(PLAN_COMMITS + 1):
        commit(repo, {f"notes/n{i}.md": f"note {i}\n"}, f"note {i}")
    commit(repo, files, "many lines")
    out: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        result = await c.raw(
            "load_git_diff", absolute_repo_path=str(repo), revision_range="v1..HEAD"
        )
        out["blocks"] = [b.text for b in result.content if isinstance(b, types.TextContent)]

    server.run(script)
    [head] = out["blocks"]  # no change block: 3,200 lines do not fit
    plan = json.loads(head)["plan"]
    assert "change" not in json.loads(head)
    assert plan["code"]["files"] == 8 and plan["code"]["added"] == 3_200
    assert plan["code"]["list"][0] == "src/mod_00.py +400 -0 (new)"
    assert plan["docs"]["files"] == PLAN_COMMITS + 1
    # More commits than a plan lists: counted, list_commits pages them.
    assert plan["commits"] == PLAN_COMMITS + 2 and "log" not in plan


def test_an_edit_repeated_in_several_files_shows_once_in_the_loads_change(
    server: RunningServer, tmp_path: Path
) -> None:
    """The same marker removed from three test files: the first shows it, the others
    say where (lean finds a repeat within one view: the load's files are one view)."""
    repo = init_repo(tmp_path / "repo")
    marker = (
        "@pytest.mark.xfail(\n    sys.platform == 'win32', reason='paths differ on this one'\n)\n"
    )
    tests = {f"tests/test_{n}.py": f"def test_{n}():\n    assert {n}\n" for n in "abc"}
    commit(repo, {p: "import sys\n\n" + marker + t for p, t in tests.items()}, "base")
    commit(repo, {p: "import sys\n\n" + t for p, t in tests.items()}, "no marker")
    out: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        result = await c.raw("load_git_diff", absolute_repo_path=str(repo), revision_range="HEAD~1")
        out["blocks"] = [b.text for b in result.content if isinstance(b, types.TextContent)]

    server.run(script)
    _, change = out["blocks"]
    assert change.count("reason='paths differ on this one'") == 1, change
    assert "⋯ this edit (-3) is repeated at test_b.py:3; test_c.py:3" in change
    assert change.count("⋯ same edit (-3) as at test_a.py:3") == 2


def test_a_code_file_changed_outside_any_definition_is_not_widened(
    server: RunningServer, tmp_path: Path
) -> None:
    """A module-level constant has no definition around it: the load shows its change
    as lean does, without git's context lines, and does not say it widened it."""
    repo = init_repo(tmp_path / "repo")
    head = '"""The version."""\n\nimport sys\n\n__all__ = ["VERSION"]\n\n'
    tail = '\n"""Its docstring."""\n\n\ndef short() -> str:\n    return VERSION\n'
    commit(repo, {"pkg/version.py": head + "VERSION = '1.0'\n" + tail}, "base")
    commit(repo, {"pkg/version.py": head + "VERSION = '1.1'\n" + tail}, "release")
    out: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        result = await c.raw("load_git_diff", absolute_repo_path=str(repo), revision_range="HEAD~1")
        out["blocks"] = [b.text for b in result.content if isinstance(b, types.TextContent)]

    server.run(script)
    head_block, change = out["blocks"]
    assert json.loads(head_block)["change_widened"] == []
    assert change == "## pkg/version.py (+1 -1)\n@@ 7\n-VERSION = '1.0'\n+VERSION = '1.1'\n"
