"""``includeIf`` in git's config, followed as git follows it: each case builds a real
repository and a ``~/.gitconfig`` in ``tmp_path`` and asks ``git config user.email``
there, which diffchunk's value must equal (``gitdir:``, ``gitdir/i:``, ``onbranch:``),
with the bounds every include obeys."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from gitrepo import commit, git, init_repo

from diffchunk.errors import GitError, PathError, UnsafeRepository
from diffchunk.git.repo import discover
from diffchunk.paths import PathPolicy, roots_in_force

BASE = "base@example.org"
WORK = "work@example.org"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of the test's own, the only config git and diffchunk read besides the
    repository's; ``~/.gitconfig-work`` holds the work identity."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    (home / ".gitconfig-work").write_text(f"[user]\n\temail = {WORK}\n")
    return home


def gitconfig(home: Path, condition: str, target: str = "~/.gitconfig-work") -> None:
    (home / ".gitconfig").write_text(
        f'[user]\n\temail = {BASE}\n[includeIf "{condition}"]\n\tpath = {target}\n'
    )


def repository(path: Path, branch: str = "main") -> Path:
    repo = init_repo(path, branch)
    commit(repo, {"a.txt": "a\n"})
    return repo


def email_by_git(named: Path) -> str:
    """``git config user.email`` run in ``named`` as a shell there would (``PWD`` kept)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", PWD=str(named))
    found = subprocess.run(
        ["git", "config", "user.email"], cwd=named, env=env, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr
    return found.stdout.strip()


def email_by_diffchunk(named: Path) -> str | None:
    item = discover(str(named)).setting("user.email")
    return None if item is None else item.value


GITDIR_CASES = [
    # (condition, repository under home, the identity git gives)
    ("gitdir:~/work/", "work/x", WORK),
    ("gitdir:~/work/", "play/x", BASE),
    ("gitdir:~/work", "work/x", BASE),  # no trailing "/": the git directory itself
    ("gitdir:~/work/x/.git", "work/x", WORK),
    ("gitdir:~/work/x/.git/", "work/x", BASE),  # ".git/**": something below it
    ("gitdir/i:~/WORK/", "work/x", WORK),
    ("gitdir:~/WORK/", "work/x", BASE),
    ("gitdir:work/", "deep/down/work/x", WORK),  # "**/" in front
    ("gitdir:x/.git", "a/b/x", WORK),
    ("gitdir:~/src/**/client/", "src/a/b/client", WORK),
    ("gitdir:~/src/**/client/", "src/client", WORK),  # "**/" spans zero directories
    ("gitdir:~/src/*/client/", "src/a/b/client", BASE),  # "*" does not cross "/"
    ("gitdir:~/src/*/client/", "src/a/client", WORK),
    ("gitdir:~/s[rq]c/?/", "src/a", WORK),
    ("gitdir:./work/", "work/x", WORK),  # "./": the including file's directory
    ("gitdir:./work/", "elsewhere/work/x", BASE),
    ("onbranch:main", "x", WORK),
    ("hasconfig:remote.*.url:**", "x", BASE),  # no remote: git does not include either
    ("unknown:x", "x", BASE),
]


@pytest.mark.parametrize(("condition", "where", "expected"), GITDIR_CASES)
def test_gitdir_conditions_include_as_git_does(
    home: Path, condition: str, where: str, expected: str
) -> None:
    gitconfig(home, condition)
    repo = repository(home / where)
    assert email_by_git(repo) == expected  # the case is what it says
    assert email_by_diffchunk(repo) == expected


@pytest.mark.parametrize(
    ("condition", "branch", "expected"),
    [
        ("onbranch:feature/*", "feature/a", WORK),
        ("onbranch:feature/*", "main", BASE),
        ("onbranch:feature/*", "feature/a/b", BASE),  # "*" does not cross "/"
        ("onbranch:feature/", "feature/a/b", WORK),  # a trailing "/": "**" after it
        ("onbranch:feature/**", "feature/a/b", WORK),
        ("onbranch:**/b", "feature/a/b", WORK),
        ("onbranch:Main", "main", BASE),
    ],
)
def test_onbranch_conditions_include_as_git_does(
    home: Path, condition: str, branch: str, expected: str
) -> None:
    gitconfig(home, condition)
    repo = repository(home / "x")
    if branch != "main":
        git(repo, "checkout", "-q", "-b", branch)
    assert email_by_git(repo) == expected
    assert email_by_diffchunk(repo) == expected


def test_onbranch_on_a_detached_head_or_an_unborn_branch(home: Path) -> None:
    gitconfig(home, "onbranch:*")
    repo = repository(home / "x")
    git(repo, "checkout", "-q", "--detach")
    assert email_by_git(repo) == BASE
    assert email_by_diffchunk(repo) == BASE
    unborn = init_repo(home / "unborn", "fresh")  # HEAD names a branch with no commit yet
    assert email_by_git(unborn) == WORK
    assert email_by_diffchunk(unborn) == WORK


@pytest.mark.parametrize(
    ("condition", "expected"),
    [("gitdir:~/work/", WORK), ("gitdir:~/real/", WORK), ("gitdir:~/other/", BASE)],
)
def test_a_symlinked_repository_matches_by_its_path_and_its_real_path(
    home: Path, condition: str, expected: str
) -> None:
    gitconfig(home, condition)
    repository(home / "real" / "x")
    (home / "work").symlink_to(home / "real")
    named = home / "work" / "x"
    assert email_by_git(named) == expected
    assert email_by_diffchunk(named) == expected


def test_a_linked_worktree_matches_by_its_own_git_directory(home: Path) -> None:
    repo = repository(home / "x")
    git(repo, "worktree", "add", "-q", "-b", "side", str(home / "wt"))
    gitconfig(home, "gitdir:~/x/.git/worktrees/")
    assert email_by_git(home / "wt") == WORK
    assert email_by_diffchunk(home / "wt") == WORK
    assert email_by_diffchunk(repo) == BASE


def repository_config(repo: Path, condition: str, target: Path) -> None:
    """The repository's config names ``target`` when ``condition`` holds (written, not
    set by git: git would follow the includes already there)."""
    (repo / ".git" / "config").write_text(
        f"[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
        f'[includeIf "{condition}"]\n\tpath = {target}\n'
    )


def test_a_repository_includeif_obeys_the_bounds_of_include_path(
    home: Path, tmp_path: Path
) -> None:
    gitconfig(home, "unknown:x")
    repo = repository(home / "x")
    (tmp_path / "outside").write_text(f"[user]\n\temail = {WORK}\n")
    repository_config(repo, "gitdir:~/", tmp_path / "outside")
    assert email_by_git(repo) == WORK
    assert email_by_diffchunk(repo) == WORK
    policy = PathPolicy.from_paths([str(home)], "test")
    with roots_in_force(policy), pytest.raises(PathError, match=r"includeIf\.gitdir:~/\.path"):
        discover(str(repo))
    loop = repo / ".git" / "loop"
    loop.write_text('[includeIf "onbranch:main"]\n\tpath = loop\n')
    repository_config(repo, "gitdir:~/", loop)
    with pytest.raises(GitError, match="deeper than 10"):
        discover(str(repo))
    fifo = repo / ".git" / "fifo"
    os.mkfifo(fifo)
    repository_config(repo, "gitdir:~/", fifo)
    with pytest.raises(UnsafeRepository, match="not a regular file"):
        discover(str(repo))


def test_a_glob_the_repository_writes_is_matched_in_linear_time(home: Path) -> None:
    """A pattern that makes a backtracking matcher run for minutes ("*a" many times
    against a long name; git's own, asked here, does): the generous bound only
    proves it does not hang."""
    import time

    gitconfig(home, "unknown:x")
    repo = repository(home / ("a" * 200) / "x")
    with (repo / ".git" / "config").open("a") as config:  # written without running git
        for condition in (f"gitdir:{'*a' * 40}b/**", f"onbranch:{'*a' * 40}b"):
            config.write(f'[includeIf "{condition}"]\n\tpath = ~/.gitconfig-work\n')
    (repo / ".git" / "HEAD").write_text(f"ref: refs/heads/{'a' * 200}\n")
    started = time.monotonic()
    assert email_by_diffchunk(repo) == BASE
    assert time.monotonic() - started < 30
