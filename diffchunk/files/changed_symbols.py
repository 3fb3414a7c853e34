"""Mark outline symbols as added, modified or removed relative to git HEAD.

For a file inside a git work tree, :func:`mark_changes` compares the file
with its version in ``HEAD``:

- ``"added"``: a symbol with no counterpart in HEAD's version -- every symbol
  of a file that is untracked or new since HEAD (but a file git ignores is
  no change of the repository's: nothing is marked and the count is 0);
- ``"modified"``: a symbol that exists in both versions and whose lines touch
  a changed line (``git diff -U0 HEAD`` hunks, new side);
- ``"removed"``: a symbol of HEAD's version that is gone.  It is added to the
  outline as an item with ``changes="removed"`` placed last among the
  children of its former parent (last at the top level for a top-level
  one); its line numbers are those it had *in HEAD*.  A removed class keeps
  its children, all marked removed.

Counterparts are found level by level: the top-level symbols, then the
children of each matched pair, by type and name; several of one type and
name under one parent (redefinitions, a property's getter and setter) are
matched by position (an old one whose first line the diff moved to a new
one's first line), the rest in order.  So ``C.m.helper`` and ``C.n.helper``
are never taken for each other.  Lines a skeleton elided in one version
(:attr:`OutlineItem.elided`, large files) are not compared: a definition in
the other version that lies there is neither removed nor added.

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
from collections.abc import Sequence

from ..errors import GitError
from ..git.repo import discover
from ..git.runner import GitCommand
from ..limits import LANGUAGE_SNIFF_BYTES
from .languages import language_for_path
from .outline import OutlineItem, cached_outline, iter_items, outline_for_file

GIT_TIMEOUT = 10.0
"""Seconds any single git call may take while an outline's symbols are marked
against HEAD: the marks are extra, and a slow repository must not hold the
overview; past this they are given up with a warning."""


logger = logging.getLogger(__name__)


_HUNK_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)
_OBJECT_ID = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


def mark_changes(
    file_path: str,
    outline: list[OutlineItem],
    *,
    source: bytes | None = None,
    language: str | None = None,
    cut: list[str] | None = None,
) -> int:
    """Mark ``outline`` (in place) against HEAD; return how many symbols changed.

    ``source`` is the file's current content when the caller has it (else it
    is read); ``language`` overrides the one guessed from the path.  Marks
    from an earlier call are cleared first, so calling twice is harmless.
    ``cut`` is told what the bounds of HEAD's outline left out, if anything.
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
            head_outline = cached_outline(file_path, head_key, cut=cut)
            if head_outline is None and language is not None:
                head_source = git.run(["cat-file", "blob", blob], timeout=GIT_TIMEOUT).stdout
                head_outline = outline_for_file(file_path, head_key, head_source, language, cut=cut)
            diff_out = diff.finish(timeout=GIT_TIMEOUT).stdout
    except GitError as exc:  # timed out, failed, or git is missing
        logger.debug("symbol changes not marked: %s", exc)
        return 0
    changed, deletions, hunks = _changed_lines(diff_out)
    _apply(outline, head_outline, changed, deletions, hunks)
    return _count_changed(outline)


# --------------------------------------------------------------------------
# git


def _locate_in_head(file_path: str) -> tuple[GitCommand, str, str] | None:
    """How to run git for the file's repository, its path there, and HEAD's blob id of it
    ("" when not in HEAD); None outside a work tree (or when git cannot tell).

    The repository is found by :func:`~diffchunk.git.repo.discover`, whose
    command reads no config of the repository (no filter driver runs on a diff
    against the working tree).  Paths are literal (no pathspec magic).
    """
    directory, name = os.path.split(file_path)
    if not name:
        return None
    directory = os.path.realpath(directory or ".")
    try:
        repo = discover(directory)
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
    if _ignored(git, path):
        return None  # not the repository's: nothing of it changed
    return git, path, ""  # untracked, newly added, or no commit yet


