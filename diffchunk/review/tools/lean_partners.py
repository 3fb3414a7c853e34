"""The rest of a loaded diff, for a lean view of part of it to find lines moved to or
from elsewhere (:func:`~diffchunk.diff.lean.render_lean`'s ``partners``).

The diff's change blocks are read and indexed once per loaded diff and kept with
its session (:class:`~diffchunk.diff.lean.Partners`); a view looks among the other
files' blocks that share a line with it.  Excluded files (a lockfile, say) are not
reviewed and name no move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..sessions.store import Session

if TYPE_CHECKING:
    from ...diff.lean import Partners

MOVES_ACROSS_BYTES = 4 * 1024 * 1024
"""The largest diff whose views look for moved lines in its other files: the diff is
read into lines and indexed once per loaded diff, which costs about 0.05 s and a few
MB for click's 8.4.2..8.5.0 (266 kB) and 0.7-1.2 s and 90 MB for SQLAlchemy's
rel_1_4_0..rel_1_4_54 (7.3 MB, over this bound); then each view costs about what it
did alone.  A larger diff finds moves within each view only."""

MOVES_ACROSS_LINES = 160_000
"""...and the most lines: a line read costs about 300 bytes, so 4 MiB of one-character
lines held 300 MB and took 3 s to read (sqlalchemy's first 4 MiB are 108,507 lines, 40 MB
held, 0.4 s)."""

_KEY = "lean_partners"

__all__ = ["MOVES_ACROSS_BYTES", "MOVES_ACROSS_LINES", "partners"]


def partners(loaded: Session) -> Partners | None:
    """The loaded diff read for moves (once per loaded diff), or None for a diff over
    :data:`MOVES_ACROSS_BYTES` or :data:`MOVES_ACROSS_LINES`."""
    if _KEY not in loaded.cache:
        found = None
        review = loaded.review
        data = bytes(review.parsed.data) if loaded.size <= MOVES_ACROSS_BYTES else b""
        if data and data.count(b"\n") <= MOVES_ACROSS_LINES:
            from ...diff.lean import Partners  # on first use: most calls are raw

            left_out = {ex.path for ex in review.excluded} - set(review.file_to_chunks)
            found = Partners(data, skip=left_out)
        loaded.cache[_KEY] = found
    cached: Partners | None = loaded.cache[_KEY]
    return cached
