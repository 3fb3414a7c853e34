"""The hunks and names of combined diffs (``diff --cc``/``--combined``, merges).

Grammar of a combined hunk, for a merge of N parents::

    combined-hunk = marks SP N*("-" range SP) "+" range SP marks tail LF body
    marks         = (N+1)*"@"              ; the same on both sides
    range         = start ["," count]       ; a missing count means 1
    body          = *(N*tag text LF *marker)
    tag           = " " / "+" / "-"        ; one column per parent

A line with a ``-`` in some column is a removed line, present in the
parents marked ``-``; any other line is on the new side and present in the
parents marked `` ``.  The hunk ends when the new count and every parent's
count are used up.  The section line names one path: the file has the same
name on every side.
"""

from __future__ import annotations

from diffchunk.diff import syntax as sx
from diffchunk.diff.hunk import Hunk
from diffchunk.diff.model import FileStatus
from diffchunk.diff.paths import decode_path, is_quoted, quote_git_path, unquote_git_path

from .cursor import Cursor
from .hunks import HunkRun

__all__ = ["combined_paths", "read_combined_hunks"]

_ADDED, _DELETED = FileStatus.ADDED, FileStatus.DELETED


def read_combined_hunks(r: Cursor, pos: int) -> HunkRun:
    """Every combined hunk from ``pos`` on (grammar in the module doc)."""
    data = r.data
    hunks: list[Hunk] = []
    added = removed = 0
    while pos < r.limit and data[pos] == 0x40:
        hunk, problem = _combined_hunk(r, pos)
        if hunk is None:
            return HunkRun(hunks, pos, added, removed, problem)
        hunks.append(hunk)
        added += hunk.added
        removed += hunk.removed
        pos = hunk.end
        if problem:
            return HunkRun(hunks, pos, added, removed, problem)
    return HunkRun(hunks, pos, added, removed, None)


def _combined_hunk(r: Cursor, s: int) -> tuple[Hunk | None, str | None]:
    """The combined hunk at ``s`` and what is wrong with it (None, None: nothing)."""
    data = r.data
    n = r.limit
    m = sx.COMBINED_HUNK_HEADER.match(data, s)
    if m is None or m.group(1) != m.group(5):
        return None, "unreadable combined hunk header"
    hend = m.end()
    if hend < n and data[hend] != 0x0A:
        return None, "unreadable combined hunk header"
    ncol = len(m.group(1)) - 1
    parents = tuple(
        (int(g.group(1)), int(g.group(2)) if g.group(2) is not None else 1)
        for g in sx.COMBINED_RANGE.finditer(m.group(2))
    )
    if len(parents) != ncol:
        return None, "combined hunk header with a wrong number of ranges"
    new_start = int(m.group(3))
    new_count = int(m.group(4)) if m.group(4) is not None else 1
    left = [count for _, count in parents]
    new_left = new_count
    added = removed = 0
    pos = body_start = min(hend + 1, n)
    while pos < n and (new_left > 0 or any(v > 0 for v in left)):
        if data[pos] == 0x5C:
            pos = r.line_end(pos)
            continue
        prefix = data[pos : pos + ncol]
        if len(prefix) < ncol or prefix.strip(b" +-"):
            break
        has_minus = 0x2D in prefix
        # a removed line is in the parents marked '-'; a kept line in those marked ' '
        present = 0x2D if has_minus else 0x20
        if not has_minus:
            new_left -= 1
        for i in range(ncol):
            if prefix[i] == present:
                left[i] -= 1
        added += 0x2B in prefix
        removed += has_minus
        pos = r.line_end(pos)
    while pos < n and data[pos] == 0x5C:
        pos = r.line_end(pos)
    problem = None
    if new_left > 0 or any(v > 0 for v in left):
        problem = "combined hunk ends early"
    hunk = Hunk(
        start=s,
        body_start=body_start,
        end=pos,
        old_start=parents[0][0],
        old_count=parents[0][1],
        new_start=new_start,
        new_count=new_count,
        added=added,
        removed=removed,
        section=_section_text(m.group(6)),
        parents=parents,
    )
    return hunk, problem


def _section_text(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace")
    if text.endswith("\r"):
        text = text[:-1]
    return text.strip()


def combined_paths(
    rest: bytes, minus: bytes | None, plus: bytes | None, status: FileStatus
) -> tuple[str | None, str | None, bytes, bytes]:
    """``(old_path, new_path, old_token, new_token)`` of a combined section whose
    ``diff --cc`` line ends with ``rest`` (its one name); tokens missing from
    the section are made as git's ``a/``/``b/`` names, quoted as ``rest`` is."""
    raw = unquote_git_path(rest)
    path = decode_path(raw)
    quoted = is_quoted(rest)
    tok_old = minus if minus is not None else _quoted_if(quoted, b"a/" + raw)
    tok_new = plus if plus is not None else _quoted_if(quoted, b"b/" + raw)
    return (
        None if status is _ADDED else path,
        None if status is _DELETED else path,
        tok_old,
        tok_new,
    )


def _quoted_if(quoted: bool, name: bytes) -> bytes:
    return quote_git_path(name) if quoted else name
