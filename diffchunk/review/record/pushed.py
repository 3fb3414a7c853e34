"""What the review record says about a push (used by the pre-push hook).

For each pushed ref the hook asks :func:`push_report`: the reviews of the
pushed commit are the reviews, in that repository, whose current (latest)
revision has the pushed commit as its head — e.g. a review of ``main..feature``
when ``feature`` is pushed.  The report gives, for the files of the pushed
range (the hook's own diff of it), their state and the open findings of those
reviews by severity.

A review whose range names the pushed commit now but whose latest revision
was loaded at another commit (the branch moved since its last review: new
commits, an amend, a rebase) is one of the pushed commit's reviews too: the
hook hands it in (:class:`MovedReview`, from
:mod:`diffchunk.review.incremental.pushed`) with its range's diff as it is
now, so its files are judged by their change now (a file changed since its
review is ``changed``, not reviewed), and with what changed since its reviewed
revision (``since``).  For a review loaded at the pushed commit, ``since`` is
the comparison its load kept.

A pushed file's state comes from the review's own diff when the review's
cached diff file is still there (so a push of only the last commits is judged
by what was reviewed of the whole branch): its state in the first review
that has the path, the best one if several do.  A path that no review's diff
holds is judged by its change in the pushed range against the reviews' marks.
Files the pushed diff leaves out (generated, vendored, trivial) are counted as
excluded and never required.

Settings (git config): ``diffchunk.failOn <severity>`` stops the push while
findings of that severity or a more serious one are open (``blocker`` >
``major`` > ``minor`` > ``nit`` > ``question``); ``diffchunk.requireReviewed
true`` stops it while a file of the pushed range is not marked reviewed.  A
record that cannot be read stops the push only when a setting asks for it.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...errors import DiffchunkError, GitError
from ...limits import SHORT_ID
from . import changes, coverage, identity
from .changes import RecordedDiff
from .findings import finding_of
from .model import SEVERITIES, RecordedReview, Revision
from .results import Finding, Totals
from .since import SinceReview, stored
from .store import RecordStore, default_record

if TYPE_CHECKING:
    from ...git.repo import Repo
    from ..sessions.store import SessionStore

LISTED = 10
"""Paths of each kind the pre-push hook prints under a refused push: a terminal's
worth, with the rest counted; diffchunk status lists them all."""

HOOK_MESSAGE_CHARS = 100
"""Characters of a finding's first line the pre-push hook prints: one terminal
line per finding."""


logger = logging.getLogger(__name__)

_STATE_RANK = {"reviewed": 0, "changed": 1, "seen": 2, "unseen": 3}


@dataclass(frozen=True, slots=True)
class RecordSettings:
    fail_on: str | None = None
    require_reviewed: bool = False

    @property
    def any(self) -> bool:
        return self.fail_on is not None or self.require_reviewed


def read_settings(repo: Repo) -> RecordSettings:
    """``diffchunk.failOn`` and ``diffchunk.requireReviewed`` from git config."""
    found = repo.setting("diffchunk.failon")
    raw = (found.value or "").strip().lower() if found is not None else ""
    fail_on = None
    if raw:
        if raw not in SEVERITIES:
            raise GitError(
                f"git config diffchunk.failOn is {raw!r}, not a severity.",
                suggestion=f"Use one of {', '.join(SEVERITIES)} (`git config diffchunk.failOn "
                "major`), or remove it (`git config --unset diffchunk.failOn`).",
            )
        fail_on = raw
    try:
        required = repo.bool_setting("diffchunk.requirereviewed") is True
    except ValueError:
        raise GitError(
            "git config diffchunk.requireReviewed is not true or false.",
            suggestion="Fix it (`git config diffchunk.requireReviewed true`), or remove it "
            "(`git config --unset diffchunk.requireReviewed`).",
        ) from None
    return RecordSettings(fail_on, required)


@dataclass(frozen=True, slots=True)
class MovedReview:
    """A review of the pushed branch last loaded at another commit: its latest revision,
    its range's diff now, and what changed since its reviewed revision (None when it
    has no other revision to compare with)."""

    review: RecordedReview
    revision: Revision
    now: RecordedDiff
    since: SinceReview | None


@dataclass(frozen=True, slots=True)
class PushRecord:
    """The record's report on one pushed ref."""

    reviews: tuple[tuple[RecordedReview, Revision], ...] = ()
    since: tuple[tuple[RecordedReview, SinceReview], ...] = ()  # what changed since each review
    totals: Totals | None = None
    not_reviewed: tuple[tuple[str, str], ...] = ()  # (path, state) of required files
    open_findings: dict[str, int] = field(default_factory=dict)
    blocking: tuple[Finding, ...] = ()  # open findings at or above diffchunk.failOn
    problems: tuple[str, ...] = ()  # why the push is stopped (empty: it is not)
    error: str | None = None  # the record could not be read

    @property
    def stops(self) -> bool:
        return bool(self.problems)


