"""``open_file_version``: a file as it is on one side of a diff, readable by the file tools.

The file is written to a read-only snapshot in the cache (:mod:`diffchunk.snapshots`)
whose lines are the diff's lines for that side, so ``read_content``,
``search_content`` and ``get_overview`` work on it with the hunks' line
numbers.  Where its bytes come from:

- **A range** (a diff written by ``load_git_diff``; its sidecar names the
  repository): the blob ids of the diff's ``index`` lines (written with
  ``--full-index``), streamed from the object store with ``git cat-file`` —
  in a bare repository too, without touching any work tree.  A section
  without an ``index`` line (a pure rename, a mode change) takes the blob of
  the path in the range's commit.
- **The index** (``staged``): the new side is the index's blob, as the
  diff's ``index`` line names it.
- **The working tree**: the new side is the file on disk, snapshotted and
  checked against the blob id of the diff's ``index`` line (git's line-ending
  conversion allowed for; a section without one, a mode change or a pure
  rename, against the old side's blob); a file changed since the diff was
  loaded is refused, saying how to load it again.
- **A diff file**: its ``index`` lines' ids are looked up in
  ``absolute_repo_path`` by git, which must find exactly one blob (an id
  shorter than git's minimum abbreviation, an ambiguous one, or one naming
  another type of object is refused); a new side not in the object store (a
  working-tree diff) is the work tree's file when its content hashes to the
  full id the diff names (``git diff --full-index``): an abbreviated id is
  never compared by prefix.  Without a repository, or without ``index``
  lines, the error says what to pass.

**Any file the diff does not show** (a path of the repository's tree, relative
to its top: no ``..``, ``.git`` or absolute path), of a range: the blob of the
path in the base (``old``), or in the head commit, the index, or for the
working tree the base (``new``: the diff shows every change of the work tree,
so a file it leaves out is the base's; outside the paths a range was limited
to, refused); the answer says ``in_diff: false`` and whether both sides hold
the same blob (``unchanged``).  A diff file's other files are at no known
revision: its error is the diff's.

A work tree's file is read by :mod:`~diffchunk.review.tools.work_tree_file`:
confined to the work tree and the allowed roots by construction, read once,
hashed as read.  Every snapshot's size is checked before it is written
(:func:`~diffchunk.snapshots.check_size`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from ...diff.model import DiffKind, FileDiff
from ...diff.paths import encode_path, is_escaped_path
from ...diff.syntax import INDEX_LINE
from ...errors import FileNotInDiff, FileToolError, InvalidArgument
from ...git.blobs import ObjectInfo, blob_at, object_info, stream_blob
from ...git.repo import Repo, discover
from ...limits import OBJECT_ID_MIN_DIGITS, SHORT_ID
from ...snapshots import Snapshot, SnapshotWriter, check_size, existing
from ..sessions.file_match import find_file, match_file
from ..sessions.loading import session
from ..sessions.sidecar import range_of
from ..sessions.store import Session, SessionStore
from .work_tree_file import FULL_ID, FULL_IDS, LINK_MODE, reload_advice, snapshot_work_tree_file

SIDES = ("new", "old")
_ZERO = re.compile(r"0+")
_INDEX = re.compile(rb"^" + INDEX_LINE.pattern, re.MULTILINE)


@dataclass(frozen=True, slots=True)
class OpenedVersion:
    """What ``open_file_version`` returns: the snapshot and what it is."""

    path: str  # the snapshot (absolute, read-only)
    revision: str | None  # a commit id, "index", "working tree"; None when unknown
    blob: str  # the blob id the diff gives that side
    line_count: int
    size: int
    file_path: str  # the file's path in the repository on that side
    side: str
    binary: bool = False
    unchanged: bool | None = None  # a file the diff does not show: same on both sides?

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "path": self.path,
            "revision": self.revision,
            "blob": self.blob,
            "line_count": self.line_count,
            "size": self.size,
            "file_path": self.file_path,
            "side": self.side,
        }
        if self.binary:
            result["binary"] = True
        if self.unchanged is not None:
            result["in_diff"] = False
            result["unchanged"] = self.unchanged
        return result


@dataclass(frozen=True, slots=True)
class _Where:
    """The repository of a diff and what its sides are."""

    repo: Repo
    kind: str  # "commits", "index", "worktree" (a range's), or "file" (a diff file's)
    base: str | None
    head: str | None


@dataclass(frozen=True, slots=True)
class SideSource:
    """Where a range's sides are: its repository, what its new side is (``kind``:
    ``commits``, ``index`` or ``worktree``), its base and head commits, and the new
    side's revision as the answers name it."""

    repo: Repo
    kind: str
    base: str | None
    head: str | None
    new_revision: str | None


