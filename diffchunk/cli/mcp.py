"""``diffchunk mcp``: serve the MCP tools on stdio (same as ``diffchunk-mcp``)."""

from __future__ import annotations

import click


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--allow-root",
    "allow_roots",
    multiple=True,
    metavar="DIR",
    help="Only read and write paths under DIR (repeatable). Overrides "
    "DIFFCHUNK_ALLOWED_ROOTS and the client's roots.",
)
def mcp(allow_roots: tuple[str, ...]) -> None:
    """Serve the diff and file tools over MCP on stdio.

    \b
    Client configuration (e.g. Claude Desktop, Cursor):
      {"mcpServers": {"diffchunk": {"command": "diffchunk-mcp"}}}

    Without --allow-root or DIFFCHUNK_ALLOWED_ROOTS, the client's roots (when
    it shares any) limit the paths the tools may use; with no roots at all,
    any path is allowed.

    \b
    Examples:
      diffchunk mcp
      diffchunk mcp --allow-root ~/src
      claude mcp add --scope user diffchunk -- diffchunk-mcp
    """
    from ..server import serve

    serve(allow_roots)  # turns on the collector, which the console script turned off
