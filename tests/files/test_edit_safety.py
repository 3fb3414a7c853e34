"""The edit tools cannot be turned against git or the allowed roots.

- Git's own files are refused, whichever way the path reaches them: a work
  tree's ``.git`` directory, the ``.git`` file of a linked worktree, the git
  directory that file names, a bare repository, linked worktrees' and
  submodules' git directories, a link into any of them, git's global
  configuration.  The reproducer: an edit of ``.git/config`` adding
  ``core.fsmonitor`` had the next plain ``git status`` run a program.
- An edit resolves its path once and works on what it opened: a path swapped
  for a link to a file outside the roots, thousands of times while edits
  run, never has the outside file written (it was on the fifth try).
"""

from __future__ import annotations

import contextlib
import importlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from gitrepo import commit, git, run_git
from mcpkit import Caller, RunningServer

from diffchunk.cli.file import file as file_command
from diffchunk.errors import DiffchunkError, FileToolError
from diffchunk.files.edit import edit_content, revert_edit
from diffchunk.paths import PathPolicy

pytestmark = pytest.mark.usefixtures("backup_dir")

CHANGE = [{"search": "[core]", "replace": "[core]\n\tfsmonitor = /bin/false"}]


def _repository(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, {"a.py": "x = 1\n"})
    return repo


def _hook(repo: Path) -> Path:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\n[core]\nexit 0\n")
    return hook


def _worktree_git_file(repo: Path) -> Path:
    git(repo, "worktree", "add", "-q", str(repo.parent / "linked"))
    return repo.parent / "linked" / ".git"


def _worktree_git_dir(repo: Path) -> Path:
    _worktree_git_file(repo)
    config = repo / ".git" / "worktrees" / "linked" / "config.worktree"
    config.write_text("[core]\n")
    return config


def _separate_git_dir(repo: Path) -> Path:
    # The git directory a .git file names, under a name that says nothing.
    other = repo.parent / "other"
    other.mkdir()
    run_git(other, "init", "-q", "--separate-git-dir", str(other / "settings"))
    return other / "settings" / "config"


def _bare(repo: Path) -> Path:
    bare = repo.parent / "bare.git"
    git(repo, "clone", "-q", "--bare", str(repo), str(bare))
    return bare / "config"


def _submodule_git_dir(repo: Path) -> Path:
    sub = repo.parent / "sub"
    sub.mkdir()
    git(sub, "init", "-q")
    commit(sub, {"s.txt": "s\n"})
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub")
    return repo / ".git" / "modules" / "sub" / "config"


def _link_into_git_dir(repo: Path) -> Path:
    link = repo.parent / "settings.ini"
    link.symlink_to(repo / ".git" / "config")
    return link


def _global_config(repo: Path) -> Path:
    config = repo.parent / "home" / ".gitconfig"
    config.parent.mkdir()
    config.write_text("[core]\n")
    return config


GIT_FILES = {
    ".git/config of a work tree": lambda repo: repo / ".git" / "config",
    "a hook": _hook,
    "the .git file of a linked worktree": _worktree_git_file,
    "a linked worktree's git directory": _worktree_git_dir,
    "the git directory a .git file names": _separate_git_dir,
    "a bare repository's config": _bare,
    "a submodule's git directory": _submodule_git_dir,
    "a link to .git/config": _link_into_git_dir,
    "git's global configuration": _global_config,
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.mark.parametrize("case", GIT_FILES)
def test_the_edit_tools_refuse_git_s_own_files(tmp_path: Path, home: Path, case: str) -> None:
    target = GIT_FILES[case](_repository(tmp_path))
    if target.name != ".git":
        with open(target, "a") as fh:
            fh.write("[core]\n")
    before = target.read_bytes()
    for preview in (True, False):
        with pytest.raises(FileToolError, match="git") as caught:
            edit_content(str(target), CHANGE, preview=preview)
        assert "Edit files of the work tree" in str(caught.value.suggestion)
    with pytest.raises(FileToolError, match="git"):
        revert_edit(str(target))
    result = CliRunner().invoke(
        file_command, ["edit", str(target), "-s", "[core]", "-r", "[x]", "--apply"]
    )
    assert result.exit_code == 1 and "git" in str(result.exception), result.output
    assert target.read_bytes() == before


def test_files_beside_git_s_are_edited(tmp_path: Path) -> None:
    # The work tree, a file named like git's in it, and a directory that only
    # looks like a git directory by one of its names.
    repo = _repository(tmp_path)
    (repo / "refs").mkdir()
    (repo / "HEAD.txt").write_text("[core]\n")
    (repo / "docs" / ".github").mkdir(parents=True)
    for path in (repo / "a.py", repo / "HEAD.txt", repo / ".gitignore", repo / "docs/.github/x"):
        path.write_text("[core]\n")
        assert edit_content(str(path), CHANGE, preview=False).to_dict()["written"]


def test_an_edit_of_git_config_runs_no_repository_program(tmp_path: Path) -> None:
    # The reproducer: core.fsmonitor added to .git/config, then a plain git status.
    repo = _repository(tmp_path)
    marker = tmp_path / "PWNED"
    script = tmp_path / "monitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    change = [{"search": "[core]", "replace": f"[core]\n\tfsmonitor = {script}"}]
    with contextlib.suppress(FileToolError):
        edit_content(str(repo / ".git" / "config"), change, preview=False)
    subprocess.run(["git", "-C", str(repo), "status"], capture_output=True, check=False)
    assert not marker.exists()
    assert "fsmonitor" not in (repo / ".git" / "config").read_text()


def test_the_mcp_edit_tools_refuse_git_s_own_files(server: RunningServer, tmp_path: Path) -> None:
    # The worker's server, with no roots: every path is allowed, so the refusal is the
    # git directory's own.
    repo = _repository(tmp_path)
    config = repo / ".git" / "config"
    before = config.read_bytes()

    async def script(call: Caller) -> None:
        text = await call.error(
            "edit_content", absolute_file_path=str(config), changes=CHANGE, preview=False
        )
        assert "git directory" in text
        text = await call.error("revert_edit", absolute_file_path=str(config))
        assert "git directory" in text

    server.run(script)
    assert config.read_bytes() == before


# -- a path swapped for a link while edits run -------------------------------------------

SWAPPER = """
import os, sys
place, outside, kind = sys.argv[1:]
link, spare = place + ".link", place + ".spare"
while True:
    if kind == "file":
        os.symlink(outside, link)
        os.replace(link, place)  # now a link out of the root
        with open(spare, "w") as fh:
            fh.write("x = 1\\n")
        os.replace(spare, place)  # a real file again
    else:
        os.rename(place, spare)  # the directory steps aside
        os.symlink(outside, place)  # a link out of the root takes its name
        os.unlink(place)
        os.rename(spare, place)  # the directory again
"""


@pytest.fixture
def swapped(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[Path, Path, Path]]:
    """``(root, path edited, file outside)``: a process swaps the file (or its
    directory) for a link out of the root and back, as fast as it can."""
    kind = request.param
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    secret = outside / "a.txt"
    secret.write_text("x = 1\n")
    if kind == "file":
        place = root / "a.txt"
        place.write_text("x = 1\n")
        edited, points_to = place, secret
    else:
        place = root / "d"
        place.mkdir()
        (place / "a.txt").write_text("x = 1\n")
        edited, points_to = place / "a.txt", outside
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(place), str(points_to), kind])
    try:
        time.sleep(0.2)
        yield root, edited, secret
    finally:
        swapper.kill()
        swapper.wait()


