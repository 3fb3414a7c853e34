"""The one MCP server instance every tool module registers on."""

from __future__ import annotations

import functools
import inspect
import json
import logging
import os
import re
import warnings
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import anyio
import anyio.from_thread
import anyio.to_thread
from anyio.lowlevel import RunVar
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import (
    CallToolResult,
    Icon,
    InputRequiredResult,
    ListRootsRequest,
    ListRootsResult,
    NotificationParams,
    TextContent,
    ToolAnnotations,
)
from mcp.types import Tool as MCPTool
from pydantic import ValidationError

from .. import __version__
from ..cancellation import CallToken, call_in_force
from ..diff.options import Progress
from ..errors import PathError
from ..paths import PathPolicy, expand, roots_in_force, within
from ..snapshots import snapshot_of
from .errors import (
    as_tool_error,
    check_arguments,
    encodable,
    error_text,
    printable,
    tool_error,
    validation_error,
)
from .sdk import can_send_request, connection_key, on_notification, tool_schema

TOOL_THREADS = 32
"""Worker threads the MCP tools run in, a pool of their own: the SDK's stdio
transport reads and writes each message through a thread of anyio's default
pool (40 threads), so tools sharing it could take every thread (45 calls
waiting on git did) and leave the server unable to read even the client's
cancellations.  32 calls at work at once is more than any client makes."""

ROOTS_TIMEOUT_SECONDS = 10.0
"""Seconds to wait for the client's answer to roots/list: a client that never
answers must not hold every tool call."""


INSTRUCTIONS = """\
diffchunk reviews large changes and large files for fewer tokens than plain git.
The cheapest review that is enough:
1. load_git_diff (a diff file: load_diff): its answer plans the review (files by
kind with +/- counts, facts, the log when short) and holds the whole change when small.
2. Code files in order: get_file_diff(file_path, format="lean", context="symbol")
(several files: comma-separated); then tests, docs, config in lean; generated
files by summary. Where needed: callers (find_references of a file's changed
names at once), other files or the old side (open_file_version).
3. add_finding per problem; mark_reviewed what you read; review_status resumes.
Lean: '@@ N' next line is new line N (〃 same section); '⋯ N' N unchanged lines;
'~' [-old-]{+new+}; other '⋯' lines say what they fold; format="raw" has all.
Large files: get_overview, search_content, read_content, edit_content.
Arguments: side "new" or "old"; file_pattern, *_patterns: comma-separated globs;
a page's next_offset is the next offset.
"""


logger = logging.getLogger(__name__)
_LINE_BREAK = re.compile(r"(?<!\n)\n(?!\n)")  # a break within a paragraph
_T = TypeVar("_T")

# A read-only tool says only that, and that it reaches nothing outside: the protocol's
# destructive and idempotent hints mean something only for a tool that writes, and every
# conversation pays for the tool list.
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def _obvious(default: Any) -> bool:
    """None, False or the integer 0 (not True, 1 or 0.0: ``False == 0`` in Python)."""
    return default is None or default is False or (type(default) is int and default == 0)


def compact_schema(schema: Any) -> Any:
    """``schema`` as short as it says the same: without the titles the SDK derives from
    names ("Chunk Number" for ``chunk_number``, "get_chunkArguments"), and with an
    optional value's ``anyOf: [{type: T}, {type: null}]`` written ``type: [T, null]``
    and its ``default: null`` left out (not required: its absence is the default), as
    are a flag's ``default: false`` and a count's or offset's ``default: 0`` (absent, a
    flag is off and a page starts at the first item), and an object's
    ``additionalProperties: true`` (what JSON Schema assumes).  Every other default
    stays: it says something.  Every conversation pays for the tool list."""
    if isinstance(schema, list):
        return [compact_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "additionalProperties" and value is True:
            continue  # what JSON Schema assumes without it
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: compact_schema(sub) for name, sub in value.items()}
        else:
            out[key] = compact_schema(value)
    options = out.get("anyOf")
    if (
        isinstance(options, list)
        and all(isinstance(o, dict) and set(o) == {"type"} for o in options)
        and all(isinstance(o["type"], str) for o in options)
    ):
        del out["anyOf"]
        out["type"] = [o["type"] for o in options]
    elif (
        isinstance(options, list)
        and len(options) == 2
        and {"type": "null"} in options
        and all(isinstance(o, dict) and isinstance(o.get("type"), str) for o in options)
    ):
        other = next(o for o in options if o != {"type": "null"})
        del out["anyOf"]
        out = {**other, **out, "type": [other["type"], "null"]}
    if "default" in out and _obvious(out["default"]):
        del out["default"]  # None, False, 0: what an absent value means anyway
    return out


