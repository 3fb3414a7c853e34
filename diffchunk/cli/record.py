"""``diffchunk status``, ``diffchunk mark``, ``diffchunk finding``: the review record.

Each takes ``[RANGE|DIFF_FILE]`` as ``diffchunk review`` does (an existing file
is a diff, anything else a range of ``--repo``), with the same load options:
chunk numbers are those of ``diffchunk review`` with the same options.
Human output by default, JSON with ``--json``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..limits import SHORT_ID
from ..review.record.model import SEVERITIES
from .output import echo_json, names_cell
from .params import CONTEXT_SETTINGS
from .targets import (
    TARGET_PARAMETERS,
    TargetCommand,
    load_target,
    suggested_command,
    target_options,
)

F = TypeVar("F", bound=Callable[..., Any])


def _target(params: dict[str, Any]) -> dict[str, Any]:
    """The command's target parameters, taken out of ``params``."""
    return {name: params.pop(name) for name in TARGET_PARAMETERS}


def _load(params: dict[str, Any]) -> str:
    """Load the target as ``diffchunk review`` does; the diff file's path (the command's
    target parameters are taken out of ``params``)."""
    path, _ = load_target(_target(params))
    return path


# --------------------------------------------------------------------------
# status
# --------------------------------------------------------------------------


def render_status(status: dict[str, Any], target: dict[str, Any]) -> str:
    """The coverage table of ``diffchunk status`` (``target``: its target parameters,
    which the commands it suggests repeat)."""
    review = status["review"]
    source = review["source"]
    revision = review["revision"]
    if source["kind"] == "git":
        base = (revision["base"] or "empty tree")[:SHORT_ID]
        head = (revision["head"] or "working tree")[:SHORT_ID]
        limited = f" -- {' '.join(revision['paths'])}" if revision.get("paths") else ""
        title = f"{source['range']}{limited} in {source['repository']} ({base}..{head})"
    else:
        title = f"{source['diff_file']} (sha256 {revision['sha256'][:SHORT_ID]})"
    t = status["totals"]
    excluded = ", ".join(f"{n} {r}" for r, n in t["excluded_by_reason"].items())
    findings = status["findings"]
    opened = ", ".join(f"{n} {s}" for s, n in findings["open"].items() if n) or "none"
    lines = [
        f"Review #{review['id']}: {title}",
        f"  files     {t['files']}: {t['reviewed']} reviewed, {t['changed']} changed since "
        f"reviewed, {t['seen']} seen, {t['unseen']} unseen, {t['excluded']} excluded"
        + (f" ({excluded})" if excluded else ""),
        f"  findings  open: {opened}; {findings['resolved']} resolved, "
        f"{findings['dismissed']} dismissed"
        + (f", {findings['outdated']} outdated" if findings.get("outdated") else ""),
    ]
    for who, share in status.get("reviewers", {}).items():
        lines.append(
            f"  reviewer  {who}: {share['reviewed']} files reviewed, {share['findings']} findings"
        )
    for entry in status.get("reviewed_elsewhere", []):
        by = f" by {entry['by']}" if entry.get("by") else ""
        lines.append(
            f"  reviewed in review #{entry['review']}{by} (the same change): {entry['path']}"
        )
    for path in status.get("changed_files", []):
        lines.append(f"  changed since reviewed: {path}")
    lines.extend(_since_lines(status.get("since_review")))
    if status["chunks"]:
        lines.append("")
        lines.append(f"{'chunk':>5}  {'status':<8}  files")
        for entry in status["chunks"]:
            lines.append(f"{entry['chunk']:>5}  {entry['status']:<8}  {names_cell(entry['files'])}")
    lines.append("")
    if status["next_chunk"] is not None:
        chunk = ("--chunk", str(status["next_chunk"]))
        lines.append(
            f"Next: chunk {status['next_chunk']}  ({suggested_command('review', target, *chunk)}"
            f", then {suggested_command('mark', target, *chunk)})"
        )
    elif status["total_chunks"]:
        lines.append("Every chunk is reviewed.")
    return "\n".join(lines) + "\n"


def _since_lines(since: dict[str, Any] | None) -> list[str]:
    """The review against its reviewed revision: counts, and the files new since."""
    if not since:
        return []
    revision = since["revision"]
    shown = (
        f"{(revision['base'] or 'empty tree')[:SHORT_ID]}..{(revision['head'] or '')[:SHORT_ID]}"
    )
    files = since.get("files")
    compared = (
        f"{files['unchanged']} unchanged, {files['changed']} changed, {files['new']} new, "
        f"{files['no_longer_changed']} no longer changed"
        if files
        else "its commits are gone"
    )
    lines = [
        f"  since     the review of {shown} ({revision['loaded_at']}, history "
        f"{since['history']}): {compared}",
        f"            not reviewed now: {since['changed_since_review']} changed since their "
        f"review, {since['new_since_review']} new since review",
    ]
    lines.extend(f"  new since review: {path}" for path in since["new"])
    return lines


