"""The definitions a change touches, per file, for the listing (``list_chunks``).

Two sources, and each file's entry says which (``symbols_from``):

- ``outline``: when the repository is known (the diff was written by
  ``load_git_diff``: its sidecar names it), the outlines of both revisions
  (blobs read in one batch per page, :func:`diffchunk.git.blobs.read_blobs`)
  are compared with the new-side lines the hunks change
  (:func:`diffchunk.files.changed_symbols.compare_outlines`): ``added``,
  ``modified`` or ``removed`` definitions, each with its lines (a removed
  one's are its old lines), the innermost changed ones (a class whose method
  changed lists the method; an added class lists the class alone); in JSON
  ``"Parser.run (method, modified, 12-40)"``.  The two outlines are matched
  level by level (never ``C.m.helper`` for ``C.n.helper``), and what a
  skeleton elided in either is not compared (a large file's nested
  functions are not taken for removed).  Names are qualified by every
  enclosing definition (``Parser.run.helper``); one over
  :data:`MAX_QUALIFIED_CHARS` keeps its own name, its outermost one when it fits
  and the nearest enclosing ones that fit, ``…`` standing for the rest
  (``Parser.….helper``).
- ``hunks``: otherwise (a diff file, a file type without a grammar, a blob
  over :data:`MAX_BLOB_BYTES`, an outline its bounds cut: nesting, time, see
  :mod:`diffchunk.files.outline`), the function context of the hunks
  (``@@ … @@ def foo():``): in JSON plain strings, the lines as git found
  them (kind, change and lines are not known).

At most :data:`MAX_LISTED` definitions per file are listed, with a count of
the rest.  Symbols are computed for the files of the page asked for, once
per session (kept in its cache); a part of a file cut across chunks lists
those that meet its own lines.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...diff.hunk import hunks_once
from ...diff.model import ChunkPart, DiffKind, FileDiff
from ...errors import DiffchunkError
from ...limits import LANGUAGE_SNIFF_BYTES
from ...log import LazyLogger
from ..results import SymbolChange

if TYPE_CHECKING:  # the outline modules load when symbols are first computed
    from ...files.outline import OutlineItem
    from ...git.repo import Repo
    from ..sessions.store import Session

MAX_LISTED = 5
"""Definitions a listing names per file (the rest are counted): a page of
list_chunks stays small."""

MAX_BLOB_BYTES = 1 << 20
"""Blobs larger than this get the hunks' function context instead of outlines
in a listing: an outline of a 1 MB file takes tens of milliseconds, and a page
holds hundreds of files."""

MAX_PAGE_BYTES = 32 << 20
"""Blob bytes read for one listing page at most (the files beyond get the hunks'
function context): a page's outlines stay bounded whatever its files."""

MAX_NAME_CHARS = 60
"""Characters of a hunk's function-context line kept as a name in a listing
(``@@ ... @@ def name(...)`` lines run on with arguments)."""

MAX_QUALIFIED_CHARS = 100
"""Characters of a definition's qualified name in a listing (``Outer.method.inner``,
every enclosing definition): longer ones keep their own name, the outermost and the
nearest enclosing names that fit, ``…`` for the rest.  A release range's Python
methods and their nested functions run to 60-90 characters; a name of 200 (a C++
template's, OUTLINE_NAME_CHARS) at each of a few levels would not."""

SKELETON_ABOVE = 16 * 1024
"""Files above this are outlined from a skeleton for a listing (function bodies
elided, lines kept): 3-4 times faster on a release's Python files, and nested
closures are not what a listing needs."""

OUTLINES_KEPT = 512
"""Outlines kept by blob id, so that another view (or page) of the same diff,
or a blob both sides share, is outlined once."""


logger = LazyLogger(__name__)  # see diffchunk.log

_outlines: OrderedDict[tuple[str, str], list[OutlineItem] | None] = OrderedDict()
_outlines_lock = threading.Lock()
_HEADER = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
_SECTION = re.compile(rb"^@@ -[0-9,]+ \+[0-9,]+ @@([^\n]*)", re.MULTILINE)
_CACHE = "symbols"


