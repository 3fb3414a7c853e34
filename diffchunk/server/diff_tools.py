"""The diff tools, exposed over MCP (thin wrappers over :mod:`diffchunk.review.tools.diff_tools`)."""

from __future__ import annotations

import json
import logging
from typing import Any

from mcp.server.mcpserver import Context

from ..diff.options import LoadOptions, Progress
from ..limits import CHUNK_DEFAULT_LINES
from ..review.tools import diff_tools as core
from .app import READ_ONLY, app, run_with_progress, to_json
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
) -> str:
    """Load a diff file with other options than the defaults (chunk size, filters, context).

    Optional: the diff tools load a file on first use with the defaults. With other
    options, "file_path" is a view handle for that view (pass it to the other tools);
    the diff's own path keeps its default view. skip_trivial: leave out
    whitespace-only changes; skip_generated: lockfiles, generated and vendored files
    (.gitattributes linguist-* win); include_patterns/exclude_patterns:
    comma-separated globs ("*.py,docs/**"); context_lines: unchanged lines kept
    around changes; gitattributes_path: a .gitattributes file to apply; order: "path"
    (the diff's) or "review" (code, each test after its source, docs, config,
    generated files last).
    """

    with tool_errors():
        options = LoadOptions(
            max_chunk_lines=max_chunk_lines,
            skip_trivial=skip_trivial,
            skip_generated=skip_generated,
            include_patterns=include_patterns,
            exclude_patterns=exclude_patterns,
            context_lines=context_lines,
            gitattributes_path=gitattributes_path,
            order=order,
        )

        def work(progress: Progress) -> dict[str, Any]:
            return core.load_diff(absolute_file_path, options, progress=progress).to_dict()

        return to_json(await run_with_progress(ctx, work))


@app.tool(annotations=READ_ONLY, structured_output=False)
def list_chunks(
    absolute_file_path: str,
    offset: int = 0,
    limit: int | None = None,
    format: str = "raw",
    excluded: bool = False,
) -> str:
    """List a diff's chunks (files with status, +/- lines and changed symbols; lines,
    tokens): start a review here.

    Chunks are numbered from 1 for get_chunk. Files left out are counted in
    "excluded_summary" (the first few in "excluded"); excluded=true pages all of
    them instead; get_file_diff still shows them. When "next_offset" is present,
    call again with offset=next_offset. format: count tokens as get_chunk returns
    that format (default raw). "parts": the raw text comes in that many answers.
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
    """Read one chunk (numbered from 1).

    format: "raw" (default, the exact patch), "lean" (every change for the fewest
    tokens: unchanged lines, moved or repeated code, binary data and long lines are
    folded, each fold saying what it stands for), "annotated" (new and old hunks with
    line numbers) or "compact" (new side only). part: a raw text larger than one
    answer comes in parts (list_chunks says how many), numbered from 1.
    include_context=false: no header.
    """
    with tool_errors():
        return core.get_chunk(absolute_file_path, chunk_number, include_context, format, part)


@app.tool(annotations=READ_ONLY, structured_output=False)
def find_chunks_for_files(
    absolute_file_path: str, pattern: str, offset: int = 0, limit: int | None = None
) -> str:
    """The chunks holding files that match a glob ("*.py", "src/api/*", comma-separated)
    or a path as listed, each with those files and their lines in it:
    [{"chunk", "files": [{"path", "lines"}]}]; [] when none (excluded files are in
    no chunk). When they do not all fit one answer (or offset/limit ask for a part):
    {"chunks": [...], "total", "next_offset"}; call again with offset=next_offset.
    """
    with tool_errors():
        found = core.find_chunks_page(absolute_file_path, pattern, offset, limit)
        return to_json(found.answer())


@app.tool(annotations=READ_ONLY, structured_output=False)
def get_file_diff(
    absolute_file_path: str, file_path: str, format: str = "raw", context: str = "hunks"
) -> str:
    """One file's whole diff, also when it is split over chunks or excluded.

    file_path: a path as listed, or a glob matching one file. format: as get_chunk.
    context="symbol": each hunk widened to the whole function or class around it
    at the new revision (still a patch).
    """
    with tool_errors():
        return core.get_file_diff(absolute_file_path, file_path, format, context=context)


@app.tool(annotations=READ_ONLY, structured_output=False)
def get_current_overview() -> str:
    """The diffs loaded in this server, with their counts and options."""
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
