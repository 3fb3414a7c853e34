"""A private git directory per repository: git reads only the config diffchunk writes.

git runs with ``GIT_DIR`` set to a directory of diffchunk's cache
(``<cache>/git/<key>``, keyed by the real git directory), made again cheaply
at every discovery (:func:`prepare`: nothing is written that did not change):

* ``config``: written here (:func:`written_config`), from an allow-list of
  keys that hold data only, with validated values: the repository format
  (``core.repositoryformatversion``, ``extensions.objectFormat``,
  ``extensions.refStorage``), what changes how the work tree reads
  (``core.autocrlf``, ``core.eol``, ``core.filemode``, ``core.symlinks``,
  ``core.ignorecase``, ``core.precomposeunicode``, ``core.checkStat``,
  ``core.trustctime``, ``core.bigFileThreshold``), what revisions need
  (``branch.<name>.remote``/``.merge`` and ``remote.<name>.fetch``, for
  ``@{upstream}``), and the user's attributes file (``core.attributesFile``,
  or git's default one, named by its real path since git's ``HOME`` is
  diffchunk's).  Values come from the system, global, repository (with its
  includes) and worktree configs, as git would read them
  (:mod:`~diffchunk.git.config`).  Nothing else is copied: no promisor
  (``extensions.partialClone``, ``remote.*.promisor``), url, filter, diff
  driver, hook, pager, fsmonitor, include or other key;
* ``HEAD``: a copy (git refuses a ``HEAD`` that is a link to a file);
* ``objects/``: empty, with ``objects/info/alternates`` naming the real object
  directory (git follows the real one's own alternates from there);
* links to the real ``refs``, ``packed-refs``, ``reftable``, ``logs/refs``,
  ``logs/HEAD``, ``shallow``, ``info/attributes``, ``info/grafts``, the
  pseudo-refs (``ORIG_HEAD``, ``FETCH_HEAD``...) and any ``sharedindex.*`` of a
  split index, each to its real path (checked against the roots and, for a
  file, to be a regular file).  Per-worktree refs of a linked worktree
  (``refs/bisect``, ``refs/worktree``) come from the common directory.

A value a key of the allow-list may not have (``core.filemode = maybe``) is
refused with the message git gives too; an unknown repository extension is
refused (git refuses it too, and it may change what the files mean).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from ..errors import CacheWriteError, GitError, UnsafeRepository
from ..fdio import replace_file
from ..paths import cache_dir, check_in_roots
from .config import Conditions, ConfigItem, as_bool, as_size, by_key, last, read_files, render
from .discovery import Location, small_file

# Booleans copied as git reads them.
_BOOLEANS = (
    "core.filemode",
    "core.symlinks",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.trustctime",
)
# Repository extensions git 2.39 and later know, and whether their value is copied.
_EXTENSIONS = {
    "objectformat": True,
    "refstorage": True,
    "noop": False,
    "preciousobjects": False,
    "partialclone": False,
    "worktreeconfig": False,
    "relativeworktrees": False,
    "noop-v1": False,
}
# Keys written that change what ``git diff A B`` prints (see Repo.diff_config).
_SHAPING = frozenset(
    {
        "core.repositoryformatversion",
        "core.bigFileThreshold",
        "core.attributesFile",
        "extensions.objectformat",
    }
)
_V1_ONLY = ("objectformat", "refstorage", "relativeworktrees", "noop-v1")
_PSEUDO_REFS = (
    "ORIG_HEAD",
    "FETCH_HEAD",
    "MERGE_HEAD",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "REBASE_HEAD",
    "BISECT_HEAD",
    "AUTO_MERGE",
)


class Sandbox(NamedTuple):
    """How git runs for one repository: its private git directory and the real files
    it reads besides (see the module docstring)."""

    git_dir: str  # the private git directory (GIT_DIR)
    index_file: str | None  # the real index (GIT_INDEX_FILE), None for a bare repository
    config: bytes  # the config written
    shaping: bytes  # the part of it that shapes a commit range's diff (a cache key)
    settings: tuple[ConfigItem, ...]  # every config item read (diffchunk's own keys)
    partial_clone: bool  # the repository lazily fetches missing objects (git won't here)


_HOMES: set[str] = set()


def git_home() -> str:
    """The ``HOME`` git runs with: an empty directory of diffchunk's, so that no dotfile
    of the user's (``~/.gitconfig``, ``~/.config/git/*``) is read by git."""
    home = os.path.join(cache_dir(), "git", "home")
    if home not in _HOMES:
        _make_dirs(home)
        _HOMES.add(home)
    return home