def _review_states(
    conn: sqlite3.Connection,
    review: RecordedReview,
    paths: list[str],
    sha256: str,
    store: SessionStore | None,
) -> coverage.Coverage | None:
    """The review's marks on its own loaded diff (its first diff file still holding the
    revision; None when none does)."""
    for path in paths:
        try:
            loaded = changes.loaded(path, store)
        except DiffchunkError:
            continue
        if loaded.sha256 == sha256:
            return coverage.load(conn, [review.id], loaded)
    return None


def _pushed_states(
    conn: sqlite3.Connection,
    pushed: RecordedDiff,
    found: list[tuple[RecordedReview, Revision, list[str]]],
    store: SessionStore | None,
    moved: tuple[MovedReview, ...] = (),
) -> list[tuple[changes.FileChange, str]]:
    own = [_review_states(conn, r, paths, rev.sha256, store) for r, rev, paths in found]
    own += [coverage.load(conn, [m.review.id], m.now) for m in moved]
    ids = [r.id for r, _, _ in found] + [m.review.id for m in moved]
    union = coverage.load(conn, ids, pushed)
    states = []
    for change in pushed.files():
        if change.excluded_reason is not None:
            states.append((change, "excluded"))
            continue
        candidates = [
            marks.marked_state(ordinal)
            for marks in own
            if marks is not None
            for ordinal in (marks.loaded.ordinal(change.path),)
            if ordinal is not None
        ]
        if not candidates:
            candidates = [union.marked_state(change.order)]
        states.append((change, min(candidates, key=_STATE_RANK.__getitem__)))
    return states


def push_report(
    repo: Repo,
    diff_path: str,
    head: str,
    settings: RecordSettings,
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
    moved: tuple[MovedReview, ...] = (),
) -> PushRecord:
    """The record's report on the push of ``head`` whose range's diff is ``diff_path``
    (``moved``: the reviews of the pushed branch last loaded at another commit)."""
    target = record if record is not None else default_record()
    try:
        pushed = changes.loaded(diff_path, store)

        def work(conn: sqlite3.Connection) -> PushRecord:
            found = identity.reviews_with_head(conn, repo.common_dir, [head])
            return _report(conn, pushed, found, settings, store, moved)

        return target.read(work)
    except DiffchunkError as exc:
        logger.warning("The review record could not be read for the push: %s", exc)
        problems: tuple[str, ...] = ()
        if settings.any:
            problems = (f"the review record could not be read: {exc}",)
        return PushRecord(error=str(exc), problems=problems)


def _report(
    conn: sqlite3.Connection,
    pushed: RecordedDiff,
    found: list[tuple[RecordedReview, Revision, list[str]]],
    settings: RecordSettings,
    store: SessionStore | None,
    moved: tuple[MovedReview, ...] = (),
) -> PushRecord:
    moved = tuple(m for m in moved if all(m.review.id != r.id for r, _, _ in found))
    states = _pushed_states(conn, pushed, found, store, moved)
    not_reviewed = tuple((c.path, s) for c, s in states if s not in ("reviewed", "excluded"))
    ids = [r.id for r, _, _ in found] + [m.review.id for m in moved]
    rows = []
    if ids:
        holes = ",".join("?" * len(ids))
        rows = conn.execute(
            f"SELECT * FROM findings WHERE status = 'open' AND review_id IN ({holes}) ORDER BY id",
            ids,
        ).fetchall()
    open_findings = {s: 0 for s in SEVERITIES}
    for row in rows:
        open_findings[row["severity"]] += 1
    blocking: tuple[Finding, ...] = ()
    problems = []
    if settings.fail_on is not None:
        limit = SEVERITIES.index(settings.fail_on)
        blocking = tuple(
            finding_of(row) for row in rows if SEVERITIES.index(row["severity"]) <= limit
        )
        if blocking:
            problems.append(
                f"{len(blocking)} open finding(s) at or above {settings.fail_on} "
                f"(diffchunk.failOn={settings.fail_on})"
            )
    if settings.require_reviewed and not_reviewed:
        problems.append(
            f"{len(not_reviewed)} file(s) not marked reviewed (diffchunk.requireReviewed)"
        )
    since = [(r, stored(conn, r.id, rev.id)) for r, rev, _ in found]
    since += [(m.review, m.since) for m in moved]
    return PushRecord(
        reviews=tuple((r, rev) for r, rev, _ in found)
        + tuple((m.review, m.revision) for m in moved),
        since=tuple((r, s) for r, s in since if s is not None),
        totals=coverage.totals((c.excluded_reason, s) for c, s in states),
        not_reviewed=not_reviewed,
        open_findings=open_findings,
        blocking=blocking,
        problems=tuple(problems),
    )


