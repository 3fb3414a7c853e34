"""git's config files, read in Python (git never reads a repository's config for diffchunk).

:func:`parse` reads the text of one file as git's own parser does
(``config.c``: sections ``[core]``, ``[branch "Main"]`` and the old
``[branch.main]``, values with quotes, escapes ``\\n \\t \\b \\" \\\\`` and
line continuations, ``#``/``;`` comments, a key without ``=`` meaning true;
whitespace inside a value kept as git 2.45 and later keep it, where older
git made each character of it a space);
a line git would refuse is refused here (``bad config line N``).
``tests/git/test_config.py`` runs tricky files through both parsers.
:func:`render` writes items back in a form git reads as the same values.

:func:`read_files` reads config files with their ``include.path`` files
(relative to the including file, ``~`` expanded, missing ones skipped, at
most :data:`GIT_CONFIG_INCLUDE_DEPTH` deep, as git), and, given the
repository's :class:`Conditions`, the ``includeIf.<condition>.path`` files
whose condition holds, as git-config(1) defines them:

- ``gitdir:`` and ``gitdir/i:`` (case ignored, ASCII as git): the pattern,
  ``~/`` expanded, ``./`` the directory of the including file (its real path,
  taken literally), one not starting with ``/`` given ``**/`` in front, one
  ending in ``/`` given ``**`` after, against the repository's git directory
  (a linked worktree's own), its real path first, then its path as named
  (symlinks kept);
- ``onbranch:``: the pattern (``**`` after a trailing ``/``) against the
  branch ``HEAD`` names (read from the file, git not run; none when ``HEAD``
  is detached, or in a reftable repository, whose ``HEAD`` file names
  ``.invalid``);
- ``hasconfig:remote.*.url:`` is not followed (it would need every config
  read first), nor are unknown conditions (false in git too).

Patterns match by :func:`~diffchunk.git.globs.wildmatch_glob` (git's
wildmatch with ``WM_PATHNAME``: ``*`` stays within a segment, ``**/`` spans
zero or more directories), in linear time whatever a repository writes.
Without :class:`Conditions` (no repository) no ``includeIf`` is followed, as
git outside a repository.

Both kinds of include obey the same bounds.  Each
file is opened by :func:`~diffchunk.fdio.read_small_file`: a named pipe or a
device (which would block git forever) is refused, and so is a file larger
than :data:`GIT_CONFIG_MAX_BYTES`.  A file the repository
names (its own config's includes) must lie in the allowed roots
(:func:`~diffchunk.paths.check_in_roots`).

Reading a config runs nothing: values are data here, whatever they name.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from ..errors import GitError, UnsafeRepository
from ..fdio import FileTooLarge, NotAFile, read_small_file
from ..paths import Fingerprint, check_in_roots, fingerprint

GIT_CONFIG_MAX_BYTES = 4 << 20
"""The largest git config file diffchunk reads (a repository's, the user's, an
included one): a real config is a few kB; a larger one is refused, never read
into memory whole."""

GIT_CONFIG_FILES_KEPT = 64
"""Parsed git config files kept (with their stat) so that the next discovery of
a repository does not parse them again: a repository's, its includes, the
user's global and system files; a server meets a few dozen repositories."""

GIT_CONFIG_INCLUDE_DEPTH = 10
"""Includes followed within includes: git's own limit (``MAX_INCLUDE_DEPTH``),
past which git refuses the config too."""


# Line ends as git's config parser reads them (syntax, not bounds):
_NL = 0x0A
_CR = 0x0D
_SPACE = b" \t\n\v\f\r"
_BOM = b"\xef\xbb\xbf"
_ESCAPES = {ord("t"): "\t", ord("b"): "\b", ord("n"): "\n", ord("\\"): "\\", ord('"'): '"'}


class ConfigItem(NamedTuple):
    """One ``key = value`` of a config file.

    ``key``: section and name lowercased, the subsection as written
    (``branch.Main.remote``); ``value``: None for a key written without
    ``=`` (true for a boolean); ``scope``: ``system``, ``global``, ``local``
    or ``worktree``; ``origin``: the file it was read from.
    """

    key: str
    value: str | None
    scope: str
    origin: str


class _BadLine(Exception):
    def __init__(self, line: int) -> None:
        self.line = line


def _is_key_char(c: int) -> bool:
    return (0x30 <= c <= 0x39) or (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A) or c == 0x2D


def _is_alpha(c: int) -> bool:
    return (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A)


def _lower(c: int) -> int:
    return c + 32 if 0x41 <= c <= 0x5A else c


