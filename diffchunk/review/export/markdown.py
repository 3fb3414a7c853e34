"""The ``markdown`` export: a review to paste into a pull request or a chat.

Layout: a title and what was reviewed (repository, range, commits, or the diff
file and its hash), coverage (files reviewed / seen / unseen / changed /
excluded), open findings by severity, then the findings grouped by file in
diff order, each with its severity, location, message, the lines it points at
in a fenced block in the file's language, and its suggestion as a
```` ```suggestion ```` block; last, the files not reviewed yet.

Text rules (what a reader can rely on):

- A finding's *message* (and each reply on its thread, quoted) is Markdown
  written by the reviewer and stays
  Markdown (emphasis, code spans, fenced blocks, lists, links work), except
  raw HTML: ``<`` and ``&`` in text are written as ``&lt;`` and ``&amp;``, so
  ``<script>`` shows as text and is never a tag (in code spans and fenced
  blocks they are kept when the message is paragraphs and fences only; see
  :func:`message_markdown`).  A fence the message opens and never closes is
  closed at its end, so it cannot swallow the rest of the export.  Messages
  are separated from the export's own structure by blank lines.
- Everything else that comes from the diff (paths, line text, suggestions) is
  literal: paths in code spans, lines and suggestions in fenced blocks whose
  fence is longer than any run of backticks inside.
- Each file's language is guessed from its extension (:func:`describe.language`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from . import describe
from .document import SEVERITIES, ExportFile, ExportFinding, ReviewExport, load_document
from .sink import TextSink, collect

_BACKTICKS = re.compile(r"`+")
#: What Markdown could read as inline structure in prose (headings, lists and the
#: like only start a line, and prose values never do here).
_INLINE_MARKS = re.compile(r"([\\`*_\[\]<>&~|!])")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def render_markdown(document: Mapping[str, Any]) -> str:
    """The review as Markdown (see the module docstring for the layout and rules)."""
    return collect(lambda out: write_markdown(document, out))


def write_markdown(document: Mapping[str, Any], out: TextSink) -> None:
    """:func:`render_markdown`, written to ``out`` a line at a time."""
    export = load_document(document)
    lines = _Lines(out)
    lines.extend(summary_markdown(export))
    lines.extend(_findings_by_file(export))
    lines.extend(_files_to_review(export))
    lines.end()


class _Lines:
    """Lines written as ``"\\n".join(lines).rstrip("\\n") + "\\n"`` would give them, as
    they come: the line breaks that end the text so far wait for more text."""

    __slots__ = ("_first", "_out", "_pending")

    def __init__(self, out: TextSink) -> None:
        self._out = out
        self._first = True
        self._pending = 0  # line breaks not written yet

    def extend(self, lines: Iterable[str]) -> None:
        for line in lines:
            text = line if self._first else "\n" + line
            self._first = False
            kept = text.rstrip("\n")
            if kept:
                self._out.append("\n" * self._pending + kept)
                self._pending = len(text) - len(kept)
            else:
                self._pending += len(text)

    def end(self) -> None:
        self._out.append("\n")


def summary_markdown(export: ReviewExport, heading: str = "#", public: bool = False) -> list[str]:
    """The title, what was reviewed, coverage and findings by severity, as lines
    (``public``: for readers elsewhere, see :func:`describe.source_facts`)."""
    sub = heading + "#"
    out = [f"{heading} Review of {code_span(describe.subject(export))}", ""]
    for label, value, code in describe.source_facts(export, public):
        out.append(f"- **{label}:** {code_span(value) if code else escape_text(value)}")
    cov = export.coverage
    out += [
        "",
        f"{sub} Coverage",
        "",
        "| files | reviewed | seen | unseen | changed | excluded |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        f"| {cov.files} | {cov.reviewed} | {cov.seen} | {cov.unseen} | {cov.changed} "
        f"| {cov.excluded} |",
    ]
    if cov.excluded_by_reason:
        reasons = ", ".join(
            f"{n} {escape_text(reason)}" for reason, n in sorted(cov.excluded_by_reason.items())
        )
        out += ["", f"Excluded from review: {reasons}."]
    summary = export.summary
    out += [
        "",
        f"{sub} Findings",
        "",
        "| " + " | ".join(SEVERITIES) + " |",
        "| " + " | ".join("---:" for _ in SEVERITIES) + " |",
        "| " + " | ".join(str(summary.open.get(s, 0)) for s in SEVERITIES) + " |",
        "",
        f"Open findings by severity above; besides them {summary.resolved} resolved, "
        f"{summary.dismissed} dismissed, {summary.outdated} outdated.",
        "",
    ]
    return out


def _findings_by_file(export: ReviewExport) -> list[str]:
    groups = export.by_file()
    count = len(export.findings)
    out = [f"## Findings by file ({count} listed)", ""]
    if not groups:
        out += ["No findings are listed in this export.", ""]
    for group in groups:
        out.append(f"### {code_span(group.path)}")
        out += ["", file_facts(group.file), ""]
        for finding in group.findings:
            out += finding_markdown(finding, group.file)
    return out


def file_facts(file: ExportFile | None) -> str:
    """``modified · reviewed · +3 −1`` (and the old path of a rename)."""
    if file is None:
        return "*Not in this diff: these findings point at lines of another revision.*"
    parts = [file.status]
    if file.old_path and file.old_path != file.path:
        parts.append(f"from {code_span(file.old_path)}")
    parts.append(file.state)
    if file.excluded_reason:
        parts.append(f"excluded: {escape_text(file.excluded_reason)}")
    size = describe.size_text(file)
    if size:
        parts.append(size)
    return " · ".join(parts)


def finding_header(finding: ExportFinding) -> str:
    """``**MAJOR** · new lines 12–13 · finding #4 · chunk 2`` (and a status note)."""
    parts = [
        f"**{finding.severity.upper()}**",
        describe.lines_text(finding),
        f"finding #{finding.id}",
    ]
    if finding.chunk is not None:
        parts.append(f"chunk {finding.chunk}")
    note = describe.status_note(finding)
    if note:
        parts.append(f"*{note}*")
    return " · ".join(parts)


