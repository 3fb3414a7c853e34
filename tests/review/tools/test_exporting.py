"""export_review and `diffchunk export`: a recorded review of a real range, exported.

The renderers are tested on documents in tests/test_export_*.py; here the
record, the tool, the command and the MCP server are wired together.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcpkit import Caller, serve
from recordkit import feature_repo, run_cli

from diffchunk.diff.options import LoadOptions
from diffchunk.errors import InvalidArgument, PathError
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.record import add_finding, update_finding
from diffchunk.review.tools import exporting
from tests.support.export_docs import uncoloured


@pytest.fixture
def reviewed(tmp_path: Path) -> tuple[Path, str]:
    """A review of main..feature with an open, a resolved and an old-side finding."""
    repo = feature_repo(tmp_path / "repo")
    path = load_git_diff(str(repo), "main..feature", options=LoadOptions()).file_path
    add_finding(path, "src/a.py", "Ten in words", line=10, severity="major", suggestion="a 10\n")
    done = add_finding(path, "src/b.py", "Thirty", line=30, severity="nit")
    update_finding(path, done.finding.id, status="resolved")
    add_finding(path, "src/a.py", "The old forty", line=40, side="old", severity="question")
    return repo, path


def test_open_and_all_findings_in_every_format(reviewed: tuple[Path, str]) -> None:
    _, path = reviewed
    opened = exporting.export_review(path, "json", "open")
    every = exporting.export_review(path, "json", "all")
    assert (opened.findings, every.findings) == (2, 3)
    document = json.loads(every.text)
    assert document["review"]["source"]["range"] == "main..feature"
    assert document["findings_summary"]["resolved"] == 1
    assert {f["status"] for f in json.loads(opened.text)["findings"]} == {"open"}
    for fmt in ("markdown", "html", "sarif", "rdjson", "github"):
        text = exporting.export_review(path, fmt).text
        assert "Ten in words" in text, fmt
    page = exporting.export_review(path, "html").text
    assert "a ten" in uncoloured(page)  # the file's diff is in the page
    with pytest.raises(InvalidArgument, match="valid values are open, all"):
        exporting.export_review(path, "json", "closed")
    with pytest.raises(InvalidArgument, match="valid formats are markdown"):
        exporting.export_review(path, "pdf")


def test_the_cli_writes_the_github_body_for_gh(reviewed: tuple[Path, str], tmp_path: Path) -> None:
    repo, _ = reviewed
    out = tmp_path / "review.json"
    done = run_cli(
        "export", "main..feature", "--repo", str(repo), "--format", "github", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "2 finding(s)" in done.stderr
    body = json.loads(out.read_text())
    head = json.loads(exporting.export_review(reviewed[1], "json").text)["review"]["source"]
    assert body["commit_id"] == head["head"] and body["event"] == "COMMENT"
    comments = sorted((c["path"], c["line"], c["side"]) for c in body["comments"])
    assert comments == [("src/a.py", 10, "RIGHT"), ("src/a.py", 40, "LEFT")]
    printed = run_cli("export", "main..feature", "--repo", str(repo))
    assert printed.returncode == 0 and "Ten in words" in printed.stdout
    bad = run_cli("export", "main..feature", "--repo", str(repo), "--format", "pdf")
    assert bad.returncode == 2 and "pdf" in bad.stderr


def test_over_mcp_inline_or_written_to_a_file(
    reviewed: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = reviewed
    answers: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        load = await c.json(
            "load_git_diff", absolute_repo_path=str(repo), revision_range="main..feature"
        )
        path = load["file_path"]
        await c.json(
            "add_finding", absolute_file_path=path, file_path="src/b.py", message="x", line=30
        )
        answers["markdown"] = await c.json("export_review", absolute_file_path=path)
        answers["sarif"] = await c.json(
            "export_review", absolute_file_path=path, format="sarif", status="all"
        )
        answers["bad"] = await c.error("export_review", absolute_file_path=path, format="pdf")
        answers["findings_only"] = await c.json(
            "export_review", absolute_file_path=path, format="html", diff_text="findings"
        )
        answers["bad_diff_text"] = await c.error(
            "export_review", absolute_file_path=path, format="sarif", diff_text="findings"
        )
        tools = {t.name: t for t in (await c.session.list_tools()).tools}
        answers["annotations"] = tools["export_review"].annotations

    serve(tmp_path, script)
    assert "src/b.py" in answers["markdown"]
    assert answers["sarif"]["version"] == "2.1.0"
    assert "valid formats" in json.loads(answers["bad"])["error"]
    # diff_text="findings": the diffs of the files with findings, the others named alone.
    page = uncoloured(answers["findings_only"])
    assert "b thirty" in page and "a ten" in page and "c five" not in page
    assert "<td><code>docs/c.md</code></td>" in page
    assert "html export only" in json.loads(answers["bad_diff_text"])["error"]
    assert answers["annotations"].read_only_hint is True
    # An export larger than an answer is written to the cache, and the answer says where.
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache-here"))
    exported = exporting.Exported("x" * 100_000, "html", "all", 3)
    note = exporting.export_file_note(exported, "/somewhere/abc.diff")
    written = Path(note["written_to"])
    assert written.read_text() == exported.text and written.suffix == ".html"
    assert written.parent == tmp_path / "cache-here" / "exports"
    assert note["characters"] == 100_000 and "read_content" in note["note"]
    # The exports kept are bounded: the oldest go.
    monkeypatch.setattr(exporting, "EXPORTS_KEPT", 2)
    for i in range(4):
        exporting.export_file_note(exported, f"/somewhere/d{i}.diff")
    kept = sorted(p.name for p in written.parent.iterdir())
    assert len(kept) == 2 and any(name.startswith("d3-") for name in kept)
    # A cache that cannot take it: an error that says what to set, not an OSError.
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "a-file" / "cache"))
    with pytest.raises(PathError, match="too large for one answer") as failed:
        exporting.export_file_note(exported, "/somewhere/abc.diff")
    assert "DIFFCHUNK_CACHE_DIR" in (failed.value.suggestion or "")


def test_out_keeps_the_file_mode_and_says_what_to_do_when_it_cannot_write(
    reviewed: tuple[Path, str], tmp_path: Path
) -> None:
    _, path = reviewed
    exported = exporting.export_review(path, "markdown")
    out = tmp_path / "review.md"
    out.write_text("old\n")
    out.chmod(0o640)
    exporting.write_export(exported, out)
    assert out.read_text() == exported.text and (out.stat().st_mode & 0o777) == 0o640
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".review.md")] == []
    with pytest.raises(PathError, match="directory that exists"):
        exporting.write_export(exported, tmp_path / "missing" / "review.md")


def test_large_exports_of_two_formats_or_two_diffs_get_their_own_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    github = exporting.Exported("{}", "github", "open", 1)
    json_export = exporting.Exported("[]", "json", "open", 1)
    written = {
        exporting.export_file_note(github, "/one/x.diff")["written_to"],
        exporting.export_file_note(json_export, "/one/x.diff")["written_to"],
        exporting.export_file_note(github, "/two/x.diff")["written_to"],
    }
    assert len(written) == 3


def test_the_html_page_can_leave_out_the_diffs_of_files_without_findings(
    reviewed: tuple[Path, str], tmp_path: Path
) -> None:
    repo, path = reviewed
    whole = exporting.export_review(path, "html").text
    short = exporting.export_review(path, "html", diff_text="findings").text
    # The file with open findings keeps its diff, coloured as Python.
    section = short.split("<details class=file")[1]
    assert "<code>src/a.py</code>" in section and "a ten" in uncoloured(section)
    assert "<span class=n>a</span> <span class=mi>9</span>" in section
    # The others are listed by name (no link to a section they do not have), without
    # their diff.
    for name in ("src/b.py", "docs/c.md", "src/big.py", "package-lock.json"):
        assert f"<tr><td><code>{name}</code></td>" in short, name
        assert f"<summary><code>{name}</code>" in whole and f"<summary><code>{name}" not in short
    assert "big 399" in uncoloured(whole) and "big 399" not in uncoloured(short)
    assert "The diff text of the 4 file(s) without findings is left out" in short
    assert len(short) * 3 < len(whole)
    # The same from the command line, and refused where it means nothing.
    out = tmp_path / "review.html"
    done = run_cli(
        "export", "main..feature", "--repo", str(repo), "--format", "html",
        "--diff-text", "findings", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _timeless(out.read_text()) == _timeless(short)
    bad = run_cli(
        "export", "main..feature", "--repo", str(repo), "--format", "sarif",
        "--diff-text", "findings",
    )  # fmt: skip
    assert bad.returncode != 0 and "html export only" in bad.stderr
    with pytest.raises(InvalidArgument, match="valid values are all, findings"):
        exporting.export_review(path, "html", diff_text="some")


def _timeless(text: str) -> str:
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "T", text)
