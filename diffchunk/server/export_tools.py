"""``export_review`` over MCP (a thin wrapper over :mod:`diffchunk.review.tools.exporting`)."""

from __future__ import annotations

from ..review.tools.exporting import export_file_note
from ..review.tools.exporting import export_review as core_export_review
from ..review.tools.listing import CHARS_PER_TOKEN, RESPONSE_TOKENS
from .app import READ_ONLY, app, to_json
from .errors import tool_errors


@app.tool(annotations=READ_ONLY, structured_output=False)
def export_review(absolute_file_path: str, format: str = "markdown", status: str = "open") -> str:
    """Export the review's findings: format markdown, html, sarif, rdjson, github or
    json; status open or all. A large export goes to a file the answer names.
    """
    with tool_errors():
        exported = core_export_review(absolute_file_path, format, status)
        if len(exported.text) <= RESPONSE_TOKENS * CHARS_PER_TOKEN:
            return exported.text
        return to_json(export_file_note(exported, absolute_file_path))
