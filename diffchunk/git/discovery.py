"""Find a repository's directories in Python, as git would, without running git there.

From a directory, :func:`locate` walks up as git's ``setup_git_directory``
does: in each directory a ``.git`` file (``gitdir: X``, relative to the
directory holding it) or a ``.git`` directory, else the directory itself as
a git directory (a bare repository, or the inside of a ``.git``), stopping at
``GIT_CEILING_DIRECTORIES``, at a file system boundary (unless
``GIT_DISCOVERY_ACROSS_FILESYSTEM``), and at the edge of the allowed roots.
A git directory has a valid ``HEAD`` and ``objects``/``refs`` in its common
directory (``commondir`` of a linked worktree or submodule).  The work tree
follows ``core.bare`` and ``core.worktree`` of the repository's own config
(and ``config.worktree`` with ``extensions.worktreeConfig``), read the way git
reads them for this (no includes; ignored in a linked worktree's common
config), relative to the git directory.

Invariants:

* every small file is read by :func:`~diffchunk.fdio.read_small_file`
  (non-blocking, regular files only, bounded): a named pipe or a device where
  git expects a file is refused (:class:`~diffchunk.errors.UnsafeRepository`)
  before git could block on it;
* every directory git would read, the work tree, the git directory, the
  common directory, the object directory and each alternate (followed as git
  follows them, :data:`GIT_ALTERNATES_DEPTH` deep), is a real
  path checked against the roots in force
  (:func:`~diffchunk.paths.check_in_roots`) before anything in it is read;
* the ownership check git makes of a discovered repository
  (``safe.directory``) is not made: it protects against a repository's
  config running programs, and no config of a repository reaches git here
  (:mod:`~diffchunk.git.sandbox`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from typing import NamedTuple

from ..errors import GitError, NotARange, PathError, UnsafeRepository
from ..fdio import FileTooLarge, NotAFile, read_small_file
from ..paths import check_in_roots, expand, policy_in_force, within
from .config import ConfigItem, as_bool, last, parsed_file

GIT_SMALL_FILE_BYTES = 1 << 20
"""The largest small file of a repository read to find it (``HEAD``, a ``.git``
file, ``commondir``, ``objects/info/alternates``): git's own bound for a
``.git`` file; real ones are a line or a few."""

GIT_ALTERNATES_DEPTH = 5
"""Alternates of alternates followed: git stops at this depth too (it ignores
deeper ones with an error)."""


class Location(NamedTuple):
    """Where a repository's parts are (real paths).

    ``root``: the work tree (None: bare); ``git_dir``: this work tree's git
    directory; ``common_dir``: the one shared by linked worktrees;
    ``objects``: the object directories git reads, the repository's first,
    then its alternates; ``config``: the repository's own config items
    (``common_dir/config``, then ``config.worktree`` when enabled), without
    includes; ``named_git_dir``: the git directory as the path given names it,
    symlinks kept (what git's ``includeIf "gitdir:..."`` also matches; empty:
    the same as ``git_dir``).
    """

    root: str | None
    git_dir: str
    common_dir: str
    objects: tuple[str, ...]
    config: tuple[ConfigItem, ...]
    named_git_dir: str = ""

    @property
    def directories(self) -> tuple[str, ...]:
        """Every directory of the repository git reads."""
        found = [self.git_dir, self.common_dir, *self.objects]
        if self.root is not None:
            found.insert(0, self.root)
        return tuple(dict.fromkeys(found))


def small_file(path: str, what: str) -> bytes | None:
    """The bytes of a small file of a repository; None if there is none.

    A named pipe, a device or an oversized file raises
    :class:`UnsafeRepository`: git would wait on it, or read it whole.
    """
    try:
        return read_small_file(path, GIT_SMALL_FILE_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except NotAFile:
        raise UnsafeRepository(
            f"{what} ({path}) is not a regular file: a named pipe or a device there "
            "would make git wait forever, so the repository is not read.",
            suggestion="Replace it with the regular file git expects, or review "
            "another repository.",
        ) from None
    except FileTooLarge:
        raise UnsafeRepository(
            f"{what} ({path}) is larger than {GIT_SMALL_FILE_BYTES} bytes; git expects "
            "a line or a few, so the repository is not read.",
            suggestion="Repair the repository (`git fsck`), or review another one.",
        ) from None
    except OSError as exc:
        raise GitError(
            f"{what} ({path}) cannot be read: {exc.strerror or exc}.",
            suggestion="Check the permissions of the repository.",
        ) from None


def locate(path: str) -> Location:
    """The repository containing the absolute directory ``path``.

    Raises :class:`NotARange` when ``path`` is not a directory in a
    repository, :class:`PathError` when a directory of the repository lies
    outside the allowed roots, :class:`UnsafeRepository` when a file git would
    read is not a regular file, :class:`GitError` when git would refuse the
    repository too.
    """
    expanded = expand(path)
    if not os.path.isdir(expanded):
        what = "does not exist" if not os.path.exists(expanded) else "is not a directory"
        raise NotARange(
            f"The repository path {path!r} {what}.",
            suggestion="Pass the absolute path of a git working tree (or a bare repository).",
        )
    start = os.path.realpath(expanded)
    check_in_roots(start, what=f"the repository path {path!r}")
    for directory in _upwards(start, path):
        found = _git_dir_in(directory)
        if found is not None:
            location = _located(found, directory, via_dot_git=True)
            named = os.path.join(_as_named(directory, start, expanded), ".git")
            return location._replace(named_git_dir=_named_if_same(named, location.git_dir))
        if _is_git_directory(directory):
            location = _located(directory, directory, via_dot_git=False)
            named = _as_named(directory, start, expanded)
            return location._replace(named_git_dir=_named_if_same(named, location.git_dir))
    raise NotARange(
        f"{path!r} is not inside a git repository.",
        suggestion="Pass the absolute path of a git working tree, or run `git init` there first.",
    )


def _as_named(directory: str, start: str, given: str) -> str:
    """``directory`` (``start`` or a parent of it, real paths) as the path ``given``
    (whose real path is ``start``) names it: as many components taken off."""
    named = os.path.normpath(given)
    for _ in range(start.count("/") - directory.count("/") if directory != "/" else 0):
        named = os.path.dirname(named)
    return named


def _named_if_same(named: str, real: str) -> str:
    """``named`` when it leads to ``real`` (a ``.git`` file's target keeps its real path,
    as git reads it), else empty."""
    return named if named != real and os.path.realpath(named) == real else ""


def _upwards(start: str, shown: str) -> Iterator[str]:
    """``start`` and its parents, as far as git's discovery (and the roots) go."""
    ceilings = _ceilings()
    across = as_bool(os.environ.get("GIT_DISCOVERY_ACROSS_FILESYSTEM", "false")) or False
    policy = policy_in_force()
    device = os.stat(start).st_dev
    directory = start
    while True:
        yield directory
        parent = os.path.dirname(directory)
        if parent == directory or directory in ceilings or parent in ceilings:
            return
        if policy is not None and not any(within(parent, r) for r in policy.roots):
            raise PathError(
                f"{shown!r} is in no git repository within the allowed roots "
                f"({', '.join(policy.roots)}): the search stopped at {directory}, and a "
                "repository above it would lie outside the allowed roots.",
                suggestion="Pass a path inside a repository that lies in the roots; "
                + policy.remedy,
            )
        try:
            if not across and os.stat(parent).st_dev != device:
                return
        except OSError:
            return
        directory = parent


