"""Review a repository range: write (or reuse) its diff, and load it like a diff file.

The application drives, git yields: :func:`load_git_range` resolves the
range, and unless the cache holds its diff already, starts ``git diff``
writing into a new cache entry (:mod:`diffchunk.git.diffwrite`), parses it
while git writes (:mod:`diffchunk.review.ranges.stream`), builds the review
while the entry is flushed to disk, commits the entry and makes the review
the file's session (the file is not read back).  The cached diff then goes
through the same session store as any diff file, with the repository's own
attributes recorded beside it (:mod:`diffchunk.review.sessions.sidecar`), so every
diff tool works on the returned ``file_path`` afterwards, in this process or
another.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...diff.options import LoadOptions, Progress
from ...diff.pipeline import Review, build_review
from ...errors import InvalidArgument
from ...git.cache import DiffCache
from ...git.diffwrite import DiffWriting, cache_name, nested_attributes_changed, start_diff
from ...git.pathspecs import check_paths
from ...git.repo import Repo, discover
from ...git.revisions import Kind, Mode, ResolvedRange, parse_range, range_refs, resolve_range
from ...log import LazyLogger
from ..record.continuity import BranchKey
from ..results import RangeSummary
from ..sessions.loading import load_diff
from ..sessions.sidecar import (
    SidecarAttributes,
    attributes_for_diff,
    drop_stale,
    range_of,
    record_range,
    recorded_attribute_files,
    sidecar_path,
    write_sidecar,
)
from ..sessions.store import SessionStore, default_store
from ..sessions.views import view_for
from . import early_start

if TYPE_CHECKING:
    from ..record.continuity import Overlap
    from .stream import StreamedDiff

_PROGRESS_EVERY = 0.1
"""Seconds between two reports of git diff's progress: often enough for a
progress bar, rarely enough not to flood an MCP client."""


logger = LazyLogger(__name__)  # see diffchunk.log


@dataclass(frozen=True)
class GitDiff:
    """A range's diff file in the cache, and what it shows.

    ``base``/``head`` are commit ids; ``head`` is ``None`` for the working
    tree or the index, ``base`` is ``None`` when the old side is the empty
    tree (root commit, repository without commits).  ``review``: the review
    built while git wrote the file (None when the cached file was reused).
    """

    diff_path: str
    repo_root: str
    base: str | None
    head: str | None
    range: str
    cached: bool
    mode: Mode = Mode.COMMITS
    repo: Repo | None = field(default=None, compare=False, repr=False)
    review: Review | None = field(default=None, compare=False, repr=False)
    paths: tuple[str, ...] = ()  # the paths the diff is limited to (none: all)

    @property
    def size(self) -> int:
        return os.stat(self.diff_path).st_size


def load_git_diff(
    absolute_repo_path: str,
    revision_range: str | None = "HEAD",
    staged: bool = False,
    options: LoadOptions | None = None,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    store: SessionStore | None = None,
    progress: Progress | None = None,
    paths: Sequence[str] | None = None,
    review_id: int | None = None,
) -> RangeSummary:
    """Load ``revision_range`` of the repository at ``absolute_repo_path``.

    Returns the ``load_diff`` summary (its ``file_path`` is the cached diff,
    usable with every other diff tool) with the range, its commits and
    whether the cached diff was reused.  ``paths`` limit the range to those
    files and directories (relative to the repository's top; see
    :mod:`diffchunk.git.pathspecs`): another cached diff, the same review.
    ``review_id``: the review this load continues (see
    :mod:`diffchunk.review.record.continuity`).
    """
    options = options if options is not None else LoadOptions()
    if options.gitattributes_path is not None:
        raise InvalidArgument(
            "gitattributes_path applies to diff files; a git range uses the repository's "
            "own .gitattributes.",
            suggestion="Leave it unset for a range.",
        )
    diff = load_git_range(
        absolute_repo_path,
        revision_range,
        staged,
        cache_dir=cache_dir,
        options=options,
        store=store,
        progress=progress,
        paths=paths,
    )
    # An adopted session is fresh: this neither reads nor parses the file again.  With
    # options other than the defaults, file_path is a view handle of the cached diff.
    summary = load_diff(diff.diff_path, options, store=store, progress=progress)
    overlaps = _record_load(diff, summary.file_path, revision_range, staged, store, review_id)
    return RangeSummary(
        summary,
        diff.repo_root,
        diff.range,
        diff.base,
        diff.head,
        diff.cached,
        paths=diff.paths,
        overlapping=tuple(o.to_dict() for o in overlaps),
    )


def _record_load(
    diff: GitDiff,
    handle: str,
    revision_range: str | None,
    staged: bool,
    store: SessionStore | None,
    review_id: int | None = None,
) -> list[Overlap]:
    """The review record notes this load: the review the range continues (by its commits,
    or its head's branch, or ``review_id``), its revision, and the cached diff as their
    handle (best effort; see :mod:`diffchunk.review.record`).  ``handle``: the path the
    load returned (the diff, or a view of it).  Returns the earlier reviews a new review
    overlaps."""
    if diff.repo is None:
        return []
    from ..record.side_writes import record_range_load  # the record loads with its first use

    branch = None
    if diff.head is not None and diff.mode is Mode.COMMITS:
        request = parse_range(revision_range, staged)
        base_ref, head_ref = range_refs(diff.repo, request)
        if head_ref is not None:
            # ``feature^!``: the branch's last commit against its parent N, whichever it is.
            base = f"^{request.parent}" if request.kind is Kind.PARENT else base_ref
            branch = BranchKey(request.kind.value, base or diff.base or "", head_ref)
    session = (store if store is not None else default_store()).get(handle)
    return record_range_load(
        session,
        common_dir=diff.repo.common_dir,
        repository_path=diff.repo_root,
        worktree=diff.repo.root or diff.repo.git_dir,
        revision_range=revision_range,
        staged=staged,
        base=diff.base,
        head=diff.head,
        paths=diff.paths or None,
        branch=branch,
        review_id=review_id,
    )


def load_git_range(
    repo_path: str,
    revision_range: str | None = "HEAD",
    staged: bool = False,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    options: LoadOptions | None = None,
    store: SessionStore | None = None,
    progress: Progress | None = None,
    paths: Sequence[str] | None = None,
) -> GitDiff:
    """The diff of ``revision_range`` in the repository at ``repo_path``, in the cache.

    ``revision_range`` follows :mod:`diffchunk.git.revisions` (``"HEAD"`` or
    ``None``: uncommitted changes).  When git runs, the review (``options``)
    is built while it writes and becomes the session of the new file in
    ``store`` (default: the process-wide one).  Raises ``GitError`` /
    ``RefusedRange``.  A review begun by
    :func:`~diffchunk.review.ranges.early_start.start_early` with the same arguments
    is taken over (none is begun for ``paths``).
    """
    request = parse_range(revision_range, staged)  # refuse bad text before touching git
    cache = DiffCache(cache_dir)
    if paths:
        early_start.discard()
        repo = discover(repo_path)
        limited = check_paths(repo, paths)
        return write_range(
            repo,
            resolve_range(repo, request),
            cache,
            options,
            store=store,
            progress=progress,
            paths=limited,
        )
    early = early_start.take((repo_path, revision_range, staged, cache.directory))
    if early is None:
        repo = discover(repo_path)
        return write_range(
            repo, resolve_range(repo, request), cache, options, store=store, progress=progress
        )
    try:
        return write_range(
            early.repo,
            early.resolved,
            cache,
            options,
            store=store,
            progress=progress,
            writing=early.writing,
            # No git started: the early start found the entry there and current.
            checked=early.writing is None,
        )
    except BaseException:
        if early.writing is not None:  # wherever it failed, git and the entry end here
            early.writing.stop()
        raise


def review_resolved(repo: Repo, resolved: ResolvedRange, cache: DiffCache) -> GitDiff:
    """The diff of an already resolved range, written (or reused) in ``cache``, its
    review built while git writes it and adopted as the file's session (default
    load options): a ``load_diff`` of ``diff_path`` then reads nothing again."""
    return write_range(repo, resolved, cache, None)


def recorded_range(diff_path: str) -> bool:
    """Whether the sidecar of a cached diff records the range it holds."""
    recorded = range_of(diff_path)
    return recorded is not None and recorded.has_base


def cached_entry_is_current(repo: Repo, diff_path: str) -> bool:
    """Whether a cached entry of a commit range may be reused: no nested
    ``.gitattributes`` changed since it was written (see the sidecar's record)."""
    return not nested_attributes_changed(repo, recorded_attribute_files(diff_path))


def write_range(
    repo: Repo,
    resolved: ResolvedRange,
    cache: DiffCache,
    options: LoadOptions | None,
    *,
    store: SessionStore | None = None,
    progress: Progress | None = None,
    writing: DiffWriting | None = None,
    checked: bool = False,
    paths: tuple[str, ...] = (),
) -> GitDiff:
    """The cached diff for ``resolved``, running ``git diff`` only when needed.

    ``writing``: that git diff, already started (early start); ``checked``:
    the early start found the entry there and current; ``paths``: checked
    paths that limit the diff.
    """
    name = cache_name(repo, resolved, paths)
    if resolved.is_commit_pair:
        hit = cache.lookup(name)
        if hit is not None and not checked and not cached_entry_is_current(repo, str(hit)):
            logger.debug("cached %s predates a .gitattributes change: written anew", hit)
            drop_stale(str(hit))
            hit = None
        if hit is not None:
            logger.debug("cache hit %s", hit)
            if writing is not None:
                writing.stop()
            if not os.path.exists(sidecar_path(str(hit))):
                _write_sidecar(repo, resolved, str(hit), paths)
            elif not recorded_range(str(hit)):
                record_range(str(hit), resolved.base, paths)  # a sidecar of an older version
            return _result(repo, resolved, str(hit), cached=True, paths=paths)
    if writing is None:
        writing = start_diff(repo, resolved, cache, name, paths)
    final = str(writing.entry.final)
    try:
        # The sidecar before the entry appears: whoever loads the new diff
        # then asks git for its attributes.
        _write_sidecar(repo, resolved, final, paths)
        from .stream import parse_while_written  # a cold load's: a warm one reads the cache

        streamed = parse_while_written(repo, resolved, writing, _git_progress(progress))
        # Built while the entry is flushed to disk (parse_while_written started it).
        review = _build(final, streamed, options or LoadOptions(), progress)
        path = writing.entry.commit()
    except BaseException:
        writing.stop()
        _drop_orphan_sidecar(final)
        raise
    wanted = options or LoadOptions()
    view = None if wanted == LoadOptions() else view_for(os.path.realpath(path), wanted)
    (store if store is not None else default_store()).adopt(
        str(path), streamed.parsed.data, streamed.digest, review, streamed.identity, view
    )
    return _result(repo, resolved, str(path), cached=False, review=review, paths=paths)


def _git_progress(progress: Progress | None) -> Callable[[int], None] | None:
    """A report of the bytes git has written, at most every :data:`_PROGRESS_EVERY` s."""
    if progress is None:
        return None
    last = [0.0]

    def report(written: int) -> None:
        now = time.monotonic()
        if now - last[0] >= _PROGRESS_EVERY:
            last[0] = now
            progress(f"running git diff ({written / 1e6:.1f} MB)", 0.0)

    return report


def _build(
    diff_path: str, streamed: StreamedDiff, options: LoadOptions, progress: Progress | None
) -> Review:
    """The review of a diff parsed while git wrote it to ``diff_path``."""
    source = streamed.attributes
    try:
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


def _drop_orphan_sidecar(diff_path: str) -> None:
    """After a failed write: the sidecar goes too, unless an older entry of that name
    (a working-tree diff written before) is still there and needs it."""
    if not os.path.exists(diff_path):
        with contextlib.suppress(OSError):
            os.unlink(sidecar_path(diff_path))


def _write_sidecar(
    repo: Repo, resolved: ResolvedRange, diff_path: str, paths: tuple[str, ...] = ()
) -> None:
    write_sidecar(
        diff_path,
        repo=repo.path,
        treeish=resolved.head,
        index=resolved.mode is Mode.INDEX,
        range_record={"base": resolved.base, "paths": list(paths)},
    )


def _result(
    repo: Repo,
    resolved: ResolvedRange,
    path: str,
    *,
    cached: bool,
    review: Review | None = None,
    paths: tuple[str, ...] = (),
) -> GitDiff:
    return GitDiff(
        diff_path=path,
        repo_root=repo.path,
        base=resolved.base,
        head=resolved.head,
        range=resolved.label,
        cached=cached,
        mode=resolved.mode,
        repo=repo,
        review=review,
        paths=paths,
    )
