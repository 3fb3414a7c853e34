"""The rest of a diff, where a lean view of part of it looks for moved lines.

:class:`Partners` reads a whole diff's change blocks once and indexes their
lines; for a view (a chunk, a file's diff) it gives the blocks of the diff's
other files that share a line with the view (:meth:`Partners.around`), so
that a view's cost grows with the view, not with the diff.
"""

from __future__ import annotations

from collections.abc import Iterable

from diffchunk.diff.parser import parse_diff
from diffchunk.errors import NotADiffError

from .matching import MAX_CANDIDATES, MIN_MOVED_LINES
from .reading import Block, change_blocks, read_items

__all__ = ["Partners"]


class Partners:
    """The change blocks of a diff and, for each line text (whitespace aside), the
    blocks that remove it and those that add it (at most :data:`MAX_CANDIDATES` of
    each: a common line, a closing brace, names no more)."""

    def __init__(self, raw: bytes, *, skip: Iterable[str] = ()) -> None:
        """``skip``: paths whose blocks are left out (files not reviewed)."""
        try:
            items = read_items(parse_diff(raw))
        except NotADiffError:
            items = []
        self.blocks: list[Block] = change_blocks(items, set(skip))
        self._removed: dict[str, list[int]] = {}
        self._added: dict[str, list[int]] = {}
        for b, block in enumerate(self.blocks):
            for line in block.lines:
                index = self._removed if line.kind == "-" else self._added
                key = line.key if line.kind in "+-" else ""
                if key:
                    places = index.setdefault(key, [])
                    if len(places) < MAX_CANDIDATES and (not places or places[-1] != b):
                        places.append(b)

    def around(self, view: list[Block]) -> list[Block]:
        """The blocks of other files than the view's that remove at least
        :data:`~.matching.MIN_MOVED_LINES` lines the view adds, or add as many it
        removes (fewer make no move), in diff order."""
        own = {block.file.path for block in view}
        shared: dict[int, int] = {}
        for block in view:
            for line in block.lines:
                index = self._removed if line.kind == "+" else self._added
                key = line.key if line.kind in "+-" else ""
                for b in index.get(key, ()) if key else ():
                    shared[b] = shared.get(b, 0) + 1
        return [
            self.blocks[b]
            for b in sorted(shared)
            if shared[b] >= MIN_MOVED_LINES and self.blocks[b].file.path not in own
        ]