def _ceilings() -> set[str]:
    value = os.environ.get("GIT_CEILING_DIRECTORIES", "")
    return {os.path.realpath(p) for p in value.split(os.pathsep) if os.path.isabs(p)}


def _git_dir_in(directory: str) -> str | None:
    """The git directory a ``.git`` file or directory in ``directory`` names (real path)."""
    dot_git = os.path.join(directory, ".git")
    try:
        st = os.stat(dot_git)
    except OSError:
        return None
    if stat.S_ISREG(st.st_mode):
        return _gitfile_target(dot_git)
    if stat.S_ISDIR(st.st_mode):
        real = check_in_roots(os.path.realpath(dot_git), what=f"the git directory {dot_git}")
        return real if _is_git_directory(real) else None
    return None  # git passes over anything else named .git


def _gitfile_target(dot_git: str) -> str:
    """The git directory a ``.git`` file points to (``gitdir: X``), checked."""
    data = small_file(dot_git, "The .git file") or b""
    text = data.decode("utf-8", "surrogateescape").rstrip("\r\n")
    if not text.startswith("gitdir: ") or len(text) < 9:
        raise GitError(
            f"{dot_git} is not a valid .git file (it should say `gitdir: PATH`).",
            suggestion="Repair it, or remove it if the directory is not a repository.",
        )
    named = os.path.join(os.path.dirname(dot_git), text[len("gitdir: ") :])
    real = check_in_roots(
        os.path.realpath(named), what=f"the git directory {dot_git} points to (gitdir)"
    )
    if not _is_git_directory(real):
        raise GitError(
            f"{dot_git} points to {named}, which is not a git repository.",
            suggestion="Repair the .git file (a moved worktree or submodule: "
            "`git worktree repair` in the main repository).",
        )
    return real


