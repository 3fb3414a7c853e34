"""What the review record's tools return: coverage totals, chunk states, findings and
their pages, the status of a review.

Frozen dataclasses; each has ``to_dict()`` giving exactly the JSON keys of its
tool (called by the MCP and CLI shells only); a finding's long texts are cut
there (:mod:`.clip`), never in the record.  Apart from :mod:`.model` so that a
range load, which records a revision, does not build these classes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...limits import STATUS_CHANGED_LISTED
from .clip import clip
from .model import SEVERITIES, RecordedReview, Revision, review_dict

WRITE_ANSWER_LINE_CHARS = 160
"""Characters of the anchored line a write tool's one-line answer quotes
(``add_finding``): enough to tell the line meant from its neighbours; the finding
itself is not sent back (21 acknowledgements of whole findings cost a review
as much as a file's diff)."""

FINDING_COMMENTS_SHOWN = 20
"""Replies of a thread a finding carries in an answer (the latest): a discussion
longer than that is read in the export, whole."""


@dataclass(frozen=True, slots=True)
class Totals:
    """Files of one load by state; ``excluded`` files are counted by reason too."""

    files: int
    reviewed: int
    seen: int
    unseen: int
    changed: int
    excluded: int
    excluded_by_reason: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "reviewed": self.reviewed,
            "seen": self.seen,
            "unseen": self.unseen,
            "changed": self.changed,
            "excluded": self.excluded,
            "excluded_by_reason": dict(self.excluded_by_reason),
        }


@dataclass(frozen=True, slots=True)
class ChunkStatus:
    chunk: int
    status: str  # reviewed | partly | seen | unseen
    files: tuple[str, ...]
    # Each file's state as said per file (``changed since review``, ``new since
    # review``...), given when the review has a reviewed revision to compare with.
    file_states: tuple[tuple[str, str], ...] = ()
    files_total: int | None = None  # set when the file list is cut to fit a response

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "chunk": self.chunk,
            "status": self.status,
            "files": list(self.files),
        }
        if self.file_states:
            result["file_states"] = dict(self.file_states)
        if self.files_total is not None:
            result["files_total"] = self.files_total
        return result


@dataclass(frozen=True, slots=True)
class FindingsSummary:
    open: Mapping[str, int]  # severity -> count of open findings
    resolved: int
    dismissed: int
    outdated: int = 0

    def to_dict(self, *, outdated: bool = False) -> dict[str, Any]:
        result: dict[str, Any] = {
            "open": {s: self.open.get(s, 0) for s in SEVERITIES},
            "resolved": self.resolved,
            "dismissed": self.dismissed,
        }
        if outdated:
            result["outdated"] = self.outdated
        return result

    @property
    def open_total(self) -> int:
        return sum(self.open.values())


@dataclass(frozen=True, slots=True)
class Comment:
    """A reply on a finding's thread (``update_finding(comment=...)``): who, what, when,
    and the status the same update set (None when it set none)."""

    author: str
    body: str
    created_at: str
    status: str | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"author": self.author, "body": self.body, "at": self.created_at}
        if self.status is not None:
            result["status"] = self.status
        return result


