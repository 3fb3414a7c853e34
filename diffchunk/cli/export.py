"""``diffchunk export``: a recorded review in a format other tools read."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..review.export import FORMATS
from .params import CONTEXT_SETTINGS, SafePath
from .targets import TARGET_PARAMETERS, TargetCommand, load_target, target_options


@click.command(cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@target_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="markdown",
    show_default=True,
    help="markdown, html (one page), sarif, rdjson (reviewdog), github (a review body), json.",
)
@click.option(
    "--status",
    type=click.Choice(("open", "all")),
    default="open",
    show_default=True,
    help="Which findings: the open ones, or all of them.",
)
@click.option(
    "--out",
    type=SafePath(dir_okay=False, path_type=Path, writes=True),
    metavar="FILE",
    help="Write to FILE (atomically) instead of standard output.",
)
def export(fmt: str, status: str, out: Path | None, **params: Any) -> None:
    """Export the recorded review of a diff file or a git range.

    The review is the one `diffchunk status` shows for the same target and
    options; every format says what was reviewed (repository, range, commits,
    or the diff file and its hash).

    \b
    Examples:
      diffchunk export main..feature > review.md
      diffchunk export main..feature --format html --out review.html
      diffchunk export main..feature --format github --out review.json
      gh api repos/OWNER/REPO/pulls/N/reviews --input review.json
      diffchunk export changes.diff --format sarif --status all --out review.sarif
    """
    from ..review.tools.exporting import export_review, write_export

    target = {name: params.pop(name) for name in TARGET_PARAMETERS}
    diff_path, _ = load_target(target)
    exported = export_review(diff_path, fmt, status)
    if out is not None:
        write_export(exported, out)
        click.echo(f"Wrote {exported.format} ({exported.findings} finding(s)) to {out}", err=True)
        return
    if sys.stdout is not None:
        sys.stdout.write(exported.text)
        if not exported.text.endswith("\n"):
            sys.stdout.write("\n")
