"""Edits seen more than once in a view: moved lines and repeated edits.

*Moved lines* (as ``git diff --color-moved`` finds them): a run of at least
:data:`MIN_MOVED_LINES` removed lines, with :data:`MIN_MOVED_CHARS`
characters of text, added unchanged (leading whitespace aside) in another
change block of the view.  The added side is shown; the removed side folds
into a line saying where it went.

*Repeated edits*: change blocks whose removed and added lines are exactly
the same (:data:`MIN_REPEATED_CHARS` or more characters).  When that saves
characters, the first is shown with the list of the other places and each
later one folds into a line naming the first (the writer decides,
:mod:`.blocks`).

Repeated edits are looked for only inside the view (a chunk, or one file's
diff): what they point at is always in the same answer.  Moves are looked
for inside the view and, when the view is given the rest of the diff
(*partner* blocks, not written), between the view and the rest: a fold then
names a place in another file of the diff.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .reading import Block, Line

MIN_MOVED_LINES = 3
"""A moved run is at least this many lines..."""

MIN_MOVED_CHARS = 80
"""...holding at least this many characters besides whitespace (git's
--color-moved asks for 20 alphanumeric characters; a fold line costs ~40)."""

MIN_REPEATED_CHARS = 40
"""A repeated edit is looked at when its lines hold at least this many
characters: a fold line costs about 40."""

MAX_CANDIDATES = 32
"""Places a common line (a closing brace, a blank line) is looked for at most..."""

MAX_STEPS_PER_LINE = 4
"""...and lines compared at most this many times the lines looked in (besides
:data:`MIN_STEPS`), so that moves are found in linear time: runs that match long but
hold too few characters to be a move (a short line and hundreds of blank lines, over
and over) were compared again from each of their places, 10 s for a crafted diff of
80 kB.  The diffs read compare at most 1.3 lines per line in a file's view, 4.3 in
sqlalchemy's rel_1_4_0..rel_1_4_54 (7.3 MB) read as one view; past the bound, the
rest of the view's lines are shown, not named as moved."""

MIN_STEPS = 100_000
"""(A small view's bound.)"""

CHARS_PER_STEP = 256
"""A line compared counts as one step more for each this many characters of it: a
run of long lines that hold few characters besides spaces (never enough for a move)
was compared again from each place at the cost of its length, 4.5 s for a crafted
diff of 3 MB.  Lines of code are shorter: the diffs read count as before."""


__all__ = ["Move", "find_moves", "find_repeats"]


@dataclass(frozen=True, slots=True)
class Move:
    """``length`` lines removed in block ``src`` (from its removed line ``src_at``)
    and added in block ``dst`` (from its added line ``dst_at``); ``reindented``: some
    line's indentation differs; ``exact``: every line is the same, byte for byte (its
    line ending too)."""

    src: int
    src_at: int
    dst: int
    dst_at: int
    length: int
    reindented: bool
    exact: bool


def _key(line: Line) -> str:
    return line.key


def find_moves(blocks: list[Block], shown: int | None = None) -> list[Move]:
    """Moved runs between the change blocks of a view (see the module doc): the first
    ``shown`` of ``blocks`` are the view's (all of them when None), the rest its
    partners; a move between two partners is not looked for."""
    shown = len(blocks) if shown is None else shown
    removed = [b.removed for b in blocks]
    # a partner's removed line is looked for from the view's added lines only, and a
    # partner's added line among the view's removed lines only
    wanted = {line.key for block in blocks[:shown] for line in block.added}
    index = _removed_index(blocks, shown, wanted)
    view_index = _removed_index(blocks[:shown], shown) if shown < len(blocks) else index
    if not index:
        return []
    budget = MAX_STEPS_PER_LINE * sum(len(block.lines) for block in blocks) + MIN_STEPS
    used: set[tuple[int, int]] = set()
    moves: list[Move] = []
    for d, block in enumerate(blocks):
        added = block.added
        found = index if d < shown else view_index
        j = 0
        while j < len(added) and budget > 0:
            places = found.get(_key(added[j]))
            best, steps = (None, 0)
            if places:
                best, steps = _longest(removed, added, j, d, places, used, budget)
            budget -= steps
            if best is None:
                j += 1
                continue
            b, i, length = best
            pairs = list(zip(removed[b][i : i + length], added[j : j + length], strict=True))
            reindented = any(old.content != new.content for old, new in pairs)
            # a "\\ No newline" line in either block: the last line's ending differs
            exact = blocks[b].ordered and block.ordered
            exact = exact and all(old.raw[1:] == new.raw[1:] for old, new in pairs)
            moves.append(Move(b, i, d, j, length, reindented, exact))
            used.update((b, i + k) for k in range(length))
            j += length
    return moves


def _removed_index(
    blocks: list[Block], shown: int, wanted: set[str] | None = None
) -> dict[str, list[tuple[int, int]]]:
    """Where each removed line's text is: (block, index), at most :data:`MAX_CANDIDATES`
    places, the first blocks' first; of the blocks from ``shown`` on (partners), only
    the lines whose text is ``wanted``, looked up in the block's own index
    (:meth:`Block.removed_at`): a partner may be large, the view small."""
    index: dict[str, list[tuple[int, int]]] = {}
    for b, block in enumerate(blocks):
        at = block.removed_at(MAX_CANDIDATES)
        if b < shown or wanted is None:
            found: Iterable[tuple[str, list[int]]] = at.items()
        else:
            keys = wanted if len(wanted) < len(at) else at
            found = [(key, at[key]) for key in keys if key in at and key in wanted]
        for key, positions in found:
            places = index.setdefault(key, [])
            places.extend((b, i) for i in positions[: MAX_CANDIDATES - len(places)])
    return index


def _longest(
    removed: list[list[Line]],
    added: list[Line],
    j: int,
    d: int,
    places: tuple[tuple[int, int], ...] | list[tuple[int, int]],
    used: set[tuple[int, int]],
    budget: int,
) -> tuple[tuple[int, int, int] | None, int]:
    """The longest moved run starting at added line ``j`` of block ``d``, if long enough,
    and how many lines were compared to find it (at most about ``budget``)."""
    best: tuple[int, int, int] | None = None
    steps = 0
    for b, i in places:
        if b == d or (b, i) in used:
            continue
        if steps >= budget or (best is not None and j + best[2] == len(added)):
            break  # none can be longer than one reaching the block's end
        lines = removed[b]
        length = 0
        chars = 0
        work = 0  # lines compared, a long line counting as several
        while (
            steps + work < budget
            and j + length < len(added)
            and i + length < len(lines)
            and (b, i + length) not in used
            and _key(lines[i + length]) == _key(added[j + length])
        ):
            key = _key(added[j + length])
            chars += len(key) - key.count(" ")
            work += 1 + len(key) // CHARS_PER_STEP
            length += 1
        steps += work + 1
        long_enough = length >= MIN_MOVED_LINES and chars >= MIN_MOVED_CHARS
        if long_enough and (best is None or length > best[2]):
            best = (b, i, length)
    return best, steps


def find_repeats(blocks: list[Block], skip: set[int]) -> list[list[int]]:
    """Groups of blocks (two or more, in order) with the same edit, those in ``skip``
    aside, each edit of at least :data:`MIN_REPEATED_CHARS` characters."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for b, block in enumerate(blocks):
        if b in skip or not block.ordered or len(block.raw) < MIN_REPEATED_CHARS:
            continue
        groups.setdefault(tuple(ln.text for ln in block.lines), []).append(b)
    return [places for places in groups.values() if len(places) > 1]
