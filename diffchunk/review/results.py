"""The typed results of the diff tools, and their JSON form.

The tools (:mod:`diffchunk.review.tools.diff_tools`) return these frozen
dataclasses; the shells turn them into JSON with ``to_dict()``, which gives
exactly the keys the tools document (optional keys are left out when they
do not apply, never sent as null).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..diff.options import LoadOptions


class SinceReview(Protocol):
    """What changed since a review's reviewed revision, as a load reports it: the
    record's :class:`~diffchunk.review.record.since.SinceReview`, which a result
    only carries and sends."""

    @property
    def full_diff(self) -> str | None: ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class ExcludedFile:
    """A file left out of the chunks, and why (``reason``: trivial, generated...)."""

    path: str
    reason: str
    detail: str | None = None
    commit: str | None = None  # the commit of the section, in a multi-commit stream

    def to_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"path": self.path, "reason": self.reason}
        if self.detail:
            entry["detail"] = self.detail
        if self.commit is not None:
            entry["commit"] = self.commit
        return entry


@dataclass(frozen=True, slots=True)
class ExcludedSummary:
    """How many files were left out, by reason and by top directory."""

    total: int
    by_reason: tuple[tuple[str, int], ...]
    by_dir: tuple[tuple[str, int], ...]  # the largest (:mod:`.sessions.excluded`)
    other_dirs: int = 0  # files in the directories not named

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "total": self.total,
            "by_reason": dict(self.by_reason),
            "by_dir": dict(self.by_dir),
        }
        if self.other_dirs:
            result["other_dirs"] = self.other_dirs
        return result


@dataclass(frozen=True, slots=True)
class LoadSummary:
    """What ``load_diff`` returns: the counts, the file path and what was left out."""

    chunks: int
    files: int
    total_lines: int
    file_path: str
    files_excluded: int
    excluded: tuple[ExcludedFile, ...]
    excluded_more: int = 0  # excluded files not listed in ``excluded``
    warnings: tuple[str, ...] = ()
    excluded_summary: ExcludedSummary | None = None  # counts by reason and top directory

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "chunks": self.chunks,
            "files": self.files,
            "total_lines": self.total_lines,
            "file_path": self.file_path,
            "files_excluded": self.files_excluded,
            "excluded": [ex.to_dict() for ex in self.excluded],
        }
        if self.excluded_more:
            result["excluded_more"] = self.excluded_more
        if self.excluded_summary is not None and self.excluded_more:
            # With every excluded file listed, their counts would only repeat them.
            result["excluded_summary"] = self.excluded_summary.to_dict()
        if self.warnings:
            result["warnings"] = list(self.warnings)
        return result


@dataclass(frozen=True, slots=True)
class RangeSummary:
    """What ``load_git_diff`` returns: the load summary and what the range was.

    ``head`` is None for the working tree or the index; ``base`` is None when
    the old side is the empty tree; ``cached``: the diff was reused without
    running git.  ``since_review``: what changed since the review's reviewed
    revision (:mod:`diffchunk.review.incremental`), when it has one;
    ``since_note``: why a since-review load gave the full diff instead.
    """

    summary: LoadSummary
    repo: str
    range: str
    base: str | None
    head: str | None
    cached: bool
    since_review: SinceReview | None = None
    since_note: str | None = None
    paths: tuple[str, ...] = ()  # the paths the range is limited to (none: all)
    # Earlier reviews this load's new review overlaps (id, range, reviewed, open_findings).
    overlapping: tuple[dict[str, Any], ...] = ()
    # What became of the review's open findings of other revisions (followed, outdated).
    findings_followed: dict[str, Any] | None = None

    @property
    def file_path(self) -> str:
        return self.summary.file_path

    def to_dict(self) -> dict[str, Any]:
        result = self.summary.to_dict()
        result["repo"] = self.repo
        result["range"] = self.range
        result["base"] = self.base
        result["head"] = self.head
        result["cached"] = self.cached
        if self.since_review is not None:
            result["since_review"] = self.since_review.to_dict()
        elif self.since_note is not None:
            result["since_review"] = {"revision": None, "note": self.since_note}
        if self.paths:
            result["paths"] = list(self.paths)
            if self.paths_note is not None:
                result["paths_note"] = self.paths_note
        if self.findings_followed is not None:
            result["findings_followed"] = self.findings_followed
        if self.overlapping:
            first = self.overlapping[0]["id"]
            result["overlapping_reviews"] = list(self.overlapping)
            result["overlapping_note"] = (
                "This load started a new review; earlier reviews of this repository overlap "
                f"it. To continue one, load again with review_id={first} (`diffchunk review "
                f"RANGE --review {first}`)."
            )
        return result

    @property
    def paths_note(self) -> str | None:
        """What to know when the paths the range is limited to hold none of its changes."""
        if not self.paths or self.summary.files or self.summary.files_excluded:
            return None
        return (
            "The range changes nothing under these paths. They are taken literally, "
            "as files or directories from the repository's top (no globs, no "
            "pathspec magic); the whole range shows what it changes."
        )


@dataclass(frozen=True, slots=True)
class SymbolChange:
    """One definition a change touches."""

    name: str
    change: str  # added, modified, removed
    kind: str | None = None  # function, method, class... (None from function context)
    lines: tuple[int, int] | None = None  # new-side lines (old-side for a removed one)

    def to_json(self) -> dict[str, Any]:
        """``{"name", "kind", "change", "lines"}``, e.g. ``{"name": "Parser.run", "kind":
        "method", "change": "modified", "lines": [12, 40]}`` (a removed one's lines are
        its old lines); a function-context line has no kind and no lines."""
        out: dict[str, Any] = {"name": self.name}
        if self.kind is not None:
            out["kind"] = self.kind
        out["change"] = self.change
        if self.lines is not None:
            out["lines"] = list(self.lines)
        return out


@dataclass(frozen=True, slots=True)
class FileDetail:
    """One file of a chunk in a listing: its lines in that chunk and what kind of change.

    ``added``/``removed``: its ``+``/``-`` lines in that chunk (both left out
    when both are 0: a rename, a mode change, a binary file).  ``symbols``: the
    definitions the change touches (:mod:`diffchunk.review.tools.symbols`; at most a
    few, ``symbols_more`` counting the rest), from the outline, or from the
    hunks' function context when ``symbols_from`` says ``hunks``; left out when
    there are none.
    """

    path: str
    lines: int
    status: str | None = None  # added, deleted, modified, renamed, copied, mode, binary
    renamed_from: str | None = None
    binary: bool = False
    metadata_only: bool = False
    binary_by_attributes: bool = False  # -diff/binary: git would not show this text
    added: int = 0
    removed: int = 0
    symbols: tuple[SymbolChange, ...] = ()
    symbols_more: int = 0
    symbols_from: str | None = None

    def to_dict(self) -> dict[str, Any]:
        detail: dict[str, Any] = {"path": self.path, "lines": self.lines}
        if self.status is not None:
            detail["status"] = self.status
        if self.added or self.removed:
            detail["added"] = self.added
            detail["removed"] = self.removed
        if self.symbols:
            detail["symbols"] = [s.to_json() for s in self.symbols]
            if self.symbols_more:
                detail["symbols_more"] = self.symbols_more
            if self.symbols_from != "outline":  # the outline is the rule, hunks the exception
                detail["symbols_from"] = self.symbols_from
        if self.renamed_from is not None:
            detail["from"] = self.renamed_from
        if self.binary:
            detail["binary"] = True
        elif self.metadata_only:
            detail["metadata_only"] = True
        elif self.binary_by_attributes:
            detail["binary_by_attributes"] = True
        return detail


@dataclass(frozen=True, slots=True)
class ChunkEntry:
    """The listing entry of one chunk."""

    chunk: int
    files: tuple[str, ...]
    file_details: tuple[FileDetail, ...]
    lines: int
    token_count: int
    summary: str
    parent_file: str | None = None
    sub_chunk_index: int | None = None
    oversized: bool = False
    files_total: int | None = None  # set when the file lists are cut to fit a response
    parts: int | None = None  # answers the raw text comes in, when more than one

    def to_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "chunk": self.chunk,
            "files": list(self.files),
            "file_details": [d.to_dict() for d in self.file_details],
            "lines": self.lines,
            "token_count": self.token_count,
            "summary": self.summary,
        }
        if self.parent_file is not None:
            entry["parent_file"] = self.parent_file
            entry["sub_chunk_index"] = self.sub_chunk_index
        if self.oversized:
            entry["oversized"] = True
        if self.parts is not None:
            entry["parts"] = self.parts
        if self.files_total is not None:
            entry["files_listed"] = len(self.files)
            entry["files_total"] = self.files_total
            entry["files_note"] = (
                "The chunk's file list is cut to fit one response; get_chunk shows every "
                "file, and find_chunks_for_files finds a file's chunk."
            )
        return entry


@dataclass(frozen=True, slots=True)
class ChunkListing:
    """One page of ``list_chunks``: the chunks' entries and the excluded files."""

    chunks: tuple[ChunkEntry, ...]
    total_token_count: int
    total_chunks: int
    excluded: tuple[ExcludedFile, ...]
    excluded_total: int | None = None  # set when ``excluded`` is cut to fit the page
    next_offset: int | None = None
    format: str = "raw"  # the format whose text the token figures count
    excluded_summary: ExcludedSummary | None = None  # counts by reason and top directory

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "chunks": [c.to_dict() for c in self.chunks],
            "total_token_count": self.total_token_count,
            "total_chunks": self.total_chunks,
            "excluded": [ex.to_dict() for ex in self.excluded],
        }
        if self.excluded_total is not None:
            result["excluded_total"] = self.excluded_total
            result["excluded_truncated"] = True
        if self.excluded_summary is not None:
            result["excluded_summary"] = self.excluded_summary.to_dict()
        if self.next_offset is not None:
            result["next_offset"] = self.next_offset
        if self.format != "raw":
            result["format"] = self.format
        return result


@dataclass(frozen=True, slots=True)
class LoadedDiff:
    """One loaded diff of ``get_current_overview``."""

    file_path: str
    chunks: int
    files: int
    total_lines: int
    files_excluded: int
    total_token_count: int
    options: LoadOptions
    view_of: str | None = None  # the diff a view handle (``file_path``) shows

    def to_dict(self) -> dict[str, Any]:
        result = {
            "file_path": self.file_path,
            "chunks": self.chunks,
            "files": self.files,
            "total_lines": self.total_lines,
            "files_excluded": self.files_excluded,
            "total_token_count": self.total_token_count,
            "options": self.options.as_dict(),
        }
        if self.view_of is not None:
            result["view_of"] = self.view_of
        return result


@dataclass(frozen=True, slots=True)
class CurrentOverview:
    """``get_current_overview``: every diff loaded in this process."""

    loaded_diffs: tuple[LoadedDiff, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "loaded_diffs": [d.to_dict() for d in self.loaded_diffs],
            "total_sessions": len(self.loaded_diffs),
        }
