"""The order of file sections in chunks, where it differs from the diff's.

Every chunk is applied on the tree the chunks before it left; one
``git apply`` of the whole diff reads some paths as they were before all of
it.  So copies move before the first change of their source, a section that
creates a path moves after the removals below that path, and a rename, copy
or deletion of a path an earlier commit of the chunk changed starts a new
chunk (see the rules in :mod:`diffchunk.diff.chunker`).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence

from diffchunk.diff.model import DiffKind, FileDiff, FileStatus, ParsedDiff
from diffchunk.diff.table import FileTable, FileView

__all__ = [
    "MOVES",
    "commit_heads",
    "copies_first",
    "replaced_directories_emptied_first",
    "source_changed_before",
]


class _Columns:
    """The fields of ``files`` the reorderings read, by position: from the table's
    columns for a :class:`~diffchunk.diff.table.FileView` (no FileDiff built), else
    from the files."""

    def __init__(self, files: Sequence[FileDiff]) -> None:
        if isinstance(files, FileTable | FileView):
            table = files.table if isinstance(files, FileView) else files
            at: Callable[[int], int] = (
                files.indices.__getitem__ if isinstance(files, FileView) else int
            )
            self.status: Callable[[int], FileStatus] = lambda k: table.status(at(k))
            self.old_path: Callable[[int], str | None] = lambda k: table.old_path(at(k))
            self.new_path: Callable[[int], str | None] = lambda k: table.new_path(at(k))
            self.commit: Callable[[int], int | None] = lambda k: table.commit(at(k))
            self.index: Callable[[int], int] = at
        else:
            self.status = lambda k: files[k].status
            self.old_path = lambda k: files[k].old_path
            self.new_path = lambda k: files[k].new_path
            self.commit = lambda k: files[k].commit
            self.index = lambda k: files[k].index
        self._files = files

    def having(self, statuses: tuple[FileStatus, ...]) -> Iterator[int]:
        """The positions of the files of one of ``statuses``, in order (read from the
        table's status column when there is one)."""
        files = self._files
        if isinstance(files, FileTable | FileView):
            table = files.table if isinstance(files, FileView) else files
            status = table.status
            if isinstance(files, FileView):
                return (k for k, i in enumerate(files.indices) if status(i) in statuses)
            return (i for i in range(len(table)) if status(i) in statuses)
        return (k for k, fd in enumerate(files) if fd.status in statuses)


def copies_first(files: Sequence[FileDiff]) -> Sequence[FileDiff]:
    """``files`` with every copy moved before the first change of its source.

    Only within one commit: in a ``git log -p`` stream each commit's copies
    read the tree its parent left.  Other files keep their order.
    """
    copied = FileStatus.COPIED
    if not any(True for _ in _Columns(files).having((copied,))):
        return files
    first: dict[tuple[int | None, str], int] = {}  # (commit, path) -> position in out
    out: list[FileDiff] = []
    moved = False
    for fd in files:
        source = fd.old_path
        if fd.status is FileStatus.COPIED and fd.kind is DiffKind.GIT and source is not None:
            at = first.get((fd.commit, source))
            if at is not None:
                out.insert(at, fd)
                for key, pos in first.items():
                    if pos >= at:
                        first[key] = pos + 1
                moved = True
                continue
        else:
            for path in (fd.old_path, fd.new_path):
                if path is not None:
                    first.setdefault((fd.commit, path), len(out))
        out.append(fd)
    return out if moved else files


def replaced_directories_emptied_first(files: Sequence[FileDiff]) -> Sequence[FileDiff]:
    """``files`` with each section that creates a path P after those of its commit that
    remove a path below ``P/`` (a directory replaced by a file or symlink).

    git lists P before ``P/x`` (path order): one ``git apply`` of the whole
    diff copes, but a chunk creating P while ``P/x`` still exists does not
    apply.  Other sections keep their order (a stable topological sort), and
    a copy stays before every section that changes its source (see
    :func:`copies_first`): moved past one, it would copy the changed file.
    """
    col = _Columns(files)
    below: dict[tuple[int | None, str], list[int]] = {}  # (commit, directory) -> removals
    for pos in col.having(_VACATES):
        old_path = col.old_path(pos)
        if old_path is not None:
            directory = old_path
            while "/" in directory:
                directory = directory.rsplit("/", 1)[0]
                below.setdefault((col.commit(pos), directory), []).append(pos)
    if not below:
        return files
    after: dict[int, list[int]] = {}  # removal -> the creations that must follow it
    waiting = [0] * len(files)  # removals each section must follow
    for pos in col.having(_CREATES):
        new_path = col.new_path(pos)
        if new_path is not None:
            for removal in below.get((col.commit(pos), new_path), ()):
                if removal > pos:
                    after.setdefault(removal, []).append(pos)
                    waiting[pos] += 1
    if not after:
        return files
    touching: dict[tuple[int | None, str], list[int]] = {}  # (commit, path) -> sections
    for pos, fd in enumerate(files):
        for path in {fd.old_path, fd.new_path} - {None}:
            touching.setdefault((fd.commit, path), []).append(pos)  # type: ignore[arg-type]
    for pos, fd in enumerate(files):
        if fd.status is FileStatus.COPIED and fd.old_path is not None:
            for other in touching.get((fd.commit, fd.old_path), ()):
                if other > pos:
                    after.setdefault(pos, []).append(other)
                    waiting[other] += 1
    ready = [pos for pos in range(len(files)) if not waiting[pos]]
    heapq.heapify(ready)
    out: list[FileDiff] = []
    while ready:
        pos = heapq.heappop(ready)
        out.append(files[pos])
        for follower in after.get(pos, ()):
            waiting[follower] -= 1
            if not waiting[follower]:
                heapq.heappush(ready, follower)
    # A cycle cannot come from git's output; should one come, nothing is dropped.
    return out if len(out) == len(files) else files


_VACATES = (FileStatus.DELETED, FileStatus.RENAMED)  # the old path is gone afterwards
_CREATES = (FileStatus.ADDED, FileStatus.RENAMED, FileStatus.COPIED)

# Sections that read their old path as it was before the whole patch.
MOVES = (FileStatus.RENAMED, FileStatus.COPIED, FileStatus.DELETED)


def source_changed_before(files: FileTable, earlier: Sequence[int], i: int) -> bool:
    """Whether a section of an earlier commit among ``earlier`` (positions in ``files``)
    touches the old path of section ``i``.

    One ``git apply`` reads every rename and copy source from the tree before
    the whole patch, and silently keeps a file that the same patch changes and
    then deletes; so a rename, copy or deletion of a path changed by an
    earlier commit of the chunk being filled must start a new chunk.
    """
    source, commit = files.old_path(i), files.commit(i)
    for k in earlier:
        if files.commit(k) != commit and source in (files.old_path(k), files.new_path(k)):
            return True
    return False


def commit_heads(parsed: ParsedDiff, files: Sequence[FileDiff]) -> dict[int, tuple[int, int]]:
    """File index -> span of its commit's header/message, for each commit's first file."""
    heads: dict[int, tuple[int, int]] = {}
    if not parsed.commits:
        return heads
    by_index = {c.index: c for c in parsed.commits}
    seen: set[int] = set()
    col = _Columns(files)
    for pos in range(len(files)):
        commit_index = col.commit(pos)
        if commit_index is None or commit_index in seen:
            continue
        seen.add(commit_index)
        commit = by_index.get(commit_index)
        if commit is None or not 0 <= commit.segment < len(parsed.segments):
            continue
        seg = parsed.segments[commit.segment]
        if seg.end > seg.start:
            heads[col.index(pos)] = (seg.start, seg.end)
    return heads
