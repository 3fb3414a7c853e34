"""Marks (``seen``, ``reviewed``) and what they make of a loaded diff's files and chunks.

Marks are kept per review, per path and change (never per chunk number):

- a *file* mark names a whole file's change id;
- a *part* mark names one part of a file whose text lies in several chunk
  parts (see :mod:`diffchunk.review.record.changes`).  When marks of one kind
  cover every part of such a file, the file mark is recorded too, so the file
  stays reviewed when it is cut otherwise later.

States of a file of the current load (:meth:`Coverage.state`), first that
holds: ``excluded`` (in no chunk), ``reviewed`` (a reviewed file mark for its
current change, or reviewed marks on all its parts), ``changed`` (a reviewed
file mark for another change of that path: reviewed, then changed), ``seen``
(a seen mark for its current change, or a seen or reviewed mark on one of its
parts), else ``unseen``.  A chunk is ``reviewed`` when all its file shares
are, ``partly`` when some are, ``seen`` when one is seen, else ``unseen``.

**Memory and time.**  A :class:`Coverage` is what the marks of some reviews
say of one loaded diff: a byte of flags per path (by its ordinal, see
:mod:`.changes`), and the part marks of the few paths cut into parts.  The
marks are read as one stream of rows; a diff of a million files costs a
megabyte here, never an object per mark.  Marks are written in one
statement run over all the rows (``executemany``), in the caller's
transaction.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from .changes import PartRef, RecordedDiff
from .results import ChunkStatus, Totals
from .store import now

# A path's flags in Coverage.flags.
_REVIEWED = 1  # a reviewed file mark for its current change
_SEEN = 2  # a seen file mark for its current change
_OTHER = 4  # a reviewed file mark for another change of the path
_PART = 8  # a seen or reviewed mark on one of its current parts
KINDS = ("seen", "reviewed")


class Coverage:
    """What the marks of some reviews make of one loaded diff (see the module doc)."""

    __slots__ = ("flags", "loaded", "parts")

    def __init__(self, loaded: RecordedDiff) -> None:
        self.loaded = loaded
        self.flags = bytearray(loaded.count())
        # kind -> path -> part keys marked, for the paths whose text lies in several parts
        self.parts: dict[str, dict[str, set[str]]] = {kind: {} for kind in KINDS}

    # ---------------------------------------------------------------- states

    def _all_parts(self, kind: str, path: str) -> bool:
        keys = self.loaded.part_keys(path)
        marked = self.parts[kind].get(path, set())
        return bool(keys) and all(k in marked for k in keys)

    def is_reviewed(self, ordinal: int) -> bool:
        if self.flags[ordinal] & _REVIEWED:
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


# --------------------------------------------------------------------------
# Writing marks
# --------------------------------------------------------------------------

_INSERT = (
    "INSERT OR IGNORE INTO marks (review_id, path, scope, change_id, kind, revision_id, "
    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_DELETE = (
    "DELETE FROM marks WHERE review_id = ? AND path = ? AND scope = ? AND change_id = ? "
    "AND kind = ?"
)


def add_marks(
    conn: sqlite3.Connection,
    review_id: int,
    revision_id: int,
    loaded: RecordedDiff,
    refs: Iterable[PartRef],
    kind: str,
) -> None:
    """Mark each share (a whole file, or one part) with ``kind``; a file whose parts are
    then all marked gets its file mark as well."""
    stamp = now()
    touched: dict[str, int] = {}
    rows = []
    for ref in refs:
        ordinal = loaded.ordinal_of_path(ref.path)
        if ref.key is None:
            rows.append((review_id, ref.path, "file", loaded.change_hex(ordinal), kind))
        else:
            rows.append((review_id, ref.path, "part", ref.key, kind))
            touched[ref.path] = ordinal
    conn.executemany(_INSERT, ((*row, revision_id, stamp) for row in rows))
    for path, ordinal in touched.items():
        keys = loaded.part_keys(path)
        holes = ",".join("?" * len(keys))
        have = conn.execute(
            f"SELECT count(*) FROM marks WHERE review_id = ? AND path = ? AND scope = 'part' "
            f"AND kind = ? AND change_id IN ({holes})",
            (review_id, path, kind, *keys),
        ).fetchone()[0]
        if have == len(keys):
            conn.execute(
                _INSERT,
                (review_id, path, "file", loaded.change_hex(ordinal), kind, revision_id, stamp),
            )


def _files_table(conn: sqlite3.Connection, loaded: RecordedDiff, ordinals: Iterable[int]) -> None:
    """The temporary table ``marks_files`` (this connection's own) filled with the path and
    change id of each file of ``ordinals``: what one statement then marks or unmarks."""
    conn.execute(
        "CREATE TEMP TABLE IF NOT EXISTS marks_files (path TEXT NOT NULL, change_id TEXT NOT NULL)"
    )
    conn.execute("DELETE FROM marks_files")
    path_of, change_hex = loaded.path_of, loaded.change_hex
    conn.executemany(
        "INSERT INTO marks_files VALUES (?, ?)", ((path_of(o), change_hex(o)) for o in ordinals)
    )


def add_file_marks(
    conn: sqlite3.Connection,
    review_id: int,
    revision_id: int,
    loaded: RecordedDiff,
    ordinals: Iterable[int],
    kind: str,
) -> None:
    """Mark the whole files ``ordinals`` with ``kind``: their rows put in a temporary
    table, then one statement."""
    _files_table(conn, loaded, ordinals)
    conn.execute(
        "INSERT OR IGNORE INTO marks (review_id, path, scope, change_id, kind, revision_id, "
        "created_at) SELECT ?, path, 'file', change_id, ?, ?, ? FROM marks_files",
        (review_id, kind, revision_id, now()),
    )
    conn.execute("DELETE FROM marks_files")


def remove_reviewed(
    conn: sqlite3.Connection,
    review_id: int,
    revision_id: int,
    loaded: RecordedDiff,
    refs: Iterable[PartRef],
) -> None:
    """Take back the reviewed marks of each share of the current change.

    A whole file loses its file mark and every part mark.  One part of a file
    loses its part mark; if the whole file was marked, its other parts keep
    theirs (the file mark becomes part marks of the rest).
    """
    stamp = now()
    for ref in refs:
        ordinal = loaded.ordinal_of_path(ref.path)
        change, keys = loaded.change_hex(ordinal), loaded.part_keys(ref.path)
        had_file = conn.execute(_DELETE, (review_id, ref.path, "file", change, "reviewed")).rowcount
        if ref.key is None:
            conn.executemany(_DELETE, ((review_id, ref.path, "part", k, "reviewed") for k in keys))
            continue
        if had_file:
            conn.executemany(
                _INSERT,
                ((review_id, ref.path, "part", k, "reviewed", revision_id, stamp) for k in keys),
            )
        conn.execute(_DELETE, (review_id, ref.path, "part", ref.key, "reviewed"))


def remove_file_marks(
    conn: sqlite3.Connection, review_id: int, loaded: RecordedDiff, ordinals: Sequence[int]
) -> None:
    """Take back the reviewed marks of the whole files ``ordinals`` (their part marks
    too): their rows put in a temporary table, then one statement (and one per part
    mark of the few files cut into parts)."""
    _files_table(conn, loaded, ordinals)
    conn.execute(
        "DELETE FROM marks WHERE review_id = ? AND scope = 'file' AND kind = 'reviewed' "
        "AND (path, change_id) IN (SELECT path, change_id FROM marks_files)",
        (review_id,),
    )
    conn.execute("DELETE FROM marks_files")
    path_of = loaded.path_of
    conn.executemany(
        _DELETE,
        (
            (review_id, path, "part", key, "reviewed")
            for o in ordinals
            for path in (path_of(o),)
            if loaded.multi_part(path)
            for key in loaded.part_keys(path)
        ),
    )
