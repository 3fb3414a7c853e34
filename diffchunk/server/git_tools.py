"""MCP tools over git repositories (registered on ``diffchunk.server.app.app``)."""

from __future__ import annotations

import logging
from typing import Any

from mcp.server.mcpserver import Context

from ..diff.options import LoadOptions, Progress
from ..review.range_review import load_git_diff as core_load_git_diff
from .app import READ_ONLY, app, run_with_progress, to_json
from .errors import tool_errors

logger = logging.getLogger(__name__)


@app.tool(annotations=READ_ONLY, structured_output=False)
async def load_git_diff(
    absolute_repo_path: str,
    ctx: Context,
    revision_range: str = "HEAD",
    staged: bool = False,
    max_chunk_lines: int = 1000,
    skip_trivial: bool = True,
    skip_generated: bool = True,
    include_patterns: str | None = None,
    exclude_patterns: str | None = None,
    context_lines: int | None = None,
    paths: list[str] | None = None,
) -> str:
    """Review a git range of a repository: writes its diff to a cached file and loads it.

    Use the returned "file_path" with every other diff tool (list_chunks,
    get_chunk, get_file_diff, find_chunks_for_files): the cached diff, or with
    options other than the defaults a view handle of it (the cached diff keeps
    its default view). The repository's
    .gitattributes (linguist-generated, linguist-vendored, -diff) decide which
    files are generated or vendored. Reviewing the same two commits again reuses
    the cached diff.

    - absolute_repo_path: absolute path of the working tree (or of a bare
      repository, for commit ranges).
    - revision_range, as for `git diff`: "main..feature" (two commits),
      "main...feature" (from their merge base), "abc123^!" (one commit vs its
      parent), "HEAD" (default: uncommitted changes in the working tree), or
      any single revision (working tree vs that commit).
    - staged: true reviews the index (staged changes) vs HEAD, or vs the single
      revision given.
    - max_chunk_lines, skip_trivial, skip_generated, include_patterns,
      exclude_patterns, context_lines: as for load_diff.
    - paths: limit the range to these files or directories (relative to the
      repository's top, as the diff shows them): `git diff A B -- PATH...`.
      Another cached diff; the same review in the record.

    Returns JSON: {"chunks", "files", "total_lines", "file_path",
    "files_excluded", "excluded": [{"path", "reason", "detail"}],
    "excluded_summary"?, "repo", "range", "base", "head", "cached", "paths"?}.
    """

    with tool_errors():
        options = LoadOptions(
            max_chunk_lines=max_chunk_lines,
            skip_trivial=skip_trivial,
            skip_generated=skip_generated,
            include_patterns=include_patterns,
            exclude_patterns=exclude_patterns,
            context_lines=context_lines,
        )

        def work(progress: Progress) -> dict[str, Any]:
            summary = core_load_git_diff(
                absolute_repo_path, revision_range, staged, options, progress=progress, paths=paths
            )
            return summary.to_dict()

        return to_json(await run_with_progress(ctx, work))
