"""The allowed roots hold for every directory git would read, and for every CLI path.

A repository inside the roots can point git elsewhere: ``core.worktree``, a
``.git`` file (``gitdir:``), alternates, each with ``..`` or through a
symbolic link.  The server, started with ``--allow-root``, refuses such a
repository before git runs, and shows nothing of the outside.  A diff cached
from a repository outside the roots runs no git there when a server with
roots reads it (every git the server starts is logged by a ``sitecustomize``
module).  The command line honours ``DIFFCHUNK_ALLOWED_ROOTS`` for every path
it reads or writes (``review --out``, ``export --out``, a diff file, ``--repo``).

The refusals share one server of the worker (:func:`guarded`, ``confined`` of
tests/conftest.py: a server start is its dearest part): its one allowed root holds a
directory per test, and the
outside a directory per test beside it, so each repository still sits inside the
roots and points out of them, by the same relative path, link or alternate.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from gitrepo import git, history_repo, run_git
from mcpkit import Caller, Confined, serve

from diffchunk.cli import main

SECRET = "outside-the-roots\n"


def _layout(tmp_path: Path) -> tuple[Path, Path]:
    """``(root, outside)``: the allowed root, and a directory beside it."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    return root, outside


class Guarded(Confined):
    """The worker's server with one allowed root (``confined`` of tests/conftest.py),
    and what the refusals ask of it."""

    def refused(self, repo: Path) -> dict[str, Any]:
        """What the server answers for ``repo``."""
        answers: dict[str, Any] = {}

        async def script(c: Caller) -> None:
            answers["worktree"] = await c.error("load_git_diff", absolute_repo_path=str(repo))
            answers["range"] = await c.error(
                "load_git_diff", absolute_repo_path=str(repo), revision_range="HEAD~1..HEAD"
            )

        self.server.run(script)
        return answers

    def nothing_of_the_outside(self) -> None:
        """No diff the server wrote holds a line of the outside."""
        for path in (self.server.directory / "cache").rglob("*.diff"):
            assert SECRET.strip() not in path.read_text(errors="replace"), path


@pytest.fixture
def guarded(confined: Confined) -> Guarded:
    """The worker's server with one allowed root, for the refusals of the module."""
    return Guarded(*confined)


@pytest.mark.parametrize("form", ["absolute", "relative"])
def test_core_worktree_outside_the_roots_path_traversal(
    guarded: Guarded, tmp_path: Path, form: str
) -> None:
    root, outside = guarded.layout(tmp_path)
    repo = history_repo(root / "repo", [{"a.py": "x = 1\n"}, {"a.py": "x = 2\n"}])
    (outside / "a.py").write_text(SECRET)
    # Relative to the git directory: ../../../../outside/<test>
    target = str(outside) if form == "absolute" else os.path.relpath(outside, repo / ".git")
    git(repo, "config", "core.worktree", target)
    answers = guarded.refused(repo)
    for text in answers.values():
        assert "outside the allowed roots" in text and "core.worktree" in text, text
    guarded.nothing_of_the_outside()


def test_core_worktree_through_a_link_outside_the_roots_symlink_escape(
    guarded: Guarded, tmp_path: Path
) -> None:
    root, outside = guarded.layout(tmp_path)
    repo = history_repo(root / "repo", [{"a.py": "x = 1\n"}, {"a.py": "x = 2\n"}])
    (outside / "a.py").write_text(SECRET)
    os.symlink(outside, root / "link")
    git(repo, "config", "core.worktree", "../../link")
    for text in guarded.refused(repo).values():
        assert "outside the allowed roots" in text, text
    guarded.nothing_of_the_outside()


def test_a_git_file_pointing_outside_the_roots_path_traversal(
    guarded: Guarded, tmp_path: Path
) -> None:
    root, outside = guarded.layout(tmp_path)
    real = history_repo(outside / "real", [{"a.py": SECRET}, {"a.py": SECRET * 2}])
    shutil.move(str(real / ".git"), str(outside / "real.git"))
    repo = root / "repo"
    repo.mkdir()
    # Relative to the repository: ../../../outside/<test>/real.git
    (repo / ".git").write_text(f"gitdir: {os.path.relpath(outside / 'real.git', repo)}\n")
    for text in guarded.refused(repo).values():
        assert "outside the allowed roots" in text and "gitdir" in text, text
    guarded.nothing_of_the_outside()