def finding_markdown(
    finding: ExportFinding, file: ExportFile | None, *, header: bool = True, lines: bool = True
) -> list[str]:
    """One finding: its header line, message, lines and suggestion, as lines."""
    out = [finding_header(finding), ""] if header else []
    if finding.author:
        out += [f"*by {escape_text(finding.author)}*", ""]
    out += [message_markdown(finding.message), ""]
    if lines and finding.lines:
        label = "Old lines" if finding.side == "old" else "Lines"
        if file is not None and finding.side == "old" and file.old_path:
            label += f" (of {code_span(file.old_path)})"
        out += [
            f"{label}:",
            "",
            code_block(finding.lines, describe.language(finding.file_path)),
            "",
        ]
    if finding.suggestion is not None:
        out += ["Suggested change:", "", suggestion_block(finding.suggestion), ""]
    for reply in finding.thread:
        status = f" ({escape_text(reply.status)})" if reply.status else ""
        out += [f"> **{escape_text(reply.author)}**{status}:", ">"]
        quoted = message_markdown(reply.body).split("\n")
        out += [f"> {line}" if line else ">" for line in quoted]
        out.append("")
    return out


_PENDING = ("unseen", "seen", "changed")


def _files_to_review(export: ReviewExport) -> Iterator[str]:
    """The files not reviewed yet: counted, then listed (two reads of the files' states,
    no list of them)."""
    count = sum(1 for _, state in export.file_states() if state in _PENDING)
    if not count:
        return
    yield from (f"## Files not reviewed yet ({count})", "")
    for path, state in export.file_states():
        if state in _PENDING:
            yield f"- {code_span(path)} — {state}"
    yield ""