class DiffchunkServer(MCPServer[Any]):
    """The SDK's server with clearer messages for malformed tool calls, and a shorter
    tool list.

    Arguments are checked for unknown names and booleans passed as integers;
    schema validation failures are reported per parameter without the
    validator's boilerplate; a crash names its exception type (the traceback
    goes to the server log) instead of the bare "Error executing tool".
    The tool list sends each description without its docstring's indentation
    and each input schema in its shortest form (see :func:`compact_schema`).

    Each call runs with the allowed roots in force for it
    (:func:`~diffchunk.paths.roots_in_force`: every layer checks the paths that
    come from data against them) and a :class:`~diffchunk.cancellation.CallToken`
    that stops its git processes when the client cancels it
    (:func:`_stopped_when_cancelled`).  A tool's blocking work runs in worker
    threads of its own (:func:`tool_threads`), never in anyio's default pool:
    the SDK reads and writes the stdio stream through that pool, and tools
    holding all of it would leave the server unable to read anything, a
    cancellation included.
    """

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
        icons: list[Icon] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> None:
        text = description if description is not None else inspect.cleandoc(fn.__doc__ or "")
        text = _LINE_BREAK.sub(" ", text)  # one line a paragraph: JSON writes a break in two
        if not inspect.iscoroutinefunction(fn):
            fn = _in_tool_threads(fn)
        super().add_tool(
            fn,
            name=name,
            title=title,
            description=text,
            annotations=annotations,
            icons=icons,
            meta=meta,
            structured_output=structured_output,
        )

    async def list_tools(self) -> list[MCPTool]:
        tools = await super().list_tools()
        return [
            t.model_copy(update={"input_schema": compact_schema(t.input_schema)}) for t in tools
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        schema, annotations = tool_schema(self, name)
        policy = policy_state.known(context)
        if schema:
            check_arguments(name, schema, arguments)
            read_only = bool(annotations and annotations.read_only_hint)
            read_only = read_only or name in PATH_READ_TOOLS
            asked = await enforce_policy(name, arguments, context, read_only=read_only)
            if isinstance(asked, InputRequiredResult):
                return asked
            policy = asked if asked is not None else policy
        try:
            with roots_in_force(policy), call_in_force(CallToken()) as token:
                result = await _stopped_when_cancelled(
                    token, super().call_tool(name, arguments, context)
                )
        except UnexpectedToolError as exc:
            cause = exc.__cause__
            kind = type(cause).__name__ if cause is not None else "error"
            raise UnexpectedToolError(
                error_text(
                    f"Error executing tool {name}: unexpected {kind} (a bug in diffchunk).",
                    "The server log has the traceback (DIFFCHUNK_DEBUG=1 shows it); "
                    "please report it.",
                )
            ) from cause
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise validation_error(name, schema, exc.__cause__) from exc.__cause__
            raise as_tool_error(exc) from exc
        if isinstance(result, CallToolResult):
            for i, block in enumerate(result.content):
                if isinstance(block, TextContent) and not encodable(block.text):
                    result.content[i] = block.model_copy(update={"text": printable(block.text)})
        return result


_TOOL_THREADS: RunVar[anyio.CapacityLimiter] = RunVar("diffchunk_tool_threads")


def tool_threads() -> anyio.CapacityLimiter:
    """The pool of worker threads the tools run in (one per event loop)."""
    try:
        return _TOOL_THREADS.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(TOOL_THREADS)
        _TOOL_THREADS.set(limiter)
        return limiter


async def in_tool_thread(work: Callable[[], _T]) -> _T:
    """Run blocking ``work`` in a tool thread (with this call's context)."""
    return await anyio.to_thread.run_sync(work, limiter=tool_threads())


def _in_tool_threads(fn: Callable[..., _T]) -> Callable[..., Awaitable[_T]]:
    """A synchronous tool as a coroutine that runs it in a tool thread (the SDK would
    run it in anyio's default pool); its signature, read by the SDK, is ``fn``'s."""

    @functools.wraps(fn)
    async def threaded(*args: Any, **kwargs: Any) -> _T:
        return await in_tool_thread(functools.partial(fn, *args, **kwargs))

    return threaded


async def _stopped_when_cancelled(token: CallToken, call: Awaitable[_T]) -> _T:
    """Await ``call``; if the request is cancelled meanwhile, cancel ``token`` at once.

    A tool's worker thread cannot be interrupted, and anyio waits for it
    (shielded) before the cancellation reaches the caller: a git it waits on
    would hold the thread, and a place in anyio's pool of worker threads, for
    as long as git runs.  A task beside the call sees the cancellation first
    and stops the call's git processes (:class:`~diffchunk.cancellation.CallToken`),
    so the thread returns and the cancellation completes.
    """
    done = anyio.Event()

    async def watch() -> None:
        try:
            await done.wait()
        except anyio.get_cancelled_exc_class():
            if not done.is_set():
                token.cancel()
            raise

    failed: Exception | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        try:
            result = await call
        except anyio.get_cancelled_exc_class():
            token.cancel()
            raise
        except Exception as exc:  # raised below: a task group would wrap it
            failed = exc
        finally:
            done.set()
    if failed is not None:
        raise failed
    return result


app: DiffchunkServer = DiffchunkServer("diffchunk", instructions=INSTRUCTIONS, version=__version__)

# --- Allowed roots -----------------------------------------------------------
#
# Tool arguments naming a path the tools read or write.  The policy is checked
# here, before any tool runs, on the real path (symlinks resolved).
PATH_PARAMETERS = ("absolute_file_path", "absolute_repo_path", "gitattributes_path")

# Tools that change state elsewhere (the review record) but only read the paths
# they are given: checked against the roots as read-only tools are (the record
# tools add theirs).
PATH_READ_TOOLS: set[str] = set()

CLIENT_ROOTS = "client roots"
ROOTS_INPUT_KEY = "diffchunk_roots"


class PolicyState:
    """Where the allowed roots come from, in order of precedence.

    ``startup`` (``--allow-root``, else ``DIFFCHUNK_ALLOWED_ROOTS``) wins;
    without it the client's roots apply when the client declares the roots
    capability, fetched once per connection and again after
    ``notifications/roots/list_changed``.  No roots: no restriction.
    """

    def __init__(self) -> None:
        self.startup: PathPolicy | None = None
        self._client: weakref.WeakKeyDictionary[Any, PathPolicy | None] = (
            weakref.WeakKeyDictionary()
        )

    def forget(self, connection: Any) -> None:
        self._client.pop(connection, None)

    def known(self, context: Context[Any, Any] | None) -> PathPolicy | None:
        """The policy already known for this call, without asking the client: the
        startup roots, else the client's roots fetched earlier on this connection."""
        if self.startup is not None or context is None:
            return self.startup
        try:
            session = context.request_context.session
        except ValueError:
            return None
        return self._client.get(connection_key(session))

    async def policy_for(
        self, context: Context[Any, Any] | None
    ) -> PathPolicy | InputRequiredResult | None:
        """The policy for this call, or the request for the client's roots.

        On connections without a back-channel (protocol 2026-07-28) the roots
        are asked with an ``InputRequiredResult``: the client answers and
        retries the call, and the answer then decides (asked on every call
        that names a path, since such a connection has no lasting state).
        """
        if self.startup is not None:
            return self.startup
        if context is None:
            return None
        try:
            session = context.request_context.session
        except ValueError:
            return None
        caps = session.client_capabilities
        if caps is None or caps.roots is None:
            return None
        if not can_send_request(session):
            answer = (context.input_responses or {}).get(ROOTS_INPUT_KEY)
            if isinstance(answer, ListRootsResult):
                return roots_policy(answer)
            return InputRequiredResult(input_requests={ROOTS_INPUT_KEY: ListRootsRequest()})
        connection = connection_key(session)
        if connection in self._client:
            return self._client[connection]
        fetched, policy = await fetch_client_roots(session)
        if fetched:
            self._client[connection] = policy
        return policy


policy_state = PolicyState()


def configure_policy(policy: PathPolicy | None) -> None:
    """Set the roots given at startup (``None``: defer to the client's roots)."""
    policy_state.startup = policy if policy is not None and policy.roots else None


def root_path(uri: str) -> str | None:
    """The local path of a ``file://`` root URI; None for other schemes or hosts."""
    parts = urlsplit(uri)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    path = unquote(parts.path)
    return path if os.path.isabs(path) and "\x00" not in path else None


async def fetch_client_roots(session: Any) -> tuple[bool, PathPolicy | None]:
    """``(fetched, policy)``: the client's file:// roots, None if it lists none.

    ``fetched`` is False when roots/list failed (nothing is cached: the next
    call asks again; meanwhile no restriction applies).
    """
    if not can_send_request(session):
        return False, None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with anyio.fail_after(ROOTS_TIMEOUT_SECONDS):
                result = await session.list_roots()
    except Exception:
        logger.warning("The client declares roots but roots/list failed", exc_info=True)
        return False, None
    return True, roots_policy(result)


def roots_policy(result: ListRootsResult) -> PathPolicy | None:
    """The policy of the client's local file:// roots; None if it lists none."""
    paths = [p for p in (root_path(str(root.uri)) for root in result.roots) if p is not None]
    skipped = len(result.roots) - len(paths)
    if skipped:
        logger.warning("Ignored %d client root(s) that are not local file:// URIs", skipped)
    if not paths:
        return None
    return PathPolicy.from_paths(paths, CLIENT_ROOTS)


async def _roots_changed(ctx: Any, params: NotificationParams) -> None:
    policy_state.forget(connection_key(ctx.session))


on_notification(app, "notifications/roots/list_changed", _roots_changed)


def viewed_diffs(paths: list[str]) -> list[str]:
    """The diff files that view handles among ``paths`` show: a handle lies in diffchunk's
    cache, but the diff it names must pass the roots as the diff itself would."""
    from ..review.sessions.views import is_view_path, read_view

    shown = []
    for path in paths:
        if is_view_path(path):
            try:
                shown.append(read_view(path).diff)
            except PathError:
                continue  # not a usable handle: the tool itself refuses it
    return shown


# Tools that read the repository a generated diff was written from (its sidecar
# names it): that repository must pass the roots too, as load_git_diff's does.
REPOSITORY_READERS = frozenset({"open_file_version", "list_commits"})


def recorded_repositories(paths: list[str]) -> list[str]:
    """The repositories the diffs among ``paths`` were written from (by their sidecars)."""
    from ..review.sessions.sidecar import range_of

    found = []
    for path in paths:
        try:
            recorded = range_of(os.path.realpath(expand(path)))
        except PathError:
            continue
        if recorded is not None:
            found.append(recorded.repo)
    return found


def own_directories() -> tuple[str, ...]:
    """Directories diffchunk itself writes (the git diff cache): readable regardless."""
    from ..git.cache import default_cache_dir

    try:
        return (os.path.realpath(default_cache_dir()),)
    except (OSError, RuntimeError):
        return ()


async def enforce_policy(
    name: str, arguments: dict[str, Any], context: Context[Any, Any] | None, *, read_only: bool
) -> PathPolicy | InputRequiredResult | None:
    """Refuse a call whose path arguments fall outside the allowed roots.

    Returns the request for the client's roots when they must be asked first,
    else the policy in force (None: no path argument, or no restriction).
    """
    paths = [arguments[key] for key in PATH_PARAMETERS if isinstance(arguments.get(key), str)]
    if not paths:
        return None
    paths += viewed_diffs(paths)
    if name in REPOSITORY_READERS or arguments.get("context") == "symbol":
        paths += recorded_repositories(paths)
    policy = await policy_for_call(context)
    if policy is None or isinstance(policy, InputRequiredResult):
        return policy
    for path in paths:
        try:
            real = os.path.realpath(expand(path))
        except PathError:
            continue  # not a usable path: the tool itself refuses it, with its own message
        if read_only and any(within(real, own) for own in own_directories()):
            continue
        if not read_only and snapshot_of(real) is not None:
            continue  # an edit of a snapshot: the tool refuses it, naming the real file
        try:
            policy.check(path)
        except PathError as exc:
            raise tool_error(exc.message, exc.suggestion) from exc
    return policy


async def policy_for_call(
    context: Context[Any, Any] | None,
) -> PathPolicy | InputRequiredResult | None:
    """The policy in force for this call (startup roots, else the client's roots)."""
    return await policy_state.policy_for(context)


def with_text(value: Any, text: str | None) -> str | list[TextContent]:
    """An answer of JSON ``value`` and, when there is one, a ``text`` as a second
    content block (text read as it is, not escaped as a JSON string)."""
    head = to_json(value)
    if text is None:
        return head
    return [TextContent(type="text", text=head), TextContent(type="text", text=text)]


def to_json(value: Any) -> str:
    """Tool results are JSON text (the tools are unstructured on purpose), without the
    spaces after separators that nobody reads but every answer pays for."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


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

    return await in_tool_thread(lambda: work(progress))
