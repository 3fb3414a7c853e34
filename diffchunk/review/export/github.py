"""The ``github`` export: the body of GitHub's "create a review for a pull request" call.

``gh api repos/OWNER/REPO/pulls/N/reviews --input review.json`` posts it.  The
request has:

- ``commit_id``: the reviewed head commit (left out when the review has none,
  a diff file or uncommitted changes: GitHub then takes the pull request's
  latest commit);
- ``event``: ``COMMENT`` (the review neither approves nor requests changes);
- ``comments``: one per open finding whose lines lie inside one hunk of its
  file's diff: ``path`` (the file's real name: ``a\\b.txt`` is shown
  ``a\\\\b.txt`` by the diff tools), ``line`` (the last line), ``side`` (``RIGHT`` for the
  new side, ``LEFT`` for the old), and for several lines ``start_line`` and
  ``start_side``; the body is the severity, the message and the suggestion as
  a ```` ```suggestion ```` block;
- ``body``: the Markdown summary (what was reviewed, coverage, findings by
  severity; the repository by its remote or its name, never a local path),
  then every finding GitHub cannot take as a line comment: whole-
  file findings, findings outside the diff's hunks (GitHub refuses those),
  outdated, resolved and dismissed ones, findings on a binary file or on a
  file no longer in the diff, and a finding too long for one comment.

GitHub limits a body (the review's, and each comment's) to 65,536
characters: comments that would pass it go to the review body, and the
findings that no longer fit there are counted at its end by severity, with
the command that exports all of them.  Nothing is dropped silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import describe, jsontext, markdown
from .document import ExportFile, ExportFinding, ReviewExport, load_document
from .sink import TextSink, collect

MAX_BODY = 65_536
"""GitHub refuses a review or comment body longer than this (characters): a
limit of its REST API."""

_TRAILER_ROOM = 1_000
"""Characters of a review body kept for the line that says how much was cut and
where the rest is."""


SIDES = {"new": "RIGHT", "old": "LEFT"}


def render_github(document: Mapping[str, Any]) -> str:
    """The create-review request body as JSON (see the module docstring)."""
    return collect(lambda out: write_github(document, out))


def write_github(document: Mapping[str, Any], out: TextSink) -> None:
    """:func:`render_github`, written to ``out`` a comment at a time."""
    export = load_document(document)
    comments: list[dict[str, Any]] = []
    elsewhere: list[ExportFinding] = []
    for finding in export.findings:
        comment = _comment(finding, export.file(finding.file_path))
        if comment is None:
            elsewhere.append(finding)
        else:
            comments.append(comment)
    request: dict[str, Any] = {}
    head = export.commit_id()
    if head:
        request["commit_id"] = head
    request["event"] = "COMMENT"
    request["body"] = review_body(export, elsewhere, len(comments))
    request["comments"] = comments
    jsontext.write(request, 2, out)


def _comment(finding: ExportFinding, file: ExportFile | None) -> dict[str, Any] | None:
    """The line comment of an open finding inside one hunk; None when GitHub would refuse it."""
    first, last = finding.line, finding.end_line
    if finding.status != "open" or not finding.on_lines or first is None or last is None:
        return None
    if file is None or file.binary or not file.holds(finding.side, first, last):
        return None
    path = describe.text_name(file.path)
    body = comment_body(finding)
    if path is None or len(body) > MAX_BODY:
        return None
    side = SIDES[finding.side]
    comment: dict[str, Any] = {"path": path, "line": last, "side": side}
    if first < last:
        comment["start_line"] = first
        comment["start_side"] = side
    comment["body"] = body
    return comment


def comment_body(finding: ExportFinding) -> str:
    """A line comment: severity and finding number, message, suggestion."""
    lines = [f"**{finding.severity.upper()}** · finding #{finding.id}", ""]
    lines += markdown.finding_markdown(finding, None, header=False, lines=False)
    return "\n".join(lines).rstrip("\n") + "\n"


def review_body(export: ReviewExport, elsewhere: list[ExportFinding], inline: int) -> str:
    """The review's body: the summary, then the findings that are not line comments."""
    out = markdown.summary_markdown(export, heading="##", public=True)
    if not export.commit_id():
        out += [
            "*No commit id: this review has no head commit, so GitHub places the comments "
            "on the pull request's latest commit. Check that it is the commit reviewed.*",
            "",
        ]
    out.append(f"{inline} finding(s) are line comments of this review.")
    out.append("")
    if not elsewhere:
        return "\n".join(out).rstrip("\n") + "\n"
    out += [f"### Findings that are not line comments ({len(elsewhere)})", ""]
    text = "\n".join(out)
    budget = MAX_BODY - _TRAILER_ROOM
    left: list[ExportFinding] = []
    for finding in elsewhere:  # in order; one too long for what is left is counted, not cut
        block = "\n".join(_elsewhere_markdown(export, finding)) + "\n"
        if len(text) + 1 + len(block) > budget:
            left.append(finding)
            continue
        text += "\n" + block
    if left:
        counts: dict[str, int] = {}
        for finding in left:
            counts[finding.severity] = counts.get(finding.severity, 0) + 1
        text += (
            f"\n**{len(left)} more finding(s) do not fit in a review body** "
            f"(GitHub takes up to {MAX_BODY:,} characters): "
            f"{describe.severity_counts(counts)}. "
            "`diffchunk export --format markdown` lists all of them.\n"
        )
    return text.rstrip("\n") + "\n"


def _elsewhere_markdown(export: ReviewExport, finding: ExportFinding) -> list[str]:
    file = export.file(finding.file_path)
    head = f"#### {markdown.code_span(finding.file_path)} — {markdown.finding_header(finding)}"
    return [head, "", *markdown.finding_markdown(finding, file, header=False)]
