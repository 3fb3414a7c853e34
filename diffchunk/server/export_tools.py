"""``export_review`` over MCP (a thin wrapper over :mod:`diffchunk.review.exporting`)."""

from __future__ import annotations

from ..review.exporting import export_file_note
from ..review.exporting import export_review as core_export_review
from ..review.listing import CHARS_PER_TOKEN, RESPONSE_TOKENS
from .app import READ_ONLY, app, to_json
from .errors import tool_errors


@app.tool(annotations=READ_ONLY, structured_output=False)
def export_review(absolute_file_path: str, format: str = "markdown", status: str = "open") -> str:
    """Export the recorded review of a diff for people and tools to read.

    - format: "markdown" (a pull request or chat), "html" (one page with the
      diff and the findings under their lines), "sarif" (code scanning),
      "rdjson" (reviewdog), "github" (the body of GitHub's create-review
      call), "json" (the whole record).
    - status: "open" (default) or "all" findings.

    Returns the text; one larger than an answer is written to a file and the
    answer names it.
    """
    with tool_errors():
        exported = core_export_review(absolute_file_path, format, status)
        if len(exported.text) <= RESPONSE_TOKENS * CHARS_PER_TOKEN:
            return exported.text
        return to_json(export_file_note(exported, absolute_file_path))
