"""Findings follow the branch: re-anchored at their shifted lines, or outdated, when a
new revision of the review is loaded; exports show outdated findings as such."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import commit, git
from incrementalkit import branch_text, five_files, load
from recordkit import numbered

from diffchunk.review import record as core
from diffchunk.review.export import render
from diffchunk.review.export.document import load_document
from diffchunk.review.incremental.load import load_git_diff
from diffchunk.review.record.findings import update_finding_by_id
from diffchunk.review.record.reanchor import find_again


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return five_files(tmp_path / "repo")


def _findings(path: str) -> dict[str, dict[str, object]]:
    return {f["message"]: f for f in core.list_findings(path, status="all").to_dict()["findings"]}


def test_findings_move_with_their_lines_or_become_outdated(repo: Path) -> None:
    first = load(repo)
    path = first.file_path
    shifted = core.add_finding(path, "f1.py", "Forty in words", line=40, severity="minor")
    changed = core.add_finding(path, "f2.py", "Ten in words", line=10)
    gone = core.add_finding(path, "f3.py", "Whole of f3", line=9, end_line=11, severity="nit")
    old_side = core.add_finding(path, "f4.py", "Was ten", line=10, side="old")
    on_file = core.add_finding(path, "f5.py", "Whole file")
    closed = core.add_finding(path, "f5.py", "Done", line=10)
    core.update_finding(path, closed.finding.id, status="resolved")
    # The amend: ten lines more at the top of f1.py, f2.py's line 10 edited, f3.py deleted.
    ten_more = "".join(f"new {i}\n" for i in range(10))
    commit(
        repo,
        {
            "f1.py": ten_more + branch_text("f1.py"),
            "f2.py": branch_text("f2.py", {10: "f2 TEN"}),
            "f5.py": branch_text("f5.py", {10: "f5 10 again"}),
        },
    )
    git(repo, "rm", "-q", "f3.py")
    git(repo, "commit", "-q", "-m", "gone")
    git(repo, "reset", "-q", "--soft", "main")
    git(repo, "commit", "-q", "-m", "feature, amended")
    again = load(repo)
    found = _findings(again.file_path)
    moved = found["Forty in words"]
    assert (moved["status"], moved["line"], moved["end_line"]) == ("open", 50, 50)
    assert moved["lines"] == "f1 forty\n" and moved["chunk"] == 1
    assert git(repo, "show", "feature:f1.py").splitlines()[49] == "f1 forty"
    outdated = found["Ten in words"]
    assert (outdated["status"], outdated["line"], outdated["lines"]) == ("outdated", 10, "f2 ten\n")
    deleted = found["Whole of f3"]
    assert (deleted["status"], deleted["line"], deleted["end_line"]) == ("outdated", 9, 11)
    # The old side (the base's f4.py) did not change: it stays.
    assert (found["Was ten"]["status"], found["Was ten"]["line"]) == ("open", 10)
    assert found["Whole file"]["status"] == "open" and found["Whole file"]["line"] is None
    assert found["Done"]["status"] == "resolved"  # closed findings stay as they are
    summary = core.review_status(again.file_path).findings
    assert summary.open_total == 3 and summary.outdated == 2
    # The anchors: the moved ones point into the new revision, the outdated ones keep theirs.
    doc = core.export_document(again.file_path).to_dict()
    anchors = {f["id"]: f["anchor"]["head"] for f in doc["findings"]}
    assert anchors[shifted.finding.id] == git(repo, "rev-parse", "feature")
    assert anchors[changed.finding.id] == anchors[gone.finding.id] == first.head
    assert anchors[old_side.finding.id] == anchors[on_file.finding.id] == again.head
    # A later load changes nothing more.
    assert _findings(load(repo).file_path) == found


def test_an_outdated_finding_in_the_exports(repo: Path) -> None:
    first = load(repo)
    core.add_finding(first.file_path, "f2.py", "Ten in words", line=10, severity="major")
    commit(repo, {"f2.py": branch_text("f2.py", {10: "f2 TEN"})})
    again = load(repo)
    doc = core.export_document(again.file_path).to_dict()
    (finding,) = doc["findings"]
    assert finding["status"] == "outdated" and finding["line"] == 10
    assert finding["anchor"] == {
        "revision_id": 1,
        "base": first.base,
        "head": first.head,
    }
    assert doc["findings_summary"]["outdated"] == 1
    export = load_document(doc)
    markdown = render(doc, "markdown")
    assert f"the lines shown are as they were at commit {first.head[:12]}" in markdown  # type: ignore[index]
    assert "f2 ten" in markdown
    github = render(doc, "github")
    assert '"comments": []' in github and "outdated" in github
    (result,) = json.loads(render(doc, "sarif"))["runs"][0]["results"]
    assert "region" not in result["locations"][0]["physicalLocation"]  # not on today's lines
    assert result["message"]["text"].startswith("[major] Outdated (new line 10")
    assert export.findings[0].anchor_head == first.head


def test_an_outdated_finding_reopened_says_where_its_lines_are_now(repo: Path) -> None:
    first = load(repo)
    finding = core.add_finding(first.file_path, "f2.py", "Ten", line=10).finding
    other = core.add_finding(first.file_path, "f3.py", "Ten too", line=10).finding
    # Both lines change: both findings become outdated, and the load says which.
    commit(
        repo,
        {"f2.py": branch_text("f2.py", {10: "f2 TEN"}), "f3.py": branch_text("f3.py", {10: "x"})},
    )
    changed = load(repo).to_dict()["findings_followed"]
    assert (changed["followed"], changed["outdated"]) == (0, 2)
    assert [f["file_path"] for f in changed["outdated_findings"]] == ["f2.py", "f3.py"]
    # f3's line comes back, two lines lower.
    commit(repo, {"f3.py": "top\ntop\n" + branch_text("f3.py")})
    again = load(repo)
    assert core.review_status(again.file_path).to_dict()["findings"]["outdated"] == 2
    gone = core.update_finding(again.file_path, finding.id, status="open").to_dict()
    assert gone["status"] == "open" and gone["chunk"] is None
    assert f"belong to commit {first.head[:12]}" in gone["note"]
    assert "nowhere in f2.py" in gone["note"]
    moved = core.update_finding(again.file_path, other.id, status="open").to_dict()
    assert moved["note"].endswith("they are now at new line 12.")
    assert (moved["line"], moved["end_line"], moved["chunk"]) == (12, 12, 1)
    by_id = update_finding_by_id(finding.id, status="dismissed")
    assert by_id.status == "dismissed"


def test_a_finding_on_a_file_the_branch_no_longer_changes(repo: Path) -> None:
    first = load(repo)
    core.add_finding(first.file_path, "f4.py", "Ten", line=10)
    core.add_finding(first.file_path, "f4.py", "All of it")
    commit(repo, {"f4.py": numbered("f4", 60)}, "undo f4")
    found = _findings(load(repo).file_path)
    assert found["Ten"]["status"] == found["All of it"]["status"] == "outdated"


def test_findings_of_a_working_tree_review_follow_its_hunks(repo: Path) -> None:
    (repo / "f1.py").write_text(numbered("f1", 60, {10: "f1 ten", 40: "f1 forty"}))
    first = load(repo, rng="HEAD~1")
    finding = core.add_finding(first.file_path, "f1.py", "Forty", line=40).finding
    (repo / "f1.py").write_text("top\n" * 2 + numbered("f1", 60, {10: "f1 ten", 40: "f1 forty"}))
    again = load(repo, rng="HEAD~1")
    moved = _findings(again.file_path)["Forty"]
    assert (moved["id"], moved["status"], moved["line"]) == (finding.id, "open", 42)


# --------------------------------------------------------------------------
# The rules of finding lines again
# --------------------------------------------------------------------------


def test_find_again_prefers_the_place_with_the_same_surroundings() -> None:
    runs = [(1, ["a\n", "}\n", "b\n", "x\n", "}\n", "y\n"])]
    place = find_again("}\n", "x\n", "y\n", old_line=1, runs=runs)
    assert place is not None and (place.line, place.end_line) == (5, 5)
    # Kept context that matches nowhere: a "}" elsewhere is not the line meant.
    assert find_again("}\n", "q\n", "r\n", old_line=2, runs=runs) is None
    # Without context, the nearest place wins.
    near = find_again("}\n", None, None, old_line=4, runs=runs)
    assert near is not None and near.line == 5
    # Several lines, at a shifted place, with their context as it is now.
    lines = [f"l{i}\n" for i in range(1, 30)]
    found = find_again("l20\nl21\n", "l19\n", "l22\n", old_line=10, runs=[(1, lines)])
    assert found is not None and (found.line, found.end_line) == (20, 21)
    assert found.before == "l17\nl18\nl19\n" and found.after == "l22\nl23\nl24\n"
    # Line ends aside: the last line of a file without a line feed is the same line.
    assert find_again("end\n", None, None, 1, [(1, ["a\n", "end"])]) is not None


def test_a_load_limited_to_paths_compares_and_moves_nothing(repo: Path) -> None:
    """A range limited to paths shows part of the branch: the findings on other files
    stay open, and no file outside the paths is said to have left the branch."""
    full = load(repo)
    kept = core.add_finding(full.file_path, "f1.py", "On f1", line=10, severity="minor")
    for number in range(1, core.review_status(full.file_path).total_chunks + 1):
        core.mark_reviewed(full.file_path, chunk_number=number)
    commit(repo, {"f2.py": branch_text("f2.py", {50: "f2 fifty"})}, "more on f2")
    narrowed = load_git_diff(str(repo), "main..feature", paths=["f3.py"])
    assert narrowed.since_review is None  # nothing compared against part of the branch
    assert _findings(full.file_path)["On f1"]["status"] == "open"
    # The whole range, loaded again, is compared with the reviewed whole revision:
    # f2.py changed since, the other four did not, and none left the branch.
    again = load(repo).to_dict()
    assert again["since_review"]["files"] == {
        "unchanged": 4,
        "changed": 1,
        "new": 0,
        "no_longer_changed": 0,
    }
    finding = _findings(again["file_path"])["On f1"]
    assert (finding["status"], finding["line"]) == ("open", 10)
    assert kept.finding.id == finding["id"]


def test_findings_keep_their_chunk_in_a_load_limited_to_paths(repo: Path) -> None:
    """A range limited to paths is the same commits: a finding of a file it holds keeps
    its lines and chunk there, and its exports place it on them."""
    full = load(repo)
    core.add_finding(full.file_path, "f2.py", "On f2", line=10, severity="minor")
    narrowed = load_git_diff(str(repo), "main..feature", paths=["f2.py"])
    (finding,) = core.list_findings(narrowed.file_path).to_dict()["findings"]
    assert (finding["line"], finding["chunk"]) == (10, 1)
    document = load_document(core.export_document(narrowed.file_path).to_dict())
    (exported,) = [f for f in document.findings if f.file_path == "f2.py"]
    assert exported.current and exported.on_lines
    # The narrowed revision says it is part of the range: in the status and the exports.
    assert core.review_status(narrowed.file_path).to_dict()["review"]["revision"]["paths"] == [
        "f2.py"
    ]
    assert "Limited to paths" in render(
        core.export_document(narrowed.file_path).to_dict(), "markdown"
    )
    assert "paths" not in core.review_status(full.file_path).to_dict()["review"]["revision"]
