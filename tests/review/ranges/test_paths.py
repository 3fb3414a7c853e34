"""A range limited to paths: `load_git_diff(paths=...)` and `diffchunk review RANGE -- PATH...`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from gitrepo import commit, init_repo

from diffchunk.cli import main as cli
from diffchunk.errors import InvalidArgument
from diffchunk.review import record as record_tools
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools

NAMES = ("src/app.py", "src/util.py", "docs/guide.md", "-rf", ":(exclude)src", "top.txt")


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {name: f"{name} one\n" for name in NAMES})
    commit(repo, {name: f"{name} two\n" for name in NAMES}, "two")
    return repo


def _files(file_path: str, store: SessionStore) -> list[str]:
    listing = diff_tools.list_chunks(file_path, store=store, max_tokens=None).to_dict()
    return [f for c in listing["chunks"] for f in c["files"]]


def test_paths_limit_the_range_and_are_another_cache_entry(repo: Path) -> None:
    store = SessionStore()
    full = load_git_diff(str(repo), "HEAD~1..HEAD", store=store)
    limited = load_git_diff(str(repo), "HEAD~1..HEAD", store=store, paths=["src", "top.txt"])
    assert sorted(_files(limited.file_path, store)) == ["src/app.py", "src/util.py", "top.txt"]
    assert limited.file_path != full.file_path and limited.to_dict()["paths"] == ["src", "top.txt"]
    assert len(_files(full.file_path, store)) == len(NAMES)  # the full diff is still there
    again = load_git_diff(str(repo), "HEAD~1..HEAD", store=store, paths=["./src/", "top.txt"])
    assert again.cached and again.file_path == limited.file_path  # the same paths, normalised
    other = load_git_diff(str(repo), "HEAD~1..HEAD", store=store, paths=["docs"])
    assert other.file_path not in (full.file_path, limited.file_path)
    assert "paths_note" not in other.to_dict()
    # Paths under which the range changes nothing: said, with how paths are read.
    none = load_git_diff(str(repo), "HEAD~1..HEAD", store=store, paths=["src/*.py"]).to_dict()
    assert none["files"] == 0 and "taken literally" in none["paths_note"]
    # One review: a limited range is the same range, its marks those of the files.
    record_tools.mark_reviewed(limited.file_path, file_pattern="src/app.py")
    status = record_tools.review_status(full.file_path)
    assert status.review.id == record_tools.review_status(limited.file_path).review.id
    assert status.totals.reviewed == 1


def test_paths_are_data_never_options_or_pathspec_magic(repo: Path) -> None:
    store = SessionStore()
    dash = load_git_diff(str(repo), "HEAD~1..HEAD", store=store, paths=["-rf"])
    assert _files(dash.file_path, store) == ["-rf"]
    magic = load_git_diff(str(repo), "HEAD~1..HEAD", store=store, paths=[":(exclude)src"])
    assert _files(magic.file_path, store) == [":(exclude)src"]  # a file name, nothing more
    inside = load_git_diff(str(repo), "HEAD~1..HEAD", store=store, paths=[str(repo / "docs")])
    assert _files(inside.file_path, store) == ["docs/guide.md"]


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("../outside", "leads out of the repository"),
        ("src/../../x", "leads out of the repository"),
        ("/etc", "outside the repository"),
        ("", "it is empty"),
        ("a\nb", "NUL or a line break"),
        ("d/" * 3000, "6,000 characters long"),
    ],
)
def test_paths_out_of_the_repository_are_refused(repo: Path, path: str, why: str) -> None:
    with pytest.raises(InvalidArgument, match=why) as err:
        load_git_diff(str(repo), "HEAD~1..HEAD", store=SessionStore(), paths=[path])
    assert "relative to the top of the repository" in (err.value.suggestion or "")


def test_an_absolute_path_names_a_link_not_its_target(repo: Path) -> None:
    """A symbolic link of the work tree is a path of the diff: the range is limited to the
    link, not to the file it points to."""
    (repo / "link.txt").symlink_to("top.txt")
    (repo / "top.txt").write_text("three\n")
    store = SessionStore()
    only = load_git_diff(str(repo), store=store, paths=[str(repo / "link.txt")])
    assert only.to_dict()["paths"] == ["link.txt"]
    assert _files(only.file_path, store) == []  # the link itself is untracked and unchanged


def test_uncommitted_changes_limited_to_paths(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("three\n")
    (repo / "top.txt").write_text("three\n")
    store = SessionStore()
    worktree = load_git_diff(str(repo), store=store, paths=["src"])
    assert _files(worktree.file_path, store) == ["src/app.py"]
    everything = load_git_diff(str(repo), store=store)
    assert sorted(_files(everything.file_path, store)) == ["src/app.py", "top.txt"]
    assert _files(worktree.file_path, store) == ["src/app.py"]  # not rewritten by it


def test_cli_review_range_with_paths(repo: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        cli, ["review", "HEAD~1..HEAD", "--repo", str(repo), "--json", "--", "docs", "-rf"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["summary"]["paths"] == ["docs", "-rf"]
    assert sorted(f for c in data["chunks"] for f in c["files"]) == ["-rf", "docs/guide.md"]
    shown = runner.invoke(cli, ["review", "HEAD~1..HEAD", "--repo", str(repo), "--", "docs"])
    assert shown.exit_code == 0 and "HEAD~1..HEAD -- docs in " in shown.stdout
    refused = runner.invoke(cli, ["review", "HEAD~1..HEAD", "--repo", str(repo), "--", "../x"])
    assert refused.exit_code == 1 and "leads out of the repository" in refused.output


def test_cli_paths_apply_to_ranges_only(repo: Path, tmp_path: Path) -> None:
    diff = tmp_path / "x.diff"
    diff.write_text("diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n")
    result = CliRunner().invoke(cli, ["review", str(diff), "--", "src"])
    assert result.exit_code == 2 and "limit a git range" in result.output
