"""Findings follow the branch: an open finding of an earlier revision is found again in
the revision loaded now, or becomes ``outdated``.

A finding keeps the text of the lines it points at (``lines``) and up to three
lines on each side of them (``context_before``/``context_after``), as they
were on its side (``new``: the branch's version of the file; ``old``: the
base's).  When a later revision of its review is loaded
(:func:`find_again` for one finding, :func:`apply` for the review):

- its file is looked up in the new revision's diff by path, else as the old
  path of a renamed file; a file no longer in the diff (the branch stopped
  changing it, or dropped it), or without that side any more (a file the
  branch now deletes has no new side), makes it ``outdated``;
- a whole-file finding stays open while its file is in the diff;
- a line finding is looked for in the file's text on its side in the new
  revision (given by the caller: the whole file as of the new commit, or the
  lines the diff's hunks show): every place where its lines appear, exactly
  (line ends aside), is a candidate.  A candidate's score is the number of its
  neighbouring lines equal to the kept context, counted outwards from the
  lines until the first that differs, on each side.  When context was kept,
  a candidate needs a score of at least 1 (a ``}`` found elsewhere is not the
  line that was meant).  The best score wins; on a tie, the place nearest to
  the old line number.  Found: it stays ``open`` at the new line numbers,
  with the context as it is now, and its ``revision_id`` becomes the new
  revision.  Not found (the lines were edited or deleted): ``outdated``,
  keeping its old anchor, text and revision.

Resolved and dismissed findings are left as they are, and so are outdated
ones (a reviewer may reopen or close them).  A finding whose file's text could
not be read (a path git's batch input cannot name) is left as it is, to be
tried again at the next load.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .changes import RecordedDiff
from .hunk_lines import CONTEXT_LINES
from .store import now

# The lines of one side of one file: runs of consecutive lines, each
# ``(first line number, texts)``; one run for a whole file.
Runs = Sequence[tuple[int, Sequence[str]]]


@dataclass(frozen=True, slots=True)
class Place:
    """Where a finding's lines are now, and the context around them there."""

    line: int
    end_line: int
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """What re-anchoring did to a review's open findings (ids)."""

    moved: tuple[int, ...] = ()  # open at the new revision (lines found, maybe shifted)
    outdated: tuple[int, ...] = ()
    left: tuple[int, ...] = ()  # not tried (the file's text could not be read)


def _bare(line: str) -> str:
    return line[:-1] if line.endswith("\n") else line


def _split(text: str | None) -> list[str]:
    return [_bare(line) for line in (text or "").splitlines(keepends=True)]


def _score(lines: Sequence[str], at: int, count: int, before: list[str], after: list[str]) -> int:
    """How many kept context lines the neighbours of ``lines[at:at+count]`` repeat."""
    score = 0
    for k, want in enumerate(reversed(before), 1):
        if at - k < 0 or lines[at - k] != want:
            break
        score += 1
    for k, want in enumerate(after):
        i = at + count + k
        if i >= len(lines) or lines[i] != want:
            break
        score += 1
    return score


def find_again(
    text: str, before: str | None, after: str | None, old_line: int, runs: Runs
) -> Place | None:
    """Where ``text`` (with ``before``/``after`` around it) is in ``runs`` now, or None
    (see the module doc for the rules)."""
    wanted = _split(text)
    if not wanted:
        return None
    kept_before, kept_after = _split(before), _split(after)
    need = 1 if kept_before or kept_after else 0
    count = len(wanted)
    best: tuple[int, int] | None = None  # (-score, distance from the old line)
    found: tuple[int, int, Sequence[str]] | None = None  # (first line, index, run)
    for first, raw in runs:
        lines = [_bare(line) for line in raw]
        for at in range(len(lines) - count + 1):
            if lines[at] != wanted[0] or lines[at : at + count] != wanted:
                continue
            score = _score(lines, at, count, kept_before, kept_after)
            key = (-score, abs(first + at - old_line))
            if score >= need and (best is None or key < best):
                best, found = key, (first, at, raw)
    if found is None:
        return None
    first, at, raw = found
    start = max(0, at - CONTEXT_LINES)
    return Place(
        line=first + at,
        end_line=first + at + count - 1,
        before="".join(raw[start:at]),
        after="".join(raw[at + count : at + count + CONTEXT_LINES]),
    )


def stale_findings(conn: sqlite3.Connection, review_id: int, revision_id: int) -> list[sqlite3.Row]:
    """The open findings of a review anchored in another revision than ``revision_id``."""
    return conn.execute(
        "SELECT * FROM findings WHERE review_id = ? AND status = 'open' "
        "AND (revision_id IS NULL OR revision_id != ?) ORDER BY id",
        (review_id, revision_id),
    ).fetchall()


def file_now(loaded: RecordedDiff, path: str) -> str | None:
    """The path of the new diff that ``path`` (a finding's file) is now: itself, else a
    file renamed from it; None when the diff no longer holds it."""
    if loaded.has(path):
        return path
    for candidate in loaded.paths():
        if loaded.file(candidate).old_path == path:
            return candidate
    return None


def side_exists(loaded: RecordedDiff, path: str, side: str) -> bool:
    """Whether the file ``path`` of the diff has a ``side`` at all (an added file has
    no old side, a deleted one no new side)."""
    status = loaded.file(path).status
    return not (side == "new" and status == "deleted") and not (side == "old" and status == "added")


def apply(
    conn: sqlite3.Connection,
    review_id: int,
    revision_id: int,
    loaded: RecordedDiff,
    texts: Mapping[int, Runs | None],
) -> Outcome:
    """Re-anchor every open finding of the review not anchored in ``revision_id``
    (inside a write).  ``loaded`` is the diff of that revision; ``texts`` gives, per
    finding id, the lines of its file's side now (None: could not be read; a finding
    missing from ``texts`` is looked for in the diff's hunks)."""
    moved, outdated, left = [], [], []
    stamp = now()
    for row in stale_findings(conn, review_id, revision_id):
        fid = int(row["id"])
        path = file_now(loaded, row["file_path"])
        if path is None or (row["line"] is not None and not side_exists(loaded, path, row["side"])):
            conn.execute(
                "UPDATE findings SET status = 'outdated', updated_at = ? WHERE id = ?",
                (stamp, fid),
            )
            outdated.append(fid)
            continue
        if row["line"] is None:
            conn.execute(
                "UPDATE findings SET file_path = ?, revision_id = ? WHERE id = ?",
                (path, revision_id, fid),
            )
            moved.append(fid)
            continue
        runs = texts[fid] if fid in texts else loaded.side_lines(path, row["side"])
        if runs is None:
            left.append(fid)
            continue
        place = find_again(
            row["lines"] or "", row["context_before"], row["context_after"], row["line"], runs
        )
        if place is None:
            conn.execute(
                "UPDATE findings SET status = 'outdated', updated_at = ? WHERE id = ?",
                (stamp, fid),
            )
            outdated.append(fid)
            continue
        conn.execute(
            "UPDATE findings SET file_path = ?, line = ?, end_line = ?, revision_id = ?, "
            "context_before = ?, context_after = ? WHERE id = ?",
            (path, place.line, place.end_line, revision_id, place.before, place.after, fid),
        )
        moved.append(fid)
    return Outcome(tuple(moved), tuple(outdated), tuple(left))