_OBJECT_ID = re.compile(rb"[0-9a-f]{40}")


def _is_git_directory(directory: str) -> bool:
    """Whether git takes ``directory`` for a git directory: a valid ``HEAD``, and
    ``objects`` and ``refs`` directories in its common directory.  (What is
    only stat'ed comes first: a directory that merely holds a file named
    ``HEAD`` is passed over without reading it.)"""
    head = os.path.join(directory, "HEAD")
    linked = os.path.lexists(os.path.join(directory, "commondir"))
    if not os.path.lexists(head) or not (linked or _has_stores(directory)):
        return False
    if os.path.islink(head):
        try:
            if not os.readlink(head).startswith("refs/"):
                return False
        except OSError:
            return False
    else:
        data = small_file(head, "HEAD")
        if data is None or not _valid_head(data):
            return False
    return not linked or _has_stores(common_dir_of(directory))


def _has_stores(common: str) -> bool:
    """Whether ``common`` holds the ``objects`` and ``refs`` directories git requires."""
    return all(
        os.path.isdir(os.path.join(common, name)) and os.access(os.path.join(common, name), os.X_OK)
        for name in ("objects", "refs")
    )


def _valid_head(data: bytes) -> bool:
    if data.startswith(b"ref:"):
        return data[4:].lstrip(b" \t\n\v\f\r").startswith(b"refs/")
    return _OBJECT_ID.match(data) is not None


def common_dir_of(git_dir: str) -> str:
    """The common directory of ``git_dir``: what its ``commondir`` file names, else itself."""
    named = small_file(os.path.join(git_dir, "commondir"), "The commondir file")
    if named is None:
        return git_dir
    text = named.decode("utf-8", "surrogateescape").rstrip("\r\n")
    return os.path.realpath(os.path.join(git_dir, text))


def _located(git_dir: str, directory: str, *, via_dot_git: bool) -> Location:
    """The rest of a repository found at ``git_dir`` (from ``directory``)."""
    git_dir = check_in_roots(os.path.realpath(git_dir), what="the git directory")
    linked = os.path.exists(os.path.join(git_dir, "commondir"))
    common = check_in_roots(common_dir_of(git_dir), what=f"the common directory of {git_dir}")
    config = _repository_config(git_dir, common)
    settings = config if not linked or _worktree_config(config) else ()
    root = _work_tree(git_dir, directory, via_dot_git, settings)
    if root is not None:
        check_in_roots(root, what=f"the work tree of {git_dir}")
    objects = check_in_roots(
        os.path.realpath(os.path.join(common, "objects")), what=f"the objects of {common}"
    )
    return Location(root, git_dir, common, (objects, *_alternates(objects)), tuple(config))


