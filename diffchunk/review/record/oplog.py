"""The review record as a log of operations: what ``diffchunk sync`` and
``diffchunk record export``/``import`` read and write.

Format (documented in the README, "The shared record"): JSON lines, UTF-8.
The first line is a header ``{"format": "diffchunk-record", "version": 1,
"repository": NAME}`` (NAME: :func:`~diffchunk.review.record.public.repository_name`,
never a local path); every other line is one operation::

    {"v": 1, "id": "3f2a...", "clock": 17, "op": "update", "review": "9c1e...",
     "author": "Ada <ada@example.org>", "at": "2026-11-28T11:00:00Z",
     "finding": "77ab...", "status": "dismissed"}

``id``: unique (hex); ``clock``: a Lamport clock (each new operation's is one
more than the largest the record holds, written here or read); ``review``:
the review's ``uid`` (the same on every clone).  Kinds (``op``):

- ``review``: ``range`` (as last given), ``keys`` (how clones find it again:
  ``["commits", BASE, HEAD]``, ``["branch", KIND, BASE REF OR COMMIT, BRANCH]``);
- ``finding``: ``finding`` (its uid), ``file_path``, ``side``, ``line``,
  ``end_line``, ``severity``, ``message``, ``suggestion``, ``lines``,
  ``context_before``, ``context_after``, ``change_id``, ``base``/``head`` (the
  commits whose diff numbers its lines);
- ``update``: ``finding`` and any of ``status`` (open, resolved, dismissed),
  ``severity``, ``message``;
- ``comment``: ``finding``, ``body``, and ``status`` when the same update set one;
- ``mark``: ``path``, ``scope`` (file, part), ``change_id``, ``on`` (reviewed,
  or taken back) — a reviewed mark by ``author``.

**Merge rule** (:mod:`.merge`), the same on every clone, in any order, any
number of times: operations are a set, by ``id`` (an operation read again
changes nothing); a finding, a reply and a review are created once, by uid;
each field of a finding (``status``, ``severity``, ``message``) and each mark
(review, path, scope, change, author) takes the value of its operation with
the greatest ``(clock, id)``; a thread is ordered by ``(clock, id)``.  Clones
that hold the same operations hold the same record.

What is written as an operation (:func:`emit`, in the transaction of the write):
findings, their updates and replies, and reviewed marks, of reviews of
commits (a review of the working tree or the index, a diff file's review and
``seen`` marks stay on this machine).  Reviews are written when the log is
(:func:`review_ops`).  Everything read is bounded and checked (:func:`parse`):
a log larger than :data:`~diffchunk.limits.SYNC_LOG_MAX_BYTES`, a line that is
not such an operation, a path that is absolute or climbs (``..``) is refused
with :class:`~diffchunk.errors.RecordLogRefused`, and nothing of that log is
applied.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import RecordLogRefused
from ...limits import (
    FINDING_COMMENT_CHARS,
    FINDING_MESSAGE_CHARS,
    FINDING_SUGGESTION_CHARS,
    REVIEWER_CHARS,
    SYNC_LOG_MAX_BYTES,
)
from .model import SEVERITIES, SIDES, STATUSES
from .store import now

FORMAT = "diffchunk-record"
FORMAT_VERSION = 1  # the review log's format: a reader refuses a log of another version
KINDS = ("review", "finding", "update", "comment", "mark")
_HEX = re.compile(r"[0-9a-f]{8,64}")

SYNC_LOG_MAX_LINES = 1_000_000
"""Most operations read from one log: an order above any team's record (the
2,000-finding benchmark writes about 9,000)."""

SYNC_OP_MAX_CHARS = 1 << 20
"""Longest operation (one JSON line) accepted: a finding with the longest message
and suggestion the record takes (FINDING_MESSAGE_CHARS + FINDING_SUGGESTION_CHARS),
its lines and context, JSON-escaped."""

SYNC_CLOCK_MAX = 2**53
"""Largest Lamport clock or line number an operation may carry: JSON readers in
other languages keep integers exactly up to here."""

SYNC_READ_CLOCK_MAX = SYNC_CLOCK_MAX - 2**32
"""Largest clock a log read from elsewhere (a sync, ``record import``) may carry.  A
record's own operations count on from the greatest clock it holds: a log carrying
a clock just below :data:`SYNC_CLOCK_MAX` would leave its reader's next operation
beyond it, refused by the reader itself and by every other clone, for good.  Below
this bound a record keeps 2**32 operations of its own before that limit; an honest
clock is at most the number of operations ever made."""

SYNC_TEXT_CHARS = 4096
"""Longest path, range or key part in an operation: git's own paths stop at
PATH_MAX (4,096 bytes on Linux)."""


@dataclass(frozen=True, slots=True)
class Op:
    """One operation (see the module doc); ``data``: its kind's fields."""

    id: str
    clock: int
    kind: str
    review: str
    author: str
    at: str
    data: Mapping[str, Any]

    def line(self) -> str:
        body = {
            "v": FORMAT_VERSION,
            "id": self.id,
            "clock": self.clock,
            "op": self.kind,
            "review": self.review,
            "author": self.author,
            "at": self.at,
            **self.data,
        }
        return json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def new_uid() -> str:
    return uuid.uuid4().hex


