"""One file's diff as the review page shows it: rows, numbered, coloured, paged.

The file's whole diff (all its sections, excluded or not: as ``get_file_diff``
serves it) is read as rows (:class:`Row`), whose ``kind`` is:

- ``hunk``: a hunk header, with its ranges (``hunk``: old start, old count,
  new start, new count; None for a merge's ``@@@`` header, whose lines are not
  numbered);
- ``ctx``, ``add``, ``del``: a line of a hunk's body with its line numbers
  (``old``/``new``, 0 on a side it is not on), numbered by the engine's walk
  (:func:`~diffchunk.diff.hunk.number_lines`: the numbering the record reads a
  finding's lines with, so a finding sits under the line it points at);
- ``note``: git's "No newline at end of file";
- ``line``: a line of a hunk whose header gives no numbers;
- ``meta``: a header line a reader would otherwise miss (mode, rename, copy,
  similarity, binary), and the first line of each further section of the same
  path (a ``git log -p`` stream).

``diff --git``, ``index``, ``---`` and ``+++`` lines are not rows: the page
shows the file's path and status above them.  Rows are served
:data:`PAGE_ROWS` at a time from ``offset``
(``next_offset``: where the next answer starts), so a file of a million
lines opens at once; each answer is coloured on its own
(:mod:`diffchunk.review.export.highlight`).  A line longer than
:data:`PAGE_LINE_CHARS` characters is cut, and ``cut`` says
how many characters are left out.  Opening a file (its first rows) notes it
as *seen* in the review record, as ``get_file_diff`` does.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ...diff.hunk import number_lines, read_hunk_header
from ...errors import InvalidArgument
from ..export.highlight import Budget, DiffLine, Span, highlight_hunk, lexer_for, visible
from ..sessions.store import SessionStore
from ..tools.file_diffs import get_file_diff_bytes

PAGE_LINE_CHARS = 10_000
"""Characters of one diff or file line the page shows; the rest is left out
with a note saying how many characters (the diff tools serve the line whole)."""

PAGE_ROWS = 1_000
"""Rows of one file's diff sent at once; the page asks for the next rows as the
reader scrolls to them, so a file of a million lines opens at once."""


#: Header lines shown as ``meta`` rows.
META = (
    "old mode ",
    "new mode ",
    "deleted file mode ",
    "new file mode ",
    "similarity index ",
    "dissimilarity index ",
    "rename from ",
    "rename to ",
    "copy from ",
    "copy to ",
    "Binary files ",
    "GIT binary patch",
)
_HIDDEN = ("index ", "--- ", "+++ ")
_BODY_KIND = {" ": "ctx", "": "ctx", "+": "add", "-": "del", "\\": "note"}


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a file's diff (see the module doc)."""

    kind: str
    old: int = 0
    new: int = 0
    spans: tuple[Span, ...] = ()
    cut: int = 0  # characters of the line left out
    hunk: tuple[int, int, int, int] | None = None  # a hunk header's ranges

    def to_list(self) -> list[Any]:
        """The row as the page reads it: ``[kind, old, new, spans, cut, hunk]``, each
        span ``[text, class]`` (class: the token's, plus ``chg`` for a changed word)."""
        spans = [[s.text, f"{s.token} chg".lstrip() if s.changed else s.token] for s in self.spans]
        return [self.kind, self.old, self.new, spans, self.cut, self.hunk]


@dataclass(frozen=True, slots=True)
class FileRows:
    """Rows of one file's diff from ``offset``; ``next_offset`` None when they are all."""

    path: str
    rows: tuple[Row, ...]
    offset: int
    next_offset: int | None
    excluded: str | None  # why the file is in no chunk (its reason and detail)
    language: str | None  # the lexer's name (None: shown without colours)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "rows": [r.to_list() for r in self.rows],
            "offset": self.offset,
            "next_offset": self.next_offset,
            "excluded": self.excluded,
            "language": self.language,
        }


@dataclass(slots=True)
class _Raw:
    kind: str
    old: int
    new: int
    text: str  # without the diff's marker column for body lines
    hunk_id: int  # the hunk a body line belongs to (-1: none)
    ranges: tuple[int, int, int, int] | None = None


def _body(
    lines: list[str], at: int, ranges: tuple[int, int, int, int], hunk_id: int
) -> Iterator[_Raw]:
    """The rows of the hunk body at ``lines[at]`` (lazily: a hunk may have a million)."""
    old_start, old_count, new_start, new_count = ranges
    body = itertools.islice(lines, at, at + old_count + new_count + 2)
    for line, old, new in number_lines(
        body, old_start, new_start, old_count=old_count, new_count=new_count
    ):
        kind = _BODY_KIND.get(line[:1], "ctx")
        text = line if kind == "note" else line[1:]
        yield _Raw(kind, old, new, text, hunk_id)


