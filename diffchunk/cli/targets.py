"""``[RANGE|DIFF_FILE]`` and the load options: how every command names what it reviews.

``diffchunk review``, ``status``, ``mark``, ``finding`` and ``export`` take the
same target and options (:func:`target_options`) and load it the same way
(:func:`load_target`): an existing file is a diff, anything else a git range
of ``--repo`` (default: the current directory).  Chunk numbers depend on the
load options, so a command that names a chunk takes the options that cut it,
and a command suggested to the user repeats them (:func:`suggested_command`).

Arguments after ``--`` are paths (:class:`TargetCommand`): ``diffchunk review
-- src`` reviews the uncommitted changes in ``src``, as ``review HEAD -- src``
reviews them against ``HEAD``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import click

from ..diff.options import MAX_CHUNK_LINES, MIN_CHUNK_LINES, ORDERS, LoadOptions, Progress
from ..limits import CHUNK_DEFAULT_LINES
from ..paths import is_diff_file
from ..review.ranges.command_line import option
from ..review.results import LoadSummary, RangeSummary
from . import ranges
from .output import shell_word
from .params import SafePath, check_roots

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


def _plain_arguments_before(command: click.Command, ctx: click.Context, args: list[str]) -> int:
    """How many plain arguments ``args`` hold before the ``--`` that ends the options
    (-1 when none does).

    A ``--`` may be an option's value (``--include --``): the first ``--`` after
    which the arguments before it parse whole, with click's own parser, is the
    one that ends the options.
    """
    for index, arg in enumerate(args):
        if arg != "--":
            continue
        try:
            values, _, _ = command.make_parser(ctx).parse_args(args[:index])
        except click.BadOptionUsage:
            continue  # the value of the option before it
        except click.UsageError:
            return -1  # parsing the whole command line reports it
        count = 0
        for param in command.params:
            value = values.get(param.name) if isinstance(param, click.Argument) else None
            count += 1 if isinstance(value, str) else len(value) if isinstance(value, tuple) else 0
        return count
    return -1


class TargetCommand(click.Command):
    """A command with :func:`target_options`: the arguments after ``--`` are paths.

    Click hands a command its arguments before and after ``--`` as one list,
    so ``review -- src`` would take ``src`` as the target; with no argument
    before ``--``, there is no target (the uncommitted changes, or
    ``--staged``) and every argument after it is a path.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        before = _plain_arguments_before(self, ctx, args)
        rest = super().parse_args(ctx, args)
        target = ctx.params.get("target")
        if before == 0 and target is not None:
            ctx.params["paths"] = (target, *(ctx.params.get("paths") or ()))
            ctx.params["target"] = None
        return rest


def target_options(command: F) -> F:
    """Add ``[RANGE|DIFF_FILE]``, ``--repo``, ``--staged``, the load options and
    ``[-- PATH...]`` (paths that limit a range).  The command must be a
    :class:`TargetCommand` (``@click.command(cls=TargetCommand)``), so that
    paths after ``--`` with no target before it are paths."""
    options = [
        click.argument("target", metavar="[RANGE|DIFF_FILE]", required=False),
        click.argument("paths", metavar="[-- PATH...]", nargs=-1),
        click.option(
            option("repo"),
            type=SafePath(file_okay=False),
            metavar="PATH",
            help="Repository of RANGE (default: the current directory).",
        ),
        click.option(
            option("staged"), is_flag=True, help="Review the index (staged changes) vs HEAD."
        ),
        click.option(
            option("max_chunk_lines"),
            type=click.IntRange(MIN_CHUNK_LINES, MAX_CHUNK_LINES),
            default=CHUNK_DEFAULT_LINES,
            show_default=True,
            help="Line budget per chunk.",
        ),
        click.option(
            option("include"),
            multiple=True,
            metavar="GLOBS",
            help="Only these files (comma-separated globs; repeatable).",
        ),
        click.option(
            option("exclude"),
            multiple=True,
            metavar="GLOBS",
            help="Leave these files out (comma-separated globs; repeatable).",
        ),
        click.option(option("no_skip_trivial"), is_flag=True, help="Keep whitespace-only changes."),
        click.option(
            option("no_skip_generated"), is_flag=True, help="Keep generated and vendored files."
        ),
        click.option(
            option("context_lines"),
            type=click.IntRange(min=0),
            metavar="N",
            help="Keep at most N context lines around each change.",
        ),
        click.option(
            option("gitattributes"),
            type=SafePath(exists=True, dir_okay=False),
            metavar="FILE",
            help="Apply this .gitattributes file (linguist-generated, linguist-vendored...).",
        ),
        click.option(
            option("order"),
            type=click.Choice(ORDERS),
            default="path",
            show_default=True,
            help="Chunk files in the diff's order, or in review order (code, each test "
            "after its source, docs, config, generated files last).",
        ),
    ]
    for declare in reversed(options):
        command = declare(command)
    return command


