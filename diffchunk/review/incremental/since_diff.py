"""The since-review diff: only what changed in a range since its reviewed revision.

Built per file of the range now, in the range's file order, from git's own
output (:func:`diffchunk.git.history.diff_commits`, the range review's diff
options):

- a file whose change is the reviewed one (same change id) is left out;
- a file new since the review (the reviewed revision did not change it): its
  whole change, the range's own section;
- a file whose change changed, when the range's base holds the same file in
  both revisions (new commits on top, an amend, a rebase onto a main that did
  not touch it, a force-push): ``git diff <reviewed head> <head> -- <file>``,
  i.e. what changed in the branch's version of the file since the review;
- a file whose change changed while the base changed it too (a rebase onto a
  main that changed the file, or a base read from another path): an interdiff
  section (:mod:`.interdiff`), the change as reviewed vs the change now, so
  upstream's changes are never shown as the branch's; if the two changes are
  equal once line numbers are dropped, nothing is shown for it;
- a file the range no longer changes is in no section: the load's
  ``since_review`` lists it (``no_longer_changed``).

The diff is a cache entry ``since-<key>.diff`` (content-addressed by the two
revisions' range entries, so loading it again writes nothing), with two
companion files: the repository's attributes (:mod:`diffchunk.review.sessions.sidecar`,
as of the new head, so generated and vendored files are left out as in the
range) and what the diff is (:mod:`diffchunk.review.sessions.since_sidecar`).  It is
loaded like any diff, with the range's load options: every diff and record
tool works on it.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Sequence

from ...diff.model import FileDiff
from ...diff.parser import parse_diff
from ...diff.paths import encode_path
from ...fdio import write_all
from ...git.cache import DiffCache
from ...git.diffwrite import cache_name
from ...git.history import changed_paths, diff_commits
from ...git.repo import Repo
from ...git.revisions import empty_tree
from ..record.changes import RecordedDiff
from ..record.model import Revision
from ..record.since import Comparison
from ..sessions.sidecar import write_sidecar
from ..sessions.since_sidecar import SinceFile, SinceRecord, read_since, write_since
from .interdiff import change_text, interdiff_section
from .summary import range_of

logger = logging.getLogger(__name__)

# Bump whenever what a since-review diff holds changes (it names the cache entry).
SINCE_FORMAT_VERSION = 1


def entry_name(repo: Repo, old: Revision, base: str | None, head: str) -> str:
    """The cache name of the since-review diff from ``old`` to ``base..head``."""
    assert old.head is not None
    names = (
        cache_name(repo, range_of(repo, old.base, old.head)),
        cache_name(repo, range_of(repo, base, head)),
        str(SINCE_FORMAT_VERSION),
    )
    return "since-" + hashlib.sha256("\0".join(names).encode()).hexdigest()[:16]


def _sections(text: bytes) -> dict[str, tuple[bytes, list[FileDiff]]]:
    """The file sections of a diff text by path: ``{path: (text, sections)}``."""
    parsed = parse_diff(text)
    found: dict[str, tuple[bytes, list[FileDiff]]] = {}
    for fd in parsed.files:
        found.setdefault(fd.path, (text, []))[1].append(fd)
    return found


def _raw(paths: Iterable[str | None]) -> list[bytes]:
    return [encode_path(p) for p in dict.fromkeys(p for p in paths if p)]


def _source(loaded: RecordedDiff, path: str) -> str:
    """The path a file of ``loaded`` comes from in its base (a renamed file's old path)."""
    return loaded.file(path).old_path or path


def _plain_paths(
    repo: Repo,
    old: Revision,
    base: str | None,
    old_diff: RecordedDiff,
    now: RecordedDiff,
    changed: Sequence[str],
) -> set[str]:
    """The changed files whose base holds the same file in both revisions."""
    moved = changed_paths(repo, old.base or empty_tree(repo), base or empty_tree(repo))
    return {
        path
        for path in changed
        if _source(now, path) == _source(old_diff, path)
        and encode_path(_source(now, path)) not in moved
    }


def build(
    repo: Repo,
    old: Revision,
    base: str | None,
    head: str,
    old_diff: RecordedDiff,
    now: RecordedDiff,
    comparison: Comparison,
) -> tuple[bytes, dict[str, SinceFile]]:
    """The since-review diff's text and what each of its files shows (see the module doc)."""
    assert old.head is not None
    changed, fresh = set(comparison.changed), set(comparison.new)
    plain = _plain_paths(repo, old, base, old_diff, now, comparison.changed)
    inter = changed - plain
    plain_text = _sections(diff_commits(repo, old.head, head, _raw(plain)))
    now_text = _sections(
        diff_commits(
            repo,
            base or empty_tree(repo),
            head,
            _raw([*fresh, *inter, *(now.file(p).old_path for p in fresh | inter)]),
        )
    )
    old_text = _sections(
        diff_commits(
            repo,
            old.base or empty_tree(repo),
            old.head,
            _raw([*inter, *(old_diff.file(p).old_path for p in inter)]),
        )
    )
    out: list[bytes] = []
    files: dict[str, SinceFile] = {}
    for path in now.paths():
        if path not in changed and path not in fresh:
            continue
        section, kind = b"", "new"
        if path in fresh:
            section = _joined(now_text.get(path))
        elif path in plain and path in plain_text:
            section, kind = _joined(plain_text[path]), "plain"
        if path in changed and not section:
            kind = "interdiff"
            section = interdiff_section(
                path, _change(old_text.get(path)), _change(now_text.get(path))
            )
        if section:
            out.append(section)
            files[path] = SinceFile(now.file(path).change_id, kind)
        elif path in fresh:  # git gave no section for a path of the range's own diff
            logger.warning("The since-review diff has no section for %s (new since).", path)
    return b"".join(out), files


def _joined(found: tuple[bytes, list[FileDiff]] | None) -> bytes:
    if found is None:
        return b""
    text, sections = found
    return b"".join(text[fd.start : fd.end] for fd in sections)


def _change(found: tuple[bytes, list[FileDiff]] | None) -> list[bytes]:
    return change_text(found[0], found[1]) if found is not None else []


def write(
    repo: Repo,
    cache: DiffCache,
    name: str,
    text: bytes,
    record: SinceRecord,
    head: str,
) -> str:
    """Write the since-review diff ``text`` as cache entry ``name``, with its two
    companion files written first (whoever loads the entry finds them)."""
    entry = cache.begin(name)
    try:
        final = str(entry.final)
        write_sidecar(final, repo=repo.path, treeish=head, index=False)
        write_since(final, record)
        write_all(entry.fd, text)
        return str(entry.commit())
    except BaseException:
        entry.abort()
        raise


def cached(cache: DiffCache, name: str) -> str | None:
    """The since-review diff ``name`` if the cache holds it with its record."""
    hit = cache.lookup(name)
    if hit is None or read_since(str(hit)) is None:
        return None
    return str(hit)
