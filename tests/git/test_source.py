"""The git source: ranges resolved like git diff, streamed into an atomic, content-addressed cache."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from gitrepo import commit, git

from diffchunk.errors import GitError, RefusedRange
from diffchunk.git import diffwrite
from diffchunk.git.cache import DiffCache
from diffchunk.git.repo import discover
from diffchunk.git.revisions import Kind, Mode, parse_range
from diffchunk.git.runner import GitCommand, GitStream, git_environment
from diffchunk.review.ranges.load import load_git_range


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    return r


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def test_parse_range_forms() -> None:
    assert parse_range(None).mode is Mode.WORKTREE
    assert parse_range("HEAD").label == "working tree vs HEAD"
    two = parse_range("main..feature")
    assert (two.kind, two.left, two.right) == (Kind.TWO_DOT, "main", "feature")
    three = parse_range("main...")
    assert (three.kind, three.left, three.right) == (Kind.THREE_DOT, "main", "HEAD")
    one = parse_range("abc^!")
    assert (one.kind, one.left, one.parent) == (Kind.PARENT, "abc", 1)
    assert parse_range("abc^-2").parent == 2
    staged = parse_range(None, staged=True)
    assert (staged.mode, staged.left) == (Mode.INDEX, "HEAD")
    with pytest.raises(GitError, match="--staged compares the index with one commit"):
        parse_range("a..b", staged=True)


def test_commit_range_is_cached_and_not_regenerated(
    repo: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = commit(repo, {"a.txt": "one\n"})
    b = commit(repo, {"a.txt": "one\ntwo\n", "b.txt": "new\n"})
    calls: list[list[str]] = []
    real = GitCommand.start_into

    def spy(self: GitCommand, args: list[str], fd: int, **kw: object) -> GitStream:
        calls.append(list(args))
        return real(self, args, fd, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(GitCommand, "start_into", spy)
    first = load_git_range(str(repo), "main~1..main", cache_dir=cache_dir)
    assert (first.base, first.head, first.cached) == (a, b, False)
    text = Path(first.diff_path).read_text()
    assert "diff --git a/b.txt b/b.txt" in text and "+two" in text
    assert f"index {'0' * 40}.." in text  # --full-index
    assert len(calls) == 1
    again = load_git_range(str(repo), "main~1..main", cache_dir=cache_dir)
    assert again.cached is True and again.diff_path == first.diff_path
    assert len(calls) == 1, "a second load of the same range must not run git diff"
    # The same commits written another way are another review: a cache entry of its own
    # (the entry is its review's handle), with the same text.
    other = load_git_range(str(repo), f"{a}..{b}", cache_dir=cache_dir)
    assert other.cached is False and other.diff_path != first.diff_path
    assert Path(other.diff_path).read_bytes() == Path(first.diff_path).read_bytes()
    # The working tree is always regenerated.
    (repo / "a.txt").write_text("changed\n")
    wt1 = load_git_range(str(repo), cache_dir=cache_dir)
    wt2 = load_git_range(str(repo), "HEAD", cache_dir=cache_dir)
    assert (wt1.head, wt1.cached, wt2.cached) == (None, False, False)
    assert len(calls) == 4
    assert "+changed" in Path(wt2.diff_path).read_text()


def test_working_tree_against_two_commits_keeps_two_files(repo: Path, cache_dir: Path) -> None:
    """Reviewing the working tree against HEAD~1 leaves the file of a review against
    HEAD as it was (a session reading it would otherwise reload another diff)."""
    commit(repo, {"a.txt": "one\n"})
    commit(repo, {"a.txt": "one\ntwo\n"})
    (repo / "a.txt").write_text("one\ntwo\nthree\n")
    head = load_git_range(str(repo), "HEAD", cache_dir=cache_dir)
    before = Path(head.diff_path).read_bytes()
    assert b"+three" in before and b"+two" not in before
    parent = load_git_range(str(repo), "HEAD~1", cache_dir=cache_dir)
    assert parent.diff_path != head.diff_path
    assert b"+two\n+three" in Path(parent.diff_path).read_bytes()
    assert Path(head.diff_path).read_bytes() == before
    # the same base again: the same file, written anew with the work tree's state
    (repo / "a.txt").write_text("one\ntwo\nfour\n")
    again = load_git_range(str(repo), None, cache_dir=cache_dir)
    assert again.diff_path == head.diff_path and b"+four" in Path(again.diff_path).read_bytes()
    staged = load_git_range(str(repo), "HEAD", cache_dir=cache_dir, staged=True)
    assert staged.diff_path not in (head.diff_path, parent.diff_path)


def test_output_matches_git_diff_and_paths_are_unquoted(repo: Path, cache_dir: Path) -> None:
    commit(repo, {"café/naïve.txt": "x\n", "old.txt": "keep\n" * 20})
    git(repo, "mv", "old.txt", "renamed.txt")
    commit(repo, {"café/naïve.txt": "y\n"})
    diff = load_git_range(str(repo), "HEAD^!", cache_dir=cache_dir)
    text = Path(diff.diff_path).read_text(encoding="utf-8")
    assert "diff --git a/café/naïve.txt b/café/naïve.txt" in text
    assert "rename from old.txt" in text and "rename to renamed.txt" in text


def test_three_dot_uses_merge_base(repo: Path, cache_dir: Path) -> None:
    base = commit(repo, {"f.txt": "base\n"})
    git(repo, "checkout", "-q", "-b", "feature")
    tip = commit(repo, {"feature.txt": "feature\n"})
    git(repo, "checkout", "-q", "main")
    commit(repo, {"main.txt": "main only\n"})
    diff = load_git_range(str(repo), "main...feature", cache_dir=cache_dir)
    assert (diff.base, diff.head) == (base, tip)
    text = Path(diff.diff_path).read_text()
    assert "feature.txt" in text and "main.txt" not in text
    two = load_git_range(str(repo), "main..feature", cache_dir=cache_dir)
    assert "main.txt" in Path(two.diff_path).read_text()


def test_root_commit_and_empty_repository(repo: Path, cache_dir: Path) -> None:
    (repo / "new.txt").write_text("hello\n")
    git(repo, "add", "new.txt")
    staged = load_git_range(str(repo), staged=True, cache_dir=cache_dir)
    assert staged.base is None and staged.mode is Mode.INDEX
    assert "+hello" in Path(staged.diff_path).read_text()
    worktree = load_git_range(str(repo), None, cache_dir=cache_dir)
    assert "new file mode" in Path(worktree.diff_path).read_text()
    with pytest.raises(GitError, match="has no commits yet"):
        load_git_range(str(repo), "HEAD^!", cache_dir=cache_dir)
    root = commit(repo, {})
    first = load_git_range(str(repo), "HEAD^!", cache_dir=cache_dir)
    assert (first.base, first.head) == (None, root)
    assert "+hello" in Path(first.diff_path).read_text()


def test_bare_repository_commit_ranges_only(repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    commit(repo, {"a": "1\n"})
    commit(repo, {"a": "2\n"})
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    diff = load_git_range(str(bare), "main~1..main", cache_dir=cache_dir)
    assert "+2" in Path(diff.diff_path).read_text()
    with pytest.raises(GitError, match="bare repository"):
        load_git_range(str(bare), cache_dir=cache_dir)
    with pytest.raises(GitError, match="bare repository"):
        load_git_range(str(bare), staged=True, cache_dir=cache_dir)


def test_discovery_from_a_subdirectory_the_git_directory_and_a_bare_repository(
    repo: Path, tmp_path: Path
) -> None:
    from diffchunk.git.repo import discover

    commit(repo, {"sub/a": "1\n"})
    git(repo, "config", "filter.lfs.clean", "false")
    root = os.path.realpath(repo)
    for where in (repo, repo / "sub", repo / ".git", repo / ".git" / "refs"):
        found = discover(str(where))
        assert (found.root, found.git_dir) == (root, os.path.join(root, ".git")), where
        private = Path(found.git.env_vars["GIT_DIR"])  # git reads diffchunk's config only
        assert "filter" not in (private / "config").read_text()
        assert found.git.env_vars["GIT_WORK_TREE"] == root
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    found = discover(str(bare))
    assert found.bare and found.git_dir == os.path.realpath(bare)


def test_no_filter_runs_in_the_repository_git_runs_in(tmp_path: Path, cache_dir: Path) -> None:
    # core.worktree names another repository's directory: git must run in
    # the repository whose worktree that is (not in the one found there),
    # and read the config of neither.
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    commit(other, {"o.txt": "one\n", ".gitattributes": "* filter=otherf\n"})
    marker = tmp_path / "ran"
    git(other, "config", "filter.otherf.clean", f"touch {marker}")
    (other / "o.txt").write_text("two\n")
    outer = tmp_path / "outer.git"
    git(tmp_path, "init", "-q", "--bare", str(outer))
    git(outer, "config", "core.bare", "false")
    git(outer, "config", "core.worktree", str(other))
    git(outer, "config", "filter.otherf.clean", f"touch {marker}")
    from diffchunk.git.repo import discover

    found = discover(str(outer))
    assert found.git_dir == os.path.realpath(outer)
    assert found.git.env_vars["GIT_WORK_TREE"] == os.path.realpath(other)
    assert "filter" not in Path(found.git.env_vars["GIT_DIR"], "config").read_text()
    with pytest.raises(GitError, match="has no commits yet"):
        load_git_range(str(outer), "HEAD^!", cache_dir=cache_dir)  # outer has no history
    load_git_range(str(outer), None, cache_dir=cache_dir)
    assert not marker.exists()


def test_discovery_keeps_odd_characters_of_the_working_tree_path(
    repo: Path, tmp_path: Path
) -> None:
    from diffchunk.git.repo import discover

    commit(repo, {"a": "1\n"})
    for name in ("tree\rname", "line\u2028sep", "two\nlines"):
        worktree = tmp_path / name
        git(repo, "worktree", "add", "-q", "-b", f"w{len(name)}{ord(name[4])}", str(worktree))
        assert discover(str(worktree)).root == os.path.realpath(worktree), name


def test_run_all_keeps_order_and_exit_statuses(repo: Path) -> None:
    commit(repo, {"a": "1\n"})
    git_in_repo = discover(str(repo)).git
    ok, missing, head = git_in_repo.run_all(
        [["rev-parse", "--verify", "HEAD"], ["rev-parse", "--verify", "--quiet", "nope"], ["log"]]
    )
    assert ok.returncode == 0 and len(ok.stdout.strip()) == 40
    assert missing.returncode != 0 and missing.stdout == b""
    assert head.returncode == 0 and ok.stdout.strip().decode() in head.stdout.decode()


def test_a_started_git_is_stopped_past_its_timeout(repo: Path) -> None:
    from diffchunk.errors import GitTimeout

    commit(repo, {"a": "1\n"})
    git_in_repo = discover(str(repo)).git
    # cat-file --batch waits for object names on its stdin, held open here.
    read_end, write_end = os.pipe()
    try:
        proc = git_in_repo.start(["cat-file", "--batch"], stdin=read_end)
        with pytest.raises(GitTimeout, match=r"git cat-file did not finish within 0\.2 s"):
            proc.finish(timeout=0.2)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert proc.returncode is not None and proc.returncode < 0  # killed, and waited for
    assert proc.stdout is not None and proc.stdout.closed
    assert proc.stderr is not None and proc.stderr.closed


def test_a_started_git_answers_through_its_pipes(repo: Path) -> None:
    import subprocess

    head = commit(repo, {"a": "1\n"})
    git_in_repo = discover(str(repo)).git
    with git_in_repo.start(["cat-file", "--batch-check"], stdin=subprocess.PIPE) as proc:
        done = proc.finish(b"HEAD\n")
    assert done.stdout.decode().split()[0] == head
    assert done.args[: len(git_in_repo.argv([]))] == git_in_repo.argv([])
    with (
        git_in_repo.start(["cat-file", "-e", "nope"]) as proc,
        pytest.raises(GitError, match="git cat-file failed"),
    ):
        proc.finish()
    # Leaving the block stops a git still running.
    with git_in_repo.start(["cat-file", "--batch"], stdin=subprocess.PIPE) as proc:
        pass
    assert proc.returncode is not None and proc.returncode < 0


def test_unknown_revision_and_not_a_repository(repo: Path, tmp_path: Path, cache_dir: Path) -> None:
    commit(repo, {"a": "1\n"})
    with pytest.raises(GitError) as info:
        load_git_range(str(repo), "main..nope", cache_dir=cache_dir)
    message = str(info.value)
    assert "'nope'" in message and "git log --oneline" in message and "main" in message
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(GitError, match="not inside a git repository"):
        load_git_range(str(plain), cache_dir=cache_dir)
    with pytest.raises(Exception, match="relative"):
        load_git_range("repo", cache_dir=cache_dir)
    assert not cache_dir.exists() or not any(cache_dir.glob("*.diff"))


def test_failed_git_diff_leaves_no_cache_entry(
    repo: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit(repo, {"a": "1\n"})
    commit(repo, {"a": "2\n"})
    monkeypatch.setattr(diffwrite, "DIFF_OPTIONS", (*diffwrite.DIFF_OPTIONS, "--no-such-option"))
    with pytest.raises(GitError, match="git diff failed"):
        load_git_range(str(repo), "main~1..main", cache_dir=cache_dir)
    assert not [p for p in cache_dir.iterdir() if p.name.endswith(".diff")]
    assert not [p for p in cache_dir.iterdir() if p.name.startswith(".tmp-")]


def test_inherited_git_environment_is_scrubbed(
    repo: Path, tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit(repo, {"a": "1\n"})
    commit(repo, {"a": "2\n"})
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    # As inside a hook of another repository: these must not redirect us.
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "nope-index"))
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", "false")
    env = git_environment()
    assert "GIT_DIR" not in env and "GIT_EXTERNAL_DIFF" not in env
    assert env["LC_ALL"] == "C" and env["GIT_TERMINAL_PROMPT"] == "0"
    diff = load_git_range(str(repo), "HEAD^!", cache_dir=cache_dir)
    assert "+2" in Path(diff.diff_path).read_text()


def _entry(i: int) -> str:
    """A name of the form the cache writes for a commit pair."""
    return f"{i:012x}..{i + 1:012x}-{i:016x}"


def test_cache_is_bounded_and_clearable(tmp_path: Path) -> None:
    cache = DiffCache(tmp_path / "c", max_entries=2)
    paths = []
    for i in range(3):
        entry = cache.begin(_entry(i))
        os.write(entry.fd, b"x" * (i + 1))
        paths.append(entry.commit())
        os.utime(paths[-1], ns=(i * 10**9, i * 10**9))
    assert not paths[0].exists() and paths[1].exists() and paths[2].exists()
    assert cache.lookup(_entry(1)) == paths[1]
    assert cache.stats().entries == 2
    # The lookup made entry 1 the most recently used: a byte bound now drops entry 2.
    small = DiffCache(tmp_path / "c", max_bytes=3)
    assert small.prune() == 1
    assert [p.exists() for p in paths[1:]] == [True, False]
    assert cache.clear() >= 1 and cache.stats().entries == 0


def test_cache_never_removes_files_it_did_not_write(repo: Path, tmp_path: Path) -> None:
    """A cache directory shared with the user's own diffs keeps them through clear and prune."""
    directory = tmp_path / "shared"
    directory.mkdir()
    mine = [
        directory / "my-work.diff",
        directory / ".tmp-notes.diff",
        directory / "x.diff.gitattrs.json",
    ]
    for path in mine:
        path.write_text("mine\n")
        os.utime(path, ns=(0, 0))  # old enough to look stale
    a = commit(repo, {"f.txt": "one\n"})
    b = commit(repo, {"f.txt": "two\n"})
    cached = load_git_range(str(repo), f"{a}..{b}", cache_dir=directory).diff_path
    assert DiffCache(directory).stats().entries == 1
    assert DiffCache(directory).clear() == 1  # only the entry it wrote
    assert not os.path.exists(cached)
    cached = load_git_range(str(repo), f"{a}..{b}", cache_dir=directory).diff_path
    assert DiffCache(directory, max_entries=0).prune() == 1  # over the bound: only its own entry
    assert not os.path.exists(cached)
    assert all(path.read_text() == "mine\n" for path in mine)


