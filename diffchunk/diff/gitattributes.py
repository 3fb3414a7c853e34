"""Evaluate one ``.gitattributes`` file the way git does, without a repository.

Used when a diff file comes without its repository: the caller passes the
repository's top-level ``.gitattributes`` and :class:`GitattributesFile`
answers :meth:`~GitattributesFile.lookup` like ``git check-attr`` would.

Rules followed (from git's documentation, checked against ``git check-attr``
in the tests):

- One ``pattern attr...`` per line; blank lines and ``#`` comments are skipped;
  a pattern may be C-quoted (``"with space.txt" -diff``).
- Patterns are ``.gitignore``-like, relative to the repository root: no ``/``
  matches the basename at any depth, a ``/`` anchors the pattern, ``**``
  spans directories.  Unlike ``.gitignore``, a pattern that matches a
  directory does not match the files inside it (``docs/`` matches no file;
  write ``docs/**``), and negative patterns (``!pattern``) are ignored with a
  warning.
- ``attr`` sets, ``-attr`` unsets, ``!attr`` makes unspecified again,
  ``attr=value`` gives a value.  For each attribute the last matching line
  wins.
- Macros: ``[attr]name attr1 -attr2`` defines ``name``; setting ``name`` on a
  path also applies its attributes (unless a later line decides them).  The
  built-in macro ``binary`` is ``-diff -merge -text``.
- A line naming an invalid attribute is ignored whole (with a warning), as
  are lines longer than 2048 bytes; files over 100 MB are refused.

Where this can differ from git: only this one file is read, as if it were at
the repository root.  Nested ``.gitattributes`` files in subdirectories,
``$GIT_DIR/info/attributes``, ``core.attributesFile`` / the global and system
attributes files are not read, and matching is case-sensitive (git with
``core.ignoreCase=true`` folds case).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence

from ..errors import InvalidArgument, PathError
from ..git.globs import CompiledGlob, attributes_glob
from ..limits import BINARY_SNIFF_BYTES
from ..paths import resolve_regular_file
from .attributes import WANTED, Attributes, AttrValue

MAX_LINE_LENGTH = 2048
"""Longer lines of a .gitattributes file are ignored: git ignores them."""

MAX_FILE_SIZE = 100 * 1024 * 1024
"""Larger .gitattributes files are refused: git refuses them."""

ATTRIBUTE_MACRO_DEPTH = 64
"""Macros expanded within macros at most: a macro naming itself (directly or
through others) must not recurse forever; real macros nest once or twice."""


logger = logging.getLogger(__name__)


_UNSPECIFIED = object()  # "!attr": decided, and the decision is "unspecified"
_State = tuple[str, "AttrValue | object"]
_BLANK = " \t\r\n"
_NAME_CHARS = frozenset("-._0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_BUILTIN_MACROS: dict[str, tuple[_State, ...]] = {
    "binary": (("diff", False), ("merge", False), ("text", False)),
}
_C_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    '"': '"',
    "\\": "\\",
}


def _valid_name(name: str) -> bool:
    return bool(name) and not name.startswith("-") and all(c in _NAME_CHARS for c in name)


def _unquote(line: str) -> tuple[str, str] | None:
    """Split a C-quoted pattern off ``line`` (which starts with ``"``)."""
    out: list[str] = []
    raw = bytearray()
    i, n = 1, len(line)
    while i < n:
        c = line[i]
        if c == '"':
            if raw:
                out.append(raw.decode("utf-8", errors="replace"))
            return "".join(out), line[i + 1 :]
        if c == "\\" and i + 1 < n:
            e = line[i + 1]
            if e in "01234567":
                j = i + 1
                while j < n and j < i + 4 and line[j] in "01234567":
                    j += 1
                raw.append(int(line[i + 1 : j], 8) & 0xFF)
                i = j
                continue
            if e not in _C_ESCAPES:
                return None
            c = _C_ESCAPES[e]
            i += 1
        if raw:
            out.append(raw.decode("utf-8", errors="replace"))
            raw.clear()
        out.append(c)
        i += 1
    return None


def _parse_states(tokens: Sequence[str]) -> tuple[_State, ...] | str:
    """Attribute states of a line, or the name of the first invalid attribute."""
    states: list[_State] = []
    for tok in tokens:
        value: AttrValue | object
        if tok.startswith("-"):
            name, value = tok[1:], False
        elif tok.startswith("!"):
            name, value = tok[1:], _UNSPECIFIED
        elif "=" in tok:
            name, value = tok.split("=", 1)
        else:
            name, value = tok, True
        if not _valid_name(name):
            return name
        states.append((name, value))
    return tuple(states)


class GitattributesFile:
    """One ``.gitattributes`` file, evaluated with git's rules (see the module doc).

    Implements :class:`~diffchunk.diff.attributes.AttributeSource`.
    """

    def __init__(
        self, text: str | bytes | os.PathLike[str], *, source: str = ".gitattributes"
    ) -> None:
        """``text`` is the file's content (str or bytes), or a path object to read."""
        if isinstance(text, os.PathLike):
            source = os.fspath(text)
            text = _read_gitattributes(source)[1]
        if isinstance(text, bytes):
            if len(text) > MAX_FILE_SIZE:
                raise InvalidArgument(
                    f"{source} is larger than {MAX_FILE_SIZE // (1024 * 1024)} MB; "
                    "git ignores attribute files that large.",
                    suggestion="Pass the repository's real .gitattributes file.",
                )
            text = text.decode("utf-8", errors="replace")
        if text.startswith("\ufeff"):
            text = text[1:]  # git skips a UTF-8 byte order mark
        self.source = source
        warnings: list[str] = []
        rules: list[tuple[CompiledGlob, tuple[_State, ...]]] = []
        macros: dict[str, tuple[_State, ...]] = dict(_BUILTIN_MACROS)
        for number, raw_line in enumerate(text.split("\n"), start=1):
            if len(raw_line.encode("utf-8", errors="replace")) > MAX_LINE_LENGTH:
                warnings.append(f"{source}:{number}: line longer than {MAX_LINE_LENGTH} bytes")
                continue
            line = raw_line.lstrip(_BLANK)
            if not line or line.startswith("#"):
                continue
            if line.startswith('"'):
                split = _unquote(line)
                if split is None:
                    warnings.append(f"{source}:{number}: bad quoted pattern")
                    continue
                pattern, rest = split
            else:
                parts = line.split(None, 1)
                pattern, rest = parts[0], (parts[1] if len(parts) > 1 else "")
            states = _parse_states(rest.split())
            if isinstance(states, str):
                warnings.append(f"{source}:{number}: {states!r} is not a valid attribute name")
                continue
            if pattern.startswith("[attr]"):
                name = pattern[len("[attr]") :]
                if not _valid_name(name):
                    warnings.append(f"{source}:{number}: {name!r} is not a valid attribute name")
                    continue
                macros[name] = states  # the last definition wins
                continue
            if pattern.startswith("!"):
                warnings.append(
                    f"{source}:{number}: negative patterns are ignored in git attributes "
                    "(use '\\!' for a literal leading exclamation mark)"
                )
                continue
            rules.append((attributes_glob(pattern), states))
        for warning in warnings:
            logger.warning("%s", warning)
        self.warnings = tuple(warnings)
        self._rules = tuple(rules)
        self._macros = macros
        self._wanted_rules = self._rules_reaching(WANTED)
        self._cache: dict[str, dict[str, AttrValue]] = {}

    def _rules_reaching(
        self, names: Sequence[str]
    ) -> tuple[tuple[CompiledGlob, tuple[_State, ...]], ...]:
        """The rules that can decide one of ``names`` (directly or through macros)."""
        reach = set(names)
        changed = True
        while changed:
            changed = False
            for macro, states in self._macros.items():
                if macro not in reach and any(name in reach for name, _ in states):
                    reach.add(macro)
                    changed = True
        return tuple(r for r in self._rules if any(name in reach for name, _ in r[1]))

    def _evaluate(
        self, path: str, rules: Sequence[tuple[CompiledGlob, tuple[_State, ...]]]
    ) -> dict[str, AttrValue]:
        decided: dict[str, AttrValue | object] = {}

        def fill(states: tuple[_State, ...], depth: int) -> None:
            for name, value in reversed(states):
                if name in decided:
                    continue
                decided[name] = value
                if value is True and name in self._macros and depth < ATTRIBUTE_MACRO_DEPTH:
                    fill(self._macros[name], depth + 1)

        for glob, states in reversed(rules):
            if glob.matches(path):
                fill(states, 0)
        return {k: v for k, v in decided.items() if v is not _UNSPECIFIED}  # type: ignore[misc]

    def attributes(self, path: str) -> dict[str, AttrValue]:
        """Every attribute the file gives ``path`` (not only the ones diffchunk reads)."""
        return self._evaluate(path, self._rules)

    def lookup(self, paths: Sequence[str]) -> Mapping[str, Attributes]:
        """Attributes in :data:`~diffchunk.diff.attributes.WANTED` for each path."""
        out: dict[str, Attributes] = {}
        for path in paths:
            cached = self._cache.get(path)
            if cached is None:
                found = self._evaluate(path, self._wanted_rules)
                cached = {k: v for k, v in found.items() if k in WANTED}
                self._cache[path] = cached
            out[path] = cached
        return out

    def __repr__(self) -> str:
        return f"GitattributesFile({self.source!r}, {len(self._rules)} rules)"


def _read_gitattributes(path: str) -> tuple[str, bytes]:
    real, st = resolve_regular_file(path, what=".gitattributes file")
    if st.st_size > MAX_FILE_SIZE:
        raise InvalidArgument(
            f"The .gitattributes file {path!r} is {st.st_size} bytes; git ignores attribute "
            f"files over {MAX_FILE_SIZE // (1024 * 1024)} MB.",
            suggestion="Pass the repository's real .gitattributes file.",
        )
    try:
        with open(real, "rb") as fh:
            data = fh.read(MAX_FILE_SIZE + 1)
    except OSError as exc:
        raise PathError(
            f"The .gitattributes file {path!r} cannot be read: {exc.strerror}.",
            suggestion="Check the file's permissions.",
        ) from None
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise InvalidArgument(
            f"{path!r} looks binary, not like a .gitattributes file.",
            suggestion="Pass the text file named .gitattributes at the repository root.",
        )
    return real, data


def load_gitattributes(path: str) -> GitattributesFile:
    """Read and parse a ``.gitattributes`` file given by absolute path (``~`` allowed).

    Raises :class:`~diffchunk.errors.PathError` for a relative, missing or
    non-regular path and :class:`~diffchunk.errors.InvalidArgument` for a
    binary or oversized file.
    """
    real, data = _read_gitattributes(path)
    return GitattributesFile(data, source=real)
