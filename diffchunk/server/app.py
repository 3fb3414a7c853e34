"""The one MCP server instance every tool module registers on."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio.from_thread
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from .. import __version__
from ..diff.pipeline import Progress
from ..errors import DiffchunkError

INSTRUCTIONS = """\
diffchunk lets you review diffs too large for your context window, and work in
large files, piece by piece.

Diffs: pass the ABSOLUTE path of a diff file (git diff, git log -p,
format-patch, diff -u) to any diff tool; it is loaded automatically on first
use and reloaded when the file changes. Typical flow: list_chunks -> get_chunk
for each chunk number (1-based) -> get_file_diff or find_chunks_for_files to
jump to a file. Use load_diff only to change options (chunk size, filters,
context lines). Files left out (generated, vendored, whitespace-only, by
pattern) are listed under "excluded" with a reason; get_file_diff still
serves them.

Git: load_git_diff(absolute_repo_path, revision_range) reviews a range such
as main..feature, main...feature (from the merge base), C^! (one commit) or
the uncommitted changes; it returns file_path, a cached diff to pass to every
diff tool above.

Large files: get_overview first (size, outline, search hints), then
search_content / read_content (line ranges, head, tail, or mode="semantic" for
a whole function) instead of reading the file whole. edit_content takes
search/replace blocks and only previews until preview=false; each write is
backed up and revert_edit restores the previous version.
"""

logger = logging.getLogger(__name__)

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)

app: MCPServer = MCPServer("diffchunk", instructions=INSTRUCTIONS, version=__version__)


@contextmanager
def tool_errors() -> Iterator[None]:
    """Turn a DiffchunkError into a ToolError so its message reaches the model.

    (A plain exception's message is hidden from the client by the SDK.)
    """
    try:
        yield
    except DiffchunkError as exc:
        raise ToolError(str(exc)) from exc


def to_json(value: Any) -> str:
    """Tool results are JSON text (the tools are unstructured on purpose)."""
    return json.dumps(value, ensure_ascii=False)


async def run_with_progress(ctx: Context, work: Callable[[Progress], Any]) -> Any:
    """Run blocking ``work(progress)`` on a worker thread, relaying its progress.

    ``progress(stage, fraction)`` may be called from the worker thread; each new
    stage becomes an MCP progress notification.  Progress is best effort: a
    failed notification never fails the work.
    """
    last_stage = [""]

    def progress(stage: str, fraction: float) -> None:
        if stage == last_stage[0]:
            return
        last_stage[0] = stage
        try:
            anyio.from_thread.run(ctx.report_progress, round(fraction * 100, 1), 100.0, stage)
        except Exception:
            logger.debug("Progress report failed", exc_info=True)

    return await anyio.to_thread.run_sync(lambda: work(progress))
