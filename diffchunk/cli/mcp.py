"""``diffchunk mcp``: serve the MCP tools on stdio (same as ``diffchunk-mcp``)."""

from __future__ import annotations

import click


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
def mcp() -> None:
    """Serve the diff and file tools over MCP on stdio.

    \b
    Client configuration (e.g. Claude Desktop, Cursor):
      {"mcpServers": {"diffchunk": {"command": "diffchunk-mcp"}}}
    """
    from ..server import main as serve

    serve()
