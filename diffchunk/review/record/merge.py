"""Applying operations read from other clones' logs to this record (the merge rule of
:mod:`.oplog`), and writing this record's own.

:func:`apply` keeps each new operation (by id: one already held is skipped) and
applies the new ones, reviews first, then findings, then the rest, each kind
by ``(clock, id)``:

- ``review``: the local review with that uid (or aliased to it), else the one
  its keys find (:mod:`.continuity`: the same change, reviewed on this clone
  too; its uid is aliased), else a new review of the repository (it has no
  revision until the range is loaded here; its findings are then re-anchored
  as any finding written on another revision).  Its keys are added.
- ``finding``: a new finding (none with that uid yet) of that review, open,
  on the revision loaded here at the same two commits if any.
- ``update`` and ``mark``: applied when their ``(clock, id)`` is greater than
  the last applied to that field or mark (``findings.stamps``,
  ``mark_stamps``); ``comment``: added once, by uid.

Local writes stamp what they change the same way (:func:`stamp_finding`,
:func:`stamp_mark`), so an older operation read later never undoes a newer
local one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from . import continuity
from .oplog import Op, emit, new_uid, next_clock, shared_review, store
from .store import now

_ORDER = {"review": 0, "finding": 1, "update": 2, "comment": 2, "mark": 2}
_FIELDS = ("status", "severity", "message")


@dataclass(frozen=True, slots=True)
class Applied:
    """What an import did: operations read, new to this record, and new ones that name
    a review or finding this record does not hold (kept, not applied)."""

    read: int
    new: int
    unplaced: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"read": self.read, "new": self.new, "unplaced": self.unplaced}


def apply(
    conn: sqlite3.Connection, ops: Iterable[Op], repository: str, repository_path: str
) -> Applied:
    """Keep and apply ``ops`` of the repository whose common dir is ``repository``."""
    read = list(ops)
    new = [op for op in read if store(conn, op, repository, local=False)]
    new.sort(key=lambda op: (_ORDER[op.kind], op.clock, op.id))
    unplaced = 0
    for op in new:
        if not _APPLY[op.kind](conn, op, repository, repository_path):
            unplaced += 1
    return Applied(len(read), len(new), unplaced)


def local_review(conn: sqlite3.Connection, uid: str, repository: str) -> int | None:
    row = conn.execute(
        "SELECT id FROM reviews WHERE uid = ? AND repository = ? UNION ALL "
        "SELECT a.review_id FROM review_aliases a JOIN reviews r ON r.id = a.review_id "
        "WHERE a.uid = ? AND r.repository = ? LIMIT 1",
        (uid, repository, uid, repository),
    ).fetchone()
    return int(row[0]) if row is not None else None


def _local_keys(repository: str, keys: Iterable[list[str]]) -> list[str]:
    return ["\0".join([key[0], repository, *key[1:]]) for key in keys]


def _review(conn: sqlite3.Connection, op: Op, repository: str, repository_path: str) -> bool:
    keys = _local_keys(repository, op.data["keys"])
    review_id = local_review(conn, op.review, repository)
    if review_id is None:
        review_id = continuity.find(conn, keys)
        if review_id is not None:
            own = conn.execute("SELECT uid FROM reviews WHERE id = ?", (review_id,)).fetchone()
            if own is not None and own["uid"] is None:
                conn.execute("UPDATE reviews SET uid = ? WHERE id = ?", (op.review, review_id))
            else:
                conn.execute(
                    "INSERT OR IGNORE INTO review_aliases (uid, review_id) VALUES (?, ?)",
                    (op.review, review_id),
                )
    if review_id is None:
        identity = f"sync\0{repository}\0{op.review}"
        conn.execute(
            "INSERT INTO reviews (identity, kind, repository, repository_path, range, worktree, "
            "diff_file, created_at, uid) VALUES (?, 'git', ?, ?, ?, NULL, NULL, ?, ?)",
            (
                identity,
                repository,
                repository_path,
                f"commits:{op.data['range']}",
                op.at or now(),
                op.review,
            ),
        )
        review_id = int(
            conn.execute("SELECT id FROM reviews WHERE identity = ?", (identity,)).fetchone()[0]
        )
    continuity.attach(conn, review_id, keys, take=False)
    return True


def _finding(conn: sqlite3.Connection, op: Op, repository: str, _path: str) -> bool:
    d = op.data
    if conn.execute("SELECT 1 FROM findings WHERE uid = ?", (d["finding"],)).fetchone():
        return True
    review_id = local_review(conn, op.review, repository)
    if review_id is None:
        return False
    row = conn.execute(
        "SELECT id FROM revisions WHERE review_id = ? AND base IS ? AND head IS ? "
        "AND paths IS NULL ORDER BY load_seq DESC LIMIT 1",
        (review_id, d.get("base"), d.get("head")),
    ).fetchone()
    revision = int(row[0]) if row is not None and d.get("head") is not None else None
    stamp = [op.clock, op.id]
    conn.execute(
        "INSERT INTO findings (review_id, revision_id, created_revision_id, file_path, side, "
        "line, end_line, severity, status, message, suggestion, lines, change_id, "
        "context_before, context_after, created_at, updated_at, author, uid, stamps) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            review_id,
            revision,
            revision,
            d["file_path"],
            d["side"],
            d.get("line"),
            d.get("end_line"),
            d["severity"],
            d["message"],
            d.get("suggestion"),
            d.get("lines"),
            d.get("change_id"),
            d.get("context_before"),
            d.get("context_after"),
            op.at or now(),
            op.at or now(),
            op.author,
            d["finding"],
            json.dumps(dict.fromkeys(_FIELDS, stamp)),
        ),
    )
    return True


def _update(conn: sqlite3.Connection, op: Op, _repository: str, _path: str) -> bool:
    row = conn.execute(
        "SELECT id, stamps FROM findings WHERE uid = ?", (op.data["finding"],)
    ).fetchone()
    if row is None:
        return False
    stamps = _stamps(row["stamps"])
    changed = {}
    for field in _FIELDS:
        if field in op.data and (op.clock, op.id) > tuple(stamps.get(field, (0, ""))):
            changed[field] = op.data[field]
            stamps[field] = [op.clock, op.id]
    if changed:
        sets = "".join(f"{column} = ?, " for column in changed)
        conn.execute(
            f"UPDATE findings SET {sets}stamps = ?, updated_at = ? WHERE id = ?",
            (*changed.values(), json.dumps(stamps), op.at or now(), row["id"]),
        )
    return True


def _comment(conn: sqlite3.Connection, op: Op, _repository: str, _path: str) -> bool:
    row = conn.execute("SELECT id FROM findings WHERE uid = ?", (op.data["finding"],)).fetchone()
    if row is None:
        return False
    conn.execute(
        "INSERT OR IGNORE INTO finding_comments (finding_id, author, body, status, created_at, "
        "uid, clock) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (row["id"], op.author, op.data["body"], op.data.get("status"), op.at, op.id, op.clock),
    )
    return True


def _mark(conn: sqlite3.Connection, op: Op, repository: str, _path: str) -> bool:
    review_id = local_review(conn, op.review, repository)
    if review_id is None:
        return False
    d = op.data
    key = _mark_key(review_id, d["path"], d["scope"], d["change_id"], op.author)
    held = conn.execute("SELECT clock, op FROM mark_stamps WHERE key = ?", (key,)).fetchone()
    if held is not None and (op.clock, op.id) <= (int(held["clock"]), str(held["op"])):
        return True
    conn.execute(
        "INSERT OR REPLACE INTO mark_stamps (key, clock, op) VALUES (?, ?, ?)",
        (key, op.clock, op.id),
    )
    if d["on"]:
        conn.execute(
            "INSERT OR IGNORE INTO marks (review_id, path, scope, change_id, kind, author, "
            "revision_id, created_at) VALUES (?, ?, ?, ?, 'reviewed', ?, NULL, ?)",
            (review_id, d["path"], d["scope"], d["change_id"], op.author, op.at or now()),
        )
    else:
        conn.execute(
            "DELETE FROM marks WHERE review_id = ? AND path = ? AND scope = ? AND change_id = ? "
            "AND kind = 'reviewed' AND author = ?",
            (review_id, d["path"], d["scope"], d["change_id"], op.author),
        )
    return True


_APPLY = {
    "review": _review,
    "finding": _finding,
    "update": _update,
    "comment": _comment,
    "mark": _mark,
}


# --------------------------------------------------------------------------
# Local writes, as operations
# --------------------------------------------------------------------------


def _stamps(text: str | None) -> dict[str, Any]:
    value = json.loads(text) if text else {}
    return value if isinstance(value, dict) else {}


def _mark_key(review_id: int, path: str, scope: str, change: str, author: str) -> str:
    return "\0".join((str(review_id), path, scope, change, author))


def finding_created(conn: sqlite3.Connection, finding_id: int, author: str) -> None:
    """Write the ``finding`` operation of a finding just added (and give it its uid)."""
    row = conn.execute(
        "SELECT f.*, v.base AS rev_base, v.head AS rev_head FROM findings f "
        "LEFT JOIN revisions v ON v.id = f.revision_id WHERE f.id = ?",
        (finding_id,),
    ).fetchone()
    uid = row["uid"] or _new_finding_uid(conn, finding_id)
    data = {
        "finding": uid,
        "file_path": row["file_path"],
        "side": row["side"],
        "line": row["line"],
        "end_line": row["end_line"],
        "severity": row["severity"],
        "message": row["message"],
        "suggestion": row["suggestion"],
        "lines": row["lines"],
        "context_before": row["context_before"],
        "context_after": row["context_after"],
        "change_id": row["change_id"],
        "base": row["rev_base"],
        "head": row["rev_head"],
    }
    op = emit(conn, int(row["review_id"]), "finding", author, data)
    if op is not None:
        stamp = [op.clock, op.id]
        conn.execute(
            "UPDATE findings SET stamps = ? WHERE id = ?",
            (json.dumps(dict.fromkeys(_FIELDS, stamp)), finding_id),
        )


def _new_finding_uid(conn: sqlite3.Connection, finding_id: int) -> str:
    from .oplog import new_uid

    uid = new_uid()
    conn.execute("UPDATE findings SET uid = ? WHERE id = ?", (uid, finding_id))
    return uid


def finding_changed(
    conn: sqlite3.Connection,
    finding_id: int,
    author: str,
    changed: Mapping[str, str],
    comment_id: int | None = None,
) -> None:
    """Write the ``update`` (and ``comment``) operations of a local change of a finding."""
    row = conn.execute(
        "SELECT review_id, uid, stamps FROM findings WHERE id = ?", (finding_id,)
    ).fetchone()
    if row is None:
        return
    uid = row["uid"]
    if uid is None:  # written before sharing: share its creation first
        finding_created(conn, finding_id, author)
        row = conn.execute(
            "SELECT review_id, uid, stamps FROM findings WHERE id = ?", (finding_id,)
        ).fetchone()
        uid = row["uid"]
    shared_fields = {k: v for k, v in changed.items() if k in _FIELDS and v != "outdated"}
    if shared_fields:
        op = emit(conn, int(row["review_id"]), "update", author, {"finding": uid, **shared_fields})
        if op is not None:
            stamps = _stamps(row["stamps"])
            stamps.update({key: [op.clock, op.id] for key in shared_fields})
            conn.execute(
                "UPDATE findings SET stamps = ? WHERE id = ?", (json.dumps(stamps), finding_id)
            )
    if comment_id is not None:
        reply = conn.execute(
            "SELECT body, status FROM finding_comments WHERE id = ?", (comment_id,)
        ).fetchone()
        data: dict[str, Any] = {"finding": uid, "body": reply["body"]}
        if reply["status"] is not None:
            data["status"] = reply["status"]
        op = emit(conn, int(row["review_id"]), "comment", author, data)
        if op is not None:
            conn.execute(
                "UPDATE finding_comments SET uid = ?, clock = ? WHERE id = ?",
                (op.id, op.clock, comment_id),
            )


def shares_marks(conn: sqlite3.Connection, review_id: int) -> bool:
    """Whether the reviewed marks of ``review_id`` go to the sync log (a shared review)."""
    return shared_review(conn, review_id) is not None


def marks_changed(
    conn: sqlite3.Connection,
    review_id: int,
    rows: Iterable[tuple[str, str, str, str]],
    on: bool,
) -> None:
    """Write the ``mark`` operations of reviewed marks made or taken back here, one per
    ``(path, scope, change id, author)`` of ``rows``, in bulk: one statement for the
    operations (their clocks following one another), one for their stamps."""
    shared = shared_review(conn, review_id)
    if shared is None:
        return
    uid, repository = shared
    first = next_clock(conn)
    at = now()

    def lines() -> Iterable[tuple[str, int, str, int, str]]:
        for n, (path, scope, change, author) in enumerate(rows):
            data = {"path": path, "scope": scope, "change_id": change, "on": on}
            op = Op(new_uid(), first + n, "mark", uid, author, at, data)
            yield op.id, op.clock, repository, 1, op.line()

    conn.executemany(
        "INSERT OR IGNORE INTO ops (id, clock, repository, local, body) VALUES (?, ?, ?, ?, ?)",
        lines(),
    )
    conn.execute(
        "INSERT OR REPLACE INTO mark_stamps (key, clock, op) SELECT ? || char(0) || "
        "json_extract(body, '$.path') || char(0) || json_extract(body, '$.scope') || char(0) "
        "|| json_extract(body, '$.change_id') || char(0) || json_extract(body, '$.author'), "
        "clock, id FROM ops WHERE repository = ? AND local = 1 AND clock >= ? "
        "AND json_extract(body, '$.op') = 'mark'",
        (str(review_id), repository, first),
    )
