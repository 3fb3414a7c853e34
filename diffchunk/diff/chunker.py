"""Cut a parsed diff into chunks that fit a line and token budget.

``chunk_files`` packs whole files in diff order, aiming at 80% of the budget.
A file bigger than the whole budget is cut into *parts* at hunk boundaries,
and a hunk bigger than a part is cut into smaller hunks with new ``@@``
headers.  Every chunk stays a patch that ``git apply`` accepts on the tree
left by the chunks before it:

- each part repeats a file header; part 1 keeps the original one (new file,
  rename, copy, mode lines), later parts are plain modifications of the file
  as it then exists.  A deleted file is the other way round: earlier parts
  remove lines from it, the last part carries ``deleted file mode`` and
  removes what is left;
- git anchors a hunk whose old start is 0 or 1 at the top of the file and a
  hunk without trailing context at its end.  So when a hunk is cut between
  lines, the first piece borrows the next old-side line as trailing context
  and the second piece borrows the previous new-side line as leading context
  (a cut right after a context line shares that line), and a cut never
  borrows a line that carries ``\\ No newline at end of file``;
- old starts of hunks in later parts are moved by what earlier parts already
  changed, so the line hints are exact;
- ``git apply`` reads the source of a copy from the tree *before* the patch,
  whatever else the patch does to that file.  Once cut into chunks, a copy
  would read its source as earlier chunks left it (a new mode, new content,
  or no file after a rename), so a copied file is moved right before the
  first section of the same commit that changes its source.  In a stream of
  commits, a rename, copy or deletion of a path an earlier commit changed
  starts a new chunk when that change is in the chunk being filled (one
  ``git apply`` would read the path as it was before the chunk, or keep a
  file changed and then deleted);
- git lists a file ``P`` that replaces a directory before the removal of
  ``P/x`` (path order), which one ``git apply`` of the whole diff copes
  with; so the section creating ``P`` moves after those removals.

Chunk text is a list of pieces: spans of ``ParsedDiff.data`` wherever the
bytes are the original ones, literal bytes only for written headers and the
lines of cut hunks.  Work is per file and per hunk (``bytes.count`` over
spans); only a hunk that has to be cut is looked at line by line.
"""

from __future__ import annotations

import heapq
import logging
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from diffchunk.diff.buffer import DiffData, trimmer
from diffchunk.diff.frozen import fast_constructor
from diffchunk.diff.hunk import Hunk, LazyHunks, format_hunk_header, header_tail
from diffchunk.diff.model import (
    Chunk,
    ChunkPart,
    DiffKind,
    FileDiff,
    FileStatus,
    LookAhead,
    ParsedDiff,
    Piece,
)
from diffchunk.errors import InvalidArgument

logger = logging.getLogger(__name__)

__all__ = ["TARGET_FRACTION", "chunk_files", "render_chunk"]

# ``ChunkPart(...)`` at half the cost: one is made per file of the diff.
_new_part: Callable[..., ChunkPart] = fast_constructor(ChunkPart)

TARGET_FRACTION = 0.8  # share of the budget a chunk aims at
_KEEP_CONTEXT = 3  # context lines kept before a change when a long context run is cut

_NL = 0x0A
_SPACE = 0x20
_PLUS = 0x2B
_MINUS = 0x2D
_BACKSLASH = 0x5C
# Per tag byte: 1 when the line is on the old side / the new side / a change.
_OLD_SIDE = bytes.maketrans(b" +-", b"\x01\x00\x01")
_NEW_SIDE = bytes.maketrans(b" +-", b"\x01\x01\x00")
_CHANGE = bytes.maketrans(b" +-", b"\x00\x01\x01")
# Any first byte that is not '+' or '-' makes a context line (an empty line too).
_TAG = bytes(b if b in (_PLUS, _MINUS) else _SPACE for b in range(256))


# --------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------


