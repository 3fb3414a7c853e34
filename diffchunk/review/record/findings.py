"""Findings: comments on a line range of one file, checked against the diff when written.

Rules for ``add_finding``:

- ``line``/``end_line`` are numbered as in the loaded revision, on the
  ``new`` or ``old`` side, inside one hunk of that file on that side (context
  lines count) or, for a range of commits, anywhere in the file as that
  side's commit has it (:mod:`.file_lines`: its ``chunk`` is then None);
  otherwise the error lists the file's hunk ranges on that side, so the
  caller can correct itself.  Without ``line`` the finding is on the whole
  file.
- ``suggestion`` replaces the new-side lines pointed at: an error on the old
  side or without ``line``.
- ``lines`` keeps the text pointed at, and ``context_before``/``after`` up
  to three lines around it on that side (to re-anchor the finding later:
  :mod:`.reanchor`).
- On a since-review diff (:mod:`diffchunk.review.incremental`) a finding is
  one of the review at its revision now: its new-side lines are numbered as
  in the full diff.  Lines of an interdiff section (the change as reviewed vs
  the change now) and old-side lines of a file's changes since the review
  (the file as reviewed) are not lines of the range: those are refused, with
  the advice to point at them in the full diff.

``update_finding`` may set ``open``, ``resolved`` or ``dismissed``.  An
``outdated`` finding (its lines changed after it was written) reopened says
so (``note``): its lines belong to another revision, and where they are now
in the loaded diff's commits, if anywhere (found, the finding moves there).

Findings are listed in diff order: the file's position in the loaded diff
(files not in it last, by path), then side (new first), then line (a
whole-file finding first), then id.  A finding's ``chunk`` is the chunk of the
current load holding its first line (None when the file is in no chunk, when
it is on the whole file, when that line is in no hunk of the current load, or
when its lines are numbered in another revision than the one loaded: a tool
called with an earlier load's path, a finding not found again yet).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Container, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...diff.patterns import PathQuery
from ...errors import InvalidArgument
from ...files.answer_size import json_size
from ...limits import (
    FINDING_COMMENT_CHARS,
    FINDING_MESSAGE_CHARS,
    FINDING_SUGGESTION_CHARS,
    RECORD_RESPONSE_CHARS,
    SHORT_ID,
)
from ..paging import check_page, fill_page
from . import arguments, changes, clip, memory, merge
from .changes import RecordedDiff
from .context import Context, in_review
from .file_lines import OUTSIDE, outside_hunks, where_now
from .hunk_lines import Located
from .identity import same_lines
from .model import ALL_STATUSES, SEVERITIES, SIDES, STATUSES
from .people import reviewer
from .results import Comment, Finding, FindingAdded, FindingsPage, FindingsSummary
from .store import RecordStore, default_record, now

if TYPE_CHECKING:
    from ..sessions.store import SessionStore

_IDS_PER_QUERY = 500
"""Ids one record query names at once (``IN (?, ...)``): SQLite builds before 3.32
accept at most 999 parameters in a statement."""

CLIP_MIN_CHARS = 100
"""The least a text is cut to when a page has little room left: a line or two
to recognise it."""


STATUS_FILTERS = (*ALL_STATUSES, "all")


def finding_of(
    row: sqlite3.Row, chunk: int | None = None, thread: Sequence[Comment] = ()
) -> Finding:
    return Finding(
        id=int(row["id"]),
        review_id=int(row["review_id"]),
        revision_id=row["revision_id"],
        file_path=row["file_path"],
        side=row["side"],
        line=row["line"],
        end_line=row["end_line"],
        severity=row["severity"],
        status=row["status"],
        message=row["message"],
        suggestion=row["suggestion"],
        lines=row["lines"],
        change_id=row["change_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        chunk=chunk,
        author=row["author"] or "",
        thread=tuple(thread),
        thread_total=len(thread),
    )


def threads(conn: sqlite3.Connection, finding_ids: Sequence[int]) -> dict[int, list[Comment]]:
    """The replies of each finding of ``finding_ids``, oldest first."""
    found: dict[int, list[Comment]] = {}
    for start in range(0, len(finding_ids), _IDS_PER_QUERY):
        part = finding_ids[start : start + _IDS_PER_QUERY]
        holes = ",".join("?" * len(part))
        for row in conn.execute(
            "SELECT finding_id, author, body, status, created_at FROM finding_comments "
            f"WHERE finding_id IN ({holes}) ORDER BY clock, coalesce(uid, ''), id",
            tuple(part),
        ):
            found.setdefault(int(row["finding_id"]), []).append(
                Comment(row["author"], row["body"], row["created_at"], row["status"])
            )
    return found


def with_thread(conn: sqlite3.Connection, row: sqlite3.Row, chunk: int | None = None) -> Finding:
    """The finding of ``row`` with its thread."""
    return finding_of(row, chunk, threads(conn, [int(row["id"])]).get(int(row["id"]), ()))


def author_of(ctx: Context) -> str:
    """Who writes in this call's review (:mod:`.people`)."""
    source = ctx.review.source
    return reviewer(source.repository_path if source.kind == "git" else None)


