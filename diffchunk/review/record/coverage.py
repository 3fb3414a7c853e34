"""Marks (``seen``, ``reviewed``) and what they make of a loaded diff's files and chunks.

Marks are kept per review, per path and change (never per chunk number):

- a *file* mark names a whole file's change id;
- a *part* mark names one part of a file whose text lies in several chunk
  parts (see :mod:`diffchunk.review.record.changes`).  When marks of one kind
  cover every part of such a file, the file mark is recorded too, so the file
  stays reviewed when it is cut otherwise later.

States of a file of the current load (:func:`file_state`), first that holds:
``excluded`` (in no chunk), ``reviewed`` (a reviewed file mark for its
current change, or reviewed marks on all its parts, or, with
:func:`review_marks`, a reviewed mark for the identical change in another
review of the same repository), ``changed`` (a reviewed
file mark for another change of that path: reviewed, then changed), ``seen``
(a seen mark for its current change, or a seen or reviewed mark on one of its
parts), else ``unseen``.  A chunk is ``reviewed`` when all its file shares
are, ``partly`` when some are, ``seen`` when one is seen, else ``unseen``.

Every mark carries its author (:mod:`.people`): two reviewers marking one
file make two marks, and :func:`by_reviewer` counts each one's share.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .changes import FileChange, PartRef, RecordedDiff
from .model import RecordedReview
from .results import ChunkStatus, Totals
from .store import now


@dataclass
class Marks:
    """The marks of some reviews, by kind: path -> change ids (file) or part keys (part)."""

    files: dict[str, dict[str, set[str]]] = field(
        default_factory=lambda: {"seen": {}, "reviewed": {}}
    )
    parts: dict[str, dict[str, set[str]]] = field(
        default_factory=lambda: {"seen": {}, "reviewed": {}}
    )

    # (path, change id) -> (review id, author) of a reviewed file mark in another review
    # of the same repository (:func:`review_marks`): the same change, reviewed there.
    elsewhere: dict[tuple[str, str], tuple[int, str]] = field(default_factory=dict)

    def has_file(self, kind: str, change: FileChange) -> bool:
        return change.change_id in self.files[kind].get(change.path, ())

    def has_part(self, kind: str, path: str, key: str) -> bool:
        return key in self.parts[kind].get(path, ())

    def all_parts(self, kind: str, change: FileChange) -> bool:
        keys = self.parts[kind].get(change.path, set())
        return bool(change.parts) and all(k in keys for k in change.parts)


def load_marks(conn: sqlite3.Connection, review_ids: Sequence[int]) -> Marks:
    marks = Marks()
    if not review_ids:
        return marks
    holes = ",".join("?" * len(review_ids))
    rows = conn.execute(
        f"SELECT path, scope, change_id, kind FROM marks WHERE review_id IN ({holes})",
        tuple(review_ids),
    )
    for path, scope, change, kind in rows:
        table = marks.files if scope == "file" else marks.parts
        table[kind].setdefault(path, set()).add(change)
    return marks


def review_marks(conn: sqlite3.Connection, review: RecordedReview) -> Marks:
    """The marks of ``review``, with the reviewed file marks of the other reviews of its
    repository (``Marks.elsewhere``): a file whose change is identical to one reviewed
    in another review of the repository is reviewed here too, by that reviewer."""
    marks = load_marks(conn, [review.id])
    if review.source.kind != "git" or review.source.repository is None:
        return marks
    rows = conn.execute(
        "SELECT m.path, m.change_id, m.review_id, m.author FROM marks m "
        "JOIN reviews r ON r.id = m.review_id WHERE r.kind = 'git' AND r.repository = ? "
        "AND m.review_id != ? AND m.kind = 'reviewed' AND m.scope = 'file' "
        "ORDER BY m.created_at",
        (review.source.repository, review.id),
    )
    for path, change, review_id, author in rows:
        marks.elsewhere.setdefault((path, change), (int(review_id), author))
    return marks


def reviewed_elsewhere(marks: Marks, change: FileChange) -> tuple[int, str] | None:
    """``(review id, author)`` of the other review where this very change was reviewed,
    when this review has no reviewed mark of its own for it."""
    if marks.has_file("reviewed", change) or marks.all_parts("reviewed", change):
        return None
    return marks.elsewhere.get((change.path, change.change_id))


def is_reviewed(marks: Marks, change: FileChange) -> bool:
    return (
        marks.has_file("reviewed", change)
        or marks.all_parts("reviewed", change)
        or (change.path, change.change_id) in marks.elsewhere
    )


def by_reviewer(
    conn: sqlite3.Connection, review_id: int, loaded: RecordedDiff
) -> dict[str, dict[str, int]]:
    """Each author's share of the review: the files of this load whose current change
    they marked reviewed, and the findings they wrote (``''``: before authors were
    recorded, shown as ``unknown``)."""
    current = {(c.path, c.change_id) for c in loaded.files()}
    found: dict[str, dict[str, int]] = {}
    for author, path, change in conn.execute(
        "SELECT author, path, change_id FROM marks WHERE review_id = ? AND kind = 'reviewed' "
        "AND scope = 'file'",
        (review_id,),
    ):
        if (path, change) in current:
            entry = found.setdefault(author or "unknown", {"reviewed": 0, "findings": 0})
            entry["reviewed"] += 1
    for author, count in conn.execute(
        "SELECT author, count(*) FROM findings WHERE review_id = ? GROUP BY author", (review_id,)
    ):
        entry = found.setdefault(author or "unknown", {"reviewed": 0, "findings": 0})
        entry["findings"] += int(count)
    return dict(sorted(found.items()))


def file_state(marks: Marks, change: FileChange) -> str:
    if change.excluded_reason is not None:
        return "excluded"
    return marked_state(marks, change)


def marked_state(marks: Marks, change: FileChange) -> str:
    """``reviewed``, ``changed``, ``seen`` or ``unseen``, whether or not the file is excluded."""
    if is_reviewed(marks, change):
        return "reviewed"
    if marks.files["reviewed"].get(change.path, set()) - {change.change_id}:
        return "changed"
    if marks.has_file("seen", change) or any(
        marks.has_part(kind, change.path, key)
        for key in change.parts
        for kind in ("seen", "reviewed")
    ):
        return "seen"
    return "unseen"


def totals(states: Iterable[tuple[FileChange, str]]) -> Totals:
    counts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    files = 0
    for change, state in states:
        files += 1
        counts[state] += 1
        if state == "excluded":
            reasons[change.excluded_reason or "excluded"] += 1
    return Totals(
        files=files,
        reviewed=counts["reviewed"],
        seen=counts["seen"],
        unseen=counts["unseen"],
        changed=counts["changed"],
        excluded=counts["excluded"],
        excluded_by_reason=dict(sorted(reasons.items())),
    )


def _share_state(marks: Marks, loaded: RecordedDiff, ref: PartRef) -> tuple[bool, bool]:
    """``(reviewed, seen)`` of one file's share of a chunk."""
    change = loaded.file(ref.path)
    reviewed = is_reviewed(marks, change) or (
        ref.key is not None and marks.has_part("reviewed", ref.path, ref.key)
    )
    seen = (
        reviewed
        or marks.has_file("seen", change)
        or (ref.key is not None and marks.has_part("seen", ref.path, ref.key))
    )
    return reviewed, seen


