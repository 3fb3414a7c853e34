"""``diffchunk sync``: one review record for everyone who reviews a repository, through
its git remote, with no server.

Each record keeps, per repository, a log of its own operations
(:mod:`.oplog`) and publishes it on the remote as the ref
``refs/diffchunk/log/<actor>`` (``actor``: this record's random name for that
repository, :func:`actor`): a commit whose tree holds one file,
``ops.jsonl``.  A sync (:func:`sync`):

1. fetches every ``refs/diffchunk/log/*`` of the remote (into diffchunk's own
   sync repository, :mod:`diffchunk.git.transport`: never the user's), at most
   :data:`SYNC_FETCH_MAX_BYTES` of pack (past it the fetch is stopped and the sync
   refused);
2. reads each other log that moved since it was last applied, bounded and checked
   (:func:`_read_logs`: at most :data:`SYNC_LOGS_MAX` logs and
   :data:`SYNC_READ_MAX_BYTES` a sync, the others left for the next; each log at most
   :data:`~diffchunk.limits.SYNC_LOG_MAX_BYTES`; a log that is not valid is
   refused whole and named in the answer, the others are applied).  A refused
   log's commit is remembered with why (``sync_seen.refused``): it is read again
   only when it moves, and said refused again, unread, until then;
3. applies their new operations (:mod:`.merge`) and writes this record's own
   log, in one write of the record;
4. commits that log (when it changed) and pushes it to the remote, force
   (the ref is this record's alone).

Every clone that syncs ends with the union of everyone's operations, and
the merge rule makes equal unions equal records; syncing again changes
nothing.  The remote is ``REMOTE`` (a remote's name, or a URL), else the one
a push of the current branch goes to (:func:`~diffchunk.git.remotes.default_remote`);
its URL is read from the repository's config by diffchunk's parser
(``remote.<name>.pushurl`` for the push, ``remote.<name>.url``).

Only the CLI (``diffchunk sync``) and the pre-push hook
(``git config diffchunk.sync true``) call this module: the MCP server and the
review page may not import it (``pyproject.toml``).
"""

from __future__ import annotations

import os
import re
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from ...errors import GitError, RecordLogRefused
from ...git.remotes import default_remote, public_url, remote_url
from ...git.repo import Repo, discover
from ...git.transport import TransportCommand, transport_command
from ...limits import SYNC_LOG_MAX_BYTES
from . import merge, oplog
from .public import repository_name
from .store import RecordStore, default_record

LOG_REFS = "refs/diffchunk/log/"
FETCHED = "refs/diffchunk/fetched/"
LOG_FILE = "ops.jsonl"
_ACTOR = re.compile(r"[0-9a-f]{32}")
_COMMITTER = {
    "GIT_AUTHOR_NAME": "diffchunk",
    "GIT_AUTHOR_EMAIL": "diffchunk@localhost",
    "GIT_COMMITTER_NAME": "diffchunk",
    "GIT_COMMITTER_EMAIL": "diffchunk@localhost",
}

SYNC_LOGS_MAX = 1_000
"""Most reviewers' logs one sync reads (those that moved): more is a remote filled to
hurt; the others wait for the next sync."""

SYNC_READ_MAX_BYTES = SYNC_LOG_MAX_BYTES
"""Most bytes of logs one sync holds in memory: the largest log read alone, where a
thousand logs of that size (well compressed in a pack) would be a thousand times it."""

SYNC_FETCH_MAX_BYTES = SYNC_LOG_MAX_BYTES
"""Most bytes of pack one sync fetches (the file the fetch writes): a sync reads at most
SYNC_READ_MAX_BYTES of logs, which git compresses several times over in a pack, and
only what moved is sent; a remote sending more is filled to hurt, and the fetch is
stopped there (the time limit is the transport's, SYNC_GIT_TIME_LIMIT)."""


@dataclass(frozen=True, slots=True)
class SyncResult:
    """What a sync did (``remote``: as named; ``url``: without credentials)."""

    remote: str
    url: str
    logs: int  # other reviewers' logs read (those that moved since the last sync)
    applied: merge.Applied
    published: int  # operations in this record's log
    published_bytes: int
    refused: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "remote": self.remote,
            "url": self.url,
            "logs_read": self.logs,
            "operations": self.applied.to_dict(),
            "published": self.published,
            "published_bytes": self.published_bytes,
            "refused": list(self.refused),
        }


