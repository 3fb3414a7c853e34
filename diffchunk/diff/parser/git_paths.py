"""The two names of a ``diff --git`` line, and the paths and tokens of its section.

The line reads ``diff --git`` SP old SP new, where each name is a prefix
(``a/``, ``b/``, another one, or none with ``--no-prefix``) and a path,
quoted with C escapes when it holds special bytes.  An unquoted path may
hold spaces and even `` b/``, so the line alone can be ambiguous; the
``---``/``+++`` names, the ``rename``/``copy`` lines and the prefixes of
earlier sections fix the split (:func:`split_git_names`).

Functions here are pure: the reader passes the prefixes it learned and
keeps the ones :func:`git_paths` returns.
"""

from __future__ import annotations

from typing import NamedTuple

from diffchunk.diff import syntax as sx
from diffchunk.diff.model import FileStatus
from diffchunk.diff.paths import (
    decode_path,
    split_prefixes,
    split_quoted,
    strip_prefix,
    unquote_git_path,
)

GIT_NAME_SPLITS = 64
"""Splits of a ``diff --git`` line tried at most: a real line has a few spaces,
a crafted one with thousands would make the searches quadratic."""


__all__ = ["GitPaths", "any_git_paths", "git_paths", "split_git_names"]

_ADDED, _DELETED = FileStatus.ADDED, FileStatus.DELETED


Prefixes = tuple[bytes, bytes]


class GitPaths(NamedTuple):
    """Paths and path tokens of one git section, and the prefixes known after it."""

    old_path: str | None  # None when the file is added
    new_path: str | None  # None when the file is deleted
    old_token: bytes  # as the ``---`` line writes it, or made from the ``diff --git`` line
    new_token: bytes
    prefixes: Prefixes | None


def git_paths(
    rest: bytes,
    minus: bytes | None,
    plus: bytes | None,
    src: bytes | None,
    dst: bytes | None,
    status: FileStatus,
    prefixes: Prefixes | None,
) -> GitPaths:
    """What :func:`any_git_paths` finds, with a shortcut for the usual section.

    ``rest``: the ``diff --git`` line after ``diff --git ``; ``minus`` and
    ``plus``: the ``---``/``+++`` names (stamps stripped), None when absent;
    ``src`` and ``dst``: the ``rename``/``copy`` paths, None when absent.
    """
    if (
        src is None
        and minus is not None
        and plus is not None
        and minus.startswith(b"a/")
        and plus.startswith(b"b/")
        and len(minus) > 2
        and minus[2:] == plus[2:]
        and rest == minus + b" " + plus
        and not rest.endswith(b'"')
    ):
        # ``diff --git a/x b/x`` with matching ---/+++ lines: what the general
        # code finds for it, without the search.
        path = decode_path(minus[2:])
        return GitPaths(
            None if status is _ADDED else path,
            None if status is _DELETED else path,
            minus,
            plus,
            (b"a/", b"b/"),
        )
    return any_git_paths(rest, minus, plus, src, dst, status, prefixes)


def any_git_paths(
    rest: bytes,
    minus: bytes | None,
    plus: bytes | None,
    src: bytes | None,
    dst: bytes | None,
    status: FileStatus,
    prefixes: Prefixes | None,
) -> GitPaths:
    """Paths of a git section from its ``diff --git`` line, fixed by what else it says.

    A rename or copy names its paths in full; otherwise the common suffix of
    the two names after their prefixes is the path (the prefixes are learned
    when the names differ).  Tokens missing from the section (no ``---``
    line) are made from the ``diff --git`` names, ``/dev/null`` for an
    absent side.
    """
    x, y = split_git_names(rest, minus, plus, src, dst, prefixes)
    ux, uy = unquote_git_path(x), unquote_git_path(y)
    if src is not None and dst is not None:
        old, new = src, dst
        if ux.endswith(src) and uy.endswith(dst) and (len(ux) != len(src) or len(uy) != len(dst)):
            prefixes = (ux[: len(ux) - len(src)], uy[: len(uy) - len(dst)])
    else:
        split = split_prefixes(ux, uy)
        if split is None:
            old, new = ux, uy
        else:
            pa, pb, path = split
            if ux != uy:
                prefixes = (pa, pb)
            elif prefixes and prefixes[0] == prefixes[1]:
                path = strip_prefix(path, prefixes[0])
            old = new = path
    tok_old = minus if minus is not None else (sx.DEV_NULL if status is _ADDED else x)
    tok_new = plus if plus is not None else (sx.DEV_NULL if status is _DELETED else y)
    return GitPaths(
        None if status is _ADDED else decode_path(old),
        None if status is _DELETED else decode_path(new),
        tok_old,
        tok_new,
        prefixes,
    )


