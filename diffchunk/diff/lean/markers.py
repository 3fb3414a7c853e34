"""The line prefixes of the lean format, the kinds of fold, and the legend of a view.

No line of a diff's hunks starts with one of these prefixes (hunk lines start
with a space, ``+``, ``-`` or ``\\``), so a lean line is told by its first
characters alone.
"""

from __future__ import annotations

from collections.abc import Collection

__all__ = [
    "CUT",
    "FILE",
    "FOLD",
    "HUNK",
    "KINDS",
    "PAIR",
    "TEXT",
    "legend",
]

FILE = "## "  # a file (or a commit, or text outside the files): one line
HUNK = "@@ "  # a hunk: "@@ N section", its next shown line is new line N
DITTO = "〃"  # in a hunk's head: the same section as the hunk before
FOLD = "⋯ "  # lines left out, and what they were
CUT = "↳ "  # the rest of the line above, cut
PAIR = "~"  # a removed and an added line in one: [-old-]{+new+}
TEXT = "| "  # a line outside the files (a commit message), as it is

#: Kinds of fold, as :class:`~diffchunk.diff.lean.view.FoldStats` counts them.
HEADERS = "headers"  # file headers and hunk headers made one short line
CONTEXT = "context"  # unchanged lines left out
WORDS = "words"  # removed/added pairs shown once with word marks
REINDENT = "reindent"  # blocks only re-indented
MOVED = "moved"  # blocks moved within the view
REPEATED = "repeated"  # identical edits after the first
REMOVED = "removed"  # runs of removed lines (deleted code, deleted files)
BINARY = "binary"  # GIT binary patch payloads
LONG_LINES = "long_lines"  # the ends of over-long lines
COMMITS = "commits"  # commit headers and diffstats
KINDS = (
    HEADERS,
    CONTEXT,
    WORDS,
    REINDENT,
    MOVED,
    REPEATED,
    REMOVED,
    BINARY,
    LONG_LINES,
    COMMITS,
)


def legend(kinds: Collection[str]) -> str:
    """How to read a view that uses the folds ``kinds``: one line."""
    parts = ["lean view: '@@ N' next line is new line N (〃 same function as above)"]
    if CONTEXT in kinds:
        parts.append("unchanged lines left out ('⋯ N': N of them)")
    if WORDS in kinds:
        parts.append("'~' [-old-]{+new+} words")
    parts.append("other '⋯'/'↳' lines say what they leave out; format=\"raw\" has every line")
    return "; ".join(parts) + "."
