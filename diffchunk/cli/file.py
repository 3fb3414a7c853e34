"""``diffchunk file``: the large-file tools on the command line.

Each subcommand is the twin of an MCP tool and prints the same JSON (the
result's ``to_dict()``) with ``--json``, or a human summary otherwise, read from
the typed result the tool returns (never from its JSON).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import click

from ..errors import InvalidArgument, PathError
from ..files.content_read import READ_MODES, read_content
from ..files.content_search import CountResult, search_content
from ..files.overview import get_overview
from ..limits import READ_DEFAULT_LINES, SEARCH_DEFAULT_CONTEXT_LINES, SEARCH_DEFAULT_RESULTS
from ..paths import PathPolicy, resolve_regular_file
from .output import echo_json
from .params import CONTEXT_SETTINGS, SafePath
from .wording import cli_terms

MAX_CHANGES_JSON = 64 * 1024 * 1024
"""Largest ``--changes-json`` file read (it is parsed in memory): far above
MAX_EDIT_CHANGES changes of real code; /dev/zero, a FIFO or a log passed by
mistake is refused before being read whole."""


def _absolute(path: str) -> str:
    """CLI paths may be relative: make them absolute for the core.

    A blank path, or a ``~user`` that does not expand, is passed on as is so
    the core names the real problem (instead of reading the current directory).
    """
    expanded = os.path.expanduser(path)
    if not expanded.strip() or expanded.startswith("~"):
        return path
    return os.path.abspath(expanded)


def _target(path: str) -> str:
    """The absolute path of the file a command works on, checked against
    ``DIFFCHUNK_ALLOWED_ROOTS`` when that is set (as the MCP server does)."""
    absolute = _absolute(path)
    policy = PathPolicy.from_env()
    if policy is not None and os.path.isabs(absolute):
        policy.check(absolute)
    return absolute


def _warnings(warnings: Iterable[str]) -> None:
    for warning in warnings:
        click.echo(f"note: {cli_terms(warning)}", err=True)


@click.group(context_settings=CONTEXT_SETTINGS)
def file() -> None:
    """Overview, search, read and edit large files.

    \b
    Examples:
      diffchunk file overview big.log
      diffchunk file search big.log ERROR --exact --count
      diffchunk file read big.log --tail -n 50
      diffchunk file edit app.py --search 'old()' --replace 'new()' --apply
    """


def _print_outline(items: Sequence[Mapping[str, Any]], depth: int = 0) -> None:
    """The outline's items (JSON already: see :class:`~diffchunk.files.overview.Overview`)."""
    for item in items:
        mark = f" [{item['changes']}]" if item.get("changes") else ""
        click.echo(
            f"{'  ' * depth}{item['type']} {item['name']}  "
            f"(lines {item['line_number']}-{item['end_line']}){mark}"
        )
        _print_outline(item.get("children") or [], depth + 1)


