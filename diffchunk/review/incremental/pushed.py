"""The reviews of a pushed branch that were last loaded at another commit.

When ``feature`` is pushed after an amend or a rebase, the review of
``main..feature`` was last loaded at the old head: its latest revision does
not have the pushed commit as its head.  :func:`moved_reviews` finds such
reviews by resolving their ranges as given (``main..feature``) now: a range
whose head is the pushed commit is a review of this push.  For each, the
range's diff now (from the cache, or written by git) and what changed since
its reviewed revision (:mod:`.summary`) go to the hook's record report
(:class:`~diffchunk.review.record.pushed.MovedReview`), which judges the pushed
files by their change now: a file changed since its review is not reviewed.

Nothing is recorded: the review gets its new revision when it is next loaded.
At most :data:`LOOKED_AT` reviews (the most recently loaded) are resolved.
"""

from __future__ import annotations

import logging
import sqlite3

from ...errors import DiffchunkError
from ...git.cache import DiffCache
from ...git.repo import Repo
from ...git.revisions import Mode, parse_range, resolve_range
from ..ranges.load import write_range
from ..record import changes, identity
from ..record.model import COMMITS_PREFIX, RecordedReview, Revision
from ..record.pushed import MovedReview
from ..record.since import reviewed_revision
from ..record.store import RecordStore, default_record
from ..sessions.store import SessionStore
from .summary import since_review

LOOKED_AT = 20
"""Reviews of one repository (most recently loaded first) whose ranges the hook
resolves on a push: each costs a git run or two, and a repository rarely has
more live reviews."""


logger = logging.getLogger(__name__)


def _candidates(
    conn: sqlite3.Connection, common_dir: str, head: str
) -> list[tuple[RecordedReview, Revision]]:
    """The repository's reviews of commit ranges whose latest revision is at another
    head, the most recently loaded first."""
    rows = conn.execute(
        "SELECT r.id, max(v.load_seq) AS seq FROM reviews r JOIN revisions v "
        "ON v.review_id = r.id WHERE r.kind = 'git' AND r.repository = ? AND r.range LIKE ? "
        "GROUP BY r.id ORDER BY seq DESC LIMIT ?",
        (identity.db_text(common_dir), COMMITS_PREFIX + "%", LOOKED_AT),
    ).fetchall()
    found = []
    for row in rows:
        review = identity.review_by_id(conn, int(row["id"]))
        latest = identity.latest_revision(conn, int(row["id"]))
        if review is not None and latest is not None and latest.head != head:
            found.append((review, latest))
    return found


def moved_reviews(
    repo: Repo,
    head: str,
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
    cache: DiffCache | None = None,
) -> tuple[MovedReview, ...]:
    """The reviews whose range names ``head`` now but were last loaded at another commit
    (see the module doc).  Best effort: a review that cannot be resolved or compared
    is left out (and logged)."""
    target = record if record is not None else default_record()
    cache = cache if cache is not None else DiffCache()
    try:
        candidates = target.read(lambda conn: _candidates(conn, repo.common_dir, head))
    except DiffchunkError as exc:
        logger.warning("The review record could not be read for the push: %s", exc)
        return ()
    found = []
    for review, latest in candidates:
        try:
            moved = _moved(repo, head, review, latest, target, cache, store)
        except DiffchunkError as exc:
            logger.info("Review #%d left out of the push report: %s", review.id, exc)
            continue
        if moved is not None:
            found.append(moved)
    return tuple(found)


def _moved(
    repo: Repo,
    head: str,
    review: RecordedReview,
    latest: Revision,
    target: RecordStore,
    cache: DiffCache,
    store: SessionStore | None,
) -> MovedReview | None:
    request = parse_range(review.source.shown_range)
    if request.mode is not Mode.COMMITS:
        return None
    resolved = resolve_range(repo, request)
    if resolved.head != head:
        return None
    diff = write_range(repo, resolved, cache, None, store=store)
    now = changes.loaded(diff.diff_path, store)
    reviewed = target.read(
        lambda conn: reviewed_revision(conn, review.id, resolved.base, resolved.head)
    )
    since = None
    if reviewed is not None:
        since = since_review(
            repo, review.id, reviewed, resolved.base, head, now, cache, store
        ).since
    return MovedReview(review, latest, now, since)
