"""Find the repository a path belongs to, once, and remember how to run git there."""

from __future__ import annotations

import os
import subprocess
from typing import NamedTuple

from ..errors import GitError
from ..paths import expand
from .runner import GitCommand, command_failed, split_z


class Repo(NamedTuple):
    """A discovered repository.

    ``root`` is the top of the working tree (``None`` for a bare repository);
    ``git_dir`` is this worktree's git directory and ``common_dir`` the one
    shared by all worktrees (hooks, objects, the diffchunk cache of the hook).
    """

    root: str | None
    git_dir: str
    common_dir: str
    git: GitCommand

    @property
    def bare(self) -> bool:
        return self.root is None

    @property
    def path(self) -> str:
        """The directory that names the repository to a user."""
        return self.root if self.root is not None else self.git_dir


def discover(path: str) -> Repo:
    """The repository containing the absolute directory ``path``.

    Raises :class:`GitError` when ``path`` is not a directory in a repository.
    """
    expanded = expand(path)
    if not os.path.isdir(expanded):
        what = "does not exist" if not os.path.exists(expanded) else "is not a directory"
        raise GitError(
            f"The repository path {path!r} {what}.",
            suggestion="Pass the absolute path of a git working tree (or a bare repository).",
        )
    # Two probes side by side: where the repository is (with the top of its
    # working tree), and the filter drivers its config defines, asked from
    # ``path`` too (checked below to be the repository later commands use).
    probe = GitCommand(("-C", expanded))
    proc, filters = probe.run_all(
        [
            [
                "rev-parse",
                "--is-bare-repository",
                "--absolute-git-dir",
                "--git-common-dir",
                "--show-toplevel",
            ],
            _FILTERS_PROBE,
        ]
    )
    # One answer per line; the last, the top of the working tree, is taken
    # whole (a directory name may hold any character but NUL).
    lines = proc.stdout.decode("utf-8", "surrogateescape").split("\n", 3)
    if len(lines) == 4:
        lines[3] = lines[3].removesuffix("\n")
    lines = [line for line in lines if line]
    # --show-toplevel fails, after the other three answered, in a bare
    # repository or inside a .git directory.
    if proc.returncode != 0 and len(lines) != 3:
        message = proc.stderr.decode("utf-8", "replace").strip()
        if "not a git repository" in message.lower():
            raise GitError(
                f"{path!r} is not inside a git repository.",
                suggestion="Pass the absolute path of a git working tree, or run `git init` there first.",
            )
        raise command_failed("git rev-parse", proc.returncode, proc.stderr)
    bare = lines[0].strip() == "true"
    git_dir = os.path.realpath(lines[1])
    common_dir = os.path.realpath(os.path.join(expanded, lines[2]))
    root: str | None = None
    if not bare:
        if proc.returncode == 0 and len(lines) > 3 and lines[3]:
            root = os.path.realpath(lines[3])
        elif os.path.basename(git_dir) == ".git":
            # ``path`` is inside the .git directory of an ordinary repository.
            root = os.path.dirname(git_dir)
        else:
            raise GitError(
                f"{path!r} is inside a git directory whose working tree cannot be found.",
                suggestion="Pass the path of the working tree instead.",
            )
    location = ("-C", root) if root is not None else (f"--git-dir={git_dir}",)
    git = GitCommand(location)
    if root is not None and os.path.realpath(os.path.join(root, ".git")) != git_dir:
        # A worktree, a submodule or core.worktree: git started in ``root``
        # may find another repository (with other filters) than from ``path``.
        filters = git.run(_FILTERS_PROBE, check=False)
    git = git.with_filters_neutralised(_filter_names(filters))
    return Repo(root=root, git_dir=git_dir, common_dir=common_dir, git=git)


_FILTERS_PROBE = ["config", "-z", "--get-regexp", r"^filter\."]


def _filter_names(proc: subprocess.CompletedProcess[bytes]) -> list[str]:
    """Names of every ``filter.<name>.*`` driver in any config file git reads.

    ``proc``: the run of :data:`_FILTERS_PROBE`.
    """
    if proc.returncode != 0:  # 1: no such keys
        return []
    names: dict[str, None] = {}
    for item in split_z(proc.stdout):
        key = item.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
        middle = key[len("filter.") :]
        if "." in middle:
            names.setdefault(middle.rsplit(".", 1)[0], None)
    return list(names)