def split_git_names(
    rest: bytes,
    minus: bytes | None,
    plus: bytes | None,
    src: bytes | None,
    dst: bytes | None,
    prefixes: Prefixes | None,
) -> tuple[bytes, bytes]:
    """Split ``rest`` (``old SP new`` of a ``diff --git`` line) into its two names.

    In order: a quoted name ends where its quotes do; a line with one space
    splits there; the ``---``/``+++`` names fix the split where they match;
    else, among the spaces (at most 64, those nearest the middle), the
    split whose names end with the rename/copy paths, then the one whose
    names carry the known prefixes over the same path, then the middle when
    both halves name the same file, then a split into names with prefixes
    of equal length; last, the space nearest the middle.
    """
    if rest.startswith(b'"'):
        q = split_quoted(rest)
        if q is not None and q[1].startswith(b" "):
            return q[0], q[1][1:]
    elif rest.endswith(b'"'):
        i = rest.rfind(b' "')
        while i > 0:
            tail = rest[i + 1 :]
            q = split_quoted(tail)
            if q is not None and q[1] == b"":
                return rest[:i], tail
            i = rest.rfind(b' "', 0, i)
    nspaces = rest.count(b" ")
    if nspaces <= 1:
        i = rest.find(b" ")
        return (rest, rest) if i < 0 else (rest[:i], rest[i + 1 :])
    # The ---/+++ names fix the split where they match (the leftmost such).
    fixed = len(rest)
    if minus is not None and minus != sx.DEV_NULL and rest.startswith(minus + b" "):
        fixed = len(minus)
    if plus is not None and plus != sx.DEV_NULL and rest.endswith(b" " + plus):
        fixed = min(fixed, len(rest) - len(plus) - 1)
    if fixed < len(rest):
        return rest[:fixed], rest[fixed + 1 :]
    return _split_at_a_space(rest, src, dst, prefixes)


def _split_at_a_space(
    rest: bytes, src: bytes | None, dst: bytes | None, prefixes: Prefixes | None
) -> tuple[bytes, bytes]:
    """The last steps of :func:`split_git_names`: choose among the spaces of ``rest``."""
    half = len(rest) // 2
    spaces = [i for i in range(len(rest)) if rest[i] == 0x20]
    if len(spaces) > GIT_NAME_SPLITS:
        spaces = sorted(sorted(spaces, key=lambda k: abs(k - half))[:GIT_NAME_SPLITS])
    candidates = [(rest[:i], rest[i + 1 :]) for i in spaces]
    if src is not None and dst is not None:
        for x, y in candidates:
            if unquote_git_path(x).endswith(src) and unquote_git_path(y).endswith(dst):
                return x, y
    if prefixes is not None:
        pa, pb = prefixes
        for x, y in candidates:
            if x.startswith(pa) and y.startswith(pb) and x[len(pa) :] == y[len(pb) :]:
                return x, y
    if len(rest) % 2 == 1 and rest[half] == 0x20:
        x, y = rest[:half], rest[half + 1 :]
        if x == y or _after_slash(x) == _after_slash(y):
            return x, y
    for x, y in candidates:
        split = split_prefixes(x, y)
        if split is not None and split[2] and len(split[0]) == len(split[1]):
            return x, y
    i = min(spaces, key=lambda k: abs(k - half))
    return rest[:i], rest[i + 1 :]


def _after_slash(token: bytes) -> bytes:
    slash = token.find(b"/")
    return token[slash + 1 :] if slash >= 0 else token