@dataclass(frozen=True, slots=True)
class Finding:
    """A finding as stored; ``chunk`` is filled in for the load it is shown with;
    ``author``: who wrote it ('' before authors were recorded); ``thread``: its
    replies, oldest first (the latest :data:`FINDING_COMMENTS_SHOWN`
    in a tool's answer, all of them in the export document); ``thread_total``:
    how many it has."""

    id: int
    review_id: int
    revision_id: int | None
    file_path: str
    side: str
    line: int | None
    end_line: int | None
    severity: str
    status: str
    message: str
    suggestion: str | None
    lines: str | None
    change_id: str | None
    created_at: str
    updated_at: str
    chunk: int | None = None
    author: str = ""
    thread: tuple[Comment, ...] = ()
    thread_total: int = 0
    note: str | None = None  # what an answer must say of it (a reopened outdated finding)

    def to_dict(self) -> dict[str, Any]:
        """The finding as a tool answers it: ``lines`` and ``suggestion`` cut to a head and
        a tail when long (:mod:`.clip`), with ``lines_cut``/``suggestion_cut`` then."""
        lines, lines_cut = clip(self.lines)
        suggestion, suggestion_cut = clip(self.suggestion)
        result = self.record_dict()
        result["lines"], result["suggestion"] = lines, suggestion
        if lines_cut is not None:
            result["lines_cut"] = lines_cut.to_dict()
        if suggestion_cut is not None:
            result["suggestion_cut"] = suggestion_cut.to_dict()
        if len(self.thread) > FINDING_COMMENTS_SHOWN:
            result["thread"] = result["thread"][-FINDING_COMMENTS_SHOWN:]
        if self.thread_total > len(result.get("thread", ())):
            result["thread_total"] = self.thread_total
        if self.note is not None:
            result["note"] = self.note
        return result

    def record_dict(self) -> dict[str, Any]:
        """The finding whole, as the record keeps it (the export document's form)."""
        result: dict[str, Any] = {
            "id": self.id,
            "file_path": self.file_path,
            "side": self.side,
            "line": self.line,
            "end_line": self.end_line,
            "severity": self.severity,
            "status": self.status,
            "message": self.message,
            "suggestion": self.suggestion,
            "lines": self.lines,
            "chunk": self.chunk,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }
        if self.author:
            result["author"] = self.author
        if self.thread:
            result["thread"] = [c.to_dict() for c in self.thread]
        return result


# --------------------------------------------------------------------------
# Tool results
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MarkResult:
    """What ``mark_reviewed`` did: the paths marked (or unmarked) and the totals after;
    ``marked_total`` counts them when ``marked`` names only the first few (a glob over
    thousands of files)."""

    marked: tuple[str, ...]
    reviewed: bool
    totals: Totals
    next_chunk: int | None
    partly: tuple[str, ...] = ()  # files of which only some parts are now marked
    marked_total: int | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "marked": list(self.marked),
            "reviewed": self.reviewed,
            "totals": self.totals.to_dict(),
            "next_chunk": self.next_chunk,
        }
        if self.partly:
            result["partly"] = list(self.partly)
        if self.marked_total is not None:
            result["marked_total"] = self.marked_total
        return result

    def line(self) -> dict[str, Any]:
        """The answer in a line (the MCP tool's): how many files it marked, how many of
        the diff's are reviewed, and the next chunk to read."""
        result: dict[str, Any] = {
            "marked": len(self.marked) if self.marked_total is None else self.marked_total,
            "reviewed": self.totals.reviewed,
            "of": self.totals.files,
            "next_chunk": self.next_chunk,
        }
        if not self.reviewed:
            result["unmarked"] = True
        if self.partly:
            result["partly"] = len(self.partly)
        return result


@dataclass(frozen=True, slots=True)
class FindingAdded:
    """What ``add_finding`` did: the finding it opened, or (``earlier``) the dismissed or
    resolved finding of the repository it matches, which it did not open again."""

    finding: Finding
    earlier: bool = False

    def to_dict(self) -> dict[str, Any]:
        f = self.finding
        if self.earlier:
            reason = f.thread[-1].body if f.thread else None
            return {
                "added": False,
                "earlier": {
                    "id": f.id,
                    "review_id": f.review_id,
                    "status": f.status,
                    "reason": clip(reason)[0] if reason is not None else None,
                    "author": f.author or None,
                },
                "note": f"A finding like this one was {f.status} (finding {f.id}); not added "
                "again. Pass force=true to add it anyway.",
            }
        lines, cut = clip(f.lines)
        result = {
            "id": f.id,
            "file_path": f.file_path,
            "side": f.side,
            "line": f.line,
            "end_line": f.end_line,
            "chunk": f.chunk,
            "severity": f.severity,
            "lines": lines,
        }
        if cut is not None:
            result["lines_cut"] = cut.to_dict()
        return result

    def line(self) -> dict[str, Any]:
        """The answer in a line (the MCP tool's): the id, where it sits
        (``path:line``, ``path:first-last``, ``(old)`` for the old side, the path
        alone for the whole file) and the first line it anchored to, cut to
        :data:`WRITE_ANSWER_LINE_CHARS`; a finding not added again (``earlier``)
        answers as :meth:`to_dict` does."""
        if self.earlier:
            return self.to_dict()
        f = self.finding
        at = f.file_path
        if f.line is not None:
            end = f"-{f.end_line}" if f.end_line is not None and f.end_line != f.line else ""
            at += f":{f.line}{end}" + (" (old)" if f.side == "old" else "")
        result: dict[str, Any] = {"id": f.id, "at": at}
        if f.lines:
            first = f.lines.split("\n", 1)[0].rstrip("\r")
            cut = len(first) > WRITE_ANSWER_LINE_CHARS
            result["line"] = first[:WRITE_ANSWER_LINE_CHARS] + ("…" if cut else "")
        return result