def side_source(loaded: Session) -> SideSource:
    """The sides of a range loaded with ``load_git_diff``; a diff file is refused (its
    files other than the diff's are at no known revision)."""
    recorded = range_of(loaded.path)
    if recorded is None:
        raise InvalidArgument(
            f"{loaded.path} is a diff file, not a range loaded from a repository: the "
            "tree at its sides is not known.",
            suggestion="Review the range itself with load_git_diff, then pass its file_path.",
        )
    where = _where(loaded, None)
    return SideSource(
        where.repo, where.kind, where.base, where.head, _revision(loaded, where, None, "new")
    )


def index_ids(data: bytes | Any, fd: FileDiff) -> tuple[str | None, str | None]:
    """The old and new blob ids of a section's ``index`` line (None without one; the old
    one None for a merge's combined section, which has several)."""
    m = _INDEX.search(data, fd.start, fd.header_end)
    if m is None:
        return None, None
    old = m.group(1).decode("ascii")
    return (None if "," in old else old), m.group(2).decode("ascii")


def _where(loaded: Session, absolute_repo_path: str | None) -> _Where:
    """Where the blobs of the diff come from (kept with the session)."""
    key = f"file_versions.where:{absolute_repo_path}"
    cached = loaded.cache.get(key)
    if absolute_repo_path is None and cached is None:
        cached = loaded.cache.get("file_versions.where")  # the repository given last time
    if isinstance(cached, _Where):
        return cached
    recorded = range_of(loaded.path)
    if recorded is not None:
        kind = "index" if recorded.staged else ("commits" if recorded.head else "worktree")
        where = _Where(discover(recorded.repo), kind, recorded.base, recorded.head)
    elif absolute_repo_path is not None:
        where = _Where(discover(absolute_repo_path), "file", None, None)
    else:
        raise InvalidArgument(
            f"{loaded.path} is a diff file, not a range loaded from a repository, so the "
            "repository holding its files is not known.",
            suggestion="Pass absolute_repo_path: the repository the diff was made in (its "
            "'index' lines name the blobs to read there); or review the range itself with "
            "load_git_diff.",
        )
    loaded.cache[key] = loaded.cache["file_versions.where"] = where
    return where


def _section(loaded: Session, file_path: str, side: str) -> tuple[str, FileDiff, str]:
    """The diff's path of the file, the section that gives ``side``, and the file's
    path in the repository on that side."""
    if side not in SIDES:
        raise InvalidArgument(f"side must be 'new' or 'old', got {side!r}.")
    review = loaded.review
    path = match_file(review, file_path)
    sections = [fd for fd in review.parsed.files if fd.path == path]
    fd = sections[-1] if side == "new" else sections[0]
    on_side = fd.new_path if side == "new" else fd.old_path
    if on_side is None:
        how = "added" if side == "old" else "deleted"
        other = "new" if side == "old" else "old"
        raise FileNotInDiff(
            f"{path} is {how} in this diff: it has no {side} side.",
            suggestion=f"Open its {other} side (side='{other}').",
        )
    if fd.is_submodule:
        raise InvalidArgument(
            f"{path} is a submodule: its sides are commits of another repository, not files."
        )
    if fd.kind is DiffKind.COMBINED and side == "old":
        raise InvalidArgument(
            f"{path} is a merge's combined diff: it has several old sides.",
            suggestion="Open its new side, or review the merge against one parent (C^1..C).",
        )
    return path, fd, on_side


def _disk_name(path: str) -> str:
    return os.fsdecode(encode_path(path)) if is_escaped_path(path) else path


def _revision(loaded: Session, where: _Where, fd: FileDiff | None, side: str) -> str | None:
    if where.kind == "file" and fd is not None:
        commits = loaded.review.parsed.commits
        sha = commits[fd.commit].sha if fd.commit is not None and commits else None
        return None if sha is None else (sha if side == "new" else f"{sha}^")
    if side == "old":
        return where.base
    return {"commits": where.head, "index": "index", "worktree": "working tree"}[where.kind]


