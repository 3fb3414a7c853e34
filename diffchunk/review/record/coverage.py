"""Marks (``seen``, ``reviewed``) and what they make of a loaded diff's files and chunks.

Marks are kept per review, per path and change (never per chunk number):

- a *file* mark names a whole file's change id;
- a *part* mark names one part of a file whose text lies in several chunk
  parts (see :mod:`diffchunk.review.record.changes`).  When marks of one kind
  cover every part of such a file, the file mark is recorded too, so the file
  stays reviewed when it is cut otherwise later.

States of a file of the current load (:meth:`Coverage.state`), first that
holds: ``excluded`` (in no chunk), ``reviewed`` (a reviewed file mark for its
current change, or reviewed marks on all its parts, or, with
:func:`review_marks`, a reviewed mark for the identical change in another
review of the same repository), ``changed`` (a reviewed
file mark for another change of that path: reviewed, then changed), ``seen``
(a seen mark for its current change, or a seen or reviewed mark on one of its
parts), else ``unseen``.  A chunk is ``reviewed`` when all its file shares
are, ``partly`` when some are, ``seen`` when one is seen, else ``unseen``.

Every mark carries its author (:mod:`.people`): two reviewers marking one
file make two marks, and :func:`by_reviewer` counts each one's share.  A
reviewed mark added or taken back here is written to the sync log
(:func:`.merge.marks_changed`), in bulk as the marks are.

**Memory and time.**  A :class:`Coverage` is what the marks of some reviews
say of one loaded diff: a byte of flags per path (by its ordinal, see
:mod:`.changes`), and the part marks of the few paths cut into parts.  The
marks are read as one stream of rows; a diff of a million files costs a
megabyte here, never an object per mark; the files reviewed elsewhere are a
flag too, with the review and author of each kept only for those files.  A
write puts its rows in a temporary table (``executemany``), then marks or
unmarks them in one statement and logs them in one more, in the caller's
transaction.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from .changes import PartRef, RecordedDiff
from .model import RecordedReview
from .results import ChunkStatus, Totals
from .store import now

# A path's flags in Coverage.flags.
_REVIEWED = 1  # a reviewed file mark for its current change
_SEEN = 2  # a seen file mark for its current change
_OTHER = 4  # a reviewed file mark for another change of the path
_PART = 8  # a seen or reviewed mark on one of its current parts
_ELSEWHERE = 16  # a reviewed file mark for its current change in another review
KINDS = ("seen", "reviewed")


class Coverage:
    """What the marks of some reviews make of one loaded diff (see the module doc)."""

    __slots__ = ("elsewhere", "flags", "loaded", "parts")

    def __init__(self, loaded: RecordedDiff) -> None:
        self.loaded = loaded
        self.flags = bytearray(loaded.count())
        # kind -> path -> part keys marked, for the paths whose text lies in several parts
        self.parts: dict[str, dict[str, set[str]]] = {kind: {} for kind in KINDS}
        # ordinal -> (review id, author) of the files flagged _ELSEWHERE
        self.elsewhere: dict[int, tuple[int, str]] = {}

    # ---------------------------------------------------------------- states

    def _all_parts(self, kind: str, path: str) -> bool:
        keys = self.loaded.part_keys(path)
        marked = self.parts[kind].get(path, set())
        return bool(keys) and all(k in marked for k in keys)

    def own_reviewed(self, ordinal: int) -> bool:
        """Reviewed by a mark of the reviews read (not only elsewhere)."""
        if self.flags[ordinal] & _REVIEWED:
            return True
        if not self.parts["reviewed"]:
            return False
        path = self.loaded.path_of(ordinal)
        return path in self.parts["reviewed"] and self._all_parts("reviewed", path)

    def reviewed_elsewhere(self, ordinal: int) -> tuple[int, str] | None:
        """``(review id, author)`` of the other review where this very change was
        reviewed, when the reviews read have no reviewed mark of their own for it."""
        if not self.flags[ordinal] & _ELSEWHERE or self.own_reviewed(ordinal):
            return None
        return self.elsewhere.get(ordinal)

    def is_reviewed(self, ordinal: int) -> bool:
        if self.flags[ordinal] & (_REVIEWED | _ELSEWHERE):
            return True
        if not self.parts["reviewed"]:
            return False
        path = self.loaded.path_of(ordinal)
        return path in self.parts["reviewed"] and self._all_parts("reviewed", path)

    def marked_state(self, ordinal: int) -> str:
        """``reviewed``, ``changed``, ``seen`` or ``unseen``, whether or not the file is
        excluded."""
        if self.is_reviewed(ordinal):
            return "reviewed"
        flags = self.flags[ordinal]
        if flags & _OTHER:
            return "changed"
        if flags & (_SEEN | _PART):
            return "seen"
        return "unseen"

    def state(self, ordinal: int) -> str:
        """The state of path ``ordinal`` (see the module doc)."""
        if self.loaded.excluded_reason(ordinal) is not None:
            return "excluded"
        return self.marked_state(ordinal)

    def states(self) -> Iterator[tuple[int, str]]:
        """``(ordinal, state)`` of every path, in diff order."""
        return ((o, self.state(o)) for o in range(len(self.flags)))

    def totals(self) -> Totals:
        reason = self.loaded.excluded_reason
        return totals(
            (why, "excluded" if why is not None else self.marked_state(o))
            for o in range(len(self.flags))
            for why in (reason(o),)
        )

    # ---------------------------------------------------------------- chunks

    def _share_state(self, ref: PartRef, ordinal: int) -> tuple[bool, bool]:
        """``(reviewed, seen)`` of one file's share of a chunk."""
        reviewed = self.is_reviewed(ordinal) or (
            ref.key is not None and ref.key in self.parts["reviewed"].get(ref.path, ())
        )
        seen = (
            reviewed
            or bool(self.flags[ordinal] & _SEEN)
            or (ref.key is not None and ref.key in self.parts["seen"].get(ref.path, ()))
        )
        return reviewed, seen

    def _shares(self, number: int) -> list[tuple[PartRef, int]]:
        loaded = self.loaded
        refs = loaded.chunk_parts(number)
        return [(ref, loaded.ordinal_of_path(ref.path)) for ref in refs]

    def chunk_status(self, number: int) -> ChunkStatus:
        refs = self._shares(number)
        shares = [self._share_state(ref, o) for ref, o in refs]
        if shares and all(r for r, _ in shares):
            status = "reviewed"
        elif any(r for r, _ in shares):
            status = "partly"
        elif any(s for _, s in shares):
            status = "seen"
        else:
            status = "unseen"
        files = tuple(dict.fromkeys(ref.path for ref, _ in refs))
        return ChunkStatus(chunk=number, status=status, files=files)

    def _chunk_reviewed(self, number: int) -> bool:
        """Whether every share of chunk ``number`` is reviewed (read from the flags for
        the files in one part, without naming them)."""
        loaded = self.loaded
        for i in loaded.chunk_sections(number):
            ordinal = loaded.ordinal_of_section(i)
            if self.flags[ordinal] & _REVIEWED:
                continue
            path = loaded.path_of(ordinal)
            if not loaded.multi_part(path):
                return False
            return self.chunk_status(number).status == "reviewed"
        return True

    def next_chunk(self) -> int | None:
        """The first chunk not wholly reviewed (None when every chunk is)."""
        for number in self.loaded.chunk_numbers():
            if not self._chunk_reviewed(number):
                return number
        return None

    # ------------------------------------------------------ what a write did

    def _part_flag(self, ordinal: int, path: str) -> None:
        """Set or clear ``_PART`` of a path from the part marks kept."""
        keys = self.loaded.part_keys(path)
        marked = self.parts["seen"].get(path, set()) | self.parts["reviewed"].get(path, set())
        if not marked.isdisjoint(keys):
            self.flags[ordinal] |= _PART
        else:
            self.flags[ordinal] &= ~_PART

    def marked_files(self, ordinals: Iterable[int], reviewed: bool) -> None:
        """What :func:`add_file_marks` (``reviewed``) or :func:`remove_file_marks` wrote,
        made of the marks read before it (the same transaction): no second read."""
        flags, loaded = self.flags, self.loaded
        if reviewed:
            for ordinal in ordinals:
                flags[ordinal] |= _REVIEWED
            return
        for ordinal in ordinals:
            flags[ordinal] &= ~_REVIEWED
            path = loaded.path_of(ordinal)
            if loaded.multi_part(path):
                self.parts["reviewed"].get(path, set()).difference_update(loaded.part_keys(path))
                self._part_flag(ordinal, path)

    def marked_shares(self, shares: Iterable[PartRef], reviewed: bool) -> None:
        """What :func:`add_marks` (``reviewed``) or :func:`remove_reviewed` wrote for
        the reviewed marks of ``shares``, made of the marks read before it."""
        loaded, flags = self.loaded, self.flags
        touched: dict[str, int] = {}
        for ref in shares:
            ordinal = loaded.ordinal_of_path(ref.path)
            marked = self.parts["reviewed"].setdefault(ref.path, set())
            if reviewed:
                if ref.key is None:
                    flags[ordinal] |= _REVIEWED
                else:
                    marked.add(ref.key)
                    touched[ref.path] = ordinal
                    self._part_flag(ordinal, ref.path)
                continue
            had_file = flags[ordinal] & _REVIEWED
            flags[ordinal] &= ~_REVIEWED
            keys = loaded.part_keys(ref.path)
            if ref.key is None:
                marked.difference_update(keys)
            else:
                if had_file:
                    marked.update(keys)
                marked.discard(ref.key)
            self._part_flag(ordinal, ref.path)
        for path, ordinal in touched.items():  # every part marked: the file mark too
            if self._all_parts("reviewed", path):
                flags[ordinal] |= _REVIEWED


