"""One record operation on one loaded diff: its review, revision and diff, in a transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from . import changes, identity
from .changes import LoadedDiff
from .model import Review, Revision
from .store import RecordStore, default_record

if TYPE_CHECKING:
    from ..sessions import SessionStore

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Context:
    """One tool call's review, revision and loaded diff."""

    review: Review
    revision: Revision
    loaded: LoadedDiff


def in_review(
    absolute_file_path: str,
    work: Callable[[sqlite3.Connection, Context], T],
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
    loaded: LoadedDiff | None = None,
) -> T:
    """Run ``work(conn, context)`` in one write transaction of the record, for the review
    of the diff at ``absolute_file_path`` (loaded first: a diff error comes before any
    record error)."""
    diff = loaded if loaded is not None else changes.loaded(absolute_file_path, store)

    def run(conn: sqlite3.Connection) -> T:
        review, revision = identity.resolve(conn, diff.path, diff.sha256)
        return work(conn, Context(review, revision, diff))

    return (record if record is not None else default_record()).write(run)
