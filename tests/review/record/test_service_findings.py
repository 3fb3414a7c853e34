"""The review record's service: findings (checked against the hunks, suggestions,
updates and pages), the export document, and answers on diffs of many lines or files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gitrepo import git
from recordkit import feature_repo, load_range, write_diff

from diffchunk.diff.options import LoadOptions
from diffchunk.errors import FileNotInDiff, InvalidArgument
from diffchunk.review import record as core
from diffchunk.review.record import hunk_lines
from diffchunk.review.tools import diff_tools
from diffchunk.review.tools.exporting import export_review

# Each test has a record and a cache of its own (DIFFCHUNK_STATE_DIR, DIFFCHUNK_CACHE_DIR).


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return feature_repo(tmp_path / "repo")


# --------------------------------------------------------------------------
# Findings
# --------------------------------------------------------------------------


def test_findings_are_checked_against_the_hunks(repo: Path) -> None:
    path = load_range(repo)
    added = core.add_finding(path, "src/a.py", "Ten is spelt out", line=10).to_dict()
    assert added == {
        "id": added["id"],
        "file_path": "src/a.py",
        "side": "new",
        "line": 10,
        "end_line": 10,
        "chunk": 1,
        "severity": "major",
        "lines": "a ten\n",
    }
    # A range's file can take a finding on any of its lines, outside the hunks too.
    outside = core.add_finding(path, "src/a.py", "a caller to check", line=25).finding
    assert (outside.lines, outside.chunk) == ("a 25\n", None)
    across = core.add_finding(path, "src/a.py", "across", line=12, end_line=40).finding
    assert across.lines is not None and across.lines.count("\n") == 29
    with pytest.raises(InvalidArgument, match=r"src/a\.py has 60 lines on the new side"):
        core.add_finding(path, "src/a.py", "past the end", line=61)
    old = core.add_finding(path, "SRC/A.PY", "was fine", line=40, side="old", severity="nit")
    assert old.finding.lines == "a 40\n" and old.finding.side == "old"
    assert core.add_finding(path, "src/a.py", "x", line=1, side="old").finding.lines == "a 1\n"
    # A diff file offers only its hunks' lines.
    diff = str(write_diff(repo, repo.parent / "x.diff", "main", "feature"))
    with pytest.raises(InvalidArgument) as refused:
        core.add_finding(diff, "src/a.py", "nowhere", line=25)
    assert "Line 25 of src/a.py is not inside one hunk on the new side" in str(refused.value)
    assert "new side hunks: 7-13, 37-43" in str(refused.value)
    with pytest.raises(InvalidArgument, match=r"Lines 12-40 .* not inside one hunk"):
        core.add_finding(diff, "src/a.py", "across", line=12, end_line=40)
    with pytest.raises(InvalidArgument, match="old side hunks: 7-13, 37-43"):
        core.add_finding(diff, "src/a.py", "x", line=1, side="old")
    whole = core.add_finding(path, "docs/c.md", "Rewrite this page", severity="question")
    assert whole.finding.line is None and whole.finding.chunk is None
    new_file = "src/big.py"
    with pytest.raises(InvalidArgument, match=r"no lines on the old side.*new side hunks: 1-400"):
        core.add_finding(path, new_file, "x", line=3, side="old")
    with pytest.raises(FileNotInDiff):
        core.add_finding(path, "src/nope.py", "x")


def test_suggestions(repo: Path) -> None:
    path = load_range(repo)
    made = core.add_finding(
        path, "src/a.py", "Use digits", line=10, end_line=11, suggestion="a 10\na 11\n"
    )
    listed = core.list_findings(path).findings
    assert [f.suggestion for f in listed if f.id == made.finding.id] == ["a 10\na 11\n"]
    with pytest.raises(InvalidArgument, match="old-side finding cannot carry one"):
        core.add_finding(path, "src/a.py", "x", line=10, side="old", suggestion="y\n")
    with pytest.raises(InvalidArgument, match="give line"):
        core.add_finding(path, "src/a.py", "x", suggestion="y\n")


def test_update_list_and_page_findings(repo: Path) -> None:
    path = load_range(repo)
    ids = [
        core.add_finding(path, "src/b.py", f"finding {i}", line=30, severity=sev).finding.id
        for i, sev in enumerate(["blocker", "minor", "nit", "major"])
    ]
    core.add_finding(path, "src/a.py", "first in diff order", line=40)
    page = core.list_findings(path)
    assert page.total == 5 and page.next_offset is None
    assert page.findings[0].file_path == "src/a.py"  # diff order: a.py before b.py
    resolved = core.update_finding(path, ids[0], status="resolved")
    assert resolved.status == "resolved" and resolved.chunk == 1
    core.update_finding(path, ids[2], status="dismissed", message="not worth it")
    assert core.list_findings(path).total == 3
    assert core.list_findings(path, status="all").total == 5
    assert [f.id for f in core.list_findings(path, status="resolved").findings] == [ids[0]]
    assert core.list_findings(path, severity="minor,major").total == 3
    for blank in ("", " ", ",", " , "):  # no severity named: unset, as file_pattern
        assert core.list_findings(path, severity=blank).total == 3, repr(blank)
    assert core.list_findings(path, file_pattern="").total == 3
    assert core.list_findings(path, file_pattern="src/a.py").total == 1
    first = core.list_findings(path, status="all", limit=2)
    assert len(first.findings) == 2 and first.next_offset == 2
    rest = core.list_findings(path, status="all", offset=2)
    assert len(rest.findings) == 3 and rest.next_offset is None
    small = core.list_findings(path, status="all", max_chars=600)
    assert 1 <= len(small.findings) < 5 and small.next_offset == len(small.findings)
    summary = core.review_status(path).findings.to_dict()
    assert summary == {
        "open": {"blocker": 0, "major": 2, "minor": 1, "nit": 0, "question": 0},
        "resolved": 1,
        "dismissed": 1,
    }
    with pytest.raises(InvalidArgument, match="has no finding 999999"):
        core.update_finding(path, 999999, status="resolved")
    (repo / "src/b.py").write_text("b changed\n")
    other = load_range(repo, None)  # another review (the working tree) does not reach it
    with pytest.raises(InvalidArgument, match="has no finding"):
        core.update_finding(other, ids[1], status="resolved")
    with pytest.raises(InvalidArgument, match="Nothing to change"):
        core.update_finding(path, ids[1])


def test_status_pages_like_list_chunks(repo: Path) -> None:
    path = load_range(repo, max_chunk_lines=20)
    whole = core.review_status(path)
    assert whole.total_chunks > 5 and whole.next_offset is None
    first = core.review_status(path, limit=2)
    assert [c.chunk for c in first.chunks] == [1, 2] and first.next_offset == 2
    nxt = core.review_status(path, offset=2, limit=2)
    assert [c.chunk for c in nxt.chunks] == [3, 4]
    small = core.review_status(path, max_chars=100)
    assert len(small.chunks) == small.next_offset < whole.total_chunks
    with pytest.raises(InvalidArgument, match="offset"):
        core.review_status(path, offset=whole.total_chunks + 1)


# --------------------------------------------------------------------------
# The export document
# --------------------------------------------------------------------------


def test_export_document_keys(repo: Path) -> None:
    """The export document's format, key by key and in its order: one document checked
    top to bottom, so that the test reads as the format's description."""
    path = load_range(repo)
    core.mark_reviewed(path, file_pattern="src/a.py")
    diff_tools.get_file_diff(path, "src/b.py")
    f1 = core.add_finding(path, "src/b.py", "m1", line=30, suggestion="b 30\n").finding
    f2 = core.add_finding(path, "src/a.py", "m2", line=40, side="old", severity="nit").finding
    f3 = core.add_finding(path, "src/a.py", "m3").finding
    core.update_finding(path, f2.id, status="resolved")
    doc = core.export_document(path, exported_at="2026-11-25T12:00:00Z").to_dict()
    assert list(doc) == [
        "format",
        "format_version",
        "tool",
        "exported_at",
        "review",
        "coverage",
        "findings_summary",
        "files",
        "findings",
    ]
    assert doc["format"] == "diffchunk-review" and doc["format_version"] == 1
    assert set(doc["tool"]) == {"name", "version"} and doc["tool"]["name"] == "diffchunk"
    assert doc["exported_at"] == "2026-11-25T12:00:00Z"
    review = doc["review"]
    assert list(review) == ["id", "source", "revision"]
    assert list(review["source"]) == ["kind", "repository", "range", "base", "head", "name"]
    assert review["source"]["name"] == repo.name  # no remote: the directory's name
    assert review["source"]["kind"] == "git" and review["source"]["range"] == "main..feature"
    assert review["source"]["repository"] == str(repo.resolve())
    assert review["source"]["head"] == git(repo, "rev-parse", "feature")
    assert list(review["revision"]) == ["id", "base", "head", "sha256", "loaded_at"]
    assert review["revision"]["base"] == git(repo, "rev-parse", "main")
    assert doc["coverage"] == {
        "files": 5,
        "reviewed": 1,
        "seen": 1,
        "unseen": 2,
        "changed": 0,
        "excluded": 1,
        "excluded_by_reason": {"generated": 1},
    }
    assert doc["findings_summary"] == {
        "open": {"blocker": 0, "major": 2, "minor": 0, "nit": 0, "question": 0},
        "resolved": 1,
        "dismissed": 0,
        "outdated": 0,
    }
    files = {f["path"]: f for f in doc["files"]}
    assert [f["path"] for f in doc["files"]] == [
        "docs/c.md",
        "package-lock.json",
        "src/a.py",
        "src/b.py",
        "src/big.py",
    ]
    assert files["src/a.py"] == {
        "path": "src/a.py",
        "old_path": None,
        "status": "modified",
        "state": "reviewed",
        "excluded_reason": None,
        "added": 2,
        "removed": 2,
        "binary": False,
        "hunks": [
            {"old_start": 7, "old_count": 7, "new_start": 7, "new_count": 7},
            {"old_start": 37, "old_count": 7, "new_start": 37, "new_count": 7},
        ],
    }
    assert files["package-lock.json"]["state"] == "excluded"
    assert files["package-lock.json"]["excluded_reason"] == "generated"
    assert files["src/big.py"]["status"] == "added"
    # Findings: diff order (a.py before b.py), new side first, whole file first, then id.
    assert [f["id"] for f in doc["findings"]] == [f3.id, f2.id, f1.id]
    assert list(doc["findings"][2]) == [
        "id",
        "file_path",
        "side",
        "line",
        "end_line",
        "severity",
        "status",
        "message",
        "suggestion",
        "lines",
        "chunk",
        "created_at",
        "updated_at",
        "author",
        "anchor",
    ]
    head = doc["review"]["revision"]["head"]
    assert doc["findings"][2]["anchor"] == {
        "revision_id": doc["review"]["revision"]["id"],
        "base": doc["review"]["revision"]["base"],
        "head": head,
    }
    assert doc["findings"][2]["suggestion"] == "b 30\n"
    assert doc["findings"][2]["lines"] == "b thirty\n" and doc["findings"][2]["chunk"] == 1
    assert doc["findings"][0]["chunk"] is None  # a whole-file finding
    assert doc["findings"][1]["status"] == "resolved"


