"""open_file_version: a file at either side of a diff, from every git source, as a snapshot."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from gitrepo import commit, git, git_bytes, init_repo, run_git

from diffchunk import snapshots
from diffchunk.errors import DiffchunkError, FileNotInDiff, FileToolError, InvalidArgument
from diffchunk.files.content_read import read_content
from diffchunk.files.content_search import search_content
from diffchunk.files.edit import edit_content
from diffchunk.files.overview import get_overview
from diffchunk.files.revert import revert_edit
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools.file_versions import open_file_version


def _module(n: int, tag: str) -> str:
    """A Python module of ``n`` functions, the ``tag`` in each."""
    return "".join(
        f"def f{i}(x):\n    if x:\n        return {i}  # {tag}\n    else:\n        return -{i}\n\n"
        for i in range(n)
    )


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """main: app.py, util.py, gone.py, old_name.py; feature: app.py edited, util.py
    renamed and edited, gone.py deleted, added.py added, old_name.py renamed only."""
    repo = init_repo(tmp_path / "repo")
    commit(
        repo,
        {
            "src/app.py": _module(40, "one"),
            "src/util.py": _module(20, "util"),
            "gone.py": "bye = 1\n",
            "old_name.py": "same = 1\n",
        },
    )
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "gone.py").unlink()
    os.rename(repo / "src/util.py", repo / "src/helpers.py")
    os.rename(repo / "old_name.py", repo / "new_name.py")
    helpers = (repo / "src/helpers.py").read_text().replace("return 7  # util", "return 70")
    (repo / "src/helpers.py").write_text(helpers)
    app = _module(40, "one").replace("return 30  # one", "return 300  # two")
    commit(repo, {"src/app.py": app, "added.py": "new = 1\n", "src/helpers.py": helpers})
    git(repo, "checkout", "-q", "main")
    return repo


def _show(repo: Path, spec: str) -> bytes:
    return git_bytes(repo, "show", spec)


def _same_lines(snapshot: str, expected: bytes, first: int, last: int) -> None:
    """read_content of the snapshot gives the lines ``sed -n first,lastp`` gives of ``expected``."""
    read = read_content(snapshot, offset=first, limit=last - first + 1).to_dict()
    want = expected.decode().split("\n")[first - 1 : last]
    assert read["content"].split("\n") == want
    assert (read["start_line"], read["end_line"]) == (first, last)


def test_both_sides_of_a_range_in_a_bare_clone(repo: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    loaded = load_git_diff(str(bare), "main..feature", store=SessionStore())
    diff = loaded.file_path
    head = git(bare, "rev-parse", "feature")
    new = open_file_version(diff, "src/app.py").to_dict()
    assert new["revision"] == head and new["side"] == "new" and new["file_path"] == "src/app.py"
    content = _show(bare, "feature:src/app.py")
    assert Path(new["path"]).read_bytes() == content
    assert (new["size"], new["line_count"]) == (len(content), content.count(b"\n"))
    assert new["blob"] == git(bare, "rev-parse", "feature:src/app.py")
    assert Path(new["path"]).name == "app.py"
    assert not os.stat(new["path"]).st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    # The hunk is at line 183 (the 31st function): the whole function around it, by the
    # diff's line numbers, and the code far outside the hunk.
    semantic = read_content(new["path"], offset=183, mode="semantic").to_dict()
    assert semantic["semantic_block"]["name"] == "f30" and "return 300" in semantic["content"]
    _same_lines(new["path"], content, 1, 12)
    old = open_file_version(diff, "src/app.py", side="old").to_dict()
    assert old["revision"] == git(bare, "rev-parse", "main")
    assert Path(old["path"]).read_bytes() == _show(bare, "main:src/app.py")
    hit = search_content(old["path"], "return 30  # one", fuzzy=False).to_dict()
    assert hit["results"][0]["line_number"] == 183
    overview = get_overview(new["path"]).to_dict()
    assert overview["outline_total"] == 40 and overview["changed_symbols"] == 0


def test_renames_deletions_and_additions(repo: Path) -> None:
    diff = load_git_diff(str(repo), "main..feature", store=SessionStore()).file_path
    renamed_old = open_file_version(diff, "src/helpers.py", side="old").to_dict()
    assert renamed_old["file_path"] == "src/util.py"
    assert Path(renamed_old["path"]).read_bytes() == _show(repo, "main:src/util.py")
    assert Path(renamed_old["path"]).name == "util.py"
    renamed_new = open_file_version(diff, "src/util.py").to_dict()  # the old name finds it
    assert Path(renamed_new["path"]).read_bytes() == _show(repo, "feature:src/helpers.py")
    # A rename without an edit has no index line: its blob comes from the commits.
    same = open_file_version(diff, "new_name.py").to_dict()
    assert Path(same["path"]).read_bytes() == b"same = 1\n"
    same_old = open_file_version(diff, "new_name.py", side="old").to_dict()
    assert same_old["blob"] == same["blob"] and same_old["file_path"] == "old_name.py"
    assert Path(open_file_version(diff, "gone.py", side="old").path).read_bytes() == b"bye = 1\n"
    with pytest.raises(FileNotInDiff, match="deleted in this diff: it has no new side"):
        open_file_version(diff, "gone.py")
    with pytest.raises(FileNotInDiff, match="added in this diff: it has no old side"):
        open_file_version(diff, "added.py", side="old")
    assert open_file_version(diff, "added.py").line_count == 1
    with pytest.raises(InvalidArgument, match="side must be"):
        open_file_version(diff, "added.py", side="both")


def test_working_tree_staged_and_a_linked_worktree(repo: Path, tmp_path: Path) -> None:
    (repo / "src" / "app.py").write_text(_module(40, "one").replace("# one\n", "# wt\n", 1))
    worktree = load_git_diff(str(repo), store=SessionStore()).file_path
    new = open_file_version(worktree, "src/app.py").to_dict()
    assert new["revision"] == "working tree"
    assert Path(new["path"]).read_bytes() == (repo / "src" / "app.py").read_bytes()
    # Changed since the diff was loaded: refused, with how to reload.
    (repo / "src" / "app.py").write_text("changed again\n")
    with pytest.raises(FileToolError, match="changed since the diff was loaded") as err:
        open_file_version(worktree, "src/app.py")
    assert "load_git_diff" in (err.value.suggestion or "")
    # Staged: the new side is the index's blob, whatever the work tree holds now.
    (repo / "src" / "app.py").write_text("staged = 1\n")
    git(repo, "add", "src/app.py")
    (repo / "src" / "app.py").write_text("unstaged = 2\n")
    staged = load_git_diff(str(repo), staged=True, store=SessionStore()).file_path
    index = open_file_version(staged, "src/app.py").to_dict()
    assert index["revision"] == "index" and Path(index["path"]).read_bytes() == b"staged = 1\n"
    # A linked worktree of the feature branch, with an edit of its own.
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked), "feature")
    (linked / "added.py").write_text("new = 2\n")
    diff = load_git_diff(str(linked), store=SessionStore()).file_path
    assert Path(open_file_version(diff, "added.py").path).read_bytes() == b"new = 2\n"
    old = open_file_version(diff, "added.py", side="old").to_dict()
    assert Path(old["path"]).read_bytes() == b"new = 1\n"
    assert old["revision"] == git(linked, "rev-parse", "HEAD")


def test_a_diff_file_needs_its_repository(repo: Path, tmp_path: Path) -> None:
    diff = tmp_path / "change.diff"
    diff.write_bytes(git_bytes(repo, "diff", "-M", "main", "feature"))  # abbreviated ids
    with pytest.raises(InvalidArgument, match="is a diff file, not a range") as missing:
        open_file_version(str(diff), "src/app.py")
    assert "Pass absolute_repo_path" in (missing.value.suggestion or "")
    new = open_file_version(str(diff), "src/app.py", absolute_repo_path=str(repo)).to_dict()
    assert Path(new["path"]).read_bytes() == _show(repo, "feature:src/app.py")
    assert new["blob"] == git(repo, "rev-parse", "feature:src/app.py")
    other = init_repo(tmp_path / "other")
    commit(other, {"x": "x\n"})
    with pytest.raises(FileToolError, match="is not in") as err:
        open_file_version(str(diff), "src/app.py", side="old", absolute_repo_path=str(other))
    assert "absolute_repo_path" in (err.value.suggestion or "")
    # A working-tree diff file: its new side is not in the object store, but on disk,
    # checked against the full id the diff names; an abbreviated one cannot vouch for it.
    (repo / "src" / "app.py").write_text("on disk = 1\n")
    wt = tmp_path / "wt.diff"
    wt.write_bytes(git_bytes(repo, "diff", "--full-index"))
    disk = open_file_version(str(wt), "src/app.py", absolute_repo_path=str(repo))
    assert Path(disk.path).read_bytes() == b"on disk = 1\n"
    assert disk.blob == git(repo, "hash-object", "src/app.py")
    short = tmp_path / "short.diff"
    short.write_bytes(git_bytes(repo, "diff"))
    with pytest.raises(FileToolError, match="abbreviated id cannot vouch") as err:
        open_file_version(str(short), "src/app.py", absolute_repo_path=str(repo))
    assert "--full-index" in (err.value.suggestion or "")
    plain = tmp_path / "plain.diff"
    plain.write_text("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n")
    with pytest.raises(FileToolError, match="no 'index' line"):
        open_file_version(str(plain), "x.py", side="old", absolute_repo_path=str(repo))


def test_snapshots_are_shared_read_only_and_refused_by_the_edit_tools(repo: Path) -> None:
    diff = load_git_diff(str(repo), "main..feature", store=SessionStore()).file_path
    first = open_file_version(diff, "src/app.py", side="old")
    again = open_file_version(diff, "src/app.py", side="old")
    assert first.path == again.path and first.blob == again.blob
    assert snapshots.snapshot_of(first.path) is not None
    assert snapshots.snapshot_of(str(repo / "src" / "app.py")) is None
    change = [{"search": "return 1  # one", "replace": "return 2"}]
    for attempt in (
        lambda: edit_content(first.path, change, preview=True),
        lambda: edit_content(first.path, change, preview=False),
        lambda: revert_edit(first.path),
    ):
        with pytest.raises(FileToolError) as err:
            attempt()
        assert "read-only snapshot of src/app.py, old side" in err.value.message
        assert f"edit the real file {repo / 'src' / 'app.py'} instead" in err.value.message
    assert Path(first.path).read_bytes() == _show(repo, "main:src/app.py")


def test_the_snapshots_are_bounded(repo: Path) -> None:
    diff = load_git_diff(str(repo), "main..feature", store=SessionStore()).file_path
    made = [
        open_file_version(diff, name, side).path
        for name, side in (("src/app.py", "old"), ("src/app.py", "new"), ("added.py", "new"))
    ]
    assert snapshots.prune(max_files=1) == 2
    assert [os.path.exists(p) for p in made] == [False, False, True]  # the latest is kept
    again = open_file_version(diff, "src/app.py", side="old")
    assert Path(again.path).read_bytes() == _show(repo, "main:src/app.py")


def test_a_bare_snapshot_says_there_is_no_file_to_edit(repo: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    diff = load_git_diff(str(bare), "main..feature", store=SessionStore()).file_path
    snap = open_file_version(diff, "added.py")
    with pytest.raises(DiffchunkError, match="bare repository, so there is no work-tree file"):
        edit_content(snap.path, [{"search": "new", "replace": "old"}])


def test_a_working_tree_file_is_checked_with_its_line_endings_converted(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {".gitattributes": "*.txt text eol=crlf\n", "a.txt": "one\n"})
    (repo / "a.txt").write_bytes(b"one\r\ntwo\r\n")
    diff = load_git_diff(str(repo), store=SessionStore()).file_path
    got = open_file_version(diff, "a.txt")
    assert Path(got.path).read_bytes() == b"one\r\ntwo\r\n"  # the file as it is on disk
    assert got.blob == git(repo, "hash-object", "a.txt")  # the id git gives it, converted
    (repo / "a.txt").write_bytes(b"one\r\nthree\r\n")
    with pytest.raises(FileToolError, match="changed since the diff was loaded"):
        open_file_version(diff, "a.txt")


def test_a_working_tree_file_without_an_index_line_is_checked_against_its_old_blob(
    tmp_path: Path,
) -> None:
    """A mode change or a rename without an edit shows no content: the file on disk must
    still be the blob it was (it was read unchecked)."""
    repo = init_repo(tmp_path / "repo")
    commit(repo, {"run.sh": "echo 1\n", "old.py": "x = 1\n"})
    os.chmod(repo / "run.sh", 0o755)
    git(repo, "mv", "old.py", "new.py")
    diff = load_git_diff(str(repo), store=SessionStore()).file_path
    assert Path(open_file_version(diff, "run.sh").path).read_bytes() == b"echo 1\n"
    renamed = open_file_version(diff, "new.py")
    assert renamed.blob == git(repo, "rev-parse", "HEAD:old.py")
    (repo / "run.sh").write_text("echo 2\n")
    with pytest.raises(FileToolError, match="changed since the diff was loaded"):
        open_file_version(diff, "run.sh")