def totals(states: Iterable[tuple[str | None, str]]) -> Totals:
    """The totals of files given as ``(excluded reason, state)``."""
    counts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    files = 0
    for reason, state in states:
        files += 1
        counts[state] += 1
        if state == "excluded":
            reasons[reason or "excluded"] += 1
    return Totals(
        files=files,
        reviewed=counts["reviewed"],
        seen=counts["seen"],
        unseen=counts["unseen"],
        changed=counts["changed"],
        excluded=counts["excluded"],
        excluded_by_reason=dict(sorted(reasons.items())),
    )


def load(conn: sqlite3.Connection, review_ids: Sequence[int], loaded: RecordedDiff) -> Coverage:
    """The marks of the reviews ``review_ids`` as they bear on ``loaded``."""
    coverage = Coverage(loaded)
    if not review_ids:
        return coverage
    holes = ",".join("?" * len(review_ids))
    rows = conn.execute(
        f"SELECT path, scope, change_id, kind FROM marks WHERE review_id IN ({holes})",
        tuple(review_ids),
    )
    flags, parts = coverage.flags, coverage.parts
    ordinal_of, change_hex, path_of = loaded.ordinal, loaded.change_hex, loaded.path_of
    count = len(flags)
    # The rows come in path order, which is most often the diff's: the path after the
    # last one found is tried before a lookup.
    last_path: str | None = None
    ordinal: int | None = -1
    for path, scope, change, kind in rows:
        if path != last_path:
            following = -1 if ordinal is None else ordinal + 1
            if 0 <= following < count and path_of(following) == path:
                ordinal = following
            else:
                ordinal = ordinal_of(path)
            last_path = path
        if ordinal is None:
            continue
        if scope == "file":
            if change == change_hex(ordinal):
                flags[ordinal] |= _REVIEWED if kind == "reviewed" else _SEEN
            elif kind == "reviewed":
                flags[ordinal] |= _OTHER
        else:
            parts[kind].setdefault(path, set()).add(change)
    for kind in KINDS:
        for path, keys in parts[kind].items():
            ordinal = ordinal_of(path)
            if ordinal is not None and not keys.isdisjoint(loaded.part_keys(path)):
                flags[ordinal] |= _PART
    return coverage


