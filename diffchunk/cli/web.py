"""``diffchunk web``: serve the review page of a diff file or a git range (:mod:`diffchunk.web`).

It takes the target and load options of ``diffchunk review``
(:mod:`.targets`), loads the target the same way, and serves the page until
interrupted.  Without a target it opens the repository's latest review
(:mod:`diffchunk.review.page.latest`), loaded again as ``diffchunk review``
would load its range.
"""

from __future__ import annotations

import os
from typing import Any

import click

from ..paths import is_diff_file, review_repo_path
from .params import CONTEXT_SETTINGS
from .targets import (
    TARGET_PARAMETERS,
    TargetCommand,
    load_options,
    load_target,
    progress_printer,
    target_options,
)


def _latest(target: dict[str, Any]) -> dict[str, Any]:
    """``target`` naming the repository's latest review (when it names nothing)."""
    from ..review.page.latest import latest_review

    latest = latest_review(review_repo_path(target["repo"]))
    click.echo(
        f"Opening the latest review of {latest.repository}: "
        f"{'--staged ' if latest.staged else ''}{latest.revision_range or '(uncommitted changes)'}"
        f"{' -- ' + ' '.join(latest.paths) if latest.paths else ''} (loaded {latest.loaded_at})",
        err=True,
    )
    return {
        **target,
        "target": latest.revision_range,
        "staged": latest.staged,
        "paths": latest.paths,
    }


def _since_loader(target: dict[str, Any]) -> Any:
    """How to load what changed since the last review of the range ``target`` names."""
    if is_diff_file(target["target"], target["staged"]):
        return None

    def load() -> tuple[str | None, str | None]:
        from . import ranges

        options = load_options(target)
        summary = ranges.load_range(
            target["target"], target["repo"], target["staged"], options, None, since_review=True
        )
        from ..review.record.since import SinceReview, gone_note

        since = summary.since_review
        if since is not None and since.full_diff is not None:
            return summary.file_path, None
        if isinstance(since, SinceReview) and since.comparison is None:
            return None, gone_note(since.revision)
        return None, summary.since_note or "Nothing to compare with."

    return None if target["paths"] else load


@click.command(cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@target_options
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    help="Port on 127.0.0.1 (default: a free one).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
@click.option("--read-only", is_flag=True, help="Serve the page without writes to the record.")
def web(port: int, open_browser: bool, read_only: bool, **params: Any) -> None:
    """Serve a review page of a diff file or a git range, on 127.0.0.1.

    The page shows the file tree with each file's review state, each file's
    diff (syntax and word highlighting, unified or split, context expandable
    from the file at either revision) and the findings under their lines.
    Marking a file "Viewed", writing, resolving and dismissing findings write
    the same review record the MCP tools and `diffchunk status` read; what
    the assistant writes appears on the open page.

    Without a target, the repository's latest review (as last loaded).
    The URL printed carries a secret token: every request needs it.
    --read-only serves the page without writes. Stop it with Ctrl-C.

    \b
    Examples:
      diffchunk web main..feature --open
      diffchunk web                       # the latest review here
      diffchunk web changes.diff --read-only --port 8765
    """
    import gc

    from ..web.app import PageConfig
    from ..web.serve import bind, new_token, serve

    gc.enable()  # the console script turns it off for short commands; a server runs for long
    target = {name: params.pop(name) for name in TARGET_PARAMETERS}
    if target["target"] is None and not target["staged"] and not target["paths"]:
        target = _latest(target)
    try:
        sock = bind(port)
    except OSError as exc:
        raise click.ClickException(
            f"Cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}. "
            "Pick another --port, or leave it out for a free one."
        ) from None
    with sock:
        path, summary = load_target(target, progress_printer())
        title = getattr(summary, "range", None) or target["target"] or path
        repo = target["repo"]
        config = PageConfig(
            diff_path=path,
            title=str(title),
            token=new_token(),
            read_only=read_only,
            repo=os.path.abspath(repo) if repo else None,
            load_since=_since_loader(target),
        )
        _warm(path)
        serve(
            config,
            sock,
            open_browser=open_browser,
            announce=lambda url: click.echo(f"Review page: {url}\n(Ctrl-C stops it)"),
        )


def _warm(path: str) -> None:
    """Build the file tree once before the URL is printed, so the page opens at once."""
    from ..review.page.files import review_files

    review_files(path)