# ---------------------------------------------------------------------------
# Text helpers (also used by the github body)
# ---------------------------------------------------------------------------


def escape_text(text: str) -> str:
    """Prose that Markdown shows as is, inside a line: inline marks backslash-escaped."""
    return _INLINE_MARKS.sub(r"\\\1", text.replace("\n", " "))


def code_span(text: str) -> str:
    """``text`` as an inline code span, whatever backticks it holds."""
    text = text.replace("\n", " ")
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    if text.startswith(("`", " ")) or text.endswith(("`", " ")):
        text = f" {text} "
    return f"{ticks}{text}{ticks}"


def _fence(text: str) -> str:
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def code_block(text: str, info: str = "") -> str:
    """``text`` in a fenced block that nothing inside can close."""
    fence = _fence(text)
    body = text if text.endswith("\n") else text + "\n"
    return f"{fence}{info}\n{body}{fence}"


def suggestion_block(suggestion: str) -> str:
    """A ```` ```suggestion ```` block replacing the finding's lines with ``suggestion``."""
    if not suggestion:  # an empty suggestion removes the lines
        return "```suggestion\n```"
    body = describe.replacement(suggestion)
    fence = _fence(body)
    return f"{fence}suggestion\n{body}\n{fence}"


def message_markdown(message: str) -> str:
    """A reviewer's message as Markdown that cannot become HTML or break the export.

    Exact where CommonMark is simple, conservative elsewhere:

    - A message of paragraphs and fenced code blocks (the usual case) keeps
      its fenced blocks as written (a fence left open is closed) and its code
      spans; elsewhere ``<`` and ``&`` become ``&lt;`` and ``&amp;``.  A code
      span right after a URL written without ``<>`` (``see http://x`code```)
      is escaped too: GitHub's autolinks run over its backtick, making it text.  Code
      spans are found as CommonMark finds them (backslash escapes first, then
      a run of backticks up to the next run of the same length, across the
      lines of one paragraph), which is only possible because nothing else
      can start or end a block in such a message.
    - A message with other block structure (lists, quotes, headings, tables,
      indented code, HTML, link definitions) has ``<`` and ``&`` escaped
      everywhere, code included, and its fences opened with a backslash so
      that none can run past the message: telling code from text there takes
      a full Markdown parser, and showing ``&lt;`` in code is the lesser harm.
    """
    lines = message.replace("\r\n", "\n").replace("\r", "\n").rstrip().split("\n")
    if not any(line.strip(" \t") for line in lines):
        return "*(no message)*"
    parts = _split_fences(lines)
    if any(
        _BLOCK_START.match(line) or "|" in line for fenced, ls in parts if not fenced for line in ls
    ):
        return "\n".join(_escape_all(line) for line in lines)
    out: list[str] = []
    for fenced, part in parts:
        out += part if fenced else _escape_paragraphs(part)
    return "\n".join(out)


#: A line that may start (or, in a paragraph, interrupt) a block other than a
#: paragraph or a fence: a list item, quote, heading, thematic break, setext
#: underline, HTML block, link or footnote definition, or indented code.
_BLOCK_START = re.compile(r"^(?: {0,3}(?:[-+*>#<\[=_]|\d{1,9}[.)])| {4}| {0,3}\t)")
_FENCE_CLOSE = re.compile(r"^ {0,3}(`+|~+)[ \t]*$")
#: What the inline scan acts on: a backslash escape, a run of backticks, ``<`` or ``&``.
_INLINE_TOKEN = re.compile(r"\\[!-/:-@\[-`{-~]|`+|[<&]")


