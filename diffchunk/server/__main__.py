"""``python -m diffchunk.server``: serve the MCP tools over stdio."""

from __future__ import annotations

from . import main

main()