def chunk_files(
    parsed: ParsedDiff,
    files: Sequence[FileDiff],
    *,
    max_lines: int = 1000,
    max_tokens: int = 20_000,
) -> tuple[Chunk, ...]:
    """Chunks holding ``files`` (sections of ``parsed``), in the order given.

    Except copies: one moves right before the first section of its commit
    that changes its source (see the module doc).

    A chunk aims at 80% of ``max_lines`` and of ``max_tokens`` (a token is 4
    bytes) and exceeds 100% only when one unit that cannot be cut (a line, a
    binary payload, a header, a combined-diff hunk) is bigger on its own; such
    a chunk has ``oversized=True``.
    """
    budget = _Budget.of(max_lines, max_tokens)
    data = parsed.data
    files = _replaced_directories_emptied_first(_copies_first(files))
    heads = _commit_heads(parsed, files)
    packer = _Packer(data, budget)
    max_lines, max_bytes = budget.max_lines, budget.max_bytes
    add_whole = packer.add_whole
    trim = trimmer(data)
    for fd in files:
        if trim is not None:
            trim(fd.start)
        if (
            fd.commit is not None
            and fd.status in _MOVES
            and packer.parts
            and _source_changed_before(parsed, packer.parts, fd)
        ):
            packer.flush()
        lead = heads.get(fd.index) if heads else None
        lines = fd.line_count
        if lines is None:
            lines = _span_lines(data, fd.start, fd.end)
        nbytes = fd.end - fd.start
        if lead is not None:
            lines += _span_lines(data, *lead)
            nbytes += lead[1] - lead[0]
        if (lines > max_lines or nbytes > max_bytes) and fd.hunks:
            parts = _FileSplitter(parsed, fd, lead, budget).run()
            if len(parts) > 1:
                packer.add_split(fd, parts)
                continue
        span = (fd.start, fd.end)
        pieces = (span,) if lead is None else (lead, span)
        add_whole(_new_part(fd.index, fd.path, pieces, lines), nbytes)
    return packer.finish()


def render_chunk(parsed: ParsedDiff, chunk: Chunk) -> bytes:
    """The exact text of ``chunk``: its pieces joined."""
    return b"".join(_render_pieces(parsed.data, [p for part in chunk.parts for p in part.pieces]))


def look_ahead_lines(parsed: ParsedDiff, chunk: Chunk) -> frozenset[int]:
    """Offsets in :func:`render_chunk`'s text of the lines borrowed as trailing
    context by the pieces of cut hunks (see :class:`~diffchunk.diff.model.LookAhead`)."""
    pieces = [p for part in chunk.parts for p in part.pieces]
    if not any(isinstance(p, LookAhead) for p in pieces):
        return frozenset()
    starts: list[int] = []
    _render_pieces(parsed.data, pieces, starts)
    return frozenset(at for at, p in zip(starts, pieces, strict=True) if isinstance(p, LookAhead))


# --------------------------------------------------------------------------
# Budget, text helpers
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Budget:
    max_lines: int
    max_bytes: int
    target_lines: int
    target_bytes: int

    @classmethod
    def of(cls, max_lines: int, max_tokens: int) -> _Budget:
        if isinstance(max_lines, bool) or not isinstance(max_lines, int) or max_lines < 1:
            raise InvalidArgument(
                f"max_lines must be a positive integer, got {max_lines!r}.",
                suggestion="Pass a chunk size such as 1000 lines.",
            )
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise InvalidArgument(
                f"max_tokens must be a positive integer, got {max_tokens!r}.",
                suggestion="Pass a token budget such as 20000.",
            )
        max_bytes = max_tokens * 4
        return cls(
            max_lines=max_lines,
            max_bytes=max_bytes,
            target_lines=max(1, int(max_lines * TARGET_FRACTION)),
            target_bytes=max(1, int(max_bytes * TARGET_FRACTION)),
        )


def _span_lines(data: DiffData, start: int, end: int) -> int:
    """Lines in ``data[start:end]`` (an unterminated last line counts)."""
    if end <= start:
        return 0
    n = data.count(b"\n", start, end)
    if data[end - 1] != _NL:
        n += 1
    return n


def _piece_lines(data: DiffData, piece: Piece) -> int:
    if isinstance(piece, bytes):
        n = piece.count(b"\n")
        return n + 1 if piece and piece[-1] != _NL else n
    return _span_lines(data, piece[0], piece[1])


