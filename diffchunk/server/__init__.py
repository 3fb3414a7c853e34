"""The diffchunk MCP server (stdio).

``app`` lives in :mod:`diffchunk.server.app`; each tool module registers its
tools on it when imported here, :mod:`.prompts` its prompts and
:mod:`.resources` its resource templates.  Logs go to stderr: stdout is the protocol.
The tools a review may never call (the code tools, the export, the large-file
tools) import what they wrap when first called, not at the server's start, which a
client waits for; the modules of the diff, git and record tools load with it.

Allowed roots: ``--allow-root DIR`` (repeatable) wins over the environment
variable ``DIFFCHUNK_ALLOWED_ROOTS``; with neither, the client's roots apply
when it declares them; with no roots at all every path is allowed.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from collections.abc import Sequence

from .. import __version__, settings
from ..errors import PathError
from ..paths import ROOTS_ENV, PathPolicy
from . import (
    code_tools,
    diff_tools,
    export_tools,
    file_tools,
    git_tools,
    prompts,
    record_tools,
    resources,
)
from .app import app, configure_policy

__all__ = [
    "app",
    "code_tools",
    "diff_tools",
    "export_tools",
    "file_tools",
    "git_tools",
    "main",
    "prompts",
    "record_tools",
    "resources",
    "serve",
    "startup_policy",
]


def startup_policy(allow_roots: Sequence[str] = ()) -> PathPolicy | None:
    """The roots fixed at startup: ``--allow-root`` values, else DIFFCHUNK_ALLOWED_ROOTS.

    Relative ``--allow-root`` values are taken from the current directory.
    Raises PathError for an invalid environment value.
    """
    if allow_roots:
        absolute = [os.path.abspath(os.path.expanduser(root)) for root in allow_roots]
        return PathPolicy.from_paths(absolute, "--allow-root")
    return PathPolicy.from_env()


def serve(allow_roots: Sequence[str] = ()) -> None:
    """Serve the tools over stdio until the client disconnects.

    What the imports built (the SDK's, pydantic's and the tools' classes and schemas,
    some 140,000 objects) lives as long as the server: it is frozen out of the cycle
    collector's reach (``gc.freeze``), which would otherwise walk all of it in every
    full collection, and the collector is on (the console scripts keep it off while
    they import: :mod:`diffchunk.console`)."""
    gc.freeze()
    gc.enable()
    level = logging.DEBUG if settings.flag("DIFFCHUNK_DEBUG") else logging.WARNING
    logging.getLogger("diffchunk").setLevel(level)
    try:
        configure_policy(startup_policy(allow_roots))
    except PathError as exc:
        print(f"diffchunk-mcp: {exc}", file=sys.stderr)
        sys.exit(2)
    try:
        app.run("stdio")
    except KeyboardInterrupt:
        sys.exit(130)


def main(argv: Sequence[str] | None = None) -> None:
    """``diffchunk-mcp [--allow-root DIR]...``: serve the tools over stdio."""
    parser = argparse.ArgumentParser(
        prog="diffchunk-mcp", description="Serve the diffchunk diff and file tools over MCP."
    )
    parser.add_argument(
        "--allow-root",
        action="append",
        default=[],
        metavar="DIR",
        help=(
            "only read and write paths under DIR (repeatable); overrides "
            f"{ROOTS_ENV} and the client's roots"
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    args = parser.parse_args(argv)
    serve(args.allow_root)
