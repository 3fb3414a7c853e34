"""MCP tools for large files (registered on ``diffchunk.server.app.app``).

Thin wrappers over :mod:`diffchunk.files.overview`, :mod:`diffchunk.files.content_search`,
:mod:`diffchunk.files.content_read` (read-only tools),
:mod:`diffchunk.files.edit` and :mod:`diffchunk.files.revert` (edits).  Each
returns the JSON text of the core's typed result (its ``to_dict()``); a
:class:`~diffchunk.errors.DiffchunkError` becomes an error result in the one
shape of every tool (:mod:`diffchunk.server.errors`).

The read tools are plain functions, which the server runs on its tool
threads (:func:`~diffchunk.server.app.tool_threads`); the edit tools are
``async`` (they ask for the call's roots, :func:`_policy`) and run their work
on one of those threads the same way (:func:`_in_thread`): a long search, outline or edit never holds up the other
calls.  The work releases the interpreter lock as it goes (the regex engine
while it matches, the outline between pieces of its parse and queries), so a
``read_content`` beside the slowest of them still answers at once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol

from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations

from ..limits import READ_DEFAULT_LINES, SEARCH_DEFAULT_CONTEXT_LINES, SEARCH_DEFAULT_RESULTS
from ..paths import PathPolicy
from .app import READ_ONLY, app, in_tool_thread, policy_for_call, to_json
from .errors import tool_errors

DESTRUCTIVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)


class _Result(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


def _call(fn: Callable[..., _Result], *args: Any, **kwargs: Any) -> str:
    with tool_errors():
        result = fn(*args, **kwargs)
    return to_json(result.to_dict())


async def _in_thread(fn: Callable[..., _Result], *args: Any, **kwargs: Any) -> str:
    """:func:`_call` on a tool thread, as the server runs the plain tools."""
    return await in_tool_thread(functools.partial(_call, fn, *args, **kwargs))


@app.tool(annotations=READ_ONLY, structured_output=False)
def get_overview(
    absolute_file_path: str, outline_offset: int = 0, symbol: str | None = None
) -> str:
    """A large file's size, outline (changes since HEAD marked) and search hints.
    Pages: outline_offset. symbol: a name or glob lists those definitions."""
    from ..files import overview

    return _call(overview.get_overview, absolute_file_path, outline_offset, symbol)


@app.tool(annotations=READ_ONLY, structured_output=False)
def search_content(
    absolute_file_path: str,
    pattern: str,
    max_results: int = SEARCH_DEFAULT_RESULTS,
    context_lines: int = SEARCH_DEFAULT_CONTEXT_LINES,
    fuzzy: bool = True,
    regex: bool = False,
    case_sensitive: bool = True,
    invert: bool = False,
    count_only: bool = False,
) -> str:
    """Search a large file (fuzzy; fuzzy=false: exact; regex=true); hits with context
    and symbol. invert: lines not matching; count_only: the count.
    """
    from ..files import content_search

    return _call(
        content_search.search_content,
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
def read_content(
    absolute_file_path: str,
    offset: int = 1,
    limit: int = READ_DEFAULT_LINES,
    pattern: str | None = None,
    mode: str = "lines",
) -> str:
    """Read part of a file. mode "lines": limit lines from offset or pattern;
    "semantic": the whole definition at offset or pattern; "head"/"tail".
    """
    from ..files import content_read

    return _call(
        content_read.read_content,
        absolute_file_path,
        offset=offset,
        limit=limit,
        pattern=pattern,
        mode=mode,
    )


async def _policy(ctx: Context) -> PathPolicy | None:
    """The allowed roots of this call, which the edit tools check again on the one path
    they resolve and then work through (the check before the call resolved it apart)."""
    policy = await policy_for_call(ctx)
    return policy if isinstance(policy, PathPolicy) else None


@app.tool(annotations=DESTRUCTIVE, structured_output=False)
async def edit_content(
    absolute_file_path: str,
    changes: list[dict[str, Any]],
    ctx: Context,
    fuzzy: bool = True,
    preview: bool = True,
) -> str:
    """Edit a file, all or nothing: changes=[{"search": exact text, "replace": new}].
    preview=false writes it (after a backup; revert_edit undoes it).
    """
    from ..files import edit

    return await _in_thread(
        edit.edit_content,
        absolute_file_path,
        changes=changes,
        fuzzy=fuzzy,
        preview=preview,
        policy=await _policy(ctx),
    )


@app.tool(annotations=DESTRUCTIVE, structured_output=False)
async def revert_edit(absolute_file_path: str, ctx: Context, backup_id: str | None = None) -> str:
    """Undo an edit: restore the latest backup, or backup_id."""
    from ..files import revert

    return await _in_thread(
        revert.revert_edit, absolute_file_path, backup_id=backup_id, policy=await _policy(ctx)
    )