@pytest.mark.parametrize("through", ["path", "link"])
def test_alternates_outside_the_roots_symlink_escape(
    guarded: Guarded, tmp_path: Path, through: str
) -> None:
    root, outside = guarded.layout(tmp_path)
    source = history_repo(outside / "source", [{"a.py": SECRET}, {"a.py": SECRET * 2}])
    repo = root / "repo"
    run_git(tmp_path, "clone", "-q", "--shared", str(source), str(repo))
    alternates = repo / ".git" / "objects" / "info" / "alternates"
    if through == "link":  # a link inside the root to the objects outside
        os.symlink(source / ".git" / "objects", root / "objects")
        alternates.write_text(f"{root / 'objects'}\n")
    for text in guarded.refused(repo).values():
        assert "outside the allowed roots" in text and "alternate" in text, text
    guarded.nothing_of_the_outside()


def test_alternates_of_alternates_outside_the_roots_path_traversal(
    guarded: Guarded, tmp_path: Path
) -> None:
    root, outside = guarded.layout(tmp_path)
    source = history_repo(outside / "source", [{"a.py": SECRET}, {"a.py": SECRET * 2}])
    middle = root / "middle"
    run_git(tmp_path, "clone", "-q", "--shared", str(source), str(middle))
    repo = root / "repo"
    run_git(tmp_path, "clone", "-q", "--shared", str(middle), str(repo))
    # The repository's alternate is inside the root; that one's, followed by git, is not.
    middle_alternates = middle / ".git" / "objects" / "info" / "alternates"
    # Relative to the middle's objects: ../../../../../outside/<test>/source/.git/objects
    outside_objects = os.path.relpath(
        outside / "source" / ".git" / "objects", middle_alternates.parent.parent
    )
    middle_alternates.write_text(f"{outside_objects}\n")
    for text in guarded.refused(repo).values():
        assert "outside the allowed roots" in text and "alternate" in text, text


# --------------------------------------------------------------------------
# A diff cached from a repository outside the roots

LOG_GIT = '''\
"""Test hook: every git this process starts, with where it runs, one line each."""
import json
import os
import subprocess

_real_init = subprocess.Popen.__init__


def _logged_init(self, args, *rest, **kwargs):
    argv = [os.fsdecode(a) for a in args] if isinstance(args, (list, tuple)) else [str(args)]
    if argv and os.path.basename(argv[0]) == "git":
        env = kwargs.get("env") or {}
        where = [env.get(k, "") for k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")]
        with open(os.environ["DIFFCHUNK_TEST_GIT_LOG"], "a") as fh:
            fh.write(json.dumps([argv, where]) + "\\n")
    _real_init(self, args, *rest, **kwargs)


subprocess.Popen.__init__ = _logged_init
'''


def test_a_cached_diff_of_a_repository_outside_the_roots_runs_no_git_there(
    tmp_path: Path,
) -> None:
    root, outside = _layout(tmp_path)
    repo = history_repo(
        outside / "repo",
        [{"a.py": "def f():\n    return 1\n"}, {"a.py": "def f():\n    return 2\n"}],
    )
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(LOG_GIT)
    log = tmp_path / "git.log"
    env = {"PYTHONPATH": str(site), "DIFFCHUNK_TEST_GIT_LOG": str(log)}
    loaded: dict[str, Any] = {}

    async def load(c: Caller) -> None:  # a server without roots caches the diff
        loaded.update(
            await c.json(
                "load_git_diff", absolute_repo_path=str(repo), revision_range="HEAD~1..HEAD"
            )
        )
        listed = await c.json("list_chunks", absolute_file_path=loaded["file_path"])
        loaded["symbols"] = listed["chunks"][0]["file_details"][0].get("symbols")

    serve(tmp_path, load, env=env)
    assert loaded["symbols"]  # read from the repository, where git runs
    assert any(str(repo) in line for line in log.read_text().splitlines())  # the log works
    log.unlink()
    answers: dict[str, Any] = {}
    diff = {"absolute_file_path": loaded["file_path"]}

    async def read(c: Caller) -> None:  # a server whose roots leave the repository out
        answers["list_chunks"] = await c.json("list_chunks", **diff)
        answers["get_file_diff"] = await c.raw(
            "get_file_diff", **diff, file_path="a.py", context="symbol"
        )
        answers["open_file_version"] = await c.raw(
            "open_file_version", **diff, file_path="a.py", side="old"
        )
        answers["list_commits"] = await c.raw("list_commits", **diff)
        answers["open_file_version any file"] = await c.raw(
            "open_file_version", **diff, file_path="other.py"
        )
        answers["search_code"] = await c.raw("search_code", **diff, pattern="return")
        answers["find_references"] = await c.raw("find_references", **diff, symbol="f")
        answers["list_commits bodies"] = await c.raw("list_commits", **diff, include_body=True)
        answers["list_symbols"] = await c.json("list_symbols", **diff, file_path="a.py")

    serve(tmp_path, read, "--allow-root", str(root), env=env)
    started = log.read_text().splitlines() if log.exists() else []
    assert not [line for line in started if str(outside) in line], started
    (entry,) = answers["list_chunks"]["chunks"]  # listed, without symbols: git would run there
    assert entry["files"] == ["a.py"] and "symbols" not in entry["file_details"][0]
    for tool in (
        "get_file_diff",
        "open_file_version",
        "list_commits",
        "open_file_version any file",
        "search_code",
        "find_references",
        "list_commits bodies",
    ):
        assert answers[tool].is_error, tool
        text = answers[tool].content[0].text
        assert "root" in text, (tool, text)
    # Every changed symbol, from the hunks: the outlines' blobs would need git there.
    assert answers["list_symbols"]["symbols_from"] == "hunks"


