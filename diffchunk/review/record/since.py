"""Since the last review: which revision that is, what changed since, as the record keeps it.

**The reviewed revision** of a review loaded at ``(base, head)``
(:func:`reviewed_revision`): the latest loaded revision of the same review with
another ``(base, head)`` on which a reviewer did something — a ``seen`` or
``reviewed`` mark made on it, or a finding written on it; when no revision
has any, the latest other revision.  Re-anchoring a finding (moving it to a
later revision) is not something a reviewer did, so it does not count.

**Comparing two revisions** (:func:`compare`) goes file by file, by change id
(:mod:`.changes`: the ``+``/``-`` lines, line numbers ignored, like ``git
patch-id --stable``): a path in both with the same id is ``unchanged`` (its
marks hold as they are: marks are keyed by change id), with another id
``changed``; a path only in the new one is ``new``, only in the old one
``gone`` (no longer changed by the branch).

**What a load keeps** (:func:`store`): the revision it was compared with
(``revisions.since_revision_id``), the comparison's summary
(``revisions.since_summary``, JSON) and the paths that are changed, new or gone
(``since_files``), so that ``review_status`` says per file what is new since
the review without comparing again, and a load of the same revision reuses
them (:func:`stored`).

**Per-file labels** (:func:`label`): ``reviewed``, ``changed since review``
(reviewed, then its change changed: the ``changed`` state of
:mod:`.coverage`), ``new since review`` (not reviewed, and not in the reviewed
revision at all), ``seen``, ``unseen``, ``excluded``.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ...limits import SHORT_ID
from .identity import revision_of_row
from .model import Revision

if TYPE_CHECKING:
    from .changes import RecordedDiff

LISTED = 50
"""Paths of each kind (changed, new, no longer changed, interdiff) a since-review
summary lists; the counts are always whole and the diff itself has them all."""


HISTORY_FAST_FORWARD = "fast-forward"  # new commits on top, same base
HISTORY_BASE_MOVED = "base moved"  # new commits on top, the base moved forward
HISTORY_REWRITTEN = "rewritten"  # amend, rebase, force-push, squash, or pruned

LABELS = {"changed": "changed since review", "new": "new since review"}


@dataclass(frozen=True, slots=True)
class Comparison:
    """The paths of two revisions' diffs, by what happened to their change."""

    unchanged: int = 0  # paths in both with the same change id (counted)
    changed: tuple[str, ...] = ()  # in both, another change id
    new: tuple[str, ...] = ()  # only in the newer revision
    gone: tuple[str, ...] = ()  # only in the reviewed revision

    def state_of(self) -> dict[str, str]:
        """``path -> changed | new | gone`` (unchanged paths are left out)."""
        states = dict.fromkeys(self.changed, "changed")
        states.update(dict.fromkeys(self.new, "new"))
        states.update(dict.fromkeys(self.gone, "gone"))
        return states


def compare(old: RecordedDiff, new: RecordedDiff) -> Comparison:
    """Compare every path of two loaded diffs by change id (see the module doc)."""
    old_ids = {path: old.file(path).change_id for path in old.paths()}
    unchanged = 0
    changed, fresh = [], []
    for path in new.paths():
        before = old_ids.get(path)
        if before is None:
            fresh.append(path)
        elif before == new.file(path).change_id:
            unchanged += 1
        else:
            changed.append(path)
    gone = [path for path in old_ids if not new.has(path)]
    return Comparison(unchanged, tuple(changed), tuple(fresh), tuple(gone))


@dataclass(frozen=True, slots=True)
class SinceReview:
    """What changed in a review's range since its reviewed revision.

    ``comparison`` is None when the reviewed revision's commits are gone from
    the repository (``commits_gone``): nothing is compared then, and nothing
    guessed.  ``full_diff`` and ``interdiff`` are set on the answer of a
    since-review load: the full review's diff file, and the files its diff
    shows as an interdiff.
    """

    review_id: int
    revision: Revision
    history: str
    comparison: Comparison | None
    commits_gone: bool = False
    full_diff: str | None = None
    interdiff: tuple[str, ...] = ()

    @property
    def rewritten(self) -> bool:
        return self.history == HISTORY_REWRITTEN

    def to_dict(self) -> dict[str, Any]:
        rev = self.revision
        result: dict[str, Any] = {
            "revision": {
                "id": rev.id,
                "base": rev.base,
                "head": rev.head,
                "loaded_at": rev.loaded_at,
            },
            "history": self.history,
            "rewritten": self.rewritten,
        }
        c = self.comparison
        if c is None:
            result["commits_gone"] = True
            result["note"] = gone_note(rev)
            return result
        result["files"] = self.file_counts()
        result["changed"] = list(c.changed[:LISTED])
        result["new"] = list(c.new[:LISTED])
        result["no_longer_changed"] = list(c.gone[:LISTED])
        if self.full_diff is not None:
            result["full_file_path"] = self.full_diff
            result["interdiff"] = list(self.interdiff[:LISTED])
        return result

    def file_counts(self) -> dict[str, int] | None:
        """The files of the two revisions by what happened to their change (None: the
        reviewed revision's commits are gone, nothing was compared)."""
        c = self.comparison
        if c is None:
            return None
        return {
            "unchanged": c.unchanged,
            "changed": len(c.changed),
            "new": len(c.new),
            "no_longer_changed": len(c.gone),
        }

    def with_since_diff(self, full_diff: str, interdiff: tuple[str, ...]) -> SinceReview:
        return replace(self, full_diff=full_diff, interdiff=interdiff)


