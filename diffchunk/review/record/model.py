"""The review record's values: what a review is and its revisions, with the names of
its states, severities and sides (defined once; the CLI, the tools and the
exports take them from here).  What the record's tools return is in
:mod:`.results`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SEVERITIES = ("blocker", "major", "minor", "nit", "question")  # most serious first
STATUSES = ("open", "resolved", "dismissed")
ALL_STATUSES = (*STATUSES, "outdated")  # outdated: set by incremental review
SIDES = ("new", "old")
FILE_STATES = ("reviewed", "seen", "unseen", "changed", "excluded")
COMMITS_PREFIX = "commits:"


@dataclass(frozen=True, slots=True)
class ReviewSource:
    """What a review is of: a repository and a range as given, or a diff file.

    ``repository`` is the repository's common dir (real path: the identity),
    ``repository_path`` the directory that names it to a user (work tree, or
    the git dir of a bare repository).  ``range`` is normalised:
    ``commits:<text>``, ``worktree:<rev>`` or ``index:<rev>``; ``worktree``
    is the work tree of a working-tree or index range (two linked work trees
    have different uncommitted changes), None for commits.
    """

    kind: str  # "git" | "file"
    repository: str | None = None
    repository_path: str | None = None
    range: str | None = None
    worktree: str | None = None
    diff_file: str | None = None

    @property
    def identity(self) -> str:
        if self.kind == "file":
            return f"file\0{self.diff_file}"
        parts = ["git", self.repository or "", self.range or ""]
        if self.worktree is not None:
            parts.append(self.worktree)
        return "\0".join(parts)

    @property
    def shown_range(self) -> str | None:
        """The range as a user wrote it (``main..feature``), or ``worktree:HEAD`` /
        ``index:HEAD`` for the working tree and the index."""
        if self.range is not None and self.range.startswith(COMMITS_PREFIX):
            return self.range[len(COMMITS_PREFIX) :]
        return self.range

    @property
    def label(self) -> str:
        """A short description for people (``main..feature in /src/project``)."""
        if self.kind == "file":
            return str(self.diff_file)
        return f"{self.shown_range} in {self.repository_path}"


@dataclass(frozen=True, slots=True)
class RecordedReview:
    id: int
    source: ReviewSource
    created_at: str

    @classmethod
    def of_row(cls, row: Mapping[str, Any]) -> RecordedReview:
        """The review a row of the table ``reviews`` holds."""
        return cls(
            id=int(row["id"]),
            source=ReviewSource(
                kind=row["kind"],
                repository=row["repository"],
                repository_path=row["repository_path"],
                range=row["range"],
                worktree=row["worktree"],
                diff_file=row["diff_file"],
            ),
            created_at=row["created_at"],
        )


@dataclass(frozen=True, slots=True)
class Revision:
    """A review at one load: base/head commits (git) and the diff text's sha256;
    ``paths``: those the range was limited to (None: the whole range)."""

    id: int
    review_id: int
    base: str | None
    head: str | None
    sha256: str
    loaded_at: str
    paths: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "id": self.id,
            "base": self.base,
            "head": self.head,
            "sha256": self.sha256,
            "loaded_at": self.loaded_at,
        }
        if self.paths is not None:
            result["paths"] = list(self.paths)
        return result


def review_dict(review: RecordedReview, revision: Revision) -> dict[str, Any]:
    """``{"id", "source", "revision"}`` as the status and the export document show it."""
    src = review.source
    if src.kind == "git":
        source: dict[str, Any] = {
            "kind": "git",
            "repository": src.repository_path,
            "range": src.shown_range,
            "base": revision.base,
            "head": revision.head,
        }
    else:
        source = {"kind": "file", "diff_file": src.diff_file, "sha256": revision.sha256}
    return {"id": review.id, "source": source, "revision": revision.to_dict()}