@pytest.mark.parametrize("swapped", ["file", "directory"], indirect=True)
def test_edits_racing_a_link_swap_symlink_escape(
    swapped: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, edited, secret = swapped
    monkeypatch.setenv("DIFFCHUNK_ALLOWED_ROOTS", str(root))
    runner = CliRunner()
    args = ["edit", str(edited), "-s", "x = 1", "-r", "x = 2", "--exact", "--apply"]
    outcomes: dict[int, int] = {}
    for _ in range(2000):
        code = runner.invoke(file_command, args).exit_code
        outcomes[code] = outcomes.get(code, 0) + 1
        assert secret.read_text() == "x = 1\n", f"written outside the root ({outcomes})"
    revert = ["revert", str(edited)]
    for _ in range(200):
        runner.invoke(file_command, revert)
        assert secret.read_text() == "x = 1\n", "reverted outside the root"


@pytest.mark.parametrize("swapped", ["file"], indirect=True)
def test_the_edit_core_racing_a_link_swap_symlink_escape(
    swapped: tuple[Path, Path, Path],
) -> None:
    root, edited, secret = swapped
    policy = PathPolicy.from_paths([str(root)], "a test")
    for _ in range(1000):
        with contextlib.suppress(DiffchunkError):  # refused: a link out, or changed meanwhile
            edit_content(
                str(edited), [{"search": "x = 1", "replace": "x = 2"}], preview=False, policy=policy
            )
        assert secret.read_text() == "x = 1\n"


def test_the_mcp_edit_tools_check_the_roots_on_the_path_they_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check before the call resolves the path apart from the edit; with it
    # gone, the roots the edit is handed still refuse a file outside them.
    from mcp import Client

    from diffchunk.server import app

    app_module = importlib.import_module("diffchunk.server.app")  # the package's app is the server

    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    secret = outside / "a.txt"
    secret.write_text("x = 1\n")
    (root / "a.txt").symlink_to(secret)

    async def unchecked(*args: object, **kwargs: object) -> None:
        return None

    monkeypatch.setattr(app_module, "enforce_policy", unchecked)
    app_module.configure_policy(PathPolicy.from_paths([str(root)], "--allow-root"))
    change = [{"search": "x = 1", "replace": "x = 2"}]

    async def calls() -> list[str]:
        async with Client(app) as client:
            texts = []
            for tool, args in (
                ("edit_content", {"changes": change, "preview": False}),
                ("revert_edit", {}),
            ):
                result = await client.call_tool(
                    tool, {"absolute_file_path": str(root / "a.txt"), **args}
                )
                assert result.is_error
                texts.append(result.content[0].text)  # type: ignore[union-attr]
            return texts

    try:
        texts = anyio.run(calls)
    finally:
        app_module.configure_policy(None)
    assert all("outside the allowed roots" in text for text in texts), texts
    assert secret.read_text() == "x = 1\n"
