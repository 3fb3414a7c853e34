"""How one change block is written in a lean view.

In order of precedence, a block is: a repeat of an earlier block's edit
(one fold line naming it); a block with moved lines (their removed side
folds into a line naming where they went; their added side, when moved
unchanged and long enough, folds into a line naming both places, else it is
shown after a line naming where it came from); a block only re-indented (the removed
side folds, the added side is shown); or a block of word-level pairs and
plain lines, whose long run of removed lines with little added folds into
one line naming what it defined.

A block with word-level pairs is written with nothing folded inside it and
no line cut: its lines are read back by side (every removed line, then every
added line), which only holds when the block is one run of shown lines.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import markers as mk
from .matching import Move
from .reading import Block, Line
from .summaries import definition_name, place, places, removed_names, short_names, spans
from .view import ViewWriter
from .words import pair_lines

LONG_LINE_CHARS = 1000
"""Lines longer than this are cut in the lean format..."""

LONG_LINE_HEAD = 300
"""...to their first characters, this many (a fold says what was left out)."""

MIN_REINDENTED = 2
"""A block is folded as re-indented when at least this many of its lines, and
most of them, come back only re-indented..."""

REINDENT_WINDOW = 4
"""...found among this many next added lines."""

MIN_ECHO_LINES = 3
"""A run of added lines shown again folds when it is at least this long..."""

MIN_ECHO_CHARS = 120
"""...and this many characters (a fold line costs about 40)..."""

MAX_ECHO_CANDIDATES = 16
"""...and a line is looked for in this many earlier places at most."""

HIDDEN_MOVE_LINES = 4
"""A run moved unchanged (indentation too) is left out on both sides, its added
side a line naming both places, when it is at least this many lines..."""

HIDDEN_MOVE_CHARS = 240
"""...and this many characters: a reader reviews what changed, and a block moved
as it was (tests split into new files, a function moved to another module) is
read at its old place if at all; a short run (a few common lines that happen to
match) stays shown, as it may be new code that only looks like old."""

MIN_REMOVED_LINES = 6
"""A run of removed lines folds when it is at least this long..."""

MIN_REMOVED_CHARS = 1_000
"""...and holds at least this many characters: a shorter one costs less to show
than a reader's call for its lines at the old side (about 1,000 characters, its
request and the answer's fields, measured by ``make bench-review``)..."""

MIN_REPLACED_LINES = 8
"""...and, in a block that also adds lines, at least this long..."""

REPLACED_RATIO = 4
"""...and this many times longer than what the block adds (a rewrite shows
both sides)."""


__all__ = ["BlockWriter", "write_line"]


def write_line(out: ViewWriter, line: Line, prefix: str = "") -> None:
    """A shown line (``prefix`` before its text); over :data:`LONG_LINE_CHARS`
    characters, its head and a ``↳`` line standing for the whole line."""
    text = prefix + line.text
    if len(line.text) <= LONG_LINE_CHARS:
        out.literal(text, line.raw)
        return
    head = text[: len(prefix) + LONG_LINE_HEAD]
    out.literal(head, b"")
    rest = len(text) - len(head)
    out.fold(f"{mk.CUT}{rest:,} more characters of this line", line.raw, mk.LONG_LINES)
    out.count(mk.LONG_LINES, len(head) + 1)


def _count_text(removed: int, added: int) -> str:
    return " ".join(
        c for c in (f"-{removed}" if removed else "", f"+{added}" if added else "") if c
    )


def _reindented(block: Block) -> tuple[dict[int, int], str] | None:
    """The removed lines of a block that come back only re-indented (removed index ->
    added index, in order) and how their indentation changed; None when they are
    not most of the block (at least :data:`MIN_REINDENTED` lines)."""
    removed, added = block.removed, block.added
    if len(removed) < MIN_REINDENTED or len(added) < MIN_REINDENTED or not block.ordered:
        return None
    pairs: dict[int, int] = {}
    deltas: set[int] = set()
    start = 0
    for i, old in enumerate(removed):
        text = old.content.strip()
        if not text:
            continue
        for j in range(start, min(len(added), start + REINDENT_WINDOW)):
            new = added[j].content
            if new.strip() == text:
                a, b = old.content, new
                deltas.add((len(b) - len(b.lstrip())) - (len(a) - len(a.lstrip())))
                pairs[i] = j
                start = j + 1
                break
    if (
        len(pairs) < MIN_REINDENTED
        or 2 * len(pairs) < len(removed)
        or 2 * len(pairs) < len(added)
        or deltas == {0}
    ):
        return None
    if len(deltas) == 1:
        delta = deltas.pop()
        cols = f"{abs(delta)} column{'s' if abs(delta) != 1 else ''}"
        return pairs, f"were {cols} {'more' if delta < 0 else 'less'} indented"
    return pairs, "indented otherwise"


