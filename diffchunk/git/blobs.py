"""Blobs of a repository: find them, stream one into a file, or read a batch of small ones.

Object names reach git only as the argument of ``rev-parse --verify
--end-of-options``, which reads them as revisions, never as options
(``<id>^{blob}``, ``<commit>:<path>``, ``:<path>`` for the index); the
streaming itself (``cat-file blob <id>``) takes only a full object id that
``rev-parse`` or ``cat-file --batch-check`` gave; an abbreviated id is
looked up by :func:`object_info` on ``cat-file``'s standard input (data, never
an argument), which tells a missing object from an ambiguous prefix and gives
the type and size before a byte is read.  Nothing here writes to the
repository: ``hash-object`` runs without ``-w``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from ..errors import GitError
from ..limits import GIT_STREAM_BLOCK, OBJECT_ID_MIN_DIGITS
from .repo import Repo

_FULL_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _verified(repo: Repo, name: str) -> str | None:
    proc = repo.git.run(["rev-parse", "--verify", "--quiet", "--end-of-options", name], check=False)
    found = proc.stdout.decode("ascii", "replace").strip()
    return found if proc.returncode == 0 and _FULL_ID.fullmatch(found) else None


_OBJECT_ID = re.compile(rf"[0-9a-f]{{{OBJECT_ID_MIN_DIGITS},64}}")


class ObjectInfo(NamedTuple):
    """What the object store holds under a name: ``type`` is git's word for it
    (``blob``, ``tree``, ``commit``, ``tag``, with its full ``id`` and ``size`` in
    bytes), or ``missing``, or ``ambiguous`` (a prefix of several objects)."""

    type: str
    id: str = ""
    size: int = 0


def object_info(repo: Repo, object_id: str) -> ObjectInfo:
    """The object ``object_id`` names: hex digits, a full id or a prefix of at least
    :data:`~diffchunk.limits.OBJECT_ID_MIN_DIGITS` (git's minimum)."""
    if not _OBJECT_ID.fullmatch(object_id):
        raise GitError(f"Not an object id: {object_id!r}.")
    proc = repo.git.run(
        ["cat-file", "--batch-check=%(objecttype) %(objectname) %(objectsize)"],
        input=f"{object_id}\n".encode("ascii"),
    )
    answer = proc.stdout.decode("ascii", "replace").split()
    if len(answer) == 3 and _FULL_ID.fullmatch(answer[1]) and answer[2].isdigit():
        return ObjectInfo(answer[0], answer[1], int(answer[2]))
    if answer == [object_id, "missing"] or answer == [object_id, "ambiguous"]:
        return ObjectInfo(answer[1])
    raise GitError(f"git cat-file --batch-check answered {' '.join(answer)!r} for {object_id}.")


def blob_at(repo: Repo, treeish: str | None, path: str) -> str | None:
    """The blob ``path`` has in the commit ``treeish`` (a full id), or in the index when
    ``treeish`` is None; None when it has none there."""
    if treeish is not None and not _FULL_ID.fullmatch(treeish):
        raise GitError(f"Not a commit id: {treeish!r}.")
    if "\n" in path or "\0" in path:
        return None
    # The index's stage 0 named in full: ":<path>" reads "1:x" as stage 1 of x and
    # ":/x" as a search of commit messages.
    return _verified(repo, f"{treeish}:{path}" if treeish is not None else f":0:{path}")


def stream_blob(repo: Repo, blob: str, fd: int) -> Iterator[bytes]:
    """Write the blob (a full id) into the file open at ``fd`` (for reading and writing,
    empty), yielding what git wrote, block by block, as it comes."""
    if not _FULL_ID.fullmatch(blob):
        raise GitError(f"Not a blob id: {blob!r}.")
    stream = repo.git.start_into(
        ["cat-file", "blob", blob], fd, block_size=GIT_STREAM_BLOCK, what="git cat-file"
    )
    yield from stream.blocks()


def cleaned_blob_id(repo: Repo, path: str, fd: int) -> str | None:
    """The blob id git would give the work-tree file open at ``fd`` if ``path`` were
    added (line-ending conversion applied; filter drivers are off, see
    :mod:`~diffchunk.git.runner`), or None when git cannot tell."""
    if "\n" in path or "\0" in path:
        return None
    proc = repo.git.start(["hash-object", f"--path={path}", "--stdin"], stdin=fd)
    found = proc.finish(check=False)
    text = found.stdout.decode("ascii", "replace").strip()
    return text if found.returncode == 0 and _FULL_ID.fullmatch(text) else None


def read_blobs(repo: Repo, ids: Sequence[str], max_bytes: int, max_total: int) -> dict[str, bytes]:
    """The content of each blob of ``ids`` (full ids) at most ``max_bytes`` long, while
    their total stays within ``max_total``; larger ones (and missing ones) are left out.

    Two processes whatever the count: ``cat-file --batch-check`` for the sizes,
    then ``cat-file --batch`` for the blobs kept.
    """
    wanted = [i for i in dict.fromkeys(ids) if _FULL_ID.fullmatch(i)]
    if not wanted:
        return {}
    checked = repo.git.run(
        ["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"],
        input="".join(f"{i}\n" for i in wanted).encode("ascii"),
    )
    keep: list[str] = []
    total = 0
    for line in checked.stdout.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) != 3 or parts[1] != "blob":
            continue
        size = int(parts[2])
        if size <= max_bytes and total + size <= max_total:
            keep.append(parts[0])
            total += size
    if not keep:
        return {}
    out = repo.git.run(
        ["cat-file", "--batch"], input="".join(f"{i}\n" for i in keep).encode("ascii")
    ).stdout
    found: dict[str, bytes] = {}
    pos = 0
    while pos < len(out):
        eol = out.index(b"\n", pos)
        name, kind, size_text = out[pos:eol].decode("ascii").split()
        start = eol + 1
        end = start + int(size_text)
        if kind == "blob":
            found[name] = out[start:end]
        pos = end + 1  # the newline after each object
    return found
