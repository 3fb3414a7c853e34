"""``since_review``: what changed in a range since its reviewed revision.

:func:`since_review` compares the range as loaded now (``base``, ``head``,
its loaded diff) with the reviewed revision (see
:func:`diffchunk.review.record.since.reviewed_revision`):

- its **history**: ``fast-forward`` when the reviewed head is the new head or
  one of its ancestors and the base did not move; ``base moved`` when the
  base moved forward too (its old commit is an ancestor of the new one: a
  merge of main into the branch, a range from a main that moved);
  ``rewritten`` otherwise (an amend, a rebase, a force-push that dropped or
  squashed commits, a base that moved backwards or sideways).  Decided by
  ``git merge-base --is-ancestor``.
- its **files**, by change id (:func:`diffchunk.review.record.since.compare`)
  between the reviewed revision's diff and the diff now.  The reviewed
  revision's diff is the range diff of its two commits, from the cache (it is
  content-addressed) or written again by git.

When the reviewed revision's commits are no longer in the repository (pruned
after a force-push), nothing is compared: the result says so
(``commits_gone``), and a since-review diff is refused
(:class:`~diffchunk.errors.ReviewedRevisionGone`); nothing is guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ReviewedRevisionGone
from ...git.cache import DiffCache
from ...git.history import is_ancestor, missing_commits
from ...git.repo import Repo
from ...git.revisions import Mode, ResolvedRange, empty_tree
from ...limits import SHORT_ID
from ..ranges.load import write_range
from ..record import changes
from ..record.changes import RecordedDiff
from ..record.model import Revision
from ..record.since import (
    HISTORY_BASE_MOVED,
    HISTORY_FAST_FORWARD,
    HISTORY_REWRITTEN,
    SinceReview,
    compare,
    gone_note,
)
from ..sessions.store import SessionStore


@dataclass(frozen=True, slots=True)
class Compared:
    """A :class:`SinceReview` and the reviewed revision's loaded diff (None when its
    commits are gone)."""

    since: SinceReview
    old: RecordedDiff | None


def history(repo: Repo, old: Revision, base: str | None, head: str) -> str:
    """``fast-forward``, ``base moved`` or ``rewritten`` (see the module doc)."""
    if old.head is None or not (old.head == head or is_ancestor(repo, old.head, head)):
        return HISTORY_REWRITTEN
    if old.base == base:
        return HISTORY_FAST_FORWARD
    if old.base is None or (base is not None and is_ancestor(repo, old.base, base)):
        return HISTORY_BASE_MOVED  # from the empty tree (a root) to a commit: forward too
    return HISTORY_REWRITTEN


def range_of(repo: Repo, base: str | None, head: str) -> ResolvedRange:
    """The commit range ``base..head`` (``base`` None: from the empty tree)."""
    label = f"{(base or 'root')[:SHORT_ID]}..{head[:SHORT_ID]}"
    return ResolvedRange(label, Mode.COMMITS, base, head, base or empty_tree(repo))


def revision_diff(
    repo: Repo, revision: Revision, cache: DiffCache, store: SessionStore | None
) -> RecordedDiff:
    """The loaded diff of a revision's range (its commits must be in the repository)."""
    assert revision.head is not None
    diff = write_range(repo, range_of(repo, revision.base, revision.head), cache, None, store=store)
    return changes.loaded(diff.diff_path, store)


def since_review(
    repo: Repo,
    review_id: int,
    reviewed: Revision,
    base: str | None,
    head: str,
    now: RecordedDiff,
    cache: DiffCache,
    store: SessionStore | None,
) -> Compared:
    """Compare the range at ``(base, head)``, loaded as ``now``, with ``reviewed``."""
    wanted = [c for c in (reviewed.base, reviewed.head) if c is not None]
    if reviewed.head is None or missing_commits(repo, wanted):
        since = SinceReview(review_id, reviewed, HISTORY_REWRITTEN, None, commits_gone=True)
        return Compared(since, None)
    old = revision_diff(repo, reviewed, cache, store)
    since = SinceReview(review_id, reviewed, history(repo, reviewed, base, head), compare(old, now))
    return Compared(since, old)


def refuse_gone(since: SinceReview, shown_range: str) -> ReviewedRevisionGone:
    """The error of a since-review load whose reviewed revision's commits are gone."""
    return ReviewedRevisionGone(
        f"{gone_note(since.revision)} The reviewed revision of {shown_range} was loaded at "
        f"{since.revision.loaded_at}.",
        suggestion=f"Review the whole range instead (load_git_diff with since_review=false, or "
        f"`diffchunk review {shown_range}`): files whose change is the one reviewed keep "
        "their reviewed mark there.",
    )