def gone_note(revision: Revision) -> str:
    base = (revision.base or "the empty tree")[:SHORT_ID]
    head = (revision.head or "?")[:SHORT_ID]
    return (
        f"The reviewed revision's commits ({base}..{head}) are no longer in the repository "
        "(pruned after a force-push?): what changed since cannot be told."
    )


# --------------------------------------------------------------------------
# The reviewed revision
# --------------------------------------------------------------------------

_ACTIVE = (
    "(EXISTS (SELECT 1 FROM marks m WHERE m.revision_id = r.id) OR "
    "EXISTS (SELECT 1 FROM findings f WHERE f.created_revision_id = r.id))"
)


def reviewed_revision(
    conn: sqlite3.Connection, review_id: int, base: str | None, head: str | None
) -> Revision | None:
    """The revision of review ``review_id`` that a load at ``(base, head)`` is compared
    with (see the module doc); None when the review has no other revision.  A
    revision of a range limited to paths is never it: it shows part of the branch."""
    row = conn.execute(
        f"SELECT r.* FROM revisions r WHERE r.review_id = ? AND r.paths IS NULL "
        f"AND NOT (coalesce(r.base, '') = ? AND coalesce(r.head, '') = ?) "
        f"ORDER BY {_ACTIVE} DESC, r.load_seq DESC LIMIT 1",
        (review_id, base or "", head or ""),
    ).fetchone()
    return revision_of_row(row) if row is not None else None


# --------------------------------------------------------------------------
# Kept with the revision
# --------------------------------------------------------------------------


def store(conn: sqlite3.Connection, revision_id: int, since: SinceReview) -> None:
    """Keep ``since`` with revision ``revision_id`` (inside a write)."""
    summary: dict[str, Any] = {"history": since.history, "commits_gone": since.commits_gone}
    c = since.comparison
    if c is not None:
        summary.update(unchanged=c.unchanged, changed=c.changed, new=c.new, gone=c.gone)
    conn.execute(
        "UPDATE revisions SET since_revision_id = ?, since_summary = ? WHERE id = ?",
        (since.revision.id, json.dumps(summary, separators=(",", ":")), revision_id),
    )
    conn.execute("DELETE FROM since_files WHERE revision_id = ?", (revision_id,))
    if c is not None:
        conn.executemany(
            "INSERT INTO since_files (revision_id, path, state) VALUES (?, ?, ?)",
            [(revision_id, path, state) for path, state in c.state_of().items()],
        )


def _paths(value: object) -> tuple[str, ...]:
    return tuple(str(p) for p in value) if isinstance(value, list) else ()


def stored(conn: sqlite3.Connection, review_id: int, revision_id: int) -> SinceReview | None:
    """The comparison kept with revision ``revision_id``, or None."""
    row = conn.execute(
        "SELECT since_revision_id, since_summary FROM revisions WHERE id = ?", (revision_id,)
    ).fetchone()
    if row is None or row["since_revision_id"] is None or not row["since_summary"]:
        return None
    reviewed = conn.execute(
        "SELECT * FROM revisions WHERE id = ?", (row["since_revision_id"],)
    ).fetchone()
    try:
        summary = json.loads(row["since_summary"])
    except ValueError:
        return None
    if reviewed is None or not isinstance(summary, dict):
        return None
    revision = revision_of_row(reviewed)
    history = str(summary.get("history", HISTORY_REWRITTEN))
    if summary.get("commits_gone"):
        return SinceReview(review_id, revision, history, None, commits_gone=True)
    unchanged = summary.get("unchanged")
    comparison = Comparison(
        unchanged=unchanged if isinstance(unchanged, int) else 0,
        changed=_paths(summary.get("changed")),
        new=_paths(summary.get("new")),
        gone=_paths(summary.get("gone")),
    )
    return SinceReview(review_id, revision, history, comparison)


def since_states(conn: sqlite3.Connection, revision_id: int) -> dict[str, str]:
    """``path -> changed | new | gone`` kept for revision ``revision_id`` (empty: none)."""
    return {
        str(path): str(state)
        for path, state in conn.execute(
            "SELECT path, state FROM since_files WHERE revision_id = ?", (revision_id,)
        )
    }


def label(state: str, since_state: str | None) -> str:
    """A file's state as ``review_status`` says it per file (see the module doc)."""
    if state == "changed":
        return LABELS["changed"]
    if state in ("seen", "unseen") and since_state == "new":
        return LABELS["new"]
    return state