@dataclass(frozen=True, slots=True)
class FileSymbols:
    """The definitions a file's change touches, and where they come from."""

    items: tuple[SymbolChange, ...]
    source: str  # "outline" or "hunks"

    def listed(self) -> tuple[tuple[SymbolChange, ...], int]:
        """At most :data:`MAX_LISTED` items, and how many more there are."""
        return self.items[:MAX_LISTED], max(0, len(self.items) - MAX_LISTED)


def from_hunks(fd: FileDiff) -> FileSymbols:
    """The function context of a file's hunks, once each, in order."""
    names: dict[str, None] = {}
    if fd.kind is not DiffKind.COMBINED:
        for hunk in hunks_once(fd.hunks):
            if hunk.section:
                names.setdefault(hunk.section[:MAX_NAME_CHARS], None)
    return FileSymbols(tuple(SymbolChange(n, "modified") for n in names), "hunks")


def listed_name(parts: Sequence[str], limit: int | None = None) -> str:
    """``parts`` joined with dots, within ``limit`` characters (:data:`MAX_QUALIFIED_CHARS`
    unless given; see the module docstring)."""
    limit = MAX_QUALIFIED_CHARS if limit is None else limit
    full = ".".join(parts)
    if len(full) <= limit:
        return full
    name = parts[-1]
    if len(parts) == 1 or len(name) + 2 > limit:
        return name if len(name) <= limit else name[: limit - 1] + "…"
    head = parts[0] + ".…." if len(parts[0]) + len(name) + 3 <= limit else "…."
    tail = [name]
    for part in reversed(parts[1:-1]):
        if len(head) + len(part) + 1 + len(".".join(tail)) > limit:
            break
        tail.insert(0, part)
    return head + ".".join(tail)


def changed_items(outline: list[OutlineItem]) -> list[SymbolChange]:
    """The innermost changed definitions of a marked outline (see the module docstring)."""
    from ...files.outline import qualified_parts

    out: list[SymbolChange] = []

    def walk(items: list[OutlineItem], path: list[OutlineItem]) -> None:
        for item in items:
            here = [*path, item]
            inner = [c for c in item.children if c.changes is not None]
            if item.changes in ("added", "removed") or (item.changes == "modified" and not inner):
                out.append(
                    SymbolChange(
                        listed_name(qualified_parts(here)),
                        str(item.changes),
                        item.type,
                        (item.line_number, item.end_line),
                    )
                )
                continue
            walk(item.children, here)

    walk(outline, [])
    return out


def _repo(loaded: Session) -> Repo | None:
    """The repository of a diff written from one (kept with the session), else None."""
    from ...git.repo import Repo, discover
    from ..sessions.sidecar import range_of

    if "symbols.repo" not in loaded.cache:
        repo = None
        recorded = range_of(loaded.path)
        if recorded is not None:
            try:
                repo = discover(recorded.repo)
            except DiffchunkError as exc:
                logger.debug("no repository for symbols: %s", exc)
        loaded.cache["symbols.repo"] = repo
    found = loaded.cache["symbols.repo"]
    return found if isinstance(found, Repo) else None


def _wanted_blobs(
    loaded: Session, indexes: Sequence[int]
) -> dict[int, tuple[str | None, str | None]]:
    """``{file index: (old blob, new blob)}`` of the files an outline can cover."""
    from ...files.languages import language_for_path
    from .file_versions import index_ids

    data = loaded.review.parsed.data
    wanted: dict[int, tuple[str | None, str | None]] = {}
    for i in indexes:
        fd = loaded.review.parsed.files[i]
        if fd.kind is DiffKind.COMBINED or fd.is_binary or not fd.hunks:
            continue
        if language_for_path(fd.path) is None:
            continue
        old, new = index_ids(data, fd)
        old = None if old is None or set(old) == {"0"} else old
        new = None if new is None or set(new) == {"0"} else new
        if (old or new) and all(i is None or len(i) in (40, 64) for i in (old, new)):
            wanted[i] = (old, new)
    return wanted


