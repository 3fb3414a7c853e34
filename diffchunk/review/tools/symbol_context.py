"""``get_file_diff(..., context="symbol")``: a file's diff with each hunk widened to the
whole definition around it, at the new revision.

The new side comes from ``open_file_version`` (a snapshot of the new blob,
or the work tree's file checked against the diff), its outline from the
file tools; each run of changed lines is widened to the innermost function,
method or class that holds its first and its last line, when that
definition has at most :data:`MAX_SYMBOL_LINES` lines (a change in a huge
function keeps its hunk as it is).  Of a class, only its own lines around the
change are shown, between the nested definitions before and after it (a
changed class line or docstring shows the class's head, not every method: the
changed methods are widened on their own).  Hunks are rewritten by
:func:`diffchunk.diff.widen.widen_hunks`: a valid patch still.  Where the
hunks cannot be widened (a deleted, binary or renamed-only file, several
sections of one path, a file type without outline), the file's diff is
served as it is, with a note saying why; where the outline's bounds cut it
(nesting, time: :mod:`diffchunk.files.outline`), a note says so too.
"""

from __future__ import annotations

from typing import NamedTuple

from ...diff.hunk import Hunk, hunks_once
from ...diff.model import DiffKind
from ...diff.table import table_of
from ...diff.widen import changed_new_lines, split_lines, widen_hunks
from ...errors import DiffchunkError
from ...files.outline import OutlineItem, enclosing_path, outline_for_file
from ...files.outline_item import CLASS_LIKE_TYPES
from ..sessions.store import Session, SessionStore
from .file_versions import open_file_version

MAX_SYMBOL_LINES = 400
"""A definition longer than this is not shown whole around a hunk
(get_file_diff with context="symbol"): about 20k tokens of an answer hold
1,500 lines of code, and several hunks may widen."""


def _around(outline: list[OutlineItem], line: int) -> tuple[int, int] | None:
    """The lines of the innermost definition holding ``line``, a class's own lines only
    (None: none, or too long)."""
    path = enclosing_path(outline, line)
    if not path:
        return None
    item = path[-1]
    first, last = item.line_number, item.end_line
    if item.type in CLASS_LIKE_TYPES:  # its lines between the nested definitions around
        first = max([first - 1, *(c.end_line for c in item.children if c.end_line < line)]) + 1
        last = min([last + 1, *(c.line_number for c in item.children if c.line_number > line)]) - 1
    if last - first + 1 > MAX_SYMBOL_LINES:
        return None
    return first, last


def _wanted(
    loaded: Session, hunks: tuple[Hunk, ...], outline: list[OutlineItem]
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Each hunk's new lines to show (its changes and the definitions around them), and
    the definitions' lines among them."""
    data = loaded.review.parsed.data
    wanted = []
    definitions = []
    for hunk in hunks:
        changed = changed_new_lines(data, hunk)
        first, last = (changed[0], changed[-1]) if changed else (hunk.new_start, hunk.new_start)
        spans = [s for s in (_around(outline, first), _around(outline, last)) if s is not None]
        wanted.append((min([first, *(s[0] for s in spans)]), max([last, *(s[1] for s in spans)])))
        definitions += spans
    return wanted, definitions


class Widened(NamedTuple):
    """A file's diff widened to its definitions (None when it cannot be), a note on it,
    and the new lines of the definitions shown (first, last), where the unchanged lines
    are what the reader asked for: the rest is git's context."""

    data: bytes | None
    note: str | None
    definitions: tuple[tuple[int, int], ...] = ()


def symbol_context(
    absolute_file_path: str, loaded: Session, path: str, store: SessionStore | None
) -> Widened:
    """The widened diff of ``path`` (see :class:`Widened`)."""
    files = loaded.review.parsed.files
    sections = [files[i] for i in table_of(files, loaded.review.parsed.data).indices_of(path)]
    if len(sections) != 1:
        return Widened(None, f"{path} has {len(sections)} sections in this diff: shown as they are")
    fd = sections[0]
    if fd.new_path is None:
        return Widened(None, f"{path} is deleted: it has no new revision to widen the hunks in")
    if fd.kind is DiffKind.COMBINED or fd.is_binary or not fd.hunks:
        return Widened(None, f"{path} has no text hunks to widen")
    try:
        version = open_file_version(absolute_file_path, path, "new", store=store)
    except DiffchunkError as exc:
        return Widened(
            None, f"the new revision of {path} cannot be read ({exc.message}): hunks as they are"
        )
    with open(version.path, "rb") as fh:
        content = fh.read()
    cut: list[str] = []
    outline = outline_for_file(version.path, ("blob", version.blob), content, cut=cut)
    if not outline:
        why = "; ".join(cut) if cut else "its file type has none"
        return Widened(None, f"{path} has no outline ({why}): hunks as they are")
    hunks = tuple(hunks_once(fd.hunks))
    data = loaded.review.parsed.data
    wanted, definitions = _wanted(loaded, hunks, outline)
    widened = widen_hunks(data, hunks, split_lines(content), wanted)
    header = bytes(data[fd.start : fd.header_end])
    note = None
    if cut:
        note = f"the outline of {path} is cut ({'; '.join(cut)}): hunks there are as they are"
    return Widened(header + widened, note, tuple(sorted(set(definitions))))
