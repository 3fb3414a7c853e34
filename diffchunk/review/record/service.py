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
from collections.abc import Iterator, Sequence
from itertools import islice
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

MARKED_LISTED = 100
"""Files a mark_reviewed answer names (``marked``); a glob marking more has them
counted (``marked_total``): the answer of '**' over a million files stays small."""


# --------------------------------------------------------------------------
# mark_reviewed
# --------------------------------------------------------------------------


def _matching(loaded: RecordedDiff, file_pattern: str) -> Sequence[int]:
    ordinals = loaded.matching_ordinals(file_pattern)
    if not ordinals:
        raise FileNotInDiff(
            f"No file of the diff matches {file_pattern!r}.",
            suggestion="Pass a glob such as '*.py' or 'src/**', or a path as list_chunks or "
            "review_status lists it.",
            cli_suggestion="Pass a glob such as '*.py' or 'src/**', or a path as `diffchunk "
            "review` or `diffchunk status` lists it.",
        )
    return ordinals


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
    mark back with ``reviewed=False``).  Idempotent.  A glob's marks are written by one
    statement over all its files, in the one transaction; the answer names the first
    :data:`MARKED_LISTED` files marked and counts them all."""
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
    shares: list[PartRef] = []
    ordinals: Sequence[int] = ()
    if chunk_number is not None:
        shares = loaded.chunk_parts(chunk_number)
    else:
        assert file_pattern is not None
        ordinals = _matching(loaded, file_pattern)
        if len(ordinals) > 1:
            loaded.all_digests()  # one pass over the diff rather than a read per file

    def work(conn: sqlite3.Connection, ctx: Context) -> MarkResult:
        review_id, revision_id = ctx.review.id, ctx.revision.id
        author = author_of(ctx)
        # The marks as they are, then what this write makes of them (one read).
        marks = coverage.review_marks(conn, ctx.review, loaded)
        if shares and reviewed:
            coverage.add_marks(conn, review_id, revision_id, loaded, shares, "reviewed", author)
        elif shares:
            coverage.remove_reviewed(conn, review_id, revision_id, loaded, shares, author)
        elif reviewed:
            coverage.add_file_marks(
                conn, review_id, revision_id, loaded, ordinals, "reviewed", author
            )
        else:
            coverage.remove_file_marks(conn, review_id, loaded, ordinals)
        if shares:
            marks.marked_shares(shares, reviewed)
        else:
            marks.marked_files(ordinals, reviewed)
        partly = tuple(
            dict.fromkeys(
                s.path
                for s in shares
                if s.key is not None
                and reviewed
                and not marks.is_reviewed(loaded.ordinal_of_path(s.path))
            )
        )
        if shares:
            marked = tuple(dict.fromkeys(s.path for s in shares))
            total = len(marked)
        else:
            marked = tuple(loaded.path_of(o) for o in ordinals[:MARKED_LISTED])
            total = len(ordinals)
        return MarkResult(
            marked=marked[:MARKED_LISTED],
            reviewed=reviewed,
            totals=marks.totals(),
            next_chunk=marks.next_chunk(),
            partly=partly,
            marked_total=total if total > MARKED_LISTED else None,
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
        marks = coverage.review_marks(conn, ctx.review, loaded)
        against, found = _since_status(conn, ctx, marks)

        def sized(i: int) -> tuple[ChunkStatus, int]:
            status = marks.chunk_status(i + 1)
            if against is not None:
                states = tuple(
                    (p, since.label(marks.state(loaded.ordinal_of_path(p)), found.get(p)))
                    for p in status.files
                )
                status = dataclasses.replace(status, file_states=states)
            return status, json_size(status.to_dict())

        page, stop = fill_page(sized, offset, end, max_chars, shorten=_shortened_status)
        elsewhere = tuple(
            (loaded.path_of(o), *where)
            for o in sorted(marks.elsewhere)
            for where in (marks.reviewed_elsewhere(o),)
            if where is not None
        )
        return ReviewStatus(
            review=ctx.review,
            revision=ctx.revision,
            totals=marks.totals(),
            chunks=tuple(page),
            total_chunks=total,
            findings=findings_summary(conn, ctx.review.id),
            next_chunk=marks.next_chunk(),
            next_offset=stop if stop < total else None,
            changed_files=tuple(islice(_changed(marks), STATUS_CHANGED_LISTED)),
            since_review=against,
            reviewers=coverage.by_reviewer(conn, ctx.review.id, loaded),
            reviewed_elsewhere=elsewhere,
        )

    return in_review(absolute_file_path, work, record=record, loaded=loaded, writes=False)


def _changed(marks: coverage.Coverage) -> Iterator[str]:
    """The paths reviewed, then changed, in diff order."""
    loaded = marks.loaded
    for ordinal, state in marks.states():
        if state == "changed":
            yield loaded.path_of(ordinal)


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
    conn: sqlite3.Connection, ctx: Context, marks: coverage.Coverage
) -> tuple[SinceStatus | None, dict[str, str]]:
    """The review's standing against the revision its load was compared with (None when
    it was compared with none), and what that comparison found per path (``changed``,
    ``new``, ``gone``: ``since.label`` says each file's state with it)."""
    kept = since.stored(conn, ctx.review.id, ctx.revision.id)
    if kept is None:
        return None, {}
    found = since.since_states(conn, ctx.revision.id)
    loaded = marks.loaded
    changed, new = [], []
    for ordinal, state in marks.states():
        path = loaded.path_of(ordinal)
        labelled = since.label(state, found.get(path))
        if labelled == since.LABELS["changed"]:
            changed.append(path)
        elif labelled == since.LABELS["new"]:
            new.append(path)
    return (
        SinceStatus(
            revision=kept.revision,
            history=kept.history,
            changed=tuple(changed),
            new=tuple(new),
            listed=STATUS_CHANGED_LISTED,
            files=kept.file_counts(),
        ),
        found,
    )
