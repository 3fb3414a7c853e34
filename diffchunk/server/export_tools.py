"""``export_review`` over MCP (a thin wrapper over :mod:`diffchunk.review.tools.exporting`)."""

from __future__ import annotations

from .app import READ_ONLY, app, to_json
from .errors import tool_errors


@app.tool(annotations=READ_ONLY, structured_output=False)
def export_review(
    absolute_file_path: str, format: str = "markdown", status: str = "open", diff_text: str = "all"
) -> str:
    """Export the findings: format markdown, html, sarif, rdjson, github or json;
    status open or all; diff_text (html): all or findings. Large: to a file.
    """
    from ..review.tools.exporting import export_answer
    from ..review.tools.listing import CHARS_PER_TOKEN, RESPONSE_TOKENS

    with tool_errors():
        answer = export_answer(
            absolute_file_path,
            format,
            status,
            limit=RESPONSE_TOKENS * CHARS_PER_TOKEN,
            diff_text=diff_text,
        )
        return answer if isinstance(answer, str) else to_json(answer)