def chunk_status(marks: Marks, loaded: RecordedDiff, number: int) -> ChunkStatus:
    refs = loaded.chunk_parts(number)
    shares = [_share_state(marks, loaded, ref) for ref in refs]
    if shares and all(r for r, _ in shares):
        status = "reviewed"
    elif any(r for r, _ in shares):
        status = "partly"
    elif any(s for _, s in shares):
        status = "seen"
    else:
        status = "unseen"
    files = tuple(dict.fromkeys(ref.path for ref in refs))
    return ChunkStatus(chunk=number, status=status, files=files)


def next_chunk(marks: Marks, loaded: RecordedDiff) -> int | None:
    """The first chunk not wholly reviewed (None when every chunk is)."""
    for number in loaded.chunk_numbers():
        if chunk_status(marks, loaded, number).status != "reviewed":
            return number
    return None


# --------------------------------------------------------------------------
# Writing marks
# --------------------------------------------------------------------------


def _insert(
    conn: sqlite3.Connection,
    review_id: int,
    revision_id: int,
    path: str,
    scope: str,
    change: str,
    kind: str,
    author: str = "",
) -> None:
    cursor = conn.execute(
        "INSERT OR IGNORE INTO marks (review_id, path, scope, change_id, kind, author, "
        "revision_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (review_id, path, scope, change, kind, author, revision_id, now()),
    )
    if kind == "reviewed" and cursor.rowcount == 1:
        from . import merge  # a reviewed mark is shared; a seen mark (a diff tool's) is not

        merge.mark_changed(conn, review_id, path, scope, change, author, True)


