"""The record's tools as plain functions: the MCP server and the CLI call these.

Every tool takes the diff file's absolute path, as the diff tools do: the diff
is loaded (or found loaded, with its options) through the session store, its
review and revision are found in the record (:mod:`.identity`), and the work
is one write transaction of the record (:mod:`.store`).  Failures raise
:class:`~diffchunk.errors.DiffchunkError` subclasses; a record that cannot be
used raises :class:`~diffchunk.errors.RecordUnavailable`.

``record_seen`` is what ``get_chunk``/``get_file_diff`` call: best effort,
logged on failure, never failing the diff tool.
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from ...errors import FileNotInDiff, InvalidArgument
from ...limits import RECORD_RESPONSE_CHARS as RESPONSE_CHARS
from ...limits import RECORD_SIDE_WRITE_SECONDS
from ...limits import SEEN_MEMORY_ENTRIES as _SEEN_KEPT
from ...limits import STATUS_CHANGED_LISTED as CHANGED_LISTED
from ..listing import json_size
from ..paging import check_page, fill_page
from . import changes, coverage, identity, since
from .changes import LoadedDiff, PartRef
from .context import Context, in_review
from .findings import findings_summary
from .model import ChunkStatus, MarkResult, ReviewStatus, SinceStatus
from .store import RecordStore, default_record

if TYPE_CHECKING:
    from ..sessions import Session, SessionStore

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------
# mark_reviewed
# --------------------------------------------------------------------------


def _shares(
    loaded: LoadedDiff, chunk_number: int | None, file_pattern: str | None
) -> list[PartRef]:
    if chunk_number is not None:
        return loaded.chunk_parts(chunk_number)
    assert file_pattern is not None
    paths = loaded.matching(file_pattern)
    if not paths:
        raise FileNotInDiff(
            f"No file of the diff matches {file_pattern!r}.",
            suggestion="Pass a glob such as '*.py' or 'src/**', or a path as list_chunks or "
            "review_status lists it.",
        )
    return [PartRef(path, None) for path in paths]


def mark_reviewed(
    absolute_file_path: str,
    chunk_number: int | None = None,
    file_pattern: str | None = None,
    reviewed: bool = True,
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
) -> MarkResult:
    """Mark the files of a chunk, or the files matching a glob, as reviewed (or take the
    mark back with ``reviewed=False``).  Idempotent."""
    if (chunk_number is None) == (file_pattern is None):
        given = "both" if chunk_number is not None else "neither"
        raise InvalidArgument(
            f"Pass exactly one of chunk_number and file_pattern (got {given}).",
            suggestion="chunk_number=N marks the files of chunk N; file_pattern='src/**' (or an "
            "exact path) marks the files it matches.",
        )
    if not isinstance(reviewed, bool):
        raise InvalidArgument(f"reviewed must be true or false, got {reviewed!r}.")
    loaded = changes.loaded(absolute_file_path, store)
    shares = _shares(loaded, chunk_number, file_pattern)

    def work(conn: sqlite3.Connection, ctx: Context) -> MarkResult:
        if reviewed:
            coverage.add_marks(conn, ctx.review.id, ctx.revision.id, loaded, shares, "reviewed")
        else:
            coverage.remove_reviewed(conn, ctx.review.id, ctx.revision.id, loaded, shares)
        marks = coverage.load_marks(conn, [ctx.review.id])
        states = [(c, coverage.file_state(marks, c)) for c in loaded.files()]
        partly = tuple(
            dict.fromkeys(
                s.path
                for s in shares
                if s.key is not None
                and reviewed
                and not coverage.is_reviewed(marks, loaded.file(s.path))
            )
        )
        return MarkResult(
            marked=tuple(dict.fromkeys(s.path for s in shares)),
            reviewed=reviewed,
            totals=coverage.totals(states),
            next_chunk=coverage.next_chunk(marks, loaded),
            partly=partly,
        )

    return in_review(absolute_file_path, work, record=record, loaded=loaded)


# --------------------------------------------------------------------------
# seen (called by get_chunk / get_file_diff)
# --------------------------------------------------------------------------

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
    target = record if record is not None else default_record()
    try:
        loaded = changes.of_session(session)
        if chunk_number is not None:
            shares = loaded.chunk_parts(chunk_number)
        elif file_path is not None:
            shares = [PartRef(file_path, None)]
        else:
            return
        key = (target.path, loaded.path, loaded.sha256, tuple(shares))
        with _seen_lock:
            if key in _seen_done:
                _seen_done.move_to_end(key)
                return

        def work(conn: sqlite3.Connection) -> None:
            review, revision = identity.resolve(conn, loaded.path, loaded.sha256)
            coverage.add_marks(conn, review.id, revision.id, loaded, shares, "seen")

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
        from ..loading import session as loaded_session

        session = loaded_session(absolute_file_path, store=store)
    except Exception as exc:  # as record_seen: never fails the command
        logger.warning("Not recorded as seen in the review record: %s", exc)
        return
    record_seen(session, chunk_number=chunk_number, file_path=file_path)


# --------------------------------------------------------------------------
# review_status
# --------------------------------------------------------------------------


def review_status(
    absolute_file_path: str,
    offset: int = 0,
    limit: int | None = None,
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
    max_chars: int | None = RESPONSE_CHARS,
) -> ReviewStatus:
    """The review's coverage of the loaded diff: totals, each chunk's status (paged like
    list_chunks), findings by status and severity, and the next chunk to review."""
    loaded = changes.loaded(absolute_file_path, store)
    total = loaded.total_chunks
    check_page(offset, limit, total, "chunks")
    end = total if limit is None else min(total, offset + limit)

    def work(conn: sqlite3.Connection, ctx: Context) -> ReviewStatus:
        marks = coverage.load_marks(conn, [ctx.review.id])
        states = [(c, coverage.file_state(marks, c)) for c in loaded.files()]
        against = _since_status(conn, ctx, states)
        labels = {c.path: since.label(s, against[1].get(c.path)) for c, s in states}

        def sized(i: int) -> tuple[ChunkStatus, int]:
            status = coverage.chunk_status(marks, loaded, i + 1)
            if against[0] is not None:
                status = dataclasses.replace(
                    status, file_states=tuple((p, labels[p]) for p in status.files)
                )
            return status, json_size(status.to_dict())

        page, stop = fill_page(sized, offset, end, max_chars, shorten=_shortened_status)
        changed = tuple(c.path for c, s in states if s == "changed")
        return ReviewStatus(
            review=ctx.review,
            revision=ctx.revision,
            totals=coverage.totals(states),
            chunks=tuple(page),
            total_chunks=total,
            findings=findings_summary(conn, ctx.review.id),
            next_chunk=coverage.next_chunk(marks, loaded),
            next_offset=stop if stop < total else None,
            changed_files=changed[:CHANGED_LISTED],
            since_review=against[0],
        )

    return in_review(absolute_file_path, work, record=record, loaded=loaded, writes=False)


def _shortened_status(status: ChunkStatus, size: int, room: int) -> tuple[ChunkStatus, int]:
    """A chunk's status whose file list alone exceeds a response (thousands of files with
    long names), with as many files as fit and their count (as list_chunks does)."""
    files = status.files
    keep, shortened = len(files), status
    while keep > 1 and size > room:
        keep = max(1, min(keep - 1, keep * room // size))
        kept = set(files[:keep])
        shortened = dataclasses.replace(
            status,
            files=files[:keep],
            file_states=tuple((p, s) for p, s in status.file_states if p in kept),
            files_total=len(files),
        )
        size = json_size(shortened.to_dict())
    return shortened, size


def _since_status(
    conn: sqlite3.Connection, ctx: Context, states: list[tuple[changes.FileChange, str]]
) -> tuple[SinceStatus | None, dict[str, str]]:
    """The review's standing against the revision its load was compared with (None when
    it was compared with none), and the kept ``path -> changed | new | gone``."""
    kept = since.stored(conn, ctx.review.id, ctx.revision.id)
    if kept is None:
        return None, {}
    found = since.since_states(conn, ctx.revision.id)
    labelled = [(c.path, since.label(s, found.get(c.path))) for c, s in states]
    return (
        SinceStatus(
            revision=kept.revision,
            history=kept.history,
            changed=tuple(p for p, s in labelled if s == since.LABELS["changed"]),
            new=tuple(p for p, s in labelled if s == since.LABELS["new"]),
            listed=CHANGED_LISTED,
        ),
        found,
    )


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
) -> None:
    """Record a range load (see :mod:`.identity`).  Best effort, as :func:`record_seen`:
    a short wait for the lock, logged on failure."""
    target = record if record is not None else default_record()
    try:
        source = identity.git_source(common_dir, repository_path, revision_range, staged, worktree)

        def work(conn: sqlite3.Connection) -> None:
            identity.record_load(conn, session.path, source, base, head, session.digest)

        target.write(work, wait=RECORD_SIDE_WRITE_SECONDS)
    except Exception as exc:  # the load's answer must not depend on the record
        logger.warning(
            "The load of %s was not recorded in the review record: %s", session.path, exc
        )
