"""The installed ``diffchunk-mcp`` in a process of its own, driven through the SDK's
stdio client: :func:`serve` runs a script against a fresh server, :class:`Caller`
calls its tools."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
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


def _server(tmp_path: Path, *args: str) -> StdioServerParameters:
    command = Path(sys.executable).with_name("diffchunk-mcp")
    if not command.exists():
        pytest.skip("diffchunk-mcp is not installed (pip install -e .)")
    env = {
        "DIFFCHUNK_STATE_DIR": str(tmp_path / "state"),
        "DIFFCHUNK_CACHE_DIR": str(tmp_path / "cache"),
    }
    return StdioServerParameters(command=str(command), args=list(args), env=env)


def serve(tmp_path: Path, script: Script, *args: str) -> None:
    """Run ``script`` against a fresh server process (it ends with the script)."""

    async def go() -> None:
        with open(tmp_path / "server.log", "a") as errlog:
            async with (
                stdio_client(_server(tmp_path, *args), errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                await script(Caller(session))

    anyio.run(go)
