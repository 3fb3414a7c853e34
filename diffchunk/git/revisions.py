"""Revision ranges, read the way ``git diff`` reads them, resolved to commit ids.

Accepted forms (``RANGE``):

==============  ===============================================================
``A..B``        commit ``A`` vs commit ``B`` (an empty side means ``HEAD``)
``A...B``       the merge base of ``A`` and ``B`` vs ``B``
``A``           the working tree vs ``A`` (``HEAD``: all uncommitted changes)
``C^!``         commit ``C`` vs its first parent (``C^-N``: vs its parent N)
none            the working tree vs ``HEAD``
``--staged``    the index vs ``HEAD`` (or vs the single revision given)
==============  ===============================================================

User text never reaches git as an option: anything that could be read as one
is refused (:class:`RefusedRange`), each side is resolved on its own with
``git rev-parse --verify --end-of-options <rev>^{commit}``, and ``git diff``
then only ever sees full commit ids.  A repository without commits diffs
against the empty tree; a bare repository accepts commit ranges only.
"""

from __future__ import annotations

import os
import subprocess
from enum import Enum
from typing import NamedTuple

from ..errors import GitError, NotARange, RefusedRange
from ..fdio import read_small_file
from ..limits import SHORT_ID
from .repo import Repo

REVISION_HINT_REFS = 200
"""Branches and tags read (newest first) when a revision is unknown, to offer
the names closest to it: a repository's recent releases and branches."""

REVISION_HINT_CLOSE = 3
"""Names close to an unknown revision offered first (``8.4.2`` for ``v8.4.2``)."""

REVISION_HINT_NAMES = 8
"""Names an unknown revision's hint offers in all: enough to spot the right one
in a line."""

SHALLOW_FILE_BYTES = 16 << 20
"""The largest ``shallow`` file read to tell where a shallow clone's history is
cut off: one commit id a line, so 400,000 boundary commits; past it the
boundary is not told apart (a commit then shows as having no parent)."""


class Mode(str, Enum):
    COMMITS = "commits"  # two commits (or the empty tree and a commit)
    WORKTREE = "worktree"  # a commit vs the working tree
    INDEX = "index"  # a commit vs the index (``--staged``)


class Kind(str, Enum):
    TWO_DOT = "two-dot"
    THREE_DOT = "three-dot"
    PARENT = "parent"  # ``C^!`` / ``C^-N``
    SINGLE = "single"  # one revision vs the working tree or the index


class RangeRequest(NamedTuple):
    """A parsed, not yet resolved, range: revision texts as the user wrote them."""

    label: str
    kind: Kind
    mode: Mode
    left: str
    right: str | None = None
    parent: int = 1  # for Kind.PARENT


class ResolvedRange(NamedTuple):
    """Both sides as object ids.

    ``base``/``head`` are commit ids, ``None`` for the working tree/index side
    (``head``) or for "no commit at all" (``base``: root commit, unborn
    branch), in which case ``old`` is the empty tree.
    """

    label: str
    mode: Mode
    base: str | None
    head: str | None
    old: str  # the object git diff compares from: ``base`` or the empty tree

    @property
    def is_commit_pair(self) -> bool:
        """Both sides fixed objects: the diff never changes (content-addressed cache)."""
        return self.mode is Mode.COMMITS and self.head is not None

    def diff_args(self) -> list[str]:
        """The revision arguments for ``git diff`` (object ids only)."""
        if self.mode is Mode.COMMITS:
            assert self.head is not None
            return [self.old, self.head]
        if self.mode is Mode.INDEX:
            return ["--cached", self.old]
        return [self.old]


def check_revision(rev: str, whole: str) -> None:
    """Refuse revision text that git could take for an option or that breaks a line."""
    if any(c in rev for c in "\0\n\r"):
        raise RefusedRange(
            f"The range {whole!r} contains a NUL, newline or carriage return and was refused.",
            suggestion="Pass branch names, tags or commit ids such as `main..feature`.",
        )
    if rev.startswith("-"):
        raise RefusedRange(
            f"The range {whole!r} was refused: {rev!r} starts with '-' and could be read "
            "as a git option.",
            suggestion="Pass branch names, tags or commit ids such as `main..feature` "
            "(options like --staged are separate parameters).",
        )


