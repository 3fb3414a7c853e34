"""MCP tools for the code around a change (thin wrappers over :mod:`diffchunk.review`).

``open_file_version`` (a file at either side of a diff, as a read-only
snapshot the file tools read), ``search_diff`` and ``list_commits``.  Each
returns the JSON of the core's typed result; errors come back in the one
shape of every tool (:mod:`diffchunk.server.errors`).
"""

from __future__ import annotations

from ..review.commits import list_commits as core_list_commits
from ..review.diff_search import search_diff as core_search_diff
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


@app.tool(annotations=READ_ONLY, structured_output=False)
def search_diff(
    absolute_file_path: str,
    pattern: str,
    regex: bool = False,
    case_sensitive: bool = True,
    file_pattern: str | None = None,
    side: str = "both",
    changed_only: bool = False,
    max_results: int = 50,
    offset: int = 0,
) -> str:
    """Find lines of a diff (inside its hunks) that match a text or regex.

    - side: "both" (default), "new" (+ and context lines, new line numbers)
      or "old" (- and context lines, old line numbers); changed_only=true
      leaves out context lines.
    - file_pattern: globs of the files to search (e.g. "src/**,*.py").
    - max_results (at most 200) and offset page the hits.

    Returns JSON: {"hits": [{"file", "chunk", "side", "line", "kind" ("+",
    "-", " "), "text"}], "total" (matching lines, as grep -c counts them),
    "files_matched", "next_offset"?}; a hit in an excluded file has
    "excluded" instead of "chunk".
    """
    with tool_errors():
        found = core_search_diff(
            absolute_file_path,
            pattern,
            regex,
            case_sensitive,
            file_pattern,
            side,
            changed_only,
            max_results,
            offset,
        )
        return to_json(found.to_dict())


@app.tool(annotations=READ_ONLY, structured_output=False)
def list_commits(
    absolute_file_path: str, file_path: str | None = None, offset: int = 0, limit: int = 50
) -> str:
    """List the commits of a diff: a range's (loaded with load_git_diff) or those a
    git log -p / format-patch file holds; with file_path, only those touching it.

    Returns JSON: {"commits": [{"id", "subject", "author", "date", "files"}],
    "total", "source", "next_offset"?}, newest first for a range. Renames are
    not followed (a renamed file: commits touching its old or new path).
    """
    with tool_errors():
        found = core_list_commits(absolute_file_path, file_path, offset, limit)
        return to_json(found.to_dict())
