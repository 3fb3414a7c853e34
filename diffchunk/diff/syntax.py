"""Every pattern the diff parser recognises, in one table.

All patterns work on ``bytes``: the parser never decodes a whole buffer, and a
line ends only at ``\\n`` (a CR, form feed or U+2028 inside a line is content).
Patterns anchored with ``^`` are used with ``match(data, pos)`` at a line start,
or with ``search`` under ``re.M``.
"""

from __future__ import annotations

import re

# ---------------------------------------------------------------------------
# Lines that may open a section (a file diff or a commit header)
# ---------------------------------------------------------------------------

_STARTS = (
    rb"(?:diff |Index: |--- [^\n]*\n\+\+\+ |Binary files |commit [0-9a-f]{7,64}(?:[ \r\n]|\Z)"
    rb"|From [0-9a-f]{40}(?:[0-9a-f]{24})? )"
)
#: A line that can start a section, matched at a line start; the parser checks
#: the details with the specific patterns below.  ``--- `` only counts when a
#: ``+++ `` line follows.
SECTION_START = re.compile(_STARTS)
#: The same, searched from the ``\n`` before a line (a leading literal lets the
#: regex engine skip ahead fast; ``^`` under ``re.M`` is several times slower).
NEXT_SECTION_START = re.compile(rb"\n" + _STARTS)

GIT_HEADER = b"diff --git "
COMBINED_HEADER = re.compile(rb"diff --(?:cc|combined) ")
#: ``diff -ruN a b``, ``diff -u a b`` (GNU diff) or ``diff -r 1a2b path`` (hg),
#: when a ``---`` or ``Binary files`` line follows.
COMMAND_HEADER = re.compile(rb"diff [^\n]*\n(?:--- |Binary file)")
#: ``diff -r`` reports a changed binary file with this line alone.
BINARY_LINE = re.compile(rb"Binary files ([^\n]*) differ\r?(?:\n|\Z)")
#: A revision id after hg's ``diff -r``.
HG_REVISION = re.compile(rb"[0-9a-f]{6,40}")
SVN_INDEX = re.compile(rb"Index: ([^\n]*)\n=+\r?\n")
UNIFIED_PAIR = re.compile(rb"--- ([^\n]*)\n\+\+\+ ([^\n]*)\n?")

#: ``git log`` commit line: ``commit <sha>`` with optional decorations.
LOG_COMMIT = re.compile(rb"commit ([0-9a-f]{7,64})(?:[ \r\n]|\Z)")
#: ``git format-patch`` mbox separator: a SHA-1 (40 hex digits) or, in a
#: repository of the SHA-256 object format, 64.
MBOX_FROM = re.compile(
    rb"From ([0-9a-f]{40}(?:[0-9a-f]{24})?) Mon Sep 17 00:00:00 2001\r?(?:\n|\Z)"
)
MBOX_FROM_ANYWHERE = re.compile(
    rb"\nFrom [0-9a-f]{40}(?:[0-9a-f]{24})? Mon Sep 17 00:00:00 2001\r?\n"
)

# ---------------------------------------------------------------------------
# Git extended header lines (between ``diff --git`` and the first hunk)
# ---------------------------------------------------------------------------

OLD_MODE = b"old mode "
NEW_MODE = b"new mode "
DELETED_FILE_MODE = b"deleted file mode "
NEW_FILE_MODE = b"new file mode "
RENAME_FROM = b"rename from "
RENAME_TO = b"rename to "
COPY_FROM = b"copy from "
COPY_TO = b"copy to "
SIMILARITY = b"similarity index "
DISSIMILARITY = b"dissimilarity index "
INDEX = b"index "
#: Combined diffs write ``mode <a>,<b>..<c>``.
COMBINED_MODE = b"mode "
BINARY_FILES = b"Binary files "
GIT_BINARY_PATCH = b"GIT binary patch"
MINUS_FILE = b"--- "
PLUS_FILE = b"+++ "

#: The most common git file header (a modified file): ``diff --git``, ``index``,
#: ``---`` and ``+++`` lines, nothing else.
PLAIN_GIT_HEADER = re.compile(
    rb"diff --git [^\n]*\n"
    rb"index [0-9a-f]+\.\.[0-9a-f]+(?: ([0-7]{6}))?\r?\n"
    rb"--- ([^\n]*)\n\+\+\+ ([^\n]*)(?:\n|\Z)"
)
INDEX_LINE = re.compile(rb"index ([0-9a-f,]+)\.\.([0-9a-f]+)(?: ([0-7]{6}))?")
MODE_VALUE = re.compile(rb"[0-7]{6}")
PERCENT = re.compile(rb"(\d{1,3})%")
BINARY_BLOCK = re.compile(rb"(?:literal|delta) \d+\r?(?:\n|\Z)")
SUBMODULE_MODE = "160000"

