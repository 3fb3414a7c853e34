"""The ``diffchunk`` command line (click).

One place maps failures to exit codes (:class:`DiffchunkGroup`):
0 ok, 1 a :class:`~diffchunk.errors.DiffchunkError` (message on stderr),
2 usage, 130 interrupted, 3 unexpected (traceback with ``DIFFCHUNK_DEBUG=1``).
The same place puts ``DIFFCHUNK_ALLOWED_ROOTS`` in force for the whole
command (:func:`~diffchunk.paths.roots_in_force`): every path a command reads
or writes, and every directory of a repository git would read, is checked
against it, as the MCP server checks its tools.
Subcommands live in one module per command or group (:data:`SUBCOMMANDS`),
render through :mod:`diffchunk.cli.render` and colour and page through
:mod:`diffchunk.cli.terminal` (the group's ``--color`` and ``--no-pager``), and
only raise ``DiffchunkError``.
"""

from __future__ import annotations

import importlib
import io
import os
import sys
import traceback
from typing import Any

import click

from .. import __version__, settings
from ..errors import DiffchunkError
from ..paths import PathPolicy, roots_in_force
from .params import CONTEXT_SETTINGS
from .terminal import COLOR_MODES, colour_on, configure
from .wording import cli_terms

# Subcommands, imported on first use: `diffchunk review` does not pay for the
# file tools' or the hook's imports.  A value is "module" (the command is the
# module's attribute of the command's name) or "module:attribute".
SUBCOMMANDS: dict[str, str] = {
    "cache": "diffchunk.cli.cache",
    "export": "diffchunk.cli.export",
    "file": "diffchunk.cli.file",
    "finding": "diffchunk.cli.record",
    "hook": "diffchunk.cli.hook",
    "mark": "diffchunk.cli.record",
    "mcp": "diffchunk.cli.mcp",
    "next": "diffchunk.cli.review:next_command",
    "record": "diffchunk.cli.sync",
    "refs": "diffchunk.cli.code",
    "review": "diffchunk.cli.review",
    "reviews": "diffchunk.cli.reviews",
    "search-code": "diffchunk.cli.code:search_code",
    "show": "diffchunk.cli.code",
    "status": "diffchunk.cli.record",
    "symbols": "diffchunk.cli.code",
    "sync": "diffchunk.cli.sync",
    "web": "diffchunk.cli.web",
}


class DiffchunkGroup(click.Group):
    """A click group that loads subcommands lazily and maps exceptions to exit codes."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *SUBCOMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in SUBCOMMANDS:
            name, _, attribute = SUBCOMMANDS[cmd_name].partition(":")
            command = getattr(importlib.import_module(name), attribute or cmd_name)
            assert isinstance(command, click.Command)
            self.add_command(command, cmd_name)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with roots_in_force(PathPolicy.from_env()):
                return super().invoke(ctx)
        except DiffchunkError as exc:
            raise click.ClickException(cli_terms(exc.cli_text())) from exc
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            # The reader went away (e.g. `| head`); nothing left to say.
            try:
                sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the final flush
            except OSError:
                pass
            ctx.exit(0)
        except Exception as exc:
            if settings.flag("DIFFCHUNK_DEBUG"):
                traceback.print_exc()
            click.echo(
                f"Error: unexpected {type(exc).__name__}: {exc} "
                "(set DIFFCHUNK_DEBUG=1 for the traceback; please report it).",
                err=True,
            )
            ctx.exit(3)


@click.group(cls=DiffchunkGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(version=__version__, prog_name="diffchunk")
@click.option(
    "--color",
    "--colour",
    "color",
    type=click.Choice(COLOR_MODES),
    default="auto",
    show_default=True,
    help="Colour the output: on a terminal (auto, unless NO_COLOR is set), always, never.",
)
@click.option(
    "--no-pager",
    is_flag=True,
    help="Print long output as it is, not through the pager (DIFFCHUNK_PAGER, PAGER, less -FRX).",
)
@click.pass_context
def main(ctx: click.Context, color: str, no_pager: bool) -> None:
    """Review large diffs and work in large files, piece by piece.

    \b
    Examples:
      diffchunk review main..feature             overview of a range's chunks
      diffchunk next                             the next chunk not yet reviewed
      diffchunk mark --chunk 2                   chunk 2 is reviewed
      diffchunk status --files                   where the review stands, per file
      git diff A B | diffchunk review -          a diff on standard input
      diffchunk --color always review x.diff --chunk 2 | less -R
      diffchunk mcp                              serve the MCP tools on stdio

    status, mark, finding, export and next without a target act on the
    latest review of the repository here, and say which.
    """
    configure(color, pager=not no_pager)
    if colour_on():
        ctx.color = True  # click keeps the escapes when the output is a pager's pipe
    # File names that are not UTF-8 reach us as surrogate escapes: write their
    # bytes back as they are (like ls) instead of failing in a strict locale.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="surrogateescape")


__all__ = ["CONTEXT_SETTINGS", "SUBCOMMANDS", "DiffchunkGroup", "main"]
