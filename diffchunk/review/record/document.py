"""The export document: a review as one JSON object, the input of every export format.

``export_document(absolute_file_path)`` builds it for the review of the loaded
diff at that path, as of that load (a since-review diff is exported as its
review at that revision: its full diff, whose lines the findings number).  Keys (format version 1; see the README):

- ``format`` (``"diffchunk-review"``), ``format_version`` (1), ``tool``
  (``{"name", "version"}``), ``exported_at`` (ISO 8601 UTC);
- ``review``: ``{"id", "source", "revision"}``.  ``source`` is
  ``{"kind": "git", "repository", "range", "base", "head"}`` (``repository``:
  the work tree, or the git dir when bare; ``range`` as given, e.g.
  ``main..feature``, or ``worktree:<rev>`` / ``index:<rev>``) or
  ``{"kind": "file", "diff_file", "sha256"}``; ``revision`` is ``{"id",
  "base", "head", "sha256", "loaded_at"}`` (``base``/``head`` null for a diff
  file);
- ``coverage``: ``{"files", "reviewed", "seen", "unseen", "changed",
  "excluded", "excluded_by_reason"}``;
- ``findings_summary``: ``{"open": {severity: count}, "resolved",
  "dismissed", "outdated"}``;
- ``files``: in diff order, ``{"path", "old_path", "status", "state",
  "excluded_reason", "added", "removed", "binary", "hunks": [{"old_start",
  "old_count", "new_start", "new_count"}]}``; ``status`` one of added,
  deleted, modified, renamed, copied, mode, binary; ``state`` one of
  reviewed, seen, unseen, changed, excluded;
- ``findings``: every finding of the review (any status), in diff order
  (see :mod:`.findings`), ``{"id", "file_path", "side", "line", "end_line",
  "severity", "status", "message", "suggestion", "lines", "chunk",
  "created_at", "updated_at", "anchor"}``; ``anchor`` is ``{"revision_id",
  "base", "head"}`` of the revision whose lines ``line``..``end_line`` number
  (an outdated finding keeps the last one that had them), or null.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ... import __version__
from ...diff.lazy import LazySequence
from ...errors import DiffchunkError, FileNotInDiff
from . import changes, coverage
from .changes import FileChange, RecordedDiff
from .context import Context, in_review
from .findings import findings_summary, in_order, threads
from .identity import full_diffs, revision_of_row, same_lines
from .model import RecordedReview, Revision, review_dict
from .public import repository_name
from .results import Finding, FindingsSummary, Totals
from .store import RecordStore, default_record, now

if TYPE_CHECKING:
    from ..sessions.store import SessionStore

FORMAT = "diffchunk-review"
FORMAT_VERSION = 1  # the record document's format: raised when its keys change meaning


@dataclass(frozen=True, slots=True)
class ExportDocument:
    review: RecordedReview
    revision: Revision
    coverage: Totals
    findings_summary: FindingsSummary
    # Each file of the load and its state, built when reached (see StatedFiles).
    files: Sequence[tuple[FileChange, str]]
    findings: tuple[Finding, ...]
    exported_at: str
    revisions: Mapping[int, Revision] = field(default_factory=dict)  # the review's, by id
    diff_path: str = ""  # the diff file exported (a since-review diff's full diff)

    def to_dict(self, *, lazy: bool = False) -> dict[str, Any]:
        """The document; ``lazy``: its ``files`` a sequence whose entries are made as they
        are read (for an export written as it is made), else a list."""
        files: Sequence[dict[str, Any]] = (
            FileDicts(self.files) if lazy else [_file_dict(c, s) for c, s in self.files]
        )
        review = review_dict(self.review, self.revision)
        source = self.review.source
        if source.kind == "git" and source.repository_path is not None:
            review["source"]["name"] = repository_name(source.repository_path)
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "tool": {"name": "diffchunk", "version": __version__},
            "exported_at": self.exported_at,
            "review": review,
            "coverage": self.coverage.to_dict(),
            "findings_summary": self.findings_summary.to_dict(outdated=True),
            "files": files,
            "findings": [
                {**f.record_dict(), "anchor": _anchor(self.revisions.get(f.revision_id or 0))}
                for f in self.findings
            ],
        }


class StatedFiles(LazySequence[tuple[FileChange, str]]):
    """Every file of a load with its state in a review, each built when it is read (a
    review of a million files is never a million objects)."""

    ITEM = "file"
    __slots__ = ("marks",)

    def __init__(self, marks: coverage.Coverage) -> None:
        self.marks = marks

    def __len__(self) -> int:
        return len(self.marks.flags)

    def _build(self, i: int) -> tuple[FileChange, str]:
        return self.marks.loaded.file_at(i), self.marks.state(i)

    def __iter__(self) -> Iterator[tuple[FileChange, str]]:
        state = self.marks.state
        for change in self.marks.loaded.files():
            yield change, state(change.order)

    def find(self, path: str) -> int | None:
        """The position of ``path`` (None: not a file of the load)."""
        return self.marks.loaded.ordinal(path)

    def states(self) -> Iterator[tuple[str, str]]:
        """``(path, state)`` of every file, without building the files."""
        marks = self.marks
        return ((marks.loaded.path_of(o), state) for o, state in marks.states())


class FileDicts(LazySequence[dict[str, Any]]):
    """The document's ``files`` entries, each made when it is read (valid by
    construction: ``checked``, see :mod:`diffchunk.review.export.document`)."""

    __slots__ = ("_files",)
    checked = True

    def __init__(self, files: Sequence[tuple[FileChange, str]]) -> None:
        self._files = files

    def __len__(self) -> int:
        return len(self._files)

    def _build(self, i: int) -> dict[str, Any]:
        return _file_dict(*self._files[i])

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (_file_dict(c, s) for c, s in self._files)

    def find(self, path: str) -> int | None:
        find = getattr(self._files, "find", None)
        if callable(find):
            found: int | None = find(path)
            return found
        return next((i for i, (c, _) in enumerate(self._files) if c.path == path), None)

    def states(self) -> Iterator[tuple[str, str]]:
        states = getattr(self._files, "states", None)
        if callable(states):
            found: Iterator[tuple[str, str]] = states()
            return found
        return ((c.path, s) for c, s in self._files)


def _anchor(revision: Revision | None) -> dict[str, Any] | None:
    if revision is None:
        return None
    return {"revision_id": revision.id, "base": revision.base, "head": revision.head}


def _file_dict(change: FileChange, state: str) -> dict[str, Any]:
    return {
        "path": change.path,
        "old_path": change.old_path,
        "status": change.status,
        "state": state,
        "excluded_reason": change.excluded_reason,
        "added": change.added,
        "removed": change.removed,
        "binary": change.binary,
        "hunks": [h.to_dict() for h in change.hunks],
    }


def export_document(
    absolute_file_path: str,
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
    exported_at: str | None = None,
) -> ExportDocument:
    """The export document of the review of the diff at ``absolute_file_path`` (of a
    since-review diff: of its review at that revision, whose full diff numbers the
    findings' lines)."""
    target = record if record is not None else default_record()
    loaded = changes.loaded(absolute_file_path, store)
    if loaded.since is not None:
        absolute_file_path = _full_diff(loaded, target, store)

    def work(conn: sqlite3.Connection, ctx: Context) -> ExportDocument:
        marks = coverage.review_marks(conn, ctx.review, ctx.loaded)
        rows = conn.execute(
            "SELECT * FROM findings WHERE review_id = ? ORDER BY id", (ctx.review.id,)
        ).fetchall()
        return ExportDocument(
            review=ctx.review,
            revision=ctx.revision,
            coverage=marks.totals(),
            findings_summary=findings_summary(conn, ctx.review.id),
            files=StatedFiles(marks),
            findings=_with_threads(
                conn, in_order(ctx.loaded, rows, same_lines(conn, ctx.revision))
            ),
            exported_at=exported_at or now(),
            diff_path=absolute_file_path,
            revisions={
                int(r["id"]): revision_of_row(r)
                for r in conn.execute(
                    "SELECT * FROM revisions WHERE review_id = ?", (ctx.review.id,)
                )
            },
        )

    return in_review(absolute_file_path, work, store=store, record=target, writes=False)


def _with_threads(conn: sqlite3.Connection, found: list[Finding]) -> tuple[Finding, ...]:
    replies = threads(conn, [f.id for f in found])
    return tuple(
        replace(f, thread=tuple(replies[f.id]), thread_total=len(replies[f.id]))
        if f.id in replies
        else f
        for f in found
    )


def _full_diff(since: RecordedDiff, record: RecordStore, store: SessionStore | None) -> str:
    """The full diff of the revision the since-review diff ``since`` leads to."""
    for path in record.read(lambda conn: full_diffs(conn, since.path)):
        try:
            if os.path.exists(path) and changes.loaded(path, store).since is None:
                return path
        except DiffchunkError:
            continue
    raise FileNotInDiff(
        f"{since.path} holds only what changed since the last review, and the full diff of "
        "its review is no longer in the cache: an export needs the full diff, whose lines "
        "the findings point at.",
        suggestion="Load the range again (load_git_diff, or diffchunk review RANGE) and "
        "export with the path that load returns.",
    )
