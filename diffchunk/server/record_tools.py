"""The review record's tools over MCP (thin wrappers over ``diffchunk.review.record``).

They change the record but destroy nothing (``destructiveHint`` false);
``mark_reviewed`` is idempotent.  They answer in a line (what they wrote, never
the record back: a review makes dozens of these calls), the CLI keeps the whole
results.  The diff path they take is only read, so
the allowed-roots check treats it as the diff tools' paths are treated
(:data:`~diffchunk.server.app.PATH_READ_TOOLS`).
"""

from __future__ import annotations

from mcp.types import ToolAnnotations

from ..review import record as core
from .app import PATH_READ_TOOLS, READ_ONLY, app, to_json
from .errors import tool_errors

RECORDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
RECORDS_IDEMPOTENT = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


PATH_READ_TOOLS.update(
    {"mark_reviewed", "add_finding", "update_finding", "list_findings", "review_status"}
)


@app.tool(annotations=RECORDS_IDEMPOTENT, structured_output=False)
def mark_reviewed(
    absolute_file_path: str,
    chunk_number: int | None = None,
    file_pattern: str | None = None,
    reviewed: bool = True,
) -> str:
    """Mark a chunk's files (chunk_number), or those matching file_pattern, reviewed
    (reviewed=false: not).
    """
    with tool_errors():
        return to_json(
            core.mark_reviewed(absolute_file_path, chunk_number, file_pattern, reviewed).line()
        )


@app.tool(annotations=RECORDS, structured_output=False)
def add_finding(
    absolute_file_path: str,
    file_path: str,
    message: str,
    line: int | None = None,
    end_line: int | None = None,
    side: str = "new",
    severity: str = "major",
    suggestion: str | None = None,
    force: bool = False,
) -> str:
    """Record a problem at lines (any of a changed file) of a side; no line: the
    whole file. severity: blocker, major, minor, nit, question. suggestion:
    replacement lines. force=true: add it though dismissed or resolved.
    """
    with tool_errors():
        return to_json(
            core.add_finding(
                absolute_file_path,
                file_path,
                message,
                line,
                end_line,
                side,
                severity,
                suggestion,
                force,
            ).line()
        )


@app.tool(annotations=RECORDS, structured_output=False)
def update_finding(
    absolute_file_path: str,
    finding_id: int,
    status: str | None = None,
    severity: str | None = None,
    message: str | None = None,
    comment: str | None = None,
) -> str:
    """Change a finding's status (resolved, dismissed, open), severity or message.
    comment: a reply kept on its thread (say why)."""
    with tool_errors():
        f = core.update_finding(absolute_file_path, finding_id, status, severity, message, comment)
        answer = {"id": f.id, "status": f.status, "severity": f.severity}
        if f.note is not None:  # a reopened outdated finding: where its lines are now
            answer["note"] = f.note
        return to_json(answer)


@app.tool(annotations=READ_ONLY, structured_output=False)
def list_findings(
    absolute_file_path: str,
    status: str = "open",
    severity: str | None = None,
    file_pattern: str | None = None,
    offset: int = 0,
    limit: int | None = None,
    author: str | None = None,
) -> str:
    """The findings in diff order. status: open, resolved, dismissed, outdated or all;
    severity: comma-separated; author: a text in it.
    """
    with tool_errors():
        return to_json(
            core.list_findings(
                absolute_file_path, status, severity, file_pattern, offset, limit, author
            ).to_dict()
        )


@app.tool(annotations=READ_ONLY, structured_output=False)
def review_status(absolute_file_path: str, offset: int = 0, limit: int | None = None) -> str:
    """Where the review stands: files reviewed and not, open findings, next_chunk."""
    with tool_errors():
        return to_json(core.review_status(absolute_file_path, offset, limit).to_dict())
