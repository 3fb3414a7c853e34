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
from typing import TYPE_CHECKING, Any

import click

from ..diff.options import FORMATS
from ..errors import PathError
from ..fdio import replace_file
from ..review.ranges.command_line import option
from .output import echo_json
from .params import CONTEXT_SETTINGS, SafePath
from .render import colour_diff
from .targets import (
    TargetCommand,
    current_target,
    load_target,
    progress_printer,
    suggested_command,
    target_options,
)
from .terminal import colour_on, paged

if TYPE_CHECKING:
    from ..review.results import ChunkListing, LoadSummary, RangeSummary


def _json_overview(summary: LoadSummary | RangeSummary, listing: ChunkListing) -> dict[str, Any]:
    """The overview as ``--json`` prints it (and ``--out`` writes it as index.json)."""
    return _overview_dict(summary.to_dict(), listing.to_dict())


def _overview_dict(summary: dict[str, Any], listing: dict[str, Any]) -> dict[str, Any]:
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
    option("chunk_number"),
    "chunk_number",
    type=int,
    metavar="N",
    help="Print chunk N (1-based) exactly, as a patch.",
)
@click.option(
    option("file_path"), "file_path", metavar="PATH", help="Print the whole diff of one file."
)
@click.option(
    option("fmt"),
    "fmt",
    type=click.Choice(FORMATS),
    default="raw",
    show_default=True,
    help="How --chunk/--file output is shown.",
)
@click.option(
    option("as_json"),
    "as_json",
    is_flag=True,
    help="Print the overview as JSON (indented on a terminal, one line otherwise).",
)
@click.option(
    option("out_dir"),
    "out_dir",
    type=SafePath(file_okay=False, path_type=Path, writes=True),
    help="Write each chunk to DIR/chunk-0001.diff ... plus DIR/index.json.",
)
@click.option(
    option("since_review"),
    is_flag=True,
    help="Only what changed in RANGE since its last review (new commits, amend, rebase).",
)
@click.option(
    option("review_id"),
    "review_id",
    type=click.IntRange(min=1),
    help="Continue review N (the load names the earlier reviews it overlaps).",
)
@click.option(
    option("next_chunk"),
    "next_chunk",
    is_flag=True,
    help="Print the next chunk not yet reviewed (as `diffchunk next`).",
)
def review(
    chunk_number: int | None,
    file_path: str | None,
    fmt: str,
    as_json: bool,
    out_dir: Path | None,
    next_chunk: bool,
    **target: Any,
) -> None:
    """Review a diff file or a git range in chunks that fit a context window.

    Without options, print an overview: each chunk's files, lines and
    tokens, and the files left out with the reason.

    An existing file is read as a diff, `-` the diff on standard input;
    anything else is a git RANGE of the
    repository (--repo, default: here), as for `git diff`: A..B, A...B
    (from the merge base), C^! (one commit), A (working tree vs A), nothing
    (uncommitted changes), --staged (the index). Paths after `--` limit a
    range to those files and directories (relative to the current directory,
    as for git; with nothing before `--`, the uncommitted changes in them).
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
      git diff main feature | diffchunk review -
      diffchunk review main..feature
      diffchunk review main...feature --chunk 2 --repo ~/src/project
      diffchunk review main..feature -- src/api docs/index.md
      diffchunk review -- src               # the uncommitted changes in src
      diffchunk review HEAD~3^! --json
      diffchunk review --staged
      diffchunk review main..feature --since-review   # after the branch moved
      diffchunk review 8.4.2..rb --review 5   # continue review 5 under this spelling
      diffchunk review main..feature --next           # the next chunk not yet reviewed

    --since-review prints the cached diff of what changed since the last
    review of RANGE; mark and find on it through its path (diffchunk mark
    <that path> --chunk N): it belongs to the same review.

    Exit codes: 0 ok, 1 error, 2 usage, 130 interrupted.
    """
    _check_modes(chunk_number, file_path, as_json, out_dir, fmt, next_chunk)
    target = current_target(target, "review")
    diff_path, summary = load_target(target, progress_printer())
    if next_chunk:
        print_next(target, diff_path, fmt)
    elif chunk_number is not None:
        _print_chunk(diff_path, chunk_number, fmt)
    elif file_path is not None:
        _print_file(diff_path, file_path, fmt)
    else:
        _print_overview(target, diff_path, summary, as_json, out_dir)