class ShownRuns:
    """The added lines a view has shown so far, to fold a run of them shown again.

    Another block's run of at least :data:`MIN_ECHO_LINES` added lines and
    :data:`MIN_ECHO_CHARS` characters, exactly as an earlier block showed them
    (a docstring paragraph pasted into a dozen constructors), folds into a line
    naming where it was shown.
    """

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.where: list[tuple[int, str, int]] = []  # (block, path, new line) of each
        self.index: dict[str, list[int]] = {}

    def add(self, block: int, path: str, line: Line) -> None:
        self.index.setdefault(line.text, []).append(len(self.texts))
        self.texts.append(line.text)
        self.where.append((block, path, line.new))

    def echo(self, block: int, lines: list[Line], j: int) -> tuple[int, int] | None:
        """``(length, index of the first shown line)`` of the longest run from
        ``lines[j]`` that another block showed, when long enough."""
        best: tuple[int, int] | None = None
        for k in self.index.get(lines[j].text, ())[:MAX_ECHO_CANDIDATES]:
            other = self.where[k][0]
            if other == block:
                continue
            n = chars = 0
            while (
                j + n < len(lines)
                and k + n < len(self.texts)
                and self.where[k + n][0] == other
                and self.texts[k + n] == lines[j + n].text
            ):
                chars += len(lines[j + n].raw)
                n += 1
            if n >= MIN_ECHO_LINES and chars >= MIN_ECHO_CHARS and (best is None or n > best[0]):
                best = (n, k)
        return best


def _hidden(move: Move, run: list[Line]) -> bool:
    """Whether a moved run's added side is left out (see :data:`HIDDEN_MOVE_LINES`)."""
    return (
        move.exact
        and len(run) >= HIDDEN_MOVE_LINES
        and sum(len(ln.raw) for ln in run) >= HIDDEN_MOVE_CHARS
    )


def _old_before(block: Block, first: Line) -> list[str]:
    """The old-side lines (unchanged and removed) of ``block``'s hunk before ``first``."""
    found: list[str] = []
    for part in block.hunk.body:
        for line in part if isinstance(part, list) else part.lines:
            if line is first:
                return found
            if line.kind in " -":
                found.append(line.content)
    return found


def _shown_size(block: Block) -> int:
    """About how many characters a block costs when shown (its word-level pairs made)."""
    removed, added = block.removed, block.added
    if not removed or not added or not all(ln.exact for ln in block.lines):
        return len(block.raw)
    pairs = pair_lines([ln.text[1:] for ln in removed], [ln.text[1:] for ln in added])
    saved = sum(
        len(removed[i].raw) + len(added[j].raw) - len(text) - 2 for i, (j, text) in pairs.items()
    )
    return len(block.raw) - saved


