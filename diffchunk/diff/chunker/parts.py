"""Cut one file that is bigger than the budget into parts: :class:`FileSplitter`.

Parts are cut at hunk boundaries; a hunk bigger than a part is cut between
lines (:mod:`.cuts`).  Each part repeats a file header (see the rules in
:mod:`diffchunk.diff.chunker`), and the old starts of hunks in later parts
are moved by what earlier parts changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from diffchunk.diff.buffer import DiffData
from diffchunk.diff.hunk import Hunk, LazyHunks, format_hunk_header, header_tail
from diffchunk.diff.model import ChunkPart, DiffKind, FileDiff, FileStatus, ParsedDiff, Piece

from .cuts import HunkLines, SubHunk
from .pieces import Budget, piece_lines, span_lines

CUT_OVERHEAD_LINES = 3
"""What a part may add to its share of a file's lines when a hunk is cut in it:
a written ``@@`` header and two borrowed context lines..."""

CUT_OVERHEAD_BYTES = 256
"""...and their bytes."""

SLACK_DIVISOR = 20
"""Even parts of a cut file get a twentieth more than their exact share (at
least MIN_SLACK lines): cuts land at hunk and context boundaries, rarely right
at the share, and without the slack the rest would make one more, small, part."""

MIN_SLACK = 2
"""The least slack of an even part, in lines."""

MIN_ROOM_DIVISOR = 5
"""A hunk is cut into the part being filled only when at least a fifth of the
part's room is left (MIN_ROOM_LINES at least): a smaller piece would be mostly
its header and borrowed lines.  Otherwise the part is closed first."""

MIN_ROOM_LINES = 6
"""The least room, in lines, worth cutting a hunk into."""

HUNK_HEADER_BYTES = 24
"""The bytes of a written ``@@ -a,b +c,d @@`` beyond its tail, for numbers of a
few digits each."""


__all__ = ["FileSplitter"]


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
    return min(room, share + max(MIN_SLACK, share // SLACK_DIVISOR))


class FileSplitter:
    """Builds the parts of one file that is bigger than the budget."""

    def __init__(
        self, parsed: ParsedDiff, fd: FileDiff, lead: tuple[int, int] | None, budget: Budget
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
            piece_lines(self.data, self.orig_header), piece_lines(self.data, self.cont_header)
        )
        head_bytes = max(fd.header_end - fd.start, len(self.cont_header))
        lead_lines = span_lines(self.data, *lead) if lead else 0
        lead_bytes = lead[1] - lead[0] if lead else 0
        # Room for hunks in a part: the first part also holds the commit message.
        # Parts are evened out so that the last one is not a small remainder.
        # The hunks and their (lines, bytes), measured once for both packings in run().
        # Lazy hunks built here are not kept: the file stays as light as it was.
        self.hunks: tuple[Hunk, ...]
        lines: Sequence[int]
        if isinstance(fd.hunks, LazyHunks):
            self.hunks, lines = fd.hunks.with_line_counts(keep=False)
        else:
            self.hunks = tuple(fd.hunks)
            lines = [span_lines(self.data, h.start, h.end) for h in self.hunks]
        self.sizes = [(k, h.end - h.start) for k, h in zip(lines, self.hunks, strict=True)]
        first, last = self.hunks[0].start, self.hunks[-1].end
        self.full_room = (budget.target_lines - head_lines, budget.target_bytes - head_bytes)
        self.even_room = (
            _even_share(
                self.full_room[0],
                span_lines(self.data, first, last) + lead_lines,
                CUT_OVERHEAD_LINES,
            ),
            _even_share(self.full_room[1], last - first + lead_bytes, CUT_OVERHEAD_BYTES),
        )
        self.lead_size = (lead_lines, lead_bytes)
        self._reset(self.even_room)

    def _reset(self, room: tuple[int, int]) -> None:
        self.room_lines, self.room_bytes = room
        self.first_room = (self.room_lines - self.lead_size[0], self.room_bytes - self.lead_size[1])
        self.min_room = max(MIN_ROOM_LINES, self.room_lines // MIN_ROOM_DIVISOR)
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

    def _add_piece(self, piece: SubHunk, tail: bytes) -> None:
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

    def _split_hunk(self, hunk: Hunk, lines_of: HunkLines) -> None:
        tail = header_tail(self.data, hunk)
        while not lines_of.done:
            room_lines, room_bytes = self._room()
            if self.cur.hunks and (
                room_lines < self.min_room or room_bytes < self.room_bytes // MIN_ROOM_DIVISOR
            ):
                self._close()
                continue
            piece = lines_of.next_piece(room_lines, room_bytes, len(tail) + HUNK_HEADER_BYTES)
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
            lines_of = HunkLines.of(data, hunk) if self.two_way and not hunk.parents else None
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
            self.parts[-1].add([tail], span_lines(data, *tail), tail[1] - tail[0])

    def _finish(self) -> list[ChunkPart]:
        data, fd = self.data, self.fd
        count = len(self.parts)
        orig_lines = piece_lines(data, self.orig_header)
        cont_lines = piece_lines(data, self.cont_header)
        out: list[ChunkPart] = []
        for k, part in enumerate(self.parts, start=1):
            pieces: list[Piece] = []
            lines = part.lines
            if k == 1 and self.lead is not None:
                pieces.append(self.lead)
                lines += span_lines(data, *self.lead)
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
