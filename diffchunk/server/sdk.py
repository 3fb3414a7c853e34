"""The one place that reaches into the MCP SDK's private parts.

The server needs three things the SDK (``mcp`` 2.x) has no public API for:
a tool's input schema and annotations before the call runs (to refuse
unknown parameters and booleans passed as integers with a clear message),
a handler for ``notifications/roots/list_changed``, and a key that stays
the same for one client connection (the client's roots are cached per
connection).  Each is reached here, and ``tests/server/test_sdk.py`` fails
when the installed SDK no longer has what this module uses.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import NotificationParams, ToolAnnotations


def tool_schema(server: MCPServer[Any], name: str) -> tuple[dict[str, Any], ToolAnnotations | None]:
    """The input schema and annotations of the tool ``name`` (``({}, None)``: no such tool)."""
    tool = server._tool_manager.get_tool(name)
    if tool is None:
        return {}, None
    return tool.parameters, tool.annotations


def on_notification(
    server: MCPServer[Any],
    method: str,
    handler: Callable[[Any, NotificationParams], Awaitable[None]],
) -> None:
    """Call ``handler(context, params)`` for each client notification ``method``."""
    server._lowlevel_server.add_notification_handler(method, NotificationParams, handler)


def connection_key(session: Any) -> Any:
    """What identifies the client connection of ``session`` (the session itself when
    the SDK keeps no separate connection object)."""
    return getattr(session, "_connection", session)


def can_send_request(session: Any) -> bool:
    """Whether the server can send requests to the client on this session (not on
    protocol 2026-07-28 connections, which have no back-channel)."""
    return bool(getattr(session, "can_send_request", True))