def chunk_of(loaded: RecordedDiff, path: str, side: str, line: int | None) -> int | None:
    """The chunk of the current load holding ``line`` of ``path`` on ``side``."""
    if line is None or not loaded.has(path) or loaded.file(path).excluded_reason is not None:
        return None
    return loaded.chunk_at(path, side, line)


def sort_key(loaded: RecordedDiff, finding: Finding) -> tuple[Any, ...]:
    """Diff order: the file's, then whole-file findings first, then where the lines are
    shown in the diff (a removed line before the added lines below it, as a reader and
    the exports' diffs meet them), then side (new first) and line for lines this diff
    does not show (numbered in another revision), then id."""
    order = loaded.file(finding.file_path).order if loaded.has(finding.file_path) else None
    position = None
    if order is not None and finding.line is not None and finding.chunk is not None:
        position = loaded.position(finding.file_path, finding.side, finding.line)
    return (
        order is None,
        order if order is not None else 0,
        "" if order is not None else finding.file_path,
        finding.line is not None,
        position is None,
        position or 0,
        SIDES.index(finding.side),
        finding.line or 0,
        finding.id,
    )


def row_chunk(loaded: RecordedDiff, row: sqlite3.Row, revisions: Container[int]) -> int | None:
    """The chunk of the finding ``row`` in ``loaded``, the diff of a revision whose line
    numbers are those of ``revisions`` (:func:`.identity.same_lines`): None when its
    lines are numbered in another revision (not this diff's lines)."""
    if row["revision_id"] not in revisions:
        return None
    return chunk_of(loaded, row["file_path"], row["side"], row["line"])


def in_order(
    loaded: RecordedDiff, rows: Iterable[sqlite3.Row], revisions: Container[int]
) -> list[Finding]:
    """Findings of ``rows`` with their chunks in ``loaded`` (see :func:`row_chunk`), in
    diff order."""
    found = [finding_of(row, row_chunk(loaded, row, revisions)) for row in rows]
    found.sort(key=lambda f: sort_key(loaded, f))
    return found


def findings_summary(conn: sqlite3.Connection, review_id: int) -> FindingsSummary:
    opened: dict[str, int] = {}
    closed: dict[str, int] = {}
    for status, severity, count in conn.execute(
        "SELECT status, severity, count(*) FROM findings WHERE review_id = ? "
        "GROUP BY status, severity",
        (review_id,),
    ):
        if status == "open":
            opened[severity] = count
        else:
            closed[status] = closed.get(status, 0) + count
    return FindingsSummary(
        open={s: opened.get(s, 0) for s in SEVERITIES},
        resolved=closed.get("resolved", 0),
        dismissed=closed.get("dismissed", 0),
        outdated=closed.get("outdated", 0),
    )


# --------------------------------------------------------------------------
# add_finding
# --------------------------------------------------------------------------


def _ranges(spans: list[tuple[int, int]]) -> str:
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in spans)


