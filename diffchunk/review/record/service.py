"""The record's tools as plain functions: the MCP server and the CLI call these.

Every tool takes the diff file's absolute path, as the diff tools do: the diff
is loaded (or found loaded, with its options) through the session store, its
review and revision are found in the record (:mod:`.identity`), and the work
is one write transaction of the record (:mod:`.store`).  Failures raise
:class:`~diffchunk.errors.DiffchunkError` subclasses; a record that cannot be
used raises :class:`~diffchunk.errors.RecordUnavailable`.

What the diff tools write on the side (seen marks, a range's load) is in
:mod:`.side_writes`.
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
from typing import TYPE_CHECKING

from ...errors import FileNotInDiff, InvalidArgument
from ...files.answer_size import json_size
from ...limits import RECORD_RESPONSE_CHARS, STATUS_CHANGED_LISTED
from ..paging import check_page, fill_page
from . import changes, coverage, since
from .changes import PartRef, RecordedDiff
from .context import Context, in_review
from .findings import author_of, findings_summary
from .results import ChunkStatus, MarkResult, ReviewStatus, SinceStatus
from .store import RecordStore

if TYPE_CHECKING:
    from ..sessions.store import SessionStore

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------
# mark_reviewed
# --------------------------------------------------------------------------


def _shares(
    loaded: RecordedDiff, chunk_number: int | None, file_pattern: str | None
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
            cli_suggestion="Pass a glob such as '*.py' or 'src/**', or a path as `diffchunk "
            "review` or `diffchunk status` lists it.",
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
        author = author_of(ctx)
        if reviewed:
            coverage.add_marks(
                conn, ctx.review.id, ctx.revision.id, loaded, shares, "reviewed", author
            )
        else:
            coverage.remove_reviewed(conn, ctx.review.id, ctx.revision.id, loaded, shares, author)
        marks = coverage.review_marks(conn, ctx.review)
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
# review_status
# --------------------------------------------------------------------------


def review_status(
    absolute_file_path: str,
    offset: int = 0,
    limit: int | None = None,
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
    max_chars: int | None = RECORD_RESPONSE_CHARS,
) -> ReviewStatus:
    """The review's coverage of the loaded diff: totals, each chunk's status (paged like
    list_chunks), findings by status and severity, and the next chunk to review."""
    loaded = changes.loaded(absolute_file_path, store)
    total = loaded.total_chunks
    check_page(offset, limit, total, "chunks")
    end = total if limit is None else min(total, offset + limit)

    def work(conn: sqlite3.Connection, ctx: Context) -> ReviewStatus:
        marks = coverage.review_marks(conn, ctx.review)
        states = [(c, coverage.file_state(marks, c)) for c in loaded.files()]
        against, labels = _since_status(conn, ctx, states)

        def sized(i: int) -> tuple[ChunkStatus, int]:
            status = coverage.chunk_status(marks, loaded, i + 1)
            if against is not None:
                status = dataclasses.replace(
                    status, file_states=tuple((p, labels[p]) for p in status.files)
                )
            return status, json_size(status.to_dict())

        page, stop = fill_page(sized, offset, end, max_chars, shorten=_shortened_status)
        changed = tuple(c.path for c, s in states if s == "changed")
        elsewhere = []
        for c, s in states:
            found = coverage.reviewed_elsewhere(marks, c) if s == "reviewed" else None
            if found is not None:
                elsewhere.append((c.path, found[0], found[1]))
        return ReviewStatus(
            review=ctx.review,
            revision=ctx.revision,
            totals=coverage.totals(states),
            chunks=tuple(page),
            total_chunks=total,
            findings=findings_summary(conn, ctx.review.id),
            next_chunk=coverage.next_chunk(marks, loaded),
            next_offset=stop if stop < total else None,
            changed_files=changed[:STATUS_CHANGED_LISTED],
            since_review=against,
            reviewers=coverage.by_reviewer(conn, ctx.review.id, loaded),
            reviewed_elsewhere=tuple(elsewhere),
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
    it was compared with none), and each file's state as said per file (``since.label``:
    ``changed since review``, ``new since review``, or its coverage state)."""
    kept = since.stored(conn, ctx.review.id, ctx.revision.id)
    if kept is None:
        return None, {c.path: s for c, s in states}
    found = since.since_states(conn, ctx.revision.id)
    labelled = {c.path: since.label(s, found.get(c.path)) for c, s in states}
    return (
        SinceStatus(
            revision=kept.revision,
            history=kept.history,
            changed=tuple(p for p, s in labelled.items() if s == since.LABELS["changed"]),
            new=tuple(p for p, s in labelled.items() if s == since.LABELS["new"]),
            listed=STATUS_CHANGED_LISTED,
            files=kept.file_counts(),
        ),
        labelled,
    )
