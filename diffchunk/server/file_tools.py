"""MCP tools for large files (registered on ``diffchunk.server.app.app``).

Thin wrappers over :mod:`diffchunk.files.service` (read-only tools),
:mod:`diffchunk.files.edit` and :mod:`diffchunk.files.revert` (edits).  Each
returns the JSON text of the core's typed result (its ``to_dict()``); a
:class:`~diffchunk.errors.DiffchunkError` becomes an error result in the one
shape of every tool (:mod:`diffchunk.server.errors`).

The tools are ``async`` and call the core directly on the server's thread:
the work is short, and a regex search can then be interrupted by its time
budget (``SIGALRM`` works only on the main thread).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from mcp.types import ToolAnnotations

from ..files import service
from .app import READ_ONLY, app
from .errors import tool_errors

DESTRUCTIVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)


class _Result(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


def _call(fn: Callable[..., _Result], *args: Any, **kwargs: Any) -> str:
    with tool_errors():
        result = fn(*args, **kwargs)
    return json.dumps(result.to_dict(), ensure_ascii=False)


@app.tool(annotations=READ_ONLY, structured_output=False)
async def get_overview(
    absolute_file_path: str, outline_offset: int = 0, symbol: str | None = None
) -> str:
    """Start here for any large file: size, line count, encoding, outline, search hints.

    - absolute_file_path: absolute path of the file (`~` is expanded).
    - outline_offset: the outline comes in pages of 400 items in file order
      (a class with its members); pass "outline_next_offset" for the next.
    - symbol: a name or glob ("createProgram", "Parser.*") to list the
      matching definitions at any depth with their lines, instead of a page.

    Returns JSON: {"line_count", "file_size", "encoding", "is_binary",
    "binary_hint", "line_ending", "long_lines": {"has_long_lines", "count",
    "max_length", "threshold"}, "outline": [{"name", "type", "line_number",
    "end_line", "line_count", "changes", "children"}], "outline_total",
    "outline_next_offset"?, "symbols"?, "changed_symbols", "search_hints"}. In a git work tree each outline item's "changes" says
    whether the symbol was added/modified/removed against HEAD. Binary files
    are recognised ("is_binary") and refused by the other tools.
    """
    return _call(service.get_overview, absolute_file_path, outline_offset, symbol)


@app.tool(annotations=READ_ONLY, structured_output=False)
async def search_content(
    absolute_file_path: str,
    pattern: str,
    max_results: int = 20,
    context_lines: int = 3,
    fuzzy: bool = True,
    regex: bool = False,
    case_sensitive: bool = True,
    invert: bool = False,
    count_only: bool = False,
) -> str:
    """Find lines in a large file: exact, fuzzy (default, tolerates typos) or regex.

    - pattern: text to find (one line). With regex=True a Python regular
      expression; set fuzzy=False with regex (they cannot be combined).
    - fuzzy: approximate, case-insensitive match, ranked by similarity;
      finds a misspelt word inside a long line. fuzzy=False for exact text.
    - case_sensitive: for exact and regex searches.
    - invert: lines NOT matching (like grep -v); exact match.
    - count_only: just the number of matching lines (like grep -c) - fast
      even on a 1 GB file.
    - max_results (default 20), context_lines (default 3).

    Returns JSON: {"results": [{"line_number", "match", "context_before",
    "context_after", "semantic_context", "similarity_score", "truncated",
    "match_type", "submatches": [{"start", "end"}]}], "total_matches",
    "pattern", "fuzzy_enabled", "regex_enabled", "case_sensitive", "inverted",
    "warnings"}; with count_only {"count", ...}. Lines over 500 characters
    are cut around the match ("truncated": true, "match_offset").
    """
    return _call(
        service.search_content,
        absolute_file_path,
        pattern,
        max_results=max_results,
        context_lines=context_lines,
        fuzzy=fuzzy,
        regex=regex,
        case_sensitive=case_sensitive,
        invert=invert,
        count_only=count_only,
    )


@app.tool(annotations=READ_ONLY, structured_output=False)
async def read_content(
    absolute_file_path: str,
    offset: int = 1,
    limit: int = 100,
    pattern: str | None = None,
    mode: str = "lines",
) -> str:
    """Read part of a large file by line number, from either end, or a whole code block.

    - mode "lines" (default): `limit` lines from line `offset` (1-based), or
      from the line `pattern` matches (exact first, then fuzzy).
    - mode "semantic": the complete function/class containing `offset` (or
      the `pattern` match).
    - mode "head" / "tail": the first / last `limit` lines (tail reads from
      the end without scanning the file: use it for logs).

    Returns JSON: {"content", "start_line", "end_line", "lines_returned",
    "total_lines", "mode", "truncated", "warnings"} plus {"pattern",
    "match_line", "similarity_score"} when a pattern was used. Line numbers
    match `sed -n`; "truncated" means more lines follow.
    """
    return _call(
        service.read_content,
        absolute_file_path,
        offset=offset,
        limit=limit,
        pattern=pattern,
        mode=mode,
    )


@app.tool(annotations=DESTRUCTIVE, structured_output=False)
async def edit_content(
    absolute_file_path: str,
    changes: list[dict[str, Any]],
    fuzzy: bool = True,
    preview: bool = True,
) -> str:
    """Edit a file by search/replace blocks; preview first, then apply with preview=False.

    - changes: [{"search": "exact text to replace (may span lines)",
      "replace": "new text", "fuzzy": optional bool}], applied all or nothing.
    - fuzzy: allow approximate matches of `search` (default true).
    - preview: true (default) shows the diff without writing; false writes
      it, after saving a backup (see revert_edit).

    A search text found more than once is refused: include more surrounding
    lines to make it unique. Returns JSON: {"success", "changes_applied"
    (what the batch applies; written only when "written" is true),
    "changes_matched" (changes found in the file), "changes_failed",
    "results": [{"index", "success", "line_number", "match_type",
    "similarity", "error", "similar_matches"}], "preview", "backup_created",
    "written"}.
    """
    from ..files import edit

    return _call(
        edit.edit_content, absolute_file_path, changes=changes, fuzzy=fuzzy, preview=preview
    )


@app.tool(annotations=DESTRUCTIVE, structured_output=False)
async def revert_edit(absolute_file_path: str, backup_id: str | None = None) -> str:
    """Undo an edit by restoring a backup; the current content is saved first.

    - backup_id: the backup to restore (an "id" from available_backups);
      default the most recent one.

    Returns JSON: {"success", "reverted_to", "current_saved_as",
    "available_backups": [{"id", "timestamp", "size", "path"}]}.
    """
    from ..files import revert

    return _call(revert.revert_edit, absolute_file_path, backup_id=backup_id)
