"""Parse a range's diff while ``git diff`` writes it.

The range review starts ``git diff`` writing into a new cache entry
(:func:`diffchunk.git.diffwrite.start_diff`) and hands the writing to
:func:`parse_while_written`, which reads the entry as it grows: each block is
hashed and parsed as it comes (the parse overlaps git), every file section
found is told to ``git check-attr`` (which answers meanwhile, from the head
commit's tree read into a throw-away index) and to the filter's prescreen,
and the nested ``.gitattributes`` of the directories met are recorded (for a
later reuse of the entry to compare).  The parse reads the entry through a
mapping of what is there, never a copy of the whole diff in memory.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from ...diff.attributes import WANTED
from ...diff.buffer import DiffBuffer, map_file, map_threshold
from ...diff.filters import Prescreen
from ...diff.model import FileDiff, ParsedDiff
from ...diff.parser import StreamParser
from ...diff.paths import encode_path, is_escaped_path
from ...diff.pipeline import gc_paused
from ...git import diffwrite
from ...git.attributes import CommitIndex, StreamedCheckAttr
from ...git.diffwrite import DiffWriting, record_attribute_dirs
from ...git.repo import Repo
from ...git.revisions import Mode, ResolvedRange
from ...log import LazyLogger

logger = LazyLogger(__name__)  # see diffchunk.log


class StreamedDiff(NamedTuple):
    """What was learnt while ``git diff`` wrote a diff file: its parse and sha256.

    ``parsed.data`` is the file's content.  ``attributes`` already holds (or
    is computing) the attributes of every parsed path, as of the head commit
    (or the index / working tree); whoever takes it calls its ``close()``.
    ``prescreen`` holds the filter's verdicts for the files parsed early.
    ``attribute_files``: the nested ``.gitattributes`` as git diff found them
    (see :func:`~diffchunk.git.diffwrite.record_attribute_dirs`), for the
    sidecar.  ``identity``: ``(st_dev, st_ino)`` of the entry written (a
    writer of the same entry at once may rename its own over it, see
    :meth:`~diffchunk.review.sessions.store.SessionStore.adopt`).
    """

    parsed: ParsedDiff
    digest: str
    attributes: StreamedCheckAttr | None
    prescreen: Prescreen
    attribute_files: dict[str, str] | None
    identity: tuple[int, int]


def parse_while_written(
    repo: Repo,
    resolved: ResolvedRange,
    writing: DiffWriting,
    progress: Callable[[int], None] | None = None,
) -> StreamedDiff:
    """Read ``writing`` to its end, parsing and hashing as git writes.

    ``progress`` receives the bytes parsed so far.  On success the entry's
    flush to disk has started (:meth:`~diffchunk.git.cache.PendingEntry.start_flush`);
    the caller commits or stops ``writing``.  On failure the attribute source
    is closed; stopping git is the caller's.
    """
    index = CommitIndex(repo, resolved.head) if resolved.head is not None else None
    attributes: StreamedCheckAttr | None = None
    try:
        # The attributes: the head's tree is read and then asked about each
        # path as it is parsed, all while git diff runs.
        attributes = StreamedCheckAttr(
            repo,
            resolved.head,
            attributes=WANTED,
            index=resolved.mode is Mode.INDEX,
            prepared=index,
        )
        reader = _Reader(repo, writing, attributes)
        with gc_paused():
            for block in writing.blocks():
                reader.feed(block)
                if progress is not None:
                    progress(reader.parser.size)
            writing.entry.start_flush()
            return reader.finish()
    except BaseException:
        if attributes is not None:
            attributes.close()  # closes the index too
        elif index is not None:
            index.close()
        raise


class _Reader:
    """The state of one streamed parse: the parser, the hash and what was told so far."""

    def __init__(self, repo: Repo, writing: DiffWriting, attributes: StreamedCheckAttr) -> None:
        self.repo = repo
        self.writing = writing
        self.attributes = attributes
        self.parser = StreamParser(min_step=diffwrite.GIT_STREAM_BLOCK, growing=writing.entry.fd)
        self.prescreen = Prescreen()
        self.hasher = hashlib.sha256()
        self.told = 0  # files told to the attributes and the prescreen
        # What the nested attribute files are, for a later reuse to compare:
        # their directories are looked at as the parse finds them.
        self.nested: dict[str, str] | None = {} if repo.root is not None else None

    def feed(self, block: bytes) -> None:
        self.hasher.update(block)
        parser = self.parser
        parser.feed(block)
        if parser.file_count > self.told:
            files = parser.files_since(self.told)
            self.attributes.add(f.path for f in files)
            # The filter's own work on these files, done while git still writes.
            self.prescreen.add(files, parser.buffer, table=parser.table)
            self._record(_names(files))
            self.told = parser.file_count

    def finish(self) -> StreamedDiff:
        # The review refers to the entry's pages rather than to a copy of what
        # was read (the entry is never rewritten in place).
        digest = self.hasher.hexdigest()
        fd = self.writing.entry.fd
        parsed = self.parser.finish(_mapped(fd, self.parser.size, digest))
        table = self.parser.table  # the parse's files: read by column, none built
        self.attributes.add(map(table.path, range(self.told, len(table))))
        self._record((table.old_path(i), table.new_path(i)) for i in range(len(table)))
        st = os.fstat(fd)
        return StreamedDiff(
            parsed,
            digest,
            self.attributes,
            self.prescreen,
            self.nested,
            (st.st_dev, st.st_ino),
        )

    def _record(self, names: Iterable[tuple[str | None, str | None]]) -> None:
        if self.nested is not None:
            record_attribute_dirs(self.repo, _disk_paths(names), self.nested, self.writing.since_ns)


def _names(files: Iterable[FileDiff]) -> Iterator[tuple[str | None, str | None]]:
    return ((fd.old_path, fd.new_path) for fd in files)


def _disk_paths(names: Iterable[tuple[str | None, str | None]]) -> Iterator[str]:
    """The ``(old, new)`` paths of files as names on disk: a path shown with escapes
    (a name that is not UTF-8, or holds a backslash: see
    :func:`~diffchunk.diff.paths.decode_path`) is given back with surrogate
    escapes, as ``os.fsdecode`` makes them."""
    for pair in names:
        for path in pair:
            if path is None:
                continue
            yield os.fsdecode(encode_path(path)) if is_escaped_path(path) else path


def _mapped(fd: int, size: int, digest: str) -> DiffBuffer | None:
    """The entry being written, mapped when it is large (as other diff files are, see
    :func:`~diffchunk.diff.buffer.map_threshold`; a mapping holds a descriptor);
    None for a small one or where it cannot be: then a copy is used."""
    try:
        return map_file(fd, size, digest) if size >= map_threshold() else None
    except (OSError, ValueError) as exc:
        logger.debug("cache entry not mapped: %s", exc)
        return None
