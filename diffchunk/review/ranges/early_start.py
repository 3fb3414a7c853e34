"""Start a range review's ``git diff`` before the command line has loaded.

``git diff`` spends its first 100 ms or more on the tree diff and the
renames before it writes anything.  ``diffchunk review RANGE`` calls
:func:`start_early` from the console script, before click and the pipeline
load, so git's start overlaps theirs; the review's
:func:`~diffchunk.review.ranges.load.load_git_range` with the same arguments
takes it over (:func:`take`).  Whatever is not taken is stopped (its
temporary file removed) at exit.
"""

from __future__ import annotations

import atexit
from pathlib import Path
from typing import NamedTuple

from ...git.cache import DiffCache
from ...git.diffwrite import DiffWriting, cache_name, nested_attributes_changed, start_diff
from ...git.repo import Repo, discover
from ...git.revisions import ResolvedRange, parse_range, resolve_range
from ...log import LazyLogger
from ..sessions.sidecar import drop_stale, recorded_attribute_files

logger = LazyLogger(__name__)  # see diffchunk.log

Key = tuple[str, "str | None", bool, Path]


class Early(NamedTuple):
    """A review begun by :func:`start_early`, waiting for its load."""

    key: Key
    repo: Repo
    resolved: ResolvedRange
    writing: DiffWriting | None  # None: the cache holds the diff, current


_early: list[Early] = []


def start_early(repo_path: str, revision_range: str | None, staged: bool) -> None:
    """Begin the review of ``revision_range`` in ``repo_path`` now (default cache).

    The range is resolved and, unless the cache already holds its diff and
    that diff is current, ``git diff`` starts, writing into a temporary file
    of the cache.  Failures are left for the load to meet and report (it
    starts over): this raises only what interrupts it (``KeyboardInterrupt``,
    or the ``SystemExit`` of a termination signal, see :mod:`diffchunk.console`).
    """
    discard()
    writing: DiffWriting | None = None
    try:
        request = parse_range(revision_range, staged)
        repo = discover(repo_path)
        resolved = resolve_range(repo, request)
        cache = DiffCache()
        name = cache_name(repo, resolved)
        reusable = resolved.is_commit_pair and cache.holds(name)
        if reusable:
            entry = str(cache.path_for(name))
            if nested_attributes_changed(repo, recorded_attribute_files(entry)):
                drop_stale(entry)
                reusable = False
        if not reusable:
            writing = start_diff(repo, resolved, cache, name)
        key = (repo_path, revision_range, staged, cache.directory)
        _early.append(Early(key, repo, resolved, writing))
    except Exception as exc:
        logger.debug("no early start: %s", exc)
        if writing is not None:
            writing.stop()
        return
    except BaseException:
        if writing is not None:
            writing.stop()
        raise
    if len(_early) == 1:
        atexit.register(discard)


def take(key: Key) -> Early | None:
    """The early review of ``key`` (``(repo_path, range, staged, cache directory)``),
    or None; an early review of another key is stopped."""
    if not _early:
        return None
    early = _early.pop()
    if early.key == key:
        return early
    if early.writing is not None:
        early.writing.stop()
    return None


def discard() -> None:
    """Stop every early review not taken."""
    while _early:
        early = _early.pop()
        if early.writing is not None:
            early.writing.stop()
