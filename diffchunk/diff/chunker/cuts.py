"""Cut one two-way hunk between lines: :class:`HunkLines`.

When a hunk is cut, the first piece borrows the next old-side line as
trailing context and the second piece borrows the previous new-side line as
leading context (a cut right after a context line shares that line); a cut
never borrows a line that carries ``\\ No newline at end of file``.  Work is
done on prefix counts of the hunk's lines, so each cut is found in
logarithmic time.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import accumulate

from diffchunk.diff.buffer import DiffData
from diffchunk.diff.hunk import Hunk
from diffchunk.diff.model import LookAhead, Piece

CUT_KEEP_CONTEXT = 3
"""Context lines kept before a change when a long run of context is cut: git's
default context, so that a piece reads like the hunks git writes."""


__all__ = ["HunkLines", "SubHunk"]


# The bytes a diff line starts or ends with (diff syntax, not bounds):
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


@dataclass(frozen=True, slots=True)
class SubHunk:
    pos: int  # 1-based line of its first (pre-image) line in the file as it then is
    old_count: int
    new_count: int
    pieces: tuple[Piece, ...]  # body only; the header is written by the part
    lines: int
    nbytes: int


class HunkLines:
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
    def of(cls, data: DiffData, hunk: Hunk) -> HunkLines | None:
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

    def next_piece(self, room_lines: int, room_bytes: int, head_bytes: int) -> SubHunk:
        """The next piece, as big as fits in the room given (it always holds a change)."""
        n, i = self.n, self.i
        first_change = self._next_change(i)
        if first_change - i > CUT_KEEP_CONTEXT:
            lines = 3 + self.plines[first_change + 1] - self.plines[i]
            nbytes = head_bytes + self.offs[first_change + 1] - self.offs[i]
            if lines > room_lines or nbytes > room_bytes:
                # A long context run: keep only the lines next to the change.
                skip = first_change - CUT_KEEP_CONTEXT - i
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

        # Prefer a cut right after a context line near the end of the room (in its
        # last quarter, 3 lines at least): the piece then ends as git's hunks do,
        # and the part stays nearly full.
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

    def _emit(self, i: int, s: int, lead: int, trail: int, *, drop_rest: bool) -> SubHunk:
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
        return SubHunk(pos, old_count, new_count, tuple(pieces), lines, nbytes)