def _check_lines(loaded: RecordedDiff, path: str, side: str, line: int, end_line: int) -> Located:
    change = loaded.file(path)
    if not change.hunks:
        raise InvalidArgument(
            f"{path} has no hunks ({change.status}{', binary' if change.binary else ''}): "
            "there are no lines to point at.",
            suggestion="Omit line for a finding on the whole file.",
            cli_suggestion="Omit --line for a finding on the whole file.",
        )
    if change.combined and side == "old":
        raise InvalidArgument(
            f"{path} is in a merge's combined diff, whose old side belongs to several parents.",
            suggestion="Use side='new', or omit line for a finding on the whole file.",
            cli_suggestion="Use --side new, or omit --line for a finding on the whole file.",
        )
    spans = change.spans(side)
    other = "old" if side == "new" else "new"
    if not spans:
        raise InvalidArgument(
            f"{path} has no lines on the {side} side ({change.status}).",
            suggestion=f"Use side='{other}' ({other} side hunks: {_ranges(change.spans(other))}), "
            "or omit line for a finding on the whole file.",
            cli_suggestion=f"Use --side {other} ({other} side hunks: "
            f"{_ranges(change.spans(other))}), or omit --line for a finding on the whole file.",
        )
    section = loaded.since_section(path)
    if section == "interdiff" or (section == "plain" and side == "old"):
        what = (
            "an interdiff: its lines are the branch's change as reviewed and now, not lines "
            "of the file"
            if section == "interdiff"
            else "the file's changes since the review: its old side is the file as reviewed"
        )
        raise InvalidArgument(
            f"In this since-review diff, {path} is shown as {what}.",
            suggestion="Add the finding on the full review (load_git_diff without since_review, "
            "or its 'full_file_path'), on the file's lines there, or omit line for a finding "
            "on the whole file.",
            cli_suggestion="Add the finding on the full review (the range without "
            "--since-review, or the full diff's path it prints), on the file's lines there, or "
            "omit --line for a finding on the whole file.",
        )
    located = loaded.locate(path, side, line, end_line)
    if located is None:
        located = outside_hunks(loaded, path, side, line, end_line)
    if located is None:
        shown = f"Line {line}" if line == end_line else f"Lines {line}-{end_line}"
        raise InvalidArgument(
            f"{shown} of {path} {'is' if line == end_line else 'are'} not inside one hunk on the "
            f"{side} side; {side} side hunks: {_ranges(spans)}.",
            suggestion=f"Point at lines inside one hunk (one finding per hunk), use side="
            f"'{other}' for lines of the {other} version, or omit line for a finding on the "
            "whole file.",
            cli_suggestion="Point at lines inside one hunk (one finding per hunk), use --side "
            f"{other} for lines of the {other} version, or omit --line for a finding on the "
            "whole file.",
        )
    return located


def add_finding(
    absolute_file_path: str,
    file_path: str,
    message: str,
    line: int | None = None,
    end_line: int | None = None,
    side: str = "new",
    severity: str = "major",
    suggestion: str | None = None,
    force: bool = False,
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
) -> FindingAdded:
    """Record a finding on lines of one file (or on the whole file); see the module doc.
    A finding the repository's record already holds dismissed or resolved is answered
    instead (:mod:`.memory`), unless ``force``."""
    if not isinstance(force, bool):
        raise InvalidArgument(f"force must be true or false, got {force!r}.")
    side = arguments.choice("side", side, SIDES)
    severity = arguments.choice("severity", severity, SEVERITIES)
    message = arguments.text("message", message, FINDING_MESSAGE_CHARS)
    if line is None and end_line is not None:
        raise InvalidArgument("end_line needs line: pass the first line too.")
    if line is not None:
        line = arguments.positive("line", line)
        end_line = line if end_line is None else arguments.positive("end_line", end_line)
        if end_line < line:
            raise InvalidArgument(f"end_line ({end_line}) is before line ({line}).")
    if suggestion is not None:
        suggestion = arguments.text(
            "suggestion", suggestion, FINDING_SUGGESTION_CHARS, empty_ok=True
        )
        if side == "old":
            raise InvalidArgument(
                "A suggestion replaces new-side lines; an old-side finding cannot carry one.",
                suggestion="Use side='new' with the lines the suggestion replaces, or drop it.",
                cli_suggestion="Use --side new with the lines the suggestion replaces, or drop "
                "--suggestion.",
            )
        if line is None:
            raise InvalidArgument(
                "A suggestion replaces lines: give line (and end_line) on the new side."
            )
    loaded = changes.loaded(absolute_file_path, store)
    path = changes.match_file(absolute_file_path, file_path, store)
    located = None
    if line is not None and end_line is not None:
        located = _check_lines(loaded, path, side, line, end_line)
    change = loaded.file(path)

    def work(conn: sqlite3.Connection, ctx: Context) -> FindingAdded:
        text = located.text if located is not None else None
        if not force:
            earlier = memory.earlier_match(conn, ctx.review, path, side, text, message)
            if earlier is not None:
                return FindingAdded(with_thread(conn, earlier), earlier=True)
        stamp = now()
        author = author_of(ctx)
        cursor = conn.execute(
            "INSERT INTO findings (review_id, revision_id, created_revision_id, file_path, side, "
            "line, end_line, severity, status, message, suggestion, lines, change_id, "
            "context_before, context_after, created_at, updated_at, author) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                ctx.review.id,
                ctx.revision.id,
                ctx.revision.id,
                path,
                side,
                line,
                end_line,
                severity,
                message,
                suggestion,
                located.text if located is not None else None,
                change.change_id,
                located.before if located is not None else None,
                located.after if located is not None else None,
                stamp,
                stamp,
                author,
            ),
        )
        assert cursor.lastrowid is not None
        merge.finding_created(conn, cursor.lastrowid, author)
        row = conn.execute("SELECT * FROM findings WHERE id = ?", (cursor.lastrowid,)).fetchone()
        chunk = None
        if located is not None and located.offset != OUTSIDE and change.excluded_reason is None:
            chunk = loaded.chunk_of(path, located.offset)
        return FindingAdded(finding_of(row, chunk))

    return in_review(absolute_file_path, work, record=record, loaded=loaded)