def _repository_config(git_dir: str, common: str) -> list[ConfigItem]:
    """The repository's config as git reads it to set itself up (no includes)."""
    items = _config_file(os.path.join(common, "config"), "local")
    if _worktree_config(items):
        items += _config_file(os.path.join(git_dir, "config.worktree"), "worktree")
    return items


def _worktree_config(items: list[ConfigItem]) -> bool:
    found = last(items, "extensions.worktreeconfig")
    return found is not None and as_bool(found.value) is True


def _config_file(path: str, scope: str) -> list[ConfigItem]:
    return [ConfigItem(k, v, scope, path) for k, v in parsed_file(path)]


def _work_tree(
    git_dir: str, directory: str, via_dot_git: bool, settings: list[ConfigItem] | tuple[()]
) -> str | None:
    """The work tree git would use (None: bare), from ``core.bare``/``core.worktree``."""
    bare_item = last(settings, "core.bare")
    bare = None if bare_item is None else as_bool(bare_item.value)
    if bare_item is not None and bare is None:
        raise GitError(
            f"core.bare in {bare_item.origin} is {bare_item.value!r}, not true or false "
            "(git refuses it too).",
            suggestion="Fix it with `git config core.bare false` (or true).",
        )
    worktree = last(settings, "core.worktree")
    if worktree is not None and bare is not True:
        if not worktree.value:
            raise GitError(f"core.worktree in {worktree.origin} is empty (git refuses it too).")
        named = os.path.join(git_dir, worktree.value)
        real = check_in_roots(
            os.path.realpath(named), what=f"the work tree of {git_dir} (core.worktree)"
        )
        if not os.path.isdir(real):
            raise GitError(
                f"The work tree {named} (core.worktree in {worktree.origin}) is not a directory.",
                suggestion="Fix core.worktree, or remove it.",
            )
        return real
    if bare is True:
        return None
    if via_dot_git:
        return directory
    if bare is False and os.path.basename(git_dir) == ".git":
        return os.path.dirname(git_dir)  # from inside the .git directory of a work tree
    if bare is False:
        raise GitError(
            f"{directory!r} is inside a git directory whose working tree cannot be found.",
            suggestion="Pass the path of the working tree instead.",
        )
    return None


def _alternates(objects: str, depth: int = 1) -> list[str]:
    """The alternate object directories git follows from ``objects`` (real paths, checked)."""
    if depth > GIT_ALTERNATES_DEPTH:
        return []
    listed = small_file(os.path.join(objects, "info", "alternates"), "The alternates file")
    found: list[str] = []
    for line in (listed or b"").split(b"\n"):
        entry = _alternate_entry(line)
        if not entry:
            continue
        real = os.path.realpath(os.path.join(objects, entry))
        if not os.path.isdir(real) or real == objects or real in found:
            continue  # git skips it too
        check_in_roots(real, what=f"an alternate object directory of {objects}")
        found.append(real)
        found += [a for a in _alternates(real, depth + 1) if a not in found]
    return found


_C_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
}


def _alternate_entry(line: bytes) -> str:
    """One line of an alternates file as a path ("" for a blank line or a comment);
    a line that starts with a quote is C-quoted, as git writes one."""
    text = line.decode("utf-8", "surrogateescape")
    if not text or text.startswith("#"):
        return ""
    if not text.startswith('"'):
        return text
    out: list[str] = []
    i = 1
    while i < len(text) and text[i] != '"':
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            following = text[i + 1]
            if following in _C_ESCAPES:
                out.append(_C_ESCAPES[following])
                i += 2
                continue
            digits = text[i + 1 : i + 4]
            if len(digits) == 3 and all(d in "01234567" for d in digits):
                out.append(chr(int(digits, 8)))
                i += 4
                continue
        out.append(char)
        i += 1
    return "".join(out)