def test_cache_dir_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from diffchunk.git.cache import default_cache_dir

    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "x"))
    assert default_cache_dir() == tmp_path / "x"
    monkeypatch.delenv("DIFFCHUNK_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "diffchunk"


def test_refused_range_is_a_git_error() -> None:
    with pytest.raises(RefusedRange):
        parse_range("--output=x")
    assert issubclass(RefusedRange, GitError)


def test_git_killed_by_a_signal_is_named() -> None:
    from diffchunk.git.process import command_failed

    assert "SIGXFSZ" in str(command_failed("git diff", -25, b""))
    assert "SIGKILL" in str(command_failed("git diff", -9, b""))
    assert "exit status 2" in str(command_failed("git diff", 2, b""))


def test_pending_entry_appears_on_commit_and_vanishes_on_abort(tmp_path: Path) -> None:
    from diffchunk.git import cache as cache_module

    cache = DiffCache(tmp_path / "cache")
    entry = cache.begin("commits-0123456789abcdef")
    assert cache_module._TMP_NAME.fullmatch(os.path.basename(entry.tmp))  # pruned if stale
    assert oct(os.stat(entry.tmp).st_mode & 0o777) == oct(0o600)
    data = b"diff --git a/x b/x\n" * 200_000
    os.write(entry.fd, data)
    assert not cache.holds("commits-0123456789abcdef")  # not before the commit
    path = entry.commit()
    assert path.read_bytes() == data and cache.holds("commits-0123456789abcdef")
    assert [p.name for p in cache.directory.iterdir()] == [path.name]
    dropped = cache.begin("commits-fedcba9876543210")
    os.write(dropped.fd, b"partial")
    dropped.abort()
    dropped.abort()  # again: nothing more happens
    assert [p.name for p in cache.directory.iterdir()] == [path.name]


@pytest.mark.parametrize("locks", ["flock", "no flock"])
def test_cache_removes_temporary_files_that_nobody_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, locks: str
) -> None:
    from diffchunk.git import cache as cache_module

    if locks == "no flock":  # as on NFS: a process does not see its own locks
        monkeypatch.setattr(cache_module, "_unlocked", lambda path: True)
    cache = DiffCache(tmp_path / "cache")
    live = cache.begin("commits-0123456789abcdef")  # locked while open
    orphan = cache.directory / ".tmp-orphan01.diff"  # its writer was killed
    orphan.write_bytes(b"diff --git a/x b/x\n")
    young = cache.directory / ".tmp-young012.diff"  # just created: its writer may lock it now
    young.write_bytes(b"")
    old = time.time() - 60
    for path in (Path(live.tmp), orphan):
        os.utime(path, (old, old))
    cache.prune()
    assert sorted(p.name for p in cache.directory.iterdir()) == sorted(
        [os.path.basename(live.tmp), young.name]
    )
    live.abort()
