"""MCP tools for the code around a change (thin wrappers over :mod:`diffchunk.review`).

``open_file_version`` (a file at either side of a diff, as a read-only
snapshot the file tools read), ``search_diff`` and ``list_commits``.  Each
returns the JSON of the core's typed result; errors come back in the one
shape of every tool (:mod:`diffchunk.server.errors`).
"""

from __future__ import annotations

from ..review.file_versions import open_file_version as core_open_file_version
from .app import READ_ONLY, app, to_json
from .errors import tool_errors


@app.tool(annotations=READ_ONLY, structured_output=False)
def open_file_version(
    absolute_file_path: str,
    file_path: str,
    side: str = "new",
    absolute_repo_path: str | None = None,
) -> str:
    """Make a file of the diff readable as it is on one side, to see code outside the hunks.

    Writes a read-only snapshot (in diffchunk's cache, by blob id) whose line
    numbers are the diff's for that side: read it with read_content (e.g.
    mode="semantic", offset=<a hunk's line>), search_content or get_overview.
    Works for ranges (bare repositories too), staged changes and the working
    tree; for a diff file pass absolute_repo_path (the repository whose
    objects its "index" lines name).

    - file_path: a path as list_chunks shows it (or a glob matching one file).
    - side: "new" (default) or "old".

    Returns JSON: {"path", "revision", "blob", "line_count", "size",
    "file_path", "side"}.
    """
    with tool_errors():
        found = core_open_file_version(absolute_file_path, file_path, side, absolute_repo_path)
        return to_json(found.to_dict())