def _render_pieces(
    data: DiffData, pieces: Sequence[Piece], starts: list[int] | None = None
) -> list[bytes]:
    """Bytes of ``pieces``; a piece not ending in a newline gets one when text follows.

    ``starts`` receives where each piece begins in the joined text.
    """
    out: list[bytes] = []
    last = len(pieces) - 1
    at = 0
    for k, piece in enumerate(pieces):
        text = piece if isinstance(piece, bytes) else data[piece[0] : piece[1]]
        if starts is not None:
            starts.append(at)
            at += len(text) + (k < last and bool(text) and text[-1] != _NL)
        out.append(text)
        if k < last and text and text[-1] != _NL:
            out.append(b"\n")
    return out


def _text_size(data: DiffData, pieces: Sequence[Piece]) -> int:
    size = 0
    last = len(pieces) - 1
    for k, piece in enumerate(pieces):
        if isinstance(piece, bytes):
            size += len(piece)
            ends_nl = not piece or piece[-1] == _NL
        else:
            size += piece[1] - piece[0]
            ends_nl = piece[1] <= piece[0] or data[piece[1] - 1] == _NL
        if k < last and not ends_nl:
            size += 1
    return size


def _copies_first(files: Sequence[FileDiff]) -> Sequence[FileDiff]:
    """``files`` with every copy moved before the first change of its source.

    Only within one commit: in a ``git log -p`` stream each commit's copies
    read the tree its parent left.  Other files keep their order.
    """
    copied = FileStatus.COPIED
    if not any(fd.status is copied for fd in files):
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


def _replaced_directories_emptied_first(files: Sequence[FileDiff]) -> Sequence[FileDiff]:
    """``files`` with each section that creates a path P after those of its commit that
    remove a path below ``P/`` (a directory replaced by a file or symlink).

    git lists P before ``P/x`` (path order): one ``git apply`` of the whole
    diff copes, but a chunk creating P while ``P/x`` still exists does not
    apply.  Other sections keep their order (a stable topological sort), and
    a copy stays before every section that changes its source (see
    :func:`_copies_first`): moved past one, it would copy the changed file.
    """
    below: dict[tuple[int | None, str], list[int]] = {}  # (commit, directory) -> removals
    for pos, fd in enumerate(files):
        if fd.status in _VACATES and fd.old_path is not None:
            directory = fd.old_path
            while "/" in directory:
                directory = directory.rsplit("/", 1)[0]
                below.setdefault((fd.commit, directory), []).append(pos)
    if not below:
        return files
    after: dict[int, list[int]] = {}  # removal -> the creations that must follow it
    waiting = [0] * len(files)  # removals each section must follow
    for pos, fd in enumerate(files):
        if fd.status in _CREATES and fd.new_path is not None:
            for removal in below.get((fd.commit, fd.new_path), ()):
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
_MOVES = (FileStatus.RENAMED, FileStatus.COPIED, FileStatus.DELETED)


def _source_changed_before(parsed: ParsedDiff, parts: Sequence[ChunkPart], fd: FileDiff) -> bool:
    """Whether a part of an earlier commit touches the old path of ``fd``.

    One ``git apply`` reads every rename and copy source from the tree before
    the whole patch, and silently keeps a file that the same patch changes and
    then deletes; so a rename, copy or deletion of a path changed by an
    earlier commit of the chunk being filled must start a new chunk.
    """
    source = fd.old_path
    files = parsed.files
    for part in parts:
        other = files[part.file_index]
        if other.commit != fd.commit and source in (other.old_path, other.new_path):
            return True
    return False


def _commit_heads(parsed: ParsedDiff, files: Sequence[FileDiff]) -> dict[int, tuple[int, int]]:
    """File index -> span of its commit's header/message, for each commit's first file."""
    heads: dict[int, tuple[int, int]] = {}
    if not parsed.commits:
        return heads
    by_index = {c.index: c for c in parsed.commits}
    seen: set[int] = set()
    for fd in files:
        if fd.commit is None or fd.commit in seen:
            continue
        seen.add(fd.commit)
        commit = by_index.get(fd.commit)
        if commit is None or not 0 <= commit.segment < len(parsed.segments):
            continue
        seg = parsed.segments[commit.segment]
        if seg.end > seg.start:
            heads[fd.index] = (seg.start, seg.end)
    return heads


# --------------------------------------------------------------------------
# Packing parts into chunks
# --------------------------------------------------------------------------


