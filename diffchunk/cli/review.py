"""``diffchunk review``: the chunk overview of a diff, one chunk, one file, or all to a folder.

The pipeline's modules are imported inside the functions that use them: for a
git range, ``git diff`` then starts before they load, and they load while it
runs (see :mod:`diffchunk.review.ranges.early_start`).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import click

from ..diff.options import FORMATS
from ..errors import PathError
from ..fdio import replace_file
from ..limits import SHORT_ID
from . import ranges
from .output import echo_json, names_cell
from .params import CONTEXT_SETTINGS, SafePath
from .targets import (
    TargetCommand,
    load_target,
    progress_printer,
    suggested_command,
    target_options,
)


def _file_label(detail: dict[str, Any]) -> str:
    """A path with a short note for anything but a plain modification."""
    status = detail.get("status", "modified")
    notes = [status] if status not in ("modified", "binary") else []
    if detail.get("binary"):
        notes.append("binary")
    elif detail.get("metadata_only"):
        notes.append("metadata only")
    elif detail.get("binary_by_attributes"):
        notes.append("-diff")
    return f"{detail['path']} ({', '.join(notes)})" if notes else str(detail["path"])


def _files_cell(entry: dict[str, Any]) -> str:
    if entry.get("parent_file"):
        return f"{entry['parent_file']} (part {entry['sub_chunk_index']})"
    return names_cell([_file_label(d) for d in entry["file_details"]])


def render_overview(
    summary: dict[str, Any],
    listing: dict[str, Any],
    shown_as: str,
    *,
    next_step: bool = True,
    target: dict[str, Any] | None = None,
) -> str:
    """The human overview printed by ``diffchunk review`` (``next_step``: end with the
    command that reads chunk 1, on ``target``: the command's target parameters, whose
    options it repeats; default: the diff file ``shown_as``)."""
    chunks: list[dict[str, Any]] = listing["chunks"]
    lines = [
        f"{shown_as}",
        f"  {summary['files']:,} files, {summary['total_lines']:,} lines -> "
        f"{len(chunks)} chunk{'s' if len(chunks) != 1 else ''}, "
        f"~{listing['total_token_count']:,} tokens",
    ]
    if summary["files_excluded"]:
        lines.append(f"  {summary['files_excluded']} file(s) excluded (listed below)")
    for warning in summary.get("warnings", []):
        lines.append(f"  warning: {warning}")
    if chunks:
        lines.append("")
        lines.append(f"{'chunk':>5}  {'lines':>6}  {'tokens':>7}  files")
        for entry in chunks:
            lines.append(
                f"{entry['chunk']:>5}  {entry['lines']:>6,}  {entry['token_count']:>7,}  "
                f"{_files_cell(entry)}"
            )
    excluded: list[dict[str, Any]] = listing["excluded"]
    if excluded:
        lines.append("")
        lines.append("Excluded:")
        width = min(max(len(e["path"]) for e in excluded), 60)
        for e in excluded:
            why = e["reason"] + (f" ({e['detail']})" if e.get("detail") else "")
            if e.get("commit"):
                why += f"  [commit {e['commit'][:SHORT_ID]}]"
            lines.append(f"  {e['path']:<{width}}  {why}")
    lines.append("")
    if chunks and next_step:
        read = suggested_command("review", target or {"target": shown_as}, "--chunk", "1")
        lines.append(f"Next: {read} [--format annotated]")
    return "\n".join(lines) + "\n"


def _json_overview(summary: dict[str, Any], listing: dict[str, Any]) -> dict[str, Any]:
    dropped = ("excluded", "excluded_more", "excluded_summary")  # "excluded" lists them all
    head = {k: v for k, v in summary.items() if k not in dropped}
    head.setdefault("warnings", [])
    return {
        "summary": head,
        "chunks": listing["chunks"],
        "total_chunks": listing["total_chunks"],
        "total_token_count": listing["total_token_count"],
        "excluded": listing["excluded"],
    }


_CHUNK_FILE = re.compile(r"chunk-\d{4,}\.diff")


def _write_file(out_dir: Path, name: str, data: bytes) -> None:
    """Write ``out_dir/name`` at once (:func:`diffchunk.fdio.replace_file`: the rename
    replaces whatever has that name, a symlink included, instead of writing
    through it, so a planted link cannot send the output elsewhere)."""
    try:
        replace_file(out_dir / name, data)
    except OSError as exc:
        raise PathError(
            f"Cannot write {out_dir / name}: {exc.strerror or exc}.",
            suggestion="Remove it, or pass another --out directory you can write to.",
        ) from None


def _write_out(diff_path: str, out_dir: Path, overview: dict[str, Any]) -> int:
    from ..review.tools import diff_tools as core

    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for old in out_dir.iterdir():
            # Chunk files of an earlier run (or links with their names) go.
            if _CHUNK_FILE.fullmatch(old.name) and (old.is_symlink() or old.is_file()):
                old.unlink()
    except OSError as exc:
        raise PathError(
            f"Cannot use {out_dir} as the output directory: {exc.strerror or exc}.",
            suggestion="Pass a directory you can write to.",
        ) from None
    total = overview["total_chunks"]
    width = max(4, len(str(total)))
    entries = []
    for entry in overview["chunks"]:
        name = f"chunk-{entry['chunk']:0{width}d}.diff"
        _write_file(out_dir, name, core.get_chunk_bytes(diff_path, entry["chunk"]))
        entries.append({**entry, "file": name})  # the listing entries are shared: copy
    index = {**overview, "chunks": entries}
    text = json.dumps(index, indent=2, ensure_ascii=False) + "\n"
    _write_file(out_dir, "index.json", text.encode("utf-8"))
    return int(total)


def _record_seen(diff_path: str, **shown: Any) -> None:
    """The review record notes what was printed as seen (best effort, never fails)."""
    from ..review.record.side_writes import record_seen_at

    record_seen_at(diff_path, **shown)


def _write_bytes(data: bytes) -> None:
    if sys.stdout is None:  # started with stdout closed: nowhere to write (as click.echo)
        return
    sys.stdout.flush()
    out = sys.stdout.buffer
    out.write(data)
    out.flush()


@click.command(cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@target_options
@click.option(
    "--chunk",
    "chunk_number",
    type=int,
    metavar="N",
    help="Print chunk N (1-based) exactly, as a patch.",
)
@click.option("--file", "file_path", metavar="PATH", help="Print the whole diff of one file.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="raw",
    show_default=True,
    help="How --chunk/--file output is shown.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the overview as JSON (indented on a terminal, one line otherwise).",
)
@click.option(
    "--out",
    "out_dir",
    type=SafePath(file_okay=False, path_type=Path, writes=True),
    help="Write each chunk to DIR/chunk-0001.diff ... plus DIR/index.json.",
)
@click.option(
    "--since-review",
    is_flag=True,
    help="Only what changed in RANGE since its last review (new commits, amend, rebase).",
)
@click.option(
    "--review",
    "review_id",
    type=click.IntRange(min=1),
    help="Continue review N (the load names the earlier reviews it overlaps).",
)
def review(
    chunk_number: int | None,
    file_path: str | None,
    fmt: str,
    as_json: bool,
    out_dir: Path | None,
    **target: Any,
) -> None:
    """Review a diff file or a git range in chunks that fit a context window.

    Without options, print an overview: each chunk's files, lines and
    tokens, and the files left out with the reason.

    An existing file is read as a diff; anything else is a git RANGE of the
    repository (--repo, default: here), as for `git diff`: A..B, A...B
    (from the merge base), C^! (one commit), A (working tree vs A), nothing
    (uncommitted changes), --staged (the index). Paths after `--` limit a
    range to those files and directories (relative to the repository's top;
    with nothing before `--`, the uncommitted changes in them).
    A range's diff is cached, so reviewing the same commits again does not
    run git again; its path is printed and works with --chunk/--file and the
    MCP tools.

    \b
    Examples:
      git diff main > changes.diff
      diffchunk review changes.diff
      diffchunk review changes.diff --chunk 3
      diffchunk review changes.diff --chunk 3 --format annotated
      diffchunk review changes.diff --file src/app.py
      diffchunk review changes.diff --exclude 'tests/**' --json
      diffchunk review changes.diff --out review/   # then: git apply review/*.diff
      diffchunk review main..feature
      diffchunk review main...feature --chunk 2 --repo ~/src/project
      diffchunk review main..feature -- src/api docs/index.md
      diffchunk review -- src               # the uncommitted changes in src
      diffchunk review HEAD~3^! --json
      diffchunk review --staged
      diffchunk review main..feature --since-review   # after the branch moved
      diffchunk review 8.4.2..rb --review 5   # continue review 5 under this spelling

    --since-review prints the cached diff of what changed since the last
    review of RANGE; mark and find on it through its path (diffchunk mark
    <that path> --chunk N): it belongs to the same review.

    Exit codes: 0 ok, 1 error, 2 usage, 130 interrupted.
    """
    _check_modes(chunk_number, file_path, as_json, out_dir, fmt)
    diff_path, summary = load_target(target, progress_printer())
    if chunk_number is not None:
        _print_chunk(diff_path, chunk_number, fmt)
    elif file_path is not None:
        _print_file(diff_path, file_path, fmt)
    else:
        _print_overview(target, diff_path, summary, as_json, out_dir)


def _check_modes(
    chunk_number: int | None, file_path: str | None, as_json: bool, out_dir: Path | None, fmt: str
) -> None:
    """Refuse options that cannot go together (before anything is loaded)."""
    modes = [
        name
        for name, on in (
            ("--chunk", chunk_number is not None),
            ("--file", file_path is not None),
            ("--json", as_json),
            ("--out", out_dir is not None),
        )
        if on
    ]
    if len(modes) > 1:
        raise click.UsageError(f"Use only one of {', '.join(modes)}.")
    if fmt != "raw" and chunk_number is None and file_path is None:
        raise click.UsageError("--format applies to --chunk or --file output.")


def _print_chunk(diff_path: str, chunk_number: int, fmt: str) -> None:
    from ..review.tools import diff_tools as core

    if fmt == "raw":
        _write_bytes(core.get_chunk_bytes(diff_path, chunk_number))
        _record_seen(diff_path, chunk_number=chunk_number)
    else:  # get_chunk records it
        click.echo(core.get_chunk(diff_path, chunk_number, False, fmt, bounded=False), nl=False)


def _print_file(diff_path: str, file_path: str, fmt: str) -> None:
    from ..diff.formatter import format_chunk  # loaded with diff_tools
    from ..review.tools import diff_tools as core

    result = core.get_file_diff_bytes(diff_path, file_path)
    _record_seen(diff_path, file_path=result.path)
    if result.excluded is not None:
        ex = result.excluded
        why = ex.reason.value + (f": {ex.detail}" if ex.detail else "")
        click.echo(f"note: {result.path} is excluded from the chunks ({why}).", err=True)
    if fmt == "raw":
        _write_bytes(result.data)
    else:
        click.echo(format_chunk(result.data, fmt), nl=False)


def _print_overview(
    target: dict[str, Any],
    diff_path: str,
    summary: dict[str, Any],
    as_json: bool,
    out_dir: Path | None,
) -> None:
    from ..review.tools.listing import list_chunks  # not diff_tools: no chunk is read here

    listing = list_chunks(diff_path, max_tokens=None).to_dict()
    overview = _json_overview(summary, listing)
    if as_json:
        echo_json(overview)
        return
    if out_dir is not None:
        written = _write_out(diff_path, out_dir, overview)
        click.echo(f"Wrote {written} chunk file(s) and index.json to {out_dir}", err=True)
        return
    if "range" in summary:
        click.echo(ranges.render_range_overview(summary, listing, render_overview), nl=False)
        return
    assert target["target"] is not None
    click.echo(render_overview(summary, listing, target["target"], target=target), nl=False)
