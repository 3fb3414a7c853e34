"""The ``rdjson`` export: reviewdog's ``DiagnosticResult``, for its review reporters.

``reviewdog -f=rdjson -reporter=github-pr-review`` (or its GitLab and Gerrit
reporters) posts each diagnostic as a review comment.  Each finding is a
diagnostic:

- ``severity``: blocker and major ``ERROR``, minor ``WARNING``, nit and
  question ``INFO``; ``code.value`` is the severity word;
- ``location``: the file's path relative to the repository root (its real
  name: ``a\\b.txt`` is shown ``a\\\\b.txt`` by the diff tools) and, for a
  new-side finding, the line range (``start.line``..``end.line``, whole lines:
  reviewdog's ranges are on the new file);
- an old-side finding, an outdated one (its lines are those of an earlier
  revision), one whose lines are numbered in another revision than the one
  exported, and a whole-file finding point at the file only, and the message
  starts by naming the lines; reviewdog posts such diagnostics as file
  comments (with ``-filter-mode=file`` or ``nofilter``);
- a finding on a file whose name is not UTF-8 has no ``location`` (JSON holds
  text, and a name reviewdog cannot match would make the review fail): its
  message starts by naming the file as the diff tools show it;
- a suggestion is a ``suggestions`` entry over the same lines: the lines'
  replacement without its last line end (reviewdog adds it back).

reviewdog reads only the keys of its schema and ignores others (its rdjson
parser discards unknown fields), so the top-level ``review`` key carries what
was reviewed: source, revision, coverage and findings by severity.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import describe, jsontext
from .document import ExportFile, ExportFinding, ReviewExport, load_document
from .sink import TextSink, collect

SEVERITIES = {
    "blocker": "ERROR",
    "major": "ERROR",
    "minor": "WARNING",
    "nit": "INFO",
    "question": "INFO",
}


def render_rdjson(document: Mapping[str, Any]) -> str:
    """The review as a reviewdog ``DiagnosticResult`` (see the module docstring)."""
    return collect(lambda out: write_rdjson(document, out))


def write_rdjson(document: Mapping[str, Any], out: TextSink) -> None:
    """:func:`render_rdjson`, written to ``out`` a diagnostic at a time."""
    export = load_document(document)
    source = {"name": export.tool_name}
    result = {
        "source": source,
        "diagnostics": [_diagnostic(export, f, source) for f in export.findings],
        "review": _review(export),
    }
    jsontext.write(result, 2, out)


def _diagnostic(
    export: ReviewExport, finding: ExportFinding, source: dict[str, str]
) -> dict[str, Any]:
    file = export.file(finding.file_path)
    path = describe.text_name(finding.file_path)
    on_lines = finding.side == "new" and finding.on_lines and path is not None
    diagnostic: dict[str, Any] = {"message": _message(finding, file, on_lines)}
    if path is not None:
        location: dict[str, Any] = {"path": path}
        if on_lines:
            location["range"] = _lines(finding.line, finding.end_line)
        diagnostic["location"] = location
    diagnostic.update(
        {
            "severity": SEVERITIES[finding.severity],
            "source": source,
            "code": {"value": finding.severity},
        }
    )
    if finding.suggestion is not None and on_lines:
        diagnostic["suggestions"] = [_suggestion(finding)]
    return diagnostic


def _lines(first: int | None, last: int | None) -> dict[str, Any]:
    return {"start": {"line": first}, "end": {"line": last}}


def _suggestion(finding: ExportFinding) -> dict[str, Any]:
    suggestion = finding.suggestion or ""
    text = describe.replacement(suggestion)
    if suggestion and not text:
        # One empty line: a whole-line range cannot say it (an empty text removes
        # the lines), so replace from the first line's start to the next line's.
        rng = {
            "start": {"line": finding.line, "column": 1},
            "end": {"line": (finding.end_line or 0) + 1, "column": 1},
        }
        return {"range": rng, "text": "\n"}
    return {"range": _lines(finding.line, finding.end_line), "text": text}


def _message(finding: ExportFinding, file: ExportFile | None, on_lines: bool) -> str:
    notes = []
    if finding.status == "outdated":
        notes.append(f"outdated, {describe.lines_text(finding)} of an earlier revision")
    elif not finding.current and finding.line is not None:
        notes.append(describe.elsewhere_text(finding))
    elif not on_lines and finding.line is not None:
        where = describe.lines_text(finding)
        if file is not None and file.old_path and finding.side == "old":
            where += f" of {file.old_path}"
        notes.append(where)
    elif finding.line is None:
        notes.append("whole file")
    if finding.status in ("resolved", "dismissed"):
        notes.append(finding.status)
    if describe.text_name(finding.file_path) is None:
        notes.insert(0, f"file {finding.file_path}, whose name is not UTF-8")
    prefix = f"({'; '.join(notes)}) " if notes else ""
    return prefix + finding.message


def _review(export: ReviewExport) -> dict[str, Any]:
    doc = export.document
    return {
        "format": doc.get("format"),
        "format_version": doc.get("format_version"),
        "exported_at": export.exported_at,
        "id": export.review_id,
        "source": describe.public_source(export),
        "revision": doc.get("review", {}).get("revision"),
        "coverage": doc.get("coverage"),
        "findings_summary": doc.get("findings_summary"),
    }
