"""MCP tools for the code around a change (thin wrappers over :mod:`diffchunk.review`).

``open_file_version`` (a file at either side of a diff, as a read-only
snapshot the file tools read), ``search_diff`` and ``list_commits``.  Each
returns the JSON of the core's typed result; errors come back in the one
shape of every tool (:mod:`diffchunk.server.errors`).
"""

from __future__ import annotations

from ..limits import COMMITS_PAGE_DEFAULT, DIFF_SEARCH_DEFAULT_RESULTS
from ..review.tools.commits import list_commits as core_list_commits
from ..review.tools.diff_search import search_diff as core_search_diff
from ..review.tools.file_versions import open_file_version as core_open_file_version
from .app import READ_ONLY, app, to_json
from .errors import tool_errors


@app.tool(annotations=READ_ONLY, structured_output=False)
def open_file_version(
    absolute_file_path: str,
    file_path: str,
    side: str = "new",
    absolute_repo_path: str | None = None,
) -> str:
    """A file of the diff at side "new" or "old", as a read-only snapshot whose "path"
    the file tools read. A diff file needs absolute_repo_path."""
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
    max_results: int = DIFF_SEARCH_DEFAULT_RESULTS,
    offset: int = 0,
) -> str:
    """Lines of the diff's hunks matching a text or regex: file, chunk, side, line,
    text. changed_only: no context; file_pattern: globs. Pages: offset."""
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
    absolute_file_path: str,
    file_path: str | None = None,
    offset: int = 0,
    limit: int = COMMITS_PAGE_DEFAULT,
) -> str:
    """The diff's commits: id, subject, author, date, files; file_path: only those
    touching it."""
    with tool_errors():
        found = core_list_commits(absolute_file_path, file_path, offset, limit)
        return to_json(found.to_dict())