def _split_fences(lines: list[str]) -> list[tuple[bool, list[str]]]:
    """The lines as prose and fenced-block parts, as CommonMark reads them at top level.

    A fence left open at the end of the message is closed.
    """
    parts: list[tuple[bool, list[str]]] = []
    prose: list[str] = []
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if m is None or (m.group(1)[0] == "`" and "`" in m.group(2)):
            prose.append(lines[i])
            i += 1
            continue
        if prose:
            parts.append((False, prose))
            prose = []
        char, width = m.group(1)[0], len(m.group(1))
        block = [lines[i]]
        i += 1
        while i < len(lines):
            block.append(lines[i])
            closer = _FENCE_CLOSE.match(lines[i])
            i += 1
            if closer and closer.group(1)[0] == char and len(closer.group(1)) >= width:
                break
        else:
            block.append(char * width)
        parts.append((True, block))
    if prose:
        parts.append((False, prose))
    return parts


def _escape_paragraphs(lines: list[str]) -> list[str]:
    """Prose lines with ``<`` and ``&`` escaped outside code spans, paragraph by paragraph."""
    out: list[str] = []
    paragraph: list[str] = []
    for line in [*lines, ""]:
        if line.strip(" \t"):
            paragraph.append(line)
            continue
        if paragraph:
            out += _escape_inline("\n".join(paragraph)).split("\n")
            paragraph = []
        out.append(line)
    return out[:-1]


def _escape_inline(text: str) -> str:
    """One paragraph's text with ``<`` and ``&`` escaped outside its code spans."""
    out: list[str] = []
    pos = 0
    url = _UrlWords(text)
    for m in _INLINE_TOKEN.finditer(text):
        if m.start() < pos:
            continue  # inside a code span already copied
        out.append(text[pos : m.start()])
        token = m.group(0)
        pos = m.end()
        if token[0] == "`":
            end = _closing_run(text, pos, len(token))
            if end is not None:
                span = text[m.start() : end]
                if url.ends_at(m.start()):
                    # GitHub's autolinks take a URL on to the next space, over this
                    # backtick: the span may be text there, so it is escaped too.
                    span = span.replace("&", "&amp;").replace("<", "&lt;")
                out.append(span)
                pos = end
                continue
            out.append(token)
        elif token == "<":
            out.append("&lt;")
        elif token == "&":
            out.append("&amp;")
        elif token in ("\\<", "\\&"):
            # Shown as the escape shows it, and safe where a URL before it takes the
            # backslash into its link (GitHub's autolinks do): then "<" would open a tag.
            out.append("&lt;" if token[1] == "<" else "&amp;")
        else:
            out.append(token)  # a backslash escape, kept: it already shows its character
    out.append(text[pos:])
    return "".join(out)


#: The start of a URL that GitHub Flavored Markdown links without ``<>`` (its
#: "extended autolinks"), which runs on to the next whitespace or ``<``.
_URL_START = re.compile(r"(?i)(?:https?://|ftp://|www\.)")
_SPACE = re.compile(r"\s")


class _UrlWords:
    """Whether the word before a position of ``text`` holds the start of such a URL,
    asked at increasing positions (one pass over the text in all)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._seen = 0  # text[:_seen] has been looked at
        self._word = 0  # where the current word starts
        self._url = -1  # where the last URL start seen begins

    def ends_at(self, end: int) -> bool:
        for m in _SPACE.finditer(self._text, self._seen, end):
            self._word = m.end()
        # A URL start may straddle the part looked at before (``htt`` | ``p://``).
        for m in _URL_START.finditer(self._text, max(self._seen - 7, self._word), end):
            self._url = m.start()
        self._seen = end
        return self._url >= self._word


def _closing_run(text: str, start: int, width: int) -> int | None:
    """The end of the next run of exactly ``width`` backticks from ``start`` (None: none)."""
    for m in _BACKTICKS.finditer(text, start):
        if len(m.group(0)) == width:
            return m.end()
    return None


def _escape_all(line: str) -> str:
    """A line with ``<`` and ``&`` escaped everywhere and a fence opener made text."""
    line = line.replace("&", "&amp;").replace("<", "&lt;")
    m = _FENCE_OPEN.match(line)
    if m is not None:
        line = line[: m.start(1)] + "\\" + line[m.start(1) :]
    return line
