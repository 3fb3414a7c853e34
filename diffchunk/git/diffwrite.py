"""Write a range's ``git diff`` into a new cache entry, and name that entry.

``git diff`` writes straight into the entry's temporary file (never through
Python memory); :meth:`DiffWriting.blocks` hands out what it wrote as it
grows, so the reader (the application's range review) can hash and parse it
while git still runs.  Nothing here knows what a diff means: the caller
drives, this module only starts git, yields its output, and says which
files git read that could make a reused entry stale.

A range between two commits is content-addressed: its cache name
(:func:`cache_name`) comes from the repository, both commit ids,
:data:`DIFF_OPTIONS_VERSION` and what else shapes the output, so a second
review of the same range reuses the file without running ``git diff``.
Working-tree and index diffs change under our feet and are written anew on
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

import hashlib
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

from ..errors import GitError
from ..limits import GIT_STREAM_BLOCK, SHORT_ID
from ..paths import fingerprint
from .cache import DiffCache, PendingEntry
from .config import parse
from .repo import Repo
from .revisions import ResolvedRange
from .runner import GitStream

_CLOCK_MARGIN_NS = 20_000_000
"""File times come from a coarse clock (at most a tick, 10 ms at HZ=100,
behind the wall clock): a file changed within this margin of a git run is
taken as changed while git ran."""


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
# Bump whenever DIFF_OPTIONS (or anything else that shapes the output) changes.
DIFF_OPTIONS_VERSION = 1
#: The record of an attribute file (or of the directory that lost one) that
#: changed while git ran: git may have read either version, so a reuse
#: writes anew.
CHANGED_MEANWHILE = "changed while the diff was written"


class DiffWriting(NamedTuple):
    """``git diff`` started, writing into a new cache entry (see :func:`start_diff`)."""

    entry: PendingEntry
    stream: GitStream
    # Wall clock just before git started, less a margin for the coarse clock
    # of file times: a file changed since may or may not be what git read.
    since_ns: int = 0

    def blocks(self) -> Iterator[bytes]:
        """What git writes, block by block (see :meth:`GitStream.blocks`); a failure of
        git raises the entry's view of it (a full disk is the cache's failure)."""
        try:
            yield from self.stream.blocks()
        except GitError as exc:
            raise self.entry.write_failed(exc) from None

    def stop(self) -> None:
        """Stop git and drop the entry (again: nothing more happens)."""
        try:
            self.stream.kill()
        finally:
            self.entry.abort()


def start_diff(
    repo: Repo,
    resolved: ResolvedRange,
    cache: DiffCache,
    name: str,
    paths: Sequence[str] = (),
) -> DiffWriting:
    """Start ``git diff`` for ``resolved`` writing into a new entry ``name`` of ``cache``.

    ``paths`` (checked by :func:`~diffchunk.git.pathspecs.check_paths`) limit
    the diff; they follow ``--`` and are read literally (``--literal-pathspecs``).
    The caller reads :meth:`DiffWriting.blocks` to the end and then commits
    the entry, or calls :meth:`DiffWriting.stop`.
    """
    entry = cache.begin(name)
    since_ns = time.time_ns() - _CLOCK_MARGIN_NS
    try:
        args = ["diff", *DIFF_OPTIONS, *resolved.diff_args(), "--", *paths]
        git = repo.git.with_options("--literal-pathspecs") if paths else repo.git
        stream = git.start_into(args, entry.fd, block_size=GIT_STREAM_BLOCK, what="git diff")
    except BaseException:
        entry.abort()
        raise
    return DiffWriting(entry, stream, since_ns)


def cache_name(repo: Repo, resolved: ResolvedRange, paths: Sequence[str] = ()) -> str:
    """The cache entry name for ``resolved`` in ``repo`` (limited to ``paths``: another
    entry for each set of paths; another for each way of writing the range)."""
    repo_key = hashlib.sha256(repo.common_dir.encode("utf-8", "surrogateescape")).hexdigest()
    limit = ("\0paths\0" + "\0".join(paths)) if paths else ""
    if not resolved.is_commit_pair:
        # one name per work tree, mode, base and paths: a review against another
        # commit never rewrites the file a session of this one reads
        identity = f"{repo.git_dir}\0{resolved.old}{limit}".encode("utf-8", "surrogateescape")
        worktree = hashlib.sha256(identity).hexdigest()
        return f"{resolved.mode.value}-{worktree[:16]}"
    assert resolved.head is not None
    # The range as given is part of the name: its cached diff is the handle of its
    # review, and main..feature and main...feature (or C^! and C~1..C) are two
    # reviews even when they resolve to the same commits.
    parts = (
        repo_key,
        resolved.old,
        resolved.head,
        str(DIFF_OPTIONS_VERSION),
        resolved.label,
        *_shaping(repo),
    )
    if paths:
        parts = (*parts, limit)
    key = hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()
    base = resolved.base[:SHORT_ID] if resolved.base else "root"
    return f"{base}..{resolved.head[:SHORT_ID]}-{key[:16]}"


def _shaping(repo: Repo) -> tuple[str, ...]:
    """What besides the two commits shapes ``git diff A B``'s text, for the cache key.

    The config git is given that shapes it (``core.bigFileThreshold``, the
    user's attributes file, the object format: :attr:`Repo.diff_config`), and
    the attribute files git reads besides the commits (which files are binary,
    which driver applies): the system, global and ``info/attributes`` files and
    the top ``.gitattributes`` of the work tree, each by its stat.  A change of any of them makes a new entry.
    (``.gitattributes`` files in subdirectories: see
    :func:`nested_attributes_changed`.)
    """
    config = repo.diff_config.decode("utf-8", "surrogateescape")
    files = ["/etc/gitattributes", os.path.join(repo.common_dir, "info", "attributes")]
    files += [value or "" for key, value in parse(repo.diff_config) if key == "core.attributesfile"]
    if repo.root is not None:
        files.append(os.path.join(repo.root, ".gitattributes"))
    return (config, *map(stat_key, files))


def nested_attributes_changed(repo: Repo, recorded: Mapping[str, str] | None) -> bool:
    """Whether a ``.gitattributes`` below the top of the work tree is not what it was
    when a diff was written: ``recorded`` is ``{directory: stat key}`` made then
    with :func:`record_attribute_dirs` (None: not known, so changed).  ``git
    diff`` reads them from the work tree; the top one and the other attribute
    files are in the cache key already.
    """
    if repo.root is None:
        return False
    if recorded is None:
        return True
    for directory, key in recorded.items():
        if stat_key(os.path.join(repo.root, directory, ".gitattributes")) != key:
            return True
    return False


def record_attribute_dirs(
    repo: Repo, paths: Iterable[str], record: dict[str, str], since_ns: int
) -> None:
    """Add to ``record`` the stat of the ``.gitattributes`` of every directory of
    ``paths`` (names on disk, relative to the work tree; the top directory is
    in the cache key) not in it yet: ``{directory: stat key}``.

    A file changed (or a directory that lost its file) after ``since_ns``,
    while git ran, is recorded as :data:`CHANGED_MEANWHILE`, which matches
    nothing: git may have read either version.
    """
    assert repo.root is not None
    root = repo.root
    for path in paths:
        directory = path.rpartition("/")[0]
        while directory and directory not in record:
            record[directory] = _attribute_file_key(os.path.join(root, directory), since_ns)
            directory = directory.rpartition("/")[0]


def _attribute_file_key(directory: str, since_ns: int) -> str:
    """:func:`stat_key` of ``directory``'s ``.gitattributes``, or :data:`CHANGED_MEANWHILE`."""
    try:
        st = os.stat(os.path.join(directory, ".gitattributes"))
    except (OSError, ValueError):
        try:  # none: was one removed meanwhile?
            changed = os.stat(directory).st_ctime_ns >= since_ns
        except (OSError, ValueError):
            return "-"
        return CHANGED_MEANWHILE if changed else "-"
    return CHANGED_MEANWHILE if st.st_ctime_ns >= since_ns else _key_of(st)


def stat_key(path: str) -> str:
    """:func:`~diffchunk.paths.fingerprint` of ``path`` as text (``-``: no such file)."""
    try:
        return _key_of(os.stat(path))
    except (OSError, ValueError):
        return "-"


def _key_of(st: os.stat_result) -> str:
    return ":".join(map(str, fingerprint(st)))
