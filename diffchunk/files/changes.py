"""Mark outline symbols as added, modified or removed relative to git HEAD.

For a file inside a git work tree, :func:`mark_changes` compares the file
with its version in ``HEAD``:

- ``"added"``: a symbol whose (type, qualified name) does not exist in HEAD's
  version -- every symbol of a file that is untracked or new since HEAD;
- ``"modified"``: a symbol that exists in both versions and whose lines touch
  a changed line (``git diff -U0 HEAD`` hunks, new side);
- ``"removed"``: a symbol of HEAD's version that is gone.  It is added to the
  outline as an item with ``changes="removed"`` placed last among the
  children of its former parent (or last at the top level when the parent is
  gone too); its line numbers are those it had *in HEAD*.  A removed class
  keeps its children, all marked removed.

Outside a git work tree, or when git is missing, fails or takes longer than
:data:`GIT_TIMEOUT`, nothing is marked and the count is 0.  git runs only
through :mod:`diffchunk.git` (the repository found by
:func:`~diffchunk.git.repo.discover`, so that no program its config names can
run), in at most three rounds of short processes: the two probes of
``discover`` side by side, the lookup of the file in HEAD, then (only when
the content differs) the diff and the HEAD blob side by side.
"""

from __future__ import annotations

import bisect
import hashlib
import logging
import os
import re
from collections import Counter
from collections.abc import Sequence

from ..errors import GitError
from ..git.repo import discover
from ..git.runner import GitCommand
from ..limits import CHANGES_GIT_TIMEOUT as GIT_TIMEOUT
from ..limits import LANGUAGE_SNIFF_BYTES
from .languages import language_for_path
from .outline import OutlineItem, cached_outline, iter_items, outline_for_file

logger = logging.getLogger(__name__)


_HUNK_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)
_OBJECT_ID = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")

Key = tuple[tuple[str, str], ...]


def mark_changes(
    file_path: str,
    outline: list[OutlineItem],
    *,
    source: bytes | None = None,
    language: str | None = None,
) -> int:
    """Mark ``outline`` (in place) against HEAD; return how many symbols changed.

    ``source`` is the file's current content when the caller has it (else it
    is read); ``language`` overrides the one guessed from the path.  Marks
    from an earlier call are cleared first, so calling twice is harmless.
    """
    _clear_marks(outline)
    located = _locate_in_head(file_path)
    if located is None:
        return 0  # not in a work tree (or git unusable)
    git, path, blob = located
    if blob == "":
        for item in iter_items(outline):
            item.changes = "added"
        return _count_changed(outline)

    if source is None:
        try:
            with open(file_path, "rb") as handle:
                source = handle.read()
        except OSError:
            return 0
    if _blob_id(source, len(blob)) == blob:
        return 0  # identical to HEAD

    if language is None:
        language = language_for_path(file_path, source[:LANGUAGE_SNIFF_BYTES])
    head_key = ("git-blob", blob)
    try:
        with git.start(
            ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "-U0", "HEAD", "--", path]
        ) as diff:
            head_outline = cached_outline(file_path, head_key)
            if head_outline is None and language is not None:
                head_source = git.run(["cat-file", "blob", blob], timeout=GIT_TIMEOUT).stdout
                head_outline = outline_for_file(file_path, head_key, head_source, language)
            diff_out = diff.finish(timeout=GIT_TIMEOUT).stdout
    except GitError as exc:  # timed out, failed, or git is missing
        logger.debug("symbol changes not marked: %s", exc)
        return 0
    changed, deletions = _changed_lines(diff_out)
    _apply(outline, head_outline, changed, deletions)
    return _count_changed(outline)


# --------------------------------------------------------------------------
# git


def _locate_in_head(file_path: str) -> tuple[GitCommand, str, str] | None:
    """How to run git for the file's repository, its path there, and HEAD's blob id of it
    ("" when not in HEAD); None outside a work tree (or when git cannot tell).

    The repository is found by :func:`~diffchunk.git.repo.discover`, whose
    command neutralises the filter drivers of its config (a diff against the
    working tree runs clean filters).  Paths are literal (no pathspec magic).
    """
    directory, name = os.path.split(file_path)
    if not name:
        return None
    directory = os.path.realpath(directory or ".")
    try:
        repo = discover(directory, timeout=GIT_TIMEOUT)
    except (GitError, OSError) as exc:  # not a repository, git missing, directory gone...
        logger.debug("no git repository for %s: %s", file_path, exc)
        return None
    full = os.path.join(directory, name)
    if repo.root is None or any(_within(full, d) for d in (repo.git_dir, repo.common_dir)):
        return None  # a bare repository, or a file of git's own directory
    path = os.path.relpath(full, repo.root)
    if path == os.curdir or path.startswith(os.pardir + os.sep):
        return None
    git = repo.git.with_options("--literal-pathspecs")
    try:
        found = git.run(["rev-parse", f"HEAD:{path}"], check=False, timeout=GIT_TIMEOUT)
    except GitError as exc:
        logger.debug("git rev-parse failed: %s", exc)
        return None
    blob = found.stdout.decode("ascii", "replace").strip()
    if found.returncode == 0 and _OBJECT_ID.match(blob):
        return git, path, blob
    return git, path, ""  # untracked, newly added, or no commit yet


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _blob_id(content: bytes, id_length: int) -> str:
    algorithm = hashlib.sha256 if id_length == 64 else hashlib.sha1
    digest = algorithm(b"blob %d\0" % len(content))
    digest.update(content)
    return digest.hexdigest()


