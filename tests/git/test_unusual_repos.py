"""The git source in unusual repositories and on failure paths: work trees inside other
repositories, odd paths, root and shallow commits, failed writes, vanished directories,
and termination signals while git runs.

Each case was once wrong: another repository reviewed, a crash, an orphaned cache
file, a git process left running, a misleading message.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from gitrepo import commit, git, history_repo

from diffchunk import termination
from diffchunk.cli import main
from diffchunk.errors import GitError
from diffchunk.git import runner
from diffchunk.git.cache import default_cache_dir
from diffchunk.git.repo import discover
from diffchunk.paths import review_repo_path
from diffchunk.review.ranges.load import load_git_range
from diffchunk.review.sessions.sidecar import attributes_for_diff


def _changed_paths(diff_path: str) -> list[str]:
    text = Path(diff_path).read_text()
    return [line.split(" b/", 1)[1] for line in text.splitlines() if line.startswith("diff --git")]


def test_core_worktree_inside_another_repository_reviews_its_own(
    tmp_path: Path, cache_dir: Path
) -> None:
    # The work tree of `inner` lies inside `outer`'s: git started there with
    # -C alone would find (and review) `outer`.
    outer = history_repo(
        tmp_path / "outer", [{"a.txt": "a\n"}, {"a.txt": "a\nb\n", "b.txt": "b\n"}]
    )
    tree = outer / "sub"
    tree.mkdir()
    inner = history_repo(tmp_path / "inner", [])
    git(inner, "config", "core.worktree", str(tree))
    (tree / "own.txt").write_text("one\n")
    git(inner, "add", "own.txt")
    git(inner, "commit", "-q", "-m", "c1")
    (tree / "own.txt").write_text("one\ntwo\n")
    git(inner, "commit", "-q", "-am", "c2")
    diff = load_git_range(str(inner), "HEAD~1..HEAD", cache_dir=cache_dir)
    assert _changed_paths(diff.diff_path) == ["own.txt"]
    assert diff.head == git(inner, "rev-parse", "HEAD")
    (tree / "own.txt").write_text("changed\n")
    worktree = load_git_range(str(inner), None, cache_dir=cache_dir)
    assert _changed_paths(worktree.diff_path) == ["own.txt"]


@pytest.mark.parametrize("name", ["new\nline", "two\n\nnewlines"])
def test_a_repository_with_a_newline_in_its_path(
    tmp_path: Path, cache_dir: Path, name: str
) -> None:
    repo = history_repo(tmp_path / name / "repo", [{"a.txt": "a\n"}, {"a.txt": "a\nb\n"}])
    diff = load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir)
    assert diff.repo_root == os.path.realpath(repo)
    assert _changed_paths(diff.diff_path) == ["a.txt"]
    bare = tmp_path / name / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    from_bare = load_git_range(str(bare), "HEAD~1..HEAD", cache_dir=cache_dir)
    assert from_bare.repo_root == os.path.realpath(bare)


def test_a_repository_path_that_is_not_utf8(tmp_path: Path, cache_dir: Path) -> None:
    raw = os.fsencode(str(tmp_path)) + b"/bad\xffname"
    try:
        os.mkdir(raw)
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    repo = history_repo(Path(os.fsdecode(raw)) / "repo", [{"a.txt": "a\n"}, {"a.txt": "a\nb\n"}])
    for revision_range in ("HEAD~1..HEAD", None):
        if revision_range is None:
            (repo / "a.txt").write_text("changed\n")
        diff = load_git_range(str(repo), revision_range, cache_dir=cache_dir)
        assert _changed_paths(diff.diff_path) == ["a.txt"]
        source = attributes_for_diff(diff.diff_path)
        assert source is not None and source.repo == os.path.realpath(repo)  # type: ignore[attr-defined]


def test_parent_ranges_of_root_and_shallow_commits(tmp_path: Path, cache_dir: Path) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}, {"a.txt": "2\n"}, {"a.txt": "3\n"}])
    root = git(repo, "rev-list", "--max-parents=0", "HEAD")
    whole = load_git_range(str(repo), f"{root}^!", cache_dir=cache_dir)
    assert whole.base is None and _changed_paths(whole.diff_path) == ["a.txt"]
    with pytest.raises(GitError, match="has 0 parent"):
        load_git_range(str(repo), f"{root}^-2", cache_dir=cache_dir)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{repo}", str(shallow))
    with pytest.raises(GitError, match="not in this shallow clone") as refused:
        load_git_range(str(shallow), "HEAD^!", cache_dir=cache_dir)
    assert "git fetch --deepen" in (refused.value.suggestion or "")


def test_empty_tree_follows_a_repository_recreated_with_another_hash(
    tmp_path: Path, cache_dir: Path
) -> None:
    path = tmp_path / "repo"
    history_repo(path, [{"a.txt": "1\n"}])
    assert load_git_range(str(path), "HEAD^!", cache_dir=cache_dir).base is None
    subprocess.run(["rm", "-rf", str(path)], check=True)
    path.mkdir()
    made = subprocess.run(
        ["git", "init", "-q", "--object-format=sha256", str(path)], capture_output=True
    )
    if made.returncode != 0:
        pytest.skip("this git cannot make SHA-256 repositories")
    commit(path, {"a.txt": "1\n"})
    diff = load_git_range(str(path), "HEAD^!", cache_dir=cache_dir)
    assert len(diff.head or "") == 64 and _changed_paths(diff.diff_path) == ["a.txt"]


def test_a_failed_write_leaves_no_sidecar(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}, {"a.txt": "2\n"}])
    from diffchunk.diff.parser import StreamParser

    def broken(self: StreamParser, block: bytes) -> None:
        raise RuntimeError("parser broke")

    monkeypatch.setattr(StreamParser, "feed", broken)
    with pytest.raises(RuntimeError, match="parser broke"):
        load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir)
    # Nothing but diffchunk's git directory of the repository (git/, when the cache is there).
    assert [name for name in os.listdir(cache_dir) if name != "git"] == []
    # A working-tree entry written before keeps the sidecar it needs.
    monkeypatch.undo()
    (repo / "a.txt").write_text("3\n")
    first = load_git_range(str(repo), None, cache_dir=cache_dir)
    monkeypatch.setattr(StreamParser, "feed", broken)
    with pytest.raises(RuntimeError):
        load_git_range(str(repo), None, cache_dir=cache_dir)
    assert sorted(name for name in os.listdir(cache_dir) if name != "git") == sorted(
        [os.path.basename(first.diff_path), os.path.basename(first.diff_path) + ".gitattrs.json"]
    )


def test_a_relative_cache_directory_is_taken_from_the_current_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}, {"a.txt": "2\n"}])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", "relcache")
    assert default_cache_dir() == tmp_path / "relcache"
    result = CliRunner().invoke(main, ["review", "--repo", str(repo), "HEAD~1..HEAD", "--json"])
    assert result.exit_code == 0, result.output
    path = json.loads(result.stdout)["summary"]["file_path"]
    assert Path(path).parent == tmp_path / "relcache"


def test_errors_that_are_not_about_the_range_are_not_called_a_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}, {"a.txt": "2\n"}])
    blocker = tmp_path / "afile"
    blocker.write_text("")
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(blocker / "sub"))
    result = CliRunner().invoke(main, ["review", "--repo", str(repo), "HEAD~1..HEAD"])
    assert result.exit_code == 1
    # (diffchunk's git directory of the repository is the first thing it makes there)
    assert result.output.startswith("Error: Cannot create diffchunk's git directory")
    assert "not an existing diff file" not in result.output
    # A text that names nothing still gets the hint that it may be a file name.
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    missing = CliRunner().invoke(main, ["review", "--repo", str(repo), "notes"])
    assert missing.exit_code == 1
    assert "'notes' is not an existing diff file, nor a range here" in missing.output
    # One that can only be a file's is called a missing file.
    missing = CliRunner().invoke(main, ["review", "--repo", str(repo), "notes.diff"])
    assert missing.exit_code == 1
    assert "The diff file 'notes.diff' does not exist" in missing.output


def test_a_vanished_current_directory_is_a_clear_error(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    code = (
        "import os, sys; from diffchunk.paths import review_repo_path\n"
        f"os.chdir({str(gone)!r}); os.rmdir({str(gone)!r})\n"
        "try:\n    review_repo_path(None)\nexcept Exception as e:\n"
        "    print(type(e).__name__, e.message, e.suggestion)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.startswith("PathError The current directory no longer exists."), done
    assert review_repo_path(str(tmp_path)) == str(tmp_path)


# --------------------------------------------------------------------------- termination


def test_held_keeps_a_termination_signal_for_the_owner() -> None:
    with termination.Held() as held:
        termination._stop(signal.SIGTERM, None)  # what the installed handler does
    assert held.signal == signal.SIGTERM
    with pytest.raises(SystemExit) as stopped, termination.Held():
        termination._stop(signal.SIGHUP, None)
        raise RuntimeError("failed while holding")
    assert stopped.value.code == 128 + signal.SIGHUP
    with pytest.raises(SystemExit) as direct:
        termination._stop(signal.SIGTERM, None)
    assert direct.value.code == 143


def test_a_signal_while_git_starts_stops_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}, {"a.txt": "2\n"}])
    started: list[subprocess.Popen[bytes]] = []
    real = subprocess.Popen

    def popen_then_signal(*args: object, **kwargs: object) -> subprocess.Popen[bytes]:
        proc = real(*args, **kwargs)  # type: ignore[call-overload]
        started.append(proc)
        termination._stop(signal.SIGTERM, None)  # SIGTERM right after git started
        return proc  # type: ignore[no-any-return]

    monkeypatch.setattr(runner.subprocess, "Popen", popen_then_signal)
    out = os.open(tmp_path / "out", os.O_RDWR | os.O_CREAT)
    try:
        with pytest.raises(SystemExit) as stopped:
            discover(str(repo)).git.start_into(["cat-file", "--batch"], out)
    finally:
        os.close(out)
    assert stopped.value.code == 143
    (proc,) = started
    assert proc.returncode is not None  # killed and reaped, not left running
