"""Incremental review of a branch that moves: fast-forward, amend, rebases, force-pushes,
pruned history.  Real repositories; every answer checked against git itself
(``git patch-id --stable``, ``git range-diff``, the blobs and ``git diff``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import commit, git, git_bytes, run_git
from incrementalkit import (
    blob,
    branch_text,
    file_states,
    five_files,
    load,
    range_diff_lines,
    review_everything,
    unchanged_by_git,
)
from recordkit import numbered

from diffchunk.errors import InvalidArgument, ReviewedRevisionGone
from diffchunk.review import record as core
from diffchunk.review.sessions.views import read_view
from diffchunk.review.tools import diff_tools


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return five_files(tmp_path / "repo")


def _reviewed(repo: Path) -> tuple[str, str]:
    """Load main..feature, review all of it; its (base, head)."""
    first = load(repo)
    review_everything(first.file_path)
    assert first.base is not None and first.head is not None
    return first.base, first.head


def _check_against_git(repo: Path, old: tuple[str, str], since: dict[str, object]) -> None:
    """Our unchanged/changed/new/no longer changed, against git patch-id --stable."""
    new = (git(repo, "rev-parse", "main"), git(repo, "rev-parse", "feature"))
    same = unchanged_by_git(repo, old, new)
    old_files = set(git(repo, "diff", "--name-only", *old).split())
    new_files = set(git(repo, "diff", "--name-only", *new).split())
    assert sorted(since["changed"]) == sorted(  # type: ignore[call-overload]
        n for n, s in same.items() if not s and n in old_files and n in new_files
    )
    assert sorted(since["new"]) == sorted(new_files - old_files)  # type: ignore[call-overload]
    assert sorted(since["no_longer_changed"]) == sorted(old_files - new_files)  # type: ignore[call-overload]
    files = since["files"]
    assert files["unchanged"] == sum(  # type: ignore[index]
        1 for n, s in same.items() if s and n in new_files
    )


def _sections(path: str) -> dict[str, bytes]:
    data = Path(path).read_bytes()
    found: dict[str, bytes] = {}
    for piece in data.split(b"diff --git ")[1:]:
        name = piece.split(b"\n", 1)[0].split(b" b/", 1)[1].decode()
        found[name] = b"diff --git " + piece
    return found


# --------------------------------------------------------------------------
# The scenarios of a moving branch
# --------------------------------------------------------------------------


def test_fast_forward_one_new_commit_touching_one_of_five_reviewed_files(repo: Path) -> None:
    old = _reviewed(repo)
    commit(repo, {"f3.py": branch_text("f3.py", {50: "f3 fifty"})}, "one more")
    again = load(repo).to_dict()
    since = again["since_review"]
    assert since["history"] == "fast-forward" and since["rewritten"] is False
    assert since["revision"]["head"] == old[1] and since["revision"]["base"] == old[0]
    assert since["files"] == {"unchanged": 4, "changed": 1, "new": 0, "no_longer_changed": 0}
    _check_against_git(repo, old, since)
    # The four unchanged files keep their reviewed mark; the fifth changed since.
    states = file_states(again["file_path"])
    assert states == {
        **dict.fromkeys(["f1.py", "f2.py", "f4.py", "f5.py"], "reviewed"),
        "f3.py": "changed since review",
    }
    # Since the review: exactly what the new commit changed (git diff of the two heads).
    only = load(repo, since=True)
    assert only.file_path != again["file_path"]
    text = Path(only.file_path).read_bytes()
    assert text == git_bytes(repo, "diff", "--full-index", old[1], "feature")
    assert only.to_dict()["since_review"]["full_file_path"] == again["file_path"]
    assert _sections(only.file_path).keys() == {"f3.py"}
    assert f"index {blob(repo, old[1], 'f3.py')}..{blob(repo, 'feature', 'f3.py')}" in text.decode()


def test_amend_of_the_last_commit_changing_one_hunk(repo: Path) -> None:
    old = _reviewed(repo)
    # f1.py has two hunks (lines 10 and 40); the amend changes the second only.
    commit(repo, {"f1.py": branch_text("f1.py", {40: "f1 FORTY"})}, "feature")
    git(repo, "reset", "-q", "--soft", "HEAD~2")
    git(repo, "commit", "-q", "-m", "feature, amended")
    since = load(repo).to_dict()["since_review"]
    assert since["history"] == "rewritten"
    assert since["changed"] == ["f1.py"] and since["files"]["unchanged"] == 4
    _check_against_git(repo, old, since)
    only = load(repo, since=True)
    sections = _sections(only.file_path)
    assert list(sections) == ["f1.py"]
    # The base did not move: the branch's f1.py as reviewed vs now, one hunk.
    assert sections["f1.py"] == git_bytes(repo, "diff", "--full-index", old[1], "feature")
    assert sections["f1.py"].count(b"\n@@ ") == 1
    assert b"-f1 forty\n+f1 FORTY\n" in sections["f1.py"]
    assert b"f1 ten" not in sections["f1.py"].split(b"@@", 2)[2].replace(b" f1 ten", b"")


def _main_moves(repo: Path, files: dict[str, str]) -> None:
    git(repo, "checkout", "-q", "main")
    commit(repo, files, "upstream")
    git(repo, "checkout", "-q", "feature")


def test_rebase_onto_a_main_that_changed_a_reviewed_file_elsewhere(repo: Path) -> None:
    old = _reviewed(repo)
    _main_moves(repo, {"f2.py": numbered("f2", 60, {50: "f2 upstream fifty"})})
    git(repo, "rebase", "-q", "main")
    since = load(repo).to_dict()["since_review"]
    assert since["history"] == "rewritten"
    # The branch's change to f2.py is the one reviewed: unchanged, still reviewed.
    assert since["files"] == {"unchanged": 5, "changed": 0, "new": 0, "no_longer_changed": 0}
    _check_against_git(repo, old, since)
    assert set(file_states(load(repo).file_path).values()) == {"reviewed"}
    assert range_diff_lines(repo, old, ("main", "feature")) == []
    only = load(repo, since=True)
    assert Path(only.file_path).read_bytes() == b""  # nothing to review again
    assert only.to_dict()["chunks"] == 0


def test_rebase_never_shows_upstream_changes_as_the_branchs(repo: Path) -> None:
    old = _reviewed(repo)
    _main_moves(repo, {"f2.py": numbered("f2", 60, {14: "f2 upstream fourteen"})})
    git(repo, "rebase", "-q", "main")
    # The branch now changes its change to f2.py too (next to upstream's line).
    commit(repo, {"f2.py": numbered("f2", 60, {10: "f2 TEN", 14: "f2 upstream fourteen"})})
    git(repo, "reset", "-q", "--soft", "main")
    git(repo, "commit", "-q", "-m", "feature, rebased and amended")
    since = load(repo).to_dict()["since_review"]
    assert since["changed"] == ["f2.py"]
    _check_against_git(repo, old, since)
    only = load(repo, since=True)
    assert only.to_dict()["since_review"]["interdiff"] == ["f2.py"]
    section = _sections(only.file_path)["f2.py"]
    assert b"upstream" not in section  # upstream's line is nowhere in the since-review diff
    assert b"interdiff" in section.split(b"\n@@")[0]  # its header says what it is
    body = section.decode().split("\n@@", 1)[1].splitlines()[1:]
    changed = [line for line in body if line[:2] in ("-+", "--", "++", "+-")]
    assert changed == ["-+f2 ten", "++f2 TEN"]
    assert changed == range_diff_lines(repo, old, ("main", "feature"))
    # A plain diff of the two versions of the file would show upstream's change.
    assert b"upstream" in git_bytes(repo, "diff", old[1], "feature", "--", "f2.py")


def test_rebase_where_upstream_made_the_branchs_change_to_a_file_redundant(repo: Path) -> None:
    old = _reviewed(repo)
    _main_moves(repo, {"f4.py": branch_text("f4.py")})  # main takes the same change
    git(repo, "rebase", "-q", "main")
    assert "f4.py" not in git(repo, "diff", "--name-only", "main", "feature")
    since = load(repo).to_dict()["since_review"]
    assert since["no_longer_changed"] == ["f4.py"]
    assert since["files"] == {"unchanged": 4, "changed": 0, "new": 0, "no_longer_changed": 1}
    _check_against_git(repo, old, since)
    # git range-diff: the commit lost its f4.py part, nothing else.
    lines = range_diff_lines(repo, old, ("main", "feature"))
    assert lines == ["--f4 10", "-+f4 ten"]
    only = load(repo, since=True)
    assert _sections(only.file_path) == {}
    assert only.to_dict()["since_review"]["no_longer_changed"] == ["f4.py"]


def _three_commits(repo: Path) -> tuple[str, str]:
    """Rebuild feature as three commits (f1, f2+f3, f4+f5), review it; (base, head)."""
    git(repo, "reset", "-q", "--hard", "main")
    commit(repo, {"f1.py": branch_text("f1.py")}, "one")
    commit(repo, {"f2.py": branch_text("f2.py"), "f3.py": branch_text("f3.py")}, "two")
    commit(repo, {"f4.py": branch_text("f4.py"), "f5.py": branch_text("f5.py")}, "three")
    return _reviewed(repo)


def test_force_push_that_drops_a_commit(repo: Path) -> None:
    old = _three_commits(repo)
    git(repo, "rebase", "-q", "--onto", "feature~2", "feature~1")  # drops "two"
    since = load(repo).to_dict()["since_review"]
    assert since["history"] == "rewritten"
    assert since["no_longer_changed"] == ["f2.py", "f3.py"]
    assert since["files"] == {"unchanged": 3, "changed": 0, "new": 0, "no_longer_changed": 2}
    _check_against_git(repo, old, since)
    assert set(file_states(load(repo).file_path).values()) == {"reviewed"}
    assert _sections(load(repo, since=True).file_path) == {}


def test_force_push_that_squashes_three_commits(repo: Path) -> None:
    old = _three_commits(repo)
    git(repo, "reset", "-q", "--soft", "main")
    git(repo, "commit", "-q", "-m", "all in one")
    assert git(repo, "rev-list", "--count", "main..feature") == "1"
    since = load(repo).to_dict()["since_review"]
    assert since["history"] == "rewritten"
    assert since["files"] == {"unchanged": 5, "changed": 0, "new": 0, "no_longer_changed": 0}
    _check_against_git(repo, old, since)
    # git range-diff sees three commits become one; the branch's change is the same.
    assert git(repo, "diff", old[1], "feature") == ""
    assert set(file_states(load(repo).file_path).values()) == {"reviewed"}
    assert _sections(load(repo, since=True).file_path) == {}


def test_a_file_new_since_the_review_brings_its_whole_change(repo: Path) -> None:
    old = _reviewed(repo)
    commit(repo, {"g.py": numbered("g", 12)}, "a new file")
    since = load(repo).to_dict()["since_review"]
    assert since["new"] == ["g.py"] and since["files"]["unchanged"] == 5
    _check_against_git(repo, old, since)
    states = file_states(load(repo).file_path)
    assert states["g.py"] == "new since review" and states["f1.py"] == "reviewed"
    only = load(repo, since=True)
    assert _sections(only.file_path)["g.py"] == git_bytes(
        repo, "diff", "--full-index", "main", "feature", "--", "g.py"
    )
    assert file_states(only.file_path) == {"g.py": "new since review"}


def test_the_reviewed_revision_is_the_last_one_with_activity(repo: Path) -> None:
    old = _reviewed(repo)
    commit(repo, {"f1.py": branch_text("f1.py", {50: "f1 fifty"})}, "two")
    unreviewed = load(repo)  # loaded, nothing done on it
    assert unreviewed.to_dict()["since_review"]["revision"]["head"] == old[1]
    commit(repo, {"f2.py": branch_text("f2.py", {50: "f2 fifty"})}, "three")
    since = load(repo).to_dict()["since_review"]
    assert since["revision"]["head"] == old[1]  # still the reviewed one
    assert sorted(since["changed"]) == ["f1.py", "f2.py"]
    # Reviewing the since-review diff makes this revision the reviewed one.
    only = load(repo, since=True)
    review_everything(only.file_path)
    assert set(file_states(load(repo).file_path).values()) == {"reviewed"}
    head = git(repo, "rev-parse", "feature")
    commit(repo, {"f3.py": branch_text("f3.py", {50: "f3 fifty"})}, "four")
    since = load(repo).to_dict()["since_review"]
    assert since["revision"]["head"] == head and since["changed"] == ["f3.py"]


def test_since_review_without_an_earlier_revision_is_the_full_review(repo: Path) -> None:
    first = load(repo, since=True).to_dict()
    assert first["since_review"]["revision"] is None
    assert "no earlier revision" in first["since_review"]["note"]
    assert first["files"] == 5
    assert "since_review" not in load(repo).to_dict()  # nothing to report


def test_since_review_of_the_working_tree_is_refused(repo: Path) -> None:
    with pytest.raises(InvalidArgument, match="not a range of commits"):
        load(repo, since=True, rng="HEAD")


def test_pruned_history_is_said_plainly(repo: Path) -> None:
    old = _reviewed(repo)
    commit(repo, {"f5.py": branch_text("f5.py", {20: "f5 twenty"})}, "feature")
    git(repo, "reset", "-q", "--soft", "HEAD~2")
    git(repo, "commit", "-q", "-m", "rewritten")
    run_git(repo, "reflog", "expire", "--expire=now", "--all")
    run_git(repo, "gc", "-q", "--prune=now")
    assert run_git(repo, "cat-file", "-e", f"{old[1]}^{{commit}}", check=False).returncode != 0
    since = load(repo).to_dict()["since_review"]
    assert since["commits_gone"] is True and since["history"] == "rewritten"
    assert "files" not in since and "no longer in the repository" in since["note"]
    with pytest.raises(ReviewedRevisionGone) as caught:
        load(repo, since=True)
    message = str(caught.value)
    assert old[1][:12] in message and "no longer in the repository" in message
    assert "since_review=false" in message and "diffchunk review main..feature" in message
    # The full review still knows what was reviewed: marks follow the change.
    states = file_states(load(repo).file_path)
    assert states["f5.py"] == "changed since review"
    assert [s for n, s in states.items() if n != "f5.py"] == ["reviewed"] * 4


# --------------------------------------------------------------------------
# The since-review diff is a diff like any other
# --------------------------------------------------------------------------


def test_every_tool_works_on_the_since_review_diff(repo: Path) -> None:
    old = _reviewed(repo)
    _main_moves(repo, {"f2.py": numbered("f2", 60, {14: "f2 upstream fourteen"})})
    git(repo, "rebase", "-q", "main")
    f1 = numbered("f1", 60, {10: "f1 ten", 40: "f1 forty"}) + numbered("x", 80)
    f2 = numbered("f2", 60, {10: "f2 TEN", 14: "f2 upstream fourteen"}) + numbered("y", 40)
    commit(repo, {"f1.py": f1, "f2.py": f2})
    only = load(repo, since=True, max_chunk_lines=30)
    path = only.file_path  # a view handle of the since-review diff (other options)
    data = Path(read_view(path).diff).read_bytes()
    listing = diff_tools.list_chunks(path).to_dict()
    # f1.py's 80 new lines and the interdiff of f2.py's change are cut into parts.
    parts = {c["parent_file"] for c in listing["chunks"] if c.get("parent_file")}
    assert parts == {"f1.py", "f2.py"}
    # Every chunk is served; each part of the interdiff repeats its header.
    texts = [diff_tools.get_chunk_bytes(path, n) for n in range(1, listing["total_chunks"] + 1)]
    assert all(t.startswith(b"diff --git ") for t in texts)
    assert sum(t.count(b"\n+x ") for t in texts) == 80
    inter = [t for t in texts if t.startswith(b"diff --git a/f2.py")]
    assert len(inter) >= 2
    assert b"(interdiff)\n" in inter[0].split(b"\n@@")[0]  # the first part's header
    assert all(b"@@ interdiff: the change as reviewed (-) and now (+)\n" in t for t in inter)
    assert sum(t.count(b"\n++y ") for t in inter) == 40
    whole = diff_tools.get_file_diff_bytes(path, "f2.py")
    assert whole.data in data and whole.data.count(b"\n++y ") == 40
    assert diff_tools.find_chunks_for_files(path, "f2.py") == [
        c["chunk"] for c in listing["chunks"] if c.get("parent_file") == "f2.py"
    ]
    assert "f2.py" in diff_tools.get_chunk(path, texts.index(inter[0]) + 1, True, "annotated")
    # The record: the since-review diff belongs to the same review, at its revision now.
    status = core.review_status(path)
    assert status.review.id == core.review_status(load(repo).file_path).review.id
    assert status.revision.head == git(repo, "rev-parse", "feature")
    assert file_states(path) == {
        "f1.py": "changed since review",
        "f2.py": "changed since review",
    }
    core.mark_reviewed(path, file_pattern="f2.py")
    # A mark made on the since-review diff is a mark of the file's change now.
    assert file_states(load(repo).file_path)["f2.py"] == "reviewed"
    with pytest.raises(InvalidArgument, match="interdiff"):
        core.add_finding(path, "f2.py", "x", line=2)
    assert core.add_finding(path, "f2.py", "Whole file").finding.line is None
    finding = core.add_finding(path, "f1.py", "Eighty x lines?", line=70).finding
    assert finding.lines == "x 10\n"
    # Its new-side lines are the file's: the full review shows it at the same line.
    full = core.list_findings(load(repo).file_path).to_dict()["findings"]
    assert ("f1.py", 70, "x 10\n") in {(f["file_path"], f["line"], f["lines"]) for f in full}
    with pytest.raises(InvalidArgument, match="as reviewed"):
        core.add_finding(path, "f1.py", "old side", line=41, side="old")
    assert old[0] != git(repo, "rev-parse", "main")


def test_the_since_review_diff_is_reused(repo: Path) -> None:
    _reviewed(repo)
    commit(repo, {"f3.py": branch_text("f3.py", {50: "f3 fifty"})}, "one more")
    first = load(repo, since=True)
    again = load(repo, since=True, max_chunk_lines=50)
    # The same since-review diff (with other options, through a view of it).
    assert read_view(again.file_path).diff == first.file_path
    assert again.cached and not first.cached
    since_again, since_first = again.to_dict()["since_review"], first.to_dict()["since_review"]
    # The full diff it names is shown with the same options: a view of the same diff.
    assert read_view(since_again.pop("full_file_path")).diff == since_first.pop("full_file_path")
    assert since_again == since_first
