"""``diffchunk status``, ``mark`` and ``finding``: the record's CLI twins."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from recordkit import feature_repo, run_cli, write_diff

from diffchunk.cli import main


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return feature_repo(tmp_path / "repo")


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def cli_json(*args: str) -> Any:
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_status_mark_and_findings_on_a_range(repo: Path) -> None:
    r = ("main..feature", "--repo", str(repo))
    shown = cli("status", *r)
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[0].startswith("Review #1: main..feature in ")
    assert (
        "5: 0 reviewed, 0 changed since reviewed, 0 seen, 4 unseen, 1 excluded (1 generated)"
        in lines[1]
    )
    assert "open: none" in lines[2]
    assert "    1  unseen    docs/c.md, src/a.py, src/b.py, src/big.py" in lines
    assert lines[-1].startswith("Next: chunk 1  (diffchunk review main..feature --chunk 1")

    marked = cli("mark", *r, "--chunk", "2", "--max-chunk-lines", "100")
    assert marked.exit_code == 0, marked.output
    assert "Marked reviewed: src/big.py" in marked.output
    assert "other parts of this file are not marked yet" in marked.output
    marked = cli_json("mark", *r, "--file", "src/*.py")
    assert marked["marked"] == ["src/a.py", "src/b.py", "src/big.py"]
    undone = cli_json("mark", *r, "--file", "src/a.py", "--undo")
    assert undone["reviewed"] is False and undone["totals"]["reviewed"] == 2

    added = cli(
        "finding", "add", *r, "--file", "src/b.py", "--line", "29", "--end-line", "31",
        "--message", "Thirty in words", "--severity", "minor", "--suggestion", "b 30\n",
    )  # fmt: skip
    assert added.exit_code == 0, added.output
    assert added.output.splitlines() == [
        "Finding #1 (minor) on src/b.py lines 29-31 (new side), chunk 1",
        "  | b 29",
        "  | b thirty",
        "  | b 31",
    ]
    refused = cli("finding", "add", *r, "--file", "src/b.py", "--line", "99", "--message", "x")
    assert refused.exit_code == 1
    assert "src/b.py has 60 lines on the new side" in refused.output
    whole = cli_json("finding", "add", *r, "--file", "docs/c.md", "--message", "Reword")
    assert whole["line"] is None and whole["severity"] == "major"

    listed = cli("finding", "list", *r)
    assert listed.output.splitlines() == [
        "#2    major    open      docs/c.md  Reword",
        "#1    minor    open      src/b.py:29-31  [chunk 1]  Thirty in words",
    ]
    assert cli("finding", "resolve", "1").output.startswith("#1    minor    resolved")
    assert cli("finding", "dismiss", "2").exit_code == 0
    assert cli("finding", "list", *r).output == "No open findings.\n"
    assert cli_json("finding", "list", *r, "--status", "all")["total"] == 2
    reopened = cli_json("finding", "reopen", "2")
    assert reopened[0]["status"] == "open"
    updated = cli_json("finding", "update", "2", "--severity", "nit")
    assert updated[0]["severity"] == "nit"
    missing = cli("finding", "resolve", "99")
    assert missing.exit_code == 1 and "no finding 99" in missing.output

    status = cli_json("status", *r)
    assert status["totals"]["reviewed"] == 2 and status["findings"]["resolved"] == 1
    assert status["next_chunk"] == 1


def test_usage_errors(repo: Path) -> None:
    r = ("main..feature", "--repo", str(repo))
    both = cli("mark", *r, "--chunk", "1", "--file", "x")
    assert both.exit_code == 2 and "exactly one of --chunk N and --file GLOB" in both.output
    neither = cli("mark", *r)
    assert neither.exit_code == 2
    attrs = cli("status", *r, "--gitattributes", str(repo / "src" / "a.py"))
    assert attrs.exit_code == 2 and "diff files" in attrs.output
    bad = cli("finding", "add", *r, "--file", "src/a.py", "--message", "m", "--severity", "huge")
    assert bad.exit_code == 2


def test_a_diff_file_in_the_installed_command(repo: Path, tmp_path: Path) -> None:
    diff = write_diff(repo, tmp_path / "change.diff", "main", "feature")
    env = {"DIFFCHUNK_STATE_DIR": str(tmp_path / "state")}
    done = run_cli("mark", str(diff), "--file", "docs/*", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["marked"] == ["docs/c.md"]
    # `diffchunk review --chunk`/--file is reading: recorded as seen.
    assert run_cli("review", str(diff), "--file", "src/a.py", env=env).returncode == 0
    status = run_cli("status", str(diff), env=env)
    assert status.returncode == 0, status.stderr
    assert status.stdout.startswith(f"Review #1: {diff} (sha256 ")
    assert "1 reviewed, 0 changed since reviewed, 1 seen, 2 unseen, 1 excluded" in status.stdout


def test_text_that_is_not_utf8_is_kept_as_escapes(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A byte of a command line that is not UTF-8 (Latin-1 é): Python holds it as the
    # surrogate \udce9, which SQLite cannot store; the command failed with exit 3.
    diff = write_diff(repo, tmp_path / "change.diff", "main", "feature")
    latin1 = os.fsdecode(b"caf\xe9")
    added = run_cli("finding", "add", str(diff), "--file", "src/a.py", "--message", latin1)
    assert added.returncode == 0, added.stderr
    (finding,) = cli_json("finding", "list", str(diff))["findings"]
    assert finding["message"] == "caf\\xe9"
    # The MCP tool: JSON allows a lone surrogate ("\ud800", which the SDK's own client
    # cannot send), the tool function is called as the server calls it.
    from diffchunk.server.record_tools import add_finding, update_finding

    answer = json.loads(add_finding(str(diff), "src/a.py", "bad \ud800 text", 10))
    update_finding(str(diff), answer["id"], message="still \ud800 bad")
    messages = [f["message"] for f in cli_json("finding", "list", str(diff))["findings"]]
    assert messages == ["caf\\xe9", "still \\ud800 bad"]


def test_resolving_several_findings_changes_all_or_none(repo: Path, tmp_path: Path) -> None:
    diff = str(write_diff(repo, tmp_path / "change.diff", "main", "feature"))
    for line in (10, 40):
        cli("finding", "add", diff, "--file", "src/a.py", "--line", str(line), "--message", "m")
    refused = cli("finding", "dismiss", "1", "99", "2")
    assert refused.exit_code == 1
    assert "has no finding 99; no finding was changed" in refused.output
    statuses = [
        f["status"] for f in cli_json("finding", "list", diff, "--status", "all")["findings"]
    ]
    assert statuses == ["open", "open"]  # finding 1 was dismissed before the bad id
    assert cli("finding", "resolve", "1", "2").exit_code == 0
    statuses = [
        f["status"] for f in cli_json("finding", "list", diff, "--status", "all")["findings"]
    ]
    assert statuses == ["resolved", "resolved"]
