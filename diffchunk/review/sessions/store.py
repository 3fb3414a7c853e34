"""Loaded diffs, keyed by file identity and content, with bounded memory.

A session is the :class:`~diffchunk.diff.pipeline.Review` of one diff file's
content under one set of load options.  Its key is
``realpath + "#" + sha256(content)[:16]``.

Freshness without re-reading: every access stats the file (cheap) and compares
its :func:`~diffchunk.paths.fingerprint`.  An unchanged fingerprint means the
file is not read again; a changed one means it is read and hashed, and only a
new hash (or new options) rebuilds the review.  A file that vanished or became
a directory raises :class:`~diffchunk.errors.PathError`; stale chunks are never
served.

A view (:mod:`diffchunk.review.sessions.views`) is a session of its own, kept under
its handle's path: the diff's path keeps its default view meanwhile.  A view
of a diff whose default view is loaded and current shares that session's
buffer, digest and parse (when no context reduction stands between them).

Memory is bounded by a session count and a buffer byte total (environment
variables ``DIFFCHUNK_MAX_SESSIONS`` and ``DIFFCHUNK_MAX_SESSION_BYTES``);
least recently used sessions go first, never the one being returned.  A large
diff is not held in memory at all but mapped from a private copy (see
:mod:`diffchunk.diff.buffer`); the pages an access reads go back at the next one.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ... import settings
from ...diff.buffer import DiffBuffer, DiffData, map_copy, map_file, map_threshold, release
from ...diff.options import LoadOptions, Progress
from ...diff.pipeline import Review, build_review
from ...errors import FileToolError, PathError
from ...fdio import BackgroundHash
from ...git.cache import default_cache_dir, is_private_entry
from ...paths import Fingerprint, expand, fingerprint, resolve_regular_file
from .sidecar import attributes_for_diff
from .views import is_view_path, read_view

MAP_COPY_KEEP_FREE = 256 << 20
"""A private copy of a large diff must leave this much free space in the cache
directory; otherwise the diff is read into memory: the copy must not be what
fills a disk."""

THREADED_HASH_BYTES = 1 << 20
"""Below this size a diff is hashed in the loading thread: a second thread
costs more than the hashing it overlaps."""


logger = logging.getLogger(__name__)


def read_file(path: str) -> tuple[DiffData, Fingerprint]:
    """Read a whole regular file; the fingerprint is taken from the open descriptor.

    A file of :func:`~diffchunk.diff.buffer.map_threshold` bytes or more is
    mapped from a private copy in the cache directory (a
    :class:`~diffchunk.diff.buffer.DiffBuffer`, which knows its digest) when
    that directory can take it; otherwise, and for a smaller file, the content
    is read into memory.
    """
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        if st.st_size >= map_threshold():
            mapped = _map_copy(fh.fileno(), st.st_size, path)
            if mapped is not None:
                return mapped, fingerprint(st)
            fh.seek(0)
        data = fh.read()
    return data, fingerprint(st)


def _map_copy(fd: int, size: int, source: str) -> DiffBuffer | None:
    """The file ``source`` open at ``fd`` mapped from a private copy, or None (read it
    into memory) when the cache directory cannot take the copy (no home
    directory, not writable, too little free space, no mappings on this
    system...).  A diff of the git cache is mapped itself: its entries are
    written once and renamed into place, never rewritten."""
    directory: object = "the cache directory"
    try:
        directory = path = default_cache_dir()
        if is_private_entry(source, fd, path):
            return map_file(fd, size)
        path.mkdir(mode=0o700, parents=True, exist_ok=True)  # as the git cache makes it
        st = os.statvfs(path)
        if st.f_bavail * st.f_frsize < size + MAP_COPY_KEEP_FREE:
            raise OSError(errno.ENOSPC, f"less than {size + MAP_COPY_KEEP_FREE} bytes free")
        return map_copy(fd, size, str(path))
    except Exception as exc:
        logger.info("Reading the diff into memory: no private copy in %s (%s).", directory, exc)
        return None


def _unreadable(real: str, exc: OSError | FileToolError) -> PathError:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
    return PathError(
        f"The diff file {real!r} cannot be read: {reason}.",
        suggestion="Check that it still exists and is readable.",
    )


def _digest_of(real: str, data: DiffBuffer) -> str:
    """The digest of a mapped diff (its thread reads the copy: a read error is the file's)."""
    try:
        return data.digest
    except (OSError, FileToolError) as exc:
        raise _unreadable(real, exc) from None


@dataclass(eq=False)
class Session:
    """One loaded diff: the review plus what is needed to know it is fresh."""

    path: str  # realpath of the diff file
    digest: str  # sha256 hex of the file content
    fingerprint: Fingerprint
    review: Review
    attributes_fingerprint: Fingerprint | None = None
    loaded_at: float = field(default_factory=time.time)
    # Derived data computed once per session (listing entries and their sizes...).
    cache: dict[str, Any] = field(default_factory=dict)
    view: str | None = None  # the view handle this session serves (None: the diff's own)

    @property
    def key(self) -> str:
        return f"{self.path}#{self.digest[:16]}"

    @property
    def slot(self) -> str:
        """Where the store keeps it: the view handle, or the diff's own real path."""
        return self.view if self.view is not None else self.path

    @property
    def handle(self) -> str:
        """The path a caller names this view by (the handle, or the diff's path)."""
        return self.slot

    @property
    def options(self) -> LoadOptions:
        return self.review.options

    @property
    def size(self) -> int:
        return len(self.review.parsed.data)


def _attributes_fingerprint(options: LoadOptions) -> Fingerprint | None:
    if options.gitattributes_path is None:
        return None
    _, st = resolve_regular_file(options.gitattributes_path, what=".gitattributes file")
    return fingerprint(st)


class SessionStore:
    """Thread-safe map of loaded diffs (one session per diff file path)."""

    def __init__(
        self,
        max_sessions: int | None = None,
        max_bytes: int | None = None,
        *,
        reader: Callable[[str], tuple[DiffData, Fingerprint]] = read_file,
    ) -> None:
        self.max_sessions = (
            max_sessions if max_sessions is not None else settings.count("DIFFCHUNK_MAX_SESSIONS")
        )
        self.max_bytes = (
            max_bytes if max_bytes is not None else settings.count("DIFFCHUNK_MAX_SESSION_BYTES")
        )
        self._reader = reader
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, Session] = OrderedDict()  # realpath -> session, LRU
        # One lock per path being loaded, gone once no caller holds it (a
        # long-running server meets many paths).
        self._path_locks: weakref.WeakValueDictionary[str, threading.Lock] = (
            weakref.WeakValueDictionary()
        )

    # ------------------------------------------------------------------ access

    def get(
        self,
        path: str,
        options: LoadOptions | None = None,
        *,
        reload_options: bool = False,
        progress: Progress | None = None,
    ) -> Session:
        """The fresh session of the diff file ``path`` (loading it if needed).

        ``options=None`` reuses the loaded session's options (defaults on first
        load); ``reload_options=True`` makes ``options`` (or the defaults when
        None) authoritative even for an already-loaded file.  A view handle
        (:mod:`~diffchunk.review.sessions.views`) gives its own session, cut with the
        view's options (``options`` are then ignored).
        """
        view = None
        if is_view_path(path):
            try:
                view = read_view(path)
            except PathError:
                self.forget(path)
                raise
            path, options, reload_options = view.diff, view.options, True
        try:
            real, st = resolve_regular_file(path, what="diff file")
        except PathError:
            self.forget(path)
            raise
        fp = fingerprint(st)
        slot = view.handle if view is not None else real
        with self._lock:
            lock = self._path_locks.setdefault(slot, threading.Lock())
        # One load at a time per view of a file; other files proceed in parallel.
        with lock:
            current = self._peek(slot)
            wanted = self._wanted_options(current, options, reload_options)
            if current is not None and current.options == wanted:
                attr_fp = _attributes_fingerprint(wanted)
                if current.fingerprint == fp and current.attributes_fingerprint == attr_fp:
                    return self._touch(current)
            shared = self._peek(real) if view is not None else None
            if shared is not None and shared.fingerprint != fp:
                shared = None
            return self._load(
                real, current, wanted, progress, view=slot if view else None, shared=shared
            )

    def adopt(
        self,
        path: str,
        data: DiffData,
        digest: str,
        review: Review,
        identity: tuple[int, int] | None = None,
        view: str | None = None,
    ) -> Session | None:
        """Make ``review`` (built from ``data``) the session of the diff file ``path``
        (of its view handle ``view``, when given).

        For a file just written by the caller, whose content ``data`` and its
        sha256 ``digest`` are known: the file is not read again; the
        fingerprint comes from a ``stat`` of ``path`` now.  Returns ``None``
        (and keeps nothing) when the file's size does not match ``data``, or
        when ``identity`` (``(st_dev, st_ino)`` of the file the caller wrote)
        is not the file at ``path`` now (another writer replaced it).
        """
        real, st = resolve_regular_file(path, what="diff file")
        if st.st_size != len(data):
            return None
        if identity is not None and (st.st_dev, st.st_ino) != identity:
            return None
        session = Session(
            path=real,
            digest=digest,
            fingerprint=fingerprint(st),
            review=review,
            attributes_fingerprint=_attributes_fingerprint(review.options),
            view=view,
        )
        slot = session.slot
        with self._lock:
            lock = self._path_locks.setdefault(slot, threading.Lock())
        with lock, self._lock:
            self._sessions.pop(slot, None)
            self._sessions[slot] = session
            self._evict(keep=slot)
        return session

    def peek(self, path: str) -> Session | None:
        """The session of an already-loaded path, without any check (for tests)."""
        try:
            real = os.path.realpath(expand(path))
        except PathError:
            return None
        return self._peek(real)

    def sessions(self) -> list[Session]:
        """Every loaded session, most recently used last."""
        with self._lock:
            return list(self._sessions.values())

    def clear(self) -> None:
        with self._lock:
            self._sessions.clear()

    @property
    def total_bytes(self) -> int:
        with self._lock:
            return sum(s.size for s in self._sessions.values())

    # ---------------------------------------------------------------- internals

    @staticmethod
    def _wanted_options(
        current: Session | None, options: LoadOptions | None, reload_options: bool
    ) -> LoadOptions:
        if options is not None:
            return options
        if current is not None and not reload_options:
            return current.options
        return LoadOptions()

    def _peek(self, real: str) -> Session | None:
        with self._lock:
            return self._sessions.get(real)

    def _touch(self, session: Session) -> Session:
        # A mapped diff gives back the pages earlier calls read: a long-running
        # server keeps about one response's worth of each diff resident.
        release(session.review.parsed.data)
        with self._lock:
            if self._sessions.get(session.slot) is session:
                self._sessions.move_to_end(session.slot)
        return session

    def forget(self, path: str) -> None:
        """Drop the session of a path that is no longer a readable regular file (a
        diff's views go with it)."""
        try:
            real = os.path.realpath(expand(path))
        except PathError:
            return
        with self._lock:
            gone = [k for k, s in self._sessions.items() if k == real or s.path == real]
            for key in gone:
                del self._sessions[key]
        if gone:
            logger.info("Dropped the session of %s: the file is gone.", real)

    def _load(
        self,
        real: str,
        current: Session | None,
        options: LoadOptions,
        progress: Progress | None,
        *,
        view: str | None = None,
        shared: Session | None = None,
    ) -> Session:
        """Build the session of ``real`` (of its view ``view``) with ``options``;
        ``shared``: the diff's default session, current, whose buffer, digest and
        parse a view takes instead of reading the file again."""
        if shared is not None:
            return self._load_shared(real, options, progress, view, shared)
        if progress is not None:
            progress("reading", 0.0)
        try:
            data, fp = self._reader(real)
        except OSError as exc:
            self.forget(real)
            raise _unreadable(real, exc) from None
        attr_fp = _attributes_fingerprint(options)
        same_setup = (
            current is not None
            and current.options == options
            and current.attributes_fingerprint == attr_fp
        )
        hasher: BackgroundHash | None = None
        digest = ""
        if isinstance(data, DiffBuffer):
            if same_setup:  # its own thread hashes it (see DiffBuffer.digest)
                digest = _digest_of(real, data)
        elif same_setup or len(data) < THREADED_HASH_BYTES:
            digest = hashlib.sha256(data).hexdigest()
        else:
            # The review is built whatever the digest: hash while parsing
            # (hashlib lets other threads run while it hashes a large buffer).
            hasher = BackgroundHash.of_bytes(data)
        if current is not None and same_setup and current.digest == digest:
            # Touched (mtime changed) but same content: keep the review.
            current.fingerprint = fp
            return self._touch(current)
        started = time.perf_counter()
        try:
            # A diff generated from a repository carries its attributes in a sidecar.
            attributes = None if options.gitattributes_path else attributes_for_diff(real)
            review = build_review(data, options, attributes, progress=progress)
        except BaseException:
            # The file's new content cannot be served: drop what was loaded before.
            with self._lock:
                self._sessions.pop(view if view is not None else real, None)
            if isinstance(data, DiffBuffer):
                data.stop_digest()
            raise
        finally:
            if hasher is not None:
                digest = hasher.result()
        if isinstance(data, DiffBuffer) and not digest:
            digest = _digest_of(real, data)
        del data
        session = Session(
            path=real,
            digest=digest,
            fingerprint=fp,
            review=review,
            attributes_fingerprint=attr_fp,
            view=view,
        )
        logger.info(
            "Loaded %s: %d files, %d chunks in %.3fs.",
            session.slot,
            review.stats.total_files,
            review.stats.chunks_count,
            time.perf_counter() - started,
        )
        return self._keep(session)

    def _load_shared(
        self,
        real: str,
        options: LoadOptions,
        progress: Progress | None,
        view: str | None,
        shared: Session,
    ) -> Session:
        """A view built from the buffer (and, when no context reduction stands between
        them, the parse) of the diff's current default session."""
        data = shared.review.parsed.data
        parsed = shared.review.parsed if shared.options.context_lines is None else None
        attributes = None if options.gitattributes_path else attributes_for_diff(real)
        review = build_review(data, options, attributes, progress=progress, parsed=parsed)
        session = Session(
            path=real,
            digest=shared.digest,
            fingerprint=shared.fingerprint,
            review=review,
            attributes_fingerprint=_attributes_fingerprint(options),
            view=view,
        )
        return self._keep(session)

    def _keep(self, session: Session) -> Session:
        slot = session.slot
        with self._lock:
            self._sessions.pop(slot, None)
            self._sessions[slot] = session
            self._evict(keep=slot)
        return session

    def _evict(self, keep: str) -> None:
        """Drop least recently used sessions beyond the bounds (lock held).  A buffer that
        several sessions share (a diff and its views) counts once, and is freed only
        with the last of them."""
        holders: dict[int, int] = {}  # id of a diff's buffer -> sessions holding it
        total = 0
        for s in self._sessions.values():
            key = id(s.review.parsed.data)
            if key not in holders:
                total += s.size
            holders[key] = holders.get(key, 0) + 1
        for path in list(self._sessions):
            if len(self._sessions) <= self.max_sessions and total <= self.max_bytes:
                break
            if path == keep:
                continue
            dropped = self._sessions.pop(path)
            key = id(dropped.review.parsed.data)
            holders[key] -= 1
            if not holders[key]:
                total -= dropped.size
            logger.info("Evicted the session of %s to bound memory.", path)


_default_store: SessionStore | None = None
_default_lock = threading.Lock()


def default_store() -> SessionStore:
    """The process-wide store used by the CLI and the MCP server."""
    global _default_store
    with _default_lock:
        if _default_store is None:
            _default_store = SessionStore()
        return _default_store
