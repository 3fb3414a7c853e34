"""The diffchunk MCP server (stdio).

``app`` lives in :mod:`diffchunk.server.app`; each tool module registers its
tools on it when imported here.  Logs go to stderr: stdout is the protocol.
"""

from __future__ import annotations

import logging
import os
import sys

from . import diff_tools, file_tools, git_tools
from .app import app

__all__ = ["app", "diff_tools", "file_tools", "git_tools", "main"]


def main() -> None:
    """Serve the tools over stdio until the client disconnects."""
    level = logging.DEBUG if os.environ.get("DIFFCHUNK_DEBUG") else logging.WARNING
    logging.getLogger("diffchunk").setLevel(level)
    try:
        app.run("stdio")
    except KeyboardInterrupt:
        sys.exit(130)