# --------------------------------------------------------------------------
# update_finding, list_findings
# --------------------------------------------------------------------------


def _check_id(finding_id: object) -> None:
    if isinstance(finding_id, bool) or not isinstance(finding_id, int):
        raise InvalidArgument(f"finding_id must be an integer, got {finding_id!r}.")


def _wanted(
    finding_id: object,
    status: str | None,
    severity: str | None,
    message: str | None,
    comment: str | None = None,
) -> dict[str, str]:
    """The columns to change (and ``comment``, the reply to add), checked."""
    _check_id(finding_id)
    wanted: dict[str, str] = {}
    if status is not None:
        wanted["status"] = arguments.choice("status", status, STATUSES)
    if severity is not None:
        wanted["severity"] = arguments.choice("severity", severity, SEVERITIES)
    if message is not None:
        wanted["message"] = arguments.text("message", message, FINDING_MESSAGE_CHARS)
    if comment is not None:
        wanted["comment"] = arguments.text("comment", comment, FINDING_COMMENT_CHARS)
    if not wanted:
        raise InvalidArgument(
            "Nothing to change: pass status, severity, message or comment.",
            suggestion="e.g. status='resolved' once the problem is fixed, or 'dismissed' with "
            "comment='why'.",
        )
    return wanted


def _apply(
    conn: sqlite3.Connection, finding_id: int, wanted: dict[str, str], author: str = ""
) -> sqlite3.Row:
    columns = {k: v for k, v in wanted.items() if k != "comment"}
    stamp = now()
    sets = "".join(f"{column} = ?, " for column in columns)
    conn.execute(
        f"UPDATE findings SET {sets}updated_at = ? WHERE id = ?",
        (*columns.values(), stamp, finding_id),
    )
    reply = None
    if "comment" in wanted:
        reply = conn.execute(
            "INSERT INTO finding_comments (finding_id, author, body, status, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (finding_id, author, wanted["comment"], columns.get("status"), stamp),
        ).lastrowid
    merge.finding_changed(conn, finding_id, author, columns, reply)
    row: sqlite3.Row = conn.execute("SELECT * FROM findings WHERE id = ?", (finding_id,)).fetchone()
    return row