def parse_range(revision_range: str | None, staged: bool = False) -> RangeRequest:
    """Parse ``RANGE`` (see the module docstring); no git is run."""
    if revision_range is None:
        text = "HEAD"
    else:
        if not isinstance(revision_range, str):
            raise RefusedRange(f"The range {revision_range!r} is not text.")
        check_revision(revision_range, revision_range)
        text = revision_range.strip()
        if not text:
            raise RefusedRange(
                "The range is empty.",
                suggestion="Omit it to review uncommitted changes, or pass e.g. `main..HEAD`.",
            )
        check_revision(text, revision_range)
    if staged:
        for part in text.split(".."):
            check_revision(part.lstrip("."), text)
        if ".." in text or text.endswith("^!") or "^-" in text:
            raise GitError(
                f"--staged compares the index with one commit; {text!r} is a range.",
                suggestion="Pass no range (index vs HEAD) or a single revision with --staged.",
            )
        return RangeRequest(f"index vs {text}", Kind.SINGLE, Mode.INDEX, text)
    if "..." in text:
        left, right = text.split("...", 1)
        return _pair(text, Kind.THREE_DOT, left, right)
    if ".." in text:
        left, right = text.split("..", 1)
        return _pair(text, Kind.TWO_DOT, left, right)
    if text.endswith("^!"):
        commit = text[:-2]
        _check_side(commit, text)
        return RangeRequest(text, Kind.PARENT, Mode.COMMITS, commit)
    marker = text.rfind("^-")
    if marker > 0 and (text[marker + 2 :] == "" or text[marker + 2 :].isdigit()):
        commit, number = text[:marker], text[marker + 2 :]
        _check_side(commit, text)
        parent = int(number) if number else 1
        if parent < 1:
            raise GitError(f"{text!r}: parent numbers start at 1.")
        return RangeRequest(text, Kind.PARENT, Mode.COMMITS, commit, parent=parent)
    label = "working tree vs HEAD" if text == "HEAD" else f"working tree vs {text}"
    return RangeRequest(label, Kind.SINGLE, Mode.WORKTREE, text)


def _check_side(rev: str, whole: str) -> None:
    if not rev:
        raise RefusedRange(f"The range {whole!r} names no revision.")
    check_revision(rev, whole)


def _pair(text: str, kind: Kind, left: str, right: str) -> RangeRequest:
    left = left or "HEAD"
    right = right or "HEAD"
    check_revision(left, text)
    check_revision(right, text)
    return RangeRequest(text, kind, Mode.COMMITS, left, right)


def resolve_range(repo: Repo, request: RangeRequest) -> ResolvedRange:
    """Resolve every side of ``request`` to object ids (see :class:`ResolvedRange`)."""
    if request.mode is not Mode.COMMITS and repo.bare:
        where = "working tree" if request.mode is Mode.WORKTREE else "index"
        raise GitError(
            f"{repo.path} is a bare repository: it has no {where} to review.",
            suggestion="Review commits instead, e.g. `HEAD~1..HEAD` or `HEAD^!`.",
        )
    if request.kind is Kind.SINGLE:
        base = resolve_commit(repo, request.left, request.label, allow_unborn=True)
        return ResolvedRange(request.label, request.mode, base, None, base or empty_tree(repo))
    if request.kind is Kind.PARENT:
        head = resolve_commit(repo, request.left, request.label)
        assert head is not None
        parents = repo.git.text(["rev-list", "--parents", "-n", "1", head, "--"]).split()[1:]
        if not parents and _shallow_boundary(repo, head):
            raise GitError(
                f"{request.label!r}: the parents of commit {head[:SHORT_ID]} are not in this "
                "shallow clone, so its changes cannot be shown.",
                suggestion="Fetch more history first, e.g. `git fetch --deepen=1`.",
            )
        if request.parent > max(len(parents), 1):
            raise GitError(
                f"{request.label!r}: commit {head[:SHORT_ID]} has {len(parents)} parent(s), "
                f"not {request.parent}.",
            )
        # A root commit (no parent) is compared with the empty tree.
        base = parents[request.parent - 1] if parents else None
        return ResolvedRange(request.label, Mode.COMMITS, base, head, base or empty_tree(repo))
    assert request.right is not None
    # Both sides asked at once (a failure is then explained side by side, left first).
    left_proc, head_proc = repo.git.run_all([_verify(request.left), _verify(request.right)])
    left = _commit_of(left_proc, repo, request.left, request.label)
    head = _commit_of(head_proc, repo, request.right, request.label)
    assert left is not None and head is not None
    start = left
    if request.kind is Kind.THREE_DOT:
        proc = repo.git.run(["merge-base", left, head], check=False)
        if proc.returncode != 0:
            raise GitError(
                f"{request.left!r} and {request.right!r} have no common ancestor, so "
                f"{request.label!r} has no merge base.",
                suggestion=f"Use a two-dot range instead: `{request.left}..{request.right}`.",
            )
        start = proc.stdout.decode().split()[0]
    return ResolvedRange(request.label, Mode.COMMITS, start, head, start)