@dataclass(frozen=True, slots=True)
class FindingsPage:
    findings: tuple[Finding, ...]
    total: int
    next_offset: int | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "findings": [f.to_dict() for f in self.findings],
            "total": self.total,
        }
        if self.next_offset is not None:
            result["next_offset"] = self.next_offset
        return result


@dataclass(frozen=True, slots=True)
class SinceStatus:
    """Where a review stands against its reviewed revision: the files ``changed since
    review`` (reviewed, then changed: their mark is for another change, whichever
    revision it was made on) and ``new since review`` (not in the reviewed revision,
    not reviewed yet), listed up to ``listed`` each; ``files``: the comparison of
    the two revisions as the load reported it (``unchanged``, ``changed``, ``new``,
    ``no_longer_changed``; None when the reviewed revision's commits are gone)."""

    revision: Revision
    history: str
    changed: tuple[str, ...]
    new: tuple[str, ...]
    listed: int = STATUS_CHANGED_LISTED
    files: Mapping[str, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        rev = self.revision
        return {
            "revision": {
                "id": rev.id,
                "base": rev.base,
                "head": rev.head,
                "loaded_at": rev.loaded_at,
            },
            "history": self.history,
            "changed_since_review": len(self.changed),
            "new_since_review": len(self.new),
            "changed": list(self.changed[: self.listed]),
            "new": list(self.new[: self.listed]),
            "files": dict(self.files) if self.files is not None else None,
        }


@dataclass(frozen=True, slots=True)
class ReviewStatus:
    review: RecordedReview
    revision: Revision
    totals: Totals
    chunks: Sequence[ChunkStatus]
    total_chunks: int
    findings: FindingsSummary
    next_chunk: int | None
    next_offset: int | None = None
    changed_files: tuple[str, ...] = ()  # files reviewed before and changed since
    since_review: SinceStatus | None = None
    # author -> {"reviewed": files of this load, "findings": written}
    reviewers: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    # (path, review id, author): reviewed as the identical change in another review
    reviewed_elsewhere: tuple[tuple[str, int, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "review": review_dict(self.review, self.revision),
            "totals": self.totals.to_dict(),
            "chunks": [c.to_dict() for c in self.chunks],
            "total_chunks": self.total_chunks,
            "findings": self.findings.to_dict(outdated=self.findings.outdated > 0),
            "next_chunk": self.next_chunk,
        }
        if self.reviewers:
            result["reviewers"] = {k: dict(v) for k, v in self.reviewers.items()}
        if self.reviewed_elsewhere:
            shown = self.reviewed_elsewhere[:STATUS_CHANGED_LISTED]
            result["reviewed_elsewhere"] = [
                {"path": p, "review": r, "by": a or None} for p, r, a in shown
            ]
            if len(self.reviewed_elsewhere) > len(shown):
                result["reviewed_elsewhere_total"] = len(self.reviewed_elsewhere)
        if self.changed_files:
            result["changed_files"] = list(self.changed_files)
        if self.since_review is not None:
            result["since_review"] = self.since_review.to_dict()
        if self.next_offset is not None:
            result["next_offset"] = self.next_offset
        return result