def update_finding(
    absolute_file_path: str,
    finding_id: int,
    status: str | None = None,
    severity: str | None = None,
    message: str | None = None,
    comment: str | None = None,
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
) -> Finding:
    """Change a finding of this diff's review: its status (open, resolved, dismissed),
    severity or message, and/or add a reply (``comment``) to its thread."""
    wanted = _wanted(finding_id, status, severity, message, comment)

    def work(conn: sqlite3.Connection, ctx: Context) -> Finding:
        row = conn.execute(
            "SELECT id FROM findings WHERE id = ? AND review_id = ?", (finding_id, ctx.review.id)
        ).fetchone()
        if row is None:
            raise InvalidArgument(
                f"This review ({ctx.review.source.label}) has no finding {finding_id}.",
                suggestion="list_findings(status='all') lists its findings and their ids.",
            )
        note = None
        if wanted.get("status") == "open" and _status(conn, finding_id) == "outdated":
            note = _reopened(conn, finding_id, ctx)
        row = _apply(conn, finding_id, wanted, author_of(ctx))
        found = with_thread(conn, row, row_chunk(ctx.loaded, row, same_lines(conn, ctx.revision)))
        return replace(found, note=note) if note is not None else found

    return in_review(absolute_file_path, work, store=store, record=record)


def _status(conn: sqlite3.Connection, finding_id: int) -> str | None:
    row = conn.execute("SELECT status FROM findings WHERE id = ?", (finding_id,)).fetchone()
    return None if row is None else str(row["status"])


def _reopened(conn: sqlite3.Connection, finding_id: int, ctx: Context | None) -> str:
    """An outdated finding reopened: its lines are those of another revision; where they
    are now in this diff's commits (the finding then moves there), if anywhere."""
    row = conn.execute(
        "SELECT f.*, v.head AS rev_head FROM findings f LEFT JOIN revisions v "
        "ON v.id = f.revision_id WHERE f.id = ?",
        (finding_id,),
    ).fetchone()
    at = f"commit {row['rev_head'][:SHORT_ID]}" if row["rev_head"] else "another revision"
    if row["line"] is None:
        return f"Reopened: it was written on {at}, on the whole of {row['file_path']}."
    if ctx is None:
        return (
            f"Reopened: its lines belong to {at}, not to the range as it is now; load the "
            "range and list it to see where they are."
        )
    now = where_now(ctx.loaded, row["file_path"], row["side"], row["lines"])
    if now is None:
        return (
            f"Reopened: its lines belong to {at}; they are nowhere in {row['file_path']} "
            f"({row['side']} side) now, so its line numbers are those of that revision."
        )
    conn.execute(
        "UPDATE findings SET revision_id = ?, line = ?, end_line = ? WHERE id = ?",
        (ctx.revision.id, now[0], now[1], finding_id),
    )
    span = f"line {now[0]}" if now[0] == now[1] else f"lines {now[0]}-{now[1]}"
    return f"Reopened: its lines were those of {at}; they are now at {row['side']} {span}."


def update_finding_by_id(
    finding_id: int,
    status: str | None = None,
    severity: str | None = None,
    message: str | None = None,
    comment: str | None = None,
    *,
    record: RecordStore | None = None,
) -> Finding:
    """Change a finding named by its id alone (ids are unique in the record)."""
    return update_findings_by_id([finding_id], status, severity, message, comment, record=record)[0]


def update_findings_by_id(
    finding_ids: Sequence[int],
    status: str | None = None,
    severity: str | None = None,
    message: str | None = None,
    comment: str | None = None,
    *,
    record: RecordStore | None = None,
) -> list[Finding]:
    """Change findings named by their ids, all or none: every id is checked (it exists;
    an outdated finding is not reopened) before any is changed, in one transaction."""
    if not finding_ids:
        raise InvalidArgument("Name at least one finding id.")
    for finding_id in finding_ids:
        _check_id(finding_id)
    wanted = _wanted(finding_ids[0], status, severity, message, comment)

    def work(conn: sqlite3.Connection) -> list[Finding]:
        holes = ",".join("?" * len(finding_ids))
        known = {
            int(row["id"])
            for row in conn.execute(f"SELECT id FROM findings WHERE id IN ({holes})", finding_ids)
        }
        missing = [i for i in dict.fromkeys(finding_ids) if i not in known]
        if missing:
            raise InvalidArgument(
                f"The review record has no finding {', '.join(map(str, missing))}; "
                "no finding was changed.",
                suggestion="`diffchunk finding list <range or diff file> --status all` lists "
                "a review's findings and their ids.",
            )
        notes = {
            i: _reopened(conn, i, None)
            for i in finding_ids
            if wanted.get("status") == "open" and _status(conn, i) == "outdated"
        }
        rows = [_apply(conn, i, wanted, _author_of_finding(conn, i)) for i in finding_ids]
        return [replace(with_thread(conn, r), note=notes.get(int(r["id"]))) for r in rows]

    return (record if record is not None else default_record()).write(work)