@dataclass(slots=True)
class _Part:
    """One part of a split file while it is being built."""

    pieces: list[Piece] = field(default_factory=list)
    lines: int = 0
    nbytes: int = 0
    delta: int = 0  # new_count - old_count of the hunks already in this part
    hunks: int = 0

    def add(self, pieces: Sequence[Piece], lines: int, nbytes: int) -> None:
        self.pieces.extend(pieces)
        self.lines += lines
        self.nbytes += nbytes


class _Packer:
    def __init__(self, data: DiffData, budget: _Budget) -> None:
        self.data = data
        self.budget = budget
        self.chunks: list[Chunk] = []
        self.parts: list[ChunkPart] = []
        self.lines = 0
        self.nbytes = 0

    def add_whole(self, part: ChunkPart, nbytes: int) -> None:
        b = self.budget
        if self.parts and (
            self.lines + part.lines > b.target_lines or self.nbytes + nbytes > b.target_bytes
        ):
            self.flush()
        self.parts.append(part)
        self.lines += part.lines
        self.nbytes += nbytes

    def add_split(self, fd: FileDiff, parts: Sequence[ChunkPart]) -> None:
        self.flush()
        for part in parts:
            self.parts.append(part)
            self.flush(parent_file=fd.path, sub_chunk_index=part.part)

    def flush(self, parent_file: str | None = None, sub_chunk_index: int | None = None) -> None:
        if not self.parts:
            return
        pieces = [p for part in self.parts for p in part.pieces]
        size = _text_size(self.data, pieces)
        lines = sum(part.lines for part in self.parts)
        self.chunks.append(
            Chunk(
                number=len(self.chunks) + 1,
                parts=tuple(self.parts),
                line_count=lines,
                char_count=size,
                parent_file=parent_file,
                sub_chunk_index=sub_chunk_index,
                oversized=lines > self.budget.max_lines or size > self.budget.max_bytes,
            )
        )
        self.parts = []
        self.lines = 0
        self.nbytes = 0

    def finish(self) -> tuple[Chunk, ...]:
        self.flush()
        return tuple(self.chunks)


# --------------------------------------------------------------------------
# Splitting one file into parts
# --------------------------------------------------------------------------


def _swap_prefix(token: bytes, old: bytes, new: bytes) -> bytes:
    """``token`` with its leading ``old`` prefix (inside quotes, if any) replaced."""
    quoted = token.startswith(b'"')
    inner = token[1:] if quoted else token
    if inner.startswith(old):
        inner = new + inner[len(old) :]
    return b'"' + inner if quoted else inner


def _continuation_header(data: DiffData, fd: FileDiff) -> bytes:
    """Header of a part that modifies the file in place (no new/deleted/rename lines).

    Named after the new path (the old one for a deleted file); the other side's
    token swaps git's ``a/``/``b/`` prefix and keeps the quoting as written.
    """
    if fd.kind is DiffKind.COMBINED:
        return data[fd.start : fd.header_end]
    if fd.status is FileStatus.DELETED or fd.new_token in (b"", b"/dev/null"):
        a_tok = fd.old_token
        b_tok = _swap_prefix(a_tok, b"a/", b"b/")
    else:
        b_tok = fd.new_token
        a_tok = _swap_prefix(b_tok, b"b/", b"a/")
    if fd.kind is DiffKind.GIT:
        return b"diff --git %s %s\n--- %s\n+++ %s\n" % (a_tok, b_tok, a_tok, b_tok)
    return b"--- %s\n+++ %s\n" % (a_tok, b_tok)


