"""Plain unified sections (``diff -u``, ``diff -ruN``, svn, hg), and the grammar of
the ``---``/``+++`` file lines that git sections share.

Grammar::

    unified-section = [opener] (file-lines / binary-note) *hunk
    opener      = "diff " args LF            ; diff -ruN one/x two/x, hg's diff -r REV x
                / "Index: " path LF 1*"=" LF  ; svn
                / "Binary files " names " differ" LF
    file-lines  = "--- " name [TAB stamp] LF "+++ " name [TAB stamp] LF
    binary-note = lines up to the next section holding svn's, git's or hg's
                  note on a binary file

A side named ``/dev/null``, or dated at the epoch (``diff -N``) or
``(nonexistent)`` (svn) with one hunk that only adds (removes), is an added
(deleted) file.  Names lose a common ``a/``-style or ``dir1/`` prefix.
"""

from __future__ import annotations

from collections.abc import Sequence

from diffchunk.diff import syntax as sx
from diffchunk.diff.hunk import Hunk
from diffchunk.diff.model import DiffKind, FileStatus, new_file_diff
from diffchunk.diff.paths import decode_path, split_prefixes, split_quoted, strip_prefix
from diffchunk.diff.paths import unquote_git_path as unquote

from .cursor import Cursor
from .hunks import read_hunks

__all__ = ["read_unified_section", "split_stamp", "strip_cr", "strip_stamp"]

_MODIFIED, _ADDED, _DELETED = FileStatus.MODIFIED, FileStatus.ADDED, FileStatus.DELETED
_KIND_UNIFIED = DiffKind.UNIFIED


def read_unified_section(r: Cursor, s: int, kind: str) -> int:
    """Read the unified section at ``s`` (grammar in the module doc); returns its end.

    ``kind`` is what its first line opens: ``cmd``, ``binary``, ``index`` or
    ``pair`` (the ``---`` line itself).
    """
    data = r.data
    r.gap(s)
    pos, hint_paths = _read_opener(r, s, kind)
    minus = plus = None
    stamp_old = stamp_new = b""
    is_binary = False
    malformed: str | None = None
    m = sx.UNIFIED_PAIR.match(data, pos)
    if m:
        minus, stamp_old = split_stamp(strip_cr(m.group(1)))
        plus, stamp_new = split_stamp(strip_cr(m.group(2)))
        pos = m.end()
    else:
        stop, _ = r.next_section(pos)
        if kind in ("cmd", "binary") and data.startswith(b"Binary file", pos):
            stop = r.line_end(pos)
        chunk = data[pos:stop]
        if sx.SVN_BINARY in chunk or sx.BINARY_FILES in chunk or sx.HG_BINARY in chunk:
            is_binary = True
        else:
            malformed = "no '---'/'+++' lines"
        pos = stop
    header_end = pos

    run = read_hunks(r, pos)
    hunks = run.hunks
    malformed = malformed or run.problem
    if minus is not None and plus is not None and not hunks and malformed is None:
        malformed = "'---'/'+++' lines without hunks"

    status = _MODIFIED
    if minus == sx.DEV_NULL or (sx.ABSENT_STAMP.match(stamp_old) and _only_adds(hunks)):
        status = _ADDED
    elif plus == sx.DEV_NULL or (sx.ABSENT_STAMP.match(stamp_new) and _only_removes(hunks)):
        status = _DELETED

    ux = unquote(minus) if minus is not None else None
    uy = unquote(plus) if plus is not None else None
    if ux is None or uy is None:
        if hint_paths is not None:
            ux, uy = unquote(hint_paths[0]), unquote(hint_paths[1])
        else:
            ux = uy = b""
    old, new = _names(ux, uy, r.prefixes)
    return r.add_file(
        new_file_diff(
            index=len(r.files),
            start=s,
            header_end=header_end,
            end=run.end,
            kind=_KIND_UNIFIED,
            status=status,
            old_path=None if status is _ADDED else decode_path(old),
            new_path=None if status is _DELETED else decode_path(new),
            hunks=tuple(hunks),
            added=run.added,
            removed=run.removed,
            is_binary=is_binary,
            commit=r.commit,
            old_token=minus if minus is not None else ux,
            new_token=plus if plus is not None else uy,
            malformed=malformed,
            line_count=r.span_lines(s, run.end),
        )
    )