class BlockWriter:
    """Writes the change blocks of a view (numbered as :func:`find_moves` saw them).

    ``repeats``: groups of blocks with the same edit (:func:`find_repeats`); a
    group folds when its later blocks cost more than the lines naming them.
    Other files of the view are named by their shortest unambiguous ending, files of
    the rest of the diff (blocks from ``shown`` on, never written) by their paths.
    """

    def __init__(
        self,
        out: ViewWriter,
        blocks: list[Block],
        moves: list[Move],
        repeats: list[list[int]],
        *,
        keep_context: bool = False,
        shown: int | None = None,
    ) -> None:
        self.out = out
        self.keep_context = keep_context
        self.blocks = blocks
        # Files of the view by their short names; the rest of the diff by its paths.
        self.names = short_names(block.file.path for block in blocks[:shown])
        self._from: dict[tuple[int, int], Move] = {}
        self._to: dict[tuple[int, int], Move] = {}
        for move in moves:
            for k in range(move.length):
                self._from[(move.src, move.src_at + k)] = move
                self._to[(move.dst, move.dst_at + k)] = move
        self._shown = ShownRuns()
        self._first: dict[int, int] = {}  # a later block of a folded group -> the first
        self._others: dict[int, list[int]] = {}  # the first block -> the later ones
        for group in repeats:
            first, later = group[0], group[1:]
            cost = len(self._repeated_note(first, later)) + sum(
                len(self._repeat_fold(b, first)) for b in later
            )
            if cost < len(later) * _shown_size(blocks[first]):
                self._others[first] = later
                self._first.update((b, first) for b in later)

    def moved_any(self, numbers: Iterable[int]) -> bool:
        """Whether a line of one of these blocks moved to or from another place."""
        return any(
            (b, i) in self._from for b in numbers for i in range(len(self.blocks[b].removed))
        )

    def _place(self, b: int) -> tuple[str, int]:
        block = self.blocks[b]
        return block.file.path, block.lines[0].new

    def _repeat_fold(self, b: int, first: int) -> str:
        block = self.blocks[b]
        counts = _count_text(len(block.removed), len(block.added))
        at = place(self._place(first), block.file.path, self.names)
        return f"{mk.FOLD}same edit ({counts}) as at {at}"

    def _repeated_note(self, first: int, later: list[int]) -> str:
        block = self.blocks[first]
        counts = _count_text(len(block.removed), len(block.added))
        spots = places([self._place(o) for o in later], block.file.path, self.names)
        return f"{mk.FOLD}this edit ({counts}) is repeated at {spots}"

    def write(self, b: int) -> None:
        block = self.blocks[b]
        out = self.out
        first = self._first.get(b)
        if first is not None:
            out.fold(self._repeat_fold(b, first), block.raw, mk.REPEATED)
            return
        others = self._others.get(b)
        if others:
            out.fold(self._repeated_note(b, others), b"", mk.REPEATED)
        if not block.ordered:
            for line in block.lines:
                write_line(out, line)
            return
        if any((b, i) in self._from for i in range(len(block.removed))) or any(
            (b, j) in self._to for j in range(len(block.added))
        ):
            self._write_moved(b)
            return
        reindented = _reindented(block)
        if reindented is not None:
            self._write_reindented(b, *reindented)
            return
        self._write_plain(b)

    def _write_added(self, b: int, lines: list[Line]) -> None:
        """Added lines, a run another block showed already folded into a line saying where."""
        out = self.out
        path = self.blocks[b].file.path
        j = 0
        while j < len(lines):
            echo = self._shown.echo(b, lines, j)
            if echo is None:
                write_line(out, lines[j])
                self._shown.add(b, path, lines[j])
                j += 1
                continue
            n, k = echo
            _, shown_in, line = self._shown.where[k]
            at = place((shown_in, line), path, self.names)
            text = f"{mk.FOLD}{n} added lines as shown at {at}"
            out.fold(text, b"".join(ln.raw for ln in lines[j : j + n]), mk.REPEATED)
            j += n

    def _write_reindented(self, b: int, pairs: dict[int, int], how: str) -> None:
        """Removed lines that come back re-indented fold into lines saying so; the
        other removed lines and every added line are shown."""
        out = self.out
        block = self.blocks[b]
        removed = block.removed
        i = 0
        while i < len(removed):
            if i not in pairs:
                write_line(out, removed[i])
                i += 1
                continue
            j = i
            while j < len(removed) and j in pairs:
                j += 1
            n = j - i
            text = f"{mk.FOLD}{n} line{'s' if n != 1 else ''} re-indented below ({how})"
            out.fold(text, b"".join(ln.raw for ln in removed[i:j]), mk.REINDENT)
            i = j
        self._write_added(b, block.added)

    def _write_moved(self, b: int) -> None:
        block = self.blocks[b]
        out = self.out
        removed, added = block.removed, block.added
        i = 0
        while i < len(removed):
            move = self._from.get((b, i))
            if move is None:
                j = i
                while j < len(removed) and (b, j) not in self._from:
                    j += 1
                self._write_removed(b, removed[i:j], pure=not added, added=len(added))
                i = j
                continue
            k = move.length - (i - move.src_at)
            dst = self.blocks[move.dst]
            to = dst.added[move.dst_at + (i - move.src_at)]
            how = ", re-indented" if move.reindented else ""
            at = place((dst.file.path, to.new), block.file.path, self.names)
            span = f" (old {removed[i].old}-{removed[i + k - 1].old})" if k > 1 else ""
            text = f"{mk.FOLD}{k} line{'s' if k != 1 else ''}{span} moved to {at}{how}"
            out.fold(text, b"".join(ln.raw for ln in removed[i : i + k]), mk.MOVED)
            i += k
        j = 0
        while j < len(added):
            move = self._to.get((b, j))
            if move is not None and j == move.dst_at:
                src = self.blocks[move.src]
                frm = src.removed[move.src_at]
                n = move.length
                run = added[j : j + n]
                # the old side of a renamed file by its old path
                old_path = src.file.fd.old_path or src.file.path
                if _hidden(move, run):
                    here = f"new {run[0].new}-{run[-1].new}"
                    at = spans((old_path, frm.old, n), block.file.path, self.names)
                    text = f"{mk.FOLD}{n} lines ({here}) moved unchanged from old {at}"
                    out.fold(text, b"".join(ln.raw for ln in run), mk.MOVED)
                    j += n
                    continue
                at = place((old_path, frm.old), block.file.path, self.names)
                text = f"{mk.FOLD}{n} line{'s' if n != 1 else ''} below moved from old {at}"
                out.fold(text, b"", mk.MOVED)
            write_line(out, added[j])
            self._shown.add(b, block.file.path, added[j])
            j += 1

    def _write_removed(self, b: int, lines: list[Line], *, pure: bool, added: int) -> None:
        """A run of removed lines: folded into one line when long enough (naming the
        definition it lies in and those it holds), else shown; with the context kept,
        folded only when it starts with a definition."""
        n = len(lines)
        fold = sum(len(ln.raw) for ln in lines) >= MIN_REMOVED_CHARS and (
            n >= MIN_REMOVED_LINES
            if pure
            else n >= MIN_REPLACED_LINES and n >= REPLACED_RATIO * added
        )
        if fold and self.keep_context:
            first_shown = next((ln.content for ln in lines if ln.content.strip()), "")
            fold = definition_name(first_shown) is not None
        if fold:
            block = self.blocks[b]
            run = [ln.content for ln in lines]
            names = removed_names(run, _old_before(block, lines[0]), block.hunk.section,
                                  block.file.path)  # fmt: skip
            first, last = lines[0].old, lines[-1].old
            text = f"{mk.FOLD}{n} lines removed (old {first}-{last})" + (
                f": {names}" if names else ""
            )
            raw = b"".join(ln.raw for ln in lines)
            if len(text) + 1 < len(raw):
                self.out.fold(text, raw, mk.REMOVED)
                return
        for line in lines:
            write_line(self.out, line)

    def _write_plain(self, b: int) -> None:
        out = self.out
        block = self.blocks[b]
        removed, added = block.removed, block.added
        pairs: dict[int, tuple[int, str]] = {}
        if (
            removed
            and added
            and not out.pending
            and all(ln.exact and len(ln.text) <= LONG_LINE_CHARS for ln in block.lines)
        ):
            pairs = pair_lines([ln.text[1:] for ln in removed], [ln.text[1:] for ln in added])
        if not pairs:
            self._write_removed(b, removed, pure=not added, added=len(added))
            self._write_added(b, added)
            return
        i = j = 0
        for ri in sorted(pairs):
            aj, text = pairs[ri]
            for line in removed[i:ri]:
                out.literal(line.text, line.raw)
            for line in added[j:aj]:
                out.literal(line.text, line.raw)
            out.pair(mk.PAIR + text, len(removed[ri].raw) + len(added[aj].raw))
            i, j = ri + 1, aj + 1
        for line in removed[i:]:
            out.literal(line.text, line.raw)
        for line in added[j:]:
            out.literal(line.text, line.raw)
