"""The lines of a changed file outside its hunks, for a finding there.

A finding may sit on any line of a changed file at its side (a caller a
change breaks, a line the change should have touched), not only inside a
hunk.  For a range of two commits the file is read whole from the commit of
that side (the head for ``new``, the base for ``old``: its old path for a
rename), with ``git cat-file`` through the repository the diff's sidecar names
(in a bare repository too); the finding keeps the lines' text and up to
:data:`~.hunk_lines.CONTEXT_LINES` lines around them, as one inside a
hunk does, so it is re-anchored by content as any other.  A diff file, the
working tree and the index offer no such lines (None: the caller says to point
inside a hunk).
"""

from __future__ import annotations

from ...diff.paths import encode_path
from ...errors import InvalidArgument
from ...limits import SHORT_ID
from ..sessions.sidecar import range_of
from .changes import RecordedDiff
from .hunk_lines import CONTEXT_LINES, Located

OUTSIDE = -1  # the offset of lines that are in no hunk of the diff


def side_lines(loaded: RecordedDiff, path: str, side: str) -> tuple[str, list[str]] | None:
    """``(commit, lines)`` of ``path`` on ``side`` of a range of commits; None for another
    diff, or when that commit has no such file."""
    if loaded.since is not None or not loaded.has(path):
        return None
    recorded = range_of(loaded.path)
    if recorded is None or recorded.head is None or recorded.staged:
        return None
    commit = recorded.head if side == "new" else recorded.base
    if commit is None:
        return None
    change = loaded.file(path)
    name = (change.old_path or path) if side == "old" else path
    from ...git.history import read_files  # only a finding outside the hunks reads a file
    from ...git.repo import discover

    (content,) = read_files(discover(recorded.repo), [(commit, encode_path(name))])
    if content is None:
        return None
    return commit, content.decode("utf-8", "replace").splitlines(keepends=True)


def outside_hunks(
    loaded: RecordedDiff, path: str, side: str, line: int, end_line: int
) -> Located | None:
    """Lines ``line``..``end_line`` of ``path`` as the commit of ``side`` has them, when
    the diff is a range of commits that has the file on that side; else None."""
    found = side_lines(loaded, path, side)
    if found is None:
        return None
    commit, lines = found
    if end_line > len(lines):
        raise InvalidArgument(
            f"{path} has {len(lines)} lines on the {side} side (commit {commit[:SHORT_ID]}); "
            f"line {end_line} is past its end.",
            suggestion="Point at lines of the file as it is on that side, or omit line for a "
            "finding on the whole file.",
            cli_suggestion="Point at lines of the file as it is on that side, or omit --line "
            "for a finding on the whole file.",
        )
    first = line - 1
    return Located(
        text="".join(lines[first:end_line]),
        offset=OUTSIDE,
        before="".join(lines[max(0, first - CONTEXT_LINES) : first]),
        after="".join(lines[end_line : end_line + CONTEXT_LINES]),
    )


def where_now(
    loaded: RecordedDiff, path: str, side: str, text: str | None
) -> tuple[int, int] | None:
    """Where the lines ``text`` are in ``path`` on ``side`` of this diff's commits (the
    first place, trailing whitespace aside); None when nowhere or unknown."""
    wanted = [line.rstrip() for line in (text or "").splitlines()]
    found = side_lines(loaded, path, side) if wanted else None
    if found is None:
        return None
    lines = [line.rstrip() for line in found[1]]
    for start in range(len(lines) - len(wanted) + 1):
        if lines[start : start + len(wanted)] == wanted:
            return start + 1, start + len(wanted)
    return None