def review_marks(
    conn: sqlite3.Connection, review: RecordedReview, loaded: RecordedDiff
) -> Coverage:
    """The marks of ``review``, with the files whose identical change (the same change
    hash) was marked reviewed in another review of its repository: one join, read as a
    stream, the first such mark (by time) naming the review and author."""
    coverage = load(conn, [review.id], loaded)
    if review.source.kind != "git" or review.source.repository is None:
        return coverage
    rows = conn.execute(
        "SELECT m.path, m.change_id, m.review_id, m.author FROM marks m "
        "JOIN reviews r ON r.id = m.review_id WHERE r.kind = 'git' AND r.repository = ? "
        "AND m.review_id != ? AND m.kind = 'reviewed' AND m.scope = 'file' "
        "ORDER BY m.created_at",
        (review.source.repository, review.id),
    )
    flags, found = coverage.flags, coverage.elsewhere
    ordinal_of, change_hex = loaded.ordinal, loaded.change_hex
    for path, change, review_id, author in rows:
        ordinal = ordinal_of(path)
        if ordinal is None or flags[ordinal] & _ELSEWHERE or change != change_hex(ordinal):
            continue
        flags[ordinal] |= _ELSEWHERE
        found[ordinal] = (int(review_id), str(author))
    return coverage


def by_reviewer(
    conn: sqlite3.Connection, review_id: int, loaded: RecordedDiff
) -> dict[str, dict[str, int]]:
    """Each author's share of the review: the files of this load whose current change
    they marked reviewed (an excluded file is not counted, as the review's totals do
    not count it), and the findings they wrote (``''``: before authors were recorded,
    shown as ``unknown``)."""
    found: dict[str, dict[str, int]] = {}
    ordinal_of, change_hex, excluded = loaded.ordinal, loaded.change_hex, loaded.excluded_reason
    for author, path, change in conn.execute(
        "SELECT author, path, change_id FROM marks WHERE review_id = ? AND kind = 'reviewed' "
        "AND scope = 'file'",
        (review_id,),
    ):
        ordinal = ordinal_of(path)
        if ordinal is None or excluded(ordinal) is not None or change != change_hex(ordinal):
            continue
        entry = found.setdefault(author or "unknown", {"reviewed": 0, "findings": 0})
        entry["reviewed"] += 1
    for author, count in conn.execute(
        "SELECT author, count(*) FROM findings WHERE review_id = ? GROUP BY author", (review_id,)
    ):
        entry = found.setdefault(author or "unknown", {"reviewed": 0, "findings": 0})
        entry["findings"] += int(count)
    return dict(sorted(found.items()))


