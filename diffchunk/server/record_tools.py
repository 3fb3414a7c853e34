"""The review record's tools over MCP (thin wrappers over ``diffchunk.review.record``).

They change the record but destroy nothing (``destructiveHint`` false);
``mark_reviewed`` is idempotent.  The diff path they take is only read, so
the allowed-roots check treats it as the diff tools' paths are treated
(:data:`~diffchunk.server.app.PATH_READ_TOOLS`).
"""

from __future__ import annotations

from mcp.types import ToolAnnotations

from ..review import record as core
from .app import PATH_READ_TOOLS, app, to_json
from .errors import tool_errors

RECORDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
RECORDS_IDEMPOTENT = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
READS_RECORD = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
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
    """Record that you reviewed the files of a chunk (chunk_number) or the files matching
    file_pattern (a glob or an exact path); reviewed=false takes the mark back. Call it
    after each chunk you finish. Marks follow each file's change, not chunk numbers: they
    survive reloads with other options, and a file edited later shows as "changed".

    Returns JSON: {"marked": [paths], "reviewed", "totals", "next_chunk",
    "partly"?: [split files whose other parts are not marked yet]}.
    """
    with tool_errors():
        return to_json(
            core.mark_reviewed(absolute_file_path, chunk_number, file_pattern, reviewed).to_dict()
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
) -> str:
    """Record a problem you found, so it outlives this conversation.

    - file_path: as list_chunks shows it.
    - line, end_line: line numbers of the new version (side="new") or the old one
      (side="old"), inside one hunk of that file; omit line for the whole file.
    - severity: blocker, major, minor, nit or question.
    - suggestion: replacement text for those new-side lines.

    Returns JSON: {"id", "file_path", "side", "line", "end_line", "chunk",
    "severity", "lines"}; "lines" is the text pointed at: check it is what you meant.
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
            ).to_dict()
        )


@app.tool(annotations=RECORDS, structured_output=False)
def update_finding(
    absolute_file_path: str,
    finding_id: int,
    status: str | None = None,
    severity: str | None = None,
    message: str | None = None,
) -> str:
    """Change a finding: status "resolved" (fixed), "dismissed" (not a problem) or "open"
    (not for an "outdated" one: its lines changed; add a new finding), or its severity or
    message. Returns the finding as JSON."""
    with tool_errors():
        return to_json(
            core.update_finding(absolute_file_path, finding_id, status, severity, message).to_dict()
        )


@app.tool(annotations=READS_RECORD, structured_output=False)
def list_findings(
    absolute_file_path: str,
    status: str = "open",
    severity: str | None = None,
    file_pattern: str | None = None,
    offset: int = 0,
    limit: int | None = None,
) -> str:
    """List the review's findings in diff order. status: open (default), resolved,
    dismissed or all; severity: one or more, comma-separated; file_pattern: a glob.

    Returns JSON: {"findings": [{"id", "file_path", "side", "line", "end_line",
    "severity", "status", "message", "suggestion", "lines", "chunk", ...}], "total",
    "next_offset"?} (when present, call again with offset=next_offset).
    """
    with tool_errors():
        return to_json(
            core.list_findings(
                absolute_file_path, status, severity, file_pattern, offset, limit
            ).to_dict()
        )


@app.tool(annotations=READS_RECORD, structured_output=False)
def review_status(absolute_file_path: str, offset: int = 0, limit: int | None = None) -> str:
    """Where the review of this diff stands. Call it first when resuming a review (e.g.
    after your context was reset): next_chunk is the first chunk not reviewed yet.

    Returns JSON: {"review": {"id", "source", "revision"}, "totals": {"files",
    "reviewed", "seen", "unseen", "changed", "excluded", "excluded_by_reason"},
    "chunks": [{"chunk", "status": reviewed|partly|seen|unseen, "files"}],
    "total_chunks", "findings": {"open": {severity: count}, "resolved",
    "dismissed"}, "next_chunk", "changed_files"?, "next_offset"?} (paged like
    list_chunks).
    """
    with tool_errors():
        return to_json(core.review_status(absolute_file_path, offset, limit).to_dict())