@file.command(context_settings=CONTEXT_SETTINGS)
@click.argument("path", type=SafePath(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option(
    "--outline-offset",
    type=click.IntRange(min=0),
    default=0,
    metavar="N",
    help="Show the outline from its item N (pages of 400 items).",
)
@click.option("--symbol", metavar="NAME", help="List the definitions NAME (or a glob) names.")
def overview(path: str, as_json: bool, outline_offset: int, symbol: str | None) -> None:
    """Size, line count, encoding, outline and search hints of PATH.

    \b
    Examples:
      diffchunk file overview /var/log/app.log
      diffchunk file overview src/big.ts --symbol 'create*'
      diffchunk file overview src/big.ts --outline-offset 400
    """
    found = get_overview(_target(path), outline_offset, symbol)
    if as_json:
        echo_json(found.to_dict())
        return
    if found.is_binary:
        click.echo(f"binary file ({found.binary_hint or 'unknown type'}), {found.file_size} bytes")
        return
    long_lines = found.long_lines
    click.echo(
        f"{found.line_count} lines, {found.file_size} bytes, {found.encoding}, "
        f"{found.line_ending} line endings"
    )
    if long_lines.has_long_lines:
        click.echo(
            f"{long_lines.count} lines over {long_lines.threshold} characters "
            f"(longest {long_lines.max_length})"
        )
    if found.outline:
        click.echo(f"outline ({found.changed_symbols} changed symbols):")
        _print_outline(found.outline, 1)
    for item in found.symbols or ():
        click.echo(
            f"{item['type']} {item.get('qualified_name', item['name'])}  "
            f"(lines {item['line_number']}-{item['end_line']})"
        )
    if found.search_hints:
        click.echo("try searching: " + cli_terms(", ".join(found.search_hints)))
    _warnings(found.warnings)


@file.command(context_settings=CONTEXT_SETTINGS)
@click.argument("path", type=SafePath(dir_okay=False))
@click.argument("pattern")
@click.option("--exact", "exact", is_flag=True, help="Exact text (no fuzzy matching).")
@click.option(
    "--regex",
    "-E",
    "regex",
    is_flag=True,
    help="PATTERN is a regex, Python syntax without backreferences or lookaround "
    "(implies --exact).",
)
@click.option("--ignore-case", "-i", is_flag=True, help="Case-insensitive exact/regex search.")
@click.option("--invert", "-v", is_flag=True, help="Lines NOT matching (like grep -v).")
@click.option("--count", "-c", "count_only", is_flag=True, help="Only count matching lines.")
@click.option(
    "--max-results",
    "-m",
    default=SEARCH_DEFAULT_RESULTS,
    show_default=True,
    help="Results to show.",
)
@click.option(
    "--context",
    "-C",
    "context_lines",
    default=SEARCH_DEFAULT_CONTEXT_LINES,
    show_default=True,
    help="Context lines.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def search(
    path: str,
    pattern: str,
    exact: bool,
    regex: bool,
    ignore_case: bool,
    invert: bool,
    count_only: bool,
    max_results: int,
    context_lines: int,
    as_json: bool,
) -> None:
    """Find PATTERN in PATH (fuzzy by default; --exact or --regex for precise matches).

    \b
    Examples:
      diffchunk file search app.log ERROR --exact --count
      diffchunk file search src/big.py 'proces_data'       # fuzzy
      diffchunk file search src/big.py 'def \\w+\\(' --regex --context 0
    """
    found = search_content(
        _target(path),
        pattern,
        max_results=max_results,
        context_lines=context_lines,
        fuzzy=not (exact or regex or invert),
        regex=regex,
        case_sensitive=not ignore_case,
        invert=invert,
        count_only=count_only,
    )
    if as_json:
        echo_json(found.to_dict())
        return
    if isinstance(found, CountResult):
        click.echo(found.count)
        _warnings(found.warnings)
        return
    for result in found.results:
        line = result.line_number
        for i, text in enumerate(result.context_before):
            click.echo(f"{line - len(result.context_before) + i}-{text}")
        score = "" if result.similarity_score >= 1.0 else f"  ({result.similarity_score:.2f})"
        where = f"  [{result.semantic_context}]" if result.semantic_context else ""
        click.echo(f"{line}:{result.match}{score}{where}")
        for i, text in enumerate(result.context_after):
            click.echo(f"{line + 1 + i}-{text}")
        if context_lines:
            click.echo("--")
    click.echo(f"{found.total_matches} matching lines", err=True)
    _warnings(found.warnings)


@file.command(context_settings=CONTEXT_SETTINGS)
@click.argument("path", type=SafePath(dir_okay=False))
@click.option("--offset", "-o", default=1, show_default=True, help="First line (1-based).")
@click.option("--limit", "-n", default=READ_DEFAULT_LINES, show_default=True, help="Lines to read.")
@click.option("--pattern", "-p", default=None, help="Start at the line matching this text.")
@click.option(
    "--mode",
    type=click.Choice(READ_MODES),
    default="lines",
    show_default=True,
    help="lines, semantic (whole function/class), head or tail.",
)
@click.option("--head", "mode", flag_value="head", help="Same as --mode head.")
@click.option("--tail", "mode", flag_value="tail", help="Same as --mode tail.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def read(path: str, offset: int, limit: int, pattern: str | None, mode: str, as_json: bool) -> None:
    """Print lines of PATH by number, from either end, or the block around a line.

    \b
    Examples:
      diffchunk file read app.log --offset 1200 -n 50
      diffchunk file read app.log --tail -n 200
      diffchunk file read src/big.py --mode semantic --offset 812   # the function around it
      diffchunk file read notes.md --pattern '## Install' -n 40
    """
    found = read_content(_target(path), offset=offset, limit=limit, pattern=pattern, mode=mode)
    if as_json:
        echo_json(found.to_dict())
        return
    if found.content or found.lines_returned:
        click.echo(found.content)
    first, last, total = found.start_line, found.end_line, found.total_lines
    span = f"lines {first}-{last}" if first is not None else f"{found.lines_returned} lines"
    click.echo(f"{span} of {total if total is not None else '?'}", err=True)
    _warnings(found.warnings)


def _read_changes_file(path: str) -> str:
    """The text of a --changes-json file: a regular UTF-8 file of bounded size.

    (A FIFO would block and /dev/zero would never end: both are refused before
    reading.)
    """
    real, st = resolve_regular_file(_absolute(path), what="changes file")
    if st.st_size > MAX_CHANGES_JSON:
        raise InvalidArgument(
            f"{path} is {st.st_size:,} bytes; a changes file may hold at most "
            f"{MAX_CHANGES_JSON // (1024 * 1024)} MB.",
            suggestion="Split the changes into several files.",
        )
    try:
        with open(real, "rb") as fh:
            data = fh.read(MAX_CHANGES_JSON + 1)
    except OSError as exc:
        raise PathError(f"{path} cannot be read: {exc.strerror or exc}.") from None
    if len(data) > MAX_CHANGES_JSON:
        raise InvalidArgument(
            f"{path} holds more than {MAX_CHANGES_JSON // (1024 * 1024)} MB.",
            suggestion="Split the changes into several files.",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidArgument(
            f"{path} is not UTF-8 text (invalid byte at offset {exc.start}); "
            "it must hold a JSON list of changes.",
            suggestion='Write a UTF-8 file like [{"search": "old", "replace": "new"}].',
        ) from None


def _changes_from(
    searches: tuple[str, ...], replaces: tuple[str, ...], changes_json: str | None
) -> list[dict[str, Any]]:
    if changes_json:
        if searches or replaces:
            raise InvalidArgument(
                "--changes-json cannot be combined with --search/--replace.",
                suggestion="Put every change in the JSON file.",
            )
        raw = _read_changes_file(changes_json)
        try:
            changes = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise InvalidArgument(
                f"{changes_json} is not valid JSON: {exc}.",
                suggestion='Write a list like [{"search": "old", "replace": "new"}].',
            ) from None
        if not isinstance(changes, list):
            raise InvalidArgument(
                f"{changes_json} must hold a JSON list of changes.",
                suggestion='Write a list like [{"search": "old", "replace": "new"}].',
            )
        return changes
    if len(searches) != len(replaces) or not searches:
        raise InvalidArgument(
            "Give --search and --replace in pairs (at least one pair), or --changes-json FILE.",
            suggestion="Example: --search 'old text' --replace 'new text'.",
        )
    return [{"search": s, "replace": r} for s, r in zip(searches, replaces, strict=True)]


@file.command(context_settings=CONTEXT_SETTINGS)
@click.argument("path", type=SafePath(dir_okay=False))
@click.option("--search", "-s", "searches", multiple=True, help="Text to replace (repeatable).")
@click.option(
    "--replace", "-r", "replaces", multiple=True, help="Replacement (pairs with --search)."
)
@click.option(
    "--changes-json",
    metavar="FILE",
    help='JSON file: [{"search": ..., "replace": ..., "fuzzy": ...}].',
)
@click.option("--exact", is_flag=True, help="No fuzzy matching of the search texts.")
@click.option("--apply", "apply_", is_flag=True, help="Write the change (default: preview only).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def edit(
    path: str,
    searches: tuple[str, ...],
    replaces: tuple[str, ...],
    changes_json: str | None,
    exact: bool,
    apply_: bool,
    as_json: bool,
) -> None:
    """Search/replace edits in PATH: shows a preview unless --apply is given.

    \b
    Examples:
      diffchunk file edit src/app.py --search 'old_name(' --replace 'new_name('
      diffchunk file edit src/app.py --search 'old_name(' --replace 'new_name(' --apply
      diffchunk file edit src/app.py --changes-json changes.json --apply
    """
    from ..files import edit as core

    changes = _changes_from(searches, replaces, changes_json)
    edited = core.edit_content(
        _target(path),
        changes,
        fuzzy=not exact,
        preview=not apply_,
        policy=PathPolicy.from_env(),
    )
    if as_json:
        echo_json(edited.to_dict())
    else:
        if edited.preview:
            click.echo(edited.preview)
        for result in edited.results:
            if not result.success:
                click.echo(f"change {result.index}: {result.error}", err=True)
                for similar in result.similar_matches:
                    click.echo(
                        f"  line {similar.line}: {similar.content} ({similar.similarity:.2f})",
                        err=True,
                    )
        _warnings(edited.warnings)
        if edited.backup_created:
            click.echo(f"backup: {edited.backup_created}", err=True)
        elif edited.success and not apply_:
            click.echo("preview only: add --apply to write the change", err=True)
    if not edited.success:
        raise click.exceptions.Exit(1)


@file.command(context_settings=CONTEXT_SETTINGS)
@click.argument("path", type=SafePath(dir_okay=False))
@click.option("--backup-id", default=None, help="Backup to restore (default: the latest).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def revert(path: str, backup_id: str | None, as_json: bool) -> None:
    """Restore a backup of PATH (its current content is saved first).

    \b
    Examples:
      diffchunk file revert src/app.py
      diffchunk file revert src/app.py --backup-id 20261128_110000_000000_00   # an id file edit printed
    """
    from ..files import revert as core

    reverted = core.revert_edit(_target(path), backup_id, policy=PathPolicy.from_env())
    if as_json:
        echo_json(reverted.to_dict())
        return
    restored = reverted.reverted_to
    click.echo(f"restored backup {restored.id} ({restored.timestamp})")
    click.echo(f"previous content saved as {reverted.current_saved_as.id}")
    _warnings(reverted.warnings)