def open_file_version(
    absolute_file_path: str,
    file_path: str,
    side: str = "new",
    absolute_repo_path: str | None = None,
    *,
    store: SessionStore | None = None,
) -> OpenedVersion:
    """Snapshot ``file_path`` as it is on ``side`` of the diff (see the module docstring)."""
    loaded = session(absolute_file_path, store)
    if side in SIDES and find_file(loaded.review, file_path) is None:
        return _outside_diff(loaded, _where(loaded, absolute_repo_path), file_path.strip(), side)
    _, fd, on_side = _section(loaded, file_path, side)
    where = _where(loaded, absolute_repo_path)
    old_id, new_id = index_ids(loaded.review.parsed.data, fd)
    wanted = new_id if side == "new" else old_id
    revision = _revision(loaded, where, fd, side)
    source = {
        "repo": where.repo.path,
        "root": where.repo.root,
        "path": on_side,
        "revision": revision,
        "side": side,
    }
    name = os.path.basename(_disk_name(on_side))
    expected: str | None = wanted
    if side == "new" and where.kind == "worktree":
        found = None
        expected = wanted if wanted is not None else _unchanged_blob(where, fd, on_side)
    else:
        found = _blob(where, side, on_side, wanted)
    if found is None:  # the work tree's file: checked against the diff's blob id
        snap = snapshot_work_tree_file(
            where.repo,
            on_side,
            expected,
            name,
            source,
            link=fd.new_mode == LINK_MODE,
            diff_file=where.kind == "file",
        )
    else:
        snap = _from_object_store(where.repo, found, name, source, f"{on_side} ({side} side)")
    return OpenedVersion(
        path=snap.path,
        revision=revision,
        blob=found.id if found is not None else snap.blob if expected is None else expected,
        line_count=snap.line_count,
        size=snap.size,
        file_path=on_side,
        side=side,
        binary=fd.is_binary,
    )


def _blob(where: _Where, side: str, on_side: str, wanted: str | None) -> ObjectInfo | None:
    """The blob of ``side`` in the object store; None when only the work tree can give
    it (a diff file's new side that is not in the object store, by its full id)."""
    if wanted is not None and not _ZERO.fullmatch(wanted):
        return _lookup(where, side, on_side, wanted)
    if where.kind == "file":
        raise FileToolError(
            f"The diff gives no blob id for {on_side} ({side} side): its section has no "
            "'index' line.",
            suggestion="Review a diff made by git (git diff, git log -p, format-patch), or "
            "the range itself with load_git_diff.",
        )
    treeish = where.head if side == "new" else where.base
    if side == "new" and where.kind == "index":
        treeish = None  # the index
    if treeish is None and not (side == "new" and where.kind == "index"):
        other = "old" if side == "new" else "new"
        raise FileToolError(
            f"{on_side} has no {side} side in this range.",
            suggestion=f"Open its {other} side (side='{other}'); for a since-review diff, "
            "the full diff (since_review.full_file_path) has both sides of each file.",
        )
    found = blob_at(where.repo, treeish, on_side)
    if found is None:
        raise FileToolError(f"{on_side} is not in {treeish or 'the index'} of {where.repo.path}.")
    return _lookup(where, side, on_side, found)


def _lookup(where: _Where, side: str, on_side: str, wanted: str) -> ObjectInfo | None:
    """The one blob ``wanted`` names in the object store (see :func:`_blob`)."""
    shown, repo = f"{on_side} ({side} side)", where.repo.path
    if len(wanted) < OBJECT_ID_MIN_DIGITS:
        raise FileToolError(
            f"The diff names the blob of {shown} by {wanted!r}, fewer than the "
            f"{OBJECT_ID_MIN_DIGITS} hex digits git takes as an object id: it names no one "
            "object, and nothing is read for it.",
            suggestion=f"{FULL_IDS}, or review the range itself with load_git_diff.",
        )
    info = object_info(where.repo, wanted)
    if info.type == "blob":
        return info
    if info.type == "ambiguous":
        raise FileToolError(
            f"The id {wanted} of {shown} is ambiguous in the repository {repo}: several "
            "objects start with it, so nothing is read for it.",
            suggestion=f"{FULL_IDS}, or review the range itself with load_git_diff.",
        )
    if info.type != "missing":
        raise FileToolError(
            f"The id {wanted} of {shown} names a {info.type} in the repository {repo}, not a "
            "file's blob.",
            suggestion="Pass as absolute_repo_path the repository the diff was made in.",
        )
    if where.kind == "file" and side == "new" and where.repo.root is not None:
        if FULL_ID.fullmatch(wanted):
            return None  # a working-tree diff: the work tree's file, if it has this id
        raise FileToolError(
            f"The blob {wanted} of {shown} is not in the repository {repo}, and an "
            "abbreviated id cannot vouch for a file of its work tree (its first digits are "
            "all it gives).",
            suggestion=f"{FULL_IDS} to open the working tree's file, or review the working "
            f'tree itself with load_git_diff(absolute_repo_path="{repo}"); if the diff was '
            "made in another repository, pass that one as absolute_repo_path.",
        )
    raise FileToolError(
        f"The blob {wanted} of {shown} is not in the repository {repo}.",
        suggestion="Pass as absolute_repo_path the repository the diff was made in "
        "(fetch the commits it shows first).",
    )


