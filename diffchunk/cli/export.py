"""``diffchunk export``: a recorded review in a format other tools read."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..review.export import DIFF_TEXTS, FORMATS
from .params import CONTEXT_SETTINGS, SafePath
from .targets import (
    TARGET_PARAMETERS,
    TargetCommand,
    current_target,
    load_target,
    target_options,
)


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
    "--diff-text",
    type=click.Choice(DIFF_TEXTS),
    default="all",
    show_default=True,
    help="html: every file's diff, or only those of the files with findings (the others "
    "listed by name).",
)
@click.option(
    "--out",
    type=SafePath(dir_okay=False, path_type=Path, writes=True),
    metavar="FILE",
    help="Write to FILE (atomically) instead of standard output.",
)
def export(fmt: str, status: str, diff_text: str, out: Path | None, **params: Any) -> None:
    """Export the recorded review of a diff file or a git range.

    The review is the one `diffchunk status` shows for the same target and
    options; every format says what was reviewed (repository, range, commits,
    or the diff file and its hash). Without a target, the latest review of
    the repository here.

    \b
    Examples:
      diffchunk export > review.md          # the latest review here
      diffchunk export main..feature > review.md
      diffchunk export main..feature --format html --out review.html
      diffchunk export main..feature --format html --diff-text findings --out review.html
      diffchunk export main..feature --format github --out review.json
      gh api repos/OWNER/REPO/pulls/N/reviews --input review.json
      diffchunk export changes.diff --format sarif --status all --out review.sarif
    """
    from ..review.tools.exporting import export_to_file, write_review

    target = {name: params.pop(name) for name in TARGET_PARAMETERS}
    diff_path, _ = load_target(current_target(target, "export"))
    if out is not None:
        written = export_to_file(diff_path, out, fmt, status, diff_text=diff_text)
        click.echo(f"Wrote {written.format} ({written.findings} finding(s)) to {out}", err=True)
        return
    if sys.stdout is not None:
        stdout = sys.stdout
        last: list[str] = ["\n"]

        def write(text: str) -> None:
            stdout.write(text)
            last[0] = text[-1:] or last[0]

        write_review(diff_path, write, fmt, status, diff_text=diff_text)
        if last[0] != "\n":
            stdout.write("\n")
