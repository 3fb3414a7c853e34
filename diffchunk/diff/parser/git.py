"""``diff --git`` and ``diff --cc`` sections: the section line, the extended header
lines, then hunks or a binary payload.

Grammar (git's diff format)::

    git-section = "diff --git " names LF *extended [file-lines] (*hunk / binary)
    cc-section  = ("diff --cc " / "diff --combined ") name LF *extended [file-lines]
                  *combined-hunk
    extended    = "old mode " mode / "new mode " mode
                / "deleted file mode " mode / "new file mode " mode
                / "rename from " path / "rename to " path
                / "copy from " path / "copy to " path
                / "similarity index " pct / "dissimilarity index " pct
                / "index " sha ".." sha [SP mode]
                / "mode " mode *("," mode) ".." mode          ; cc only
    file-lines  = "--- " name LF "+++ " name LF              ; see .unified
    binary      = "Binary files " names " differ" LF
                / "GIT binary patch" LF 1*block
    block       = ("literal " / "delta ") size LF *line blank-line

The names are read in :mod:`.git_paths`, the hunks in :mod:`.hunks` and
:mod:`.combined`.  Extended lines end at the first line that is none of
them.  A modified file without hunks, binary payload or mode change is
flagged "file header without changes"; a gitlink (mode 160000, or a hunk
of ``Subproject commit`` lines) is a submodule.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from diffchunk.diff import syntax as sx
from diffchunk.diff.hunk import Hunk, LazyHunks
from diffchunk.diff.model import DiffKind, FileStatus, new_file_diff
from diffchunk.diff.paths import decode_path, unquote_git_path

from .combined import combined_paths, read_combined_hunks
from .cursor import Cursor
from .git_paths import git_paths
from .hunks import check_hunks, read_hunks
from .unified import strip_cr, strip_stamp

SUBMODULE_BODY_BYTES = 200
"""Bodies of at most this many bytes are looked at for ``Subproject commit``
lines: a gitlink's one hunk holds two such lines, about 110 bytes."""


logger = logging.getLogger(__name__)

__all__ = ["read_git_section", "read_plain_git_section"]

# Enum members bound once: looking one up on its class costs about 0.1 us,
# a dozen times per file section.
_MODIFIED, _ADDED, _DELETED, _RENAMED, _COPIED = (
    FileStatus.MODIFIED,
    FileStatus.ADDED,
    FileStatus.DELETED,
    FileStatus.RENAMED,
    FileStatus.COPIED,
)
_KIND_GIT, _KIND_COMBINED = DiffKind.GIT, DiffKind.COMBINED


def read_plain_git_section(r: Cursor, s: int) -> int:
    """The most common section, in one go: returns its end, or -1 to use
    :func:`read_git_section`.

    Reads ``diff --git a/P b/P``, an ``index`` line, ``--- a/P`` and
    ``+++ b/P`` (no quotes, tabs or CRs), then hunks that pass
    :func:`~.hunks.check_hunks`: what :func:`read_git_section` would record
    for it, with far less work per file.
    """
    if not r.lazy:
        return -1
    data = r.data
    m = sx.PLAIN_GIT_HEADER.match(data, s)
    if m is None:
        return -1
    pos = m.end()
    if pos >= r.limit or data[pos] != 0x40:
        return -1
    minus, plus = m.group(2), m.group(3)
    if not (
        minus.startswith(b"a/")
        and plus.startswith(b"b/")
        and len(minus) > 2
        and minus[2:] == plus[2:]
        and b"\t" not in minus
        and not minus.endswith(b"\r")
        and data.startswith(minus + b" " + plus + b"\n", s + 11)  # after "diff --git "
        and not minus.endswith(b'"')
    ):
        return -1
    quick = check_hunks(r, pos)
    if quick is None:
        r.not_lazy = pos  # read_git_section need not check these hunks again
        return -1
    hunks, end, added, removed, lines = quick
    r.gap(s)
    mode = m.group(1).decode("ascii") if m.group(1) else None
    r.prefixes = (b"a/", b"b/")
    # What r.add_file does, inline on the path of most sections.
    r.files.add_plain(
        start=s,
        header_end=pos,
        end=end,
        path=decode_path(minus[2:]),
        hunks=hunks,
        added=added,
        removed=removed,
        mode=mode,
        is_submodule=mode == sx.SUBMODULE_MODE or _submodule_body(r, hunks),
        commit=r.commit,
        minus=m.start(2),
        token_length=len(minus),
        line_count=lines + 4,  # the four header lines the regex matched
    )
    r.gap_start = end
    return end