def test_export_document_of_a_diff_file(repo: Path, tmp_path: Path) -> None:
    diff = write_diff(repo, tmp_path / "x.diff", "main", "feature")
    doc = core.export_document(str(diff)).to_dict()
    import hashlib

    sha = hashlib.sha256(diff.read_bytes()).hexdigest()
    assert doc["review"]["source"] == {"kind": "file", "diff_file": str(diff), "sha256": sha}
    assert doc["review"]["revision"]["base"] is None and doc["review"]["revision"]["head"] is None
    assert doc["review"]["revision"]["sha256"] == sha


def test_findings_in_one_long_hunk_number_its_lines_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    count = 5000
    diff = tmp_path / "big.diff"
    diff.write_text(
        "diff --git a/big.txt b/big.txt\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,{count} @@\n"
        + "".join(f"+line {i}\n" for i in range(1, count + 1))
    )
    path = str(diff)
    diff_tools.load_diff(path, LoadOptions(max_chunk_lines=1000))  # the file in parts
    numbered: list[int] = []
    real = hunk_lines.number_lines

    def counting(*args: Any, **kwargs: Any) -> Iterator[tuple[bytes, int, int]]:
        for item in real(*args, **kwargs):
            numbered.append(item[2])
            yield item

    monkeypatch.setattr(hunk_lines, "number_lines", counting)
    first = core.add_finding(path, "big.txt", "Early", line=10, end_line=11)
    assert first.finding.lines == "line 10\nline 11\n" and first.finding.chunk == 1
    assert len(numbered) <= 11 + 3  # read as far as the lines and their context
    for k in range(100):
        core.add_finding(path, "big.txt", f"At {count - 49 * k}", line=count - 49 * k)
    core.list_findings(path, limit=10)
    core.review_status(path)
    core.export_document(path)
    export_review(path, "html")
    assert sorted(numbered) == list(range(1, count + 1))  # each line numbered once
    for finding in core.list_findings(path, status="all").findings:
        assert finding.chunk is not None
        assert f"+line {finding.line}\n" in diff_tools.get_chunk(path, finding.chunk)