def _even_share(room: int, total: int, overhead: int) -> int:
    """The room of each part when ``total`` is spread evenly over as few parts as fit.

    ``overhead`` is what a part may add (a cut hunk's header and borrowed lines).
    """
    if room <= overhead or total <= room:
        return room
    parts = -(-total // (room - overhead))
    share = -(-total // parts) + overhead
    return min(room, share + max(2, share // 20))


class _FileSplitter:
    """Builds the parts of one file that is bigger than the budget."""

    def __init__(
        self, parsed: ParsedDiff, fd: FileDiff, lead: tuple[int, int] | None, budget: _Budget
    ) -> None:
        self.data = parsed.data
        self.fd = fd
        self.lead = lead
        self.budget = budget
        self.two_way = fd.kind is not DiffKind.COMBINED
        self.deleted = self.two_way and fd.status is FileStatus.DELETED
        self.orig_header: Piece = (fd.start, fd.header_end)
        self.cont_header: Piece = _continuation_header(self.data, fd)
        head_lines = max(
            _piece_lines(self.data, self.orig_header), _piece_lines(self.data, self.cont_header)
        )
        head_bytes = max(fd.header_end - fd.start, len(self.cont_header))
        lead_lines = _span_lines(self.data, *lead) if lead else 0
        lead_bytes = lead[1] - lead[0] if lead else 0
        # Room for hunks in a part: the first part also holds the commit message.
        # Parts are evened out so that the last one is not a small remainder.
        # The hunks and their (lines, bytes), measured once for both packings in run().
        self.hunks: tuple[Hunk, ...] = tuple(fd.hunks)
        lines: Sequence[int]
        if isinstance(fd.hunks, LazyHunks):
            lines = fd.hunks.line_counts()
        else:
            lines = [_span_lines(self.data, h.start, h.end) for h in self.hunks]
        self.sizes = [(k, h.end - h.start) for k, h in zip(lines, self.hunks, strict=True)]
        first, last = self.hunks[0].start, self.hunks[-1].end
        self.full_room = (budget.target_lines - head_lines, budget.target_bytes - head_bytes)
        self.even_room = (
            _even_share(self.full_room[0], _span_lines(self.data, first, last) + lead_lines, 3),
            _even_share(self.full_room[1], last - first + lead_bytes, 256),
        )
        self.lead_size = (lead_lines, lead_bytes)
        self._reset(self.even_room)

    def _reset(self, room: tuple[int, int]) -> None:
        self.room_lines, self.room_bytes = room
        self.first_room = (self.room_lines - self.lead_size[0], self.room_bytes - self.lead_size[1])
        self.min_room = max(6, self.room_lines // 5)
        self.parts: list[_Part] = []
        self.cur = _Part()
        self.shift = 0  # new_count - old_count of everything in closed parts

    # -- part bookkeeping ---------------------------------------------------

    def _room(self) -> tuple[int, int]:
        lines, nbytes = self.first_room if not self.parts else (self.room_lines, self.room_bytes)
        return lines - self.cur.lines, nbytes - self.cur.nbytes

    def _close(self) -> None:
        if self.cur.hunks:
            self.parts.append(self.cur)
            self.shift += self.cur.delta
            self.cur = _Part()

    def _fits(self, lines: int, nbytes: int) -> bool:
        room_lines, room_bytes = self._room()
        return lines <= room_lines and nbytes <= room_bytes

    # -- adding hunks ---------------------------------------------------------

    def _add_hunk(self, hunk: Hunk, lines: int) -> None:
        data = self.data
        if not self.two_way or self.shift == 0:
            self.cur.add([(hunk.start, hunk.end)], lines, hunk.end - hunk.start)
        else:
            header = format_hunk_header(
                hunk.old_start + self.shift,
                hunk.old_count,
                hunk.new_start,
                hunk.new_count,
                header_tail(data, hunk),
            )
            body = (hunk.body_start, hunk.end)
            self.cur.add([header, body], lines, len(header) + hunk.end - hunk.body_start)
        self.cur.delta += hunk.new_count - hunk.old_count
        self.cur.hunks += 1

    def _add_piece(self, piece: _SubHunk, tail: bytes) -> None:
        pos = piece.pos  # where the piece's first line sits once earlier hunks are applied
        old_start = pos - self.cur.delta
        header = format_hunk_header(
            old_start if piece.old_count else old_start - 1,
            piece.old_count,
            pos if piece.new_count else pos - 1,
            piece.new_count,
            tail,
        )
        pieces: list[Piece] = [header, *piece.pieces]
        self.cur.add(pieces, 1 + piece.lines, len(header) + piece.nbytes)
        self.cur.delta += piece.new_count - piece.old_count
        self.cur.hunks += 1

    def _split_hunk(self, hunk: Hunk, lines_of: _HunkLines) -> None:
        tail = header_tail(self.data, hunk)
        while not lines_of.done:
            room_lines, room_bytes = self._room()
            if self.cur.hunks and (room_lines < self.min_room or room_bytes < self.room_bytes // 5):
                self._close()
                continue
            piece = lines_of.next_piece(room_lines, room_bytes, len(tail) + 24)
            self._add_piece(piece, tail)
            if not lines_of.done:
                self._close()

    def run(self) -> list[ChunkPart]:
        """Parts of even size; or as full as the budget allows when that needs fewer."""
        self._pack()
        if self.even_room != self.full_room:
            even = self.parts
            self._reset(self.full_room)
            self._pack()
            if len(even) <= len(self.parts):
                self.parts = even
        return self._finish()

    def _pack(self) -> None:
        data = self.data
        for hunk, (lines, nbytes) in zip(self.hunks, self.sizes, strict=True):
            if self._fits(lines, nbytes):
                self._add_hunk(hunk, lines)
                continue
            room_lines, room_bytes = self.room_lines, self.room_bytes
            if lines <= room_lines and nbytes <= room_bytes:  # fits in a part of its own
                self._close()
                self._add_hunk(hunk, lines)
                continue
            lines_of = _HunkLines.of(data, hunk) if self.two_way and not hunk.parents else None
            if lines_of is None:
                self._close()
                self._add_hunk(hunk, lines)  # cannot be cut: it gets a part of its own
                self._close()
            else:
                self._split_hunk(hunk, lines_of)  # starts in the current part
        self._close()
        last_hunk_end = self.hunks[-1].end
        if self.fd.end > last_hunk_end:  # text after the last hunk stays with the file
            tail = (last_hunk_end, self.fd.end)
            self.parts[-1].add([tail], _span_lines(data, *tail), tail[1] - tail[0])

    def _finish(self) -> list[ChunkPart]:
        data, fd = self.data, self.fd
        count = len(self.parts)
        orig_lines = _piece_lines(data, self.orig_header)
        cont_lines = _piece_lines(data, self.cont_header)
        out: list[ChunkPart] = []
        for k, part in enumerate(self.parts, start=1):
            pieces: list[Piece] = []
            lines = part.lines
            if k == 1 and self.lead is not None:
                pieces.append(self.lead)
                lines += _span_lines(data, *self.lead)
            if self.deleted:
                original = k == count
            else:
                original = k == 1
            pieces.append(self.orig_header if original else self.cont_header)
            lines += orig_lines if original else cont_lines
            pieces.extend(part.pieces)
            out.append(
                ChunkPart(
                    file_index=fd.index,
                    path=fd.path,
                    pieces=tuple(pieces),
                    lines=lines,
                    part=k if count > 1 else None,
                    parts=count if count > 1 else None,
                )
            )
        return out


# --------------------------------------------------------------------------
# Cutting one hunk between lines
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _SubHunk:
    pos: int  # 1-based line of its first (pre-image) line in the file as it then is
    old_count: int
    new_count: int
    pieces: tuple[Piece, ...]  # body only; the header is written by the part
    lines: int
    nbytes: int


class _HunkLines:
    """The lines of one two-way hunk, with prefix counts to cut it anywhere.

    A *line* here is a diff line plus a ``\\ No newline at end of file`` line
    that follows it.  ``offs[k]`` is where line ``k`` starts (``offs[n]`` is
    the hunk's end); ``tags[k]`` is its ``' '``, ``'-'`` or ``'+'``.
    """

    def __init__(
        self,
        data: DiffData,
        offs: list[int],
        first_nl: list[int],
        tags: bytes,
        marked: bytearray,
        phys: list[int],
        pos: int,
    ) -> None:
        self.data = data
        self.offs = offs
        self.first_nl = first_nl  # end of each line's first physical line
        self.tags = tags
        self.marked = marked
        self.n = len(tags)
        self.plines = [0, *accumulate(phys)]
        self.pold = [0, *accumulate(tags.translate(_OLD_SIDE))]
        self.pnew = [0, *accumulate(tags.translate(_NEW_SIDE))]
        self.pchg = [0, *accumulate(tags.translate(_CHANGE))]
        self.i = 0  # first line not yet emitted
        self.pos = pos  # position of line i in the file as it is after earlier pieces
        self.done = False

    @classmethod
    def of(cls, data: DiffData, hunk: Hunk) -> _HunkLines | None:
        start, end = hunk.body_start, hunk.end
        if end <= start:
            return None
        body = data[start:end]
        raw = body.split(b"\n")
        if body[-1] == _NL:
            raw.pop()
        # Start of every physical line, then its first byte: all in C loops.
        starts = list(accumulate(map((1).__add__, map(len, raw)), initial=start))
        starts[-1] = end
        firsts = bytes(map(data.__getitem__, starts[:-1]))
        if b"\\" in firsts:
            offs, first_nl, tags, marked, phys = cls._with_markers(starts, firsts)
        else:
            offs = starts
            first_nl = starts[1:]
            tags = firsts.translate(_TAG)
            marked = bytearray(len(tags))
            phys = [1] * len(tags)
        if b"+" not in tags and b"-" not in tags:
            return None
        pos = hunk.new_start if hunk.new_count else hunk.new_start + 1
        return cls(data, offs, first_nl, tags, marked, phys, pos)

    @staticmethod
    def _with_markers(
        starts: list[int], firsts: bytes
    ) -> tuple[list[int], list[int], bytes, bytearray, list[int]]:
        """Fold each ``\\ No newline`` line into the line before it."""
        offs: list[int] = []
        first_nl: list[int] = []
        tags = bytearray()
        marked = bytearray()
        phys: list[int] = []
        for k, first in enumerate(firsts):
            if first == _BACKSLASH and offs:
                marked[-1] = 1
                phys[-1] += 1
                continue
            offs.append(starts[k])
            first_nl.append(starts[k + 1])
            tags.append(first if first in (_PLUS, _MINUS) else _SPACE)
            marked.append(0)
            phys.append(1)
        offs.append(starts[-1])
        return offs, first_nl, bytes(tags), marked, phys

    # -- index helpers (all O(log n)) --------------------------------------------

    def _next_change(self, k: int) -> int:
        """First line >= k that is a change (n when none)."""
        return bisect_left(self.pchg, self.pchg[k] + 1) - 1

    def _next_old(self, k: int) -> int:
        """First line >= k on the old side (n when none)."""
        return bisect_left(self.pold, self.pold[k] + 1) - 1

    def _last_new(self, k: int) -> int:
        """Last line < k on the new side (-1 when none)."""
        if self.pnew[k] == 0:
            return -1
        return bisect_left(self.pnew, self.pnew[k]) - 1

    def _as_context(self, k: int) -> bytes:
        """Line k written as a context line (without any marker line)."""
        start, stop = self.offs[k], self.first_nl[k]
        text = self.data[start:stop]
        if text[:1] in (b" ", b"+", b"-"):
            text = text[1:]
        if not text.endswith(b"\n"):
            text += b"\n"
        return b" " + text

    # -- cutting ---------------------------------------------------------------

    def _lead_line(self, i: int) -> int:
        """The line piece ``i..`` borrows as leading context (-1 for none)."""
        if self.tags[i] == _SPACE:
            return -1
        return self._last_new(i)

    def _trail_line(self, s: int) -> int:
        """The line a piece ending before ``s`` borrows as trailing context (-1 for none)."""
        if s >= self.n or self.tags[s - 1] == _SPACE:
            return -1
        j = self._next_old(s)
        return j if j < self.n else -1

    def _cut_ok(self, s: int) -> bool:
        """Cutting before line s borrows no line that carries a no-newline marker.

        Nor does it cut right after such a line: git loses the newline before
        a last line removed by a hunk without any context (``-U0`` diffs).
        """
        if self.marked[s - 1]:
            return False
        trail = self._trail_line(s)
        if trail >= 0 and self.marked[trail]:
            return False
        lead = self._lead_line(s)
        return not (lead >= 0 and self.marked[lead])

    def _cost(self, i: int, s: int, lead: int, trail: int, head_bytes: int) -> tuple[int, int]:
        lines = 1 + self.plines[s] - self.plines[i]
        nbytes = head_bytes + self.offs[s] - self.offs[i]
        for k in (lead, trail):
            if k >= 0:
                lines += 1
                nbytes += self.first_nl[k] - self.offs[k] + 1
        return lines, nbytes

    def next_piece(self, room_lines: int, room_bytes: int, head_bytes: int) -> _SubHunk:
        """The next piece, as big as fits in the room given (it always holds a change)."""
        n, i = self.n, self.i
        first_change = self._next_change(i)
        if first_change - i > _KEEP_CONTEXT:
            lines = 3 + self.plines[first_change + 1] - self.plines[i]
            nbytes = head_bytes + self.offs[first_change + 1] - self.offs[i]
            if lines > room_lines or nbytes > room_bytes:
                # A long context run: keep only the lines next to the change.
                skip = first_change - _KEEP_CONTEXT - i
                i += skip
                self.pos += skip
        lead = self._lead_line(i)
        lines, nbytes = self._cost(i, n, lead, -1, head_bytes)
        if lines <= room_lines and nbytes <= room_bytes:
            return self._emit(i, n, lead, -1, drop_rest=True)
        s_max = self._fit(i, lead, room_lines, room_bytes, head_bytes)
        if s_max > first_change and self.pchg[n] == self.pchg[s_max]:
            # Only context is left after s_max: end here, with one context line.
            stop = s_max if self.tags[s_max - 1] == _SPACE else s_max + 1
            return self._emit(i, stop, lead, -1, drop_rest=True)
        s = self._choose_cut(i, first_change, s_max, lead, room_lines, room_bytes, head_bytes)
        if s < 0:
            return self._emit(i, n, lead, -1, drop_rest=True)
        return self._emit(i, s, lead, self._trail_line(s), drop_rest=False)

    def _fit(self, i: int, lead: int, room_lines: int, room_bytes: int, head_bytes: int) -> int:
        """Largest s such that lines i..s plus header, lead and one trailing line fit."""
        fixed_lines = 2 + (1 if lead >= 0 else 0)
        fixed_bytes = head_bytes + (self.first_nl[lead] - self.offs[lead] + 1 if lead >= 0 else 0)
        by_lines = bisect_right(self.plines, self.plines[i] + room_lines - fixed_lines) - 1
        by_bytes = bisect_right(self.offs, self.offs[i] + room_bytes - fixed_bytes) - 1
        return max(i, min(by_lines, by_bytes, self.n))

    def _choose_cut(
        self,
        i: int,
        first_change: int,
        s_max: int,
        lead: int,
        room_lines: int,
        room_bytes: int,
        head_bytes: int,
    ) -> int:
        """Where to cut lines i.. (exclusive end), or -1 to take them all."""
        n, tags = self.n, self.tags
        low = first_change + 1

        def fits(s: int) -> bool:
            lines, nbytes = self._cost(i, s, lead, self._trail_line(s), head_bytes)
            return lines <= room_lines and nbytes <= room_bytes

        # Prefer a cut right after a context line near the end of the room.
        window = max(3, (s_max - i) // 4)
        for s in range(s_max, max(low, s_max - window) - 1, -1):
            if tags[s - 1] == _SPACE and self._cut_ok(s) and fits(s):
                return s
        for s in range(s_max, low - 1, -1):
            if self._cut_ok(s) and fits(s):
                return s
        # Nothing fits: the smallest valid cut past the room (an oversized piece).
        for s in range(max(low, s_max + 1), n):
            if self.pchg[n] > self.pchg[s] and self._cut_ok(s):
                return s
        return -1

    def _emit(self, i: int, s: int, lead: int, trail: int, *, drop_rest: bool) -> _SubHunk:
        data = self.data
        pieces: list[Piece] = []
        lines = self.plines[s] - self.plines[i]
        nbytes = self.offs[s] - self.offs[i]
        old_count = self.pold[s] - self.pold[i]
        new_count = self.pnew[s] - self.pnew[i]
        pos = self.pos
        if lead >= 0:
            text = self._as_context(lead)
            pieces.append(text)
            lines += 1
            nbytes += len(text)
            old_count += 1
            new_count += 1
            pos -= 1
        span_end = self.offs[s]
        if span_end > self.offs[i] and data[span_end - 1] != _NL and trail >= 0:
            pieces.append(data[self.offs[i] : span_end] + b"\n")
            nbytes += 1
        else:
            pieces.append((self.offs[i], span_end))
        if trail >= 0:
            text = LookAhead(self._as_context(trail))
            pieces.append(text)
            lines += 1
            nbytes += len(text)
            old_count += 1
            new_count += 1
        self.pos += self.pnew[s] - self.pnew[i]
        self.i = s
        self.done = drop_rest or s >= self.n
        return _SubHunk(pos, old_count, new_count, tuple(pieces), lines, nbytes)
