"""What the review page asks of the application: a file's rows (numbered as the record
numbers a finding's lines, coloured, word-marked, paged), context from either revision,
the file tree's states, the latest review, and the record's version."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gitrepo import commit, git
from recordkit import feature_repo, load_range, numbered, run_cli

from diffchunk.review import record
from diffchunk.review.export.highlight import lexer_for, pair_block, tokens_of_lines, word_changes
from diffchunk.review.page.context import context_lines
from diffchunk.review.page.file_view import file_rows
from diffchunk.review.page.files import review_files
from diffchunk.review.page.latest import latest_review
from diffchunk.review.record.version import RecordVersion


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return feature_repo(tmp_path / "repo")


def _text(row: object) -> str:
    return "".join(s.text for s in row.spans)  # type: ignore[attr-defined]


def test_rows_are_numbered_as_the_record_numbers_a_finding(repo: Path) -> None:
    diff = load_range(repo)
    rows = file_rows(diff, "src/a.py").rows
    hunks = [r for r in rows if r.kind == "hunk"]
    assert [h.hunk for h in hunks] == [(7, 7, 7, 7), (37, 7, 37, 7)]
    added = {r.new: _text(r) for r in rows if r.kind == "add"}
    assert added == {10: "a ten", 40: "a forty"}
    assert {r.old: _text(r) for r in rows if r.kind == "del"} == {10: "a 10", 40: "a 40"}
    found = record.add_finding(diff, "src/a.py", "here", 40).finding
    assert found.lines == "a forty\n" and added[found.line or 0] == "a forty"


def test_a_changed_pair_marks_the_words_that_differ(repo: Path) -> None:
    rows = file_rows(load_range(repo), "src/a.py").rows
    removed = next(r for r in rows if r.kind == "del")
    added = next(r for r in rows if r.kind == "add")
    assert [s.text for s in removed.spans if s.changed] == ["10"]
    assert [s.text for s in added.spans if s.changed] == ["ten"]
    assert word_changes("total = a + b", "something else entirely") is None
    assert pair_block(["x = 1", "unrelated line"], ["x = 2"]) == [(0, 0)]


def test_colours_keep_every_character(tmp_path: Path) -> None:
    lexer = lexer_for("m.py")
    texts = ['def f(x):  # "quoted"', '    return """doc', 'more"""', "\t\u2424 tab"]
    tokens = tokens_of_lines(lexer, texts)
    assert ["".join(t for t, _ in line) for line in tokens] == texts
    assert ("def", "k") in tokens[0]
    assert lexer_for("no-such-extension.zzz9") is None


def test_rows_come_in_pages_and_long_lines_are_cut_with_their_count(tmp_path: Path) -> None:
    long = "x" * 12_000
    body = "".join(f"+line {i}\n" for i in range(2_500)) + f"+{long}\n"
    diff = tmp_path / "big.diff"
    diff.write_text(
        "diff --git a/big.txt b/big.txt\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,2501 @@\n{body}"
    )
    seen, offset = [], 0
    while offset is not None:
        page = file_rows(str(diff), "big.txt", offset)
        seen.extend(page.rows)
        assert len(page.rows) <= 1_000
        offset = page.next_offset
    assert [r.kind for r in seen[:2]] == ["meta", "hunk"] and _text(
        seen[0]
    ) == "new file mode 100644"
    assert [r.new for r in seen[2:]] == list(range(1, 2_502))
    last = seen[-1]
    assert last.cut == 2_000 and _text(last) == long[:10_000]


def test_context_comes_from_the_file_at_the_new_revision(repo: Path) -> None:
    diff = load_range(repo)
    lines = context_lines(diff, "src/a.py", 1, 6, 1)
    assert lines.side == "new" and lines.total == 60 and lines.first == 1
    assert ["".join(s.text for s in line) for line in lines.lines] == [
        f"a {i}" for i in range(1, 7)
    ]
    tail = context_lines(diff, "src/a.py", 58, 20, 58)
    assert len(tail.lines) == 3


def test_context_falls_back_to_the_old_side_when_the_work_tree_moved_on(repo: Path) -> None:
    (repo / "src" / "b.py").write_text(numbered("b", 60, {30: "b thirty now"}))
    diff = load_range(repo, None)
    (repo / "src" / "b.py").write_text(numbered("b", 60, {30: "b changed again", 2: "two"}))
    lines = context_lines(diff, "src/b.py", 1, 3, 1)
    assert lines.side == "old"
    assert ["".join(s.text for s in line) for line in lines.lines] == ["b 1", "b 2", "b 3"]


def test_the_tree_says_each_files_state_and_findings(repo: Path) -> None:
    diff = load_range(repo)
    record.mark_reviewed(diff, file_pattern="src/b.py")
    record.add_finding(diff, "docs/c.md", "typo", 5)
    tree = review_files(diff)
    states = {f.path: f.state for f in tree.files}
    assert states["src/b.py"] == "reviewed" and states["package-lock.json"] == "excluded"
    lock = next(f for f in tree.files if f.path == "package-lock.json")
    assert lock.excluded == "generated: lockfile"
    assert next(f for f in tree.files if f.path == "docs/c.md").findings == {"open": 1}
    assert tree.totals.reviewed == 1 and tree.findings.open_total == 1


def test_the_latest_review_is_the_one_loaded_last(repo: Path) -> None:
    load_range(repo)
    load_range(repo, "feature~1..feature")
    latest = latest_review(str(repo))
    assert (latest.revision_range, latest.staged, latest.paths) == ("feature~1..feature", False, ())
    commit(repo, {"src/a.py": numbered("a", 61)})
    git(repo, "add", "-A")
    load_range(repo, None)
    assert latest_review(str(repo)).revision_range is None


def test_the_version_changes_with_another_process_s_write_only(repo: Path) -> None:
    diff = load_range(repo)
    version = RecordVersion()
    before = version.current()
    assert before != "none"
    record.review_status(diff)
    assert version.current() == before
    proc = run_cli("mark", "main..feature", "--file", "docs/c.md", cwd=repo, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    assert version.current() != before
