"""Every file of a loaded diff with its standing in the review: the review page's file tree.

One read transaction of the record (no lock taken, no writer waited for), as
``review_status`` reads it: each file's state (:mod:`diffchunk.review.record.coverage`:
``reviewed``, ``changed`` (reviewed, then changed), ``seen``, ``unseen``,
``excluded``), its label against the reviewed revision when the load was
compared with one (:func:`diffchunk.review.record.since.label`: ``changed since
review``, ``new since review``), its findings by status, and the review's
totals, findings summary and since-review standing.  Files come in diff order;
an excluded file says why (its reason and detail, as the listing says it).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from ..record import changes, coverage, since
from ..record.context import Context, in_review
from ..record.findings import findings_summary
from ..record.model import RecordedReview, Revision, review_dict
from ..record.results import FindingsSummary, SinceStatus, Totals
from ..record.store import RecordStore
from ..sessions.loading import session
from ..sessions.store import SessionStore


@dataclass(frozen=True, slots=True)
class PageFile:
    """One file of the tree."""

    path: str
    old_path: str | None
    status: str
    added: int
    removed: int
    binary: bool
    state: str  # reviewed | changed | seen | unseen | excluded
    label: str  # the state as said against the reviewed revision
    excluded: str | None  # reason (and detail) of an excluded file
    chunks: tuple[int, ...]
    findings: dict[str, int]  # status -> count

    def to_list(self) -> list[Any]:
        """``[path, old_path, status, added, removed, binary, state, label, excluded,
        chunks, findings]``: compact, for trees of tens of thousands of files."""
        return [
            self.path,
            self.old_path,
            self.status,
            self.added,
            self.removed,
            self.binary,
            self.state,
            self.label,
            self.excluded,
            list(self.chunks),
            self.findings,
        ]


@dataclass(frozen=True, slots=True)
class ReviewFiles:
    """The tree of a loaded diff and where its review stands."""

    review: RecordedReview
    revision: Revision
    files: tuple[PageFile, ...]
    totals: Totals
    findings: FindingsSummary
    since_review: SinceStatus | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "review": review_dict(self.review, self.revision),
            "files": [f.to_list() for f in self.files],
            "totals": self.totals.to_dict(),
            "findings": self.findings.to_dict(outdated=True),
            "since_review": self.since_review.to_dict() if self.since_review else None,
        }


def _finding_counts(conn: sqlite3.Connection, review_id: int) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for path, status, count in conn.execute(
        "SELECT file_path, status, count(*) FROM findings WHERE review_id = ? "
        "GROUP BY file_path, status",
        (review_id,),
    ):
        counts.setdefault(str(path), {})[str(status)] = int(count)
    return counts


def _since(kept: since.SinceReview, labelled: dict[str, str]) -> SinceStatus:
    return SinceStatus(
        revision=kept.revision,
        history=kept.history,
        changed=tuple(p for p, s in labelled.items() if s == since.LABELS["changed"]),
        new=tuple(p for p, s in labelled.items() if s == since.LABELS["new"]),
        files=kept.file_counts(),
    )


def review_files(
    absolute_file_path: str,
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
) -> ReviewFiles:
    """The file tree of the diff at ``absolute_file_path`` (see the module doc)."""
    loaded = changes.loaded(absolute_file_path, store)
    details = {
        ex.path: ex.reason.value + (f": {ex.detail}" if ex.detail else "")
        for ex in session(absolute_file_path, store).review.excluded
    }

    def work(conn: sqlite3.Connection, ctx: Context) -> ReviewFiles:
        marks = coverage.review_marks(conn, ctx.review, loaded)
        # loaded.files() comes in the order of the paths' ordinals, as marks.state takes them
        states = [(c, marks.state(o)) for o, c in enumerate(loaded.files())]
        kept = since.stored(conn, ctx.review.id, ctx.revision.id)
        found = since.since_states(conn, ctx.revision.id) if kept is not None else {}
        labelled = {c.path: since.label(s, found.get(c.path)) for c, s in states}
        counts = _finding_counts(conn, ctx.review.id)
        tree = tuple(
            PageFile(
                path=c.path,
                old_path=c.old_path,
                status=c.status,
                added=c.added,
                removed=c.removed,
                binary=c.binary,
                state=state,
                label=labelled[c.path],
                excluded=details.get(c.path, c.excluded_reason) if state == "excluded" else None,
                chunks=c.chunks,
                findings=counts.get(c.path, {}),
            )
            for c, state in states
        )
        return ReviewFiles(
            review=ctx.review,
            revision=ctx.revision,
            files=tree,
            totals=marks.totals(),
            findings=findings_summary(conn, ctx.review.id),
            since_review=_since(kept, labelled) if kept is not None else None,
        )

    return in_review(absolute_file_path, work, record=record, loaded=loaded, writes=False)
