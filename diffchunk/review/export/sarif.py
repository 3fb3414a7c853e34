"""The ``sarif`` export: SARIF 2.1.0, for GitHub code scanning and SARIF viewers.

One run of the tool ``diffchunk`` (with its version) and one rule per severity
(``diffchunk/blocker`` ... ``diffchunk/question``).  Each finding is a result:

- ``level``: blocker and major are ``error``, minor ``warning``, nit and
  question ``note``;
- its location is the file's path relative to the repository root (a
  relative URI of its real name, percent-encoded byte by byte, under
  ``uriBaseId`` ``SRCROOT``, which the log leaves to its reader: where the
  repository lies on the exporting machine stays there) and, for a new-side
  finding, the region ``startLine``..``endLine``
  of the new file with the lines as its ``snippet``;
- an old-side finding points at the file only: its old-side lines are in the
  result's ``properties`` (``oldRegion``, ``oldPath``, ``lines``) and its
  message starts by naming them, never at new-side line numbers.  An outdated
  finding, and one whose lines are numbered in another revision than the one
  exported (``revisionId``), are carried the same way (``properties.region``);
- a whole-file finding points at the file without a region;
- a suggestion is a ``fix`` replacing the finding's lines;
- a dismissed finding carries an external, accepted ``suppression``; a
  resolved one is ``kind: pass`` (level ``none``);
- ``partialFingerprints`` keep a finding's identity across exports.

What was reviewed (source, revision, coverage, findings by severity) is in the
run's ``properties.diffchunk``; a git review whose repository has a remote
also names it (its URL without credentials) and the head commit in
``versionControlProvenance``.  No local path is written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from . import describe, jsontext
from .document import SEVERITIES, ExportFile, ExportFinding, ReviewExport, load_document
from .sink import TextSink, collect

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
LEVELS = {
    "blocker": "error",
    "major": "error",
    "minor": "warning",
    "nit": "note",
    "question": "note",
}
ROOT = "SRCROOT"
_RULE_TEXT = {
    "blocker": "A blocker: the change must not be merged as it is.",
    "major": "A major problem a reviewer found in the change.",
    "minor": "A minor problem a reviewer found in the change.",
    "nit": "A nit: a small point of style or taste.",
    "question": "A reviewer's question about the change.",
}


def rule_id(severity: str) -> str:
    return f"diffchunk/{severity}"


def render_sarif(document: Mapping[str, Any]) -> str:
    """The review as a SARIF 2.1.0 log (see the module docstring)."""
    return collect(lambda out: write_sarif(document, out))


def write_sarif(document: Mapping[str, Any], out: TextSink) -> None:
    """:func:`render_sarif`, written to ``out`` a result at a time."""
    export = load_document(document)
    log = {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [_run(export)]}
    jsontext.write(log, 4, out)


def _run(export: ReviewExport) -> dict[str, Any]:
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": export.tool_name,
                "version": export.tool_version,
                "rules": [_rule(s) for s in SEVERITIES],
            }
        }
    }
    source = export.source
    uri = _repository_uri(source.name) if source.kind == "git" else None
    if uri is not None:
        provenance: dict[str, Any] = {"repositoryUri": uri}
        head = export.commit_id()
        if head:
            provenance["revisionId"] = head
        run["versionControlProvenance"] = [provenance]
    identity = describe.source_identity(export)
    run["results"] = [_result(export, f, identity) for f in export.findings]
    run["properties"] = {"diffchunk": _review_properties(export)}
    return run


def _rule(severity: str) -> dict[str, Any]:
    return {
        "id": rule_id(severity),
        "name": f"Review{severity.capitalize()}",
        "shortDescription": {"text": f"Review finding: {severity}"},
        "fullDescription": {"text": _RULE_TEXT[severity]},
        "help": {
            "text": f"{_RULE_TEXT[severity]} Recorded in a code review with diffchunk; "
            "the result's message says what the reviewer asks for."
        },
        "defaultConfiguration": {"level": LEVELS[severity]},
        "properties": {"tags": ["code-review", severity]},
    }


def _repository_uri(name: str | None) -> str | None:
    """The repository's public name as a URI (``https://host/owner/repo.git``; the
    scp-like ``host:owner/repo.git`` as ``ssh://host/owner/repo.git``); None for a
    name that is no URL (a directory's name): never a local ``file:`` URI."""
    if not name:
        return None
    if "://" in name:
        return name
    host, sep, path = name.partition(":")
    if not sep or not host or "/" in host:
        return None
    return f"ssh://{host}/{path.lstrip('/')}"


def _artifact(path: str) -> dict[str, Any]:
    """A file's location: its real name, percent-encoded byte by byte (a name that is
    not UTF-8 too: ``caf%E9.txt``)."""
    return {"uri": quote(describe.real_name(path), safe="/"), "uriBaseId": ROOT}


def _result(export: ReviewExport, finding: ExportFinding, identity: str) -> dict[str, Any]:
    file = export.file(finding.file_path)
    on_new_lines = finding.side == "new" and finding.on_lines
    physical: dict[str, Any] = {"artifactLocation": _artifact(finding.file_path)}
    if on_new_lines:
        physical["region"] = _region(finding)
    result: dict[str, Any] = {
        "ruleId": rule_id(finding.severity),
        "ruleIndex": SEVERITIES.index(finding.severity),
        "level": LEVELS[finding.severity],
        "message": {"text": _message(finding, file)},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {"diffchunkFinding/v1": _fingerprint(identity, finding)},
        "properties": _finding_properties(finding, file, on_new_lines),
    }
    if finding.status == "resolved":
        result["kind"] = "pass"
        result["level"] = "none"
    if finding.status == "dismissed":
        result["suppressions"] = [
            {"kind": "external", "status": "accepted", "justification": "Dismissed in the review."}
        ]
    if finding.suggestion is not None and on_new_lines:
        result["fixes"] = [_fix(finding)]
    return result


def _region(finding: ExportFinding) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": finding.line, "endLine": finding.end_line}
    if finding.lines:
        region["snippet"] = {"text": finding.lines}
    return region


def _message(finding: ExportFinding, file: ExportFile | None) -> str:
    context = []
    if finding.status == "outdated":
        context.append(f"Outdated ({describe.lines_text(finding)} of an earlier revision)")
    elif not finding.current and finding.line is not None:
        context.append(f"Lines of another revision ({describe.elsewhere_text(finding)})")
    elif finding.side == "old" and finding.line is not None:
        old_path = file.old_path if file is not None and file.old_path else finding.file_path
        context.append(f"On the old side, {describe.lines_text(finding)} of {old_path}")
    elif finding.status in ("resolved", "dismissed"):
        context.append(finding.status.capitalize())
    prefix = f"[{finding.severity}] " + (f"{context[0]}: " if context else "")
    return prefix + finding.message


def _finding_properties(
    finding: ExportFinding, file: ExportFile | None, on_new_lines: bool
) -> dict[str, Any]:
    props: dict[str, Any] = {
        "findingId": finding.id,
        "severity": finding.severity,
        "status": finding.status,
        "side": finding.side,
    }
    if finding.line is not None and not on_new_lines:
        key = "oldRegion" if finding.side == "old" else "region"
        props[key] = {"startLine": finding.line, "endLine": finding.end_line}
        if finding.side == "old" and file is not None and file.old_path:
            props["oldPath"] = file.old_path
        if finding.lines is not None:
            props["lines"] = finding.lines
    if finding.line is None:
        props["wholeFile"] = True
    for key, value in (
        ("chunk", finding.chunk),
        ("createdAt", finding.created_at or None),
        ("updatedAt", finding.updated_at or None),
    ):
        if value is not None:
            props[key] = value
    return props


def _fix(finding: ExportFinding) -> dict[str, Any]:
    text = describe.replacement(finding.suggestion or "")
    if finding.suggestion:
        deleted: dict[str, Any] = {"startLine": finding.line, "endLine": finding.end_line}
    else:  # removing the lines: take their line ends too
        deleted = {
            "startLine": finding.line,
            "startColumn": 1,
            "endLine": (finding.end_line or 0) + 1,
            "endColumn": 1,
        }
    return {
        "description": {"text": "The reviewer's suggested change."},
        "artifactChanges": [
            {
                "artifactLocation": _artifact(finding.file_path),
                "replacements": [{"deletedRegion": deleted, "insertedContent": {"text": text}}],
            }
        ],
    }


def _fingerprint(identity: str, finding: ExportFinding) -> str:
    key = "\0".join((identity, str(finding.id), finding.file_path, finding.side))
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _review_properties(export: ReviewExport) -> dict[str, Any]:
    doc = export.document
    review = doc.get("review", {})
    return {
        "format": doc.get("format"),
        "formatVersion": doc.get("format_version"),
        "exportedAt": export.exported_at,
        "reviewId": export.review_id,
        "source": describe.public_source(export),
        "revision": review.get("revision"),
        "coverage": doc.get("coverage"),
        "findingsSummary": doc.get("findings_summary"),
    }
