"""``diffchunk status``, ``diffchunk mark``, ``diffchunk finding``: the review record.

Each takes ``[RANGE|DIFF_FILE]`` as ``diffchunk review`` does (an existing file
is a diff, anything else a range of ``--repo``), with the same load options:
chunk numbers are those of ``diffchunk review`` with the same options.
Human output by default, JSON with ``--json``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..limits import SHORT_ID, STATUS_CHANGED_LISTED
from ..review.record.clip import clip
from ..review.record.model import SEVERITIES
from ..review.record.results import FINDING_COMMENTS_SHOWN
from .output import echo_json, names_cell
from .params import CONTEXT_SETTINGS
from .targets import (
    TARGET_PARAMETERS,
    TargetCommand,
    current_target,
    load_target,
    suggested_command,
    target_options,
)
from .terminal import paged, paint

if TYPE_CHECKING:
    from ..review.page.files import ReviewFiles
    from ..review.record.results import Finding, ReviewStatus, SinceStatus

F = TypeVar("F", bound=Callable[..., Any])


def _target(params: dict[str, Any]) -> dict[str, Any]:
    """The command's target parameters, taken out of ``params``."""
    return {name: params.pop(name) for name in TARGET_PARAMETERS}


def _load(params: dict[str, Any], command: str) -> str:
    """Load the target as ``diffchunk review`` does (nothing: the repository's latest
    review); the diff file's path (the command's target parameters are taken out of
    ``params``)."""
    path, _ = load_target(current_target(_target(params), command))
    return path


# --------------------------------------------------------------------------
# status
# --------------------------------------------------------------------------


def render_status(status: ReviewStatus, target: Mapping[str, Any]) -> str:
    """The coverage table of ``diffchunk status`` (``target``: its target parameters,
    which the commands it suggests repeat)."""
    lines = [paint(f"Review #{status.review.id}: {_title(status)}", "bold")]
    lines.extend(_summary_lines(status))
    if status.chunks:
        lines.append("")
        lines.append(paint(f"{'chunk':>5}  {'status':<8}  files", "bold"))
        for entry in status.chunks:
            state = paint(f"{entry.status:<8}", _STATE_STYLES.get(entry.status, "bold"))
            lines.append(f"{entry.chunk:>5}  {state}  {names_cell(list(entry.files))}")
    lines.append("")
    lines.append(_next_line(status, target))
    return "\n".join(lines) + "\n"


_STATE_STYLES = {"reviewed": "reviewed", "partly": "changed", "seen": "seen", "unseen": "unseen"}


def _title(status: ReviewStatus) -> str:
    source = status.review.source
    revision = status.revision
    if source.kind == "git":
        base = (revision.base or "empty tree")[:SHORT_ID]
        head = (revision.head or "working tree")[:SHORT_ID]
        limited = f" -- {' '.join(revision.paths)}" if revision.paths else ""
        return f"{source.shown_range}{limited} in {source.repository_path} ({base}..{head})"
    return f"{source.diff_file} (sha256 {revision.sha256[:SHORT_ID]})"


def _summary_lines(status: ReviewStatus) -> list[str]:
    t = status.totals
    excluded = ", ".join(f"{n} {r}" for r, n in t.excluded_by_reason.items())
    findings = status.findings
    opened = ", ".join(f"{n} {s}" for s, n in findings.open.items() if n) or "none"
    lines = [
        f"  files     {t.files}: {t.reviewed} reviewed, {t.changed} changed since "
        f"reviewed, {t.seen} seen, {t.unseen} unseen, {t.excluded} excluded"
        + (f" ({excluded})" if excluded else ""),
        f"  findings  open: {opened}; {findings.resolved} resolved, {findings.dismissed} dismissed"
        + (f", {findings.outdated} outdated" if findings.outdated else ""),
    ]
    for who, share in status.reviewers.items():
        lines.append(
            f"  reviewer  {who}: {share['reviewed']} files reviewed, {share['findings']} findings"
        )
    for path, review_id, author in status.reviewed_elsewhere[:STATUS_CHANGED_LISTED]:
        by = f" by {author}" if author else ""
        lines.append(f"  reviewed in review #{review_id}{by} (the same change): {path}")
    lines.extend(f"  changed since reviewed: {path}" for path in status.changed_files)
    lines.extend(_since_lines(status.since_review))
    return lines