def range_refs(repo: Repo, request: RangeRequest) -> tuple[str | None, str | None]:
    """The refs that name the two sides of a two- or three-dot range (or the commit of
    ``C^!``), as given: ``(base ref, head branch)``.  The head's is a branch (``refs/heads/...``,
    ``refs/remotes/...``) or None (a tag, a commit id, an expression); the base's any
    ref (``refs/heads/main``, ``refs/tags/v1``) or None.  ``(None, None)`` for another
    kind of range.  A range whose head is a branch is that branch's review when the
    branch (or its base branch) moves."""
    if request.mode is not Mode.COMMITS or request.kind is Kind.SINGLE:
        return None, None
    if request.kind is Kind.PARENT:  # ``feature^!``: the branch's last commit
        head = _ref_of(repo.git.run(_full_name(request.left), check=False))
        return (None, head) if head is not None and _is_branch(head) else (None, None)
    assert request.right is not None
    left, right = repo.git.run_all([_full_name(request.left), _full_name(request.right)])
    head = _ref_of(right)
    if head is None or not _is_branch(head):
        return None, None
    return _ref_of(left), head


def _is_branch(ref: str) -> bool:
    return ref.startswith(("refs/heads/", "refs/remotes/"))


def _full_name(rev: str) -> list[str]:
    return ["rev-parse", "--symbolic-full-name", "--end-of-options", rev]


def _ref_of(proc: subprocess.CompletedProcess[bytes]) -> str | None:
    if proc.returncode != 0:
        return None
    names = [
        n for n in proc.stdout.decode("utf-8", "replace").splitlines() if n.startswith("refs/")
    ]
    return names[0] if len(names) == 1 else None


def resolve_commit(repo: Repo, rev: str, label: str, *, allow_unborn: bool = False) -> str | None:
    """The commit id ``rev`` names; ``None`` for an unborn ``HEAD`` when ``allow_unborn``."""
    return _commit_of(repo.git.run(_verify(rev), check=False), repo, rev, label, allow_unborn)


def _verify(rev: str) -> list[str]:
    return ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"]


def _commit_of(
    proc: subprocess.CompletedProcess[bytes],
    repo: Repo,
    rev: str,
    label: str,
    allow_unborn: bool = False,
) -> str | None:
    """What :func:`resolve_commit` returns, from the run of ``_verify(rev)``."""
    if proc.returncode == 0:
        return proc.stdout.decode().strip()
    if rev in ("HEAD", "@") and _head_is_unborn(repo):
        if allow_unborn:
            return None
        raise GitError(
            f"{repo.path} has no commits yet, so {label!r} cannot be reviewed.",
            suggestion="Review the uncommitted changes instead (no range, or --staged).",
        )
    raise NotARange(
        f"Unknown revision {rev!r} in {label!r}: it does not name a commit in {repo.path}.",
        suggestion=_revision_hint(repo, rev),
    )


def _head_is_unborn(repo: Repo) -> bool:
    proc = repo.git.run(["symbolic-ref", "--quiet", "HEAD"], check=False)
    if proc.returncode != 0:
        return False
    ref = proc.stdout.decode().strip()
    check = repo.git.run(["rev-parse", "--verify", "--quiet", "--end-of-options", ref], check=False)
    return check.returncode != 0


def _revision_hint(repo: Repo, rev: str) -> str:
    """Where to find valid names: the branches and tags closest to ``rev`` (a typo such
    as ``v8.4.2`` for ``8.4.2``), then the most recently made ones.

    Sorted by ``creatordate``: ``committerdate`` is empty for an annotated tag, which
    then sorted last (the oldest were offered first)."""
    proc = repo.git.run(
        [
            "for-each-ref",
            f"--count={REVISION_HINT_REFS}",
            "--sort=-creatordate",
            "--format=%(refname:short)",
            "refs/heads",
            "refs/tags",
        ],
        check=False,
    )
    names = proc.stdout.decode("utf-8", "replace").split() if proc.returncode == 0 else []
    hint = "Run `git log --oneline` or `git branch -a` to find valid names"
    if not names:
        return hint + "."
    import difflib  # only for this error: a diff's load does not pay for it

    close = difflib.get_close_matches(rev, names, n=REVISION_HINT_CLOSE, cutoff=0.6)
    recent = [n for n in names if n not in close][: REVISION_HINT_NAMES - len(close)]
    shown = ", ".join(recent)
    if close:
        return f"{hint}; closest names: {', '.join(close)}; recent branches and tags: {shown}."
    return f"{hint}; recent branches and tags: {shown}."


def _shallow_boundary(repo: Repo, commit: str) -> bool:
    """Whether ``commit`` is where a shallow clone's history is cut off (its parents
    were not fetched: git then shows it as having none)."""
    try:
        listed = read_small_file(os.path.join(repo.common_dir, "shallow"), SHALLOW_FILE_BYTES)
    except OSError:  # not a shallow clone (or not a file git could read either)
        return False
    return commit.encode("ascii") in listed.split()


def empty_tree(repo: Repo) -> str:
    """The id of the empty tree in this repository's hash algorithm.

    Asked every time (only root commits and unborn branches need it): a
    long-running server may meet a repository recreated at the same path
    with another hash algorithm.
    """
    return repo.git.text(["hash-object", "-t", "tree", "--stdin"], input=b"")
