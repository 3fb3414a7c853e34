"""Loading a diff file for the tools: its session, and what a load reports.

Every diff tool takes the diff file's absolute path and loads it on first use
(default options), so a caller never has to call :func:`load_diff` first; a
changed file is loaded again (see :mod:`diffchunk.review.sessions.store`).  A
large file whose head holds no diff is refused before it is read whole.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Iterator

from ...diff.lazy import LazySequence
from ...diff.model import Excluded
from ...diff.options import LoadOptions, Progress
from ...diff.parser import parse_diff
from ...diff.pipeline import Review
from ...diff.table import table_of
from ...errors import NotADiffError, PathError
from ...limits import SHORT_ID
from ...paths import fingerprint, resolve_regular_file
from ..results import ExcludedFile, LoadSummary
from .excluded import listed_part, summarise
from .store import Session, SessionStore, default_store
from .views import is_view_path, read_view, view_for

LOAD_EXCLUDED_LISTED = 50
"""Excluded files a load summary lists at most (within EXCLUDED_LISTED_CHARS
of JSON); its excluded_summary counts them all, list_chunks(excluded=True)
pages them."""

MAX_WARNINGS = 20
"""Parser warnings a load summary carries: a malformed diff can warn on every
section, and the first ones say what is wrong."""

SNIFF_ABOVE = 64 * 1024 * 1024
"""A diff file this large is only read whole once its first SNIFF_BYTES hold a
diff or a commit: a sparse 2 GB file that is not a diff was read whole."""

SNIFF_BYTES = 1024 * 1024
"""What is read of a large file to see that it is a diff: any diff has a
header within its first MiB."""

SNIFFED_KEPT = 64
"""Large files remembered as already seen to be diffs (by path and stat), so
that a reload does not read their head again."""


_sniffed: OrderedDict[tuple[str, tuple[int, int, int, int, int]], None] = OrderedDict()
_sniffed_lock = threading.Lock()


def store_of(store: SessionStore | None) -> SessionStore:
    """``store``, or the process-wide one."""
    return store if store is not None else default_store()


def _refuse_large_non_diff(path: str) -> None:
    """Refuse a large file whose head holds no diff, before reading all of it.

    (A 2 GB disk image or log would otherwise be read and parsed whole just to
    learn that it is not a diff.)
    """
    real, st = resolve_regular_file(path, what="diff file")
    if st.st_size < SNIFF_ABOVE:
        return
    key = (real, fingerprint(st))
    with _sniffed_lock:
        if key in _sniffed:
            return
    try:
        with open(real, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError as exc:
        raise PathError(
            f"The diff file {path!r} cannot be read: {exc.strerror or exc}.",
            suggestion="Check that it exists and is readable.",
        ) from None
    cut = head.rfind(b"\n") + 1
    try:
        parse_diff(head[:cut] if cut else head)
    except NotADiffError:
        raise NotADiffError(
            f"{path!r} ({st.st_size:,} bytes) does not look like a diff: its first "
            f"{SNIFF_BYTES // 1024} KiB hold no diff header ('diff --git', '--- a/file' + "
            "'+++ b/file', '@@ ... @@') and no commit; it was not read further.",
            suggestion="Pass the output of git diff, git log -p, git format-patch or diff -u.",
        ) from None
    with _sniffed_lock:
        _sniffed[key] = None
        while len(_sniffed) > SNIFFED_KEPT:
            _sniffed.popitem(last=False)


def checked(path: str, store: SessionStore | None) -> None:
    """Refuse a large non-diff early; a path that is gone also drops its session.
    A view handle is read first: the diff it names is the one checked."""
    try:
        _refuse_large_non_diff(read_view(path).diff if is_view_path(path) else path)
    except PathError:
        store_of(store).forget(path)
        raise


def session(path: str, store: SessionStore | None) -> Session:
    """The fresh session of the diff file ``path`` (loaded with its options, or the defaults)."""
    checked(path, store)
    return store_of(store).get(path)


def commit_label(review: Review, file_index: int) -> str | None:
    """The commit of a file section in a multi-commit stream (short sha or subject)."""
    parsed = review.parsed
    if len(parsed.commits) < 2 or not 0 <= file_index < len(parsed.files):
        return None
    commit = table_of(parsed.files, parsed.data).commit(file_index)
    if commit is None:
        return None
    info = parsed.commits[commit]
    return info.sha[:SHORT_ID] if info.sha else info.subject


def excluded_file(review: Review, ex: Excluded) -> ExcludedFile:
    return ExcludedFile(
        ex.path, ex.reason.value, ex.detail or None, commit_label(review, ex.file_index)
    )


class ExcludedView(LazySequence[ExcludedFile]):
    """A review's excluded files as the tools list them, each made when it is read (a
    diff may leave out a million vendored files)."""

    ITEM = "excluded file"
    __slots__ = ("_review",)

    def __init__(self, review: Review) -> None:
        self._review = review

    def __len__(self) -> int:
        return len(self._review.excluded)

    def _build(self, k: int) -> ExcludedFile:
        return excluded_file(self._review, self._review.excluded[k])

    def __iter__(self) -> Iterator[ExcludedFile]:
        review = self._review
        return (excluded_file(review, ex) for ex in review.excluded)


def load_summary(session: Session) -> LoadSummary:
    """The summary of a loaded diff: its counts, and the excluded files summarised (and
    listed up to :data:`LOAD_EXCLUDED_LISTED` within ``excluded.LISTED_CHARS``)."""
    review = session.review
    stats = review.stats
    every = ExcludedView(review)
    excluded = listed_part(every[:LOAD_EXCLUDED_LISTED])[0]
    return LoadSummary(
        chunks=stats.chunks_count,
        files=stats.total_files,
        total_lines=stats.total_lines,
        file_path=session.handle,
        files_excluded=stats.files_excluded,
        excluded=excluded,
        excluded_more=stats.files_excluded - len(excluded),
        warnings=tuple(review.parsed.warnings[:MAX_WARNINGS]),
        excluded_summary=summarise(every),
    )


def load_diff(
    absolute_file_path: str,
    options: LoadOptions | None = None,
    *,
    store: SessionStore | None = None,
    progress: Progress | None = None,
) -> LoadSummary:
    """Load a diff file (cut with ``options``, default: the defaults); return its summary.

    The diff's own path serves its default view: with other options the
    summary's ``file_path`` is a view handle (:mod:`~diffchunk.review.sessions.views`)
    that the other tools take in its place, and the default view stays as it
    was.  ``absolute_file_path`` may itself be a view handle: with the default
    options that view is loaded, with others a view of its diff.  A
    ``gitattributes_path`` is checked and taken as its real path.
    """
    if options is None or options == LoadOptions():
        if is_view_path(absolute_file_path):
            checked(absolute_file_path, store)
            return load_summary(store_of(store).get(absolute_file_path, progress=progress))
        options = LoadOptions()
    elif is_view_path(absolute_file_path):
        absolute_file_path = read_view(absolute_file_path).diff
    attrs = options.gitattributes_path
    if attrs is not None and not attrs.strip():
        options = dataclasses.replace(options, gitattributes_path=None)
    elif attrs is not None:
        real, _ = resolve_regular_file(attrs, what=".gitattributes file")
        options = dataclasses.replace(options, gitattributes_path=real)
    checked(absolute_file_path, store)
    target = absolute_file_path
    if options != LoadOptions():
        real, _ = resolve_regular_file(absolute_file_path, what="diff file")
        target = view_for(real, options)
    loaded = store_of(store).get(target, options, reload_options=True, progress=progress)
    return load_summary(loaded)
