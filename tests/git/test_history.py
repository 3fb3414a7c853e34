"""git/history.py against git itself: ancestry, commits gone, changed paths, a diff limited
to paths (names with spaces, stars and non-UTF-8 bytes), and files of a commit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gitrepo import commit, git, git_bytes, init_repo, run_git

from diffchunk.errors import GitError
from diffchunk.git import history
from diffchunk.git.diffwrite import DIFF_OPTIONS
from diffchunk.git.repo import discover


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {"a.txt": "a\n", "b c.txt": "b\n", "*.txt": "star\n"}, "one")
    commit(repo, {"a.txt": "a2\n", "*.txt": "star2\n"}, "two")
    return repo


def test_ancestry_and_commits_gone(repo: Path) -> None:
    r = discover(str(repo))
    one, two = git(repo, "rev-parse", "HEAD~1"), git(repo, "rev-parse", "HEAD")
    assert history.is_ancestor(r, one, two) and history.is_ancestor(r, two, two)
    assert not history.is_ancestor(r, two, one)
    assert history.missing_commits(r, [one, two]) == []
    git(repo, "commit", "-q", "--amend", "-m", "two, amended")
    run_git(repo, "reflog", "expire", "--expire=now", "--all")
    run_git(repo, "gc", "-q", "--prune=now")
    assert history.missing_commits(r, [one, two]) == [two]
    with pytest.raises(GitError, match="not a commit id"):
        history.is_ancestor(r, "--output=/tmp/x", one)
    with pytest.raises(GitError, match="not a commit id"):
        history.missing_commits(r, ["HEAD"])


def test_changed_paths_and_a_diff_limited_to_paths(repo: Path) -> None:
    r = discover(str(repo))
    one, two = git(repo, "rev-parse", "HEAD~1"), git(repo, "rev-parse", "HEAD")
    assert history.changed_paths(r, one, two) == {b"a.txt", b"*.txt"}
    assert history.changed_paths(r, two, two) == set()
    # A star is a name, not a glob: only "*.txt" itself.
    text = history.diff_commits(r, one, two, [b"*.txt"])
    assert text == git_bytes(repo, "diff", *DIFF_OPTIONS, one, two, "--", ":(literal)*.txt")
    assert b"a.txt" not in text and b"+star2" in text
    assert history.diff_commits(r, one, two, []) == b""
    both = history.diff_commits(r, one, two, [b"a.txt", b"b c.txt", b"*.txt"])
    assert both == git_bytes(repo, "diff", *DIFF_OPTIONS, one, two)


def test_many_paths_are_asked_in_batches(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = discover(str(repo))
    one, two = git(repo, "rev-parse", "HEAD~1"), git(repo, "rev-parse", "HEAD")
    monkeypatch.setattr(history, "PATHS_PER_RUN", 1)
    runs: list[list[str]] = []
    real = type(r.git).run

    def counted(self: object, args: list[str], **kw: object) -> object:
        runs.append(list(args))
        return real(self, args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(type(r.git), "run", counted)
    text = history.diff_commits(r, one, two, [b"*.txt", b"a.txt", b"*.txt"])
    assert text.count(b"diff --git") == 2
    assert len(runs) == 2  # one git run per path (the repeated one asked once)


def test_a_blob_of_the_index_is_stage_0_of_its_path(repo: Path) -> None:
    """A path that reads like a stage number or a message search is still a path."""
    from diffchunk.git.blobs import blob_at

    (repo / "1:foo").write_text("one\n")
    git(repo, "add", "1:foo")
    r = discover(str(repo))
    assert blob_at(r, None, "1:foo") == git(repo, "rev-parse", ":0:1:foo")


def test_files_of_a_commit(repo: Path) -> None:
    name = os.fsencode("caf\udce9.txt")  # Latin-1 é: not UTF-8
    (repo / os.fsdecode(name)).write_bytes(b"x\ny\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "latin-1 name")
    r = discover(str(repo))
    head = git(repo, "rev-parse", "HEAD")
    found = history.read_files(
        r,
        [
            (head, b"a.txt"),
            (head, b"nothing"),
            (head, name),
            (head, b"two\nlines"),
            (head, b"b c.txt"),
        ],
    )
    assert found == [b"a2\n", None, b"x\ny\n", None, b"b\n"]
    assert history.read_files(r, []) == []
