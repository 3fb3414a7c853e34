"""One file's diff as HTML table rows, with findings under the lines they point at.

The rows of a ``<table class="diff">``: three cells each (old line number,
new line number, the line with its ``+``/``-``/space marker).  Row classes:
``h`` a hunk header, ``a`` an added line, ``d`` a removed line, ``c`` a
context line, ``m`` a header line worth showing (rename, mode, binary), ``e``
git's "No newline at end of file" note, ``x`` a line of a hunk whose header
gives no line numbers (a combined diff's ``@@@``).  A finding's row (class ``f``, built
by the caller) follows the row of the finding's last line on its side (after
the findings already there), so a reader sees it right under the lines.

Hunk headers are read and bodies numbered by the engine
(:func:`~diffchunk.diff.hunk.read_hunk_header`,
:func:`~diffchunk.diff.hunk.number_lines`: the numbering the review record
reads a finding's lines with), so a finding sits under the line the record
says it points at.  For speed on very large diffs (a million lines is a few
hundred thousand rows per second of work), the text is escaped once per file,
each body is handed to the walk as a slice no longer than its header's
counts, and rows omit their optional end tags (``</td>``, ``</tr>``; valid
HTML).  Control characters other than tab are shown
as their Unicode control pictures (a CR in a CRLF diff is ``␍``): HTML would
otherwise drop them or break the line.

**Colours** (given a :class:`Colours`): each hunk's lines are coloured as the
review page colours them (:func:`diffchunk.review.export.highlight.highlight_hunk`:
Pygments' token classes by the file's name, ``chg`` on the words a changed
line changed), each piece a ``<span>`` of escaped text, while the export's
budget of characters lasts (:data:`EXPORT_HIGHLIGHT_CHARS`,
taken a hunk at a time in diff order); from the first hunk it cannot take on,
the hunks are shown plain.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Protocol

from ...diff.hunk import number_lines, read_hunk_header
from .highlight import Budget, DiffLine, Span, highlight_hunk, lexer_for
from .highlight import visible as shown

EXPORT_HIGHLIGHT_CHARS = 500_000
"""Characters of hunk lines the HTML export colours (syntax and word marks), over
the whole page, in diff order: five pages' worth of
:data:`~diffchunk.review.export.highlight.HIGHLIGHT_PAGE_CHARS`, about 5 s of
Pygments here, where colouring the 3.76M-line diff would take minutes; the hunks
after them are shown plain, and the page says so."""

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


class Rows(Protocol):
    """Where rows go: a list, or a sink that writes them on (anything with ``append``)."""

    def append(self, text: str, /) -> None: ...


def visible(text: str) -> str:
    """``text`` escaped for HTML, control characters (but tab and newline) made visible."""
    if _HAS_CONTROL.search(text):
        text = text.translate(_CONTROL)
    return html.escape(text, quote=False)


class Colours:
    """What the export may still colour (see the module doc); ``cut`` is set when a hunk
    was shown plain for want of it."""

    def __init__(self, chars: int = EXPORT_HIGHLIGHT_CHARS) -> None:
        self.chars = self.left = chars
        self.cut = False

    def take(self, size: int) -> bool:
        if size > self.left:  # the hunks after it are plain too: no further work on them
            self.left, self.cut = 0, True
            return False
        self.left -= size
        return True


def _span_html(span: Span) -> str:
    text = html.escape(span.text, quote=False)
    css = (
        f"{span.token} chg"
        if span.changed and span.token
        else span.token or ("chg" if span.changed else "")
    )
    if not css:
        return text
    return (
        f"<span class='{css}'>{text}</span>" if " " in css else f"<span class={css}>{text}</span>"
    )


class DiffRows:
    """Rows of one file's diff; ``placed`` holds the ids of the findings put under a line.

    ``new_findings`` / ``old_findings`` map a last line number (on that side)
    to the findings' rows, as ``(finding id, row html)`` pairs in order.  A hunk
    header is read by the engine's reader (:func:`diffchunk.diff.hunk.read_hunk_header`)
    and its body numbered by the engine's walk
    (:func:`diffchunk.diff.hunk.number_lines`), the one the review record reads
    findings' lines with.
    """

    def __init__(
        self,
        new_findings: Mapping[int, Sequence[tuple[int, str]]],
        old_findings: Mapping[int, Sequence[tuple[int, str]]],
        *,
        colours: Colours | None = None,
        path: str = "",
    ) -> None:
        self._new = dict(new_findings)
        self._old = dict(old_findings)
        self._colours = colours
        self._path = path  # the file's name chooses its lexer
        self._lexer: object = False  # looked up at the first hunk coloured
        self.placed: list[int] = []

    def render(self, diff_text: str, out: Rows) -> None:
        """Append the rows of ``diff_text`` (one file's raw diff) to ``out``."""
        lines = visible(diff_text).split("\n")
        # Escaping keeps the line breaks: the raw lines (to colour) line up with these;
        # once the budget is spent, no file splits its text a second time.
        colours = self._colours
        raw = diff_text.split("\n") if colours is not None and colours.left else None
        if lines and lines[-1] == "":
            lines.pop()
        at, end = 0, len(lines)
        while at < end:
            header = self._other(lines[at], out)
            at += 1
            if header is not None:
                # A body has at most its two counts of lines and two notes ("\ No
                # newline"): the walk reads no further, and stops at a line not its own.
                stop = at + header[1] + header[3] + 2
                body = lines[at:stop]
                if raw is not None and self._colours is not None and self._colours.left:
                    at += self._coloured(body, raw[at:stop], header, out)
                else:
                    at += self._body(body, header, out)

    def _numbered(
        self, body: list[str], header: tuple[int, int, int, int]
    ) -> Iterator[tuple[str, int, int]]:
        old_start, old_count, new_start, new_count = header
        return number_lines(body, old_start, new_start, old_count=old_count, new_count=new_count)

    def _coloured(
        self, body: list[str], raw: list[str], header: tuple[int, int, int, int], out: Rows
    ) -> int:
        """:meth:`_body` with the hunk's lines coloured, when the budget takes them."""
        numbered = list(self._numbered(body, header))
        kinds = [
            " " if old and new else "+" if new else "-" if old else "\\" for _, old, new in numbered
        ]
        lines = [DiffLine(k, shown(r[1:])) for k, r in zip(kinds, raw, strict=False)]
        size = sum(len(d.text) for d in lines)
        assert self._colours is not None
        if len(lines) < len(numbered) or not self._colours.take(size):
            return self._body(body, header, out)
        if self._lexer is False:
            self._lexer = lexer_for(self._path)
        spans = highlight_hunk(self._lexer, lines, Budget(size))
        coloured = (
            (line[:1] + "".join(map(_span_html, pieces)), old, new)
            for (line, old, new), pieces in zip(numbered, spans, strict=True)
        )
        return self._rows(coloured, out)

    def _body(self, body: list[str], header: tuple[int, int, int, int], out: Rows) -> int:
        """The rows of one hunk's body, each followed by the findings that end on it; how
        many lines of ``body`` are the hunk's (fewer than its header says when the body
        is cut short: git never writes one, a hand-edited diff may)."""
        return self._rows(self._numbered(body, header), out)

    def _rows(self, numbered: Iterable[tuple[str, int, int]], out: Rows) -> int:
        append = out.append
        new_map, old_map = self._new, self._old
        findings = bool(new_map or old_map)
        rows = 0
        for line, old, new in numbered:
            rows += 1
            if old and new:
                append(f"<tr class=c><td>{old}<td>{new}<td>{line}")
            elif new:
                append(f"<tr class=a><td><td>{new}<td>{line}")
            elif old:
                append(f"<tr class=d><td>{old}<td><td>{line}")
            else:
                append(f"<tr class=e><td><td><td>{line}")
            if findings:
                if old in old_map:
                    self._place(old_map.pop(old), out)
                if new in new_map:
                    self._place(new_map.pop(new), out)
        return rows

    def _place(self, findings: Sequence[tuple[int, str]], out: Rows) -> None:
        for finding_id, row in findings:
            out.append(row)
            self.placed.append(finding_id)

    @staticmethod
    def _other(line: str, out: Rows) -> tuple[int, int, int, int] | None:
        """A line outside a hunk body: a hunk header (its ranges returned) or a header line."""
        if line.startswith("@@"):
            out.append(f"<tr class=h><td><td><td>{line}")
            # Only the tail after the closing @@ was escaped: the numbers read as written.
            header = read_hunk_header(line.encode("utf-8", "surrogatepass"), 0)
            if header is None:  # a combined diff's @@@ header: shown, lines not numbered
                return None
            return header.old_start, header.old_count, header.new_start, header.new_count
        if line.startswith("\\"):
            out.append(f"<tr class=e><td><td><td>{line}")
        elif line.startswith(_META):
            out.append(f"<tr class=m><td><td><td>{line}")
        elif line[:1] in ("+", "-", " ") and not line.startswith(("--- ", "+++ ")):
            # A line of a hunk whose header could not be read (a combined diff's): unnumbered.
            out.append(f"<tr class=x><td><td><td>{line}")
        return None
