"""The files left out of the chunks: counted by reason and top directory, listed in pages.

A listing (``list_chunks``) or a load summary carries the excluded files'
*summary* (:class:`ExcludedSummary`: how many, by reason, by top directory)
and lists the files themselves only as far as :data:`LISTED_CHARS` of JSON
reach: a diff with thousands of vendored files must not fill a page with
their paths.  The whole list is paged on request
(``list_chunks(..., excluded=True)``, :func:`list_excluded`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..results import ExcludedFile, ExcludedSummary

LISTED_CHARS = 2_000
"""Excluded files listed beside the chunks, in characters of JSON (about 20
entries): the summary counts them all; ``excluded=True`` pages the whole list."""

SUMMARY_DIRS = 10
"""Top directories named in a summary of excluded files (the rest are counted
together): a release range excludes thousands of files in a few trees."""


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def top_directory(path: str) -> str:
    """The first component of ``path`` (``"."`` for a file at the top)."""
    head, sep, _ = path.partition("/")
    return head if sep else "."


def summarise(excluded: Sequence[ExcludedFile]) -> ExcludedSummary | None:
    """The summary of ``excluded`` (None when nothing was left out)."""
    if not excluded:
        return None
    reasons = Counter(ex.reason for ex in excluded)
    dirs = Counter(top_directory(ex.path) for ex in excluded)
    named = dirs.most_common(SUMMARY_DIRS)
    return ExcludedSummary(
        total=len(excluded),
        by_reason=tuple(reasons.most_common()),
        by_dir=tuple(named),
        other_dirs=len(excluded) - sum(n for _, n in named),
    )


def listed_part(
    excluded: Sequence[ExcludedFile], room: int = LISTED_CHARS
) -> tuple[tuple[ExcludedFile, ...], bool]:
    """The excluded files that fit in ``room`` characters of JSON, and whether any is left out."""
    kept: list[ExcludedFile] = []
    used = 0
    for item in excluded:
        size = _size(item.to_dict()) + 2
        if used + size > room:
            return tuple(kept), True
        kept.append(item)
        used += size
    return tuple(kept), False


@dataclass(frozen=True, slots=True)
class ExcludedListing:
    """One page of ``list_chunks(..., excluded=True)``: excluded files with their reasons."""

    excluded: tuple[ExcludedFile, ...]
    excluded_total: int
    summary: ExcludedSummary | None
    next_offset: int | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "excluded": [ex.to_dict() for ex in self.excluded],
            "excluded_total": self.excluded_total,
        }
        if self.summary is not None:
            result["excluded_summary"] = self.summary.to_dict()
        if self.next_offset is not None:
            result["next_offset"] = self.next_offset
        return result


def excluded_page(
    excluded: Sequence[ExcludedFile],
    summary: ExcludedSummary | None,
    offset: int,
    limit: int | None,
    budget: int | None,
) -> ExcludedListing:
    """Excluded files from ``offset``: at most ``limit``, within ``budget`` characters of JSON
    (None: no bound)."""
    total = len(excluded)
    end = total if limit is None else min(total, offset + limit)
    head = ExcludedListing((), total, summary, next_offset=total)
    used = _size(head.to_dict())
    page: list[ExcludedFile] = []
    stop = offset
    while stop < end:
        size = _size(excluded[stop].to_dict()) + 2
        if budget is not None and page and used + size > budget:
            break
        page.append(excluded[stop])
        used += size
        stop += 1
    return ExcludedListing(tuple(page), total, summary, stop if stop < total else None)
