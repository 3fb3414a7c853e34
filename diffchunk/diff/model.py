"""The diff data model: offsets into one immutable buffer, never a copy per line.

A parsed diff is the input buffer plus a flat list of *sections* that tile it
exactly, in order: file sections (:class:`FileDiff`) and everything between
them (:class:`Segment`: commit headers and messages, mail trailers, stray or
malformed text).  ``b"".join(section bytes)`` is the input, byte for byte.

Hunks are spans too (:mod:`diffchunk.diff.hunk`); nothing holds a Python
object per diff line, so a million-line diff costs a few objects per hunk.
Nor one per file: the parser keeps the file sections in the columns of a
:class:`~diffchunk.diff.table.FileTable` (``ParsedDiff.files``), which builds
a :class:`FileDiff` when one is asked for, and a review's chunk parts are
positions in a :class:`~diffchunk.diff.chunk_parts.PartStore`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from diffchunk.diff.buffer import DiffData
from diffchunk.diff.frozen import fast_constructor
from diffchunk.diff.hunk import Hunk, LazyHunks

from ..limits import CHARS_PER_TOKEN

BYTES_PER_TOKEN = CHARS_PER_TOKEN
"""The same rule over the bytes of a diff (the diff engine counts bytes, not
decoded characters)."""


__all__ = [
    "BYTES_PER_TOKEN",
    "Chunk",
    "ChunkPart",
    "Commit",
    "DiffKind",
    "ExcludeReason",
    "Excluded",
    "FileDiff",
    "FileStatus",
    "Hunk",
    "LazyHunks",
    "LookAhead",
    "ParsedDiff",
    "Piece",
    "Segment",
    "SegmentKind",
    "change_status",
    "new_file_diff",
]


class FileStatus(str, Enum):
    MODIFIED = "modified"
    ADDED = "added"
    DELETED = "deleted"
    RENAMED = "renamed"
    COPIED = "copied"


class DiffKind(str, Enum):
    GIT = "git"  # ``diff --git`` sections
    COMBINED = "combined"  # ``diff --cc`` / ``diff --combined`` (merges)
    UNIFIED = "unified"  # plain ``---``/``+++`` sections (diff -u, svn, hg)


class SegmentKind(str, Enum):
    COMMIT = "commit"  # a commit header and message (git log -p, format-patch)
    TEXT = "text"  # anything else between file sections (preamble, trailers)
    MALFORMED = "malformed"  # looked like a diff section but could not be parsed


@dataclass(frozen=True, slots=True)
class FileDiff:
    """One file's section: header lines, then hunks (or a binary payload)."""

    index: int  # position among the diff's files (0-based)
    start: int  # offset of the first header line (``diff --git``, ``Index:``, ``---``)
    header_end: int  # offset where the first hunk (or the binary payload) starts
    end: int  # offset just after the section
    kind: DiffKind
    status: FileStatus
    old_path: str | None  # None when the file is added (``/dev/null``)
    new_path: str | None  # None when the file is deleted
    # A tuple, or a :class:`LazyHunks` that builds the Hunk objects on first use.
    hunks: Sequence[Hunk] = ()
    added: int = 0
    removed: int = 0
    old_mode: str | None = None
    new_mode: str | None = None
    similarity: int | None = None  # rename/copy similarity index, percent
    is_binary: bool = False  # ``Binary files ... differ`` or ``GIT binary patch``
    binary_patch: bool = False  # carries a ``GIT binary patch`` payload (applies)
    is_submodule: bool = False  # a gitlink (mode 160000) change
    commit: int | None = None  # index into ParsedDiff.commits, for multi-commit streams
    # Path tokens as written in the ``---``/``+++`` lines (quoted, with prefix),
    # or synthesised from ``diff --git`` when those lines are absent.  The chunker
    # uses them to write a header for each continuation part of a split file.
    old_token: bytes = b""
    new_token: bytes = b""
    malformed: str | None = None  # why the section is suspect; it is still served
    # Lines of ``data[start:end]`` when the parser counted them (None: count them).
    line_count: int | None = None

    @property
    def path(self) -> str:
        """The path a reviewer knows the file by: the new path, else the old."""
        return self.new_path if self.new_path is not None else (self.old_path or "")

    @property
    def changed_lines(self) -> int:
        return self.added + self.removed

    @property
    def metadata_only(self) -> bool:
        """A real change without content lines: rename, copy, mode, binary, empty file."""
        return not self.hunks


