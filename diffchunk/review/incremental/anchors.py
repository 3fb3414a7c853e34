"""Re-anchor a review's open findings in the revision just loaded (the rules are in
:mod:`diffchunk.review.record.reanchor`).

For a range of two commits a finding is looked for in its file as the new
revision has it: the new side in the head commit, the old side in the base
commit (the whole file, read with ``git cat-file``), so a line that a shorter
context or another cut of the hunks would leave out is still found.  For the
working tree and the index, the lines the new diff's hunks show are searched.
"""

from __future__ import annotations

import sqlite3

from ...diff.paths import encode_path
from ...git.history import read_files
from ...git.repo import Repo
from ..record.changes import RecordedDiff
from ..record.reanchor import Outcome, Runs, apply, file_now, side_exists, stale_findings
from ..record.store import RecordStore


def _wanted(
    rows: list[sqlite3.Row], loaded: RecordedDiff, base: str | None, head: str
) -> list[tuple[int, str, bytes]]:
    """``(finding id, commit, path)`` of the file text each line finding needs."""
    wanted = []
    for row in rows:
        if row["line"] is None:
            continue
        path = file_now(loaded, row["file_path"])
        if path is None or not side_exists(loaded, path, row["side"]):
            continue
        if row["side"] == "new":
            wanted.append((int(row["id"]), head, encode_path(path)))
        elif base is not None:
            source = loaded.file(path).old_path or path
            wanted.append((int(row["id"]), base, encode_path(source)))
    return wanted


def file_texts(
    repo: Repo, rows: list[sqlite3.Row], loaded: RecordedDiff, base: str | None, head: str
) -> dict[int, Runs | None]:
    """Per line finding, its file's lines on its side in ``base``/``head`` (one run
    from line 1; no run when the commit has no such file; None when the path
    cannot be read, see :func:`~diffchunk.git.history.read_files`)."""
    wanted = _wanted(rows, loaded, base, head)
    contents = read_files(repo, [(commit, path) for _, commit, path in wanted])
    texts: dict[int, Runs | None] = {}
    for (fid, _, path), content in zip(wanted, contents, strict=True):
        if content is None:
            texts[fid] = None if b"\n" in path or b"\r" in path else []
            continue
        lines = content.decode("utf-8", "replace").splitlines(keepends=True)
        texts[fid] = [(1, lines)]
    return texts


def reanchor(
    record: RecordStore,
    review_id: int,
    revision_id: int,
    loaded: RecordedDiff,
    repo: Repo | None = None,
    base: str | None = None,
    head: str | None = None,
    *,
    wait: float | None = None,
) -> Outcome:
    """Re-anchor the review's open findings that are anchored in another revision
    than ``revision_id`` (whose diff is ``loaded``): in the commits' files when
    ``repo`` and ``head`` are given, else in the diff's hunks (``wait``: for the
    record's write lock, as :meth:`RecordStore.write` takes it)."""
    rows = record.read(lambda conn: stale_findings(conn, review_id, revision_id))
    if not rows:
        return Outcome()
    texts: dict[int, Runs | None] = {}
    if repo is not None and head is not None:
        texts = file_texts(repo, rows, loaded, base, head)
        for row in rows:  # an old-side finding of a range from the empty tree
            if row["line"] is not None and int(row["id"]) not in texts:
                texts[int(row["id"])] = []
    return record.write(lambda conn: apply(conn, review_id, revision_id, loaded, texts), wait=wait)
