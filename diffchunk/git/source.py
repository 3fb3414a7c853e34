"""Turn a repository range into a diff file on disk.

``git diff`` writes straight into a cache file (never through Python memory);
for a review (``parse=True``) that file is also read in blocks as it grows,
each hashed and parsed while git still runs.
A range between two commits is content-addressed: its cache name comes from
the repository, both commit ids and :data:`DIFF_OPTIONS_VERSION`, so a second
review of the same range reuses the file without running ``git diff``.
Working-tree and index diffs change under our feet and are regenerated on
every load (into a fixed name per work tree, mode and base commit).

Diff options (:data:`DIFF_OPTIONS`): no colour, no external diff, no textconv,
``a/``/``b/`` prefixes whatever the config says, rename detection with a
rename limit of 100000, three context lines, the default algorithm, no
order file, submodules as ``Subproject commit`` lines without looking inside
their working trees.  Binary files appear as ``Binary files ... differ`` with a
``--full-index`` index line rather than as ``--binary`` payloads: a review
has no use for base85 data (which can be larger than the rest of the diff),
and with full object ids ``git apply`` still applies such a section inside
the repository, since it finds the new blob in the object store.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..errors import GitError
from ..log import LazyLogger
from ..paths import fingerprint
from ..review.sidecar import recorded_attribute_files, sidecar_path, write_sidecar
from .cache import DiffCache, PendingEntry
from .repo import Repo, discover
from .revisions import Mode, ResolvedRange, parse_range, resolve_range
from .runner import GitStream

if TYPE_CHECKING:
    from ..diff.buffer import DiffBuffer
    from ..diff.filters import Prescreen
    from ..diff.model import FileDiff, ParsedDiff
    from .attributes import CommitIndex, StreamedCheckAttr

logger = LazyLogger(__name__)  # see diffchunk.log

DIFF_OPTIONS: tuple[str, ...] = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    "--no-relative",
    "--full-index",
    "--find-renames",
    "-l100000",
    "--unified=3",
    "--inter-hunk-context=0",
    "--diff-algorithm=myers",
    "--indent-heuristic",
    f"-O{os.devnull}",
    "--submodule=short",
    "--ignore-submodules=dirty",
)
# The largest block of git's output handed to the parser at once (when git
# is ahead; otherwise what it has written so far).
STREAM_BLOCK = 1 << 18
# File times come from a coarse clock (at most a tick, 10 ms at HZ=100, behind
# the wall clock).
_CLOCK_MARGIN_NS = 20_000_000
# The record of an attribute file (or of the directory that lost one) changed
# while git ran: git may have read either version, so a reuse writes anew.
_CHANGED_MEANWHILE = "changed while the diff was written"
# Bump whenever DIFF_OPTIONS (or anything else that shapes the output) changes.
DIFF_OPTIONS_VERSION = 1
# The attributes asked of git while a diff is parsed: those the review reads
# (diffchunk.diff.attributes.WANTED, which this layer may not import; a test
# keeps the two equal).
ATTRIBUTES = ("linguist-generated", "linguist-vendored", "diff", "binary")


class StreamedDiff(NamedTuple):
    """What was learnt while ``git diff`` wrote a diff file: its parse and sha256.

    ``parsed.data`` is the file's content.  ``attributes`` already holds (or
    is computing) the attributes of every parsed path, as of the head commit
    (or the index / working tree); whoever takes it calls its ``close()``.
    ``prescreen`` holds the filter's verdicts for the files parsed early.
    ``attribute_files``: the nested ``.gitattributes`` as git diff found them
    (see :func:`_record_nested_attributes`), for the sidecar.  ``built``:
    what ``while_writing`` made of it (see :func:`load_git_range`).
    """

    parsed: ParsedDiff
    digest: str
    attributes: StreamedCheckAttr | None = None
    prescreen: Prescreen | None = None
    attribute_files: dict[str, str] | None = None
    built: object = None
    # (st_dev, st_ino) of the entry written: a writer of the same entry at once
    # may rename its own over it (see SessionStore.adopt).
    identity: tuple[int, int] | None = None


# ``while_writing(diff_path, streamed)``: see load_git_range.
WhileWriting = Callable[[str, StreamedDiff], object]


class GitDiff(NamedTuple):
    """A generated diff file and what it shows.

    ``base``/``head`` are commit ids; ``head`` is ``None`` for the working
    tree or the index, ``base`` is ``None`` when the old side is the empty
    tree (root commit, repository without commits).
    """

    diff_path: str
    repo_root: str
    base: str | None
    head: str | None
    range: str
    cached: bool
    mode: Mode = Mode.COMMITS
    repo: Repo | None = None
    # Set when ``load_git_range(..., parse=True)`` ran git (not on a cache hit).
    streamed: StreamedDiff | None = None

    @property
    def size(self) -> int:
        return os.stat(self.diff_path).st_size

    # ``repo`` and ``streamed`` (the whole parse) are left out of the text,
    # the comparison and the hash, as the fields that say what the diff is.
    def _key(self) -> tuple[object, ...]:
        return self[:7]

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}" for name, value in zip(self._fields[:7], self._key(), strict=True)
        )
        return f"GitDiff({shown})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GitDiff):
            return NotImplemented
        return self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._key())


def load_git_range(
    repo_path: str,
    revision_range: str | None = "HEAD",
    staged: bool = False,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[int], None] | None = None,
    parse: bool = False,
    while_git_starts: Callable[[], None] | None = None,
    while_writing: WhileWriting | None = None,
) -> GitDiff:
    """Write the diff of ``revision_range`` in the repository at ``repo_path`` to the cache.

    ``revision_range`` follows :mod:`diffchunk.git.revisions` (``"HEAD"`` or
    ``None``: uncommitted changes).  ``progress`` receives the number of
    bytes written so far while git runs.  Raises ``GitError``/``RefusedRange``.
    With ``parse``, a diff that git writes is also parsed and hashed while it
    arrives (see :attr:`GitDiff.streamed`), and ``while_git_starts()`` runs
    once git diff has started, before its output is read (git spends a while
    on the tree diff and the renames before it writes anything).
    ``while_writing(diff_path, streamed)`` runs once git has ended, while the
    new entry is flushed to disk (before it appears at ``diff_path``); what
    it returns is ``streamed.built``.  If it fails, the entry is dropped.
    """
    request = parse_range(revision_range, staged)  # refuse bad text before touching git
    cache = DiffCache(cache_dir)
    early = _take_early((repo_path, revision_range, staged, cache.directory)) if parse else None
    if early is None:
        repo = discover(repo_path)
        resolved = resolve_range(repo, request)
        return write_diff(
            repo,
            resolved,
            cache=cache,
            progress=progress,
            parse=parse,
            while_git_starts=while_git_starts,
            while_writing=while_writing,
        )
    try:
        return write_diff(
            early.repo,
            early.resolved,
            cache=cache,
            progress=progress,
            parse=True,
            writing=early.writing,
            while_git_starts=while_git_starts,
            while_writing=while_writing,
            # No git started: the early start found the entry there and current.
            checked=early.writing is None,
        )
    except BaseException:
        if early.writing is not None:  # wherever it failed, git and the entry end here
            early.writing.stop()
        raise


class _Writing(NamedTuple):
    """``git diff`` started, writing into a new cache entry."""

    entry: PendingEntry
    stream: GitStream
    # Wall clock just before git started, less a margin for the coarse clock
    # of file times: a file changed since may or may not be what git read.
    since_ns: int = 0

    def stop(self) -> None:
        """Stop git and drop the entry (again: nothing more happens)."""
        try:
            self.stream.kill()
        finally:
            self.entry.abort()


def _start_writing(repo: Repo, resolved: ResolvedRange, cache: DiffCache, name: str) -> _Writing:
    entry = cache.begin(name)
    since_ns = time.time_ns() - _CLOCK_MARGIN_NS
    try:
        args = ["diff", *DIFF_OPTIONS, *resolved.diff_args(), "--"]
        stream = repo.git.start_into(args, entry.fd, block_size=STREAM_BLOCK, what="git diff")
    except BaseException:
        entry.abort()
        raise
    return _Writing(entry, stream, since_ns)


class _Early(NamedTuple):
    """A review begun by :func:`start_early`, waiting for its load."""

    key: tuple[str, str | None, bool, Path]
    repo: Repo
    resolved: ResolvedRange
    writing: _Writing | None  # None: the cache holds the diff


_early: list[_Early] = []


def start_early(repo_path: str, revision_range: str | None, staged: bool) -> None:
    """Begin ``load_git_range(repo_path, revision_range, staged, parse=True)`` now.

    The range is resolved and, unless the default cache already holds its
    diff, ``git diff`` starts, writing into a temporary file of the cache.
    The command line calls this before it loads its own modules, so git's
    start overlaps theirs.  The next ``load_git_range`` with the same
    arguments (and cache directory) takes it over; a different one does not,
    and whatever is not taken is stopped (its temporary file removed) at
    exit.  Failures are left for that load to meet and report (it starts
    over): this raises only what interrupts it (``KeyboardInterrupt``, or
    the ``SystemExit`` of a termination signal, see :mod:`diffchunk.console`).
    """
    _discard_early()
    writing: _Writing | None = None
    try:
        request = parse_range(revision_range, staged)
        repo = discover(repo_path)
        resolved = resolve_range(repo, request)
        cache = DiffCache()
        name = cache_name(repo, resolved)
        reusable = resolved.is_commit_pair and cache.holds(name)
        if reusable and attributes_changed_since(repo, str(cache.path_for(name))):
            _drop_stale(str(cache.path_for(name)))
            reusable = False
        if not reusable:
            writing = _start_writing(repo, resolved, cache, name)
        key = (repo_path, revision_range, staged, cache.directory)
        _early.append(_Early(key, repo, resolved, writing))
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
        atexit.register(_discard_early)


def _take_early(key: tuple[str, str | None, bool, Path]) -> _Early | None:
    if not _early:
        return None
    early = _early.pop()
    if early.key == key:
        return early
    if early.writing is not None:
        early.writing.stop()
    return None


def _discard_early() -> None:
    while _early:
        early = _early.pop()
        if early.writing is not None:
            early.writing.stop()


def cache_name(repo: Repo, resolved: ResolvedRange) -> str:
    """The cache entry name for ``resolved`` in ``repo``."""
    repo_key = hashlib.sha256(repo.common_dir.encode("utf-8", "surrogateescape")).hexdigest()
    if not resolved.is_commit_pair:
        # one name per work tree, mode and base: a review against another
        # commit never rewrites the file a session of this one reads
        identity = f"{repo.git_dir}\0{resolved.old}".encode("utf-8", "surrogateescape")
        worktree = hashlib.sha256(identity).hexdigest()
        return f"{resolved.mode.value}-{worktree[:16]}"
    assert resolved.head is not None
    parts = (repo_key, resolved.old, resolved.head, str(DIFF_OPTIONS_VERSION), *_shaping(repo))
    key = hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()
    base = resolved.base[:12] if resolved.base else "root"
    return f"{base}..{resolved.head[:12]}-{key[:16]}"


def _shaping(repo: Repo) -> tuple[str, ...]:
    """What besides the two commits shapes ``git diff A B``'s text, for the cache key.

    The config of diff drivers (hunk-header function names, binary) and of
    ``core.bigFileThreshold``, and the attribute files git reads besides the
    commits (which files are binary, which driver applies): the system, global
    and ``info/attributes`` files and the top ``.gitattributes`` of the work
    tree, each by its stat.  A change of any of them makes a new entry.
    (``.gitattributes`` files in subdirectories: see
    :func:`attributes_changed_since`.)
    """
    config = repo.diff_config.decode("utf-8", "surrogateescape")
    configured = ""
    for item in config.split("\0"):
        key, _, value = item.partition("\n")
        if key == "core.attributesfile":
            configured = value
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    files = [
        "/etc/gitattributes",
        os.path.expanduser(configured) if configured else os.path.join(xdg, "git", "attributes"),
        os.path.join(repo.common_dir, "info", "attributes"),
    ]
    if repo.root is not None:
        files.append(os.path.join(repo.root, ".gitattributes"))
    return (config, *map(_stat_key, files))


def attributes_changed_since(repo: Repo, diff_path: str) -> bool:
    """Whether a ``.gitattributes`` in a directory of the cached diff's paths is
    not what it was when the diff was written (see :func:`_record_nested_attributes`):
    created, changed or deleted, or not known (no record).  ``git diff`` reads
    them from the work tree; the top one and the other attribute files are in
    the cache key already.
    """
    if repo.root is None:
        return False
    recorded = recorded_attribute_files(diff_path)
    if recorded is None:  # not known (written by an older version, or unrecorded)
        return True
    for directory, key in recorded.items():
        if _stat_key(os.path.join(repo.root, directory, ".gitattributes")) != key:
            return True
    return False


def _stat_key(path: str) -> str:
    """:func:`~diffchunk.paths.fingerprint` of ``path`` as text (``-``: no such file)."""
    try:
        return _key_of(os.stat(path))
    except (OSError, ValueError):
        return "-"


def _key_of(st: os.stat_result) -> str:
    return ":".join(map(str, fingerprint(st)))


def write_diff(
    repo: Repo,
    resolved: ResolvedRange,
    *,
    cache: DiffCache,
    progress: Callable[[int], None] | None = None,
    parse: bool = False,
    writing: _Writing | None = None,
    while_git_starts: Callable[[], None] | None = None,
    checked: bool = False,
    while_writing: WhileWriting | None = None,
) -> GitDiff:
    """The cached diff for ``resolved``, running ``git diff`` only when needed.

    With ``parse``, git writes into the new cache entry, which is read in
    blocks as it grows, each hashed and parsed as it comes (the parse
    overlaps git); the head commit's tree is read for ``git check-attr``
    meanwhile.  ``writing``: that git diff, already started (:func:`start_early`);
    ``checked``: :func:`start_early` found the entry there and current.
    ``while_git_starts``, ``while_writing``: see :func:`load_git_range`.
    """
    name = cache_name(repo, resolved)
    if resolved.is_commit_pair:
        hit = cache.lookup(name)
        if hit is not None and not checked and attributes_changed_since(repo, str(hit)):
            logger.debug("cached %s predates a .gitattributes change: written anew", hit)
            _drop_stale(str(hit))
            hit = None
        if hit is not None:
            logger.debug("cache hit %s", hit)
            if writing is not None:
                writing.stop()
            if not os.path.exists(sidecar_path(str(hit))):
                _write_sidecar(repo, resolved, str(hit))
            return _result(repo, resolved, str(hit), cached=True)
    if parse:
        return _write_streamed(
            repo, resolved, cache, name, progress, writing, while_git_starts, while_writing
        )
    if writing is not None:
        writing.stop()
    cache.ensure()
    # The sidecar first: whoever loads the new diff then asks git for its attributes.
    final = str(cache.path_for(name))
    _write_sidecar(repo, resolved, final)
    args = ["diff", *DIFF_OPTIONS, *resolved.diff_args(), "--"]
    since_ns = time.time_ns() - _CLOCK_MARGIN_NS
    written: list[int] = []

    def fill(fd: int) -> None:
        repo.git.to_file(args, fd, progress=progress, what="git diff")
        written.append(fd)

    def record() -> None:  # while the entry is flushed: what a reuse compares
        nested = _nested_attributes_of(repo, written[0], since_ns)
        if nested is not None:
            _record_in_sidecar(repo, resolved, final, nested)

    try:
        path = cache.write(name, fill, meanwhile=record)
    except BaseException:
        _drop_orphan_sidecar(final)
        raise
    return _result(repo, resolved, str(path), cached=False)


def _write_streamed(
    repo: Repo,
    resolved: ResolvedRange,
    cache: DiffCache,
    name: str,
    progress: Callable[[int], None] | None,
    writing: _Writing | None,
    while_git_starts: Callable[[], None] | None,
    while_writing: WhileWriting | None,
) -> GitDiff:
    # git diff starts first: it works out the tree diff and the renames before
    # it writes anything, and meanwhile the parser's modules load (below, not
    # at the top of this module, for that reason) and the set-up runs.
    if writing is None:
        writing = _start_writing(repo, resolved, cache, name)
    entry, stream, _ = writing
    index: CommitIndex | None = None
    attributes: StreamedCheckAttr | None = None
    try:
        # The sidecar before the entry appears: whoever loads the new diff
        # then asks git for its attributes.
        _write_sidecar(repo, resolved, str(entry.final))
        from ..diff.filters import Prescreen
        from ..diff.parser import StreamParser
        from ..diff.pipeline import gc_paused
        from .attributes import CommitIndex, StreamedCheckAttr

        # The attributes: the head's tree is read and then asked about each
        # path as it is parsed, all while git diff runs.
        index = CommitIndex(repo, resolved.head) if resolved.head is not None else None
        attributes = StreamedCheckAttr(
            repo,
            resolved.head,
            attributes=ATTRIBUTES,
            index=resolved.mode is Mode.INDEX,
            prepared=index,
        )
        source = attributes
        # The parse reads the entry as git writes it (a mapping of what is
        # there), never a copy of the whole diff in memory.
        parser = StreamParser(min_step=STREAM_BLOCK, growing=entry.fd)
        prescreen = Prescreen()
        hasher = hashlib.sha256()
        told = 0
        # What the nested attribute files are, for a later reuse to compare
        # (recorded with the attributes, in the sidecar): their directories are
        # looked at as the parse finds them, while git still writes.
        nested: dict[str, str] | None = {} if repo.root is not None else None

        def consume(block: bytes) -> None:
            nonlocal told
            hasher.update(block)
            parser.feed(block)
            if parser.file_count > told:
                files = parser.files_since(told)
                source.add(f.path for f in files)
                # The filter's own work on these files, done while git still writes.
                prescreen.add(files, parser.buffer)
                if nested is not None:
                    _record_nested_attributes(repo, files, nested, writing.since_ns)
                told = parser.file_count
            if progress is not None:
                progress(parser.size)

        if while_git_starts is not None:
            while_git_starts()
        done: list[StreamedDiff] = []
        with gc_paused():
            try:
                stream.read(consume)
            except GitError as exc:
                raise entry.write_failed(exc) from None

            def finish() -> None:
                # The review refers to the entry's pages rather than to a copy
                # of what was read (the entry is never rewritten in place).
                digest = hasher.hexdigest()
                parsed = parser.finish(_mapped(entry.fd, parser.size, digest))
                source.add(f.path for f in parsed.files[told:])
                if nested is not None:
                    _record_nested_attributes(repo, parsed.files, nested, writing.since_ns)
                st = os.fstat(entry.fd)
                streamed = StreamedDiff(
                    parsed, digest, source, prescreen, nested, identity=(st.st_dev, st.st_ino)
                )
                if while_writing is not None:
                    streamed = streamed._replace(built=while_writing(final, streamed))
                elif nested is not None:  # else the review records it with the attributes
                    _record_in_sidecar(repo, resolved, final, nested)
                done.append(streamed)

            final = str(entry.final)
            path = entry.commit(meanwhile=finish)
    except BaseException:
        writing.stop()
        _drop_orphan_sidecar(str(entry.final))
        if attributes is not None:
            attributes.close()  # closes the index too
        elif index is not None:
            index.close()
        raise
    return _result(repo, resolved, str(path), cached=False)._replace(streamed=done[0])


def _drop_stale(diff_path: str) -> None:
    """Remove a cached entry that is no longer current, and then its sidecar: if
    writing it anew fails, nothing stale is left to be taken for current."""
    for path in (diff_path, sidecar_path(diff_path)):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _drop_orphan_sidecar(diff_path: str) -> None:
    """After a failed write: the sidecar goes too, unless an older entry of that name
    (a working-tree diff written before) is still there and needs it."""
    if not os.path.exists(diff_path):
        with contextlib.suppress(OSError):
            os.unlink(sidecar_path(diff_path))


def _write_sidecar(
    repo: Repo,
    resolved: ResolvedRange,
    diff_path: str,
    attribute_files: dict[str, str] | None = None,
) -> None:
    write_sidecar(
        diff_path,
        repo=repo.path,
        treeish=resolved.head,
        index=resolved.mode is Mode.INDEX,
        attribute_files=attribute_files,
    )


def _record_in_sidecar(
    repo: Repo, resolved: ResolvedRange, diff_path: str, nested: dict[str, str]
) -> None:
    """Write the record of the nested attribute files into the sidecar; a failure
    (a full disk) only means that a reuse writes the diff anew, so it is logged."""
    try:
        _write_sidecar(repo, resolved, diff_path, nested)
    except OSError as exc:
        logger.debug("cannot record the nested attribute files beside %s: %s", diff_path, exc)


def _nested_attributes_of(repo: Repo, fd: int, since_ns: int) -> dict[str, str] | None:
    """The record of :func:`_record_nested_attributes` for the diff just written at
    ``fd`` (read back and parsed), or None when it cannot be made."""
    from ..diff.buffer import map_file  # not at import: see the module doc
    from ..diff.parser import parse_diff

    if repo.root is None:
        return None
    try:
        size = os.fstat(fd).st_size
        # Read through a mapping whose pages go back as the parse moves on:
        # the diff is never held in memory.
        parsed = parse_diff(map_file(fd, size, "") if size else b"")
    except Exception as exc:  # no record: a reuse writes the diff anew
        logger.warning("No record of the nested .gitattributes files of %s: %s", repo.path, exc)
        return None
    record: dict[str, str] = {}
    _record_nested_attributes(repo, parsed.files, record, since_ns)
    return record


def _record_nested_attributes(
    repo: Repo, files: Sequence[FileDiff], record: dict[str, str], since_ns: int
) -> None:
    """Add to ``record`` the stat of the ``.gitattributes`` of every directory of
    the paths of ``files`` (below the top, which is in the cache key) not in it
    yet: ``{directory: stat key}``.

    ``git diff`` read them from the work tree: a later reuse of the diff
    compares (:func:`attributes_changed_since`).  A file changed (or a
    directory that lost its file) after ``since_ns``, while git ran, is
    recorded as :data:`_CHANGED_MEANWHILE`, which matches nothing: git may
    have read either version.  A path shown with escapes (a name that is not
    UTF-8, or holds a backslash: see :func:`~diffchunk.diff.paths.decode_path`)
    is recorded by its name on disk (surrogate escapes, as ``os.fsdecode``).
    """
    from ..diff.paths import encode_path, is_escaped_path  # loaded with the parser by now

    assert repo.root is not None
    root = repo.root
    for fd in files:
        for path in (fd.old_path, fd.new_path):
            if path is None:
                continue
            if is_escaped_path(path):
                path = os.fsdecode(encode_path(path))
            directory = path.rpartition("/")[0]
            while directory and directory not in record:
                record[directory] = _attribute_file_key(os.path.join(root, directory), since_ns)
                directory = directory.rpartition("/")[0]


def _attribute_file_key(directory: str, since_ns: int) -> str:
    """:func:`_stat_key` of ``directory``'s ``.gitattributes``, or :data:`_CHANGED_MEANWHILE`."""
    try:
        st = os.stat(os.path.join(directory, ".gitattributes"))
    except (OSError, ValueError):
        try:  # none: was one removed meanwhile?
            changed = os.stat(directory).st_ctime_ns >= since_ns
        except (OSError, ValueError):
            return "-"
        return _CHANGED_MEANWHILE if changed else "-"
    return _CHANGED_MEANWHILE if st.st_ctime_ns >= since_ns else _key_of(st)


def _mapped(fd: int, size: int, digest: str) -> DiffBuffer | None:
    """The entry being written, mapped when it is large (as other diff files are, see
    :func:`~diffchunk.diff.buffer.map_threshold`; a mapping holds a descriptor);
    None for a small one or where it cannot be: then a copy is used."""
    from ..diff.buffer import map_file, map_threshold  # loaded with the parser by now

    try:
        return map_file(fd, size, digest) if size >= map_threshold() else None
    except (OSError, ValueError) as exc:
        logger.debug("cache entry not mapped: %s", exc)
        return None


def _result(repo: Repo, resolved: ResolvedRange, path: str, *, cached: bool) -> GitDiff:
    return GitDiff(
        diff_path=path,
        repo_root=repo.path,
        base=resolved.base,
        head=resolved.head,
        range=resolved.label,
        cached=cached,
        mode=resolved.mode,
        repo=repo,
    )
