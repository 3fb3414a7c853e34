"""Dismissal memory: a finding a person dismissed or resolved is not posted again.

``add_finding`` first looks, in every review of the same repository (for a
diff file: its own review), for a ``dismissed`` or ``resolved`` finding that
matches the new one (:func:`earlier_match`):

- the same file and side;
- the same anchored lines **by content**: the text the finding points at
  (its ``lines``), compared with trailing whitespace cut, wherever those lines
  now are (a rebase moves them); two whole-file findings match on this;
- a **similar** message (:func:`similar`): the messages' words (lowercased,
  letters and digits only) are equal, one holds all the other's words, or
  ``difflib``'s ratio of the two word sequences reaches
  :data:`SIMILAR_MESSAGE_RATIO`.  A rewording of one
  problem keeps most of its words; two problems on one line share few.

The latest such finding is answered instead of a new one, with its status and
its reason (the last reply of its thread); ``force=True`` opens the new
finding anyway.
"""

from __future__ import annotations

import difflib
import re
import sqlite3

from .model import RecordedReview

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

SIMILAR_MESSAGE_RATIO = 0.6
"""Two findings' messages are similar (dismissal memory) when difflib's ratio of
their normalised words reaches this: a rewording keeps most words (measured on
rephrasings an assistant writes of one problem: 0.62-0.9), two problems on one
line share few (0.1-0.4)."""


def words(message: str) -> list[str]:
    """The words of a message as compared: lowercased runs of letters and digits."""
    return _WORD.findall(message.lower())


def similar(one: str, other: str) -> bool:
    """Whether two findings' messages say the same thing (see the module doc)."""
    a, b = words(one), words(other)
    if not a or not b:
        return a == b
    if a == b or set(a) <= set(b) or set(b) <= set(a):
        return True
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= SIMILAR_MESSAGE_RATIO


def _same_lines(one: str | None, other: str | None) -> bool:
    if one is None or other is None:
        return one is other
    return [line.rstrip() for line in one.splitlines()] == [
        line.rstrip() for line in other.splitlines()
    ]


def earlier_match(
    conn: sqlite3.Connection,
    review: RecordedReview,
    path: str,
    side: str,
    lines: str | None,
    message: str,
) -> sqlite3.Row | None:
    """The latest dismissed or resolved finding of the repository that ``message`` on
    ``lines`` of ``path`` repeats (see the module doc), or None."""
    if review.source.kind == "git" and review.source.repository is not None:
        rows = conn.execute(
            "SELECT f.* FROM findings f JOIN reviews r ON r.id = f.review_id "
            "WHERE r.kind = 'git' AND r.repository = ? AND f.file_path = ? AND f.side = ? "
            "AND f.status IN ('dismissed', 'resolved') ORDER BY f.updated_at DESC, f.id DESC",
            (review.source.repository, path, side),
        )
    else:
        rows = conn.execute(
            "SELECT * FROM findings WHERE review_id = ? AND file_path = ? AND side = ? "
            "AND status IN ('dismissed', 'resolved') ORDER BY updated_at DESC, id DESC",
            (review.id, path, side),
        )
    for row in rows:
        if _same_lines(row["lines"], lines) and similar(row["message"], message):
            return row
    return None
