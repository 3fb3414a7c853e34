"""MCP tools over git repositories (registered on ``diffchunk.server.app.app``)."""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import Context

from ..diff.options import LoadOptions, Progress
from ..limits import CHUNK_DEFAULT_LINES
from ..review.incremental.load import load_git_diff as core_load_git_diff
from .app import READ_ONLY, app, run_with_progress, to_json
from .errors import tool_errors

logger = logging.getLogger(__name__)


@app.tool(annotations=READ_ONLY, structured_output=False)
async def load_git_diff(
    absolute_repo_path: str,
    ctx: Context,
    revision_range: str = "HEAD",
    staged: bool = False,
    max_chunk_lines: int = CHUNK_DEFAULT_LINES,
    skip_trivial: bool = True,
    skip_generated: bool = True,
    include_patterns: str | None = None,
    exclude_patterns: str | None = None,
    context_lines: int | None = None,
    order: str = "path",
    since_review: bool = False,
    paths: list[str] | None = None,
    review_id: int | None = None,
) -> str:
    """Review a git range: its diff is written to a cached file and loaded; pass the
    returned "file_path" to the diff tools.

    revision_range, as for git diff: "main..feature", "main...feature" (from the
    merge base), "abc123^!" (one commit), "HEAD" (default: uncommitted changes) or a
    revision (working tree vs it); staged=true: the index instead. absolute_repo_path:
    a work tree, or a bare repository for commit ranges. Other options as load_diff
    (other options than the defaults give a view handle; the cached diff keeps its
    default view). paths: limit the range to these files or directories.
    since_review=true: only what changed since your last review of this range
    (new commits, an amend, a rebase; never upstream's changes), to review a
    moved branch again. review_id: continue that earlier review (a load that starts a
    review names those it overlaps).
    """

    with tool_errors():
        options = LoadOptions(
            max_chunk_lines=max_chunk_lines,
            skip_trivial=skip_trivial,
            skip_generated=skip_generated,
            include_patterns=include_patterns,
            exclude_patterns=exclude_patterns,
            context_lines=context_lines,
            order=order,
        )

        def work(progress: Progress) -> dict[str, Any]:
            summary = core_load_git_diff(
                absolute_repo_path,
                revision_range,
                staged,
                options,
                progress=progress,
                since_review=since_review,
                paths=paths,
                review_id=review_id,
            )
            return summary.to_dict()

        return to_json(await run_with_progress(ctx, work))