def _read_opener(r: Cursor, s: int, kind: str) -> tuple[int, tuple[bytes, bytes] | None]:
    """Where the file lines after the opener at ``s`` start, and the names the
    opener gives (None for a ``pair`` section, which has no opener)."""
    if kind == "cmd":
        line, pos = r.line(s)
        return pos, _command_paths(line)
    if kind == "binary":
        m = sx.BINARY_LINE.match(r.data, s)
        return s, _split_binary_names(m.group(1) if m else b"")
    if kind == "index":
        line, pos = r.line(s)
        path = line[len(b"Index: ") :]
        return r.line_end(pos), (path, path)  # after the ===== line
    return s, None


def _names(ux: bytes, uy: bytes, prefixes: tuple[bytes, bytes] | None) -> tuple[bytes, bytes]:
    """Names of a plain diff's two sides, with ``a/``-style or ``dir1/`` prefixes removed."""
    if ux == sx.DEV_NULL and uy == sx.DEV_NULL:
        return ux, uy
    if ux == sx.DEV_NULL:
        path = strip_prefix(uy, prefixes[1] if prefixes is not None else b"b/")
        return path, path
    if uy == sx.DEV_NULL:
        path = strip_prefix(ux, prefixes[0] if prefixes is not None else b"a/")
        return path, path
    split = split_prefixes(ux, uy)
    if split is None:
        return ux, uy
    return split[2], split[2]


def _command_paths(line: bytes) -> tuple[bytes, bytes] | None:
    """The file names of ``diff -ruN one/x two/x`` or hg's ``diff -r REV [-r REV] x``."""
    args = line.split()[1:]
    names: list[bytes] = []
    hg = False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == b"-r" and i + 1 < len(args) and sx.HG_REVISION.fullmatch(args[i + 1]):
            hg = True
            i += 2
            continue
        if not arg.startswith(b"-"):
            names.append(arg)
        i += 1
    if not names:
        return None
    if hg or len(names) == 1:
        return names[-1], names[-1]
    return names[-2], names[-1]


def _split_binary_names(names: bytes) -> tuple[bytes, bytes]:
    """``one/x and two/x`` -> both names; prefers the split whose names share a path."""
    candidates = []
    at = names.find(b" and ")
    while at >= 0:
        candidates.append((names[:at], names[at + 5 :]))
        at = names.find(b" and ", at + 1)
    if not candidates:
        return names, names
    for old, new in candidates:
        if split_prefixes(unquote(old), unquote(new)) is not None:
            return old, new
    return candidates[0]


def _only_adds(hunks: Sequence[Hunk]) -> bool:
    return len(hunks) == 1 and hunks[0].old_start == 0 and hunks[0].old_count == 0


def _only_removes(hunks: Sequence[Hunk]) -> bool:
    return len(hunks) == 1 and hunks[0].new_start == 0 and hunks[0].new_count == 0


# ------------------------------------------------------------- file name lines


def strip_cr(value: bytes) -> bytes:
    return value[:-1] if value.endswith(b"\r") else value


def split_stamp(token: bytes) -> tuple[bytes, bytes]:
    """``a/x\\t2024-...`` -> ``(b"a/x", b"\\t2024-...")``; quoted names keep their tabs."""
    if token.startswith(b'"'):
        q = split_quoted(token)
        if q is not None:
            return q[0], q[1]
    tab = token.find(b"\t")
    if tab < 0:
        return token, b""
    return token[:tab], token[tab:]


def strip_stamp(token: bytes) -> bytes:
    """The name of a ``---``/``+++`` line's text, without its time stamp."""
    return split_stamp(token)[0]