def _ignored(git: GitCommand, path: str) -> bool:
    """Whether git ignores the untracked file ``path`` (.gitignore, info/exclude...)."""
    try:
        found = git.run(
            ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--", path],
            check=False,
            timeout=GIT_TIMEOUT,
        )
    except GitError as exc:
        logger.debug("git ls-files --ignored failed: %s", exc)
        return False
    return found.returncode == 0 and bool(found.stdout)


def _within(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def _blob_id(content: bytes, id_length: int) -> str:
    algorithm = hashlib.sha256 if id_length == 64 else hashlib.sha1
    digest = algorithm(b"blob %d\0" % len(content))
    digest.update(content)
    return digest.hexdigest()


# --------------------------------------------------------------------------
# Comparison


def _changed_lines(
    diff: bytes,
) -> tuple[list[tuple[int, int]], list[int], list[tuple[int, int, int, int]]]:
    """New-side changed line ranges (inclusive), pure-deletion points, and the hunks'
    ``(old_start, old_count, new_start, new_count)``.

    A deletion point ``p`` means lines were removed between new lines ``p``
    and ``p + 1``.
    """
    changed: list[tuple[int, int]] = []
    deletions: list[int] = []
    hunks: list[tuple[int, int, int, int]] = []
    for match in _HUNK_HEADER.finditer(diff):
        old_start = int(match.group(1))
        old_count = int(match.group(2)) if match.group(2) is not None else 1
        new_start = int(match.group(3))
        new_count = int(match.group(4)) if match.group(4) is not None else 1
        hunks.append((old_start, old_count, new_start, new_count))
        if new_count > 0:
            changed.append((new_start, new_start + new_count - 1))
        else:
            deletions.append(new_start)
    changed.sort()
    deletions.sort()
    return changed, deletions, hunks


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


class LineMap:
    """Where the lines of one side of a diff are on the other, from its hunk headers.

    ``hunks``: ``(from_start, from_count, to_start, to_count)`` per hunk, as the
    ``@@ -a,b +c,d @@`` headers give them (for the other way, swap the pairs).
    A line outside every hunk moves by what the hunks before it added or
    removed; a line inside one maps to that hunk's lines on the other side.
    """

    __slots__ = ("_ends", "_hunks", "_shift")

    def __init__(self, hunks: Sequence[tuple[int, int, int, int]]) -> None:
        self._hunks = sorted(hunks)
        # The last line of each hunk on this side (a hunk of no line: the one it follows).
        self._ends = [start + count - 1 if count else start for start, count, _, _ in self._hunks]
        self._shift = [0]
        for _, count, _, to_count in self._hunks:
            self._shift.append(self._shift[-1] + to_count - count)

    def lines(self, line: int) -> tuple[int, int]:
        """The lines ``(first, last)`` of the other side where ``line`` is: one line when
        it is outside every hunk, else the hunk's (the two around it when it has none)."""
        index = bisect.bisect_left(self._ends, line)
        if index < len(self._hunks):
            start, count, to_start, to_count = self._hunks[index]
            if count and start <= line:
                return (to_start, to_start + to_count - 1) if to_count else (to_start, to_start + 1)
        moved = line + self._shift[index]
        return moved, moved


def compare_outlines(
    outline: list[OutlineItem],
    old_outline: list[OutlineItem] | None,
    changed: list[tuple[int, int]],
    deletions: list[int],
    hunks: Sequence[tuple[int, int, int, int]],
) -> int:
    """Mark ``outline`` (the new version's, in place) against ``old_outline`` with the
    new-side ``changed`` line ranges (sorted, inclusive) and pure-deletion points, by the
    rules of this module; return how many symbols changed.  Removed symbols are added
    with their old lines.  ``hunks``: the diff's ``(old_start, old_count, new_start,
    new_count)`` (its ``@@`` headers), which say where an old line is now."""
    _clear_marks(outline)
    _apply(outline, old_outline, sorted(changed), sorted(deletions), hunks)
    return _count_changed(outline)


def _apply(
    outline: list[OutlineItem],
    head_outline: list[OutlineItem] | None,
    changed: list[tuple[int, int]],
    deletions: list[int],
    hunks: Sequence[tuple[int, int, int, int]],
) -> None:
    """Match the two outlines level by level (the children of matched items), by type
    and name; definitions of one type and name under one parent are matched by where
    they are (an old one whose first line is now a new one's), then in order.

    What one side's skeleton elided is not compared: an old definition whose lines
    are now in lines the new outline elided inside the matched parent is not
    "removed", a new one in lines the old outline elided is not "added" (unmarked:
    its parent says whether it changed)."""
    to_new = LineMap(hunks)
    to_old = LineMap([(c, d, a, b) for a, b, c, d in hunks])
    starts = [start for start, _ in changed]
    pending: list[
        tuple[list[OutlineItem], list[OutlineItem], OutlineItem | None, OutlineItem | None]
    ]
    pending = [(outline, list(head_outline or []), None, None)]
    while pending:
        news, olds, new_parent, old_parent = pending.pop()
        pairs, lone_new, lone_old = _pair(news, olds, to_new)
        for item in lone_new:
            if not _hidden(to_old.lines(item.line_number), old_parent):
                for sub in iter_items([item]):
                    sub.changes = "added"
        for item, old in pairs:
            if _touches(item, changed, starts, deletions):
                item.changes = "modified"
            pending.append((item.children, old.children, item, old))
        for old in lone_old:
            if not _hidden(to_new.lines(old.line_number), new_parent):
                removed = old.copy()
                for sub in iter_items([removed]):
                    sub.changes = "removed"
                news.append(removed)


def _pair(
    news: list[OutlineItem], olds: list[OutlineItem], to_new: LineMap
) -> tuple[list[tuple[OutlineItem, OutlineItem]], list[OutlineItem], list[OutlineItem]]:
    """Matched (new, old) items of one level, the new ones unmatched and the old ones
    unmatched (each in file order)."""
    by_key: dict[tuple[str, str], list[OutlineItem]] = {}
    for item in news:
        by_key.setdefault((item.type, item.name), []).append(item)
    old_by_key: dict[tuple[str, str], list[OutlineItem]] = {}
    for old in olds:
        old_by_key.setdefault((old.type, old.name), []).append(old)
    matched: dict[int, OutlineItem] = {}  # id of a new item -> its old one
    for key, group in old_by_key.items():
        candidates = by_key.get(key, [])
        if len(group) == 1 and len(candidates) == 1:
            matched[id(candidates[0])] = group[0]
            continue
        free = {item.line_number: item for item in reversed(candidates)}
        left: list[OutlineItem] = []
        for old in group:
            first, last = to_new.lines(old.line_number)
            found = free.pop(first, None) if first == last else None
            if found is None:
                left.append(old)
            else:
                matched[id(found)] = old
        rest = [item for item in candidates if id(item) not in matched]
        for item, old in zip(rest, left, strict=False):
            matched[id(item)] = old
    pairs = [(item, matched[id(item)]) for item in news if id(item) in matched]
    taken = {id(old) for old in matched.values()}
    return pairs, [i for i in news if id(i) not in matched], [o for o in olds if id(o) not in taken]


def _hidden(lines: tuple[int, int], parent: OutlineItem | None) -> bool:
    """Whether ``lines`` meet lines of ``parent`` (the other side's) that a skeleton elided."""
    spans = parent.elided if parent is not None else ()
    if not spans:
        return False
    index = bisect.bisect_right(spans, lines[1], key=lambda span: span[0])
    return index > 0 and spans[index - 1][1] >= lines[0]


def _clear_marks(items: list[OutlineItem]) -> None:
    items[:] = [item for item in items if item.changes != "removed"]
    for item in items:
        item.changes = None
        _clear_marks(item.children)


def _count_changed(outline: Sequence[OutlineItem]) -> int:
    return sum(1 for item in iter_items(outline) if item.changes is not None)
