"""search_diff: the diff's lines that match, by file, side and kind, counted as grep counts."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from gitrepo import commit, git_bytes, init_repo
from test_data import CORPUS

from diffchunk.errors import InvalidArgument
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_search
from diffchunk.review.tools.diff_search import search_diff


def _grep(diff: Path, kinds: str, pattern: str, *, regex: bool = False, case: bool = True) -> int:
    """``grep -c`` over the diff's hunk lines of ``kinds`` (their prefix cut off).

    Hunk lines are told from header lines by the @@ counts: a small awk walk
    (``--- x`` inside a hunk is a removed line ``-- x``)."""
    walk = (
        '/^@@ /{split($2,o,",");split($3,n,",");'
        'old=(o[2]==""?1:o[2]);new=(n[2]==""?1:n[2]);next}'
        "(old>0||new>0)&&/^[-+ ]/{c=substr($0,1,1);"
        'if(c=="-")old--;else if(c=="+")new--;else{old--;new--};'
        f'if(index("{kinds}",c)>0)print substr($0,2)}}'
    )
    lines = subprocess.run(["awk", walk, str(diff)], capture_output=True, check=True).stdout
    flags = [] if case else ["-i"]
    flags += ["-E"] if regex else ["-F"]
    done = subprocess.run(
        ["grep", "-c", *flags, "-e", pattern], input=lines, capture_output=True, env={"LC_ALL": "C"}
    )
    return int(done.stdout or b"0")


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    commit(
        repo,
        {
            "src/app.py": "".join(f"value_{i} = {i}\n" for i in range(60)),
            "src/db.py": "-- SQL comment\nselect 1\n" * 5,
            "yarn.lock": "pkg@1:\n  version 1\n",
            "docs/guide.md": "# Guide\nSome value here\n",
        },
    )
    commit(
        repo,
        {
            "src/app.py": "".join(
                f"value_{i} = {i * (2 if i % 7 == 0 else 1)}\n" for i in range(60)
            ),
            "src/db.py": "-- SQL comment\nselect 2\n" * 5,
            "yarn.lock": "pkg@2:\n  version 2 value\n",
            "docs/guide.md": "# Guide\nSome VALUE there\n",
        },
        "two",
    )
    return repo


def test_counts_agree_with_grep_over_lines_of_each_kind(repo: Path, tmp_path: Path) -> None:
    diff = tmp_path / "change.diff"
    diff.write_bytes(git_bytes(repo, "diff", "HEAD~1", "HEAD"))
    store = SessionStore()
    path = str(diff)
    for pattern, regex, case in (
        ("value", False, True),
        ("VALUE", False, False),
        (r"value_[0-9]*7 =", True, True),
        ("-- SQL", False, True),  # a removed-looking context line is content
        ("select", False, True),
    ):
        for side, changed_only, kinds in (
            ("both", False, "+- "),
            ("new", False, "+ "),
            ("old", False, "- "),
            ("both", True, "+-"),
            ("new", True, "+"),
            ("old", True, "-"),
        ):
            found = search_diff(
                path, pattern, regex, case, side=side, changed_only=changed_only, store=store
            )
            expected = _grep(diff, kinds, pattern, regex=regex, case=case)
            assert found.total == expected, (pattern, side, changed_only)


def test_hits_name_the_file_chunk_side_and_line_of_each_revision(repo: Path) -> None:
    store = SessionStore()
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=store).file_path
    found = search_diff(diff, "value_14 = ", store=store).to_dict()
    assert found["total"] == 2 and found["files_matched"] == 1
    old, new = found["hits"]
    assert old == {
        "file": "src/app.py", "chunk": 1, "side": "old", "line": 15, "kind": "-",
        "text": "value_14 = 14",
    }  # fmt: skip
    assert (new["side"], new["line"], new["kind"], new["text"]) == ("new", 15, "+", "value_14 = 28")
    context = search_diff(diff, "value_15 = ", store=store, side="old").to_dict()["hits"]
    assert [(h["side"], h["line"], h["kind"]) for h in context] == [("old", 16, " ")]
    lock = search_diff(diff, "value", store=store, file_pattern="*.lock").to_dict()
    assert lock["hits"] == [
        {"file": "yarn.lock", "excluded": "generated", "side": "new", "line": 2, "kind": "+",
         "text": "  version 2 value"}
    ]  # fmt: skip
    # Paging: every hit once, in diff order.
    every = search_diff(diff, "value_", store=store).total
    seen: list[tuple[str, int, str]] = []
    offset: int | None = 0
    while offset is not None:
        page = search_diff(diff, "value_", max_results=7, offset=offset, store=store)
        seen += [(h.file, h.line or 0, h.kind) for h in page.hits]
        offset = page.next_offset
    assert len(seen) == len(set(seen)) == every


def test_long_lines_are_cut_around_the_match(tmp_path: Path) -> None:
    diff = tmp_path / "wide.diff"
    line = "x" * 1000 + "NEEDLE" + "y" * 1000
    diff.write_text(f"diff --git a/w b/w\n--- a/w\n+++ b/w\n@@ -1 +1 @@\n-old\n+{line}\n")
    [hit] = search_diff(str(diff), "NEEDLE", store=SessionStore()).hits
    assert "NEEDLE" in hit.text and len(hit.text) <= diff_search.TEXT_CHARS + 2
    assert hit.text.startswith("…") and hit.text.endswith("…")


def test_bad_patterns_and_costly_ones_are_refused(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    diff = tmp_path / "change.diff"
    diff.write_bytes(git_bytes(repo, "diff", "HEAD~1", "HEAD"))
    store = SessionStore()
    for bad, message in (("", "empty"), ("a\nb", "line break"), ("(", "Invalid regular")):
        with pytest.raises(InvalidArgument, match=message):
            search_diff(str(diff), bad, regex=True, store=store)
    with pytest.raises(InvalidArgument, match="side must be"):
        search_diff(str(diff), "x", side="left", store=store)
    monkeypatch.setattr(diff_search, "TIME_BUDGET", 0.0)
    with pytest.raises(InvalidArgument, match="stopped after"):
        search_diff(str(diff), r"value_\d+", regex=True, store=store)


@pytest.mark.parametrize(
    "name", ["sqlalchemy_rel_1_4_0..rel_1_4_54.diff", "flask_log-p_3.1.2..3.1.3.txt"]
)
def test_corpus_counts_agree_with_grep(name: str) -> None:
    diff = CORPUS / name
    if not diff.is_file():
        pytest.skip("corpus not available")
    store = SessionStore()
    for pattern, side, kinds in (("session", "new", "+ "), ("import", "old", "- ")):
        found = search_diff(str(diff), pattern, side=side, store=store, max_results=1)
        assert found.total == _grep(diff, kinds, pattern)
    changed = search_diff(str(diff), r"def \w+\(", regex=True, changed_only=True, store=store)
    assert changed.total == _grep(diff, "+-", r"def [[:alnum:]_]+\(", regex=True)
    assert all(re.search(r"def \w+\(", h.text) for h in changed.hits)


def test_a_file_is_skipped_only_when_none_of_its_lines_can_match(tmp_path: Path) -> None:
    # Each file is first searched whole, its prefixes and CRs cut: an anchored pattern
    # must still find its lines there, and a section that is not UTF-8 is searched line
    # by line (its decoded lines hold U+FFFD, which "." matches).
    diff = tmp_path / "x.diff"
    diff.write_bytes(
        b"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n"
        b"@@ -1,2 +1,2 @@\n-foo old\r\n+foo new\r\n keep\n"
        b"diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n"
        b"@@ -1 +1 @@\n-x\n+caf\xe9 foo\n"
    )
    store = SessionStore()
    found = search_diff(str(diff), r"^foo \w+$", regex=True, store=store)
    assert [(h.file, h.kind, h.text) for h in found.hits] == [
        ("a.txt", "-", "foo old"),
        ("a.txt", "+", "foo new"),
    ]
    found = search_diff(str(diff), r"^caf. foo$", regex=True, store=store)
    assert [(h.file, h.text) for h in found.hits] == [("b.txt", "caf\ufffd foo")]
    assert search_diff(str(diff), r"^\+", regex=True, store=store).total == 0