def suggested_command(command: str, params: Mapping[str, Any], *words: str) -> str:
    """``diffchunk COMMAND TARGET WORDS... OPTIONS [-- PATH...]``, shell-quoted: a command
    on what ``params`` (a command's :data:`TARGET_PARAMETERS`) name, with the options
    that select its files and cut its chunks, so that its chunk numbers are the same.

    Options left at their defaults are left out.
    """
    args: list[str] = []
    target = params.get("target")
    if target is not None:
        args.append(target)
    args.extend(words)
    if params.get("repo"):
        args += [option("repo"), str(params["repo"])]
    if params.get("staged"):
        args.append(option("staged"))
    if params.get("max_chunk_lines", CHUNK_DEFAULT_LINES) != CHUNK_DEFAULT_LINES:
        args += [option("max_chunk_lines"), str(params["max_chunk_lines"])]
    for name in ("include", "exclude"):
        for value in params.get(name) or ():
            args += [option(name), value]
    for name in ("no_skip_trivial", "no_skip_generated"):
        if params.get(name):
            args.append(option(name))
    if params.get("context_lines") is not None:
        args += [option("context_lines"), str(params["context_lines"])]
    if params.get("gitattributes"):
        args += [option("gitattributes"), str(params["gitattributes"])]
    if params.get("order", "path") != "path":
        args += [option("order"), params["order"]]
    paths = params.get("paths") or ()
    if paths:
        args += ["--", *paths]
    return " ".join(shell_word(word) for word in ("diffchunk", command, *args))


def _joined(values: tuple[str, ...]) -> str | None:
    return ",".join(v for v in values if v.strip()) or None


def load_options(params: Mapping[str, Any]) -> LoadOptions:
    """The :class:`LoadOptions` of a command's parameters."""
    gitattributes = params["gitattributes"]
    return LoadOptions.of(
        {
            **params,
            "skip_trivial": not params["no_skip_trivial"],
            "skip_generated": not params["no_skip_generated"],
            "include_patterns": _joined(params["include"]),
            "exclude_patterns": _joined(params["exclude"]),
            "gitattributes_path": os.path.abspath(gitattributes) if gitattributes else None,
        }
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
    params: Mapping[str, Any], progress: Progress | None = None
) -> tuple[str, LoadSummary | RangeSummary]:
    """Load what the command names; ``(diff file path, load summary)``.

    TARGET is a diff file when that file exists (relative paths are resolved
    against the current directory), else a git range (``main..feature``,
    nothing, ``--staged``): its diff is generated into a cached file, then
    loaded the same way (see :mod:`diffchunk.cli.ranges`).
    """
    options = load_options(params)
    target, staged = params["target"], params["staged"]
    since_review = bool(params.get("since_review"))
    paths = params.get("paths") or ()
    review_id = params.get("review_id")
    if not is_diff_file(target, staged):
        summary = ranges.load_range(
            target, params["repo"], staged, options, progress, since_review, paths, review_id
        )
        return summary.file_path, summary
    if review_id is not None:
        raise click.UsageError("--review applies to a git range of commits, not to a diff file.")
    if since_review:
        raise click.UsageError("--since-review applies to a git range, not to a diff file.")
    if paths:
        raise click.UsageError(
            f"Paths ({', '.join(paths)}) limit a git range; {target} is a diff file: "
            "use --include to keep some of its files."
        )
    from ..review.tools import diff_tools as core

    assert target is not None
    path = os.path.abspath(os.path.expanduser(target))
    check_roots(path)
    loaded = core.load_diff(path, options, progress=progress)
    return loaded.file_path, loaded


# --------------------------------------------------------------------------
# What a command acts on when its target is `-` or nothing
# --------------------------------------------------------------------------

