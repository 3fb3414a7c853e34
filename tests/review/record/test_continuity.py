"""One review across spellings: the same commits under another spelling continue the
review, a branch that moves keeps its review, and a load that cannot tell names the
earlier reviews it overlaps (real repositories, work tree and bare)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import commit, git, run_git
from incrementalkit import branch_text, five_files, load, review_everything

from diffchunk.errors import InvalidArgument
from diffchunk.review import record as core


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return five_files(tmp_path / "repo")


def _review_id(path: str) -> int:
    return core.review_status(path).review.id


def _respellings(repo: Path) -> list[str]:
    base, head = git(repo, "rev-parse", "main"), git(repo, "rev-parse", "feature")
    git(repo, "tag", "v1", "feature")
    return [
        "main..feature",
        "main...feature",
        f"{base}..{head}",
        "main..v1",
        f"{base[:10]}..v1",
        "feature^!",
        "feature~1..feature",
        "main..",  # HEAD is feature
    ]


def test_every_spelling_of_the_same_commits_continues_one_review(repo: Path) -> None:
    first = load(repo, rng="main..feature")
    review_everything(first.file_path)
    ids = {rng: _review_id(load(repo, rng=rng).file_path) for rng in _respellings(repo)}
    assert set(ids.values()) == {_review_id(first.file_path)}, ids
    again = load(repo, rng="feature^!")
    assert core.review_status(again.file_path).totals.reviewed == 5
    assert "overlapping_reviews" not in again.to_dict()


def test_a_bare_clone_continues_one_review_across_spellings(repo: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    first = load(bare, rng="main..feature")
    review_everything(first.file_path)
    for rng in ("main...feature", "feature^!", "feature~1..feature"):
        assert _review_id(load(bare, rng=rng).file_path) == _review_id(first.file_path)


def test_a_branch_that_moves_keeps_its_review_and_since_review_works(repo: Path) -> None:
    first = load(repo, rng="main..feature")
    review_everything(first.file_path)
    commit(repo, {"f3.py": branch_text("f3.py", {50: "f3 fifty"})}, "one more")
    moved = load(repo, rng="main..feature", since=True)
    assert _review_id(moved.file_path) == _review_id(first.file_path)
    since = moved.to_dict()["since_review"]
    assert since["history"] == "fast-forward"
    assert since["files"]["changed"] == 1
    # The old commits, spelled by id, are still that review's.
    old = f"{first.base}..{first.head}"
    assert _review_id(load(repo, rng=old).file_path) == _review_id(first.file_path)


def test_a_tag_then_a_branch_with_one_more_commit_names_the_earlier_review(repo: Path) -> None:
    git(repo, "tag", "v1", "feature")
    first = load(repo, rng="main..v1")
    review_everything(first.file_path)
    core.add_finding(first.file_path, "f1.py", "off by one", line=10)
    commit(repo, {"f2.py": branch_text("f2.py", {30: "f2 thirty"})}, "one more")
    second = load(repo, rng="main..feature").to_dict()
    assert _review_id(second["file_path"]) != _review_id(first.file_path)
    overlaps = second["overlapping_reviews"]
    assert overlaps == [
        {"id": _review_id(first.file_path), "range": "main..v1", "reviewed": 5, "open_findings": 1}
    ]
    assert f"review_id={overlaps[0]['id']}" in second["overlapping_note"]
    assert f"--review {overlaps[0]['id']}" in second["overlapping_note"]


def test_review_id_continues_the_named_review_and_keeps_it(repo: Path) -> None:
    git(repo, "tag", "v1", "feature")
    first = load(repo, rng="main..v1")
    review_everything(first.file_path)
    commit(repo, {"f2.py": branch_text("f2.py", {30: "f2 thirty"})}, "one more")
    from diffchunk.review.incremental.load import load_git_diff

    chosen = load_git_diff(str(repo), "main..feature", review_id=_review_id(first.file_path))
    assert _review_id(chosen.file_path) == _review_id(first.file_path)
    assert "overlapping_reviews" not in chosen.to_dict()
    status = core.review_status(chosen.file_path)
    assert status.totals.reviewed == 4 and status.totals.changed == 1
    # The branch's next load continues the chosen review without naming it.
    commit(repo, {"f4.py": branch_text("f4.py", {30: "f4 thirty"})}, "and another")
    assert _review_id(load(repo, rng="main..feature").file_path) == _review_id(first.file_path)


def test_review_id_of_no_review_of_this_repository_is_refused(repo: Path, tmp_path: Path) -> None:
    from diffchunk.review.incremental.load import load_git_diff

    with pytest.raises(InvalidArgument, match="no review 999"):
        load_git_diff(str(repo), "main..feature", review_id=999)
    other = five_files(tmp_path / "other")
    theirs = load(other, rng="main..feature")
    with pytest.raises(InvalidArgument, match="of this repository"):
        load_git_diff(str(repo), "main..feature", review_id=_review_id(theirs.file_path))
