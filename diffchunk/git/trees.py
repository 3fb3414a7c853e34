"""The files of a whole tree at one revision, read from the object store: list them,
read their blobs in batches, find those holding a fixed string.

Nothing is checked out and no work tree is read: a commit's tree is listed by
``git ls-tree -r -l -z --full-tree <commit>``, the index by ``git ls-files
-s -z`` (stage 0), and blobs are read by full id with ``git cat-file
--batch`` (ids on its standard input: data, never arguments), at most
:data:`BATCH_BYTES` a process so memory stays
bounded.  Only regular files and links are listed (a submodule is a commit
of another repository).

:func:`files_with` asks ``git grep -l -F`` which files hold a fixed string:
Boyer-Moore-like fixed-string search, linear in the tree, used only as a
prefilter (the caller's pattern is matched by :mod:`diffchunk.regex`).  It
runs in the sandbox like every git (:mod:`~diffchunk.git.runner`): no
``grep.*`` config, no textconv (git grep runs one only with ``--textconv``),
no pager (``--open-files-in-pager`` is never passed), and on a tree, never the
work tree.  A user's regex never reaches git grep's own engine.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from ..errors import GitError
from .repo import Repo
from .runner import split_z

BATCH_BYTES = 16 << 20
"""Bytes of blobs one ``git cat-file --batch`` reads for a tree-wide search: the
memory a search holds at once (a larger file is read alone)."""

_FULL_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_FILE_MODES = ("100644", "100755", "120000")


class TreeFile(NamedTuple):
    """One file of a tree: its path (UTF-8, undecodable bytes escaped as surrogates),
    mode, blob id and size in bytes (-1 when not known yet)."""

    path: str
    mode: str
    id: str
    size: int


def _check(treeish: str | None) -> None:
    if treeish is not None and not _FULL_ID.fullmatch(treeish):
        raise GitError(f"Not a commit id: {treeish!r}.")


def tree_files(repo: Repo, treeish: str | None) -> list[TreeFile]:
    """Every file of the commit ``treeish`` (a full id), or of the index when None."""
    _check(treeish)
    if treeish is None:
        return _index_files(repo)
    out = repo.git.run(
        ["ls-tree", "-r", "-l", "-z", "--full-tree", treeish], what="git ls-tree"
    ).stdout
    files = []
    for record in split_z(out):
        meta, _, name = record.partition(b"\t")
        fields = meta.split()
        if len(fields) != 4 or fields[0].decode() not in _FILE_MODES:
            continue
        size = int(fields[3]) if fields[3].isdigit() else -1
        path = name.decode("utf-8", "surrogateescape")
        files.append(TreeFile(path, fields[0].decode(), fields[2].decode(), size))
    return files


def _index_files(repo: Repo) -> list[TreeFile]:
    out = repo.git.run(["ls-files", "-s", "-z"], what="git ls-files").stdout
    files = []
    for record in split_z(out):
        meta, _, name = record.partition(b"\t")
        fields = meta.split()
        if len(fields) != 3 or fields[2] != b"0" or fields[0].decode() not in _FILE_MODES:
            continue
        path = name.decode("utf-8", "surrogateescape")
        files.append(TreeFile(path, fields[0].decode(), fields[1].decode(), -1))
    return _sized(repo, files)


def _sized(repo: Repo, files: list[TreeFile]) -> list[TreeFile]:
    """``files`` with their sizes, from ``cat-file --batch-check``."""
    if not files:
        return files
    out = repo.git.run(
        ["cat-file", "--batch-check=%(objectname) %(objectsize)"],
        input="".join(f"{f.id}\n" for f in files).encode("ascii"),
        what="git cat-file",
    ).stdout
    sizes = {}
    for line in out.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return [f._replace(size=sizes.get(f.id, -1)) for f in files]


def read_tree_blobs(repo: Repo, files: Sequence[TreeFile]) -> Iterator[tuple[TreeFile, bytes]]:
    """Each file of ``files`` (sizes known) with its content, in order; a batch of at
    most :data:`BATCH_BYTES` (or one larger file) per ``git cat-file --batch``."""
    batch: list[TreeFile] = []
    held = 0
    for file in files:
        if batch and held + file.size > BATCH_BYTES:
            yield from _batch(repo, batch)
            batch, held = [], 0
        batch.append(file)
        held += max(file.size, 0)
    if batch:
        yield from _batch(repo, batch)


def _batch(repo: Repo, files: list[TreeFile]) -> Iterator[tuple[TreeFile, bytes]]:
    ids = [f.id for f in files if _FULL_ID.fullmatch(f.id)]
    out = repo.git.run(
        ["cat-file", "--batch"],
        input="".join(f"{i}\n" for i in ids).encode("ascii"),
        what="git cat-file",
    ).stdout
    found: dict[str, bytes] = {}
    pos = 0
    while pos < len(out):
        eol = out.find(b"\n", pos)
        if eol < 0:
            break
        header = out[pos:eol].split(b" ")
        pos = eol + 1
        if len(header) != 3 or not header[2].isdigit():
            continue  # "<id> missing"
        size = int(header[2])
        if header[1] == b"blob":
            found[header[0].decode("ascii")] = out[pos : pos + size]
        pos += size + 1
    for file in files:
        data = found.get(file.id)
        if data is not None:
            yield file, data


def files_with(
    repo: Repo, treeish: str | None, text: str, *, case_sensitive: bool
) -> set[str] | None:
    """The paths of the files of ``treeish`` (the index when None) holding ``text``
    (ASCII case folded unless ``case_sensitive``); None when git cannot tell (then
    every file is a candidate)."""
    _check(treeish)
    if not text or "\n" in text or "\0" in text:
        return None
    args = ["grep", "-l", "-z", "-F", "--no-color", "--full-name"]
    if not case_sensitive:
        args.append("-i")
    args += ["-e", text]
    args += ["--cached"] if treeish is None else [treeish]
    proc = repo.git.run([*args, "--"], check=False, what="git grep")
    if proc.returncode not in (0, 1):
        return None
    prefix = b"" if treeish is None else treeish.encode("ascii") + b":"
    return {
        name.removeprefix(prefix).decode("utf-8", "surrogateescape")
        for name in split_z(proc.stdout)
    }
