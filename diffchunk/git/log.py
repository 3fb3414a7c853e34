"""The commits of a range, read with ``git log``: id, author, date, subject, files touched.

``git log --no-renames --name-only -z`` with a NUL-separated ``--format``
(so no name or subject can break the parse), ``--no-show-signature`` (a
config's ``log.showSignature`` would run ``gpg.program``) and, when paths
limit it, ``--literal-pathspecs`` and the paths after ``--`` (data, never
options).  Renames are not followed: a commit that renamed a file lists its
old and its new name (pass both to find the commits of either).  At most
``limit`` commits are read (newest first, as git lists them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from ..errors import GitError
from .repo import Repo

_FULL_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_RECORD = "\x1e"  # starts each commit's record (a subject cannot hold it in practice)


class LoggedCommit(NamedTuple):
    """One commit as ``git log`` gave it."""

    id: str
    author: str
    date: str  # ISO 8601, the author date
    subject: str
    files: tuple[str, ...]
    body: str | None = None  # the whole message (%B), when asked for
    short: str | None = None  # the id as git abbreviates it (%h: unique in the repository)


def range_commits(
    repo: Repo,
    base: str | None,
    head: str,
    paths: Sequence[str] = (),
    *,
    limit: int,
    exclude: Sequence[str] = (),
    include_body: bool = False,
) -> list[LoggedCommit]:
    """The commits of ``base..head`` (every ancestor of ``head`` when ``base`` is None)
    touching ``paths`` (any, when empty), but those ``exclude`` commits reach (``^id``:
    a reviewed head leaves out the commits it held); at most ``limit``.
    ``include_body``: each commit's whole message too, as ``git log --format=%B``."""
    for commit in (base, head, *exclude):
        if commit is not None and not _FULL_ID.fullmatch(commit):
            raise GitError(f"Not a commit id: {commit!r}.")
    args = [
        "log",
        "--no-color",
        "--no-show-signature",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        f"--max-count={limit}",
        f"--format={_RECORD}%H%x00%h%x00%an%x00%aI%x00%s" + ("%x00%B" if include_body else ""),
        "--name-only",
        "-z",
        head if base is None else f"{base}..{head}",
        *(f"^{commit}" for commit in exclude),
        "--",
        *paths,
    ]
    git = repo.git.with_options("--literal-pathspecs") if paths else repo.git
    out = git.run(args, what="git log").stdout.decode("utf-8", "surrogateescape")
    commits = []
    for record in out.split(_RECORD)[1:]:
        fields = record.split("\0")
        if len(fields) < 5:
            continue
        first = 6 if include_body else 5
        names = tuple(n for n in (f.lstrip("\n") for f in fields[first:]) if n)
        body = fields[5] if include_body and len(fields) > 5 else None
        commits.append(
            LoggedCommit(fields[0], fields[2], fields[3], fields[4], names, body, fields[1])
        )
    return commits