def prepare(location: Location) -> Sandbox:
    """Make (or refresh) the private git directory of the repository at ``location``."""
    settings = _settings(location)
    items = written_config(location, settings)
    config = render(items)
    key = hashlib.sha256(location.git_dir.encode("utf-8", "surrogateescape")).hexdigest()
    private = os.path.join(cache_dir(), "git", key[:32])
    try:
        _build(private, location, config)
    except OSError as exc:
        raise CacheWriteError(
            f"Cannot create diffchunk's git directory of the repository ({private}): "
            f"{exc.strerror or exc}.",
            suggestion="Set DIFFCHUNK_CACHE_DIR to a writable directory, then retry.",
        ) from None
    index = None
    if location.root is not None:
        index = _real_file(os.path.join(location.git_dir, "index"), "The index")
        index = index or os.path.join(location.git_dir, "index")
    partial = any(
        (item.key == "extensions.partialclone" and item.value)
        or (
            item.key.startswith("remote.")
            and item.key.endswith(".promisor")
            and as_bool(item.value)
        )
        for item in location.config
    )
    shaping = render(item for item in items if item[0] in _SHAPING)
    return Sandbox(private, index, config, shaping, tuple(settings), partial)


def _settings(location: Location) -> list[ConfigItem]:
    """Every config item git would read for this repository, in git's order."""
    files = _user_files()
    files.append(("local", os.path.join(location.common_dir, "config")))
    if any(i.scope == "worktree" for i in location.config):
        files.append(("worktree", os.path.join(location.git_dir, "config.worktree")))
    git_dirs = (location.git_dir, location.named_git_dir or location.git_dir)
    conditions = Conditions(tuple(dict.fromkeys(git_dirs)), _branch(location.git_dir))
    return read_files(files, conditions=conditions)


_REFTABLE_HEAD = "refs/heads/.invalid"
"""What ``HEAD`` names in a reftable repository (whose real ``HEAD`` is in the
table): no branch, for ``includeIf "onbranch:..."``."""


def _branch(git_dir: str) -> str | None:
    """The branch ``HEAD`` names (``includeIf "onbranch:..."``), None when detached."""
    head = _head(git_dir).decode("utf-8", "surrogateescape")
    if not head.startswith("ref:"):
        return None
    ref = head[4:].strip(" \t\n\v\f\r")
    if not ref.startswith("refs/heads/") or ref == _REFTABLE_HEAD:
        return None
    return ref[len("refs/heads/") :]


