"""The rest of a loaded diff, for a lean view of part of it to find lines moved to or
from elsewhere (:func:`~diffchunk.diff.lean.render_lean`'s ``partners``).

The diff's change blocks are read once per loaded diff and kept with its session;
a view of some files gets the blocks of every other file in the chunks (excluded
files, a lockfile say, are not reviewed and name no move).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from ..sessions.store import Session

if TYPE_CHECKING:
    from ...diff.lean import Block

MOVES_ACROSS_BYTES = 4 * 1024 * 1024
"""The largest diff whose views look for moved lines in its other files: the rest of
the diff is read into lines once per loaded diff (click's 8.4.2..8.5.0, 149k
characters, in about 30 ms); a larger one (a 50,000-line diff is about 2.5 MB)
finds moves within each view only."""

_KEY = "lean_partners"

__all__ = ["MOVES_ACROSS_BYTES", "partners"]


def partners(loaded: Session, paths: Collection[str]) -> list[Block]:
    """The change blocks of the loaded diff's files other than ``paths`` (none for a
    diff over :data:`MOVES_ACROSS_BYTES`)."""
    by_path: dict[str, list[Block]] | None = loaded.cache.get(_KEY)
    if by_path is None:
        review = loaded.review
        by_path = {}
        if loaded.size <= MOVES_ACROSS_BYTES:
            from ...diff.lean import partner_blocks  # on first use: most calls are raw

            left_out = {ex.path for ex in review.excluded} - set(review.file_to_chunks)
            by_path = {
                path: blocks
                for path, blocks in partner_blocks(bytes(review.parsed.data)).items()
                if path not in left_out
            }
        loaded.cache[_KEY] = by_path
    return [block for path, blocks in by_path.items() if path not in paths for block in blocks]