# --------------------------------------------------------------------------
# Writing marks
# --------------------------------------------------------------------------

_ROWS = "marks_rows"  # this connection's temporary table of the marks one write names


def _rows_table(conn: sqlite3.Connection, rows: Iterable[tuple[str, str, str]]) -> None:
    """The temporary table ``marks_rows`` filled with ``(path, scope, change id)`` rows:
    what one statement then marks or unmarks."""
    conn.execute(
        f"CREATE TEMP TABLE IF NOT EXISTS {_ROWS} "
        "(path TEXT NOT NULL, scope TEXT NOT NULL, change_id TEXT NOT NULL)"
    )
    conn.execute(f"DELETE FROM {_ROWS}")
    conn.executemany(f"INSERT INTO {_ROWS} VALUES (?, ?, ?)", rows)


def _shared(conn: sqlite3.Connection, review_id: int, kind: str) -> bool:
    """Whether marks of ``kind`` on this review go to the sync log (reviewed marks of a
    shared review; a seen mark, a diff tool's, stays here)."""
    from . import merge

    return kind == "reviewed" and merge.shares_marks(conn, review_id)


def _write(
    conn: sqlite3.Connection,
    review_id: int,
    revision_id: int,
    kind: str,
    author: str,
    rows: Iterable[tuple[str, str, str]],
) -> None:
    """Mark ``rows`` with ``kind`` by ``author`` in one statement; the marks new to the
    record written to the sync log in one more (:func:`.merge.marks_changed`)."""
    _rows_table(conn, rows)
    logged = _shared(conn, review_id, kind)
    if logged:  # what the record holds already is neither written nor logged again
        conn.execute(
            f"DELETE FROM {_ROWS} WHERE EXISTS (SELECT 1 FROM marks m WHERE m.review_id = ? "
            f"AND m.path = {_ROWS}.path AND m.scope = {_ROWS}.scope "
            f"AND m.change_id = {_ROWS}.change_id AND m.kind = ? AND m.author = ?)",
            (review_id, kind, author),
        )
    conn.execute(
        "INSERT OR IGNORE INTO marks (review_id, path, scope, change_id, kind, author, "
        f"revision_id, created_at) SELECT ?, path, scope, change_id, ?, ?, ?, ? FROM {_ROWS}",
        (review_id, kind, author, revision_id, now()),
    )
    if logged:
        from . import merge

        merge.marks_changed(
            conn,
            review_id,
            conn.execute(
                f"SELECT DISTINCT path, scope, change_id, ? FROM {_ROWS} ORDER BY path, scope",
                (author,),
            ),
            True,
        )
    conn.execute(f"DELETE FROM {_ROWS}")