# --------------------------------------------------------------------------
# The command line


@pytest.fixture
def cli_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """``(root, outside, repository in the root)`` with DIFFCHUNK_ALLOWED_ROOTS=root."""
    root, outside = _layout(tmp_path)
    repo = history_repo(root / "repo", [{"a.py": "x = 1\n"}, {"a.py": "x = 2\n"}])
    monkeypatch.setenv("DIFFCHUNK_ALLOWED_ROOTS", str(root))
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", str(tmp_path / "state"))
    return root, outside, repo


def _cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def test_review_out_outside_the_roots_path_traversal(cli_roots: tuple[Path, Path, Path]) -> None:
    root, _, repo = cli_roots
    out = root / ".." / "outside" / "chunks"
    result = _cli("review", "--repo", str(repo), "HEAD^!", "--out", str(out))
    assert result.exit_code == 1 and "outside the allowed roots" in result.output, result.output
    assert not out.exists()
    inside = root / "chunks"
    result = _cli("review", "--repo", str(repo), "HEAD^!", "--out", str(inside))
    assert result.exit_code == 0, result.output
    assert (inside / "index.json").exists()


def test_export_out_outside_the_roots_symlink_escape(cli_roots: tuple[Path, Path, Path]) -> None:
    root, outside, repo = cli_roots
    os.symlink(outside, root / "link")
    out = root / "link" / "review.md"
    result = _cli("export", "--repo", str(repo), "HEAD^!", "--out", str(out))
    assert result.exit_code == 1 and "outside the allowed roots" in result.output, result.output
    assert not (outside / "review.md").exists()
    result = _cli("export", "--repo", str(repo), "HEAD^!", "--out", str(root / "review.md"))
    assert result.exit_code == 0, result.output


def test_cli_paths_outside_the_roots_path_traversal(cli_roots: tuple[Path, Path, Path]) -> None:
    root, outside, repo = cli_roots
    other = history_repo(outside / "other", [{"b.py": "1\n"}, {"b.py": "2\n"}])
    diff = outside / "changes.diff"
    diff.write_text(git(other, "diff", "HEAD~1", "HEAD") + "\n")
    for args in (
        ("review", str(diff)),
        ("review", "--repo", str(other), "HEAD^!"),
        ("review", "--repo", str(root / ".." / "outside" / "other"), "HEAD^!"),
        ("status", str(diff)),
        ("export", str(diff)),
        ("mark", str(diff), "--chunk", "1"),
        ("hook", "install", "--repo", str(other)),
        ("file", "read", str(diff)),
    ):
        result = _cli(*args)
        assert result.exit_code != 0, (args, result.output)
        assert "outside the allowed roots" in result.output, (args, result.output)
    assert not (other / ".git" / "hooks" / "pre-push").exists()
    # A diff diffchunk cached (in its own directory) stays readable, as for the tools.
    loaded = _cli("review", "--repo", str(repo), "HEAD^!", "--json")
    assert loaded.exit_code == 0, loaded.output
    cached = json.loads(loaded.stdout)["summary"]["file_path"]
    assert _cli("review", cached, "--chunk", "1").exit_code == 0
