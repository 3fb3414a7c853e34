"""Find the repository a path belongs to, once, and remember how to run git there.

:func:`discover` finds the repository's directories in Python
(:mod:`~diffchunk.git.discovery`, checked against the allowed roots), makes
its private git directory (:mod:`~diffchunk.git.sandbox`), and returns a
:class:`Repo` whose :class:`~diffchunk.git.runner.GitCommand` runs git there
and nowhere else.  No git process runs in the repository to find it.
"""

from __future__ import annotations

from typing import NamedTuple

from .config import ConfigItem, as_bool, last
from .discovery import locate
from .runner import GitCommand
from .sandbox import prepare


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
    # The config git is given that shapes git diff's output beyond its options
    # (core.*, the repository format): part of the cache key of a commit range.
    diff_config: bytes = b""
    # Every config item git itself would read (system, global, the repository's
    # with its includes): what diffchunk reads of its own keys (diffchunk.*) and
    # of core.hooksPath.  Never given to git.
    settings: tuple[ConfigItem, ...] = ()
    # The repository is a partial clone: a missing object is an error here, never
    # a fetch.
    partial_clone: bool = False

    @property
    def bare(self) -> bool:
        return self.root is None

    @property
    def path(self) -> str:
        """The directory that names the repository to a user."""
        return self.root if self.root is not None else self.git_dir

    def setting(self, key: str) -> ConfigItem | None:
        """The config item that sets ``key`` (lowercased section and name) last."""
        return last(self.settings, key)

    def bool_setting(self, key: str) -> bool | None:
        """``key`` read as a boolean (None: unset); a value that is not one raises ValueError."""
        item = self.setting(key)
        if item is None:
            return None
        value = as_bool(item.value)
        if value is None:
            raise ValueError(f"{key} is {item.value!r}, not true or false")
        return value


def discover(path: str) -> Repo:
    """The repository containing the absolute directory ``path``.

    Raises :class:`~diffchunk.errors.NotARange` when ``path`` is not a
    directory in a repository, :class:`~diffchunk.errors.PathError` when a
    directory of the repository lies outside the allowed roots,
    :class:`~diffchunk.errors.UnsafeRepository` when a file git would read
    could block it, :class:`~diffchunk.errors.GitError` when git would refuse
    the repository too.
    """
    location = locate(path)
    sandbox = prepare(location)
    git = GitCommand.sandboxed(
        sandbox.git_dir,
        location.root,
        sandbox.index_file,
        location.directories,
        partial_clone=sandbox.partial_clone,
    )
    return Repo(
        location.root,
        location.git_dir,
        location.common_dir,
        git,
        sandbox.shaping,
        sandbox.settings,
        sandbox.partial_clone,
    )
