"""Two revisions of a branch side by side: ancestry, what changed between two commits,
a diff limited to some paths, and files as they are in a commit.

The incremental review (:mod:`diffchunk.review.incremental`) asks these when a
range is loaded again after the branch moved: whether the old head is an
ancestor of the new one (new commits on top) or history was rewritten (an
amend, a rebase, a force-push), whether the commits of a reviewed revision
are still in the repository, which files the base of the range changed (a
rebase onto a main that moved), the branch's files as they are in a commit
(to find a finding's lines again), and ``git diff`` of two commits limited to
some paths with the range review's own options
(:data:`~diffchunk.git.diffwrite.DIFF_OPTIONS`).

Commit ids come from the review record: each is checked to be a full
hexadecimal object id before it reaches git, so nothing in the record can be
read as an option.  Paths are passed after ``--`` as literal pathspecs
(``--literal-pathspecs``: ``*`` in a name is a star), in batches of
:data:`PATHS_PER_RUN`, and always as bytes of the name on disk.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from ..errors import GitError
from .diffwrite import DIFF_OPTIONS
from .process import command_failed
from .repo import Repo
from .runner import split_z

PATHS_PER_RUN = 1000
"""Paths per git run: far below the argument size limit of any system (a path
is rarely over 200 bytes; Linux allows 2 MB of arguments)."""


_OBJECT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def check_commit_id(commit: str) -> str:
    """``commit`` when it is a full object id (SHA-1 or SHA-256), else :class:`GitError`."""
    if not isinstance(commit, str) or _OBJECT_ID.fullmatch(commit) is None:
        raise GitError(
            f"{commit!r} is not a commit id.",
            suggestion="The review record holds full commit ids only; load the range again.",
        )
    return commit


def is_ancestor(repo: Repo, ancestor: str, descendant: str) -> bool:
    """Whether ``ancestor`` is ``descendant`` or one of its ancestors
    (``git merge-base --is-ancestor``)."""
    args = ["merge-base", "--is-ancestor", check_commit_id(ancestor), check_commit_id(descendant)]
    proc = repo.git.run(args, check=False)
    if proc.returncode in (0, 1):
        return proc.returncode == 0
    raise command_failed("git merge-base", proc.returncode, proc.stderr)


def missing_commits(repo: Repo, commits: Iterable[str]) -> list[str]:
    """Those of ``commits`` the repository does not hold (any more) as commits: pruned
    after a force-push, or never fetched here."""
    wanted = list(dict.fromkeys(check_commit_id(c) for c in commits))
    runs = repo.git.run_all([["cat-file", "-e", f"{c}^{{commit}}"] for c in wanted])
    return [c for c, proc in zip(wanted, runs, strict=True) if proc.returncode != 0]


def changed_paths(repo: Repo, old: str, new: str) -> set[bytes]:
    """Every path whose content or mode differs between the trees of two commits
    (both names of a rename: renames are not paired)."""
    if old == new:
        return set()
    args = [
        "diff",
        "--raw",
        "-z",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        "--ignore-submodules=dirty",
        check_commit_id(old),
        check_commit_id(new),
        "--",
    ]
    fields = split_z(repo.git.run(args, what="git diff --raw").stdout)
    # ":<mode> <mode> <id> <id> <status>" then the path, for each entry.
    return {
        path for meta, path in zip(fields[::2], fields[1::2], strict=False) if meta.startswith(b":")
    }


def diff_commits(repo: Repo, old: str, new: str, paths: Sequence[bytes]) -> bytes:
    """``git diff`` of two commits (the range review's options) limited to ``paths``.

    Runs once per :data:`PATHS_PER_RUN` paths; the outputs are concatenated (each
    in git's path order).  No paths: no git run, and no text.
    """
    old, new = check_commit_id(old), check_commit_id(new)
    git = repo.git.with_options("--literal-pathspecs")
    out = []
    unique = list(dict.fromkeys(paths))
    for at in range(0, len(unique), PATHS_PER_RUN):
        batch = [os.fsdecode(p) for p in unique[at : at + PATHS_PER_RUN]]
        args = ["diff", *DIFF_OPTIONS, old, new, "--", *batch]
        out.append(git.run(args, what="git diff").stdout)
    return b"".join(out)


def read_files(repo: Repo, wanted: Sequence[tuple[str, bytes]]) -> list[bytes | None]:
    """The content of each ``(commit, path)``: the blob at that path in the commit's
    tree; None when there is none (no such path, a directory, a submodule) or when
    the path holds a line break (``git cat-file --batch`` reads one name a line)."""
    lines = []
    for commit, path in wanted:
        check_commit_id(commit)
        if b"\n" not in path and b"\r" not in path:
            lines.append(commit.encode("ascii") + b":" + path + b"\n")
    found: list[bytes | None] = []
    if lines:
        out = repo.git.run(
            ["cat-file", "--batch"], input=b"".join(lines), what="git cat-file"
        ).stdout
        found = _batch_answers(out, len(lines))
    answers = iter(found)
    return [
        next(answers) if b"\n" not in path and b"\r" not in path else None for _, path in wanted
    ]


def _batch_answers(out: bytes, count: int) -> list[bytes | None]:
    """The answers of ``git cat-file --batch`` to ``count`` names: each a header line
    ``<id> <type> <size>`` and the object, or ``<name> missing`` (or ``ambiguous``)."""
    answers: list[bytes | None] = []
    pos = 0
    for _ in range(count):
        end = out.find(b"\n", pos)
        if end < 0:
            raise GitError("git cat-file --batch ended before answering every name.")
        header = out[pos:end].split(b" ")
        pos = end + 1
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            body = out[pos : pos + size]
            pos += size + 1  # the object, then a line feed
            answers.append(body if header[1] == b"blob" else None)
        else:
            answers.append(None)
    return answers