# --------------------------------------------------------------------------
# Writing operations (in the transaction of the write they describe)
# --------------------------------------------------------------------------


def next_clock(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(clock), 0) + 1 FROM ops").fetchone()[0])


def shared_review(conn: sqlite3.Connection, review_id: int) -> tuple[str, str] | None:
    """``(uid, repository)`` of a review whose operations are shared (a review of
    commits), its uid given when it had none; None for another review."""
    row = conn.execute(
        "SELECT uid, kind, repository, worktree FROM reviews WHERE id = ?", (review_id,)
    ).fetchone()
    if row is None or row["kind"] != "git" or row["worktree"] is not None:
        return None
    uid = row["uid"]
    if uid is None:
        uid = new_uid()
        conn.execute("UPDATE reviews SET uid = ? WHERE id = ?", (uid, review_id))
    return str(uid), str(row["repository"])


def emit(
    conn: sqlite3.Connection, review_id: int, kind: str, author: str, data: Mapping[str, Any]
) -> Op | None:
    """Record an operation of this record on review ``review_id`` (nothing for a review
    whose operations are not shared); returns it."""
    shared = shared_review(conn, review_id)
    if shared is None:
        return None
    op = Op(new_uid(), next_clock(conn), kind, shared[0], author, now(), dict(data))
    store(conn, op, shared[1], local=True)
    return op


def store(conn: sqlite3.Connection, op: Op, repository: str, *, local: bool) -> bool:
    """Keep ``op`` (False: the record holds it already)."""
    cursor = conn.execute(
        "INSERT OR IGNORE INTO ops (id, clock, repository, local, body) VALUES (?, ?, ?, ?, ?)",
        (op.id, op.clock, repository, int(local), op.line()),
    )
    return cursor.rowcount == 1


def portable_keys(conn: sqlite3.Connection, review_id: int) -> list[list[str]]:
    """A review's keys without the repository's local path (see :mod:`.continuity`)."""
    found = []
    for (key,) in conn.execute(
        "SELECT key FROM review_keys WHERE review_id = ? ORDER BY key", (review_id,)
    ):
        parts = str(key).split("\0")
        found.append([parts[0], *parts[2:]])
    return found


def review_ops(conn: sqlite3.Connection, repository: str) -> None:
    """Record a ``review`` operation for each shared review of ``repository`` whose
    keys the log does not hold yet (its id is the digest of its uid and keys)."""
    rows = conn.execute(
        "SELECT id, range FROM reviews WHERE kind = 'git' AND repository = ? "
        "AND worktree IS NULL ORDER BY id",
        (repository,),
    ).fetchall()
    for row in rows:
        shared = shared_review(conn, int(row["id"]))
        if shared is None:
            continue
        keys = portable_keys(conn, int(row["id"]))
        digest = hashlib.sha256(json.dumps([shared[0], keys]).encode()).hexdigest()[:32]
        if conn.execute("SELECT 1 FROM ops WHERE id = ?", (digest,)).fetchone() is not None:
            continue
        shown = str(row["range"] or "")
        data = {"range": shown.split(":", 1)[1] if ":" in shown else shown, "keys": keys}
        op = Op(digest, next_clock(conn), "review", shared[0], "", now(), data)
        store(conn, op, repository, local=True)


def ops_of(conn: sqlite3.Connection, repository: str, *, local_only: bool) -> Iterator[Op]:
    """The operations the record holds of ``repository``, by ``(clock, id)``."""
    where = "repository = ?" + (" AND local = 1" if local_only else "")
    for (body,) in conn.execute(
        f"SELECT body FROM ops WHERE {where} ORDER BY clock, id", (repository,)
    ):
        yield parse_op(json.loads(body), "the record")