@click.command(cls=TargetCommand, context_settings=CONTEXT_SETTINGS)
@target_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def status(as_json: bool, **params: Any) -> None:
    """Show how far the review of a diff file or a git range has come.

    Files reviewed, seen, not yet seen, changed since they were reviewed and
    excluded; each chunk's status (reviewed, partly, seen, unseen); open
    findings by severity; and the next chunk to review.

    \b
    Examples:
      diffchunk status main..feature
      diffchunk status changes.diff --json
    """
    from ..review import record

    target = _target(params)
    path, _ = load_target(target)
    result = record.review_status(path, max_chars=None).to_dict()
    if as_json:
        echo_json(result)
    else:
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

    path = _load(params)
    result = record.mark_reviewed(path, chunk_number, file_pattern, not undo).to_dict()
    if as_json:
        echo_json(result)
        return
    verb = "Marked reviewed" if not undo else "Unmarked"
    more = result.get("marked_total", len(result["marked"])) - len(result["marked"])
    click.echo(f"{verb}: {', '.join(result['marked'])}" + (f" and {more} more" if more else ""))
    for path in result.get("partly", []):
        click.echo(f"  {path}: other parts of this file are not marked yet")
    t = result["totals"]
    click.echo(
        f"Files: {t['reviewed']} reviewed, {t['changed']} changed, {t['seen']} seen, "
        f"{t['unseen']} unseen, {t['excluded']} excluded (of {t['files']})"
    )
    nxt = result["next_chunk"]
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


def _finding_line(f: dict[str, Any]) -> str:
    where = f["file_path"]
    if f["line"] is not None:
        span = f"{f['line']}" if f["line"] == f["end_line"] else f"{f['line']}-{f['end_line']}"
        where += f":{span}" + (" (old)" if f["side"] == "old" else "")
    chunk = f"  [chunk {f['chunk']}]" if f.get("chunk") else ""
    first = f["message"].splitlines()[0] if f["message"] else ""
    return f"#{f['id']:<4} {f['severity']:<8} {f['status']:<9} {where}{chunk}  {first}"


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
    """
    _check_lines(line, end_line, side, suggestion)
    from ..review import record

    path = _load(params)
    result = record.add_finding(
        path, file_path, message, line, end_line, side, severity, suggestion, force
    ).to_dict()
    if as_json:
        echo_json(result)
        return
    if "earlier" in result:
        earlier = result["earlier"]
        by = f" by {earlier['author']}" if earlier.get("author") else ""
        click.echo(
            f"Not added: finding #{earlier['id']} (review {earlier['review_id']}) says the same "
            f"and was {earlier['status']}{by}."
        )
        if earlier.get("reason"):
            click.echo(f"  reason: {earlier['reason']}")
        click.echo("  Add it anyway with --force.")
        return
    where = result["file_path"]
    if result["line"] is not None:
        first, last = result["line"], result["end_line"]
        span = f"line {first}" if first == last else f"lines {first}-{last}"
        where += f" {span} ({result['side']} side)"
    chunk = f", chunk {result['chunk']}" if result["chunk"] else ""
    click.echo(f"Finding #{result['id']} ({result['severity']}) on {where}{chunk}")
    for text in (result["lines"] or "").splitlines():
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
    """List the review's findings in diff order."""
    from ..review import record

    path = _load(params)
    result = record.list_findings(
        path, wanted, severity, file_pattern, author=author, max_chars=None
    ).to_dict()
    if as_json:
        echo_json(result)
        return
    if not result["findings"]:
        click.echo(f"No {wanted if wanted != 'all' else ''} findings.".replace("  ", " "))
        return
    for f in result["findings"]:
        click.echo(_finding_line(f))
        for reply in f.get("thread", []):
            click.echo(f"        {reply['author']}: {reply['body'].splitlines()[0]}")


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
    updated = [f.to_dict() for f in update_findings_by_id(ids, status, severity, message, comment)]
    if as_json:
        echo_json(updated)
        return
    for f in updated:
        click.echo(_finding_line(f))
        if f.get("note"):
            click.echo(f"      {f['note']}")


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
    """Mark findings resolved (ids are unique in the record)."""
    _update(ids, as_json, status="resolved", comment=comment)


@finding.command(context_settings=CONTEXT_SETTINGS)
@_ids
@_comment
@_json
def dismiss(ids: tuple[int, ...], comment: str | None, as_json: bool) -> None:
    """Mark findings dismissed (not a problem after all)."""
    _update(ids, as_json, status="dismissed", comment=comment)


@finding.command(context_settings=CONTEXT_SETTINGS)
@_ids
@_comment
@_json
def reopen(ids: tuple[int, ...], comment: str | None, as_json: bool) -> None:
    """Open findings again."""
    _update(ids, as_json, status="open", comment=comment)


@finding.command(context_settings=CONTEXT_SETTINGS)
@click.argument("finding_id", metavar="ID", type=int)
@click.argument("text", metavar="TEXT")
@_json
def reply(finding_id: int, text: str, as_json: bool) -> None:
    """Add a reply to a finding's thread (its author: DIFFCHUNK_REVIEWER, else git's
    user.name and user.email, else the system user)."""
    _update((finding_id,), as_json, comment=text)


@finding.command(context_settings=CONTEXT_SETTINGS)
@click.argument("finding_id", metavar="ID", type=int)
@click.option("--severity", type=click.Choice(SEVERITIES), help="A new severity.")
@click.option("--message", metavar="TEXT", help="A new message.")
@_json
def update(finding_id: int, severity: str | None, message: str | None, as_json: bool) -> None:
    """Change a finding's severity or message."""
    if severity is None and message is None:
        raise click.UsageError("Give --severity or --message.")
    _update((finding_id,), as_json, severity=severity, message=message)