def record_lines(report: PushRecord, pushed: str) -> list[str]:
    """What the hook prints about the record for one ref (indented by the caller;
    ``pushed``: the pushed range as the commands it suggests take it)."""
    if report.error is not None:
        return [f"review record: unavailable ({report.error})"]
    if not report.reviews:
        return [
            f"review record: no review of this commit yet (diffchunk review {pushed}, "
            f"then diffchunk mark {pushed} --chunk N)"
        ]
    lines = []
    for review, _ in report.reviews:
        lines.append(f"review #{review.id}: {review.source.shown_range}")
    for review, since in report.since:
        lines.extend(_since_lines(review, since))
    t = report.totals
    if t is not None:
        lines.append(
            f"files: {t.reviewed} reviewed, {t.changed} changed since reviewed, {t.seen} seen, "
            f"{t.unseen} unseen, {t.excluded} excluded (of {t.files})"
        )
    shown = ", ".join(f"{n} {s}" for s, n in report.open_findings.items() if n) or "none"
    lines.append(f"open findings: {shown}")
    return lines


def _since_lines(review: RecordedReview, since: SinceReview) -> list[str]:
    """What changed in review ``review``'s range since its reviewed revision."""
    rev = since.revision
    shown = f"{(rev.base or 'empty tree')[:SHORT_ID]}..{(rev.head or '')[:SHORT_ID]}"
    head = f"since review #{review.id}'s last review ({shown}, {rev.loaded_at}): "
    c = since.comparison
    if c is None:
        return [head + "its commits are gone (pruned); what changed cannot be told"]
    lines = [
        head + f"history {since.history}; {len(c.changed)} changed, {len(c.new)} new, "
        f"{c.unchanged} unchanged, {len(c.gone)} no longer changed"
    ]
    for what, paths in (("changed", c.changed), ("new", c.new), ("no longer changed", c.gone)):
        lines.extend(f"  {what}: {path}" for path in paths[:LISTED])
        if len(paths) > LISTED:
            lines.append(f"  ... and {len(paths) - LISTED} more {what}")
    return lines


def record_advice(report: PushRecord, local_ref: str, pushed: str) -> str:
    """Why the push of ``local_ref`` was stopped, what is open, and how to proceed
    (``pushed``: the pushed range, named when no review of it is known yet)."""
    out = [f"The push of {local_ref} was stopped: {'; '.join(report.problems)}."]
    if report.blocking:
        out.append("  Open findings:")
    for f in report.blocking[:LISTED]:
        where = f"{f.file_path}:{f.line}" if f.line is not None else f.file_path
        out.append(
            f"    #{f.id} {f.severity} {where}: {f.message.splitlines()[0][:HOOK_MESSAGE_CHARS]}"
        )
    if len(report.blocking) > LISTED:
        out.append(f"    ... and {len(report.blocking) - LISTED} more")
    if report.not_reviewed and any("requireReviewed" in p for p in report.problems):
        out.append("  Not marked reviewed:")
        for path, state in report.not_reviewed[:LISTED]:
            out.append(f"    {path} ({state})")
        if len(report.not_reviewed) > LISTED:
            out.append(f"    ... and {len(report.not_reviewed) - LISTED} more")
    shown = report.reviews[0][0].source.shown_range if report.reviews else pushed
    out.append(f"  See the review: diffchunk status {shown}")
    if report.blocking:
        out.append("  Close a finding: diffchunk finding resolve ID (or dismiss ID)")
    if report.not_reviewed:
        out.append(f"  Mark files reviewed: diffchunk mark {shown} --file PATH")
    out.append("  Push anyway (once): git push --no-verify")
    for key in ("failOn", "requireReviewed"):
        if any(key in p for p in report.problems):
            out.append(f"  Stop this check: git config --unset diffchunk.{key}")
    return "\n".join(out)
