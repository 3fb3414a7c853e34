"""One record operation on one loaded diff: its review, revision and diff, in a transaction.

A tool that changes the record runs in one write transaction, which finds or
creates the review and revision of the diff (:func:`identity.resolve`).  A
tool that only reads it (``review_status``, ``list_findings``, the export)
runs in a read transaction, which takes no lock and waits for no writer
(:func:`identity.find`); only when the record does not hold the review or
revision yet are they written first, in a short write of their own.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from . import changes, identity
from .changes import RecordedDiff
from .model import RecordedReview, Revision
from .store import RecordStore, default_record

if TYPE_CHECKING:
    from ..sessions.store import SessionStore

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Context:
    """One tool call's review, revision and loaded diff."""

    review: RecordedReview
    revision: Revision
    loaded: RecordedDiff


def in_review(
    absolute_file_path: str,
    work: Callable[[sqlite3.Connection, Context], T],
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
    loaded: RecordedDiff | None = None,
    writes: bool = True,
) -> T:
    """Run ``work(conn, context)`` for the review of the diff at ``absolute_file_path``
    (loaded first: a diff error comes before any record error): in one write
    transaction, or in a read transaction when ``writes`` is false (see the module
    doc)."""
    diff = loaded if loaded is not None else changes.loaded(absolute_file_path, store)
    target = record if record is not None else default_record()
    if writes:

        def run(conn: sqlite3.Connection) -> T:
            review, revision = identity.resolve(conn, diff.path, diff.sha256)
            return work(conn, Context(review, revision, diff))

        return target.write(run)

    def read(conn: sqlite3.Connection) -> tuple[T] | None:
        found = identity.find(conn, diff.path, diff.sha256)
        return None if found is None else (work(conn, Context(*found, diff)),)

    result = target.read(read)
    while result is None:  # not recorded yet: record the review and revision, then read
        target.write(lambda conn: identity.resolve(conn, diff.path, diff.sha256), reading=True)
        result = target.read(read)
    return result[0]
