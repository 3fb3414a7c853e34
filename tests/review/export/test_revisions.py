"""A finding's lines are numbered in one revision: every export format places it on
lines only when that is the revision exported.

Findings follow the branch (re-anchored at each load of the range); a finding
anchored in another revision than the one exported (an export of an earlier
load's path, a diff file whose content changed since) points at its file, with
a note of where its lines were, in every format.  A since-review diff is
exported as its review at that revision, on the full diff's lines.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote_to_bytes

from gitrepo import commit, git, init_repo
from incrementalkit import branch_text, five_files, load
from recordkit import numbered, write_diff

from diffchunk.review import record as core
from diffchunk.review.tools.exporting import export_review
from tests.support.export_docs import uncoloured


def _moved_branch(tmp_path: Path) -> tuple[Path, str, str, str]:
    """A finding on new line 30 (``a THIRTY``), then a commit inserting two lines above
    it: ``(repo, first load's path, second load's path, head)``; the finding is at
    line 32 of the head."""
    repo = init_repo(tmp_path / "repo")
    commit(repo, {"a.py": numbered("a", 60)}, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, {"a.py": numbered("a", 60, {30: "a THIRTY"})}, "thirty")
    first = load(repo).file_path
    core.add_finding(first, "a.py", "Thirty in capitals", line=30, suggestion="a thirty\n")
    lines = numbered("a", 60, {30: "a THIRTY"}).splitlines(keepends=True)
    commit(repo, {"a.py": "".join([*lines[:27], "inserted 1\n", "inserted 2\n", *lines[27:]])})
    second = load(repo).file_path
    head = git(repo, "rev-parse", "HEAD")
    assert git(repo, "show", "HEAD:a.py").splitlines()[31] == "a THIRTY"
    return repo, first, second, head


def _exports(path: str) -> dict[str, Any]:
    texts = {fmt: export_review(path, fmt).text for fmt in ("markdown", "html")}
    parsed = {fmt: json.loads(export_review(path, fmt).text) for fmt in ("sarif", "rdjson")}
    parsed.update({fmt: json.loads(export_review(path, fmt).text) for fmt in ("github", "json")})
    return {**texts, **parsed}


def test_a_finding_that_followed_the_branch_is_on_its_new_lines_in_every_format(
    tmp_path: Path,
) -> None:
    _, _, path, head = _moved_branch(tmp_path)
    out = _exports(path)
    assert out["github"]["commit_id"] == head
    ((comment),) = out["github"]["comments"]
    assert (comment["path"], comment["line"], comment["side"]) == ("a.py", 32, "RIGHT")
    run = out["sarif"]["runs"][0]
    assert run["properties"]["diffchunk"]["revision"]["head"] == head  # no remote: no provenance
    (result,) = run["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["endLine"]) == (32, 32) and "fixes" in result
    (diagnostic,) = out["rdjson"]["diagnostics"]
    assert diagnostic["location"]["range"]["start"]["line"] == 32
    assert "<td>32<td>+a THIRTY<tr class=f id=finding-1 " in uncoloured(out["html"])
    assert "new line 32 · finding #1 · chunk 1" in out["markdown"]
    assert "another revision" not in out["markdown"] + out["github"]["body"]
    (finding,) = out["json"]["findings"]
    assert (finding["line"], finding["chunk"], finding["anchor"]["head"]) == (32, 1, head)


def test_findings_of_another_revision_are_never_placed_on_the_exported_lines(
    tmp_path: Path,
) -> None:
    _, earlier, _, head = _moved_branch(tmp_path)
    # The first load's path: its revision's line 32 is 'a 30', not the finding's line.
    out = _exports(earlier)
    assert out["json"]["review"]["revision"]["head"] != head
    (finding,) = out["json"]["findings"]
    assert finding["line"] == 32 and finding["chunk"] is None
    assert finding["anchor"]["revision_id"] != out["json"]["review"]["revision"]["id"]
    note = f"new line 32 at commit {head[:12]}, not as numbered in this export"
    assert out["github"]["comments"] == [] and note in out["github"]["body"]
    (result,) = out["sarif"]["runs"][0]["results"]
    assert "region" not in result["locations"][0]["physicalLocation"] and "fixes" not in result
    assert result["properties"]["region"] == {"startLine": 32, "endLine": 32}
    assert note in result["message"]["text"]
    (diagnostic,) = out["rdjson"]["diagnostics"]
    assert "range" not in diagnostic["location"] and "suggestions" not in diagnostic
    assert note in diagnostic["message"]
    assert "<tr class=f" not in out["html"] and "Findings not on a line of this diff" in out["html"]
    assert note in out["markdown"]
    # list_findings with that path: no chunk of that load for it either.
    assert core.list_findings(earlier).findings[0].chunk is None


def test_a_diff_file_rewritten_since_its_findings(tmp_path: Path) -> None:
    repo, _, _, _ = _moved_branch(tmp_path)
    diff = write_diff(repo, tmp_path / "x.diff", "main", "feature~1")
    core.add_finding(str(diff), "a.py", "Thirty in capitals", line=30)
    write_diff(repo, diff, "main", "feature")  # the same review, another content
    out = _exports(str(diff))
    assert out["github"]["comments"] == []
    assert "new line 30 of another diff, not as numbered in this export" in out["github"]["body"]
    (result,) = out["sarif"]["runs"][0]["results"]
    assert "region" not in result["locations"][0]["physicalLocation"]
    assert "<tr class=f" not in out["html"]


def test_a_since_review_diff_exports_its_review_on_the_full_diff(tmp_path: Path) -> None:
    repo = five_files(tmp_path / "repo")
    first = load(repo).file_path
    core.add_finding(first, "f1.py", "Forty in words", line=40)
    core.add_finding(first, "f1.py", "Was ten", line=10, side="old")
    ten_more = "".join(f"new {i}\n" for i in range(10))
    commit(repo, {"f1.py": ten_more + branch_text("f1.py")}, "ten more")
    since = load(repo, since=True)
    assert since.since_review is not None and since.file_path != since.since_review.full_diff
    github = json.loads(export_review(since.file_path, "github").text)
    placed = {(c["line"], c["side"]) for c in github["comments"]}
    assert placed == {(50, "RIGHT"), (10, "LEFT")}
    assert git(repo, "show", "feature:f1.py").splitlines()[49] == "f1 forty"
    page = export_review(since.file_path, "html").text
    assert "<td>50<td>+f1 forty<tr class=f id=finding-1 " in uncoloured(page)
    assert json.loads(export_review(since.file_path, "json").text)["files"][0]["path"] == "f1.py"


def test_other_tools_get_each_file_by_its_real_name(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {"x.txt": "x\n"}, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    names = {"backslash": b"a\\b.txt", "spaces": "sp ace é.txt".encode(), "latin1": b"caf\xe9.txt"}
    for name in names.values():
        (repo / os.fsdecode(name)).write_text("one\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "three names")
    path = load(repo).file_path
    shown = [f["path"] for f in core.export_document(path).to_dict()["files"]]
    assert shown == ["a\\\\b.txt", "caf\\351.txt", "sp ace é.txt"]  # as the diff tools show them
    for name in shown:
        core.add_finding(path, name, f"On {name}", line=1)
    github = json.loads(export_review(path, "github").text)
    assert [c["path"] for c in github["comments"]] == ["a\\b.txt", "sp ace é.txt"]
    assert "On caf\\351.txt" in github["body"]  # not UTF-8: in the body, never a bad path
    for comment in github["comments"]:
        assert (repo / comment["path"]).read_text() == "one\n"
    sarif = json.loads(export_review(path, "sarif").text)
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    ]
    assert uris == ["a%5Cb.txt", "caf%E9.txt", "sp%20ace%20%C3%A9.txt"]
    assert [unquote_to_bytes(u) for u in uris] == [
        names["backslash"],
        names["latin1"],
        names["spaces"],
    ]
    rdjson = json.loads(export_review(path, "rdjson").text)
    located = [d.get("location", {}).get("path") for d in rdjson["diagnostics"]]
    assert located == ["a\\b.txt", None, "sp ace é.txt"]
    assert rdjson["diagnostics"][1]["message"].startswith(
        "(file caf\\351.txt, whose name is not UTF-8; "
    )


def test_an_exported_finding_is_the_records_finding(tmp_path: Path) -> None:
    """The export's finding is the record's Finding type (not a copy of its fields): a
    finding with a reply, exported and read back, equals the record's on every field the
    document carries."""
    from diffchunk.review.export import load_document
    from diffchunk.review.record.results import Finding

    second = _moved_branch(tmp_path)[2]
    added = core.add_finding(second, "a.py", "Whole file", severity="nit").finding
    assert added is not None
    replied = core.update_finding(second, added.id, comment="Agreed", status="resolved")
    exported = load_document(json.loads(export_review(second, "json", "all").text))
    assert all(isinstance(f, Finding) for f in exported.findings)
    read = {f.id: f for f in exported.findings}[replied.id]
    carried = ("id", "file_path", "side", "line", "end_line", "severity", "status", "message")
    carried += ("suggestion", "lines", "created_at", "updated_at", "author", "thread")
    assert {k: getattr(read, k) for k in carried} == {k: getattr(replied, k) for k in carried}
    assert read.review_id == exported.review_id and read.thread[0].body == "Agreed"