def mode_change(fd: FileDiff) -> tuple[str, str] | None:
    """``(old, new)`` modes of a file whose mode changed (an added or deleted file's
    mode is not a change), else None."""
    if fd.status in (FileStatus.ADDED, FileStatus.DELETED):
        return None
    if not fd.old_mode or not fd.new_mode or fd.old_mode == fd.new_mode:
        return None
    return fd.old_mode, fd.new_mode


def change_status(fd: FileDiff) -> str:
    """What kind of change a section is, as the listings and the record name it:
    ``added``, ``deleted``, ``renamed``, ``copied``, else ``binary``, ``mode`` (a mode
    change without content lines) or ``modified``."""
    if fd.status is not FileStatus.MODIFIED:
        return fd.status.value
    if fd.is_binary:
        return "binary"
    if not fd.hunks and mode_change(fd) is not None:
        return "mode"
    return "modified"


#: ``FileDiff(...)`` at half the cost, for the parser's per-file hot path
#: (see :mod:`diffchunk.diff.frozen`).
new_file_diff: Callable[..., FileDiff] = fast_constructor(FileDiff)


@dataclass(frozen=True, slots=True)
class Commit:
    """A commit header and message of a ``git log -p`` or format-patch stream."""

    index: int
    sha: str | None
    subject: str
    segment: int  # index into ParsedDiff.segments of its header+message text


@dataclass(frozen=True, slots=True)
class Segment:
    """Bytes between file sections: ``data[start:end]``."""

    start: int
    end: int
    kind: SegmentKind
    commit: int | None = None  # the commit whose header/message this is (COMMIT kind)
    note: str | None = None  # why it is MALFORMED


@dataclass(frozen=True, slots=True)
class ParsedDiff:
    """A parsed diff: the buffer and the sections that tile it."""

    data: DiffData
    # A FileTable (diffchunk.diff.table) from the parser; any sequence of its sections.
    files: Sequence[FileDiff]
    segments: tuple[Segment, ...]
    commits: tuple[Commit, ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def sections(self) -> list[FileDiff | Segment]:
        """Every section in input order; their spans tile ``[0, len(data))``."""
        items: list[FileDiff | Segment] = [*self.files, *self.segments]
        items.sort(key=lambda s: s.start)
        return items

    def raw(self, item: FileDiff | Segment | Hunk) -> bytes:
        return self.data[item.start : item.end]


# --------------------------------------------------------------------------
# Filtering and chunking results
# --------------------------------------------------------------------------


class ExcludeReason(str, Enum):
    TRIVIAL = "trivial"  # whitespace-only content change
    GENERATED = "generated"  # .gitattributes linguist-generated, or heuristics
    VENDORED = "vendored"  # .gitattributes linguist-vendored, or vendored trees
    PATTERN = "pattern"  # include_patterns / exclude_patterns


@dataclass(frozen=True, slots=True)
class Excluded:
    """A file of the diff left out of the chunks, and why."""

    path: str
    reason: ExcludeReason
    file_index: int
    detail: str | None = None  # e.g. "lockfile", "linguist-generated", "*.min.js"


# A piece of chunk text: a span ``(start, end)`` of ParsedDiff.data, or literal
# bytes the chunker had to write (a repeated header, a split hunk).
Piece = tuple[int, int] | bytes


class LookAhead(bytes):
    """The line a cut hunk's piece borrows as trailing context: the next line of
    the file as the earlier pieces leave it, which a later piece may still
    change or remove (so it has no line number in the new file yet)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class ChunkPart:
    """One file's share of a chunk (a whole file, or one part of a split file)."""

    file_index: int
    path: str
    pieces: tuple[Piece, ...]
    lines: int  # lines of diff text in this part (header lines included)
    part: int | None = None  # 1-based part number when the file is split
    parts: int | None = None  # how many parts the file was split into


@dataclass(frozen=True, slots=True)
class Chunk:
    number: int  # 1-based
    # A tuple, or a range of the review's PartStore (diffchunk.diff.chunk_parts).
    parts: Sequence[ChunkPart]
    line_count: int
    char_count: int  # bytes of chunk text; token_count is char_count // BYTES_PER_TOKEN
    parent_file: str | None = None  # set when the chunk holds one part of a split file
    sub_chunk_index: int | None = None  # that part's 1-based number
    oversized: bool = False  # a single hunk line or binary payload exceeds the budget

    @property
    def files(self) -> list[str]:
        seen: dict[str, None] = {}
        for p in self.parts:
            seen.setdefault(p.path, None)
        return list(seen)

    @property
    def token_count(self) -> int:
        return self.char_count // BYTES_PER_TOKEN

    @property
    def file_line_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for p in self.parts:
            counts[p.path] = counts.get(p.path, 0) + p.lines
        return counts
