"""Find the repository a path belongs to, once, and remember how to run git there."""

from __future__ import annotations

import os
import subprocess
from typing import NamedTuple

from ..errors import GitError, NotARange
from ..paths import expand
from .process import command_failed
from .runner import GitCommand, split_z


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
    # The config that shapes git diff's output beyond its options (diff
    # drivers, core.bigFileThreshold, core.attributesFile): part of the
    # cache key of a commit range.
    diff_config: bytes = b""

    @property
    def bare(self) -> bool:
        return self.root is None

    @property
    def path(self) -> str:
        """The directory that names the repository to a user."""
        return self.root if self.root is not None else self.git_dir


def discover(path: str, *, timeout: float | None = None) -> Repo:
    """The repository containing the absolute directory ``path``.

    Raises :class:`GitError` when ``path`` is not a directory in a repository
    (:class:`~diffchunk.errors.GitTimeout` when a git probe runs past
    ``timeout`` seconds).
    """
    expanded = expand(path)
    if not os.path.isdir(expanded):
        what = "does not exist" if not os.path.exists(expanded) else "is not a directory"
        raise NotARange(
            f"The repository path {path!r} {what}.",
            suggestion="Pass the absolute path of a git working tree (or a bare repository).",
        )
    # Two probes side by side: where the repository is (with the top of its
    # working tree), and the filter drivers its config defines, asked from
    # ``path`` too (checked below to be the repository later commands use).
    probe = GitCommand(("-C", expanded))
    proc, filters = probe.run_all([["rev-parse", *_WHERE], _CONFIG_PROBE], timeout=timeout)
    # One answer per line.  --show-toplevel fails, after the other three
    # answered, in a bare repository or inside a .git directory.
    lines = _lines(proc.stdout)
    if len(lines) > (4 if proc.returncode == 0 else 3):
        # A directory name holds a newline: one answer per run instead.
        answers = probe.run_all([["rev-parse", flag] for flag in _WHERE[1:]], timeout=timeout)
        lines = lines[:1] + [_whole(a.stdout) for a in answers if a.returncode == 0]
    if proc.returncode != 0 and len(lines) != 3:
        message = proc.stderr.decode("utf-8", "replace").strip()
        if "not a git repository" in message.lower():
            raise NotARange(
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
    if root is None:
        location: tuple[str, ...] = (f"--git-dir={git_dir}",)
    elif os.path.realpath(os.path.join(root, ".git")) == git_dir:
        location = ("-C", root)
    else:
        # A linked worktree, a submodule or core.worktree: git started in
        # ``root`` could find another repository (an enclosing one, for a
        # core.worktree inside it) or none, so both directories are named.
        location = ("-C", root, f"--git-dir={git_dir}", f"--work-tree={root}")
    git = GitCommand(location)
    if len(location) > 2:
        # The filter drivers of the repository those commands reach: from
        # ``path`` git may have read another one's config.
        filters = git.run(_CONFIG_PROBE, check=False, timeout=timeout)
    git = git.with_filters_neutralised(_filter_names(filters))
    return Repo(root, git_dir, common_dir, git, _diff_config(filters))


# Filter drivers (what a working-tree diff could run), and what else in the
# config changes git diff's output (see Repo.diff_config).
_CONFIG_PROBE = [
    "config",
    "-z",
    "--get-regexp",
    r"^filter\.|^diff\.|^core\.(bigfilethreshold|attributesfile)$",
]
# What discover() asks rev-parse, one answer per line.
_WHERE = ("--is-bare-repository", "--absolute-git-dir", "--git-common-dir", "--show-toplevel")


def _whole(stdout: bytes) -> str:
    """The one answer of a rev-parse run (which ends it with a newline)."""
    return stdout.decode("utf-8", "surrogateescape").removesuffix("\n")


def _lines(stdout: bytes) -> list[str]:
    """The answers of a rev-parse run, one per line."""
    text = _whole(stdout)
    return text.split("\n") if text else []


def _filter_names(proc: subprocess.CompletedProcess[bytes]) -> list[str]:
    """Names of every ``filter.<name>.*`` driver in any config file git reads.

    ``proc``: the run of :data:`_CONFIG_PROBE`.
    """
    if proc.returncode != 0:  # 1: no such keys
        return []
    names: dict[str, None] = {}
    for item in split_z(proc.stdout):
        key = item.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
        if not key.startswith("filter."):
            continue
        middle = key[len("filter.") :]
        if "." in middle:
            names.setdefault(middle.rsplit(".", 1)[0], None)
    return list(names)


def _diff_config(proc: subprocess.CompletedProcess[bytes]) -> bytes:
    """The ``diff.*`` and ``core.*`` items of the :data:`_CONFIG_PROBE` run, in order."""
    if proc.returncode != 0:
        return b""
    return b"\0".join(item for item in split_z(proc.stdout) if not item.startswith(b"filter."))
