"""``load_git_diff`` with the review's history: what the MCP tool and ``diffchunk review
RANGE`` call.

A load of a range (:func:`diffchunk.review.ranges.load.load_git_diff`: write
or reuse its diff, load it, record the review's revision) is followed by what
the review record knows of the range's earlier revisions:

1. the open findings anchored in another revision are re-anchored in this one
   (:mod:`.anchors`): found again at their lines, or ``outdated``; the answer
   says how many of each, and which became outdated (``findings_followed``);
2. when the review has a reviewed revision other than this one
   (:func:`~diffchunk.review.record.since.reviewed_revision`), the answer
   carries ``since_review`` (:mod:`.summary`); the comparison is kept with the
   revision, so a load of the same revision reuses it;
3. with ``since_review=True``, the answer is the since-review diff's
   (:mod:`.since_diff`): its ``file_path`` is that diff, loaded with the same
   options and recorded as a handle of the review at this revision, and
   ``since_review.full_file_path`` names the full diff.  A review without an
   earlier revision gets its full diff, and ``since_review`` says why; a
   reviewed revision whose commits are gone is refused
   (:class:`~diffchunk.errors.ReviewedRevisionGone`); a range of the working
   tree or the index has no commits to compare and is refused.

A first review (no finding to re-anchor, no earlier revision) stops after the
load: the modules of steps 1 to 3 are imported when a load needs them, and the
repository is probed only then (a warm ``diffchunk review RANGE`` pays neither).

Steps 1 and 2 are best effort, as the recording of the load itself: they wait
for the record's lock at most ``RECORD_SIDE_WRITE_SECONDS``; when the record
cannot be used the diff tools still work, and a failure is logged.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ...diff.options import LoadOptions, Progress
from ...errors import DiffchunkError, InvalidArgument, RecordUnavailable
from ...git.cache import DiffCache
from ...git.repo import Repo, discover
from ...limits import RECORD_SIDE_WRITE_SECONDS, STATUS_CHANGED_LISTED
from ..ranges import load
from ..record import identity
from ..record import since as kept
from ..record.model import RecordedReview, Revision
from ..record.since import SinceReview
from ..record.store import RecordStore, default_record
from ..results import RangeSummary
from ..sessions.loading import load_diff
from ..sessions.since_sidecar import SinceRecord
from ..sessions.store import SessionStore
from ..sessions.views import is_view_path, read_view

if TYPE_CHECKING:
    from ..record.changes import RecordedDiff

logger = logging.getLogger(__name__)

NO_EARLIER = (
    "This review has no earlier revision: there is nothing to compare with, so this is "
    "the full review."
)


@dataclass(frozen=True, slots=True)
class _Recorded:
    review: RecordedReview
    revision: Revision
    reviewed: Revision | None
    stale: bool  # open findings anchored in another revision
    since: SinceReview | None  # kept with the revision, compared with ``reviewed``


def _diff_of(file_path: str) -> str:
    """The real path of the diff a load's ``file_path`` shows (a view handle's diff)."""
    return read_view(file_path).diff if is_view_path(file_path) else os.path.realpath(file_path)


def _read(conn: sqlite3.Connection, diff_path: str) -> _Recorded | None:
    handle = identity.handle_of(conn, diff_path)
    if handle is None:
        return None
    review = identity.review_by_id(conn, int(handle["review_id"]))
    row = conn.execute("SELECT * FROM revisions WHERE id = ?", (handle["revision_id"],)).fetchone()
    if review is None or row is None:
        return None
    revision = identity.revision_of_row(row)
    reviewed = kept.reviewed_revision(conn, review.id, revision.base, revision.head)
    stale = conn.execute(
        "SELECT 1 FROM findings WHERE review_id = ? AND status = 'open' "
        "AND (revision_id IS NULL OR revision_id != ?) LIMIT 1",
        (review.id, revision.id),
    ).fetchone()
    since = kept.stored(conn, review.id, revision.id)
    if since is not None and (reviewed is None or since.revision.id != reviewed.id):
        since = None
    return _Recorded(review, revision, reviewed, stale is not None, since)


def load_git_diff(
    absolute_repo_path: str,
    revision_range: str | None = "HEAD",
    staged: bool = False,
    options: LoadOptions | None = None,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    store: SessionStore | None = None,
    progress: Progress | None = None,
    since_review: bool = False,
    record: RecordStore | None = None,
    paths: Sequence[str] | None = None,
    review_id: int | None = None,
) -> RangeSummary:
    """Load a range (see :func:`diffchunk.review.ranges.load.load_git_diff`; ``paths``
    limit it; ``review_id`` names the review it continues) and what the record knows of
    its earlier revisions (see the module doc)."""
    options = options if options is not None else LoadOptions()
    if since_review and paths:
        raise InvalidArgument(
            "since_review compares whole revisions of the range; it cannot be limited to paths.",
            suggestion="Leave paths out (the since-review diff is small), or narrow the result "
            "with include_patterns.",
        )
    full = load.load_git_diff(
        absolute_repo_path,
        revision_range,
        staged,
        options,
        cache_dir=cache_dir,
        store=store,
        progress=progress,
        paths=paths,
        review_id=review_id,
    )
    if since_review and full.head is None:
        raise InvalidArgument(
            f"since_review compares commits; {full.range} is not a range of commits.",
            suggestion="Review a range such as main..feature, or leave since_review out.",
        )
    if paths:
        # Part of the branch: nothing is compared or re-anchored against it (a file
        # outside the paths is not gone from the branch); see revisions.paths.
        return full
    target = record if record is not None else default_record()
    recorded = _recorded(target, full, since_review)
    if recorded is None:
        return full
    if not recorded.stale and (recorded.reviewed is None or full.head is None):
        # Nothing to re-anchor or compare (a first review): no git probe, and the
        # comparison's modules are not loaded.
        return replace(full, since_note=NO_EARLIER) if since_review else full
    from ..record import changes
    from . import since_diff
    from .summary import refuse_gone

    now = changes.loaded(full.file_path, store)
    repo = discover(absolute_repo_path) if full.head is not None else None
    followed = _reanchor(target, recorded, now, repo, full)
    if followed is not None:
        full = replace(full, findings_followed=followed)
    if recorded.reviewed is None or repo is None or full.head is None:
        if since_review:
            return replace(full, since_note=NO_EARLIER)
        return full
    cache = DiffCache(cache_dir)
    since = recorded.since
    reuse = None
    if since_review and since is not None and since.comparison is not None:
        reuse = since_diff.cached(
            cache, since_diff.entry_name(repo, since.revision, full.base, full.head)
        )
    old: RecordedDiff | None = None
    if since is None or (since_review and reuse is None and since.comparison is not None):
        since, old = since_review_of(repo, recorded, full, now, cache, store)
        _keep(target, recorded.revision.id, since)
    if not since_review:
        return replace(full, since_review=since)
    if since.comparison is None:
        raise refuse_gone(since, full.range)
    return _since_load(repo, recorded, full, now, old, since, cache, options, store, target)


def _recorded(target: RecordStore, full: RangeSummary, since_review: bool) -> _Recorded | None:
    """What the record knows of the load ``full`` (None: nothing, or the record cannot
    be read, which only ``since_review`` makes an error)."""
    try:
        recorded = target.read(lambda conn: _read(conn, _diff_of(full.file_path)))
    except RecordUnavailable:
        if since_review:
            raise
        logger.warning("The review record could not be read after the load of %s.", full.range)
        return None
    if recorded is None and since_review:
        raise RecordUnavailable(
            f"The load of {full.range} was not recorded, so the review it belongs to is not known.",
            suggestion=f"See the server's log for why; the full diff is at {full.file_path}.",
        )
    return recorded


def since_review_of(
    repo: Repo,
    recorded: _Recorded,
    full: RangeSummary,
    now: RecordedDiff,
    cache: DiffCache,
    store: SessionStore | None,
) -> tuple[SinceReview, RecordedDiff | None]:
    from .summary import since_review

    assert recorded.reviewed is not None and full.head is not None
    compared = since_review(
        repo, recorded.review.id, recorded.reviewed, full.base, full.head, now, cache, store
    )
    return compared.since, compared.old


def _reanchor(
    target: RecordStore,
    recorded: _Recorded,
    now: RecordedDiff,
    repo: Repo | None,
    full: RangeSummary,
) -> dict[str, Any] | None:
    """Re-anchor the review's open findings of other revisions in this one; what became
    of them (``followed``: found again, maybe on other lines; ``outdated``: their
    lines changed or went, listed by id and file), or None when there were none."""
    if not recorded.stale:
        return None
    from .anchors import reanchor

    try:
        outcome = reanchor(
            target,
            recorded.review.id,
            recorded.revision.id,
            now,
            repo,
            full.base,
            full.head,
            wait=RECORD_SIDE_WRITE_SECONDS,
        )
    except DiffchunkError as exc:
        logger.warning("The findings of %s were not re-anchored: %s", full.range, exc)
        return None
    if not outcome.moved and not outcome.outdated:
        return None
    outdated = _outdated(target, outcome.outdated)
    return {"followed": len(outcome.moved), "outdated": len(outcome.outdated), **outdated}


def _outdated(target: RecordStore, ids: tuple[int, ...]) -> dict[str, Any]:
    """The findings that just became outdated, by id and file (the first few)."""
    shown = ids[:STATUS_CHANGED_LISTED]
    if not shown:
        return {}
    holes = ",".join("?" * len(shown))
    rows = target.read(
        lambda conn: conn.execute(
            f"SELECT id, file_path FROM findings WHERE id IN ({holes}) ORDER BY id", shown
        ).fetchall()
    )
    listed = [{"id": int(r["id"]), "file_path": r["file_path"]} for r in rows]
    note = (
        "Their lines changed or went since they were written: list_findings(status="
        "'outdated') shows them; reopen one that still holds (update_finding(status='open'))."
    )
    return {"outdated_findings": listed, "outdated_note": note}


def _keep(target: RecordStore, revision_id: int, since: SinceReview) -> None:
    try:
        target.write(
            lambda conn: kept.store(conn, revision_id, since), wait=RECORD_SIDE_WRITE_SECONDS
        )
    except RecordUnavailable as exc:
        logger.warning("The comparison with the reviewed revision was not kept: %s", exc)


def _since_load(
    repo: Repo,
    recorded: _Recorded,
    full: RangeSummary,
    now: RecordedDiff,
    old: RecordedDiff | None,
    since: SinceReview,
    cache: DiffCache,
    options: LoadOptions,
    store: SessionStore | None,
    target: RecordStore,
) -> RangeSummary:
    """Write (or reuse) the since-review diff, load it, and record it as a handle."""
    from . import since_diff

    reviewed, revision = since.revision, recorded.revision
    assert full.head is not None and since.comparison is not None
    name = since_diff.entry_name(repo, reviewed, full.base, full.head)
    path = since_diff.cached(cache, name)
    reused = path is not None
    if path is None:
        if old is None:  # the comparison was kept, but not the diff: compare again
            since, old = since_review_of(repo, recorded, full, now, cache, store)
        comparison = since.comparison
        assert comparison is not None and old is not None
        text, files = since_diff.build(repo, reviewed, full.base, full.head, old, now, comparison)
        record = SinceRecord(
            review_id=recorded.review.id,
            from_revision=_revision_dict(reviewed),
            to_revision=_revision_dict(revision),
            files=files,
            no_longer_changed=comparison.gone,
        )
        path = since_diff.write(repo, cache, name, text, record, full.head)
    summary = load_diff(path, options, store=store)
    target.write(
        lambda conn: identity.record_since_handle(
            conn, os.path.realpath(path), recorded.review, revision, reviewed.id
        )
    )
    from ..record import changes

    loaded = changes.loaded(path, store)
    interdiff = tuple(p for p in loaded.paths() if loaded.since_section(p) == "interdiff")
    return RangeSummary(
        summary,
        full.repo,
        full.range,
        full.base,
        full.head,
        reused,
        since_review=since.with_since_diff(full.file_path, interdiff),
        findings_followed=full.findings_followed,
    )


def _revision_dict(revision: Revision) -> dict[str, object]:
    return {"revision_id": revision.id, "base": revision.base, "head": revision.head}
