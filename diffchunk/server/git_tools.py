"""MCP tools over git repositories (registered on ``diffchunk.server.app.app``)."""

from __future__ import annotations

import logging

from mcp.server.mcpserver import Context
from mcp.types import TextContent

from ..diff.options import LoadOptions, Progress
from ..limits import CHUNK_DEFAULT_LINES
from ..review.incremental.load import load_git_diff as core_load_git_diff
from ..review.tools.plan import load_plan
from .app import READ_ONLY, app, run_with_progress, with_text
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
) -> str | list[TextContent]:
    """Start a review of a git range (as git diff takes it; "HEAD": uncommitted
    changes; staged: the index): the answer plans it and gives "file_path" for the
    other tools. since_review: only what changed since your last review; review_id:
    continue that review. Other options as load_diff.
    """

    with tool_errors():
        options = LoadOptions.of(locals())

        def work(progress: Progress) -> str | list[TextContent]:
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
            plan = load_plan(summary.file_path)
            return with_text({**summary.to_dict(), **plan.to_dict()}, plan.change)

        answer: str | list[TextContent] = await run_with_progress(ctx, work)
        return answer