def _author_of_finding(conn: sqlite3.Connection, finding_id: int) -> str:
    """Who writes on a finding named by id: the reviewer of its review's repository."""
    row = conn.execute(
        "SELECT r.kind, r.repository_path FROM findings f JOIN reviews r ON r.id = f.review_id "
        "WHERE f.id = ?",
        (finding_id,),
    ).fetchone()
    git_review = row is not None and row["kind"] == "git"
    return reviewer(row["repository_path"] if git_review else None)


def _shortened_finding(finding: Finding, size: int, room: int) -> tuple[Finding, int]:
    """A finding larger than a response even with its lines and suggestion cut (a long
    message of characters that JSON escapes): its message cut too, until it fits."""
    shortened, limit = finding, len(finding.message)
    while size > room and limit > CLIP_MIN_CHARS:
        limit //= 2
        message = clip.clip(finding.message, max_chars=limit)[0] or ""
        shortened = replace(finding, message=message)
        size = json_size(shortened.to_dict())
    return shortened, size


def list_findings(
    absolute_file_path: str,
    status: str = "open",
    severity: str | None = None,
    file_pattern: str | None = None,
    offset: int = 0,
    limit: int | None = None,
    author: str | None = None,
    *,
    store: SessionStore | None = None,
    record: RecordStore | None = None,
    max_chars: int | None = RECORD_RESPONSE_CHARS,
) -> FindingsPage:
    """The review's findings in diff order, filtered and paged (``next_offset``);
    ``author``: only those whose author holds this text (any case)."""
    if author is not None and not isinstance(author, str):
        raise InvalidArgument(f"author must be text, got {author!r}.")
    who = author.strip().casefold() if author is not None else ""
    wanted_status = arguments.choice("status", status, STATUS_FILTERS)
    severities: tuple[str, ...] = SEVERITIES
    if severity is not None:
        if not isinstance(severity, str):
            raise InvalidArgument(f"severity must be text, got {severity!r}.")
        named = tuple(
            arguments.choice("severity", s, SEVERITIES) for s in severity.split(",") if s.strip()
        )
        severities = named or SEVERITIES  # blank ("", " ", ","): unset, as file_pattern
    query = None
    if file_pattern is not None and str(file_pattern).strip():
        query = PathQuery(file_pattern, name="file_pattern")

    def work(conn: sqlite3.Connection, ctx: Context) -> FindingsPage:
        rows = conn.execute(
            "SELECT * FROM findings WHERE review_id = ? ORDER BY id", (ctx.review.id,)
        ).fetchall()
        files = None
        if query is not None:
            files = set(query.select(dict.fromkeys(row["file_path"] for row in rows)))
        kept = [
            row
            for row in rows
            if (wanted_status == "all" or row["status"] == wanted_status)
            and row["severity"] in severities
            and (files is None or row["file_path"] in files)
            and (not who or who in (row["author"] or "").casefold())
        ]
        found = in_order(ctx.loaded, kept, same_lines(conn, ctx.revision))
        check_page(offset, limit, len(found), "findings")
        end = len(found) if limit is None else min(len(found), offset + limit)
        replies = threads(conn, [f.id for f in found[offset:end]])
        for i in range(offset, end):
            thread = replies.get(found[i].id)
            if thread:
                found[i] = replace(found[i], thread=tuple(thread), thread_total=len(thread))
        page, stop = fill_page(
            lambda i: (found[i], json_size(found[i].to_dict())),
            offset,
            end,
            max_chars,
            shorten=_shortened_finding,
        )
        return FindingsPage(
            findings=tuple(page),
            total=len(found),
            next_offset=stop if stop < len(found) else None,
        )

    return in_review(absolute_file_path, work, store=store, record=record, writes=False)