def test_a_chunk_of_thousands_of_files_is_shortened_in_review_status(tmp_path: Path) -> None:
    # Mode changes are three-line sections, and names of control characters (as git
    # quotes them: \001) are six characters each in JSON: a chunk's file list alone
    # can be larger than a response.
    name = "\\001" * 30
    diff = tmp_path / "modes.diff"
    diff.write_text(
        "".join(
            f'diff --git "a/{name}{i:05d}.sh" "b/{name}{i:05d}.sh"\nold mode 100644\n'
            "new mode 100755\n"
            for i in range(3000)
        )
    )
    path = str(diff)
    diff_tools.load_diff(path, LoadOptions(max_chunk_lines=5000))
    room = 20_000  # a response of 5,000 tokens: one chunk's file list is twice as large
    status = core.review_status(path, max_chars=room).to_dict()
    first = status["chunks"][0]
    assert "\x01" in first["files"][0] and len(status["chunks"]) == 1
    assert first["files_total"] > len(first["files"]) > 50
    assert len(json.dumps(first, ensure_ascii=False, separators=(",", ":"))) <= room
    whole = core.review_status(path, max_chars=None).to_dict()  # the CLI's: every file
    assert len(whole["chunks"][0]["files"]) == first["files_total"]
    assert "files_total" not in whole["chunks"][0]