def sync(
    repo_path: str, remote: str | None = None, *, record: RecordStore | None = None
) -> SyncResult:
    """Publish this record's review log of the repository at ``repo_path`` to its remote
    and apply everyone else's (see the module doc)."""
    repo = discover(repo_path)
    name = remote or default_remote(repo)
    fetch_url, push_url = _urls(repo, name)
    target = record if record is not None else default_record()
    me = actor(target, repo.common_dir)
    git = transport_command(repo.common_dir)
    _fetch(git, fetch_url)
    seen = target.read(lambda conn: _seen(conn, repo.common_dir))
    read = _read_logs(git, me, seen)
    logs = read.logs
    public = repository_name(repo.path)

    def work(conn: sqlite3.Connection) -> tuple[merge.Applied, bytes, int]:
        ops = [op for _, _, found in logs for op in found]
        applied = merge.apply(conn, ops, repo.common_dir, repo.path)
        conn.executemany(
            "INSERT OR REPLACE INTO sync_seen (repository, log, commit_id, refused) "
            "VALUES (?, ?, ?, ?)",
            [(repo.common_dir, name, commit, None) for name, commit, _ in logs]
            + [(repo.common_dir, name, commit, why) for name, commit, why in read.refused_logs],
        )
        oplog.review_ops(conn, repo.common_dir)
        own = list(oplog.ops_of(conn, repo.common_dir, local_only=True))
        return applied, oplog.render(public, own), len(own)

    applied, data, count = target.write(work)
    _publish(git, push_url, me, data)
    shown = public_url(push_url) or os.path.basename(push_url.rstrip("/")) or name
    return SyncResult(name, shown, len(logs), applied, count, len(data), tuple(read.refused))


def actor(record: RecordStore, common_dir: str) -> str:
    """This record's name for its log of the repository at ``common_dir``."""

    def work(conn: sqlite3.Connection) -> str:
        row = conn.execute(
            "SELECT actor FROM sync_actors WHERE repository = ?", (common_dir,)
        ).fetchone()
        if row is not None:
            return str(row[0])
        name = oplog.new_uid()
        conn.execute(
            "INSERT INTO sync_actors (repository, actor) VALUES (?, ?)", (common_dir, name)
        )
        return name

    return record.write(work)


def _urls(repo: Repo, name: str) -> tuple[str, str]:
    """``(fetch URL, push URL)`` of the remote ``name`` (or of ``name`` as a URL)."""
    url = remote_url(repo, name)
    if url is None:
        if "://" in name or os.path.isabs(name) or ":" in name:
            return name, name
        raise GitError(
            f"The repository has no remote {name!r} to sync the review record with.",
            suggestion="Name one (`diffchunk sync REMOTE`), or add it (`git remote add "
            "origin URL`).",
        )
    item = repo.setting(f"remote.{name}.pushurl")
    push = item.value if item is not None and item.value else url
    return _absolute(repo, url), _absolute(repo, push)


def _absolute(repo: Repo, url: str) -> str:
    """A relative path of a local remote, from the repository's directory as git reads it."""
    if "://" in url or os.path.isabs(url) or (":" in url and not url.startswith(".")):
        return url
    return os.path.normpath(os.path.join(repo.path, url))


def _fetch(git: TransportCommand, url: str) -> None:
    git.fetch(
        ["--quiet", "--no-tags", "--prune", "--end-of-options", url, f"+{LOG_REFS}*:{FETCHED}*"],
        max_bytes=SYNC_FETCH_MAX_BYTES,
        what="git fetch of the review logs",
    )


@dataclass(frozen=True, slots=True)
class _Seen:
    """A log as the last sync that read it left it: its commit, and why it was refused
    (None: applied)."""

    commit: str
    refused: str | None


def _seen(conn: sqlite3.Connection, repository: str) -> dict[str, _Seen]:
    return {
        str(r[0]): _Seen(str(r[1]), None if r[2] is None else str(r[2]))
        for r in conn.execute(
            "SELECT log, commit_id, refused FROM sync_seen WHERE repository = ?", (repository,)
        )
    }


@dataclass(frozen=True, slots=True)
class _Read:
    """What :func:`_read_logs` found: the logs to apply ``(name, commit, ops)``, the logs
    refused now ``(name, commit, why)`` (remembered), and every refusal to say."""

    logs: list[tuple[str, str, list[oplog.Op]]]
    refused_logs: list[tuple[str, str, str]]
    refused: list[str]