class _Header:
    """What the lines between a section's first line and its first hunk say.

    A plain class rather than a dataclass: its attributes are filled in one
    by one as the lines are read, and a dataclass costs a millisecond more
    at every start of the program.
    """

    __slots__ = (
        "binary_patch",
        "dst",
        "index_mode",
        "is_binary",
        "malformed",
        "minus",
        "new_mode",
        "old_mode",
        "payload_start",
        "plus",
        "pos",
        "similarity",
        "src",
        "status",
    )

    def __init__(self, pos: int) -> None:
        self.pos = pos  # where the lines after them start (hunks, or the next section)
        self.status = _MODIFIED
        self.old_mode: str | None = None
        self.new_mode: str | None = None
        self.index_mode: str | None = None  # the mode on the ``index`` line
        self.src: bytes | None = None  # ``rename from`` / ``copy from`` path
        self.dst: bytes | None = None
        self.similarity: int | None = None
        self.minus: bytes | None = None  # the ``---``/``+++`` names, stamps stripped
        self.plus: bytes | None = None
        self.is_binary = False
        self.binary_patch = False
        self.payload_start: int | None = None  # where a ``GIT binary patch`` starts
        self.malformed: str | None = None


def read_git_section(r: Cursor, s: int, *, combined: bool) -> int:
    """Read the ``diff --git`` (or, ``combined``, ``diff --cc``) section at ``s``
    (grammar in the module doc); returns its end."""
    r.gap(s)
    first, pos = r.line(s)
    rest = first[first.index(b" ", 5) + 1 :]  # after "diff --git " / "--cc " / "--combined "
    h = _read_header(r, s, pos, combined)
    hunks, end, added, removed, line_count, problem = _read_hunks(r, s, h.pos, combined)
    malformed = h.malformed or problem

    old_mode, new_mode = h.old_mode, h.new_mode
    if h.index_mode and old_mode is None and new_mode is None:
        old_mode = new_mode = h.index_mode
    status = h.status
    if status is _MODIFIED:
        if h.minus == sx.DEV_NULL:
            status = _ADDED
        elif h.plus == sx.DEV_NULL:
            status = _DELETED
    if combined:
        path_old, path_new, tok_old, tok_new = combined_paths(rest, h.minus, h.plus, status)
    else:
        paths = git_paths(rest, h.minus, h.plus, h.src, h.dst, status, r.prefixes)
        path_old, path_new, tok_old, tok_new, r.prefixes = paths
    if (
        not hunks
        and not h.is_binary
        and malformed is None
        and status is _MODIFIED
        and (old_mode is None or old_mode == new_mode)
    ):
        malformed = "file header without changes"
    if malformed:
        logger.debug("malformed file section at %d: %s", s, malformed)
    return r.add_file(
        new_file_diff(
            index=len(r.files),
            start=s,
            header_end=h.pos if h.payload_start is None else h.payload_start,
            end=end,
            kind=_KIND_COMBINED if combined else _KIND_GIT,
            status=status,
            old_path=path_old,
            new_path=path_new,
            hunks=hunks,
            added=added,
            removed=removed,
            old_mode=old_mode,
            new_mode=new_mode,
            similarity=h.similarity,
            is_binary=h.is_binary,
            binary_patch=h.binary_patch,
            is_submodule=sx.SUBMODULE_MODE in (old_mode, new_mode) or _submodule_body(r, hunks),
            commit=r.commit,
            old_token=tok_old,
            new_token=tok_new,
            malformed=malformed,
            line_count=line_count,
        )
    )


def _read_hunks(
    r: Cursor, s: int, pos: int, combined: bool
) -> tuple[Sequence[Hunk], int, int, int, int, str | None]:
    """The hunks of the section at ``s`` from ``pos`` on: ``(hunks, end, added,
    removed, lines, problem)``, ``lines`` those of the whole section.

    Checked as a whole and built later when they pass
    :func:`~.hunks.check_hunks` (not already failed at ``pos``), else read
    hunk by hunk.
    """
    data = r.data
    if r.lazy and not combined and pos < r.limit and data[pos] == 0x40 and pos != r.not_lazy:
        quick = check_hunks(r, pos)
        if quick is not None:
            hunks, end, added, removed, lines = quick
            return hunks, end, added, removed, lines + data.count(b"\n", s, pos), None
    run = read_combined_hunks(r, pos) if combined else read_hunks(r, pos)
    lines = r.span_lines(s, run.end)
    return tuple(run.hunks), run.end, run.added, run.removed, lines, run.problem