def _user_files() -> list[tuple[str, str]]:
    """The system and global config files git would read, from this process's environment."""
    env = os.environ
    files: list[tuple[str, str]] = []
    if not as_bool(env.get("GIT_CONFIG_NOSYSTEM", "false")):
        files.append(("system", env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    if "GIT_CONFIG_GLOBAL" in env:
        files.append(("global", env["GIT_CONFIG_GLOBAL"]))
    else:
        files.append(("global", os.path.join(_xdg_config_home(), "git", "config")))
        files.append(("global", os.path.join(os.path.expanduser("~"), ".gitconfig")))
    return files


def _xdg_config_home() -> str:
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    return xdg if os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".config")


# --------------------------------------------------------------------------
# The config written


def written_config(location: Location, settings: list[ConfigItem]) -> list[tuple[str, str]]:
    """The items of the private ``config`` (see the module docstring)."""
    version = _format_version(location.config)
    items: list[tuple[str, str]] = [
        ("core.repositoryformatversion", str(version)),
        ("core.bare", "false" if location.root is not None else "true"),
    ]
    grouped = by_key(settings)
    for key in _BOOLEANS:
        found = _last_bool(grouped.get(key))
        if found is not None:
            items.append((key, found))
    items += _core_values(grouped)
    if version == 1:
        items += _extensions(location.config)
    else:
        _no_v1_extension(location.config)
    items.append(("gc.auto", "0"))
    items += _revision_items(settings)
    return items


def _refuse(item: ConfigItem, expected: str) -> GitError:
    return GitError(
        f"{item.key} in {item.origin} is {item.value!r}, not {expected} (git refuses it too).",
        suggestion=f"Fix it (`git config {item.key} ...`), or remove it.",
    )


def _last_bool(found: list[ConfigItem] | None) -> str | None:
    if not found:
        return None
    value = as_bool(found[-1].value)
    if value is None:
        raise _refuse(found[-1], "true or false")
    return "true" if value else "false"


def _core_values(grouped: Mapping[str, list[ConfigItem]]) -> list[tuple[str, str]]:
    """core.autocrlf, core.eol, core.checkStat, core.bigFileThreshold, core.attributesFile."""
    items: list[tuple[str, str]] = []
    autocrlf = grouped.get("core.autocrlf")
    if autocrlf:
        item = autocrlf[-1]
        if item.value is not None and item.value.lower() == "input":
            items.append(("core.autocrlf", "input"))
        else:
            value = _last_bool([item])
            assert value is not None
            items.append(("core.autocrlf", value))
    eol = grouped.get("core.eol")
    if eol and eol[-1].value is not None and eol[-1].value.lower() in ("lf", "crlf", "native"):
        items.append(("core.eol", eol[-1].value.lower()))  # git takes anything else as unset
    check = grouped.get("core.checkstat")
    if check and (check[-1].value or "").lower() in ("default", "minimal"):
        items.append(("core.checkStat", (check[-1].value or "").lower()))  # else: git's default
    threshold = grouped.get("core.bigfilethreshold")
    if threshold:
        size = as_size(threshold[-1].value)
        if size is None:
            raise _refuse(threshold[-1], "a size in bytes (such as 512m)")
        items.append(("core.bigFileThreshold", str(size)))
    attributes = _attributes_file(grouped.get("core.attributesfile"))
    if attributes is not None:
        items.append(("core.attributesFile", attributes))
    return items


def _attributes_file(found: list[ConfigItem] | None) -> str | None:
    """The real path of the attributes file git would read besides the repository's."""
    if found and found[-1].value:
        item = found[-1]
        named = item.value or ""
        if named == "~" or named.startswith("~/"):
            named = os.path.expanduser("~") + named[1:]
        named = os.path.join(os.path.dirname(item.origin), named)
        if item.scope in ("local", "worktree"):
            check_in_roots(os.path.realpath(named), what=f"core.attributesFile of {item.origin}")
    else:
        named = os.path.join(_xdg_config_home(), "git", "attributes")
    return _real_file(named, "The attributes file")


def _format_version(config: tuple[ConfigItem, ...]) -> int:
    found = last(config, "core.repositoryformatversion")
    if found is None:
        return 0
    version = as_size(found.value, signed=True)
    if version not in (0, 1):
        raise GitError(
            f"core.repositoryformatversion in {found.origin} is {found.value!r}; git "
            "reads versions 0 and 1 only.",
            suggestion="Review the repository with a git that reads it (plain git), "
            "exporting the diff to a file.",
        )
    return version


def _extensions(config: tuple[ConfigItem, ...]) -> list[tuple[str, str]]:
    """The repository extensions copied (version 1); an unknown one is refused."""
    items: dict[str, str] = {}
    for item in config:
        if not item.key.startswith("extensions."):
            continue
        name = item.key[len("extensions.") :]
        if name not in _EXTENSIONS:
            raise GitError(
                f"The repository uses the extension {name!r} ({item.origin}), which "
                "diffchunk does not know.",
                suggestion="Export the diff with plain git (`git diff A B > x.diff`) and "
                "load that file.",
            )
        if not _EXTENSIONS[name]:
            continue
        value = item.value or ""
        allowed = ("sha1", "sha256") if name == "objectformat" else ("files", "reftable")
        if value not in allowed:
            raise _refuse(item, " or ".join(allowed))
        items[f"extensions.{name}"] = value
    return list(items.items())


def _no_v1_extension(config: tuple[ConfigItem, ...]) -> None:
    """Refuse what git refuses in a version 0 repository: an extension of version 1."""
    for item in config:
        if item.key.startswith("extensions.") and item.key[len("extensions.") :] in _V1_ONLY:
            raise GitError(
                f"The repository is of version 0 but {item.origin} sets {item.key}, an "
                "extension of version 1 (git refuses it too).",
                suggestion="Set `git config core.repositoryformatversion 1`, or remove "
                "the extension.",
            )


def _revision_items(settings: list[ConfigItem]) -> list[tuple[str, str]]:
    """``branch.<name>.remote``/``.merge`` and ``remote.<name>.fetch`` with usable values."""
    items: list[tuple[str, str]] = []
    remotes: dict[str, str] = {}
    for item in settings:
        section, _, rest = item.key.partition(".")
        name, _, variable = rest.rpartition(".")
        if not name or not _plain(name) or item.value is None or not _plain(item.value):
            continue
        if section == "branch" and variable == "remote":
            remotes[item.key] = item.value  # one value: the last wins
        elif (section, variable) in (("branch", "merge"), ("remote", "fetch")):
            items.append((item.key, item.value))
    return [*remotes.items(), *items]


def _plain(text: str) -> bool:
    """Text git could only read as a name (no line break, NUL or other control)."""
    return bool(text) and len(text) < 4096 and text.isprintable()


# --------------------------------------------------------------------------
# The private directory


def _build(private: str, location: Location, config: bytes) -> None:
    for directory in ("objects/info", "logs", "info"):
        _make_dirs(os.path.join(private, directory))
    _write_if_changed(os.path.join(private, "config"), config)
    _write_if_changed(os.path.join(private, "HEAD"), _head(location.git_dir))
    alternates = _alternates_line(location.objects[0])
    _write_if_changed(os.path.join(private, "objects", "info", "alternates"), alternates)
    kept = set()
    for name, target in _links(location):
        _link(os.path.join(private, name), target)
        kept.add(name)
    for name in os.listdir(private):
        if name.startswith("sharedindex.") and name not in kept:
            _link(os.path.join(private, name), None)  # its split index is gone


def _alternates_line(path: str) -> bytes:
    """``path`` as a line of an alternates file: C-quoted when git would misread it plain
    (a line break, a leading quote or ``#``), as git itself quotes one."""
    raw = os.fsencode(path)
    if not (b"\n" in raw or b"\r" in raw or raw.startswith((b'"', b"#"))):
        return raw + b"\n"
    quoted = bytearray(b'"')
    for byte in raw:
        if byte in (0x22, 0x5C):
            quoted += b"\\" + bytes([byte])
        elif byte < 0x20 or byte == 0x7F:
            quoted += b"\\%03o" % byte
        else:
            quoted.append(byte)
    return bytes(quoted) + b'"\n'


def _head(git_dir: str) -> bytes:
    """The content of the repository's ``HEAD`` (a link to a ref written as a symref)."""
    head = os.path.join(git_dir, "HEAD")
    if os.path.islink(head):
        return b"ref: " + os.fsencode(os.readlink(head)) + b"\n"
    return small_file(head, "HEAD") or b""


def _links(location: Location) -> Iterator[tuple[str, str | None]]:
    """``(name in the private directory, real target or None)`` for every link kept."""
    common, git_dir = location.common_dir, location.git_dir
    yield "refs", _real_dir(os.path.join(common, "refs"))
    yield "reftable", _real_dir(os.path.join(common, "reftable"))
    yield "logs/refs", _real_dir(os.path.join(common, "logs", "refs"))
    for name, base, what in (
        ("packed-refs", common, "packed-refs"),
        ("shallow", common, "The shallow file"),
        ("info/attributes", common, "info/attributes"),
        ("info/grafts", common, "info/grafts"),
        ("logs/HEAD", git_dir, "The reflog of HEAD"),
        *((ref, git_dir, ref) for ref in _PSEUDO_REFS),
    ):
        yield name, _real_file(os.path.join(base, name), what)
    yield from _shared_indexes(location)


def _shared_indexes(location: Location) -> Iterator[tuple[str, str | None]]:
    if location.root is None:
        return
    try:
        names = [n for n in os.listdir(location.git_dir) if n.startswith("sharedindex.")]
    except OSError:
        return
    for name in names:
        yield name, _real_file(os.path.join(location.git_dir, name), "A shared index")


def _real_dir(path: str) -> str | None:
    real = os.path.realpath(path)
    if not os.path.isdir(real):
        return None
    return check_in_roots(real, what=f"{path}")


def _real_file(path: str, what: str) -> str | None:
    """The real path of the regular file ``path`` (None: none there), checked against the
    roots; anything but a regular file is refused (git would wait on a pipe)."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError:
        return None
    check_in_roots(real, what=f"{what} ({path})")
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeRepository(
            f"{what} ({path}) is not a regular file: a named pipe or a device there "
            "would make git wait forever, so the repository is not read.",
            suggestion="Replace it with the regular file git expects, or review "
            "another repository.",
        )
    return real


def _make_dirs(path: str) -> None:
    os.makedirs(path, mode=0o700, exist_ok=True)


def _write_if_changed(path: str, data: bytes) -> None:
    try:
        with open(path, "rb") as fh:
            if fh.read(len(data) + 1) == data:
                return
    except OSError:
        pass
    replace_file(path, data, mode=0o600, durable=False)


def _link(path: str, target: str | None) -> None:
    """Make ``path`` a link to ``target`` (no link when None), replacing what was there."""
    try:
        current: str | None = os.readlink(path)
    except OSError:
        current = None
    if current == target:
        return
    if target is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        return
    temporary = f"{path}.{os.urandom(4).hex()}.tmp"
    os.symlink(target, temporary)
    try:
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
