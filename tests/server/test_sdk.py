"""The SDK adapter (diffchunk.server.sdk) against the installed MCP SDK.

diffchunk reaches into the SDK's private parts in that one module; these tests
fail when the installed SDK no longer has them, before the server misbehaves.
The end-to-end uses are tested through a real client elsewhere: unknown
parameters refused by name (test_mcp_server), the client's roots cached per
connection and asked again after notifications/roots/list_changed
(test_policy).
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.types import NotificationParams, ToolAnnotations

from diffchunk.server import sdk
from diffchunk.server.app import app


def _server() -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer("adapter-test")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def ping(count: int, label: str | None = None) -> str:
        return label or str(count)

    return server


def test_tool_schema_gives_the_input_schema_and_annotations() -> None:
    server = _server()
    schema, annotations = sdk.tool_schema(server, "ping")
    assert schema["properties"]["count"]["type"] == "integer"
    assert schema["required"] == ["count"]
    assert annotations is not None and annotations.read_only_hint is True
    assert sdk.tool_schema(server, "no-such-tool") == ({}, None)


def test_every_diffchunk_tool_has_a_schema_through_the_adapter() -> None:
    async def names() -> list[str]:
        return [tool.name for tool in await app.list_tools()]

    listed = anyio.run(names)
    assert "get_chunk" in listed and "read_content" in listed
    for name in listed:
        schema, annotations = sdk.tool_schema(app, name)
        assert schema.get("type") == "object", name
        assert annotations is not None, name


def test_a_notification_handler_is_registered_on_the_low_level_server() -> None:
    server = _server()
    lowlevel = server._lowlevel_server
    assert hasattr(lowlevel, "add_notification_handler")
    seen: list[NotificationParams] = []

    async def handler(context: Any, params: NotificationParams) -> None:
        seen.append(params)

    assert lowlevel.get_notification_handler("notifications/roots/list_changed") is None
    sdk.on_notification(server, "notifications/roots/list_changed", handler)
    entry = lowlevel.get_notification_handler("notifications/roots/list_changed")
    assert entry is not None and entry.handler is handler


def test_connection_key_and_back_channel_of_a_session_like_object() -> None:
    class Session:
        can_send_request = False

    session = Session()
    assert sdk.connection_key(session) is session
    assert sdk.can_send_request(session) is False
    session._connection = marker = object()  # type: ignore[attr-defined]
    assert sdk.connection_key(session) is marker
    assert sdk.can_send_request(object()) is True