def _read_header(r: Cursor, s: int, pos: int, combined: bool) -> _Header:
    """The extended header lines and ``---``/``+++`` lines from ``pos`` on.

    The usual modified-file header (``index``, ``---``, ``+++``) is matched
    in one regex; otherwise line by line, up to the first line that is none
    of the extended lines (a hunk, the next section, or a binary payload,
    which is read here).
    """
    data = r.data
    n = r.limit
    common = None if combined else sx.PLAIN_GIT_HEADER.match(data, s)
    if common is not None:
        h = _Header(common.end())
        h.index_mode = common.group(1).decode("ascii") if common.group(1) else None
        h.minus = strip_stamp(strip_cr(common.group(2)))
        h.plus = strip_stamp(strip_cr(common.group(3)))
        return h
    h = _Header(pos)
    while pos < n:
        if data[pos] == 0x40:  # a hunk
            break
        line, nxt = r.line(pos)
        if line.startswith(sx.MINUS_FILE):
            if not data.startswith(sx.PLUS_FILE, nxt):
                h.malformed = "'---' line without a '+++' line"
                pos = nxt
                break
            h.minus = strip_stamp(line[len(sx.MINUS_FILE) :])
            plus_line, pos = r.line(nxt)
            h.plus = strip_stamp(plus_line[len(sx.PLUS_FILE) :])
            break
        if line.startswith(sx.BINARY_FILES):
            h.is_binary = True
            pos = nxt
            break
        if line.startswith(sx.GIT_BINARY_PATCH):
            h.is_binary = h.binary_patch = True
            h.payload_start = pos
            pos, h.malformed = _binary_payload(r, nxt)
            break
        if not _extended_line(h, line, combined):
            break
        pos = nxt
    h.pos = pos
    return h


def _extended_line(h: _Header, line: bytes, combined: bool) -> bool:
    """Record what the extended header ``line`` says in ``h``; False when it is none."""
    if line.startswith(sx.INDEX):
        m = sx.INDEX_LINE.match(line)
        if m and m.group(3):
            h.index_mode = m.group(3).decode("ascii")
    elif line.startswith(sx.NEW_FILE_MODE):
        h.status = _ADDED
        h.new_mode = _mode(line[len(sx.NEW_FILE_MODE) :])
    elif line.startswith(sx.DELETED_FILE_MODE):
        h.status = _DELETED
        h.old_mode = _mode(line[len(sx.DELETED_FILE_MODE) :])
    elif line.startswith(sx.OLD_MODE):
        h.old_mode = _mode(line[len(sx.OLD_MODE) :])
    elif line.startswith(sx.NEW_MODE):
        h.new_mode = _mode(line[len(sx.NEW_MODE) :])
    elif line.startswith(sx.RENAME_FROM) or line.startswith(sx.COPY_FROM):
        h.status = _RENAMED if line[0] == 0x72 else _COPIED
        h.src = unquote_git_path(line[line.index(b" from ") + 6 :])
    elif line.startswith(sx.RENAME_TO) or line.startswith(sx.COPY_TO):
        h.dst = unquote_git_path(line[line.index(b" to ") + 4 :])
    elif line.startswith(sx.SIMILARITY):
        m = sx.PERCENT.match(line, len(sx.SIMILARITY))
        h.similarity = int(m.group(1)) if m else None
    elif line.startswith(sx.DISSIMILARITY):
        pass
    elif combined and line.startswith(sx.COMBINED_MODE):
        modes = line[len(sx.COMBINED_MODE) :].split(b"..")
        h.old_mode = _mode(modes[0].split(b",")[0])
        h.new_mode = _mode(modes[-1]) if len(modes) > 1 else None
    else:
        return False
    return True


def _binary_payload(r: Cursor, pos: int) -> tuple[int, str | None]:
    """Consume ``literal``/``delta`` blocks, each ending at a blank line."""
    data = r.data
    blocks = 0
    while pos < r.limit and sx.BINARY_BLOCK.match(data, pos):
        blank = sx.BLANK_LINE.search(data, pos)
        if blank is None:
            return r.limit, "binary patch without its closing blank line"
        pos = blank.end()
        blocks += 1
    if blocks == 0:
        return pos, "'GIT binary patch' without a literal/delta block"
    return pos, None


def _submodule_body(r: Cursor, hunks: Sequence[Hunk]) -> bool:
    """Whether the one hunk of ``hunks`` is a gitlink's ``Subproject commit`` change."""
    if len(hunks) != 1:
        return False
    if isinstance(hunks, LazyHunks):  # one hunk: its span is the region
        body_start = r.line_end(hunks.start)
        end = hunks.end
    else:
        body_start, end = hunks[0].body_start, hunks[0].end
    if end - body_start > SUBMODULE_BODY_BYTES:
        return False
    return r.data.find(b"Subproject commit ", body_start, end) >= 0


def _mode(value: bytes) -> str | None:
    m = sx.MODE_VALUE.match(value.strip())
    return m.group(0).decode("ascii") if m else None