def _unchanged_blob(where: _Where, fd: FileDiff, on_side: str) -> str:
    """The blob a working tree's file must have when its section has no ``index`` line
    (a mode change, a rename without an edit): the old side's, in the range's base."""
    old_path = fd.old_path or on_side
    found = None if where.base is None else blob_at(where.repo, where.base, old_path)
    if found is None:
        raise FileToolError(
            f"The diff shows no content for {on_side} (no 'index' line), and the range "
            f"does not say which blob {old_path} had before it.",
            suggestion=reload_advice(where.repo),
        )
    return found


def _from_object_store(
    repo: Repo, blob: ObjectInfo, name: str, source: dict[str, Any], shown: str
) -> Snapshot:
    """The snapshot of ``blob`` (written from the object store unless it is there)."""
    found = existing(blob.id, name, source)
    if found is not None:
        return found
    check_size(
        blob.size,
        f"The blob {blob.id[:SHORT_ID]} of {shown}",
        f"Page through it where it is: read_content on the file in a work tree that has "
        f"this version, or git -C {repo.path} cat-file blob {blob.id}",
    )
    writer = SnapshotWriter(name, "sha256" if len(blob.id) == 64 else "sha1", size=blob.size)
    try:
        for block in stream_blob(repo, blob.id, writer.fd):
            writer.feed(block)
        if writer.blob != blob.id:
            raise FileToolError(f"git cat-file gave other content than the blob {blob.id}.")
    except BaseException:
        writer.abort()
        raise
    return writer.commit(source)


def _tree_path(file_path: str) -> str:
    """``file_path`` as a path of the repository's tree (relative to its top)."""
    names = file_path.removeprefix("./").split("/")
    if (
        "\n" in file_path
        or "\0" in file_path
        or any(n in ("", ".", "..") or n.lower() == ".git" for n in names)
    ):
        raise InvalidArgument(
            f"{file_path!r} is no path of the repository's tree.",
            suggestion="Pass the path relative to the repository's top, e.g. 'src/app.py'.",
        )
    return "/".join(names)


def _outside_diff(loaded: Session, where: _Where, file_path: str, side: str) -> OpenedVersion:
    """A file the diff does not show, at the range's base (``old``) or at its head,
    index or work tree (``new``): read from the object store (the work tree's side of
    a file the diff leaves out is its base's blob, unchanged since), and said to be
    unchanged when both sides hold the same blob."""
    if where.kind == "file":
        match_file(loaded.review, file_path)  # the diff file's error: no revision is known
    path = _tree_path(file_path)
    recorded = range_of(loaded.path)
    limited = recorded is not None and recorded.paths and not _under(path, recorded.paths)
    if where.kind == "worktree" and limited:
        raise FileNotInDiff(
            f"{path} is outside the paths this range was limited to: its working-tree "
            "version is not known from the diff.",
            suggestion="Open side='old' (the base), or load the range without paths.",
        )
    old = None if where.base is None else blob_at(where.repo, where.base, path)
    if where.kind == "commits":
        new = blob_at(where.repo, where.head, path)
    else:  # the index; the work tree, the base's blob (unchanged since)
        new = blob_at(where.repo, None, path) if where.kind == "index" else old
    found = old if side == "old" else new
    revision = where.base if side == "old" else _revision(loaded, where, None, side)
    if found is None:
        other = new if side == "old" else old
        raise FileNotInDiff(
            f"{path} is neither in the diff nor in {revision or 'the empty tree'} "
            f"({side} side) of {where.repo.path}.",
            suggestion=(
                f"It exists on the other side: open side='{'new' if side == 'old' else 'old'}'."
                if other is not None
                else "Pass a path relative to the repository's top; search_code finds "
                "files by their content, list_chunks lists the diff's."
            ),
        )
    kind = object_info(where.repo, found).type
    if kind in ("tree", "commit"):
        what = "a directory" if kind == "tree" else "a submodule (a commit of another repository)"
        raise FileNotInDiff(
            f"{path} is {what} in {revision} ({side} side), not a file.",
            suggestion=f"Open one of its files; search_code with file_pattern='{path}/**' "
            "finds them.",
        )
    info = _lookup(where, side, path, found)
    assert info is not None  # a full id from the object store
    name = os.path.basename(path)
    source = {
        "repo": where.repo.path,
        "root": where.repo.root,
        "path": path,
        "revision": revision,
        "side": side,
    }
    snap = _from_object_store(where.repo, info, name, source, f"{path} ({side} side)")
    return OpenedVersion(
        path=snap.path,
        revision=revision,
        blob=info.id,
        line_count=snap.line_count,
        size=snap.size,
        file_path=path,
        side=side,
        unchanged=old == new,
    )


def _under(path: str, prefixes: tuple[str, ...]) -> bool:
    return any(path == p.rstrip("/") or path.startswith(p.rstrip("/") + "/") for p in prefixes)