def _next_line(status: ReviewStatus, target: Mapping[str, Any]) -> str:
    if status.next_chunk is not None:
        chunk = ("--chunk", str(status.next_chunk))
        return paint(
            f"Next: chunk {status.next_chunk}  ({suggested_command('review', target, *chunk)}"
            f", then {suggested_command('mark', target, *chunk)})",
            "hint",
        )
    return "Every chunk is reviewed." if status.total_chunks else ""


def _since_lines(since: SinceStatus | None) -> list[str]:
    """The review against its reviewed revision: counts, and the files new since."""
    if since is None:
        return []
    revision = since.revision
    shown = f"{(revision.base or 'empty tree')[:SHORT_ID]}..{(revision.head or '')[:SHORT_ID]}"
    files = since.files
    compared = (
        f"{files['unchanged']} unchanged, {files['changed']} changed, {files['new']} new, "
        f"{files['no_longer_changed']} no longer changed"
        if files is not None
        else "its commits are gone"
    )
    lines = [
        f"  since     the review of {shown} ({revision.loaded_at}, history "
        f"{since.history}): {compared}",
        f"            not reviewed now: {len(since.changed)} changed since their "
        f"review, {len(since.new)} new since review",
    ]
    lines.extend(f"  new since review: {path}" for path in since.new[: since.listed])
    return lines


def render_files(files: ReviewFiles) -> str:
    """Every file of the review with its state, lines and open findings (``status --files``)."""
    lines = [paint(f"{'state':<20}  {'+':>6}  {'-':>6}  {'chunks':<10}  file", "bold")]
    for f in files.files:
        label = f.label if f.label != f.state else f.state
        state = paint(f"{label:<20}", f.state)
        chunks = ",".join(str(c) for c in f.chunks) or "-"
        opened = f.findings.get("open", 0)
        note = f"  ({opened} open finding{'s' if opened != 1 else ''})" if opened else ""
        why = f"  [{f.excluded}]" if f.excluded else ""
        name = f.path if not f.old_path else f"{f.old_path} -> {f.path}"
        lines.append(f"{state}  {f.added:>6}  {f.removed:>6}  {chunks:<10}  {name}{why}{note}")
    return "\n".join(lines) + "\n"