# --------------------------------------------------------------------------
# Comparison


def _changed_lines(diff: bytes) -> tuple[list[tuple[int, int]], list[int]]:
    """New-side changed line ranges (inclusive) and pure-deletion points.

    A deletion point ``p`` means lines were removed between new lines ``p``
    and ``p + 1``.
    """
    changed: list[tuple[int, int]] = []
    deletions: list[int] = []
    for match in _HUNK_HEADER.finditer(diff):
        new_start = int(match.group(3))
        new_count = int(match.group(4)) if match.group(4) is not None else 1
        if new_count > 0:
            changed.append((new_start, new_start + new_count - 1))
        else:
            deletions.append(new_start)
    changed.sort()
    deletions.sort()
    return changed, deletions


def _touches(
    item: OutlineItem, changed: list[tuple[int, int]], starts: list[int], deletions: list[int]
) -> bool:
    first, last = item.line_number, item.end_line
    # Ranges are sorted and disjoint: of those starting by `last`, the last
    # one ends latest.
    index = bisect.bisect_right(starts, last)
    if index and changed[index - 1][1] >= first:
        return True
    # A deletion strictly inside the item: between two of its lines.
    index = bisect.bisect_left(deletions, first)
    return index < len(deletions) and deletions[index] < last


def _keyed(outline: Sequence[OutlineItem]) -> list[tuple[Key, OutlineItem, OutlineItem | None]]:
    """(key path, item, parent) for every item, parents first."""
    out: list[tuple[Key, OutlineItem, OutlineItem | None]] = []
    pending: list[tuple[Key, OutlineItem, OutlineItem | None]] = [
        (((item.type, item.name),), item, None) for item in reversed(outline)
    ]
    while pending:
        key, item, parent = pending.pop()
        out.append((key, item, parent))
        pending.extend(((*key, (c.type, c.name)), c, item) for c in reversed(item.children))
    return out


def compare_outlines(
    outline: list[OutlineItem],
    old_outline: list[OutlineItem] | None,
    changed: list[tuple[int, int]],
    deletions: list[int],
) -> int:
    """Mark ``outline`` (the new version's, in place) against ``old_outline`` with the
    new-side ``changed`` line ranges (sorted, inclusive) and pure-deletion points, by the
    rules of this module; return how many symbols changed.  Removed symbols are added
    with their old lines."""
    _clear_marks(outline)
    _apply(outline, old_outline, sorted(changed), sorted(deletions))
    return _count_changed(outline)


def _apply(
    outline: list[OutlineItem],
    head_outline: list[OutlineItem] | None,
    changed: list[tuple[int, int]],
    deletions: list[int],
) -> None:
    head_items = _keyed(head_outline or [])
    head_keys = Counter(key for key, _, _ in head_items)
    starts = [start for start, _ in changed]
    current = _keyed(outline)
    by_key: dict[Key, OutlineItem] = {}
    for key, item, _ in current:
        by_key.setdefault(key, item)
        if head_keys[key] > 0:
            head_keys[key] -= 1
            if _touches(item, changed, starts, deletions):
                item.changes = "modified"
        else:
            item.changes = "added"
    # What is left in head_keys is gone from the file: the last of each key.
    gone: list[tuple[Key, OutlineItem]] = []
    for key, item, _ in reversed(head_items):
        if head_keys[key] > 0:
            head_keys[key] -= 1
            gone.append((key, item))
    gone.reverse()
    gone_keys = {key for key, _ in gone}
    for key, item in gone:
        if any(key[:n] in gone_keys for n in range(1, len(key))):
            continue  # shown as a child of its removed parent
        removed = item.copy()
        for sub in iter_items([removed]):
            sub.changes = "removed"
        parent = by_key.get(key[:-1]) if len(key) > 1 else None
        (parent.children if parent is not None else outline).append(removed)


def _clear_marks(items: list[OutlineItem]) -> None:
    items[:] = [item for item in items if item.changes != "removed"]
    for item in items:
        item.changes = None
        _clear_marks(item.children)


def _count_changed(outline: Sequence[OutlineItem]) -> int:
    return sum(1 for item in iter_items(outline) if item.changes is not None)
