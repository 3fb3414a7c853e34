"""MCP tools for the code around a change (thin wrappers over :mod:`diffchunk.review`).

``open_file_version`` (any file at either side of a diff, as a read-only
snapshot the file tools read), ``search_diff``, ``list_commits``,
``search_code`` and ``find_references`` (the whole tree at one side of a
range), ``list_symbols`` (every definition a file's change touches).  Each
returns the JSON of the core's typed result; errors come back in the one
shape of every tool (:mod:`diffchunk.server.errors`).
"""

from __future__ import annotations

from ..limits import CODE_SEARCH_DEFAULT_RESULTS, COMMITS_PAGE_DEFAULT, DIFF_SEARCH_DEFAULT_RESULTS
from .app import READ_ONLY, app, to_json
from .errors import tool_errors


@app.tool(annotations=READ_ONLY, structured_output=False)
def open_file_version(
    absolute_file_path: str,
    file_path: str,
    side: str = "new",
    absolute_repo_path: str | None = None,
) -> str:
    """Any file of the repository (not only the diff's) at a side, as a read-only
    snapshot whose "path" the file tools read. A diff file needs absolute_repo_path."""
    from ..review.tools.file_versions import open_file_version as core_open_file_version

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
    text. changed_only: no context."""
    from ..review.tools.diff_search import search_diff as core_search_diff

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
    include_body: bool = False,
) -> str:
    """The diff's commits: id, subject, author, date, files; file_path: only those
    touching it; include_body: the messages instead, as git log."""
    from ..review.tools.commits import list_commits as core_list_commits
    from ..review.tools.commits import render_messages

    with tool_errors():
        found = core_list_commits(absolute_file_path, file_path, offset, limit, include_body)
        return render_messages(found, offset) if include_body else to_json(found.to_dict())


@app.tool(annotations=READ_ONLY, structured_output=False)
def search_code(
    absolute_file_path: str,
    pattern: str,
    side: str = "new",
    regex: bool = False,
    case_sensitive: bool = True,
    file_pattern: str | None = None,
    max_results: int = CODE_SEARCH_DEFAULT_RESULTS,
    offset: int = 0,
) -> str:
    """git grep of a range's whole tree at a side: lines by file, those in the diff
    marked. regex: Python syntax."""
    from ..review.tools.code_search import search_code as core_search_code
    from ..review.tools.hits_text import render_searches

    with tool_errors():
        found = core_search_code(
            absolute_file_path,
            pattern,
            side,
            regex,
            case_sensitive,
            file_pattern,
            max_results,
            offset,
        )
        return render_searches([(pattern, found)], offset)


@app.tool(annotations=READ_ONLY, structured_output=False)
def find_references(
    absolute_file_path: str,
    symbol: str,
    side: str = "new",
    max_results: int = CODE_SEARCH_DEFAULT_RESULTS,
    offset: int = 0,
) -> str:
    """Callers of a name (several: "a, b") in a range's tree at a side, in code of the
    definition's language, each with the definition it sits in."""
    from ..review.tools.code_search import find_references_each
    from ..review.tools.hits_text import render_searches

    with tool_errors():
        found = find_references_each(absolute_file_path, symbol, side, max_results, offset)
        return render_searches(found, offset, references=True)


@app.tool(annotations=READ_ONLY, structured_output=False)
def list_symbols(absolute_file_path: str, file_path: str, offset: int = 0) -> str:
    """Every definition one file's change touches (listings show 5)."""
    from ..review.tools.symbol_list import list_symbols as core_list_symbols

    with tool_errors():
        return to_json(core_list_symbols(absolute_file_path, file_path, offset).to_dict())