@click.command(cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@target_options
@click.option("--files", "per_file", is_flag=True, help="List every file with its state.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def status(per_file: bool, as_json: bool, **params: Any) -> None:
    """Show how far the review of a diff file or a git range has come.

    Files reviewed, seen, not yet seen, changed since they were reviewed and
    excluded; each chunk's status (reviewed, partly, seen, unseen); open
    findings by severity; and the next chunk to review. --files lists every
    file instead of the chunks: its state, lines, chunks and open findings.
    Without a target, the latest review of the repository here.

    \b
    Examples:
      diffchunk status
      diffchunk status --files
      diffchunk status main..feature
      diffchunk status changes.diff --json
      diffchunk status HEAD             # the uncommitted changes
    """
    from ..review import record

    # The status names its review; --files and --json do not.
    target = current_target(_target(params), "status", announce=per_file or as_json)
    path, _ = load_target(target)
    if per_file:
        from ..review.page.files import review_files

        files = review_files(path)
        if as_json:
            echo_json(files.to_dict())
            return
        with paged():
            click.echo(render_files(files), nl=False)
        return
    result = record.review_status(path, max_chars=None)
    if as_json:
        echo_json(result.to_dict())
        return
    with paged():
        click.echo(render_status(result, target), nl=False)


# --------------------------------------------------------------------------
# mark
# --------------------------------------------------------------------------


@click.command(cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@target_options
@click.option("--chunk", "chunk_number", type=int, metavar="N", help="The files of chunk N.")
@click.option("--file", "file_pattern", metavar="GLOB", help="The files matching GLOB (or a path).")
@click.option("--undo", is_flag=True, help="Take the reviewed mark back.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def mark(
    chunk_number: int | None, file_pattern: str | None, undo: bool, as_json: bool, **params: Any
) -> None:
    """Mark the files of a chunk, or files matching a glob, as reviewed.

    A mark follows the file's change: it holds when the diff is loaded with
    other options, and a file edited afterwards shows as changed.

    \b
    Examples:
      diffchunk mark main..feature --chunk 3
      diffchunk mark main..feature --file 'docs/**'
      diffchunk mark changes.diff --file src/app.py --undo
    """
    if (chunk_number is None) == (file_pattern is None):
        raise click.UsageError("Give exactly one of --chunk N and --file GLOB.")
    from ..review import record

    path = _load(params, "mark")
    result = record.mark_reviewed(path, chunk_number, file_pattern, not undo)
    if as_json:
        echo_json(result.to_dict())
        return
    verb = "Marked reviewed" if not undo else "Unmarked"
    shown = len(result.marked)
    more = (result.marked_total if result.marked_total is not None else shown) - shown
    click.echo(f"{verb}: {', '.join(result.marked)}" + (f" and {more} more" if more else ""))
    for path in result.partly:
        click.echo(f"  {path}: other parts of this file are not marked yet")
    t = result.totals
    click.echo(
        f"Files: {t.reviewed} reviewed, {t.changed} changed, {t.seen} seen, "
        f"{t.unseen} unseen, {t.excluded} excluded (of {t.files})"
    )
    nxt = result.next_chunk
    click.echo(f"Next: chunk {nxt}" if nxt is not None else "Every chunk is reviewed.")


# --------------------------------------------------------------------------
# finding
# --------------------------------------------------------------------------


@click.group(context_settings=CONTEXT_SETTINGS)
def finding() -> None:
    """Record, list and close findings (comments on lines of the diff).

    \b
    Examples:
      diffchunk finding add main..feature --file src/app.py --line 12 --message 'Off by one'
      diffchunk finding add main..feature --file src/app.py --line 12 --end-line 14 \\
          --severity minor --suggestion $'for i in range(n):\\n'
      diffchunk finding list main..feature --status all
      diffchunk finding resolve 3
      diffchunk finding dismiss 4 5
    """


def _not_added(earlier: Finding) -> None:
    """The answer of ``finding add`` when a dismissed or resolved finding says the same."""
    by = f" by {earlier.author}" if earlier.author else ""
    click.echo(
        f"Not added: finding #{earlier.id} (review {earlier.review_id}) says the same "
        f"and was {earlier.status}{by}."
    )
    if earlier.thread:
        reason, _ = clip(earlier.thread[-1].body)
        click.echo(f"  reason: {reason}")
    click.echo("  Add it anyway with --force.")


def _finding_line(f: Finding) -> str:
    where = f.file_path
    if f.line is not None:
        span = f"{f.line}" if f.line == f.end_line else f"{f.line}-{f.end_line}"
        where += f":{span}" + (" (old)" if f.side == "old" else "")
    chunk = f"  [chunk {f.chunk}]" if f.chunk else ""
    first = f.message.splitlines()[0] if f.message else ""
    severity = paint(f"{f.severity:<8}", f.severity)
    return f"#{f.id:<4} {severity} {f.status:<9} {where}{chunk}  {first}"


@finding.command("add", cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@target_options
@click.option("--file", "file_path", required=True, metavar="PATH", help="The file, as listed.")
@click.option("--message", required=True, metavar="TEXT", help="What is wrong, and why.")
@click.option(
    "--line", type=click.IntRange(min=1), metavar="N", help="First line (omit: the whole file)."
)
@click.option(
    "--end-line", type=click.IntRange(min=1), metavar="N", help="Last line (default: --line)."
)
@click.option("--side", type=click.Choice(("new", "old")), default="new", show_default=True)
@click.option("--severity", type=click.Choice(SEVERITIES), default="major", show_default=True)
@click.option("--suggestion", metavar="TEXT", help="Replacement text for the new-side lines.")
@click.option(
    "--force", is_flag=True, help="Add it even if the same finding was dismissed or resolved."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def add(
    file_path: str,
    message: str,
    line: int | None,
    end_line: int | None,
    side: str,
    severity: str,
    suggestion: str | None,
    force: bool,
    as_json: bool,
    **params: Any,
) -> None:
    """Record a finding on lines of one file (inside its hunks; for a git range, any
    line of the file) or on the whole file.

    A finding that repeats one dismissed or resolved in this repository's reviews
    (same file and lines, a similar message) is not added: the earlier one is
    shown, with its reason; --force adds it anyway.

    Without a target, on the latest review of the repository here.

    \b
    Examples:
      diffchunk finding add --file src/app.py --line 12 --message 'Off by one'
      diffchunk finding add main..feature --file src/app.py --line 12 --end-line 14 \\
          --severity minor --suggestion $'for i in range(n):\\n'
      diffchunk finding add --file old.py --line 30 --side old --message 'Still needed?'
      diffchunk finding add --file README.md --severity nit --message 'Typo in the title'
    """
    _check_lines(line, end_line, side, suggestion)
    from ..review import record

    path = _load(params, "finding add")
    added = record.add_finding(
        path, file_path, message, line, end_line, side, severity, suggestion, force
    )
    if as_json:
        echo_json(added.to_dict())
        return
    if added.earlier:
        _not_added(added.finding)
        return
    f = added.finding
    where = f.file_path
    if f.line is not None:
        span = f"line {f.line}" if f.line == f.end_line else f"lines {f.line}-{f.end_line}"
        where += f" {span} ({f.side} side)"
    chunk = f", chunk {f.chunk}" if f.chunk else ""
    click.echo(f"Finding #{f.id} ({f.severity}) on {where}{chunk}")
    shown, _ = clip(f.lines)
    for text in (shown or "").splitlines():
        click.echo(f"  | {text}")


def _check_lines(line: int | None, end_line: int | None, side: str, suggestion: str | None) -> None:
    """Refuse lines and a suggestion that cannot go together, in the options' names (before
    anything is loaded; the record checks them too, in the MCP tool's names)."""
    if line is None and end_line is not None:
        raise click.UsageError("--end-line needs --line: pass the first line too.")
    if line is not None and end_line is not None and end_line < line:
        raise click.UsageError(f"--end-line ({end_line}) is before --line ({line}).")
    if suggestion is not None and side == "old":
        raise click.UsageError(
            "--suggestion replaces new-side lines; an old-side finding (--side old) cannot "
            "carry one."
        )
    if suggestion is not None and line is None:
        raise click.UsageError("--suggestion replaces lines: give --line (and --end-line).")


@finding.command("list", cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@target_options
@click.option(
    "--status",
    "wanted",
    type=click.Choice(("open", "resolved", "dismissed", "outdated", "all")),
    default="open",
    show_default=True,
)
@click.option("--severity", metavar="S[,S]", help="Only these severities.")
@click.option("--file", "file_pattern", metavar="GLOB", help="Only files matching GLOB.")
@click.option("--author", metavar="TEXT", help="Only findings whose author contains TEXT.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_(
    wanted: str,
    severity: str | None,
    file_pattern: str | None,
    author: str | None,
    as_json: bool,
    **params: Any,
) -> None:
    """List the review's findings in diff order.

    \b
    Examples:
      diffchunk finding list                       # open findings of the latest review here
      diffchunk finding list main..feature --status all
      diffchunk finding list --severity blocker,major --file 'src/**'
    """
    from ..review import record

    path = _load(params, "finding list")
    result = record.list_findings(
        path, wanted, severity, file_pattern, author=author, max_chars=None
    )
    if as_json:
        echo_json(result.to_dict())
        return
    if not result.findings:
        click.echo(f"No {wanted if wanted != 'all' else ''} findings.".replace("  ", " "))
        return
    with paged():
        for f in result.findings:
            click.echo(_finding_line(f))
            for reply in f.thread[-FINDING_COMMENTS_SHOWN:]:  # as the tool answers it
                click.echo(f"        {reply.author}: {reply.body.splitlines()[0]}")


def _update(
    ids: tuple[int, ...],
    as_json: bool,
    status: str | None = None,
    severity: str | None = None,
    message: str | None = None,
    comment: str | None = None,
) -> None:
    from ..review.record.findings import update_findings_by_id

    # All or none: a bad id among them changes nothing.
    updated = update_findings_by_id(ids, status, severity, message, comment)
    if as_json:
        echo_json([f.to_dict() for f in updated])
        return
    for f in updated:
        click.echo(_finding_line(f))
        if f.note is not None:
            click.echo(f"      {f.note}")


_ids = click.argument("ids", metavar="ID...", type=int, nargs=-1, required=True)
_json = click.option("--json", "as_json", is_flag=True, help="Print JSON.")
_comment = click.option(
    "--comment", metavar="TEXT", help="A reply kept on each finding's thread (why)."
)


@finding.command(context_settings=CONTEXT_SETTINGS)
@_ids
@_comment
@_json
def resolve(ids: tuple[int, ...], comment: str | None, as_json: bool) -> None:
    """Mark findings resolved (ids are unique in the record).

    \b
    Examples:
      diffchunk finding resolve 3
      diffchunk finding resolve 3 4 5
    """
    _update(ids, as_json, status="resolved", comment=comment)


@finding.command(context_settings=CONTEXT_SETTINGS)
@_ids
@_comment
@_json
def dismiss(ids: tuple[int, ...], comment: str | None, as_json: bool) -> None:
    """Mark findings dismissed (not a problem after all).

    \b
    Examples:
      diffchunk finding dismiss 4
    """
    _update(ids, as_json, status="dismissed", comment=comment)


@finding.command(context_settings=CONTEXT_SETTINGS)
@_ids
@_comment
@_json
def reopen(ids: tuple[int, ...], comment: str | None, as_json: bool) -> None:
    """Open findings again.

    \b
    Examples:
      diffchunk finding reopen 4
    """
    _update(ids, as_json, status="open", comment=comment)


@finding.command(context_settings=CONTEXT_SETTINGS)
@click.argument("finding_id", metavar="ID", type=int)
@click.argument("text", metavar="TEXT")
@_json
def reply(finding_id: int, text: str, as_json: bool) -> None:
    """Add a reply to a finding's thread (its author: DIFFCHUNK_REVIEWER, else git's
    user.name and user.email, else the system user).

    \b
    Examples:
      diffchunk finding reply 3 'Fixed in the next commit'
    """
    _update((finding_id,), as_json, comment=text)


@finding.command(context_settings=CONTEXT_SETTINGS)
@click.argument("finding_id", metavar="ID", type=int)
@click.option("--severity", type=click.Choice(SEVERITIES), help="A new severity.")
@click.option("--message", metavar="TEXT", help="A new message.")
@_json
def update(finding_id: int, severity: str | None, message: str | None, as_json: bool) -> None:
    """Change a finding's severity or message.

    \b
    Examples:
      diffchunk finding update 3 --severity nit
      diffchunk finding update 3 --message 'Off by one in the loop bound'
    """
    if severity is None and message is None:
        raise click.UsageError("Give --severity or --message.")
    _update((finding_id,), as_json, severity=severity, message=message)
