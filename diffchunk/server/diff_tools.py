"""The diff tools, exposed over MCP (thin wrappers over :mod:`diffchunk.review.tools.diff_tools`)."""

from __future__ import annotations

import json
import logging

from mcp.server.mcpserver import Context
from mcp.types import TextContent

from ..diff.options import LoadOptions, Progress
from ..limits import CHUNK_DEFAULT_LINES
from ..review.tools import diff_tools as core
from ..review.tools.plan import load_plan
from .app import READ_ONLY, app, run_with_progress, to_json, with_text
from .errors import printable, tool_errors

logger = logging.getLogger(__name__)


@app.tool(annotations=READ_ONLY, structured_output=False)
async def load_diff(
    absolute_file_path: str,
    ctx: Context,
    max_chunk_lines: int = CHUNK_DEFAULT_LINES,
    skip_trivial: bool = True,
    skip_generated: bool = True,
    include_patterns: str | None = None,
    exclude_patterns: str | None = None,
    context_lines: int | None = None,
    gitattributes_path: str | None = None,
    order: str = "path",
) -> str | list[TextContent]:
    """Load a diff file with other options (its "file_path" is then a view handle).
    skip_trivial: whitespace-only changes; skip_generated: lockfiles, generated,
    vendored; order: "path" or "review".
    """

    with tool_errors():
        options = LoadOptions.of(locals())

        def work(progress: Progress) -> str | list[TextContent]:
            summary = core.load_diff(absolute_file_path, options, progress=progress)
            plan = load_plan(summary.file_path)
            return with_text({**summary.to_dict(), **plan.to_dict()}, plan.change)

        answer: str | list[TextContent] = await run_with_progress(ctx, work)
        return answer


@app.tool(annotations=READ_ONLY, structured_output=False)
def list_chunks(
    absolute_file_path: str,
    offset: int = 0,
    limit: int | None = None,
    format: str = "raw",
    excluded: bool = False,
) -> str:
    """A diff's chunks: each file's status, +/- lines, changed symbols; excluded=true:
    the files left out.
    """
    with tool_errors():
        if excluded:
            return to_json(core.list_excluded(absolute_file_path, offset, limit).to_dict())
        return to_json(core.list_chunks(absolute_file_path, offset, limit, format).to_dict())


@app.tool(annotations=READ_ONLY, structured_output=False)
def get_chunk(
    absolute_file_path: str,
    chunk_number: int,
    include_context: bool = True,
    format: str = "raw",
    part: int | None = None,
) -> str:
    """Read one chunk. format: "raw", "lean" (every change, fewest tokens),
    "annotated" (line numbers) or "compact" (new side); part: of a large raw chunk.
    """
    with tool_errors():
        return core.get_chunk(absolute_file_path, chunk_number, include_context, format, part)


@app.tool(annotations=READ_ONLY, structured_output=False)
def find_chunks_for_files(
    absolute_file_path: str, pattern: str, offset: int = 0, limit: int | None = None
) -> str:
    """The chunks holding the files pattern (globs or paths) matches, with their
    lines in each.
    """
    with tool_errors():
        found = core.find_chunks_page(absolute_file_path, pattern, offset, limit)
        return to_json(found.answer())


@app.tool(annotations=READ_ONLY, structured_output=False)
def get_file_diff(
    absolute_file_path: str, file_path: str, format: str = "raw", context: str = "hunks"
) -> str:
    """A file's diff (file_path as listed; several, comma-separated, or globs: each
    file in turn). context="symbol": each change within its whole definition."""
    with tool_errors():
        return core.get_file_diff(absolute_file_path, file_path, format, context=context)


@app.tool(annotations=READ_ONLY, structured_output=False)
def get_current_overview() -> str:
    """The diffs loaded in this server."""
    with tool_errors():
        return to_json(core.get_current_overview().to_dict())


@app.resource(
    "diffchunk://current",
    name="current",
    title="Loaded diffs",
    description="Overview of the diffs loaded in this server (same as get_current_overview).",
    mime_type="application/json",
)
def current_overview() -> str:
    overview = core.get_current_overview().to_dict()
    return printable(json.dumps(overview, ensure_ascii=False, indent=2))
