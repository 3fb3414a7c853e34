"""``diffchunk record export`` and ``import``: a repository's review log as a file, in
the format ``diffchunk sync`` publishes (:mod:`.oplog`).

:func:`export_log` writes every operation the record holds of the repository
(its own and those read from others), by ``(clock, id)``: a file another
record imports, or another tool reads.  :func:`import_log` checks a log as a
remote's is checked (refused whole when anything in it is not as written
here) and applies its new operations (:mod:`.merge`); importing a log twice,
or one's own, changes nothing.  Neither touches the network.
"""

from __future__ import annotations

import sqlite3

from ...git.repo import discover
from . import merge, oplog
from .public import repository_name
from .store import RecordStore, default_record


def export_log(repo_path: str, *, record: RecordStore | None = None) -> bytes:
    """The review log of the repository at ``repo_path``: every operation the record holds."""
    repo = discover(repo_path)
    target = record if record is not None else default_record()

    def work(conn: sqlite3.Connection) -> bytes:
        oplog.review_ops(conn, repo.common_dir)
        ops = list(oplog.ops_of(conn, repo.common_dir, local_only=False))
        return oplog.render(repository_name(repo.path), ops)

    return target.write(work)


def import_log(
    repo_path: str, data: bytes, where: str, *, record: RecordStore | None = None
) -> merge.Applied:
    """Apply the review log ``data`` (read from ``where``) to the record of the repository
    at ``repo_path``."""
    repo = discover(repo_path)
    ops = oplog.parse(data, where)
    target = record if record is not None else default_record()
    return target.write(lambda conn: merge.apply(conn, ops, repo.common_dir, repo.path))