def header(repository_name: str) -> str:
    body = {"format": FORMAT, "version": FORMAT_VERSION, "repository": repository_name}
    return json.dumps(body, ensure_ascii=False, sort_keys=True)


def render(repository_name: str, ops: Iterable[Op]) -> bytes:
    """A log: the header, then one operation a line."""
    lines = [header(repository_name), *(op.line() for op in ops)]
    return ("\n".join(lines) + "\n").encode("utf-8")


# --------------------------------------------------------------------------
# Reading a log (from a remote or a file): bounded and checked
# --------------------------------------------------------------------------


def parse(data: bytes, where: str) -> list[Op]:
    """The operations of the log ``data`` (read from ``where``), all checked; refused
    whole (:class:`RecordLogRefused`) when anything in it is not as written here."""
    if len(data) > SYNC_LOG_MAX_BYTES:
        raise _refused(where, f"it holds {len(data):,} bytes (at most {SYNC_LOG_MAX_BYTES:,})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _refused(where, f"it is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    # Newlines only: JSON keeps U+0085, U+2028 and U+2029 raw inside a string.
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if len(lines) > SYNC_LOG_MAX_LINES + 1:
        raise _refused(where, f"it holds {len(lines):,} lines (at most {SYNC_LOG_MAX_LINES:,})")
    if not lines:
        raise _refused(where, "it is empty")
    _check_header(_json(lines[0], where, 1), where)
    ops = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        op = parse_op(_json(line, where, number), f"{where}, line {number}")
        if op.clock >= SYNC_READ_CLOCK_MAX:
            raise _refused(
                where,
                f"line {number}'s clock {op.clock} is beyond any honest one (at most "
                f"{SYNC_READ_CLOCK_MAX - 1:,}): the reader's own operations would count on "
                "past the largest clock a record takes",
            )
        ops.append(op)
    return ops


def _refused(where: str, why: str) -> RecordLogRefused:
    return RecordLogRefused(
        f"The review log {where} was refused: {why}. Nothing of it was applied.",
        suggestion="A log diffchunk wrote is never so; ask its writer to sync again, or "
        "remove that ref from the remote.",
    )


def _json(line: str, where: str, number: int) -> Any:
    if len(line) > SYNC_OP_MAX_CHARS:
        raise _refused(where, f"line {number} holds {len(line):,} characters")
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        raise _refused(where, f"line {number} is not JSON") from None


def _check_header(value: Any, where: str) -> None:
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise _refused(where, f"its first line is not a {FORMAT} header")
    if value.get("version") != FORMAT_VERSION:
        raise _refused(
            where, f"it is version {value.get('version')!r}; this diffchunk reads {FORMAT_VERSION}"
        )


class _Bad(Exception):
    pass


def parse_op(value: Any, where: str) -> Op:
    """One operation, checked (see the module doc)."""
    try:
        return _op(value)
    except _Bad as exc:
        raise RecordLogRefused(
            f"The review log was refused: {where}: {exc}. Nothing of it was applied.",
            suggestion="A log diffchunk wrote is never so; ask its writer to sync again.",
        ) from None


def _op(value: Any) -> Op:
    if not isinstance(value, dict):
        raise _Bad("an operation is a JSON object")
    if value.get("v") != FORMAT_VERSION:
        raise _Bad(f"version {value.get('v')!r} is not {FORMAT_VERSION}")
    kind = value.get("op")
    if kind not in KINDS:
        raise _Bad(f"unknown operation {kind!r}")
    clock = value.get("clock")
    if isinstance(clock, bool) or not isinstance(clock, int) or not 0 < clock < SYNC_CLOCK_MAX:
        raise _Bad(f"clock {clock!r} is not a positive integer")
    data = {k: v for k, v in value.items() if k not in _COMMON}
    _FIELDS[kind](data)
    unknown = set(data) - _ALLOWED[kind]
    if unknown:
        raise _Bad(f"unknown fields {sorted(unknown)}")
    return Op(
        id=_hex(value.get("id"), "id"),
        clock=clock,
        kind=kind,
        review=_hex(value.get("review"), "review"),
        author=_text(value.get("author"), "author", REVIEWER_CHARS, empty_ok=True),
        at=_text(value.get("at"), "at", 40, empty_ok=True),
        data=data,
    )


_COMMON = frozenset({"v", "id", "clock", "op", "review", "author", "at"})


def _hex(value: Any, name: str) -> str:
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise _Bad(f"{name} {value!r} is not a hexadecimal id")
    return value


def _text(value: Any, name: str, limit: int, *, empty_ok: bool = False) -> str:
    if not isinstance(value, str) or (not value and not empty_ok) or len(value) > limit:
        raise _Bad(f"{name} is not text of at most {limit:,} characters")
    if "\0" in value:
        raise _Bad(f"{name} holds a NUL")
    return value


def _opt_text(data: Mapping[str, Any], name: str, limit: int) -> None:
    if data.get(name) is not None:
        _text(data[name], name, limit, empty_ok=True)


def _path(value: Any, name: str) -> None:
    _text(value, name, SYNC_TEXT_CHARS)
    if value.startswith("/") or ".." in value.split("/"):
        raise _Bad(f"{name} {value!r} is not a path inside the repository")


def _commit(value: Any, name: str) -> None:
    if value is not None and (
        not isinstance(value, str) or not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", value)
    ):
        raise _Bad(f"{name} {value!r} is not a commit id")


def _line(value: Any, name: str) -> None:
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or not 0 < value < SYNC_CLOCK_MAX
    ):
        raise _Bad(f"{name} {value!r} is not a line number")