def _delete(
    conn: sqlite3.Connection, review_id: int, path: str, scope: str, change: str, kind: str
) -> int:
    where = "review_id = ? AND path = ? AND scope = ? AND change_id = ? AND kind = ?"
    params = (review_id, path, scope, change, kind)
    authors = [
        str(row[0]) for row in conn.execute(f"SELECT author FROM marks WHERE {where}", params)
    ]
    conn.execute(f"DELETE FROM marks WHERE {where}", params)
    if kind == "reviewed":
        from . import merge

        for author in authors:
            merge.mark_changed(conn, review_id, path, scope, change, author, False)
    return len(authors)


def add_marks(
    conn: sqlite3.Connection,
    review_id: int,
    revision_id: int,
    loaded: RecordedDiff,
    refs: Iterable[PartRef],
    kind: str,
    author: str = "",
) -> None:
    """Mark each share (a whole file, or one part) with ``kind``, by ``author``; a file
    whose parts are then all marked (by anyone) gets its file mark as well."""
    touched: dict[str, FileChange] = {}
    for ref in refs:
        change = loaded.file(ref.path)
        if ref.key is None:
            _insert(conn, review_id, revision_id, ref.path, "file", change.change_id, kind, author)
        else:
            _insert(conn, review_id, revision_id, ref.path, "part", ref.key, kind, author)
            touched[ref.path] = change
    for path, change in touched.items():
        holes = ",".join("?" * len(change.parts))
        have = conn.execute(
            "SELECT count(DISTINCT change_id) FROM marks WHERE review_id = ? AND path = ? "
            f"AND scope = 'part' AND kind = ? AND change_id IN ({holes})",
            (review_id, path, kind, *change.parts),
        ).fetchone()[0]
        if have == len(change.parts):
            _insert(conn, review_id, revision_id, path, "file", change.change_id, kind, author)


def remove_reviewed(
    conn: sqlite3.Connection,
    review_id: int,
    revision_id: int,
    loaded: RecordedDiff,
    refs: Iterable[PartRef],
    author: str = "",
) -> None:
    """Take back the reviewed marks of each share of the current change (everyone's:
    the share is to be reviewed again).

    A whole file loses its file mark and every part mark.  One part of a file
    loses its part mark; if the whole file was marked, its other parts keep
    theirs (the file mark becomes part marks of the rest, by ``author``).
    """
    for ref in refs:
        change = loaded.file(ref.path)
        had_file = _delete(conn, review_id, ref.path, "file", change.change_id, "reviewed")
        if ref.key is None:
            for key in change.parts:
                _delete(conn, review_id, ref.path, "part", key, "reviewed")
            continue
        if had_file:
            for key in change.parts:
                _insert(conn, review_id, revision_id, ref.path, "part", key, "reviewed", author)
        _delete(conn, review_id, ref.path, "part", ref.key, "reviewed")
