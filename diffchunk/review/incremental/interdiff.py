"""An interdiff section: the branch's change to one file as reviewed vs its change now.

When a rebase brought in upstream changes to a file the branch also changes, no
diff of two versions of the file shows only what the branch changed since the
review: each version also differs by what upstream did.  So, as ``git
range-diff`` shows a commit whose patch changed, the section diffs the two
versions of the *change*:

- a file's *change text* (:func:`change_text`) is its sections of the range's
  diff without the ``diff --git`` and ``index`` lines (an ``index`` line is
  kept for a section without hunks: a binary file's change is its blobs),
  without the ``---``/``+++`` lines, and with each hunk header's line numbers
  dropped (``@@ -12,7 +12,8 @@ def f`` becomes ``@@ def f``): line numbers
  move with upstream's changes, the change does not;
- the section (:func:`interdiff_section`) is a unified diff of the change text
  as reviewed (``-``) and now (``+``), three lines of context, so its lines
  carry two markers: ``-+x = 1`` is an added line that the change no longer
  adds, ``++x = 2`` one it adds now, `` -y`` a removed line it still removes.

It is written as a ``diff --git`` section of the file's path, so that the
parser keeps it as that file's section (``get_file_diff``,
``find_chunks_for_files``, ``search_diff`` find it by path) and the chunker cuts
it like any other; it says what it is in its ``---``/``+++`` lines (after a
tab, where a unified diff puts a time stamp, which the parser leaves out of
the name) and after each hunk header (``@@ -1,6 +1,6 @@ interdiff: ...``,
where git puts a function's name), which every part of a cut section keeps
(the chunker writes a part's ``---``/``+++`` lines from the path alone).  It
does not apply to any file, and its line numbers are those of the change
texts: findings on its lines are refused (see
:mod:`diffchunk.review.record.findings`).

The diff of the two texts is :mod:`difflib`'s (the texts are small: one
file's change), so its hunks may group lines otherwise than git would.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from ...diff.buffer import DiffData
from ...diff.model import FileDiff
from ...diff.paths import encode_path, quote_git_path

CONTEXT = 3
"""Context lines of an interdiff hunk: git's default (-U3), so it reads like the
diffs around it."""


MARK = b"interdiff: the change as reviewed (-) and now (+)"
OLD_LABEL = b"\tthe branch's change as reviewed (interdiff)"
NEW_LABEL = b"\tthe branch's change now (interdiff)"

_HUNK_HEADER = re.compile(rb"@@ -[0-9,]+ \+[0-9,]+ @@ ?")
_LINE = re.compile(rb"[^\n]*\n|[^\n]+")


def _line_end(line: bytes) -> bytes:
    return line if line.endswith(b"\n") else line + b"\n"


def change_text(data: DiffData, sections: Sequence[FileDiff]) -> list[bytes]:
    """The change text of one file from its sections (see the module doc), one line
    per item, each ending with a line feed."""
    lines: list[bytes] = []
    for fd in sections:
        header = data[fd.start : fd.header_end]
        for line in _LINE.findall(header):
            if line.startswith((b"diff --git ", b"--- ", b"+++ ")):
                continue
            if line.startswith(b"index ") and fd.hunks:
                continue
            lines.append(_line_end(line))
        for line in _LINE.findall(data[fd.header_end : fd.end]):
            if line.startswith(b"@@"):
                head = _HUNK_HEADER.match(line)
                tail = line[head.end() :] if head is not None else line[2:]
                line = b"@@ " + tail if tail.strip() else b"@@\n"
            lines.append(_line_end(line))
    return lines


def _range(start: int, count: int) -> bytes:
    """A hunk header's range (``-5,0`` names the line before an empty side, as git)."""
    first = start + 1 if count else start
    return b"%d,%d" % (first, count)


def interdiff_body(old: Sequence[bytes], new: Sequence[bytes]) -> bytes:
    """The hunks of the unified diff from ``old`` to ``new`` (lines with line feeds);
    empty when they are equal."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    out: list[bytes] = []
    for group in matcher.get_grouped_opcodes(CONTEXT):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(b"@@ -%s +%s @@ %s\n" % (_range(i1, i2 - i1), _range(j1, j2 - j1), MARK))
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(b" " + line for line in old[a1:a2])
                continue
            out.extend(b"-" + line for line in old[a1:a2])
            out.extend(b"+" + line for line in new[b1:b2])
    return b"".join(out)


def interdiff_section(path: str, old: Sequence[bytes], new: Sequence[bytes]) -> bytes:
    """The interdiff section of ``path`` (as the diff tools show it) from its change
    text as reviewed (``old``) and now (``new``); empty when they are equal."""
    body = interdiff_body(old, new)
    if not body:
        return b""
    raw = encode_path(path)
    a, b = quote_git_path(b"a/" + raw), quote_git_path(b"b/" + raw)
    return b"".join(
        (
            b"diff --git %s %s\n" % (a, b),
            b"--- %s%s\n" % (a, OLD_LABEL),
            b"+++ %s%s\n" % (b, NEW_LABEL),
            body,
        )
    )
