"""``diffchunk search-code``, ``diffchunk refs``, ``diffchunk show``, ``diffchunk symbols``:
the code at either side of a range, beyond the diff.

Each takes ``[RANGE|DIFF_FILE]`` as ``diffchunk review`` does and calls the
tool of the same meaning (``search_code``, ``find_references``,
``open_file_version``, ``list_symbols``); human output by default
(:mod:`.output`), JSON with ``--json``.  As ``status`` and ``mark`` do, with no
target they act on the repository's latest review and say which on standard
error (:func:`~.targets.current_target`), and their output goes through the
pager on a terminal (:func:`~.terminal.paged`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from .output import echo_json
from .params import CONTEXT_SETTINGS
from .render import render_code_hits, render_symbols
from .targets import (
    TARGET_PARAMETERS,
    TargetCommand,
    current_target,
    load_target,
    target_options,
)
from .terminal import paged

if TYPE_CHECKING:
    from ..review.tools.code_search import CodeSearch
    from ..review.tools.symbol_list import SymbolListing

_SIDE = click.Choice(("new", "old"))


def _print(found: CodeSearch | SymbolListing, as_json: bool, text: Callable[[], str]) -> None:
    """``found`` as JSON (``--json``), else ``text()`` through the pager."""
    if as_json:
        echo_json(found.to_dict())
        return
    with paged():
        click.echo(text(), nl=False)


def _load(params: dict[str, Any], command: str) -> str:
    """Load the target as ``diffchunk review`` does (nothing: the repository's latest
    review, named on standard error); the diff file's path (the command's target
    parameters are taken out of ``params``)."""
    target = {name: params.pop(name) for name in TARGET_PARAMETERS}
    path, _ = load_target(current_target(target, command))
    return path


@click.command("search-code", cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@click.option("--pattern", "-e", required=True, help="The text (or --regex) to look for.")
@target_options
@click.option("--side", type=_SIDE, default="new", show_default=True, help="Which revision.")
@click.option("--regex", is_flag=True, help="PATTERN is a regex (Python syntax, run by RE2).")
@click.option("-i", "--ignore-case", is_flag=True, help="Ignore case.")
@click.option("--files", "file_pattern", metavar="GLOBS", help="Only files matching these globs.")
@click.option("--max-results", type=int, default=50, show_default=True, help="Hits per page.")
@click.option("--offset", type=int, default=0, help="Skip this many hits (paging).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def search_code(
    pattern: str,
    side: str,
    regex: bool,
    ignore_case: bool,
    file_pattern: str | None,
    max_results: int,
    offset: int,
    as_json: bool,
    **params: Any,
) -> None:
    """Search every file of a range's tree at one side, as `git grep` at that revision.

    \b
    Examples:
      diffchunk search-code -e parse_args main..feature
      diffchunk search-code -e 'def \\w+_pager' --regex --side old main..feature
    """
    from ..review.tools.code_search import search_code as core

    path = _load(params, "search-code")
    found = core(path, pattern, side, regex, not ignore_case, file_pattern, max_results, offset)
    _print(found, as_json, lambda: render_code_hits(found))


@click.command("refs", cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@click.option("--symbol", "-s", required=True, help="The name whose uses to find.")
@target_options
@click.option("--side", type=_SIDE, default="new", show_default=True, help="Which revision.")
@click.option("--max-results", type=int, default=50, show_default=True, help="Hits per page.")
@click.option("--offset", type=int, default=0, help="Skip this many hits (paging).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def refs(
    symbol: str, side: str, max_results: int, offset: int, as_json: bool, **params: Any
) -> None:
    """Where a name is used across a range's tree, each line with the definition it sits in.

    Textual plus syntax-aware (whole words, the outline), not a type checker.

    \b
    Examples:
      diffchunk refs -s echo_via_pager 8.4.2..8.5.0
    """
    from ..review.tools.code_search import find_references

    path = _load(params, "refs")
    found = find_references(path, symbol, side, max_results, offset)
    _print(found, as_json, lambda: render_code_hits(found))


@click.command("show", cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@click.option("--path", "file_path", required=True, help="The file, from the repository's top.")
@target_options
@click.option("--side", type=_SIDE, default="new", show_default=True, help="Which revision.")
@click.option("--json", "as_json", is_flag=True, help="Print the snapshot's details, not its text.")
def show(file_path: str, side: str, as_json: bool, **params: Any) -> None:
    """Print any file of the repository at one side of a range (as `git show REV:PATH`).

    \b
    Examples:
      diffchunk show --path src/click/parser.py 8.4.2..8.5.0 --side old
    """
    from ..review.tools.file_versions import open_file_version

    path = _load(params, "show")
    opened = open_file_version(path, file_path, side)
    if as_json:
        echo_json(opened.to_dict())
        return
    with paged(), open(opened.path, "rb") as handle:
        sys.stdout.buffer.write(handle.read())
        sys.stdout.flush()


@click.command("symbols", cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@click.option("--path", "file_path", required=True, help="The file of the diff.")
@target_options
@click.option("--offset", type=int, default=0, help="Skip this many (paging).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def symbols(file_path: str, offset: int, as_json: bool, **params: Any) -> None:
    """List every definition one file's change touches.

    \b
    Examples:
      diffchunk symbols --path src/click/parser.py 8.4.2..8.5.0
      diffchunk symbols --path src/click/parser.py 8.4.2..8.5.0 --offset 50
    """
    from ..review.tools.symbol_list import list_symbols

    path = _load(params, "symbols")
    found = list_symbols(path, file_path, offset)
    _print(found, as_json, lambda: render_symbols(found))
