"""The review as MCP resources: what an assistant attaches by reference.

URI templates under ``diffchunk://reviews/{review_id}``, ``review_id`` being
the ``review.id`` that ``review_status`` returns (``diffchunk reviews`` lists
a repository's).  Each reads the review's latest load (its diff file, as the
record keeps it) and gives what a tool gives on that diff file, so everything
here is reachable through tools too:

=====================================================  =================================
resource                                               tool on the review's diff file
=====================================================  =================================
``diffchunk://reviews/{review_id}``                    ``review_status``
``diffchunk://reviews/{review_id}/findings``           ``list_findings(status="all")``
``diffchunk://reviews/{review_id}/chunks/{chunk}``     ``get_chunk`` (raw)
``diffchunk://reviews/{review_id}/files/{+path}``      ``get_file_diff`` (raw)
=====================================================  =================================

Rules: a read runs in a tool thread with the call's allowed roots in force,
and the diff file of a diff-file review is checked against them as a tool's
path is (diffchunk's own cache is readable whatever the roots).  A review or a
chunk that does not exist, a diff no longer cached, a path outside the roots:
a resource error whose message says what to do.  Record reads take no lock
(as the tools that only read the record).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from mcp.server.mcpserver import Context, ResourceSecurity
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import InputRequiredResult

from ..errors import DiffchunkError
from ..paths import roots_in_force, within
from ..review import record
from ..review.page.latest import review_diff_file
from ..review.tools import diff_tools as core
from .app import app, in_tool_thread, own_directories, policy_for_call, to_json
from .errors import error_text

_T = TypeVar("_T")

REVIEW = "diffchunk://reviews/{review_id}"
FINDINGS = "diffchunk://reviews/{review_id}/findings"
CHUNK = "diffchunk://reviews/{review_id}/chunks/{chunk}"
FILE_DIFF = "diffchunk://reviews/{review_id}/files/{+path}"


def _number(name: str, text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise ResourceError(
            error_text(f"{name} must be a positive integer, not {text!r}.", _ID_HINT)
        )
    return int(text)


_ID_HINT = "Take the id from review_status (review.id) and the chunk from list_chunks."


async def _read(ctx: Context, review_id: str, work: Callable[[str], _T]) -> _T:
    """``work(diff file of the review)`` in a tool thread, the call's roots in force."""
    number = _number("review_id", review_id)
    asked = await policy_for_call(ctx)
    if isinstance(asked, InputRequiredResult):
        raise ResourceError(
            error_text("The client's roots are not known yet.", "Call a tool first, then read.")
        )
    policy = asked

    def run() -> _T:
        with roots_in_force(policy):
            try:
                path = review_diff_file(number)
                real = os.path.realpath(path)
                if policy is not None and not any(within(real, d) for d in own_directories()):
                    policy.check(path)
                return work(path)
            except DiffchunkError as exc:
                raise ResourceError(error_text(exc.message, exc.suggestion)) from exc

    return await in_tool_thread(run)


@app.resource(
    REVIEW,
    name="review",
    title="A review's status",
    description="Where a review stands (review_status of its latest load): totals, each "
    "chunk's state, open findings, next_chunk.",
    mime_type="application/json",
)
async def review_resource(review_id: str, ctx: Context) -> str:
    return await _read(
        ctx, review_id, lambda path: to_json(record.review_status(path, max_chars=None).to_dict())
    )


@app.resource(
    FINDINGS,
    name="findings",
    title="A review's findings",
    description="Every finding of a review in diff order (list_findings with status=all).",
    mime_type="application/json",
)
async def findings_resource(review_id: str, ctx: Context) -> str:
    return await _read(
        ctx,
        review_id,
        lambda path: to_json(record.list_findings(path, "all", max_chars=None).to_dict()),
    )


@app.resource(
    CHUNK,
    name="chunk",
    title="A chunk of a review's diff",
    description="One chunk of a review's latest load as an exact patch (get_chunk, raw).",
    mime_type="text/x-diff",
)
async def chunk_resource(review_id: str, chunk: str, ctx: Context) -> str:
    number = _number("chunk", chunk)
    return await _read(
        ctx, review_id, lambda path: core.get_chunk(path, number, False, "raw", bounded=False)
    )


@app.resource(
    FILE_DIFF,
    name="file_diff",
    title="A file's diff in a review",
    description="One file's whole diff in a review's latest load (get_file_diff, raw); "
    "the path as listed.",
    mime_type="text/x-diff",
    security=ResourceSecurity(reject_absolute_paths=True, reject_path_traversal=True),
)
async def file_diff_resource(review_id: str, path: str, ctx: Context) -> str:
    return await _read(ctx, review_id, lambda diff: core.get_file_diff(diff, path, "raw"))