def _read_logs(git: TransportCommand, me: str, seen: dict[str, _Seen]) -> _Read:
    """The other reviewers' logs fetched that moved since last read (``seen``), each
    checked, with their commits; and those refused, with why.  One sync reads at most
    :data:`SYNC_LOGS_MAX` of them and :data:`SYNC_READ_MAX_BYTES` in all, by name; the
    others are left for the next sync (those read are then seen, refused or not).  A
    log refused at an earlier sync that has not moved is not read: it is said refused
    again, in one line for all of them."""
    listed = git.text(["for-each-ref", "--format=%(refname) %(objectname)", FETCHED]).splitlines()
    moved, misnamed, still = [], [], []
    for entry in sorted(listed):
        ref, _, commit = entry.rpartition(" ")
        name = ref[len(FETCHED) :]
        last = seen.get(name)
        if not _ACTOR.fullmatch(name):
            misnamed.append(name)
        elif name == me:
            continue
        elif last is None or last.commit != commit:
            moved.append((ref, name, commit))
        elif last.refused is not None:
            still.append((name, last.refused))
    found = _Read([], [], [_misnamed(misnamed)] if misnamed else [])
    if still:
        found.refused.append(_still_refused(still))
    left = SYNC_READ_MAX_BYTES
    for done, (ref, name, commit) in enumerate(moved):
        if done == SYNC_LOGS_MAX:
            found.refused.append(_left_over(len(moved) - done))
            break
        try:
            length = _log_size(git, ref, f"{LOG_REFS}{name}")
            if length > left:
                found.refused.append(_left_over(len(moved) - done))
                break
            left -= length
            found.logs.append((name, commit, _read_log(git, ref, name)))
        except RecordLogRefused as exc:
            found.refused.append(exc.message)
            found.refused_logs.append((name, commit, exc.message))
    return found


def _still_refused(still: list[tuple[str, str]]) -> str:
    """One line for the logs refused at an earlier sync that have not moved since."""
    name, why = still[0]
    if len(still) == 1:
        return f"{why} (Refused at an earlier sync: it is read again when it moves.)"
    return (
        f"{len(still):,} review logs refused at earlier syncs have not moved and were not "
        f"read again; each is read again when it moves. The first, {LOG_REFS}{name}: {why}"
    )


def _left_over(count: int) -> str:
    return (
        f"{count:,} more review logs were left for the next sync (one sync reads at most "
        f"{SYNC_LOGS_MAX:,} logs and {SYNC_READ_MAX_BYTES:,} bytes); sync again to read them"
    )


def _misnamed(names: list[str]) -> str:
    more = f" (and {len(names) - 1:,} more)" if len(names) > 1 else ""
    return (
        f"The review log {LOG_REFS}{names[0]}{more} was refused: its name is not one "
        "diffchunk gives. Nothing of it was applied."
    )


def _log_size(git: TransportCommand, ref: str, where: str) -> int:
    """The bytes of the log at ``ref`` (``where`` on the remote), refused
    (:class:`RecordLogRefused`) when it holds no log of at most SYNC_LOG_MAX_BYTES."""
    found = git.text(
        ["cat-file", "--batch-check=%(objecttype) %(objectsize)"],
        input=f"{ref}:{LOG_FILE}\n".encode(),
    ).split()
    if len(found) != 2 or found[0] != "blob":  # missing, or a tree or link in its place
        raise RecordLogRefused(
            f"The review log {where} was refused: it holds no {LOG_FILE}. Nothing of it "
            "was applied."
        )
    length = int(found[1])
    if length > SYNC_LOG_MAX_BYTES:
        raise RecordLogRefused(
            f"The review log {where} was refused: it holds {length:,} bytes (at most "
            f"{SYNC_LOG_MAX_BYTES:,}). Nothing of it was applied."
        )
    return length


def _read_log(git: TransportCommand, ref: str, name: str) -> list[oplog.Op]:
    data = git.run(["cat-file", "blob", f"{ref}:{LOG_FILE}"]).stdout
    return oplog.parse(data, f"{LOG_REFS}{name}")


def _publish(git: TransportCommand, url: str, me: str, data: bytes) -> None:
    """Commit ``data`` as this record's log (when it changed) and push it."""
    ref = f"{LOG_REFS}{me}"
    blob = git.text(["hash-object", "-w", "--stdin"], input=data)
    tree = git.text(["mktree"], input=f"100644 blob {blob}\t{LOG_FILE}\n".encode())
    parent = git.run(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], check=False)
    head = parent.stdout.decode().strip() if parent.returncode == 0 else None
    if head is None or git.text(["rev-parse", f"{head}^{{tree}}"]) != tree:
        args = ["commit-tree", tree, "-m", "diffchunk review log"]
        if head is not None:
            args += ["-p", head]
        commit = git.text(args, env_extra=_COMMITTER)
        git.run(["update-ref", ref, commit])
    git.run(
        ["push", "--quiet", "--no-verify", "--end-of-options", url, f"+{ref}:{ref}"],
        what="git push of the review log",
    )
