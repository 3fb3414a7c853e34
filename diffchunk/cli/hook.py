"""``diffchunk hook``: install or remove the pre-push review hook, and run it."""

from __future__ import annotations

import os
import sys

import click

from ..errors import DiffchunkError
from ..git.repo import Repo
from ..review import push_hook as core
from .params import CONTEXT_SETTINGS, SafePath

_repo_option = click.option(
    "--repo",
    "repo_path",
    type=SafePath(file_okay=False),
    metavar="PATH",
    help="The repository (default: the current directory).",
)


def _repo(repo_path: str | None) -> Repo:
    return core.repo_for_hook(os.path.abspath(repo_path) if repo_path else None)


@click.group(context_settings=CONTEXT_SETTINGS)
def hook() -> None:
    """Install or remove the git pre-push review hook.

    Before each push the hook prints the chunk overview of what is pushed and
    what was excluded, and leaves the diff cached under .git/diffchunk/ for an
    assistant, with what the review record holds on the pushed commits (files
    reviewed, open findings). It can stop a push that is too large to review,
    or not reviewed enough:

    \b
      git config diffchunk.maxChunks 20     at most 20 chunks per pushed ref
      git config diffchunk.maxLines 15000   at most 15000 diff lines
      git config diffchunk.failOn major     no open finding of major or worse
      git config diffchunk.requireReviewed true   every pushed file marked reviewed
      git push --no-verify                  skip the hook once

    \b
    Examples:
      diffchunk hook install
      diffchunk hook install --repo ~/src/project
      diffchunk hook uninstall
    """


@hook.command(context_settings=CONTEXT_SETTINGS)
@_repo_option
def install(repo_path: str | None) -> None:
    """Install the pre-push hook (an existing hook keeps running first).

    \b
    Examples:
      diffchunk hook install
      diffchunk hook install --repo ~/src/project
      git config diffchunk.failOn major    # then: stop pushes with open major findings
    """
    click.echo(core.install(_repo(repo_path), python=sys.executable))


@hook.command(context_settings=CONTEXT_SETTINGS)
@_repo_option
def uninstall(repo_path: str | None) -> None:
    """Remove diffchunk's pre-push hook and restore the previous one.

    \b
    Examples:
      diffchunk hook uninstall
      diffchunk hook uninstall --repo ~/src/project
    """
    click.echo(core.uninstall(_repo(repo_path)))


def _pre_commit_refs() -> list[core.PushedRef] | None:
    """The pushed range from the pre-commit framework's environment, if run by it."""
    to_ref = os.environ.get("PRE_COMMIT_TO_REF")
    from_ref = os.environ.get("PRE_COMMIT_FROM_REF")
    if not to_ref or not from_ref:
        return None
    local = os.environ.get("PRE_COMMIT_LOCAL_BRANCH") or "HEAD"
    remote_ref = os.environ.get("PRE_COMMIT_REMOTE_BRANCH") or local
    return core.parse_push_lines([f"{local} {to_ref} {remote_ref} {from_ref}"])


def _named_range(review: core.RefReview) -> str:
    """The range the printed commands name: that of a review of the pushed commit when
    the record holds one (its marks and findings are there), else the pushed range."""
    record = review.record
    if record is not None and record.error is None:
        for reviewed, _ in record.reviews:
            shown = reviewed.source.shown_range
            if (
                reviewed.source.kind == "git"
                and shown
                and not shown.startswith(("worktree:", "index:"))
            ):
                return shown
    return core.pushed_range(review)


def _show(review: core.RefReview, repo: Repo) -> None:
    from .render import render_overview

    ref = review.ref
    click.echo(f"diffchunk: {ref.local_ref} -> {ref.remote_ref}")
    if review.diff is None or review.summary is None or review.listing is None:
        click.echo(f"  {review.note}")
        return
    if review.note:
        click.echo(f"  range: {review.diff.range} ({review.note})")
    else:
        click.echo(f"  range: {review.diff.range}")
    pushed = _named_range(review)
    text = render_overview(
        review.summary, review.listing, pushed, next_step=False, target={"target": pushed}
    )
    click.echo("\n".join(f"  {line}" if line else "" for line in text.rstrip("\n").split("\n")))
    if review.listing.chunks:
        click.echo(f"  review it: diffchunk review {pushed}  (then: diffchunk next)")
        root = repo.root or repo.git_dir
        click.echo(
            f"  assistant: load_git_diff(absolute_repo_path={str(root)!r}, "
            f"revision_range={pushed!r})"
        )
    if review.record is not None:
        from ..review.record.pushed import record_lines

        for line in record_lines(review.record, pushed):
            click.echo(f"  {line}")


@hook.command("run-pre-push", context_settings=CONTEXT_SETTINGS)
@click.argument("remote", required=False, default="")
@click.argument("url", required=False, default="")
@_repo_option
def run_pre_push(remote: str, url: str, repo_path: str | None) -> None:
    """Review what is being pushed (run by the pre-push hook; reads git's stdin).

    Exit status 1 when a pushed ref is over diffchunk.maxChunks or
    diffchunk.maxLines, or fails diffchunk.failOn or diffchunk.requireReviewed,
    which stops the push.

    \b
    Examples:
      git push                       # runs it, once `diffchunk hook install` is done
      printf 'refs/heads/f %s refs/heads/f %s\\n' "$(git rev-parse f)" "$(git rev-parse origin/f)" \\
          | diffchunk hook run-pre-push origin
    """
    refs = _pre_commit_refs()
    if refs is not None:
        remote = remote or os.environ.get("PRE_COMMIT_REMOTE_NAME", "")
    else:
        stdin = sys.stdin
        if stdin is None or stdin.isatty():
            raise click.UsageError(
                "run-pre-push reads the refs being pushed from stdin; git's pre-push hook "
                "runs it. Install that with `diffchunk hook install`."
            )
        refs = core.parse_push_lines(stdin.read().splitlines())
    try:
        repo = _repo(repo_path)
        reviews = core.review_push(repo, remote or "origin", refs)
    except DiffchunkError as exc:
        click.echo(f"diffchunk: the pre-push review failed: {exc.cli_text()}", err=True)
        click.echo("diffchunk: to push without it once: git push --no-verify", err=True)
        raise click.exceptions.Exit(1) from exc
    stopped = False
    for review in reviews:
        _show(review, repo)
        if review.over_limit:
            stopped = True
            click.echo(core.limit_advice(review, repo, remote or "origin"), err=True)
        if review.record is not None and review.record.stops:
            from ..review.record.pushed import record_advice

            stopped = True
            pushed = _named_range(review)
            click.echo(record_advice(review.record, review.ref.local_ref, pushed), err=True)
    if stopped:
        raise click.exceptions.Exit(1)
    _sync_record(repo, remote or url)


def _sync_record(repo: Repo, remote: str) -> None:
    """With ``git config diffchunk.sync true``, the review record goes along with the
    push (``diffchunk sync REMOTE``); a failure is said, and never stops the push."""
    try:
        wanted = repo.bool_setting("diffchunk.sync")
    except ValueError as exc:
        click.echo(f"diffchunk: not syncing the review record: {exc}.", err=True)
        return
    if not wanted:
        return
    from ..review.record.sync import sync

    try:
        result = sync(repo.path, remote or None)
    except DiffchunkError as exc:
        click.echo(f"diffchunk: the review record was not synced: {exc.cli_text()}", err=True)
        return
    click.echo(
        f"diffchunk: review record synced with {result.remote}: "
        f"{result.applied.new} new operation(s) applied, {result.published} published."
    )
    for why in result.refused:
        click.echo(f"diffchunk: refused: {why}", err=True)
