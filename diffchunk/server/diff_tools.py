"""The diff tools, exposed over MCP (thin wrappers over :mod:`diffchunk.review.diff_tools`)."""

from __future__ import annotations

import json
import logging
from typing import Any

from mcp.server.mcpserver import Context

from ..diff.options import LoadOptions, Progress
from ..review import diff_tools as core
from .app import READ_ONLY, app, run_with_progress, to_json
from .errors import printable, tool_errors

logger = logging.getLogger(__name__)


@app.tool(annotations=READ_ONLY, structured_output=False)
async def load_diff(
    absolute_file_path: str,
    ctx: Context,
    max_chunk_lines: int = 1000,
    skip_trivial: bool = True,
    skip_generated: bool = True,
    include_patterns: str | None = None,
    exclude_patterns: str | None = None,
    context_lines: int | None = None,
    gitattributes_path: str | None = None,
) -> str:
    """Load a diff file with explicit options and return its summary.

    Optional: every other diff tool loads the file automatically with the
    defaults. Call this to cut it otherwise: with options other than the
    defaults, "file_path" is a view handle (a .diffview file) to pass to the
    other tools for that view, while the diff's own path keeps its default
    view (both work at once; no reload needed to go back).

    - absolute_file_path: absolute path of the diff file (git diff, git log -p,
      git format-patch, diff -u output). `~` is expanded.
    - max_chunk_lines: line budget per chunk (default 1000; chunks aim at ~80%).
    - skip_trivial: leave out whitespace-only changes (default true).
    - skip_generated: leave out lockfiles, minified/generated code, vendored
      trees (default true; .gitattributes linguist-* attributes win).
    - include_patterns / exclude_patterns: comma-separated, case-insensitive
      globs, e.g. "*.py,docs/**" ("*.py" matches at any depth).
    - context_lines: keep at most N unchanged lines around each change
      (0 = changed lines only; unset = as in the file).
    - gitattributes_path: absolute path of a .gitattributes file to apply.

    Returns JSON: {"chunks", "files", "total_lines", "file_path",
    "files_excluded", "excluded": [{"path", "reason", "detail"}],
    "excluded_summary"?}.
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
        )

        def work(progress: Progress) -> dict[str, Any]:
            return core.load_diff(absolute_file_path, options, progress=progress).to_dict()

        return to_json(await run_with_progress(ctx, work))


@app.tool(annotations=READ_ONLY, structured_output=False)
def list_chunks(
    absolute_file_path: str, offset: int = 0, limit: int | None = None, excluded: bool = False
) -> str:
    """List the chunks of a diff: files, line and token counts, a summary each.

    Start here. The diff is loaded automatically (default options) on first
    use. Chunks are numbered from 1; pass a number to get_chunk. A file too big
    for one chunk is split: its chunks carry parent_file and sub_chunk_index.
    Files left out of the chunks (generated, vendored, trivial, pattern) are
    counted in "excluded_summary" (by reason and top directory) and the first
    few listed in "excluded"; excluded=true pages all of them instead of the
    chunks. get_file_diff still shows them.

    Long listings are paged to stay under ~20k tokens: when "next_offset" is
    present, call again with offset=next_offset. limit caps the chunks per page.

    Returns JSON: {"chunks": [{"chunk", "files", "file_details": [{"path",
    "lines", "status", "added", "removed", "symbols"?, "symbols_from"?}],
    "lines", "token_count", "summary"}], "total_token_count",
    "total_chunks", "excluded": [{"path", "reason"}], "excluded_summary"?,
    "next_offset"?}.
    "status": added, deleted, modified, renamed (with "from"), copied, mode,
    binary; "added"/"removed": its +/- lines in that chunk; "symbols": the
    definitions its change touches, e.g. "Parser.run (method, modified,
    12-40)" (symbols_from "outline"; removed: old lines) or the hunks'
    function context lines ("hunks"), at most 5 ("symbols_more"). A detail
    may also carry "binary", "metadata_only", or "binary_by_attributes"
    (.gitattributes says -diff/binary; its text is still here).
    """
    with tool_errors():
        if excluded:
            return to_json(core.list_excluded(absolute_file_path, offset, limit).to_dict())
        return to_json(core.list_chunks(absolute_file_path, offset, limit).to_dict())


@app.tool(annotations=READ_ONLY, structured_output=False)
def get_chunk(
    absolute_file_path: str,
    chunk_number: int,
    include_context: bool = True,
    format: str = "raw",
) -> str:
    """Get the diff text of one chunk (chunk numbers start at 1).

    - include_context: prefix a short header (chunk N of M, files, part of a
      split file). false returns only the diff text.
    - format: "raw" (default, the diff exactly as stored), "annotated"
      (per-file sections with new-file line numbers, __new hunk__/__old hunk__
      blocks and function context) or "compact" (new-side lines only, fewest
      tokens).

    Each chunk is a valid patch on its own. Use list_chunks first to see what
    each chunk holds.
    """
    with tool_errors():
        return core.get_chunk(absolute_file_path, chunk_number, include_context, format)


@app.tool(annotations=READ_ONLY, structured_output=False)
def find_chunks_for_files(absolute_file_path: str, pattern: str) -> str:
    """Find which chunks contain files matching a glob pattern.

    pattern: case-insensitive glob(s), comma-separated; without a "/" it
    matches at any depth ("*.py", "test_*"), with one it matches the path
    ("src/api/*", "docs/**"); a path exactly as list_chunks shows it matches
    too ("app/[id]/page.tsx"). Returns a JSON array of the chunks holding
    them, each with the matching files and their lines in it, e.g.
    [{"chunk": 2, "files": [{"path": "src/a.py", "lines": 40}]}] ([] when no
    chunked file matches; excluded files are in no chunk).
    """
    with tool_errors():
        found = core.find_chunks_with_files(absolute_file_path, pattern)
        return to_json([item.to_dict() for item in found])


@app.tool(annotations=READ_ONLY, structured_output=False)
def get_file_diff(absolute_file_path: str, file_path: str, context: str = "hunks") -> str:
    """Get the complete diff of one file (its header and all its hunks).

    file_path: the exact path as listed by list_chunks, or a glob that matches
    exactly one file of the diff (case-insensitive). Zero or several matches
    return an error listing candidate paths. Works for files split across
    several chunks and for excluded files (the reply says why it was excluded).
    context: "hunks" (default, as in the diff) or "symbol": each hunk widened
    to the whole function/class around it at the new revision (still a patch).
    """
    with tool_errors():
        return core.get_file_diff(absolute_file_path, file_path, context=context)


@app.tool(annotations=READ_ONLY, structured_output=False)
def get_current_overview() -> str:
    """List every diff loaded in this server: path, chunk/file/line counts, options.

    Returns JSON: {"loaded_diffs": [{"file_path", "chunks", "files",
    "total_lines", "files_excluded", "total_token_count", "options"}],
    "total_sessions"}.
    """
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