#: svn's note on a binary file (``svn diff`` prints no content for it).
SVN_BINARY = b"Cannot display: file marked as a binary type."
#: hg's note on a binary file.
HG_BINARY = b"Binary file "

DEV_NULL = b"/dev/null"
#: An absent side: ``diff -N`` dates it at the epoch, svn writes ``(nonexistent)``.
ABSENT_STAMP = re.compile(rb"\t(?:1970-01-01 |1969-12-31 |\(nonexistent\))")

# ---------------------------------------------------------------------------
# Hunks
# ---------------------------------------------------------------------------

#: A hunk header anywhere in a span (flags stray hunks outside file sections).
HUNK_LIKE = re.compile(rb"\n@@+ -")
# One side of a two-way hunk header: a start and an optional count (a missing
# count means 1).  18 digits at most: every number fits a 64-bit integer.
_START = rb"\d{1,18}"
_COUNT = rb"(?:,(\d{1,18}))?"
#: A two-way hunk header (read by :func:`diffchunk.diff.hunk.read_hunk_header`):
#: groups 1 to 4 the old start and count, the new start and count; group 5 what
#: follows the closing ``@@`` on its line.
HUNK_HEADER = re.compile(
    rb"@@ -(" + _START + rb")" + _COUNT + rb" \+(" + _START + rb")" + _COUNT + rb" @@([^\n]*)"
)
#: Every two-way hunk header of a region, its four numbers (a count is empty when the
#: header leaves it out): the ranges of a section whose hunks the parser checked,
#: where every line starting with ``@`` is such a header.
HUNK_RANGES = re.compile(
    rb"^@@ -(" + _START + rb")" + _COUNT + rb" \+(" + _START + rb")" + _COUNT + rb" @@",
    re.MULTILINE,
)
#: The same header read only up to the new start (groups 1 and 3 as above):
#: enough for a header known to be well-formed, and a quarter faster.
HUNK_HEADER_START = re.compile(rb"@@ -(" + _START + rb")" + _COUNT + rb" \+(" + _START + rb")")

#: ``@@@ -a,b -c,d +e,f @@@`` with one ``-`` range per parent.
COMBINED_HUNK_HEADER = re.compile(
    rb"(@{3,}) ((?:-\d{1,18}(?:,\d{1,18})? )+)\+(\d{1,18})(?:,(\d{1,18}))? (@{3,})([^\n]*)"
)
COMBINED_RANGE = re.compile(rb"-(\d{1,18})(?:,(\d{1,18}))?")

#: The first line (searched from a ``\\n``) that cannot belong to a two-way
#: hunk body: anything not starting with space, ``+``, ``-`` or ``\\``
#: (an empty line included).
NOT_HUNK_LINE = re.compile(rb"\n[^ +\-\\]")

#: Scans a file's hunks from the ``\n`` before the first header: matches every
#: well-formed ``@@`` header (groups 1 and 2: old and new counts, None when
#: omitted, meaning 1) and every line that is neither a header nor a ``' '``,
#: ``'+'`` or ``'-'`` line (group 3: a ``\\`` marker line, an unreadable ``@``
#: line, or the line after the hunks).
HUNK_SCAN = re.compile(
    rb"\n(?:@@ -" + _START + _COUNT + rb" \+" + _START + _COUNT + rb" @@|([^ +\-]))"
)

# ---------------------------------------------------------------------------
# Commit headers
# ---------------------------------------------------------------------------

#: A blank line (``\n`` then an empty or CR-only line): ends binary blocks and log headers.
BLANK_LINE = re.compile(rb"\n\r?\n")
#: format-patch: the ``---`` line between the message and the diffstat.
MAIL_SEPARATOR = re.compile(rb"\n---\r?\n")
#: format-patch: the signature line before git's version trailer.
SIGNATURE = re.compile(rb"-- \r?\n")
MAIL_SUBJECT = re.compile(rb"^Subject: ?([^\n]*(?:\n[ \t][^\n]*)*)", re.M)
PATCH_TAG = re.compile(r"^\[[^\]]*PATCH[^\]]*\]\s*", re.I)
#: A diff written with colours (``git diff --color``): an SGR code before a line
#: that opens a file or a hunk.  Random bytes hold ``ESC [`` now and then, never this.
COLORED_DIFF = re.compile(rb"\x1b\[[0-9;]*m(?:diff |--- |\+\+\+ |@@ )")