def _check_modes(
    chunk_number: int | None,
    file_path: str | None,
    as_json: bool,
    out_dir: Path | None,
    fmt: str,
    next_chunk: bool = False,
) -> None:
    """Refuse options that cannot go together (before anything is loaded)."""
    modes = [
        name
        for name, on in (
            ("--next", next_chunk),
            ("--chunk", chunk_number is not None),
            ("--file", file_path is not None),
            ("--json", as_json),
            ("--out", out_dir is not None),
        )
        if on
    ]
    if len(modes) > 1:
        raise click.UsageError(f"Use only one of {', '.join(modes)}.")
    if fmt != "raw" and chunk_number is None and file_path is None and not next_chunk:
        raise click.UsageError("--format applies to --chunk, --file or --next output.")


def _print_chunk(diff_path: str, chunk_number: int, fmt: str) -> None:
    from ..review.tools import diff_tools as core

    with paged():
        if fmt == "raw":
            _write_diff(core.get_chunk_bytes(diff_path, chunk_number))
            _record_seen(diff_path, chunk_number=chunk_number)
        else:  # get_chunk records it
            text = core.get_chunk(diff_path, chunk_number, False, fmt, bounded=False)
            click.echo(colour_diff(text), nl=False)


def _write_diff(data: bytes) -> None:
    """A diff's exact bytes; in colour (then decoded as the file names are) when it is on."""
    if colour_on():
        click.echo(colour_diff(data.decode("utf-8", "surrogateescape")), nl=False)
    else:
        _write_bytes(data)


def _print_file(diff_path: str, file_path: str, fmt: str) -> None:
    from ..review.tools import diff_tools as core

    result = core.get_file_diff_bytes(diff_path, file_path)
    _record_seen(diff_path, file_path=result.path)
    if result.excluded is not None:
        ex = result.excluded
        why = ex.reason.value + (f": {ex.detail}" if ex.detail else "")
        click.echo(f"note: {result.path} is excluded from the chunks ({why}).", err=True)
    with paged():
        if fmt == "raw":
            _write_diff(result.data)
        else:
            click.echo(colour_diff(core.file_diff_text(diff_path, result, fmt)), nl=False)


def print_next(target: dict[str, Any], diff_path: str, fmt: str) -> None:
    """The next chunk not yet reviewed (what it is, and how to mark it, on stderr)."""
    from ..review import record

    status = record.review_status(diff_path, max_chars=None)
    number = status.next_chunk
    if number is None:
        click.echo(
            "Every chunk is reviewed."
            if status.total_chunks
            else "Nothing to review: the diff has no chunks."
        )
        return
    mark = suggested_command("mark", target, "--chunk", str(number))
    click.echo(
        f"Chunk {number} of {status.total_chunks}, the next not yet reviewed (then: {mark})",
        err=True,
    )
    _print_chunk(diff_path, number, fmt)


def _print_overview(
    target: dict[str, Any],
    diff_path: str,
    summary: LoadSummary | RangeSummary,
    as_json: bool,
    out_dir: Path | None,
) -> None:
    from ..review.results import RangeSummary
    from ..review.tools.listing import list_chunks  # not diff_tools: no chunk is read here
    from .render import render_overview, render_range_overview

    listing = list_chunks(diff_path, max_tokens=None)
    if as_json:
        echo_json(_json_overview(summary, listing))
        return
    if out_dir is not None:
        written = _write_out(diff_path, out_dir, _json_overview(summary, listing))
        click.echo(f"Wrote {written} chunk file(s) and index.json to {out_dir}", err=True)
        return
    with paged():
        if isinstance(summary, RangeSummary):
            click.echo(render_range_overview(summary, listing, target), nl=False)
            return
        assert target["target"] is not None
        click.echo(render_overview(summary, listing, target["target"], target=target), nl=False)


@click.command("next", cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@target_options
@click.option(
    option("fmt"),
    "fmt",
    type=click.Choice(FORMATS),
    default="raw",
    show_default=True,
    help="How the chunk is shown.",
)
def next_command(fmt: str, **target: Any) -> None:
    """Print the next chunk not yet reviewed, and how to mark it.

    Without a target, the latest review of the repository here (the one
    loaded last, over MCP or the CLI), loaded again as `diffchunk review`
    loads it; with one, that range or diff file. The chunk is recorded as
    seen; mark it reviewed when done, then run `diffchunk next` again.

    \b
    Examples:
      diffchunk next
      diffchunk next --format annotated
      diffchunk next main..feature --max-chunk-lines 600
      diffchunk mark --chunk 3 && diffchunk next
    """
    target = current_target(target, "next")
    diff_path, _ = load_target(target, progress_printer())
    print_next(target, diff_path, fmt)
