"""What the diff tools write to the record on the side of their answers: the files a
chunk or file diff showed, marked seen (``get_chunk``, ``get_file_diff``,
``diffchunk review --chunk/--file``), and a range's load (``load_git_diff``,
``diffchunk review RANGE``).

Best effort, all of it: a write waits for the record's lock at most
:data:`~diffchunk.limits.RECORD_SIDE_WRITE_SECONDS`, and a failure is logged,
never raised, so a diff tool's answer never depends on the record.  This module
is apart from the record's tools (:mod:`.service`, :mod:`.findings`) so that a
range review or a chunk loads only what these writes need.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...errors import InvalidArgument
from ...limits import RECORD_SIDE_WRITE_SECONDS
from . import identity
from .store import RecordStore, default_record

if TYPE_CHECKING:
    from ..sessions.store import Session, SessionStore
    from .changes import PartRef
    from .continuity import BranchKey, Overlap

_SEEN_KEPT = 4_096
"""Shares this process remembers having recorded as seen, so a chunk read again
writes nothing: a few hundred bytes each, far more than one review reads."""


logger = logging.getLogger(__name__)

# What this process recorded as seen: (record, diff file, its digest, the shares).
_seen_done: OrderedDict[tuple[str, str, str, tuple[PartRef, ...]], None] = OrderedDict()
_seen_lock = threading.Lock()


def record_seen(
    session: Session,
    *,
    chunk_number: int | None = None,
    file_path: str | None = None,
    record: RecordStore | None = None,
) -> None:
    """Record the files a diff tool just returned as seen: the shares of chunk
    ``chunk_number``, or the whole file ``file_path`` (a path of the diff).

    Best effort: the write waits for the record's lock at most
    :data:`~diffchunk.limits.RECORD_SIDE_WRITE_SECONDS` (the diff tool's answer does not
    wait for the record), and a failure is logged, never raised.  What this
    process has recorded once (same record, diff content and shares: files and
    parts, whatever chunk numbers the load's options give them) is not written
    again.
    """
    from . import changes, coverage  # not needed by a range load
    from .people import reviewer

    target = record if record is not None else default_record()
    try:
        loaded = changes.of_session(session)
        if chunk_number is not None:
            shares = loaded.chunk_parts(chunk_number)
        elif file_path is not None:
            shares = [changes.PartRef(file_path, None)]
        else:
            return
        key = (target.path, loaded.path, loaded.sha256, tuple(shares))
        with _seen_lock:
            if key in _seen_done:
                _seen_done.move_to_end(key)
                return

        def work(conn: sqlite3.Connection) -> None:
            review, revision = identity.resolve(conn, loaded.path, loaded.sha256)
            source = review.source
            author = reviewer(source.repository_path if source.kind == "git" else None)
            coverage.add_marks(conn, review.id, revision.id, loaded, shares, "seen", author)

        target.write(work, wait=RECORD_SIDE_WRITE_SECONDS)
        with _seen_lock:
            _seen_done[key] = None
            while len(_seen_done) > _SEEN_KEPT:
                _seen_done.popitem(last=False)
    except Exception as exc:  # the diff tool's answer must not depend on the record
        logger.warning("Not recorded as seen in the review record: %s", exc)


def record_seen_at(
    absolute_file_path: str,
    *,
    chunk_number: int | None = None,
    file_path: str | None = None,
    store: SessionStore | None = None,
) -> None:
    """:func:`record_seen` for the diff at a path (``diffchunk review --chunk/--file``)."""
    try:
        from ..sessions.loading import session as loaded_session

        session = loaded_session(absolute_file_path, store=store)
    except Exception as exc:  # as record_seen: never fails the command
        logger.warning("Not recorded as seen in the review record: %s", exc)
        return
    record_seen(session, chunk_number=chunk_number, file_path=file_path)


def record_range_load(
    session: Session,
    *,
    common_dir: str,
    repository_path: str,
    worktree: str,
    revision_range: str | None,
    staged: bool,
    base: str | None,
    head: str | None,
    record: RecordStore | None = None,
    paths: Sequence[str] | None = None,
    branch: BranchKey | None = None,
    review_id: int | None = None,
) -> list[Overlap]:
    """Record a range load (see :mod:`.identity`; ``paths``: those the range was limited
    to; ``branch``: the head's branch; ``review_id``: the review the load continues).
    Best effort, as :func:`record_seen`: a short wait for the lock, logged on failure;
    only a ``review_id`` the record does not hold is an error.  Returns the earlier
    reviews a new review overlaps (:mod:`.continuity`)."""
    target = record if record is not None else default_record()
    try:
        source = identity.git_source(common_dir, repository_path, revision_range, staged, worktree)

        def work(conn: sqlite3.Connection) -> list[Overlap]:
            return identity.record_load(
                conn,
                session.path,
                source,
                base,
                head,
                session.digest,
                paths,
                branch=branch,
                review_id=review_id,
            )[2]

        wait = RECORD_SIDE_WRITE_SECONDS if review_id is None else None
        return target.write(work, wait=wait)
    except InvalidArgument:
        raise
    except Exception as exc:  # the load's answer must not depend on the record
        logger.warning(
            "The load of %s was not recorded in the review record: %s", session.path, exc
        )
        return []