def _review_fields(data: Mapping[str, Any]) -> None:
    _text(data.get("range"), "range", SYNC_TEXT_CHARS, empty_ok=True)
    keys = data.get("keys")
    if not isinstance(keys, list) or len(keys) > 64:
        raise _Bad("keys is not a list of at most 64 keys")
    for key in keys:
        if (
            not isinstance(key, list)
            or not key
            or key[0] not in ("commits", "branch")
            or len(key) > 5
        ):
            raise _Bad(f"key {key!r} is not a commits or branch key")
        for part in key:
            _text(part, "a key's part", SYNC_TEXT_CHARS, empty_ok=True)


def _finding_fields(data: Mapping[str, Any]) -> None:
    _hex(data.get("finding"), "finding")
    _path(data.get("file_path"), "file_path")
    if data.get("side") not in SIDES:
        raise _Bad(f"side {data.get('side')!r}")
    if data.get("severity") not in SEVERITIES:
        raise _Bad(f"severity {data.get('severity')!r}")
    _line(data.get("line"), "line")
    _line(data.get("end_line"), "end_line")
    if (data.get("line") is None) != (data.get("end_line") is None):
        raise _Bad("line and end_line go together")
    _text(data.get("message"), "message", FINDING_MESSAGE_CHARS)
    _opt_text(data, "suggestion", FINDING_SUGGESTION_CHARS)
    for name in ("lines", "context_before", "context_after", "change_id"):
        _opt_text(data, name, SYNC_OP_MAX_CHARS)
    _commit(data.get("base"), "base")
    _commit(data.get("head"), "head")


def _update_fields(data: Mapping[str, Any]) -> None:
    _hex(data.get("finding"), "finding")
    if "status" in data and data["status"] not in STATUSES:
        raise _Bad(f"status {data['status']!r}")
    if "severity" in data and data["severity"] not in SEVERITIES:
        raise _Bad(f"severity {data['severity']!r}")
    if "message" in data:
        _text(data["message"], "message", FINDING_MESSAGE_CHARS)
    if not {"status", "severity", "message"} & set(data):
        raise _Bad("an update changes status, severity or message")


def _comment_fields(data: Mapping[str, Any]) -> None:
    _hex(data.get("finding"), "finding")
    _text(data.get("body"), "body", FINDING_COMMENT_CHARS)
    if data.get("status") is not None and data["status"] not in STATUSES:
        raise _Bad(f"status {data['status']!r}")


def _mark_fields(data: Mapping[str, Any]) -> None:
    _path(data.get("path"), "path")
    if data.get("scope") not in ("file", "part"):
        raise _Bad(f"scope {data.get('scope')!r}")
    _text(data.get("change_id"), "change_id", SYNC_TEXT_CHARS)
    if not isinstance(data.get("on"), bool):
        raise _Bad("on is true or false")


_FIELDS = {
    "review": _review_fields,
    "finding": _finding_fields,
    "update": _update_fields,
    "comment": _comment_fields,
    "mark": _mark_fields,
}
_ALLOWED = {
    "review": frozenset({"range", "keys"}),
    "finding": frozenset(
        {
            "finding",
            "file_path",
            "side",
            "line",
            "end_line",
            "severity",
            "message",
            "suggestion",
            "lines",
            "context_before",
            "context_after",
            "change_id",
            "base",
            "head",
        }
    ),
    "update": frozenset({"finding", "status", "severity", "message"}),
    "comment": frozenset({"finding", "body", "status"}),
    "mark": frozenset({"path", "scope", "change_id", "on"}),
}
