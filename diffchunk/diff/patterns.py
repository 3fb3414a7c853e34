"""Comma-separated lists of path globs: :class:`PathPatterns` and the caps on them.

:class:`PathPatterns` (``include_patterns``/``exclude_patterns``, file
lookups by glob) follows ``.gitignore`` rules (see
:func:`~diffchunk.git.globs.gitignore_glob`): ``*.py`` matches at any
depth, ``src/*.py`` is anchored at the root, ``docs/`` means the files below
that directory, ``**`` spans directories, ``!pattern`` negates (the last
matching pattern decides).  Matching is case-insensitive: both sides are
lowercased.  Lists of plain names and ``*.ext`` items are set lookups and
``str.endswith`` calls; the other items one combined regex where that is
safe (see :mod:`diffchunk.git.globs`).  Pattern lists are capped
(:data:`MAX_PATTERNS`, :data:`MAX_PATTERN_LENGTH`,
:data:`MAX_PATTERNS_CHARS`); larger input is refused with
:class:`~diffchunk.errors.InvalidArgument`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from ..errors import InvalidArgument
from ..git.globs import CompiledGlob, gitignore_glob

MAX_PATTERNS = 512
"""Caps on an include/exclude pattern list, so that a hostile or mistaken
argument cannot make every path lookup slow: far above any list a person
writes (a few dozen items of a few dozen characters), far below what would
cost seconds.  This one: items in a list..."""

MAX_PATTERN_LENGTH = 1024
"""...characters in one pattern..."""

MAX_PATTERNS_CHARS = 8192
"""...and characters in the whole argument."""


__all__ = [
    "MAX_PATTERNS",
    "MAX_PATTERNS_CHARS",
    "MAX_PATTERN_LENGTH",
    "PathPatterns",
    "PathQuery",
    "split_patterns",
]


def split_patterns(value: str, *, name: str = "patterns") -> list[str]:
    """Split a comma-separated list; trim items, drop empty ones, enforce the caps."""
    if not isinstance(value, str):
        raise InvalidArgument(
            f"{name} must be a string of comma-separated globs, got {type(value).__name__}.",
            suggestion=f'Example: {name}="*.py,docs/**".',
        )
    if len(value) > MAX_PATTERNS_CHARS:
        raise InvalidArgument(
            f"{name} is {len(value)} characters long; the limit is {MAX_PATTERNS_CHARS}.",
            suggestion="Use fewer, broader globs (e.g. 'tests/**' instead of listing files).",
        )
    return _checked_items(value.split(","), name)


def _checked_items(raw: Sequence[str], name: str) -> list[str]:
    items = [item.strip() for item in raw]
    items = [item for item in items if item]
    if len(items) > MAX_PATTERNS:
        raise InvalidArgument(
            f"{name} holds {len(items)} patterns; the limit is {MAX_PATTERNS}.",
            suggestion="Use fewer, broader globs (e.g. '*.lock' instead of listing files).",
        )
    for item in items:
        if len(item) > MAX_PATTERN_LENGTH:
            raise InvalidArgument(
                f"A pattern in {name} is {len(item)} characters long; "
                f"the limit is {MAX_PATTERN_LENGTH}.",
                suggestion="Shorten it with wildcards such as '*' or '**'.",
            )
    return items


class PathPatterns:
    """Comma-separated, case-insensitive, ``.gitignore``-style globs.

    ``PathPatterns("*.py, docs/")`` matches ``a/b.py``, ``B.PY`` and
    ``docs/x/y.md``.  Whitespace around commas and empty items are ignored.
    ``PathPatterns(["a,b.txt"])`` takes a list of single globs (no comma split).
    With ``!pattern`` items the last matching item decides; without them a
    path matches when any item matches.  Too many or too long items raise
    :class:`~diffchunk.errors.InvalidArgument`.
    """

    __slots__ = (
        "_dir_names",
        "_dir_suffixes",
        "_globs",
        "_has_negation",
        "_names",
        "_rest",
        "_rest_regex",
        "_suffixes",
        "text",
    )

    def __init__(self, patterns: str | Sequence[str], *, name: str = "patterns") -> None:
        if isinstance(patterns, (list, tuple)) and all(isinstance(p, str) for p in patterns):
            # One glob per item: a comma inside an item is part of the glob.
            items = _checked_items(patterns, name)
        else:
            items = split_patterns(patterns, name=name)  # type: ignore[arg-type]
        self.text = ", ".join(items)
        self._globs = tuple(gitignore_glob(item.lower()) for item in items)
        self._has_negation = any(g.negated for g in self._globs)
        # Without negation, "any item matches": plain names and "*.ext" items
        # become set lookups and str.endswith; the rest one combined regex.
        names: set[str] = set()
        dir_names: set[str] = set()
        suffixes: set[str] = set()
        dir_suffixes: set[str] = set()
        rest: list[CompiledGlob] = []
        for g in self._globs if not self._has_negation else ():
            if g.globs is None:
                continue
            literal = g.name.literal if g.name is not None else None
            suffix = g.name.suffix if g.name is not None else None
            if literal is not None:
                (dir_names if g.dir_only else names).add(literal)
            elif suffix is not None:
                (dir_suffixes if g.dir_only else suffixes).add(suffix)
            else:
                rest.append(g)
        self._names = frozenset(names)
        self._dir_names = frozenset(dir_names)
        self._suffixes = tuple(sorted(suffixes))
        self._dir_suffixes = tuple(sorted(dir_suffixes))
        self._rest = tuple(g for g in rest if g.regex is None)
        fast = [g.regex.pattern for g in rest if g.regex is not None]
        self._rest_regex = (
            re.compile("|".join(f"(?:{rx})" for rx in fast), re.DOTALL) if fast else None
        )

    def __bool__(self) -> bool:
        return bool(self._globs)

    def __len__(self) -> int:
        return len(self._globs)

    def __repr__(self) -> str:
        return f"PathPatterns({self.text!r})"

    @property
    def patterns(self) -> tuple[str, ...]:
        return tuple(g.text for g in self._globs)

    def names(self, path: str) -> bool:
        """True when ``path`` is one of the items as written (case ignored) and no
        item excludes: a path as listed, even where a glob reads it otherwise
        (``app/[id]/page.tsx``, a backslash escape)."""
        return not self._has_negation and path.lower() in self.patterns

    def matches(self, path: str) -> bool:
        """True when ``path`` (``/``-separated, relative) is selected by the list."""
        if not path:
            return False
        lowered = path.lower()
        if not self._has_negation:
            return self._matches_any_item(lowered)
        for g in reversed(self._globs):
            if g.matches(lowered):
                return not g.negated
        return False

    def _matches_any_item(self, lowered: str) -> bool:
        parts = lowered.split("/")
        dirs = parts[:-1]
        if self._names and not self._names.isdisjoint(parts):
            return True
        if self._dir_names and not self._dir_names.isdisjoint(dirs):
            return True
        if self._suffixes and any(p.endswith(self._suffixes) for p in parts):
            return True
        if self._dir_suffixes and any(p.endswith(self._dir_suffixes) for p in dirs):
            return True
        if self._rest_regex is not None and self._rest_regex.fullmatch(lowered + "/"):
            return True
        return any(g.matches(lowered) for g in self._rest)

    def first_match(self, path: str) -> str | None:
        """The first item that selects ``path`` (for messages), or None."""
        if not self.matches(path):
            return None
        lowered = path.lower()
        for g in self._globs:
            if not g.negated and g.matches(lowered):
                return g.text
        return None  # pragma: no cover - matches() implies a positive item

    def matches_any(self, paths: Sequence[str | None]) -> str | None:
        """The first item selecting any of ``paths`` (None entries skipped), or None."""
        for path in paths:
            if path:
                hit = self.first_match(path)
                if hit is not None:
                    return hit
        return None


class PathQuery:
    """A lookup of a diff's files as the tools take it: a path as listed, or globs.

    :meth:`matches` is what ``find_chunks_for_files`` selects: a path the globs
    of the comma-separated list match, or one that the whole query or one of its
    items names as listed, case ignored (:meth:`PathPatterns.names`: a path
    that reads otherwise as a glob, ``app/[id]/page.tsx``, a backslash escape).
    :meth:`select` is what marks and filters take, in ``get_file_diff``'s order:
    a query that is exactly one listed path selects that path alone (then the
    same case ignored, then a renamed file's old path); any other query selects
    what :meth:`matches` (``README.md`` is that file, ``*.md`` every one).
    """

    __slots__ = ("_globs", "_listed", "text")

    def __init__(self, query: str, *, name: str = "pattern") -> None:
        self.text = query.strip() if isinstance(query, str) else query
        # Each item is a path or glob of at most MAX_PATTERN_LENGTH characters, the list
        # at most MAX_PATTERNS of them in MAX_PATTERNS_CHARS (split_patterns refuses more).
        self._globs = PathPatterns(query, name=name)
        # A listed path holding commas is split with the list: it is named when its
        # pieces are items one after the other (the whole query, or any run of it, as
        # a several-file answer's list of the files it left out writes them).
        items = split_patterns(self.text, name=name)
        negated = any(item.startswith("!") for item in items)
        self._listed = None if negated or len(items) < 2 else _joined(items)

    def matches(self, path: str) -> bool:
        return self._globs.matches(path) or self._globs.names(path) or self._names_listed(path)

    def _names_listed(self, path: str) -> bool:
        """Whether ``path``, holding a comma, is written among the items (case ignored)."""
        if self._listed is None or "," not in path:
            return False
        return _joined(path.split(",")) in self._listed

    def matches_everything(self) -> bool:
        """Whether the query is a glob that matches every path (``*``, ``**``, ``**/*``):
        a caller may take every path without asking about each."""
        return self.text in ("*", "**", "**/*")

    def select(
        self, paths: Iterable[str], renamed_from: Mapping[str, str] | None = None
    ) -> list[str]:
        """The paths of ``paths`` (in their order) the query selects (see the class doc);
        ``renamed_from`` maps a renamed file's old path to its path."""
        listed = list(paths)
        if self.text in listed:
            return [self.text]
        folded = [p for p in listed if p.lower() == self.text.lower()]
        if folded:
            return folded
        if renamed_from and self.text in renamed_from:
            return [renamed_from[self.text]]
        return [p for p in listed if self.matches(p)]


def _joined(items: Sequence[str]) -> str:
    """``items`` trimmed, the empty ones left out, lowered, each between NUL characters
    (no path holds one): a run of them is a substring."""
    kept = [item.strip().lower() for item in items]
    return "\0" + "\0".join(item for item in kept if item) + "\0"