class _Source:
    """The characters of a file as git's ``get_next_char`` gives them: ``\\r\\n`` is one
    newline, and the end of the file is a newline with ``eof`` set."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.eof = False
        self.line = 1

    def next(self) -> int:
        data, pos = self.data, self.pos
        if pos >= len(data):
            self.eof = True
            return _NL
        c = data[pos]
        self.pos = pos + 1
        if c == _CR and pos + 1 < len(data) and data[pos + 1] == _NL:
            self.pos += 1
            c = _NL
        if c == _NL:
            self.line += 1
        return c


def parse(data: bytes) -> list[tuple[str, str | None]]:
    """The ``(key, value)`` items of a config file's text, in order.

    Raises :class:`ValueError` naming the first line git would refuse.
    """
    try:
        return _parse(_Source(data[3:] if data.startswith(_BOM) else data))
    except _BadLine as bad:
        raise ValueError(f"bad config line {bad.line}") from None


def _parse(src: _Source) -> list[tuple[str, str | None]]:
    items: list[tuple[str, str | None]] = []
    section = bytearray()
    comment = False
    while True:
        c = src.next()
        if c == _NL:
            if src.eof:
                return items
            comment = False
            continue
        if comment or c in _SPACE:
            continue
        if c in (0x23, 0x3B):  # '#', ';'
            comment = True
            continue
        if c == 0x5B:  # '['
            section = _section(src)
            section.append(0x2E)
            continue
        if not _is_alpha(c):
            raise _BadLine(src.line)
        name = bytearray(section)
        name.append(_lower(c))
        items.append(_key_value(src, name))


def _section(src: _Source) -> bytearray:
    """``[name]``, ``[name "subsection"]`` or ``[name.sub]`` (after the ``[``)."""
    name = bytearray()
    while True:
        c = src.next()
        if src.eof:
            raise _BadLine(src.line)
        if c == 0x5D:  # ']'
            if not name:
                raise _BadLine(src.line)
            return name
        if c in _SPACE:
            return _subsection(src, name, c)
        if not _is_key_char(c) and c != 0x2E:
            raise _BadLine(src.line)
        name.append(_lower(c))


def _subsection(src: _Source, name: bytearray, c: int) -> bytearray:
    """``"subsection"]`` after a section name and spaces: kept as written."""
    while True:
        if c == _NL:
            raise _BadLine(src.line - 1)
        c = src.next()
        if c not in _SPACE:
            break
    if c != 0x22:  # '"'
        raise _BadLine(src.line)
    name.append(0x2E)
    while True:
        c = src.next()
        if c == _NL:
            raise _BadLine(src.line - 1)
        if c == 0x22:
            break
        if c == 0x5C:  # '\\': the next character as itself
            c = src.next()
            if c == _NL:
                raise _BadLine(src.line - 1)
        name.append(c)
    if src.next() != 0x5D or not name:
        raise _BadLine(src.line)
    return name


def _key_value(src: _Source, name: bytearray) -> tuple[str, str | None]:
    """The rest of a key's name and its value (after the key's first letter)."""
    while True:
        c = src.next()
        if src.eof or not _is_key_char(c):
            break
        name.append(_lower(c))
    while c in (0x20, 0x09):
        c = src.next()
    value: str | None = None
    if c != _NL:
        if c != 0x3D:  # '='
            raise _BadLine(src.line)
        value = _value(src)
    return name.decode("utf-8", "surrogateescape"), value


def _value(src: _Source) -> str:
    """A value after ``=``: outer whitespace dropped, inner whitespace kept verbatim (as
    git 2.45 and later, and git's documentation, read it), quotes and escapes."""
    out = bytearray()
    quote = comment = False
    trim = 0  # where trailing whitespace starts (0: none pending)
    while True:
        c = src.next()
        if c == _NL:
            if quote:
                raise _BadLine(src.line - 1)
            if trim:
                del out[trim:]
            return out.decode("utf-8", "surrogateescape")
        if comment:
            continue
        if c in _SPACE and not quote:
            if not trim:
                trim = len(out)
            if out:
                out.append(c)
            continue
        if not quote and c in (0x23, 0x3B):
            comment = True
            continue
        trim = 0
        if c == 0x5C:
            c = src.next()
            if c == _NL:
                continue  # a line continuation (or the end of the file)
            escaped = _ESCAPES.get(c)
            if escaped is None:
                raise _BadLine(src.line)
            out += escaped.encode()
            continue
        if c == 0x22:
            quote = not quote
            continue
        out.append(c)


# --------------------------------------------------------------------------
# Files and includes


class Conditions(NamedTuple):
    """What ``includeIf`` conditions are tested against, for one repository.

    ``git_dirs``: its git directory, real path first, then as named (the same
    when no symlink leads to it); ``branch``: the branch ``HEAD`` names
    (``main``), None when detached or unknown.
    """

    git_dirs: tuple[str, ...]
    branch: str | None


class _Reading(NamedTuple):
    """One :func:`read_files` call: where items go and what includes see."""

    items: list[ConfigItem]
    home: str | None
    conditions: Conditions | None


def read_files(
    files: Sequence[tuple[str, str]],
    *,
    home: str | None = None,
    conditions: Conditions | None = None,
) -> list[ConfigItem]:
    """The items of the config ``files`` (``(scope, path)`` in git's order), with
    their includes; a missing file has none.  ``home``: what ``~`` is in an include
    (default: this process's home); ``conditions``: the repository's, for
    ``includeIf`` (None: none followed)."""
    reading = _Reading([], home, conditions)
    for scope, path in files:
        _read_file(path, scope, 0, reading)
    return reading.items


def _read_file(path: str, scope: str, depth: int, reading: _Reading) -> None:
    for key, value in parsed_file(path):
        reading.items.append(ConfigItem(key, value, scope, path))
        if key == "include.path" or (
            key.startswith("includeif.")
            and key.endswith(".path")
            and key.count(".") >= 2
            and _condition_holds(key[len("includeif.") : -len(".path")], path, reading)
        ):
            _include(path, scope, depth, value, reading, key)


_PARSED: OrderedDict[tuple[str, Fingerprint], list[tuple[str, str | None]]] = OrderedDict()
_PARSED_LOCK = threading.Lock()


def parsed_file(path: str) -> list[tuple[str, str | None]]:
    """The items of one config file (none if it does not exist), without its includes.

    A file already parsed and unchanged since (same :func:`~diffchunk.paths.fingerprint`)
    is not read again: every discovery reads the same few files.
    """
    try:
        key = (path, fingerprint(os.stat(path)))
    except (OSError, ValueError):
        key = None
    if key is not None:
        with _PARSED_LOCK:
            if key in _PARSED:
                _PARSED.move_to_end(key)
                return _PARSED[key]
    data = _config_text(path)
    if data is None:
        return []
    try:
        parsed = parse(data)
    except ValueError as exc:
        raise GitError(
            f"The git config file {path} cannot be read: {exc} (git refuses it too).",
            suggestion="Fix that line of the file (`git config --file FILE --list` "
            "shows where git stops), then try again.",
        ) from None
    if key is not None:
        with _PARSED_LOCK:
            _PARSED[key] = parsed
            while len(_PARSED) > GIT_CONFIG_FILES_KEPT:
                _PARSED.popitem(last=False)
    return parsed


def _config_text(path: str) -> bytes | None:
    """A config file's bytes, None if there is none (``/dev/null``: none)."""
    if path == os.devnull:
        return None
    try:
        return read_small_file(path, GIT_CONFIG_MAX_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except NotAFile:
        raise UnsafeRepository(
            f"The git config file {path} is not a regular file (a named pipe or a "
            "device, which would make git wait forever); it was not read.",
            suggestion="Replace it with a regular file, or remove it.",
        ) from None
    except FileTooLarge:
        raise UnsafeRepository(
            f"The git config file {path} is larger than {GIT_CONFIG_MAX_BYTES} bytes; "
            "it was not read.",
            suggestion="Remove what does not belong in it.",
        ) from None
    except OSError as exc:
        raise GitError(
            f"The git config file {path} cannot be read: {exc.strerror or exc}.",
            suggestion="Check its permissions.",
        ) from None


def _include(
    origin: str, scope: str, depth: int, value: str | None, reading: _Reading, key: str
) -> None:
    """Read the file an ``include.path`` (or a holding ``includeIf``) of ``origin``
    names, as git would."""
    name = "include.path" if key == "include.path" else f"includeIf.{key[10:-5]}.path"
    if not value:
        if value is None:
            raise GitError(
                f"{name} in {origin} has no value (git refuses it too).",
                suggestion="Give it the path of the file to include, or remove it.",
            )
        return
    if depth + 1 > GIT_CONFIG_INCLUDE_DEPTH:
        raise GitError(
            f"The includes of {origin} go deeper than {GIT_CONFIG_INCLUDE_DEPTH} files "
            "(git refuses this too: an include loop?).",
            suggestion="Remove the include that leads back to a file already included.",
        )
    target = _expand_user(value, reading.home)
    target = os.path.join(os.path.dirname(origin), target)
    if scope in ("local", "worktree"):
        check_in_roots(os.path.realpath(target), what=f"the file included by {origin} ({name})")
    _read_file(target, scope, depth + 1, reading)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_GLOB_SPECIAL = str.maketrans({c: "\\" + c for c in "\\*?["})


def _condition_holds(condition: str, origin: str, reading: _Reading) -> bool:
    """Whether the ``includeIf`` ``condition`` of a key in ``origin`` holds (git's
    ``include_condition_is_true``; unknown conditions are false)."""
    conditions = reading.conditions
    if conditions is None:
        return False
    for prefix, fold in (("gitdir:", False), ("gitdir/i:", True)):
        if condition.startswith(prefix):
            pattern = _gitdir_pattern(condition[len(prefix) :], origin, reading.home)
            return any(_wildmatch(pattern, text, fold) for text in conditions.git_dirs)
    if condition.startswith("onbranch:") and conditions.branch is not None:
        return _wildmatch(_dir_pattern(condition[len("onbranch:") :]), conditions.branch, False)
    return False


def _gitdir_pattern(pattern: str, origin: str, home: str | None) -> str:
    """A ``gitdir:`` pattern as git matches it (``prepare_include_condition_pattern``)."""
    pattern = _expand_user(pattern, home) if pattern.startswith("~") else pattern
    if pattern.startswith("./"):
        directory = os.path.dirname(os.path.realpath(origin))
        pattern = directory.translate(_GLOB_SPECIAL) + pattern[1:]
    elif not pattern.startswith("/"):
        pattern = "**/" + pattern
    return _dir_pattern(pattern)


def _dir_pattern(pattern: str) -> str:
    return pattern + "**" if pattern.endswith("/") else pattern


def _wildmatch(pattern: str, text: str, fold: bool) -> bool:
    # Only a conditional include needs the matcher (and its imports): `diffchunk review`
    # reads a config before it starts git diff, with as few modules loaded as it can.
    from .globs import wildmatch_glob

    if fold:
        pattern, text = pattern.translate(_ASCII_LOWER), text.translate(_ASCII_LOWER)
    return wildmatch_glob(pattern).matches(text)


def _expand_user(path: str, home: str | None) -> str:
    if path == "~" or path.startswith("~/"):
        return (home or os.path.expanduser("~")) + path[1:]
    return os.path.expanduser(path) if path.startswith("~") else path


# --------------------------------------------------------------------------
# Values


_TRUE = ("true", "yes", "on")
_FALSE = ("false", "no", "off", "")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
_NUMBER = re.compile(
    r"(?P<sign>[+-]?)(?P<digits>0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)(?P<unit>.*)", re.S
)


def as_bool(value: str | None) -> bool | None:
    """A boolean value as git reads one (None: not a boolean)."""
    if value is None:
        return True
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    number = as_size(value, signed=True)
    return None if number is None else number != 0


def as_size(value: str | None, *, signed: bool = False) -> int | None:
    """A number with an optional ``k``/``m``/``g`` unit as git reads one (C's base-0
    integers: ``0x`` hexadecimal, a leading ``0`` octal), None if it is not one."""
    if value is None:
        return None
    found = _NUMBER.fullmatch(value.lstrip(" \t\n\v\f\r"))
    if found is None or (found["sign"] == "-" and not signed):
        return None
    unit = _UNITS.get(found["unit"].lower())
    if unit is None:
        return None
    digits = found["digits"]
    if digits[:2].lower() == "0x":
        number = int(digits[2:], 16)
    else:
        number = int(digits, 8 if digits.startswith("0") else 10)
    return (-number if found["sign"] == "-" else number) * unit


def last(items: Iterable[ConfigItem], key: str) -> ConfigItem | None:
    """The item that sets ``key`` last (the one git uses), if any."""
    found = None
    for item in items:
        if item.key == key:
            found = item
    return found


# --------------------------------------------------------------------------
# Writing


def _quoted(text: str) -> str:
    escaped = (
        text.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\n", "\\n")
        .replace("\t", "\\t")
        .replace("\b", "\\b")
    )
    return f'"{escaped}"'


def render(items: Iterable[tuple[str, str]]) -> bytes:
    """A config file holding ``items`` (``(key, value)``, keys as :class:`ConfigItem`
    spells them), grouped by section in the order each section first appears.

    A key whose subsection holds a newline or NUL cannot be written: the
    caller validates keys first.
    """
    sections: dict[tuple[str, str | None], list[tuple[str, str]]] = {}
    for key, value in items:
        section, _, rest = key.partition(".")
        middle, _, name = rest.rpartition(".")
        group = sections.setdefault((section, middle if "." in rest else None), [])
        group.append((name, value))
    lines: list[str] = []
    for (section, subsection), entries in sections.items():
        if subsection is None:
            lines.append(f"[{section}]")
        else:
            sub = subsection.replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'[{section} "{sub}"]')
        lines += [f"\t{name} = {_quoted(value)}" for name, value in entries]
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape") if lines else b""


def by_key(items: Iterable[ConfigItem]) -> Mapping[str, list[ConfigItem]]:
    """The items of each key, in order."""
    grouped: dict[str, list[ConfigItem]] = {}
    for item in items:
        grouped.setdefault(item.key, []).append(item)
    return grouped
