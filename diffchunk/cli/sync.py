"""``diffchunk sync`` and ``diffchunk record export/import``: one review record for
everyone who reviews a repository, shared through its git remote."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from ..paths import review_repo_path
from .output import echo_json
from .params import SafePath

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

_repo = click.option(
    "--repo",
    type=SafePath(file_okay=False),
    metavar="DIR",
    help="The repository (default: the current directory).",
)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("remote", required=False, metavar="[REMOTE]")
@_repo
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def sync(remote: str | None, repo: str | None, as_json: bool) -> None:
    """Share this repository's review record through its git remote, with no server.

    Publishes your marks, findings and replies on the reviews of this
    repository to REMOTE (default: where `git push` sends the current branch,
    else origin) under refs/diffchunk/log/, and applies everyone else's: two
    reviewers on two clones then see one review. It uses your own transport
    (credentials, ssh) as `git push` would. Syncing again changes nothing.

    \b
    Examples:
      diffchunk sync
      diffchunk sync upstream
      git config diffchunk.sync true   # the pre-push hook syncs on every push
    """
    from ..review.record.sync import sync as run_sync

    result = run_sync(review_repo_path(repo), remote)
    if as_json:
        echo_json(result.to_dict())
    else:
        ops = result.applied
        click.echo(
            f"Synced the review record with {result.remote} ({result.url}): "
            f"{result.logs} other log(s) read, {ops.new} new operation(s) applied; "
            f"your log there holds {result.published} operation(s), "
            f"{result.published_bytes:,} bytes."
        )
        if ops.unplaced:
            click.echo(f"  {ops.unplaced} operation(s) name a review or finding not shared yet.")
    for why in result.refused:
        click.echo(f"Refused: {why}", err=True)
    if result.refused:
        sys.exit(1)


@click.group(context_settings=CONTEXT_SETTINGS)
def record() -> None:
    """The review record as a log of operations (the format `diffchunk sync` shares).

    \b
    Examples:
      diffchunk record export --out review-log.jsonl
      diffchunk record import review-log.jsonl
    """


@record.command("export", context_settings=CONTEXT_SETTINGS)
@_repo
@click.option(
    "--out",
    type=SafePath(dir_okay=False, path_type=Path, writes=True),
    metavar="FILE",
    help="Write to FILE instead of standard output.",
)
def export_(repo: str | None, out: Path | None) -> None:
    """Write every operation the record holds of this repository's reviews (JSON lines).

    \b
    Examples:
      diffchunk record export --out review-log.jsonl
      diffchunk record export --repo ~/src/project > review-log.jsonl
    """
    from ..review.record.exchange import export_log

    data = export_log(review_repo_path(repo))
    if out is None:
        sys.stdout.buffer.write(data)
        return
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, out)
    count = data.count(b"\n") - 1  # the header is not an operation
    click.echo(f"Wrote {count} operation(s) to {out}", err=True)


@record.command("import", context_settings=CONTEXT_SETTINGS)
@click.argument(
    "log_file", type=SafePath(dir_okay=False, exists=True, path_type=Path), metavar="FILE"
)
@_repo
def import_(log_file: Path, repo: str | None) -> None:
    """Apply a review log (from `diffchunk record export`) to this repository's record.

    \b
    Examples:
      diffchunk record import review-log.jsonl
      diffchunk record import review-log.jsonl --repo ~/src/project
    """
    from ..fdio import read_small_file
    from ..limits import SYNC_LOG_MAX_BYTES
    from ..review.record.exchange import import_log

    try:
        data = read_small_file(str(log_file), SYNC_LOG_MAX_BYTES)
    except OSError as exc:
        raise click.ClickException(f"{log_file} cannot be read as a review log: {exc}") from exc
    applied = import_log(review_repo_path(repo), data, str(log_file))
    click.echo(f"Read {applied.read} operation(s) from {log_file}: {applied.new} new, applied.")
