"""Paths that limit a range's diff (``git diff A B -- PATH...``), checked before git sees them.

A path is relative to the top of the repository, as a diff shows it
(``src/app.py``, ``docs/``); an absolute path inside the work tree is taken
relative to its top.  Paths reach git after ``--`` with
``--literal-pathspecs``: data, never an option or pathspec magic (a name
starting with ``-`` or ``:`` is just a name).  Refused before git runs: an
empty path, a NUL or line break, and a path that leads out of the
repository (``../x``, an absolute path elsewhere) — git would refuse it too,
with a message about pathspecs that says less.  The paths are normalised
(``./src//a`` is ``src/a``), kept in the order given without repeats; they
are part of a range's cache key, so another set of paths is another entry.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence

from ..errors import InvalidArgument
from .repo import Repo

MAX_PATHS = 1000
"""Paths a range review may be limited to: more than any review needs (a
command line holds about this many)."""

MAX_PATH_CHARS = 4096
"""Longest path a range may be limited to: Linux's PATH_MAX; a longer one names
no file, and its text would fill the answers that repeat it."""


def _refused(path: str, why: str) -> InvalidArgument:
    return InvalidArgument(
        f"The path {path!r} cannot limit the diff: {why}.",
        suggestion="Pass paths relative to the top of the repository, as the diff shows them "
        "(e.g. 'src/app.py' or 'docs/'), or absolute paths inside its work tree.",
    )


def check_paths(repo: Repo, paths: Sequence[str] | None) -> tuple[str, ...]:
    """``paths`` normalised relative to the repository's top (see the module docstring)."""
    if paths is None:
        return ()
    if isinstance(paths, str):
        paths = [paths]
    if len(paths) > MAX_PATHS:
        raise InvalidArgument(
            f"{len(paths)} paths were given; at most {MAX_PATHS} limit a diff.",
            suggestion="Pass their common directories instead.",
        )
    out: dict[str, None] = {}
    for raw in paths:
        if not isinstance(raw, str):
            raise _refused(repr(raw), "it is not text")
        if len(raw) > MAX_PATH_CHARS:
            raise _refused(
                f"{raw[:60]}…", f"it is {len(raw):,} characters long, more than a path can be"
            )
        if any(c in raw for c in "\0\n\r"):
            raise _refused(raw, "it holds a NUL or a line break")
        if not raw.strip():
            raise _refused(raw, "it is empty")
        out.setdefault(_relative(repo, raw, raw), None)  # literally: " a" is a name
    return tuple(out)


def _relative(repo: Repo, text: str, raw: str) -> str:
    if os.path.isabs(text):
        if repo.root is None:
            raise _refused(raw, "a bare repository has no work tree for an absolute path")
        # The directory resolved, not the name: a link in the work tree is a path of
        # the diff itself, not the file it points to.
        head, name = os.path.split(text)
        real = os.path.join(os.path.realpath(head), name)
        rel = os.path.relpath(real, repo.root)
        if rel == os.curdir:
            return "."
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            raise _refused(raw, f"it is outside the repository at {repo.root}")
        return rel.replace(os.sep, "/")
    normal = posixpath.normpath(text.replace(os.sep, "/"))
    if normal == ".." or normal.startswith("../"):
        raise _refused(raw, "it leads out of the repository")
    return normal
