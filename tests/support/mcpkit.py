"""The installed ``diffchunk-mcp`` in a process of its own, driven through the SDK's
stdio client: :func:`serve` runs a script against a fresh server, :class:`Caller`
calls its tools, :func:`running_server` keeps one server for several scripts, and
:class:`Confined` is such a server started with an allowed root.

A server costs its start (about 1.5 s of CPU, most of it importing the SDK): tests
that need *a* server, not a new one, share one (a module-scoped fixture over
:func:`running_server`); a test that proves something about a new process (a review
that outlives its server) starts its own."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

Script = Callable[["Caller"], Awaitable[None]]


class Caller:
    """Calls tools of one server session; ``json`` decodes a successful answer."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def raw(self, tool: str, **args: Any) -> types.CallToolResult:
        return await self.session.call_tool(tool, args)

    async def json(self, tool: str, **args: Any) -> Any:
        result = await self.raw(tool, **args)
        block = result.content[0]
        assert isinstance(block, types.TextContent)
        assert not result.is_error, block.text
        return json.loads(block.text) if block.text[:1] in "[{" else block.text

    async def error(self, tool: str, **args: Any) -> str:
        result = await self.raw(tool, **args)
        block = result.content[0]
        assert isinstance(block, types.TextContent)
        assert result.is_error, block.text
        return block.text


def _server(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    command = Path(sys.executable).with_name("diffchunk-mcp")
    if not command.exists():
        pytest.skip("diffchunk-mcp is not installed (pip install -e .)")
    environment = {
        "DIFFCHUNK_STATE_DIR": str(tmp_path / "state"),
        "DIFFCHUNK_CACHE_DIR": str(tmp_path / "cache"),
        **(env or {}),
    }
    return StdioServerParameters(command=str(command), args=list(args), env=environment)


@asynccontextmanager
async def _session(
    tmp_path: Path, args: tuple[str, ...], env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    with open(tmp_path / "server.log", "a") as errlog:
        async with (
            stdio_client(_server(tmp_path, *args, env=env), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def serve(tmp_path: Path, script: Script, *args: str, env: dict[str, str] | None = None) -> None:
    """Run ``script`` against a fresh server process (it ends with the script);
    ``env``: more of the server's environment."""

    async def go() -> None:
        async with _session(tmp_path, args, env) as session:
            await script(Caller(session))

    anyio.run(go)


class RunningServer:
    """One server process and its stdio session, kept between scripts; its record and
    cache are ``state`` and ``cache`` in the directory it was started with."""

    def __init__(self, portal: BlockingPortal, session: ClientSession, directory: Path) -> None:
        self._portal = portal
        self._session = session
        self.directory = directory

    def run(self, script: Script) -> None:
        """Run ``script`` in this server's session."""
        self._portal.call(script, Caller(self._session))


@contextmanager
def running_server(tmp_path: Path, *args: str) -> Iterator[RunningServer]:
    """A server for several scripts: its session lives in an event loop of its own
    thread, and each :meth:`RunningServer.run` is a call into it."""
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(_session(tmp_path, args)) as session,
    ):
        yield RunningServer(portal, session, tmp_path)


class Confined(NamedTuple):
    """A running server started with ``--allow-root root``; ``outside`` lies beside
    ``root``, out of it."""

    server: RunningServer
    root: Path
    outside: Path

    def layout(self, tmp_path: Path) -> tuple[Path, Path]:
        """``(root, outside)`` of one test: a directory of its own inside the server's
        root (named after its ``tmp_path``), and one outside it."""
        root, outside = self.root / tmp_path.name, self.outside / tmp_path.name
        root.mkdir()
        outside.mkdir()
        return root, outside


@contextmanager
def confined_server(directory: Path) -> Iterator[Confined]:
    """A server whose one allowed root is ``directory / "root"``, for several tests."""
    root, outside = directory / "root", directory / "outside"
    root.mkdir()
    outside.mkdir()
    with running_server(directory, "--allow-root", str(root)) as server:
        yield Confined(server, root, outside)
