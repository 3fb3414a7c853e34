"""The ``html`` export: one self-contained page to read a review in a browser.

The page holds the summary (what was reviewed, coverage, findings by
severity), the list of files with each file's review state, an index of the
findings, and each file's diff with its findings shown under the lines they
point at, coloured by severity and labelled with it.  Files without findings
are folded (``<details>``); everything opens without script.

Self-contained and inert: no network access (no external script, style, font,
image or link; every ``href`` is a ``#`` fragment of the page), no script at
all, and a Content-Security-Policy that forbids scripts and any loading, so
even a page edited by hand cannot fetch anything.  Every piece of text from
the review (paths, lines, messages, suggestions) is HTML-escaped; messages are
shown as written, not rendered as Markdown.

Each file's diff is coloured as the review page colours it (syntax by the
file's name, the words a changed line changed), within a budget of characters
for the whole page (:class:`~.html_diff.Colours`); the page says where the
colours stop.

``diffs`` maps a file's path to its raw diff text (as ``get_file_diff`` serves
it).  ``diff_text="findings"`` leaves out the diff text of the files without
findings: they are listed (by name, state and size) but have no section, and
the page says how many were left out; the page then grows with the findings,
not with the diff.  Without it, or for a file it lacks, each finding shows the lines it
points at from the record instead.  A finding that cannot sit under a line of
the shown diff (whole-file, outdated, numbered in another revision than the one
exported, on a binary file, a line the diff lacks) is shown at the top of its
file, never left out.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any

from ...errors import InvalidArgument
from . import describe
from .document import SEVERITIES, ExportFile, ExportFinding, ReviewExport, load_document
from .html_diff import Colours, DiffRows, Rows, visible
from .html_style import style_sheet
from .sink import TextSink, collect

#: No script, no loading of anything; inline styles only.
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


#: The values of ``diff_text``: every file's diff, or only those of files with findings.
DIFF_TEXTS = ("all", "findings")


def render_html(
    document: Mapping[str, Any],
    diffs: Mapping[str, str] | None = None,
    *,
    diff_text: str = "all",
    colours: int | None = None,
) -> str:
    """The review as one self-contained HTML page (see the module docstring)."""
    return collect(
        lambda out: write_html(document, out, diffs, diff_text=diff_text, colours=colours)
    )


def write_html(
    document: Mapping[str, Any],
    out: TextSink,
    diffs: Mapping[str, str] | None = None,
    *,
    diff_text: str = "all",
    colours: int | None = None,
) -> None:
    """:func:`render_html`, written to ``out`` as it is made: a file's rows at a time
    (those of a file with findings on lines are made once and held until the findings
    they do not place, which the page shows above the rows, are written).  ``colours``: the characters
    to colour (default :data:`~diffchunk.review.export.html_diff.EXPORT_HIGHLIGHT_CHARS`)."""
    export = load_document(document)
    groups = {g.path: g.findings for g in export.by_file()}
    shown = _shown_sections(export, groups, diffs, diff_text)
    budget = Colours() if colours is None else Colours(colours)
    out.append(_head(export))
    out.append(_summary(export))
    _file_list(export, groups, shown, out)
    out.append(_index(export))
    out.append("<section class=diffs><h2>Changes</h2>")
    if diffs is None:
        out.append(
            "<p class=note>This page was exported without the diff text: each finding shows "
            "the lines it points at as they were when it was written.</p>"
        )
    elif diff_text == "findings":
        left_out = len(export.files) - sum(1 for f in export.files if shown(f))
        out.append(
            f"<p class=note>The diff text of the {left_out} file(s) without findings is "
            "left out of this page; they are listed under Files.</p>"
        )
    for file in export.files:
        if not shown(file):
            continue
        findings = groups.get(file.path, ())
        text = None if diffs is None else diffs.get(file.path)
        _file_section(file, file.path, findings, text, out, budget)
    for path, findings in groups.items():
        if export.file(path) is None:
            _file_section(None, path, findings, None, out, budget)
    out.append("</section>")
    cut = (
        " Syntax colours and word marks stop at the first hunk past the page's "
        f"{budget.chars:,} characters of them; the hunks after it are plain."
        if budget.cut
        else ""
    )
    out.append(
        f"<footer>Exported {_e(export.exported_at)} by {_e(export.tool_name)} "
        f"{_e(export.tool_version)}.{cut}</footer></body></html>\n"
    )


def _shown_sections(
    export: ReviewExport,
    groups: Mapping[str, tuple[ExportFinding, ...]],
    diffs: Mapping[str, str] | None,
    diff_text: str,
) -> Callable[[ExportFile], bool]:
    """Whether a file gets a section on the page: with its diff (unless ``diff_text``
    leaves it out), or for its findings."""
    if diff_text not in DIFF_TEXTS:
        raise InvalidArgument(
            f"Unknown diff_text {diff_text!r}: valid values are {', '.join(DIFF_TEXTS)}.",
            suggestion="Use 'all' for every file's diff, 'findings' for only the diffs of "
            "the files with findings.",
        )
    with_diffs = diffs is not None and diff_text == "all"
    return lambda file: with_diffs or file.path in groups


def _head(export: ReviewExport) -> str:
    title = describe.title(export)
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f'<meta name=generator content="{_e(export.tool_name)} {_e(export.tool_version)}">'
        f"<title>{_e(title)}</title><style>{style_sheet()}</style></head>\n<body>"
        f"<header><h1>Review of <code>{_e(describe.subject(export))}</code></h1><dl class=facts>"
        + "".join(
            f"<dt>{_e(k)}</dt><dd>{f'<code>{_e(v)}</code>' if code else _e(v)}</dd>"
            for k, v, code in describe.source_facts(export)
        )
        + "</dl></header>\n"
    )


def badge(severity: str) -> str:
    return f"<span class='sev sev-{severity}'>{severity.upper()}</span>"


def _state(state: str) -> str:
    return f"<span class='state state-{state}'>{_e(state)}</span>"


def _summary(export: ReviewExport) -> str:
    cov = export.coverage
    names = ("files", "reviewed", "seen", "unseen", "changed", "excluded")
    values = (cov.files, cov.reviewed, cov.seen, cov.unseen, cov.changed, cov.excluded)
    out = ["<section class=summary><h2>Coverage</h2><table class=counts><tr>"]
    out += [f"<th>{n}</th>" for n in names]
    out.append("</tr><tr>")
    out += [f"<td>{v}</td>" for v in values]
    out.append("</tr></table>")
    if cov.excluded_by_reason:
        reasons = ", ".join(f"{n} {_e(r)}" for r, n in sorted(cov.excluded_by_reason.items()))
        out.append(f"<p class=note>Excluded from review: {reasons}.</p>")
    summary = export.summary
    out.append("<h2>Findings</h2><table class=counts><tr><th>open</th>")
    out += [f"<th>{badge(s)}</th>" for s in SEVERITIES]
    out.append("</tr><tr><td></td>")
    out += [f"<td>{summary.open.get(s, 0)}</td>" for s in SEVERITIES]
    out.append(
        f"</tr></table><p class=note>Besides the open ones: {summary.resolved} resolved, "
        f"{summary.dismissed} dismissed, {summary.outdated} outdated. "
        f"This page shows {len(export.findings)} finding(s).</p></section>\n"
    )
    return "".join(out)


def _counts(findings: tuple[ExportFinding, ...]) -> str:
    if not findings:
        return ""
    parts = []
    for severity in SEVERITIES:
        n = sum(1 for f in findings if f.severity == severity)
        if n:
            parts.append(f"{badge(severity)}&nbsp;{n}")
    return " ".join(parts)


def _file_list(
    export: ReviewExport,
    groups: dict[str, tuple[ExportFinding, ...]],
    shown: Callable[[ExportFile], bool],
    out: TextSink,
) -> None:
    out.append(
        f"<section><h2>Files ({len(export.files)})</h2><table class=files><tr><th>File</th>"
        "<th>Change</th><th>Review state</th><th>Lines</th><th>Findings</th></tr>"
    )
    for file in export.files:
        lines = "binary" if file.binary else f"+{file.added} −{file.removed}"
        state = _state(file.state)
        if file.excluded_reason:
            state += f" <span class=note>{_e(file.excluded_reason)}</span>"
        name = f"<code>{_e(file.path)}</code>"
        if shown(file):  # a link to its section (a file without one is named alone)
            name = f"<a href='#file-{file.index}'>{name}</a>"
        out.append(
            f"<tr><td>{name}</td>"
            f"<td>{_e(_change(file))}</td><td>{state}</td><td class=num>{lines}</td>"
            f"<td>{_counts(groups.get(file.path, ()))}</td></tr>"
        )
    out.append("</table></section>\n")


def _change(file: ExportFile) -> str:
    if file.old_path and file.old_path != file.path:
        return f"{file.status} from {file.old_path}"
    return file.status


def _index(export: ReviewExport) -> str:
    if not export.findings:
        return "<section><h2>Findings index</h2><p class=note>No findings.</p></section>\n"
    out = [f"<section><h2>Findings index ({len(export.findings)})</h2><ol class=index>"]
    for f in export.findings:
        first = f.message.strip().split("\n", 1)[0]
        note = describe.status_note(f).split(":", 1)[0]
        status = f" <span class=status>{_e(note)}</span>" if note else ""
        out.append(
            f"<li>{badge(f.severity)}{status} <a href='#finding-{f.id}'><code>{_e(f.file_path)}"
            f"</code> {_e(describe.lines_text(f))}</a> — {_e(first[:160])}</li>"
        )
    out.append("</ol></section>\n")
    return "".join(out)


def _file_section(
    file: ExportFile | None,
    path: str,
    findings: tuple[ExportFinding, ...],
    diff_text: str | None,
    out: TextSink,
    colours: Colours,
) -> None:
    """One file: its summary line, findings not on a line, and its diff with findings inline."""
    anchor = f" id=file-{file.index}" if file is not None else ""
    opened = " open" if findings else ""
    if file is None:
        facts = "<span class=note>no longer in the diff</span>"
    else:
        facts = f"{_e(_change(file))} {_state(file.state)} {describe.size_text(file)}"
    out.append(
        f"<details class=file{anchor}{opened}><summary><code>{_e(path)}</code> {facts} "
        f"{_counts(findings)}</summary><div class=file-body>"
    )
    placed: set[int] = set()
    usable: list[ExportFinding] = []
    held: list[str] = []  # the rows, when which findings they take must be known first
    if diff_text and file is not None and not file.binary:
        usable = [f for f in findings if f.on_lines]
    if usable:
        placed = _diff_rows(diff_text or "", usable, file, held, colours)
    loose = [f for f in findings if f.id not in placed]
    if loose:
        out.append("<div class=file-note>")
        if diff_text:
            out.append("<div class=label>Findings not on a line of this diff</div>")
        out += [_card(f, file, with_lines=True, anchor=True) for f in loose]
        out.append("</div>")
    if diff_text:
        out.append("<table class=diff>")
        if usable:
            out += held
        else:
            _diff_rows(diff_text, usable, file, out, colours)
        out.append("</table>")
    elif not findings:
        out.append("<p class=file-note>No diff text for this file in the export.</p>")
    out.append("</div></details>\n")


def _diff_rows(
    text: str,
    findings: list[ExportFinding],
    file: ExportFile | None,
    out: Rows,
    colours: Colours | None = None,
) -> set[int]:
    """Write the diff's rows with ``findings`` under their last lines to ``out``; the ids
    placed."""
    new: dict[int, list[tuple[int, str]]] = {}
    old: dict[int, list[tuple[int, str]]] = {}
    for f in findings:
        target = new if f.side == "new" else old
        target.setdefault(f.end_line or 0, []).append((f.id, _finding_row(f, file)))
    rows = DiffRows(new, old, colours=colours, path=file.path if file is not None else "")
    rows.render(text, out)
    return set(rows.placed)


def _finding_row(finding: ExportFinding, file: ExportFile | None) -> str:
    return (
        f"<tr class=f id=finding-{finding.id} data-side={finding.side} "
        f"data-line={finding.line} data-end-line={finding.end_line}><td colspan=3>"
        f"{_card(finding, file, with_lines=False, anchor=False)}</td></tr>"
    )


def _card(
    finding: ExportFinding, file: ExportFile | None, *, with_lines: bool, anchor: bool
) -> str:
    """A finding: severity, where, message, (its lines,) suggestion."""
    classes = f"card sev-{finding.severity}" + (" outdated" if finding.status == "outdated" else "")
    ident = f" id=finding-{finding.id}" if anchor else ""
    head = [badge(finding.severity), _e(describe.lines_text(finding)), f"finding #{finding.id}"]
    if finding.chunk is not None:
        head.append(f"chunk {finding.chunk}")
    note = describe.status_note(finding)
    if note:
        word, _, why = note.partition(": ")
        head.append(f"<span class=status>{_e(word)}</span>" + (f" ({_e(why)})" if why else ""))
    if finding.author:
        head.append(f"by {_e(finding.author)}")
    out = [f"<div class='{classes}'{ident}><div class=card-head>{' · '.join(head)}</div>"]
    out.append(f"<div class=msg>{_e(finding.message.strip()) or '(no message)'}</div>")
    if with_lines and finding.lines:
        label = "Old lines" if finding.side == "old" else "Lines"
        if finding.side == "old" and file is not None and file.old_path:
            label += f" of {_e(file.old_path)}"
        out.append(f"<div class=label>{label}</div><pre>{_numbered(finding)}</pre>")
    if finding.suggestion is not None:
        shown = visible(describe.replacement(finding.suggestion)) if finding.suggestion else ""
        caption = (
            "Suggested change" if finding.suggestion else "Suggested change: remove these lines"
        )
        out.append(f"<div class=label>{caption}</div><pre>{shown}</pre>")
    for reply in finding.thread:
        status = f" ({_e(reply.status)})" if reply.status else ""
        out.append(
            f"<div class=reply><b>{_e(reply.author)}</b>{status}: "
            f"<span class=msg>{_e(reply.body.strip())}</span></div>"
        )
    out.append("</div>")
    return "".join(out)


def _numbered(finding: ExportFinding) -> str:
    lines = (finding.lines or "").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    first = finding.line or 1
    width = len(str(first + len(lines)))
    return "\n".join(f"{first + i:>{width}} │ {visible(line)}" for i, line in enumerate(lines))
