"""The compact text of ``search_code`` and ``find_references`` for the MCP tools.

The same contents as :meth:`~.code_search.CodeSearch.to_dict` (path, line,
text, whether the line is in the diff, the definition a reference sits in),
written for a reader who pays for each character:

- one head line per search: what was looked for, how many lines (or
  references) in how many files at which side and revision (said once, first,
  for several names), the lines shown and the ``offset`` of the next page; a
  reference search adds the hits it counted in files of another language and
  the lines where the name sits only in comments and strings;
- the hits grouped by file, the path once, then one line per hit:
  ``LINE: text`` (``search_code``), ``LINE DEFINITION: text``
  (``find_references``: the definition the line sits in, ``〃`` when it is the
  previous hit's, none at module level or without an outline); a line of the diff says
  ``(in diff)``; a file's references in the diff are one line, ``L1, L2: (in diff)``
  where the first of them sits, with no text or definition (the reviewer read them
  in the diff); text without its indentation, as cut by the search;
- the notes, once, after all the searches.
"""

from __future__ import annotations

from collections.abc import Iterable

from .code_search import CodeSearch, files_counted
from .search_tree import CodeHit

_MODULE_LEVEL = "(module level)"


def _head(what: str, page: CodeSearch, offset: int, where: bool) -> str:
    head = f"{what}: {page.total} in {files_counted(page.files_matched)}"
    if where:
        head += " " + page.where
    if page.next_offset is not None or offset:
        head += f"; {offset + 1}-{offset + len(page.hits)} shown"
    if page.next_offset is not None:
        head += f", next offset={page.next_offset}"
    return "; ".join([head, *page.left_apart()])


def _hit_line(hit: CodeHit, previous: str | None, references: bool) -> str:
    text = "(binary file)" if hit.text is None else hit.text.strip()
    if hit.in_diff:
        text = "(in diff)" if references else f"{text} (in diff)"
    where = hit.definition
    if where is None or where == _MODULE_LEVEL:
        return f" {hit.line}: {text}"
    if where == previous:
        return f" {hit.line} 〃: {text}"
    return f" {hit.line} {where}: {text}"


def _hits(hits: Iterable[CodeHit], references: bool) -> list[str]:
    lines: list[str] = []
    path = previous = None
    in_diff: list[str] = []  # this file's references in the diff: their line numbers
    at = 0  # where in ``lines`` they are said, at the first of them
    for hit in hits:
        if hit.path != path:
            path, previous, in_diff = hit.path, None, []
            lines.append(hit.path)
        if references and hit.in_diff:
            if not in_diff:
                at = len(lines)
                lines.append("")
            in_diff.append(str(hit.line))
            lines[at] = f" {', '.join(in_diff)}: (in diff)"
            previous = None
            continue
        lines.append(_hit_line(hit, previous, references))
        previous = hit.definition
    return lines


def render_searches(
    searches: list[tuple[str, CodeSearch]], offset: int = 0, references: bool = False
) -> str:
    """Each search (what was looked for, its page) in the compact text, then the notes;
    several searches (of one side) say the side once, first."""
    lines: list[str] = []
    notes: dict[str, None] = {}
    if len(searches) > 1:
        lines.append(f"{len(searches)} names {searches[0][1].where}")
    for what, page in searches:
        lines.append(_head(what, page, offset, len(searches) == 1))
        lines += _hits(page.hits, references)
        notes.update(dict.fromkeys(page.notes))
    lines += [f"note: {note}" for note in notes]
    return "\n".join(lines) + "\n"
