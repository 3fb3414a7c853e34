"""One file's diff as HTML table rows, with findings under the lines they point at.

The rows of a ``<table class="diff">``: three cells each (old line number,
new line number, the line with its ``+``/``-``/space marker).  Row classes:
``h`` a hunk header, ``a`` an added line, ``d`` a removed line, ``c`` a
context line, ``m`` a header line worth showing (rename, mode, binary), ``e``
git's "No newline at end of file" note, ``x`` a line of a hunk whose header
gives no line numbers (a combined diff's ``@@@``).  A finding's row (class ``f``, built
by the caller) follows the row of the finding's last line on its side (after
the findings already there), so a reader sees it right under the lines.

For speed on very large diffs (a million lines is a few hundred thousand
rows per second of work), the text is escaped once per file, rows omit their
optional end tags (``</td>``, ``</tr>``; valid HTML), and only files with
findings look line numbers up.  Control characters other than tab are shown
as their Unicode control pictures (a CR in a CRLF diff is ``␍``): HTML would
otherwise drop them or break the line.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
#: Header lines shown above the hunks (what a reader would otherwise miss).
_META = (
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
_CONTROL = {c: 0x2400 + c for c in range(32) if c not in (9, 10)}
_CONTROL[127] = 0x2421
_HAS_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def visible(text: str) -> str:
    """``text`` escaped for HTML, control characters (but tab and newline) made visible."""
    if _HAS_CONTROL.search(text):
        text = text.translate(_CONTROL)
    return html.escape(text, quote=False)


class DiffRows:
    """Rows of one file's diff; ``placed`` holds the ids of the findings put under a line.

    ``new_findings`` / ``old_findings`` map a last line number (on that side)
    to the findings' rows, as ``(finding id, row html)`` pairs in order.
    """

    def __init__(
        self,
        new_findings: Mapping[int, Sequence[tuple[int, str]]],
        old_findings: Mapping[int, Sequence[tuple[int, str]]],
    ) -> None:
        self._new = dict(new_findings)
        self._old = dict(old_findings)
        self.placed: list[int] = []

    def render(self, diff_text: str, out: list[str]) -> None:
        """Append the rows of ``diff_text`` (one file's raw diff) to ``out``."""
        lines = visible(diff_text).split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if self._new or self._old:
            self._rows_with_findings(lines, out)
        else:
            self._rows(lines, out)

    def _rows(self, lines: list[str], out: list[str]) -> None:
        """The rows of a file without findings: the hot loop, kept minimal."""
        old = new = old_left = new_left = 0
        append = out.append
        for line in lines:
            if old_left > 0 or new_left > 0:
                c = line[:1]
                if c == "+":
                    new += 1
                    new_left -= 1
                    append(f"<tr class=a><td><td>{new}<td>{line}")
                    continue
                if c == "-":
                    old += 1
                    old_left -= 1
                    append(f"<tr class=d><td>{old}<td><td>{line}")
                    continue
                if c == " " or not c:
                    old += 1
                    new += 1
                    old_left -= 1
                    new_left -= 1
                    append(f"<tr class=c><td>{old}<td>{new}<td>{line}")
                    continue
                old_left = new_left = 0  # a short hunk: read on as a header line
            start = self._other(line, out)
            if start is not None:
                old, old_left, new, new_left = start

    def _rows_with_findings(self, lines: list[str], out: list[str]) -> None:
        """The same rows, each followed by the findings that end on it."""
        old = new = old_left = new_left = 0
        append = out.append
        new_map, old_map = self._new, self._old
        for line in lines:
            if old_left > 0 or new_left > 0:
                c = line[:1]
                if c == "+":
                    new += 1
                    new_left -= 1
                    append(f"<tr class=a><td><td>{new}<td>{line}")
                    if new in new_map:
                        self._place(new_map.pop(new), out)
                    continue
                if c == "-":
                    old += 1
                    old_left -= 1
                    append(f"<tr class=d><td>{old}<td><td>{line}")
                    if old in old_map:
                        self._place(old_map.pop(old), out)
                    continue
                if c == " " or not c:
                    old += 1
                    new += 1
                    old_left -= 1
                    new_left -= 1
                    append(f"<tr class=c><td>{old}<td>{new}<td>{line}")
                    if old in old_map:
                        self._place(old_map.pop(old), out)
                    if new in new_map:
                        self._place(new_map.pop(new), out)
                    continue
                old_left = new_left = 0
            start = self._other(line, out)
            if start is not None:
                old, old_left, new, new_left = start

    def _place(self, findings: Sequence[tuple[int, str]], out: list[str]) -> None:
        for finding_id, row in findings:
            out.append(row)
            self.placed.append(finding_id)

    @staticmethod
    def _other(line: str, out: list[str]) -> tuple[int, int, int, int] | None:
        """A line outside a hunk body: a hunk header (its counters returned) or a header line."""
        if line.startswith("@@"):
            m = _HUNK.match(line)
            out.append(f"<tr class=h><td><td><td>{line}")
            if m is None:  # a combined diff's @@@ header: shown, lines not numbered
                return None
            old_start, old_count, new_start, new_count = m.groups()
            old_n = 1 if old_count is None else int(old_count)
            new_n = 1 if new_count is None else int(new_count)
            # Counters sit one before the first line; a side with no lines starts at its number.
            old_first = int(old_start) - (1 if old_n else 0)
            new_first = int(new_start) - (1 if new_n else 0)
            return old_first, old_n, new_first, new_n
        if line.startswith("\\"):
            out.append(f"<tr class=e><td><td><td>{line}")
        elif line.startswith(_META):
            out.append(f"<tr class=m><td><td><td>{line}")
        elif line[:1] in ("+", "-", " ") and not line.startswith(("--- ", "+++ ")):
            # A line of a hunk whose header could not be read (a combined diff's): unnumbered.
            out.append(f"<tr class=x><td><td><td>{line}")
        return None