def _walk(lines: list[str]) -> Iterator[_Raw]:
    """Every row of a file's diff, in order (see the module doc)."""
    at, end = 0, len(lines)
    sections = 0
    hunk_id = 0
    combined = False
    while at < end:
        line = lines[at]
        at += 1
        if line.startswith("@@"):
            hunk_id += 1
            header = read_hunk_header(line.encode("utf-8", "surrogatepass"), 0)
            if header is None:
                combined = True
                yield _Raw("hunk", 0, 0, line, hunk_id)
                continue
            combined = False
            ranges = (header.old_start, header.old_count, header.new_start, header.new_count)
            yield _Raw("hunk", 0, 0, line, hunk_id, ranges)
            used = 0
            for raw in _body(lines, at, ranges, hunk_id):
                used += 1
                yield raw
            at += used
        elif line.startswith("diff "):
            sections += 1
            combined = False
            if sections > 1:
                yield _Raw("meta", 0, 0, line, -1)
        elif line.startswith("\\"):
            yield _Raw("note", 0, 0, line, -1)
        elif combined and line[:1] in ("+", "-", " "):
            yield _Raw("line", 0, 0, line, hunk_id)
        elif line.startswith(_HIDDEN):
            continue
        elif line:
            yield _Raw("meta", 0, 0, line, -1)


def _rows(raws: list[_Raw], path: str) -> list[Row]:
    """The page's rows of ``raws``: cut, made visible, each hunk's lines coloured."""
    lexer = lexer_for(path)
    budget = Budget()
    out: list[Row] = []
    i = 0
    while i < len(raws):
        raw = raws[i]
        if raw.kind not in ("ctx", "add", "del", "note") or raw.hunk_id < 0:
            text, cut = _cut(raw.text)
            out.append(Row(raw.kind, raw.old, raw.new, (Span(text),), cut, raw.ranges))
            i += 1
            continue
        j = i
        while j < len(raws) and raws[j].hunk_id == raw.hunk_id and raws[j].kind != "hunk":
            j += 1
        group = raws[i:j]
        cuts = [_cut(r.text) for r in group]
        marks = {"ctx": " ", "add": "+", "del": "-"}
        lines = [
            DiffLine(marks.get(r.kind, "\\"), text)
            for r, (text, _) in zip(group, cuts, strict=True)
        ]
        for r, (_, cut), spans in zip(
            group, cuts, highlight_hunk(lexer, lines, budget), strict=True
        ):
            out.append(Row(r.kind, r.old, r.new, tuple(spans), cut))
        i = j
    return out


def _cut(text: str) -> tuple[str, int]:
    text = visible(text)
    if len(text) <= PAGE_LINE_CHARS:
        return text, 0
    return text[:PAGE_LINE_CHARS], len(text) - PAGE_LINE_CHARS


def file_rows(
    absolute_file_path: str,
    file_path: str,
    offset: int = 0,
    limit: int = PAGE_ROWS,
    *,
    store: SessionStore | None = None,
    note_seen: bool = True,
) -> FileRows:
    """Rows ``offset`` .. ``offset + limit - 1`` of ``file_path``'s diff (see the module
    doc); the first rows of a file note it as seen (unless ``note_seen`` is false)."""
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidArgument(f"offset must be a whole number >= 0, got {offset!r}.")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 0 < limit <= PAGE_ROWS:
        raise InvalidArgument(f"limit must be between 1 and {PAGE_ROWS}, got {limit!r}.")
    found = get_file_diff_bytes(absolute_file_path, file_path, store=store)
    lines = found.data.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    picked: list[_Raw] = []
    more = False
    for index, raw in enumerate(_walk(lines)):
        if index < offset:
            continue
        if len(picked) == limit:
            more = True
            break
        picked.append(raw)
    if offset == 0 and note_seen:
        from ..record.side_writes import record_seen_at

        record_seen_at(absolute_file_path, file_path=found.path, store=store)
    excluded = None
    if found.excluded is not None:
        ex = found.excluded
        excluded = ex.reason.value + (f": {ex.detail}" if ex.detail else "")
    lexer = lexer_for(found.path)
    return FileRows(
        path=found.path,
        rows=tuple(_rows(picked, found.path)),
        offset=offset,
        next_offset=offset + len(picked) if more else None,
        excluded=excluded,
        language=getattr(lexer, "name", None),
    )
