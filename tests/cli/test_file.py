"""``diffchunk file ...``: the CLI twins of the file tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from diffchunk.cli import main
from diffchunk.files.access import clear_cache


@pytest.fixture(autouse=True)
def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_cache()
    monkeypatch.setenv("DIFFCHUNK_BACKUP_DIR", str(tmp_path / "backups"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


@pytest.fixture()
def log(tmp_path: Path) -> Path:
    path = tmp_path / "app.log"
    path.write_text(
        "".join(f"{i} {'ERROR' if i % 10 == 0 else 'INFO'} event\n" for i in range(1, 101)),
        encoding="utf-8",
    )
    return path


def test_overview_human_and_json(log: Path) -> None:
    runner = CliRunner()
    human = runner.invoke(main, ["file", "overview", str(log)])
    assert human.exit_code == 0, human.output
    assert "100 lines" in human.output and "utf-8" in human.output
    as_json = runner.invoke(main, ["file", "overview", str(log), "--json"])
    assert json.loads(as_json.output)["line_count"] == 100


def test_search_count_exact_and_results(log: Path) -> None:
    runner = CliRunner()
    count = runner.invoke(main, ["file", "search", str(log), "ERROR", "--exact", "--count"])
    assert count.exit_code == 0 and count.stdout.strip() == "10"
    found = runner.invoke(
        main, ["file", "search", str(log), "ERROR", "--exact", "-m", "2", "-C", "0"]
    )
    assert found.exit_code == 0
    assert found.stdout.splitlines() == ["10:10 ERROR event", "20:20 ERROR event"]
    data = json.loads(
        runner.invoke(main, ["file", "search", str(log), "ERORR", "--json", "-m", "1"]).stdout
    )
    assert data["results"][0]["match_type"] == "fuzzy" and data["fuzzy_enabled"] is True


def test_read_tail_and_lines(log: Path) -> None:
    runner = CliRunner()
    tail = runner.invoke(main, ["file", "read", str(log), "--tail", "-n", "2"])
    assert tail.exit_code == 0
    assert tail.stdout == "99 INFO event\n100 ERROR event\n"
    lines = runner.invoke(main, ["file", "read", str(log), "-o", "5", "-n", "1", "--json"])
    assert json.loads(lines.stdout)["content"] == "5 INFO event"


def test_errors_exit_1_with_message(tmp_path: Path, log: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(main, ["file", "read", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 1 and "does not exist" in missing.output
    bad = runner.invoke(main, ["file", "search", str(log), "(", "--regex"])
    assert bad.exit_code == 1 and "Invalid regular expression" in bad.output
    usage = runner.invoke(main, ["file", "read", str(log), "--mode", "middle"])
    assert usage.exit_code == 2


def test_edit_preview_then_apply_then_revert(tmp_path: Path) -> None:
    path = tmp_path / "conf.ini"
    path.write_text("[a]\nkey = 1\n", encoding="utf-8")
    runner = CliRunner()
    preview = runner.invoke(main, ["file", "edit", str(path), "-s", "key = 1", "-r", "key = 2"])
    assert preview.exit_code == 0, preview.output
    assert "+key = 2" in preview.stdout
    assert path.read_text(encoding="utf-8") == "[a]\nkey = 1\n"
    changes = tmp_path / "changes.json"
    changes.write_text(json.dumps([{"search": "key = 1", "replace": "key = 3"}]), encoding="utf-8")
    applied = runner.invoke(
        main, ["file", "edit", str(path), "--changes-json", str(changes), "--apply", "--json"]
    )
    assert applied.exit_code == 0, applied.output
    assert json.loads(applied.stdout)["backup_created"]
    assert path.read_text(encoding="utf-8") == "[a]\nkey = 3\n"
    reverted = runner.invoke(main, ["file", "revert", str(path)])
    assert reverted.exit_code == 0, reverted.output
    assert path.read_text(encoding="utf-8") == "[a]\nkey = 1\n"


def test_edit_needs_search_replace_pairs(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("x\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["file", "edit", str(path), "-s", "x"])
    assert result.exit_code == 1 and "pairs" in result.output