#: The target that reads a diff from standard input (``git diff A B | diffchunk review -``).
STDIN_TARGET = "-"

STDIN_DIFFS_KEPT = 20
"""Diffs read from standard input kept in the cache (``stdin/``), the most recently
used: each is the review of a pipe, read again by piping it again."""

STDIN_DIFFS_MAX_BYTES = 1 << 30
"""Bytes of those diffs kept in all (1 GiB, as the snapshots' store); the one just read
is kept whatever its size."""


def stdin_diff() -> str:
    """Standard input's diff, written once to the cache as ``stdin/<sha256>.diff`` (the
    same diff is the same file, so the same review); its path.  The directory keeps the
    :data:`STDIN_DIFFS_KEPT` most recently used (:func:`~diffchunk.fdio.prune_files`)."""
    import hashlib

    from ..errors import PathError
    from ..fdio import prune_files, replace_file
    from ..paths import cache_dir

    stream = sys.stdin
    if stream is None or stream.isatty():
        raise click.UsageError(
            "'-' reads a diff from standard input, which is a terminal here: pipe one in, "
            "e.g. git diff main feature | diffchunk review -"
        )
    data = stream.buffer.read()
    if not data.strip():
        raise click.UsageError(
            "Standard input was empty: pipe a diff in, e.g. git diff main feature | "
            "diffchunk review -"
        )
    directory = os.path.join(cache_dir(), "stdin")
    path = os.path.join(directory, hashlib.sha256(data).hexdigest()[:32] + ".diff")
    try:
        if os.path.isfile(path):
            os.utime(path)  # used again: pruned last
        else:
            os.makedirs(directory, exist_ok=True)
            replace_file(path, data)
    except OSError as exc:
        raise PathError(
            f"Cannot keep the diff read from standard input in {directory}: {exc.strerror or exc}.",
            suggestion="Set DIFFCHUNK_CACHE_DIR to a directory you can write to, or save "
            "the diff to a file and name that file.",
        ) from None
    prune_files(
        directory, path, max_count=STDIN_DIFFS_KEPT, max_bytes=STDIN_DIFFS_MAX_BYTES, suffix=".diff"
    )
    return path


def names_nothing(params: Mapping[str, Any]) -> bool:
    """Whether ``params`` name no target: no range or file, no ``--staged``, no paths."""
    return params.get("target") is None and not params.get("staged") and not params.get("paths")


def current_target(
    params: Mapping[str, Any], command: str, *, announce: bool = True
) -> dict[str, Any]:
    """``params`` with their target made concrete: ``-`` becomes the diff read from
    standard input; nothing (for every command but ``review``, where nothing is the
    uncommitted changes, as for ``git diff``) becomes the repository's latest review,
    which is said on standard error (``announce``: unless the output names it); its
    paths are read in its repository's top directory, where they start."""
    resolved = dict(params)
    if resolved.get("target") == STDIN_TARGET:
        resolved["target"] = stdin_diff()
        click.echo(f"diffchunk: the diff on standard input is {resolved['target']}", err=True)
        return resolved
    if command == "review" or not names_nothing(resolved):
        return resolved
    from ..errors import NotARange
    from ..paths import review_repo_path
    from ..review.page.latest import latest_review

    where = review_repo_path(resolved.get("repo"))
    try:
        latest = latest_review(where, command=command)
    except NotARange as exc:
        raise NotARange(
            f"No target was named, and {where} is not inside a git repository.",
            suggestion=f"Name a diff file (diffchunk {command} changes.diff) or a range of a "
            f"repository (diffchunk {command} main..feature --repo PATH), or run it in one.",
        ) from exc
    resolved.update(target=latest.revision_range, staged=latest.staged, paths=latest.paths)
    if latest.paths:  # relative to the repository's top: read from there, not from here
        resolved.update(repo=latest.repository)
    if announce:
        click.echo(f"{review_label(latest)} (the latest review here)", err=True)
    return resolved


def review_label(latest: Any) -> str:
    """``Review #N: RANGE in REPO (loaded ...)`` of a :class:`LatestReview`."""
    shown = ("--staged " if latest.staged else "") + (
        latest.revision_range or "(uncommitted changes)"
    )
    if latest.paths:
        shown += " -- " + " ".join(latest.paths)
    return f"Review #{latest.review_id}: {shown} in {latest.repository}, loaded {latest.loaded_at}"
