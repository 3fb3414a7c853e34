"""Where a reference sits: the innermost definition around each hit of
``find_references``, from the outline of its file at that side.

A hit on the line where a definition of the name itself starts (``def
name``, ``class name``: the outline item of that name whose first line it is,
or whose decorators precede that line) is the definition, not a reference:
it is left out.  Files are outlined up to a bound
(:data:`~diffchunk.review.tools.code_search.OUTLINE_FILES`); past it, hits keep their
lines without ``in``.  A file type without a grammar, or an outline its bounds
cut, gives hits without ``in`` too.

A reference is code: when the name is defined somewhere (a definition left
out), only the hits in files of the definitions' languages are kept; the
others (a word in the docs, a key of a workflow) are counted apart
(:func:`split_languages`), and ``search_code`` finds them.  So are the lines
of those files where every occurrence of the name sits in a comment or a
string's text (a docstring's ``:meth:`invoke```, ``menu = "main"``), told by
the file's syntax tree (:mod:`diffchunk.files.prose`: a file type without a
grammar, or one past its bounds, keeps them); they are parsed within the
search's deadline, and past it the rest keep theirs too.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace

from ...files.languages import language_for_path
from ...files.outline_item import OutlineItem, qualified_parts
from ...files.prose import prose_lines
from ...git.trees import read_tree_blobs
from ...limits import LANGUAGE_SNIFF_BYTES
from .search_tree import CodeHit, SearchTree
from .symbols import _outline, listed_name


def _innermost(items: list[OutlineItem], line: int) -> list[OutlineItem]:
    """The definitions around ``line``, outermost first."""
    path: list[OutlineItem] = []
    level = items
    while True:
        inside = [i for i in level if i.line_number <= line <= i.end_line]
        if not inside:
            return path
        path.append(inside[-1])
        level = inside[-1].children


def _contents(tree: SearchTree, paths: list[str]) -> dict[str, tuple[str, bytes]]:
    """``{path: (key, content)}`` of ``paths``: the work tree's, else the object store's."""
    found = {}
    for path in paths:
        if path in tree.local:
            data = tree.local_content(path)
            found[path] = ("wt:" + hashlib.sha256(data).hexdigest(), data)
    wanted = set(paths) - set(found)
    stored = [f for f in tree.files if f.path in wanted]
    for file, data in read_tree_blobs(tree.repo, stored):
        found[file.path] = (file.id, data)
    return found


def _is_definition(around: list[OutlineItem], line: int, text: str | None, name: str) -> bool:
    """Whether ``line`` starts a definition called ``name`` (its header, decorators aside)."""
    for item in reversed(around):
        if item.name.rsplit(".", 1)[-1] != name:
            continue
        if item.line_number == line:
            return True
        # A decorated definition may start at its first decorator: its header is the
        # first line naming it.
        if text is not None and item.line_number < line <= item.end_line:
            stripped = text.lstrip()
            if not stripped.startswith("@") and name in stripped.split("(")[0]:
                return any(stripped.startswith(k) for k in _DEFINING)
    return False


_DEFINING = ("def ", "async def ", "class ", "function ", "fn ", "func ", "pub fn ", "struct ")


@dataclass(frozen=True, slots=True)
class Placed:
    """What :func:`place_hits` makes of a search's hits."""

    hits: list[CodeHit]  # each with the definition it sits in, the definitions left out
    definitions: int  # hits left out: lines where a definition of the name starts
    defining: set[str]  # the paths of those definitions
    prose: set[tuple[str, int]]  # (path, line) of hits only in comments and strings


def place_hits(
    tree: SearchTree, hits: list[CodeHit], name: str, max_files: int, deadline: float
) -> Placed:
    """The hits with the definition each sits in, the definitions of ``name`` left
    out, and which hits hold the name only in comments and strings (files parsed
    until ``deadline``)."""
    lines: dict[str, list[int]] = {}
    for hit in hits:
        lines.setdefault(hit.path, []).append(hit.line)
    contents = _contents(tree, list(lines)[:max_files])
    outlines: dict[str, list[OutlineItem] | None] = {}
    prose: set[tuple[str, int]] = set()
    for path, (key, data) in contents.items():
        language = language_for_path(path, data[:LANGUAGE_SNIFF_BYTES])
        outlines[path] = None if language is None else _outline(key, data, path)
        if language is not None:
            found = prose_lines(key, data, language, name, lines[path], deadline)
            prose.update((path, n) for n in found)
    kept: list[CodeHit] = []
    defining: set[str] = set()
    for hit in hits:
        outline = outlines.get(hit.path)
        if outline is None:
            kept.append(hit)
            continue
        around = _innermost(outline, hit.line)
        if _is_definition(around, hit.line, hit.text, name):
            defining.add(hit.path)
            continue
        where = listed_name(qualified_parts(around)) if around else "(module level)"
        kept.append(replace(hit, definition=where))
    return Placed(kept, len(hits) - len(kept), defining, prose)


def split_languages(hits: list[CodeHit], defining: set[str]) -> tuple[list[CodeHit], list[CodeHit]]:
    """``hits`` in files of the languages ``defining`` (the definitions' files) are
    written in, and the others; all of them when no definition was found."""
    languages = {language_for_path(path) for path in defining} - {None}
    if not languages:
        return hits, []
    same: list[CodeHit] = []
    other: list[CodeHit] = []
    for hit in hits:
        (same if language_for_path(hit.path) in languages else other).append(hit)
    return same, other
