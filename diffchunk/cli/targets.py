"""``[RANGE|DIFF_FILE]`` and the load options: how every command names what it reviews.

``diffchunk review``, ``status``, ``mark``, ``finding`` and ``export`` take the
same target and options (:func:`target_options`) and load it the same way
(:func:`load_target`): an existing file is a diff, anything else a git range
of ``--repo`` (default: the current directory).  Chunk numbers depend on the
load options, so a command that names a chunk takes the options that cut it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..diff.options import MAX_CHUNK_LINES, MIN_CHUNK_LINES, ORDERS, LoadOptions, Progress
from ..limits import CHUNK_DEFAULT_LINES
from ..paths import is_diff_file
from . import ranges
from .params import SafePath

F = TypeVar("F", bound=Callable[..., Any])

#: The parameters :func:`target_options` adds (and :func:`load_target` takes).
TARGET_PARAMETERS = (
    "target",
    "repo",
    "staged",
    "max_chunk_lines",
    "include",
    "exclude",
    "no_skip_trivial",
    "no_skip_generated",
    "context_lines",
    "gitattributes",
    "order",
    "paths",
)


def target_options(command: F) -> F:
    """Add ``[RANGE|DIFF_FILE]``, ``--repo``, ``--staged``, the load options and
    ``[-- PATH...]`` (paths that limit a range)."""
    options = [
        click.argument("target", metavar="[RANGE|DIFF_FILE]", required=False),
        click.argument("paths", metavar="[-- PATH...]", nargs=-1),
        click.option(
            "--repo",
            type=SafePath(file_okay=False),
            metavar="PATH",
            help="Repository of RANGE (default: the current directory).",
        ),
        click.option("--staged", is_flag=True, help="Review the index (staged changes) vs HEAD."),
        click.option(
            "--max-chunk-lines",
            type=click.IntRange(MIN_CHUNK_LINES, MAX_CHUNK_LINES),
            default=CHUNK_DEFAULT_LINES,
            show_default=True,
            help="Line budget per chunk.",
        ),
        click.option(
            "--include",
            multiple=True,
            metavar="GLOBS",
            help="Only these files (comma-separated globs; repeatable).",
        ),
        click.option(
            "--exclude",
            multiple=True,
            metavar="GLOBS",
            help="Leave these files out (comma-separated globs; repeatable).",
        ),
        click.option("--no-skip-trivial", is_flag=True, help="Keep whitespace-only changes."),
        click.option(
            "--no-skip-generated", is_flag=True, help="Keep generated and vendored files."
        ),
        click.option(
            "--context-lines",
            type=click.IntRange(min=0),
            metavar="N",
            help="Keep at most N context lines around each change.",
        ),
        click.option(
            "--gitattributes",
            type=SafePath(exists=True, dir_okay=False),
            metavar="FILE",
            help="Apply this .gitattributes file (linguist-generated, linguist-vendored...).",
        ),
        click.option(
            "--order",
            type=click.Choice(ORDERS),
            default="path",
            show_default=True,
            help="Chunk files in the diff's order, or in review order (code, each test "
            "after its source, docs, config, generated files last).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _joined(values: tuple[str, ...]) -> str | None:
    return ",".join(v for v in values if v.strip()) or None


def load_options(params: dict[str, Any]) -> LoadOptions:
    """The :class:`LoadOptions` of a command's parameters."""
    gitattributes = params["gitattributes"]
    return LoadOptions(
        max_chunk_lines=params["max_chunk_lines"],
        skip_trivial=not params["no_skip_trivial"],
        skip_generated=not params["no_skip_generated"],
        include_patterns=_joined(params["include"]),
        exclude_patterns=_joined(params["exclude"]),
        context_lines=params["context_lines"],
        gitattributes_path=os.path.abspath(gitattributes) if gitattributes else None,
        order=params.get("order", "path"),
    )


def progress_printer() -> Progress | None:
    """Stage messages on an interactive stderr; nothing when piped."""
    stream = sys.stderr
    if stream is None or not stream.isatty():  # None: started with stderr closed
        return None

    def show(stage: str, fraction: float) -> None:
        if stage == "done":
            stream.write("\r\033[K")
        else:
            stream.write(f"\r\033[Kdiffchunk: {stage} ({fraction:.0%})")
        stream.flush()

    return show


def load_target(
    params: dict[str, Any], progress: Progress | None = None
) -> tuple[str, dict[str, Any]]:
    """Load what the command names; ``(diff file path, load summary as JSON)``.

    TARGET is a diff file when that file exists (relative paths are resolved
    against the current directory), else a git range (``main..feature``,
    nothing, ``--staged``): its diff is generated into a cached file, then
    loaded the same way (see :mod:`diffchunk.cli.ranges`).
    """
    options = load_options(params)
    target, staged = params["target"], params["staged"]
    since_review = bool(params.get("since_review"))
    paths = params.get("paths") or ()
    if not is_diff_file(target, staged):
        return ranges.load_range(
            target, params["repo"], staged, options, progress, since_review, paths
        )
    if since_review:
        raise click.UsageError("--since-review applies to a git range, not to a diff file.")
    if paths:
        raise click.UsageError(
            f"Paths ({', '.join(paths)}) limit a git range; {target} is a diff file: "
            "use --include to keep some of its files."
        )
    from ..review import diff_tools as core

    assert target is not None
    path = os.path.abspath(os.path.expanduser(target))
    summary = core.load_diff(path, options, progress=progress)
    return summary.file_path, summary.to_dict()