def _unwrite(conn: sqlite3.Connection, review_id: int, rows: Iterable[tuple[str, str, str]]) -> int:
    """Take back the reviewed marks of ``rows`` (by every author) in one statement, each
    written to the sync log first; returns how many went."""
    _rows_table(conn, rows)
    if _shared(conn, review_id, "reviewed"):
        from . import merge

        merge.marks_changed(
            conn,
            review_id,
            conn.execute(
                f"SELECT m.path, m.scope, m.change_id, m.author FROM marks m JOIN {_ROWS} t "
                "ON m.path = t.path AND m.scope = t.scope AND m.change_id = t.change_id "
                "WHERE m.review_id = ? AND m.kind = 'reviewed' ORDER BY m.path, m.scope",
                (review_id,),
            ),
            False,
        )
    gone = conn.execute(
        "DELETE FROM marks WHERE review_id = ? AND kind = 'reviewed' AND (path, scope, "
        f"change_id) IN (SELECT path, scope, change_id FROM {_ROWS})",
        (review_id,),
    ).rowcount
    conn.execute(f"DELETE FROM {_ROWS}")
    return int(gone)


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
    touched: dict[str, int] = {}
    rows = []
    for ref in refs:
        ordinal = loaded.ordinal_of_path(ref.path)
        if ref.key is None:
            rows.append((ref.path, "file", loaded.change_hex(ordinal)))
        else:
            rows.append((ref.path, "part", ref.key))
            touched[ref.path] = ordinal
    _write(conn, review_id, revision_id, kind, author, rows)
    whole = []
    for path, ordinal in touched.items():
        keys = loaded.part_keys(path)
        holes = ",".join("?" * len(keys))
        have = conn.execute(
            "SELECT count(DISTINCT change_id) FROM marks WHERE review_id = ? AND path = ? "
            f"AND scope = 'part' AND kind = ? AND change_id IN ({holes})",
            (review_id, path, kind, *keys),
        ).fetchone()[0]
        if have == len(keys):
            whole.append((path, "file", loaded.change_hex(ordinal)))
    if whole:
        _write(conn, review_id, revision_id, kind, author, whole)


def _file_rows(loaded: RecordedDiff, ordinals: Iterable[int]) -> Iterator[tuple[str, str, str]]:
    path_of, change_hex = loaded.path_of, loaded.change_hex
    return ((path_of(o), "file", change_hex(o)) for o in ordinals)


def _part_rows(loaded: RecordedDiff, paths: Iterable[str]) -> Iterator[tuple[str, str, str]]:
    """The part rows of those of ``paths`` cut into parts."""
    return (
        (path, "part", key)
        for path in paths
        if loaded.multi_part(path)
        for key in loaded.part_keys(path)
    )


def add_file_marks(
    conn: sqlite3.Connection,
    review_id: int,
    revision_id: int,
    loaded: RecordedDiff,
    ordinals: Iterable[int],
    kind: str,
    author: str = "",
) -> None:
    """Mark the whole files ``ordinals`` with ``kind`` by ``author``: their rows put in a
    temporary table, then one statement (and one for the sync log)."""
    _write(conn, review_id, revision_id, kind, author, _file_rows(loaded, ordinals))


def remove_reviewed(
    conn: sqlite3.Connection,
    review_id: int,
    revision_id: int,
    loaded: RecordedDiff,
    refs: Iterable[PartRef],
    author: str = "",
) -> None:
    """Take back the reviewed marks of each share of the current change.

    A whole file loses its file mark and every part mark.  One part of a file
    loses its part mark; if the whole file was marked, its other parts keep
    theirs (the file mark becomes part marks of the rest, by ``author``).
    """
    refs = list(refs)
    whole = [loaded.ordinal_of_path(ref.path) for ref in refs if ref.key is None]
    if whole:
        paths = [loaded.path_of(o) for o in whole]
        _unwrite(conn, review_id, [*_file_rows(loaded, whole), *_part_rows(loaded, paths)])
    for ref in refs:
        if ref.key is None:
            continue
        ordinal = loaded.ordinal_of_path(ref.path)
        had_file = _unwrite(conn, review_id, [(ref.path, "file", loaded.change_hex(ordinal))])
        if had_file:
            rest = [(ref.path, "part", k) for k in loaded.part_keys(ref.path) if k != ref.key]
            _write(conn, review_id, revision_id, "reviewed", author, rest)
        _unwrite(conn, review_id, [(ref.path, "part", ref.key)])


def remove_file_marks(
    conn: sqlite3.Connection, review_id: int, loaded: RecordedDiff, ordinals: Sequence[int]
) -> None:
    """Take back the reviewed marks of the whole files ``ordinals`` (their part marks
    too): their rows put in a temporary table, then one statement (and one for the sync
    log)."""
    path_of = loaded.path_of
    paths = (path_of(o) for o in ordinals)
    _unwrite(
        conn,
        review_id,
        itertools.chain(_file_rows(loaded, ordinals), _part_rows(loaded, paths)),
    )
