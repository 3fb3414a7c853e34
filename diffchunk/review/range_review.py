"""Review a repository range: generate (or reuse) its diff, then load it like a diff file.

The cached diff goes through the same session store and pipeline as any diff
file, with the repository's own attributes (see :mod:`diffchunk.git.sidecar`),
so every diff tool works on the returned ``file_path`` afterwards.  When git
runs, the diff is parsed while it is written and the resulting review is
adopted as the file's session (the file is not read back).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..diff.options import LoadOptions, Progress
from ..git.source import GitDiff, StreamedDiff, load_git_range, write_diff
from .sidecar import SidecarAttributes, attributes_for_diff

if TYPE_CHECKING:
    from ..diff.pipeline import Review
    from ..git.cache import DiffCache
    from ..git.repo import Repo
    from ..git.revisions import ResolvedRange
    from .sessions import SessionStore


# Seconds between two reports of git diff's progress.
_PROGRESS_EVERY = 0.1


def _git_progress(progress: Progress | None) -> Callable[[int], None] | None:
    if progress is None:
        return None
    last = [0.0]

    def report(written: int) -> None:
        now = time.monotonic()
        if now - last[0] >= _PROGRESS_EVERY:
            last[0] = now
            progress(f"running git diff ({written / 1e6:.1f} MB)", 0.0)

    return report


def load_git_diff(
    absolute_repo_path: str,
    revision_range: str | None = "HEAD",
    staged: bool = False,
    max_chunk_lines: int = 1000,
    skip_trivial: bool = True,
    skip_generated: bool = True,
    include_patterns: str | None = None,
    exclude_patterns: str | None = None,
    context_lines: int | None = None,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    store: SessionStore | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Load ``revision_range`` of the repository at ``absolute_repo_path``.

    Returns the ``load_diff`` summary (``chunks``, ``files``, ``total_lines``,
    ``file_path`` — the cached diff, usable with every other diff tool —,
    ``files_excluded``, ``excluded``) plus ``repo``, ``range``, ``base``,
    ``head`` (commit ids; ``head`` is ``None`` for the working tree or index)
    and ``cached`` (the diff was reused without running git).
    """
    # Validate the load options before running git.
    options = LoadOptions(
        max_chunk_lines=max_chunk_lines,
        skip_trivial=skip_trivial,
        skip_generated=skip_generated,
        include_patterns=include_patterns,
        exclude_patterns=exclude_patterns,
        context_lines=context_lines,
    )
    diff = load_git_range(
        absolute_repo_path,
        revision_range,
        staged,
        cache_dir=cache_dir,
        progress=_git_progress(progress),
        parse=True,
        while_git_starts=_load_pipeline,
        # Built while the new cache entry is flushed to disk.
        while_writing=lambda diff_path, streamed: _build(diff_path, streamed, options, progress),
    )
    if diff.streamed is not None:
        _adopt(diff, diff.streamed, store)
    # Not at the top: loading the pipeline must not delay git's start (when git
    # runs, _load_pipeline has loaded it while git started).
    from . import diff_tools

    # An adopted session is fresh: this neither reads nor parses the file again.
    summary = diff_tools.load_diff(
        diff.diff_path,
        max_chunk_lines=max_chunk_lines,
        skip_trivial=skip_trivial,
        skip_generated=skip_generated,
        include_patterns=include_patterns,
        exclude_patterns=exclude_patterns,
        context_lines=context_lines,
        store=store,
        progress=progress,
    )
    _record_load(diff, revision_range, staged, store)
    return with_range(summary, diff)


def _record_load(
    diff: GitDiff, revision_range: str | None, staged: bool, store: SessionStore | None
) -> None:
    """The review record notes this load: the review of the range as given, its revision,
    and the cached diff as their handle (best effort; see :mod:`diffchunk.review.record`)."""
    from .record.service import record_range_load
    from .sessions import default_store

    if diff.repo is None:
        return
    session = (store if store is not None else default_store()).get(diff.diff_path)
    record_range_load(
        session,
        common_dir=diff.repo.common_dir,
        repository_path=diff.repo_root,
        worktree=diff.repo.root or diff.repo.git_dir,
        revision_range=revision_range,
        staged=staged,
        base=diff.base,
        head=diff.head,
    )


def review_resolved(repo: Repo, resolved: ResolvedRange, cache: DiffCache) -> GitDiff:
    """The diff of an already resolved range, written (or reused) in ``cache``, its
    review built while git writes it and adopted as the file's session (default
    load options): a ``load_diff`` of ``diff_path`` then reads nothing again."""
    options = LoadOptions()
    diff = write_diff(
        repo,
        resolved,
        cache=cache,
        parse=True,
        while_writing=lambda diff_path, streamed: _build(diff_path, streamed, options, None),
    )
    if diff.streamed is not None:
        _adopt(diff, diff.streamed, None)
    return diff


def _load_pipeline() -> None:
    """Import what builds and serves the review while git starts, not after it ends."""
    from . import diff_tools  # noqa: F401 (with the pipeline and the session store)


def _build(
    diff_path: str, streamed: StreamedDiff, options: LoadOptions, progress: Progress | None
) -> Review:
    """The review of a diff parsed while git wrote it to ``diff_path``."""
    source = streamed.attributes
    try:
        # Here rather than at the top: see load_git_diff.  Inside the try, so
        # that git check-attr is stopped whatever happens.
        from ..diff.pipeline import build_review

        attributes = attributes_for_diff(diff_path, source, streamed.attribute_files)
        parsed = streamed.parsed
        review = build_review(
            parsed.data,
            options,
            attributes,
            progress,
            parsed=parsed,
            prescreen=streamed.prescreen,
        )
        if isinstance(attributes, SidecarAttributes):
            attributes.record_files()  # when no path was looked up
        return review
    finally:
        if source is not None:
            source.close()


def _adopt(diff: GitDiff, streamed: StreamedDiff, store: SessionStore | None) -> None:
    """Make the review built while the diff was written the file's session."""
    from ..diff.pipeline import Review
    from .sessions import default_store

    review = streamed.built
    assert isinstance(review, Review)
    (store if store is not None else default_store()).adopt(
        diff.diff_path, streamed.parsed.data, streamed.digest, review, streamed.identity
    )


def with_range(summary: dict[str, Any], diff: GitDiff) -> dict[str, Any]:
    """``summary`` plus what the range was."""
    result = dict(summary)
    result["repo"] = diff.repo_root
    result["range"] = diff.range
    result["base"] = diff.base
    result["head"] = diff.head
    result["cached"] = diff.cached
    return result