def _outline(blob: str | None, content: bytes | None, path: str) -> list[OutlineItem] | None:
    """A fresh copy of the outline of ``content`` (blob ``blob``), built once per blob;
    None when its bounds cut it (nesting, time)."""
    from ...files.languages import language_for_path
    from ...files.outline import build_outline

    if blob is None or content is None:
        return []
    language = language_for_path(path, content[:LANGUAGE_SNIFF_BYTES])
    if language is None:
        return []
    key = (blob, language)
    with _outlines_lock:
        known = key in _outlines
        found = _outlines.get(key)
        if known:
            _outlines.move_to_end(key)
    if not known:
        cut: list[str] = []
        found = build_outline(content, language, skeleton_above=SKELETON_ABOVE, cut=cut)
        found = None if cut else found
        with _outlines_lock:
            _outlines[key] = found
            while len(_outlines) > OUTLINES_KEPT:
                _outlines.popitem(last=False)
    return None if found is None else [item.copy() for item in found]


def compute(loaded: Session, indexes: Sequence[int]) -> dict[int, FileSymbols]:
    """The symbols of the files ``indexes`` of the session's diff (cached per session)."""
    from ...diff.widen import change_runs, new_side_changes
    from ...files.changed_symbols import compare_outlines
    from ...git.blobs import read_blobs

    cache: dict[int, FileSymbols] = loaded.cache.setdefault(_CACHE, {})
    todo = [i for i in dict.fromkeys(indexes) if i not in cache]
    if todo:
        repo = _repo(loaded)
        wanted = _wanted_blobs(loaded, todo) if repo is not None else {}
        blobs: dict[str, bytes] = {}
        if repo is not None and wanted:
            ids = [b for pair in wanted.values() for b in pair if b is not None]
            try:
                blobs = read_blobs(repo, ids, MAX_BLOB_BYTES, MAX_PAGE_BYTES)
            except DiffchunkError as exc:
                logger.debug("blobs for symbols not read: %s", exc)
        files = loaded.review.parsed.files
        data = loaded.review.parsed.data
        for i in todo:
            fd = files[i]
            pair = wanted.get(i)
            if pair is None or any(b is not None and b not in blobs for b in pair):
                cache[i] = from_hunks(fd)
                continue
            old = _outline(pair[0], blobs.get(pair[0] or ""), fd.old_path or fd.path)
            new = _outline(pair[1], blobs.get(pair[1] or ""), fd.path)
            if old is None or new is None:
                cache[i] = from_hunks(fd)  # an outline cut by its bounds: not compared
                continue
            hunks = hunks_once(fd.hunks)
            changed, deletions = new_side_changes(data, hunks)
            compare_outlines(new, old, changed, deletions, change_runs(data, hunks))
            cache[i] = FileSymbols(tuple(changed_items(new)), "outline")
    return {i: cache[i] for i in indexes}


def part_spans(text: bytes) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The old-side and new-side lines a part's hunks cover (from their headers)."""
    old: list[int] = []
    new: list[int] = []
    for m in _HEADER.finditer(text):
        a, b = int(m.group(1)), int(m.group(2) or 1)
        c, d = int(m.group(3)), int(m.group(4) or 1)
        old += [a, a + max(b, 1) - 1]
        new += [c, c + max(d, 1) - 1]
    if not new:
        return None
    return (min(old), max(old)), (min(new), max(new))


def for_part(symbols: FileSymbols, part: ChunkPart, text: bytes | None) -> FileSymbols:
    """The symbols of one part of a cut file: those meeting its lines (``text``: the
    part's diff text; None for a whole file)."""
    if part.parts is None or text is None:
        return symbols
    spans = part_spans(text)
    if spans is None:
        return FileSymbols((), symbols.source)
    if symbols.source == "hunks":
        names = {
            m.group(1).strip().decode("utf-8", "replace")[:MAX_NAME_CHARS]
            for m in _SECTION.finditer(text)
        }
        return FileSymbols(tuple(s for s in symbols.items if s.name in names), symbols.source)
    old_span, new_span = spans
    kept = tuple(
        s
        for s in symbols.items
        if s.lines is not None and _meets(s.lines, old_span if s.change == "removed" else new_span)
    )
    return FileSymbols(kept, symbols.source)


def merged(found: list[FileSymbols]) -> FileSymbols:
    """The symbols of several parts of one path in a chunk, once each."""
    if len(found) == 1:
        return found[0]
    items: dict[SymbolChange, None] = {}
    for symbols in found:
        items.update(dict.fromkeys(symbols.items))
    return FileSymbols(tuple(items), found[0].source)


def _meets(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]
