"""Path globs with git's wildmatch rules: one engine, three anchoring rules.

The engine lives with the git plumbing because git's config uses it too
(:mod:`diffchunk.git.config`, ``includeIf``); the diff engine imports it from
here.

- :func:`gitignore_glob` follows ``.gitignore`` rules (for
  :class:`~diffchunk.diff.patterns.PathPatterns`): a pattern without ``/``
  matches a file or directory name at any depth (``*.py``, ``vendor``), one
  with a ``/`` is anchored at the root (``src/*.py``), a trailing ``/`` means
  "the files below this directory" (``docs/``), ``!pattern`` negates.
- :func:`attributes_glob` follows ``.gitattributes`` rules (for
  :mod:`diffchunk.diff.gitattributes`): a pattern matches a *path* only,
  never the files below a matching directory.
- :func:`wildmatch_glob` is git's ``wildmatch`` with ``WM_PATHNAME`` alone:
  the pattern against the whole text, no anchoring rule added (for
  ``includeIf`` conditions, :mod:`diffchunk.git.config`).

Glob syntax (git's wildmatch with ``WM_PATHNAME``): ``*`` and ``?`` never
cross ``/``; ``[a-z]``, ``[!x]``/``[^x]``, ``[[:alpha:]]`` classes; ``\\``
escapes the next character; ``**`` as a whole path segment spans zero or
more directories (a trailing ``/**`` needs at least one more segment); a
malformed glob (unclosed ``[``, trailing ``\\``) matches nothing, as in git.

Matching cost is bounded.  A glob whose segments hold at most one ``*`` and
which has at most one inner ``**`` becomes a Python regex; any other glob is
matched segment by segment: a segment by a greedy left-to-right scan of its
fixed-length pieces, ``**`` by backtracking to the last ``**`` only (both
polynomial, no regex blow-up), so hostile globs such as ``*a*a*a*a*b`` or
``a/**/a/**/b`` on a deep path stay fast.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["GLOBSTAR", "CompiledGlob", "attributes_glob", "gitignore_glob", "wildmatch_glob"]

# POSIX character classes of git's wildmatch, as Python class contents (ASCII).
_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "\\x21-\\x7e",
    "lower": "a-z",
    "print": "\\x20-\\x7e",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\x0b\\x0c",
    "upper": "A-Z",
    "xdigit": "0-9a-fA-F",
}


class _Malformed(Exception):
    """The glob can never match (git's wildmatch aborts on it)."""


def _class_char(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else c


def _parse_class(pattern: str, i: int) -> tuple[str, int]:
    """Parse a ``[...]`` class starting after ``[`` at ``i``; return (regex, next index)."""
    n = len(pattern)
    negate = False
    if i < n and pattern[i] in "!^":
        negate = True
        i += 1
    items: list[str] = []
    first = True
    while True:
        if i >= n:
            raise _Malformed
        c = pattern[i]
        if c == "]" and not first:
            i += 1
            break
        first = False
        if c == "[" and i + 1 < n and pattern[i + 1] == ":":
            close = pattern.find(":]", i + 2)
            name = pattern[i + 2 : close] if close >= 0 else ""
            if close >= 0 and "]" not in name:
                if name not in _POSIX_CLASSES:
                    raise _Malformed
                items.append(_POSIX_CLASSES[name])
                i = close + 2
                continue
            # No ":]": the "[" is an ordinary member.
        if c == "\\":
            i += 1
            if i >= n:
                raise _Malformed
            c = pattern[i]
        i += 1
        if i + 1 < n and pattern[i] == "-" and pattern[i + 1] != "]":
            hi = pattern[i + 1]
            i += 2
            if hi == "\\":
                if i >= n:
                    raise _Malformed
                hi = pattern[i]
                i += 1
            if c <= hi:
                items.append(f"{_class_char(c)}-{_class_char(hi)}")
            continue
        items.append(_class_char(c))
    body = "".join(items)
    if negate:
        return (f"[^/{body}]" if body else "[^/]"), i
    return (f"[{body}]" if body else "(?!)"), i


# Tokens: a literal is ("c", char); a wildcard is ("?", regex) or ("[", regex);
# "*" and "/" stand for themselves.
_Token = tuple[str, str]


def _tokenize(pattern: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                raise _Malformed
            tokens.append(("c", pattern[i + 1]))
            i += 2
        elif c == "*":
            tokens.append(("*", ""))
            i += 1
        elif c == "?":
            tokens.append(("?", "[^/]"))
            i += 1
        elif c == "[":
            regex, i = _parse_class(pattern, i + 1)
            tokens.append(("[", regex))
        elif c == "/":
            tokens.append(("/", ""))
            i += 1
        else:
            tokens.append(("c", c))
            i += 1
    return tokens


_Piece = tuple["str | re.Pattern[str]", int]  # a star-free run and its fixed length


class _Segment:
    """A glob for one path segment (no ``/``), matched in linear time."""

    __slots__ = ("_pieces", "_stars", "min_len", "regex")

    def __init__(self, tokens: Sequence[_Token]) -> None:
        runs: list[list[_Token]] = [[]]
        for tok in tokens:
            if tok[0] == "*":
                if runs[-1] or len(runs) == 1:
                    runs.append([])  # consecutive stars collapse into one
                continue
            runs[-1].append(tok)
        # runs: star-free runs separated by stars; each token matches one character.
        self._stars = len(runs) - 1
        pieces: list[_Piece] = []
        regex_parts: list[str] = []
        for run in runs:
            if all(kind == "c" for kind, _ in run):
                text = "".join(value for _, value in run)
                pieces.append((text, len(text)))
                regex_parts.append(re.escape(text))
            else:
                rx = "".join(re.escape(v) if k == "c" else v for k, v in run)
                pieces.append((re.compile(rx, re.DOTALL), len(run)))
                regex_parts.append(rx)
        self._pieces = tuple(pieces)
        self.min_len = sum(length for _, length in pieces)
        self.regex = "[^/]*".join(regex_parts)

    @property
    def literal(self) -> str | None:
        """The text this segment matches when it has no wildcard at all."""
        if self._stars or not isinstance(self._pieces[0][0], str):
            return None
        return self._pieces[0][0]

    @property
    def suffix(self) -> str | None:
        """``x`` for a segment glob ``*x`` with a plain ``x``, else None."""
        if self._stars != 1 or self._pieces[0][1] or not isinstance(self._pieces[1][0], str):
            return None
        return self._pieces[1][0]

    @property
    def simple(self) -> bool:
        """At most one ``*``: safe to embed in a backtracking regex."""
        return self._stars <= 1

    def match(self, s: str) -> bool:
        if len(s) < self.min_len:
            return False
        pieces = self._pieces
        if not self._stars:
            return len(s) == self.min_len and _piece_at(pieces[0][0], s, 0)
        (first, first_len), (last, last_len) = pieces[0], pieces[-1]
        end = len(s) - last_len
        if not (_piece_at(first, s, 0) and _piece_at(last, s, end)):
            return False
        pos = first_len
        # Greedy leftmost placement of each middle run is optimal: runs are fixed-length.
        for piece, length in pieces[1:-1]:
            found = _piece_find(piece, s, pos, end)
            if found < 0:
                return False
            pos = found + length
        return True


def _piece_at(piece: str | re.Pattern[str], s: str, pos: int) -> bool:
    if isinstance(piece, str):
        return s.startswith(piece, pos)
    return piece.match(s, pos) is not None


def _piece_find(piece: str | re.Pattern[str], s: str, pos: int, end: int) -> int:
    if isinstance(piece, str):
        return s.find(piece, pos, end)
    m = piece.search(s, pos, end)
    return -1 if m is None else m.start()


# A pattern is a sequence of segment globs; GLOBSTAR spans zero or more segments.
GLOBSTAR = None
_ANY = _Segment([("?", "[^/]"), ("*", "")])  # one non-empty segment
_SegList = tuple["_Segment | None", ...]


def _parse_segments(pattern: str) -> _SegList:
    tokens = _tokenize(pattern)
    segs: list[list[_Token]] = [[]]
    for tok in tokens:
        if tok[0] == "/":
            segs.append([])
        else:
            segs[-1].append(tok)
    out: list[_Segment | None] = []
    for seg in segs:
        if seg and all(kind == "*" for kind, _ in seg) and len(seg) >= 2:
            out.append(GLOBSTAR)
        else:
            out.append(_Segment(seg))
    if len(out) > 1 and out[-1] is GLOBSTAR:
        # A trailing "/**" matches everything *inside*: at least one segment.
        out[-1:] = [_ANY, GLOBSTAR]
    return tuple(out)


def _match_segments(globs: _SegList, parts: Sequence[str]) -> bool:
    """Match segment globs against path parts; GLOBSTAR backtracks (last one only)."""
    gi = pi = 0
    star_g = -1
    star_p = 0
    ng, np_ = len(globs), len(parts)
    while pi < np_:
        if gi < ng:
            g = globs[gi]
            if g is GLOBSTAR:
                star_g, star_p = gi, pi
                gi += 1
                continue
            if g.match(parts[pi]):
                gi += 1
                pi += 1
                continue
        if star_g < 0:
            return False
        star_p += 1
        pi = star_p
        gi = star_g + 1
    while gi < ng and globs[gi] is GLOBSTAR:
        gi += 1
    return gi == ng


def _segments_regex(globs: _SegList) -> str | None:
    """A regex over ``path + "/"`` equivalent to ``globs``, or None if unsafe."""
    # Two "**" with a segment after each would backtrack polynomially over a
    # deep path (a/a/a/.../a); such patterns use the segment matcher.
    body = list(globs)
    while body and body[-1] is GLOBSTAR:
        body.pop()
    if sum(1 for g in body if g is GLOBSTAR) > 1:
        return None
    out: list[str] = []
    for g in globs:
        if g is GLOBSTAR:
            out.append("(?:[^/]*/)*")
        elif not g.simple:
            return None
        else:
            out.append(f"(?:{g.regex})/" if g.regex else "/")
    return "".join(out)


@dataclass(frozen=True, slots=True, eq=False)
class CompiledGlob:
    """One pattern compiled for one anchoring rule; :meth:`matches` takes a path."""

    text: str  # the pattern as given (lowercased for PathPatterns)
    negated: bool
    globs: _SegList | None  # None: the pattern never matches (malformed)
    regex: re.Pattern[str] | None  # fast path over path + "/", when safe
    # A .gitignore pattern without "/" tests each path segment (the file name
    # and, unless dir_only, every directory name) against this one glob.
    name: _Segment | None = None
    dir_only: bool = False

    def matches(self, path: str) -> bool:
        if self.globs is None:
            return False
        if self.regex is not None:
            return self.regex.fullmatch(path + "/") is not None
        return _match_segments(self.globs, path.split("/"))

    def matches_slow(self, path: str) -> bool:
        """The segment matcher alone (the regex fast path must agree with it)."""
        return self.globs is not None and _match_segments(self.globs, path.split("/"))


def _compile(
    text: str,
    negated: bool,
    globs: _SegList | None,
    name: _Segment | None = None,
    dir_only: bool = False,
) -> CompiledGlob:
    regex = None
    if globs is not None:
        rx = _segments_regex(globs)
        if rx is not None:
            regex = re.compile(rx, re.DOTALL)
    return CompiledGlob(text, negated, globs, regex, name, dir_only)


def gitignore_glob(pattern: str) -> CompiledGlob:
    """Compile one ``.gitignore``-style pattern (files below a matched directory match)."""
    text = pattern
    negated = pattern.startswith("!")
    if negated:
        pattern = pattern[1:]
    dir_only = pattern.endswith("/")
    pattern = pattern.rstrip("/")
    if not pattern:
        return CompiledGlob(text, negated, None, None)
    anchored = "/" in pattern
    pattern = pattern.lstrip("/") if anchored else pattern
    try:
        globs = _parse_segments(pattern)
    except _Malformed:
        return CompiledGlob(text, negated, None, None)
    name = None
    if not anchored:
        seg = globs[0]
        name = _ANY if seg is GLOBSTAR else seg
        globs = (GLOBSTAR, name)
    # The pattern may name the file itself or any directory above it.
    tail: _SegList = (_ANY, GLOBSTAR) if dir_only else (GLOBSTAR,)
    return _compile(text, negated, globs + tail, name, dir_only)


def attributes_glob(pattern: str) -> CompiledGlob:
    """Compile one ``.gitattributes`` pattern (git's rules, relative to the root).

    No slash: matches the basename at any depth.  A slash (other than a
    trailing one): anchored, matched against the whole path.  A trailing
    slash: matches directories only, so never a file of a diff.  Matching
    is case-sensitive, as git's with ``core.ignoreCase=false``.
    """
    if pattern.endswith("/") or not pattern:
        return CompiledGlob(pattern, False, None, None)
    anchored = "/" in pattern
    body = pattern[1:] if pattern.startswith("/") else pattern
    try:
        globs = _parse_segments(body)
    except _Malformed:
        return CompiledGlob(pattern, False, None, None)
    if not anchored:
        seg = globs[0]
        globs = (GLOBSTAR, _ANY if seg is GLOBSTAR else seg)
    return _compile(pattern, False, globs)


def wildmatch_glob(pattern: str) -> CompiledGlob:
    """Compile ``pattern`` to match a whole text as git's ``wildmatch(pattern, text,
    WM_PATHNAME)`` does: ``*`` stays within a segment, ``**/`` spans zero or more
    directories, a trailing ``/**`` needs something below, nothing else is added."""
    try:
        globs = _parse_segments(pattern)
    except _Malformed:
        return CompiledGlob(pattern, False, None, None)
    return _compile(pattern, False, globs)
