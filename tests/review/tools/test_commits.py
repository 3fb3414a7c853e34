"""list_commits: the commits of a range (per file), or of a git log -p / format-patch stream."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gitrepo import commit, git, git_bytes, init_repo, run_git
from test_data import CORPUS

from diffchunk.errors import InvalidArgument
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools.commits import list_commits


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """main, then on feature: five commits, one renaming util.py to helpers.py."""
    repo = init_repo(tmp_path / "repo")
    util = "".join(f"u{i} = {i}\n" for i in range(20))
    commit(repo, {"app.py": "a = 1\n", "util.py": util, "docs/x.md": "x\n"}, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, {"app.py": "a = 2\n"}, "app: two")
    commit(repo, {"util.py": util.replace("u1 = 1", "u1 = 2")}, "util: two")
    os.rename(repo / "util.py", repo / "helpers.py")
    commit(repo, {"docs/x.md": "y\n"}, "rename util to helpers")
    helpers = util.replace("u1 = 1", "u1 = 2").replace("u9 = 9", "u9 = 3")
    commit(repo, {"helpers.py": helpers, "app.py": "a = 3\n"}, "helpers and app: three")
    commit(repo, {"docs/x.md": "z\n"}, "docs: z")
    return repo


def _ids(repo: Path, *args: str) -> list[str]:
    return git(repo, "log", "--format=%H", *args).split()


def test_the_commits_of_a_range_and_of_one_file(repo: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    diff = load_git_diff(str(bare), "main..feature", store=SessionStore()).file_path
    every = list_commits(diff).to_dict()
    assert [c["id"] for c in every["commits"]] == _ids(repo, "main..feature")
    assert every["total"] == 5 and every["source"].endswith(git(repo, "rev-parse", "feature"))
    newest = every["commits"][0]
    assert newest["subject"] == "docs: z" and newest["author"] == "t"
    assert newest["files"] == ["docs/x.md"] and newest["date"].startswith("20")
    rename = next(c for c in every["commits"] if c["subject"].startswith("rename"))
    assert sorted(rename["files"]) == ["docs/x.md", "helpers.py", "util.py"]
    # One file: a renamed one has its commits under both names.
    helpers = list_commits(diff, "helpers.py").to_dict()
    assert helpers["file_path"] == "helpers.py"
    assert [c["subject"] for c in helpers["commits"]] == [
        "helpers and app: three",
        "rename util to helpers",
        "util: two",
    ]
    assert [c.id for c in list_commits(diff, "app.py").commits] == _ids(
        repo, "main..feature", "--", "app.py"
    )
    page = list_commits(diff, offset=2, limit=2).to_dict()
    assert [c["id"] for c in page["commits"]] == _ids(repo, "main..feature")[2:4]
    assert page["next_offset"] == 4


def test_a_range_limited_to_paths_lists_their_commits(repo: Path) -> None:
    diff = load_git_diff(str(repo), "main..feature", store=SessionStore(), paths=["docs"]).file_path
    assert [c.subject for c in list_commits(diff).commits] == ["docs: z", "rename util to helpers"]


def test_the_working_tree_against_a_commit(repo: Path) -> None:
    (repo / "app.py").write_text("a = 4\n")
    against_main = load_git_diff(str(repo), "main", store=SessionStore()).file_path
    listed = list_commits(against_main).to_dict()
    assert listed["total"] == 5 and "uncommitted changes" in listed["note"]
    uncommitted = load_git_diff(str(repo), store=SessionStore()).file_path
    none = list_commits(uncommitted).to_dict()
    assert none["commits"] == [] and "no commit" in none["note"]


def test_a_log_stream_and_a_mail_series(repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_bytes(git_bytes(repo, "log", "-p", "main..feature"))
    listed = list_commits(str(log)).to_dict()
    assert [c["id"] for c in listed["commits"]] == _ids(repo, "main..feature")
    assert listed["source"] == "stream" and listed["commits"][0]["author"] == "t"
    assert [c.subject for c in list_commits(str(log), "app.py").commits] == [
        "helpers and app: three",
        "app: two",
    ]
    mbox = tmp_path / "series.mbox"
    mbox.write_bytes(git_bytes(repo, "format-patch", "--stdout", "main..feature"))
    mails = list_commits(str(mbox)).to_dict()["commits"]
    assert [c["subject"] for c in mails] == [
        "app: two",
        "util: two",
        "rename util to helpers",
        "helpers and app: three",
        "docs: z",
    ]
    assert mails[0]["author"] == "t" and mails[0]["files"] == ["app.py"]


def test_a_plain_diff_holds_no_commits(repo: Path, tmp_path: Path) -> None:
    diff = tmp_path / "plain.diff"
    diff.write_bytes(git_bytes(repo, "diff", "main", "feature"))
    with pytest.raises(InvalidArgument, match="holds no commits") as err:
        list_commits(str(diff))
    assert "load_git_diff" in (err.value.suggestion or "")


def test_corpus_streams() -> None:
    log = CORPUS / "flask_log-p_3.1.2..3.1.3.txt"
    mbox = CORPUS / "flask_format-patch_3.1.1..3.1.2.mbox"
    if not log.is_file() or not mbox.is_file():
        pytest.skip("corpus not available")
    store = SessionStore()
    commits = list_commits(str(log), limit=200, store=store).to_dict()
    assert commits["total"] == log.read_text().count("\ncommit ") + 1
    assert commits["commits"][0]["id"] == "85793d6c223dd845e8f218403a5ced83041d37e1"
    assert commits["commits"][0]["author"] == "David Lord"
    mails = list_commits(str(mbox), store=store).to_dict()
    assert mails["total"] == 20 and mails["commits"][0]["subject"] == "fix syntax"
    assert mails["commits"][0]["date"] == "Tue, 13 May 2025 08:09:39 -0700"


def test_a_since_review_diff_lists_the_commits_since_the_review(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from incrementalkit import branch_text, five_files, load, review_everything

    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", str(tmp_path / "state"))
    repo = five_files(tmp_path / "five")
    commit(repo, {"f2.py": branch_text("f2.py", {20: "f2 twenty"})}, "f2: twenty")
    first = load(repo)
    review_everything(first.file_path)
    reviewed = git(repo, "rev-parse", "feature")
    # The last commit amended, and one added on top.
    (repo / "f3.py").write_text(branch_text("f3.py", {30: "f3 thirty"}))
    git(repo, "commit", "-q", "-a", "--amend", "-m", "f2 and f3")
    commit(repo, {"f4.py": branch_text("f4.py", {50: "f4 fifty"})}, "f4: fifty")
    since = load(repo, since=True)
    assert "/since-" in since.file_path and since.since_review is not None
    listed = list_commits(since.file_path).to_dict()
    # git's own answer: the commits of the range the reviewed head did not hold.
    expected = _ids(repo, "feature", "^main", f"^{reviewed}")
    assert [c["id"] for c in listed["commits"]] == expected
    assert [c["subject"] for c in listed["commits"]] == ["f4: fifty", "f2 and f3"]
    assert listed["total"] == 2 and listed["source"].startswith(f"since review {reviewed}")
    assert listed["since_review"] == {
        "reviewed_head": reviewed,
        "base": git(repo, "rev-parse", "main"),
        "head": git(repo, "rev-parse", "feature"),
        "full_file_path": os.path.realpath(str(since.since_review.full_diff)),
    }
    assert "since-review diff" in listed["note"] and "full_file_path" in listed["note"]
    # One file's: f4.py only in the new commit; f1.py in none of them.
    assert [c.subject for c in list_commits(since.file_path, "f4.py").commits] == ["f4: fifty"]
    # The full diff lists the whole range.
    every = list_commits(listed["since_review"]["full_file_path"]).to_dict()
    assert [c["id"] for c in every["commits"]] == _ids(repo, "main..feature")
    assert every["total"] == 3 and "since_review" not in every


def test_a_since_review_diff_whose_reviewed_head_is_gone_lists_the_range(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from incrementalkit import branch_text, five_files, load, review_everything

    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", str(tmp_path / "state"))
    repo = five_files(tmp_path / "five")
    review_everything(load(repo).file_path)
    reviewed = git(repo, "rev-parse", "feature")
    (repo / "f3.py").write_text(branch_text("f3.py", {30: "f3 thirty"}))
    git(repo, "commit", "-q", "-a", "--amend", "-m", "feature, amended")
    path = load(repo, since=True).file_path
    run_git(repo, "reflog", "expire", "--expire=now", "--all")
    run_git(repo, "gc", "-q", "--prune=now")
    listed = list_commits(path).to_dict()
    assert [c["id"] for c in listed["commits"]] == _ids(repo, "main..feature")
    assert reviewed[:12] in listed["note"] and "no longer in the repository" in listed["note"]
