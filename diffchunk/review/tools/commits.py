"""``list_commits``: the commits a diff holds — of its range, or of its stream.

- **A range** (a diff written by ``load_git_diff``; its sidecar names the
  repository, base and head): ``git log base..head`` (:mod:`diffchunk.git.log`),
  limited to the paths the range was limited to, and to ``file_path`` when
  given (a renamed file: its old path too, renames are not followed).  A
  review of the working tree or the index against a commit shows the
  commits from that commit to ``HEAD`` (the uncommitted changes are no
  commit); against ``HEAD`` there are none.
- **A since-review diff** (``load_git_diff(..., since_review=True)``; its
  companion record names the reviewed head and the range now): the commits
  of ``base..head`` that the reviewed head did not hold, ``git log head
  ^base ^reviewed`` (new commits on top; after an amend or a rebase, the
  rewritten ones), labelled as such (``since_review``, with the full diff's
  path when the record knows it: its ``list_commits`` lists them all).
- **A ``git log -p`` or ``format-patch`` stream**: the commits it holds
  (id, subject, author and date from their headers, the files of their
  sections).
- Any other diff: an error saying what holds commits.

Pages of ``limit`` commits (newest first, as git lists them; a stream in its
own order) from ``offset``, fewer when they would not fit one response; each commit lists at most :data:`FILES_LISTED`
files, with their total; ``include_body``: each commit's whole message
(``body``, as ``git log --format=%B`` gives it; a stream's from its header),
cut past :data:`BODY_CHARS` characters (``body_cut`` counts the rest).  The list is read once per session and query.

Over MCP, the messages (``include_body``) come as the compact text of
:func:`render_messages`, no larger than ``git log --format='%h %s%n%b'``: a
head line (its commit ids short), then per commit its id as git abbreviates it
(``%h``; a stream's :data:`~diffchunk.limits.SHORT_ID` digits) and subject, and
the message's lines after the subject indented a space (a message that only
repeats its subject adds nothing; git writes a blank line after every message).
Authors, dates and files stay in the listing without bodies and in the typed
result (:meth:`CommitListing.to_dict`, the command line's ``--json``): a reviewer
reading why the code changed reads the messages, and one author's name on every
commit of a release doubled the answer's framing.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from typing import Any

from ...diff.buffer import DiffData
from ...diff.table import table_of
from ...errors import DiffchunkError, InvalidArgument
from ...git.history import missing_commits
from ...git.log import LoggedCommit, range_commits
from ...git.repo import discover
from ...git.revisions import resolve_commit
from ...limits import COMMITS_PAGE_DEFAULT, SHORT_ID
from ..sessions.file_match import match_file
from ..sessions.loading import session
from ..sessions.sidecar import range_of
from ..sessions.since_sidecar import SinceRecord, read_since
from ..sessions.store import Session, SessionStore
from .listing import CHARS_PER_TOKEN, RESPONSE_TOKENS, json_size

BODY_CHARS = 8_000
"""Characters of a commit's message list_commits gives with include_body (the
rest is counted, ``body_cut``): a generated message of megabytes must not take
the answer; a review's messages are a few paragraphs."""

FILES_LISTED = 20
"""Files listed per commit by list_commits (the rest are counted): a merge or
a rename sweep touches thousands."""

MAX_LIMIT = 200
"""Commits a list_commits page holds at most: 200 entries of a few files each
stay under one answer's ~20k tokens."""

MAX_COMMITS = 5000
"""Commits read from a range at most: a review of a release range has
hundreds; more is a range mistyped, not a review."""


logger = logging.getLogger(__name__)

_AUTHOR = re.compile(rb"^(?:Author|From): *([^\n<]*?) *(?:<[^\n>]*>)?[ \t]*\r?$", re.MULTILINE)
_BLANK = re.compile(rb"\n\r?\n")  # the end of a commit's header (a mail's lines may end in CRLF)
_FULL_IDS = re.compile(r"\b[0-9a-f]{40}(?:[0-9a-f]{24})?\b")  # SHA-1 or SHA-256 commit ids
_DATE = re.compile(rb"^(?:Date|AuthorDate): *([^\n]*?)[ \t]*\r?$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class CommitEntry:
    """One commit of the list."""

    id: str | None
    subject: str
    author: str | None
    date: str | None
    files: tuple[str, ...]
    body: str | None = None  # the whole message, when asked for
    short_id: str | None = None  # the id as git abbreviates it, when git listed it

    def to_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {}
        if self.id is not None:
            entry["id"] = self.id
        entry["subject"] = self.subject
        if self.author:
            entry["author"] = self.author
        if self.date:
            entry["date"] = self.date
        entry["files"] = list(self.files[:FILES_LISTED])
        if len(self.files) > FILES_LISTED:
            entry["files_total"] = len(self.files)
        if self.body is not None:
            entry["body"] = self.body[:BODY_CHARS]
            if len(self.body) > BODY_CHARS:
                entry["body_cut"] = len(self.body) - BODY_CHARS
        return entry


@dataclass(frozen=True, slots=True)
class SinceCommits:
    """What the commits of a since-review diff are: those of ``base..head`` that the
    reviewed head did not hold; ``full_file_path``: the full diff, when the record
    knows it."""

    reviewed_head: str
    base: str | None
    head: str
    full_file_path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "reviewed_head": self.reviewed_head,
            "base": self.base,
            "head": self.head,
        }
        if self.full_file_path is not None:
            result["full_file_path"] = self.full_file_path
        return result


@dataclass(frozen=True, slots=True)
class CommitListing:
    """One page of ``list_commits``."""

    commits: tuple[CommitEntry, ...]
    total: int
    source: str  # "range base..head" or "stream"
    file_path: str | None = None
    note: str | None = None
    next_offset: int | None = None
    since_review: SinceCommits | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "commits": [c.to_dict() for c in self.commits],
            "total": self.total,
            "source": self.source,
        }
        if self.file_path is not None:
            result["file_path"] = self.file_path
        if self.note is not None:
            result["note"] = self.note
        if self.since_review is not None:
            result["since_review"] = self.since_review.to_dict()
        if self.next_offset is not None:
            result["next_offset"] = self.next_offset
        return result


def _header_field(pattern: re.Pattern[bytes], data: DiffData, start: int, end: int) -> str | None:
    m = pattern.search(data, start, end)
    return m.group(1).decode("utf-8", "replace").strip() or None if m else None


def _stream_body(data: DiffData, start: int, end: int, stop: int, subject: str) -> str:
    """The whole message of a stream's commit, whose header runs from ``start`` to the
    blank line at ``end`` and its segment to ``stop``: a ``git log`` message (its
    four-space indent taken off), or a mail's subject and the text before its ``---``
    line; as ``git log --format=%B`` gives it (subject, blank line, body, line break)."""
    text = bytes(data[end:stop]).decode("utf-8", "replace").replace("\r\n", "\n")
    if bytes(data[start : start + 5]) == b"From ":
        lines = text.split("\n")
        if "---" in lines:
            lines = lines[: lines.index("---")]
        body = "\n".join(lines).strip("\n")
        return f"{subject}\n\n{body}\n" if body else f"{subject}\n"
    lines = [line.removeprefix("    ") for line in text.split("\n")]
    return "\n".join(lines).strip("\n") + "\n"


def _stream_commits(
    loaded: Session, wanted: set[str] | None, include_body: bool
) -> list[CommitEntry]:
    parsed = loaded.review.parsed
    files: dict[int, list[str]] = {}
    for fd in parsed.files:
        if fd.commit is not None:
            files.setdefault(fd.commit, []).append(fd.path)
    out = []
    for commit in parsed.commits:
        paths = tuple(dict.fromkeys(files.get(commit.index, [])))
        if wanted is not None and not wanted & set(paths):
            continue
        segment = parsed.segments[commit.segment]
        # The header runs to the first blank line (the message follows).
        blank = _BLANK.search(parsed.data, segment.start, segment.end)
        end = segment.end if blank is None else blank.start()
        out.append(
            CommitEntry(
                commit.sha,
                commit.subject,
                _header_field(_AUTHOR, parsed.data, segment.start, end),
                _header_field(_DATE, parsed.data, segment.start, end),
                paths,
                _stream_body(parsed.data, segment.start, end, segment.end, commit.subject)
                if include_body
                else None,
            )
        )
    return out


#: What :func:`_range_commits` finds: the commits, the source's label, a note, and
#: what a since-review diff's commits are.
Found = tuple[list[CommitEntry], str, str | None, SinceCommits | None]


def _entries(logged: list[LoggedCommit]) -> list[CommitEntry]:
    return [
        CommitEntry(c.id, c.subject, c.author, c.date, c.files, c.body, c.short) for c in logged
    ]


def _full_diff(since_path: str) -> str | None:
    """The full diff of the revision a since-review diff leads to, when the record
    knows one still in the cache (the latest load first)."""
    from ..record.identity import full_diffs
    from ..record.store import default_record

    try:
        found = default_record().read(lambda conn: full_diffs(conn, since_path))
    except DiffchunkError as exc:
        logger.debug("The full diff of %s is not known: %s", since_path, exc)
        return None
    return next((path for path in found if os.path.exists(path)), None)


def _since_commits(
    loaded: Session, since: SinceRecord, wanted: tuple[str, ...] | None, body: bool
) -> Found:
    """The commits of a since-review diff: those of the range now that its reviewed
    head did not hold (new since the review, or rewritten by an amend or a rebase),
    touching ``wanted`` when given; the range's whole list when that head is gone."""
    recorded = range_of(loaded.path)
    old, base, head = (
        since.from_revision.get("head"),
        since.to_revision.get("base"),
        since.to_revision.get("head"),
    )
    full = _full_diff(loaded.path)
    if (
        recorded is None
        or not isinstance(old, str)
        or not isinstance(head, str)
        or not (base is None or isinstance(base, str))
    ):
        where = full or "since_review.full_file_path of the load_git_diff answer"
        raise InvalidArgument(
            f"{loaded.path} is a since-review diff whose record does not name its commits.",
            suggestion=f"Call list_commits on the full diff of the range: {where}.",
        )
    repo = discover(recorded.repo)
    found = SinceCommits(old, base, head, full)
    range_label = f"{(base or 'root')[:SHORT_ID]}..{head[:SHORT_ID]}"
    if missing_commits(repo, [old]):
        logged = range_commits(repo, base, head, wanted or (), limit=MAX_COMMITS, include_body=body)
        note = (
            f"The reviewed head {old[:SHORT_ID]} is no longer in the repository: these are all "
            f"the commits of the range {range_label}."
        )
        return _entries(logged), f"{base or 'root'}..{head}", note, found
    logged = range_commits(
        repo, base, head, wanted or (), limit=MAX_COMMITS, exclude=[old], include_body=body
    )
    note = (
        f"A since-review diff: the commits of {range_label} that the reviewed head "
        f"{old[:SHORT_ID]} did not hold (new since the review, or rewritten by an amend or a "
        "rebase). All the range's commits: list_commits on since_review.full_file_path."
    )
    if len(logged) == MAX_COMMITS:
        note += f" Only the newest {MAX_COMMITS} commits are listed."
    return _entries(logged), f"since review {old}: {base or 'root'}..{head}", note, found


def _range_commits(loaded: Session, wanted: tuple[str, ...] | None, body: bool) -> Found | None:
    """The commits of the range the diff shows, its label and a note; None for a diff
    not written from a range."""
    since = read_since(loaded.path)
    if since is not None:
        return _since_commits(loaded, since, wanted, body)
    recorded = range_of(loaded.path)
    if recorded is None:
        return None
    if not recorded.has_base:
        raise InvalidArgument(
            f"{loaded.path} was written by an older diffchunk that did not record its range.",
            suggestion="Load the range again with load_git_diff: its commits are then known.",
        )
    repo = discover(recorded.repo)
    head, note = recorded.head, None
    if head is None:  # the working tree or the index, against ``base``
        head = resolve_commit(repo, "HEAD", "HEAD", allow_unborn=True)
        where = "index" if recorded.staged else "working tree"
        note = f"The {where}'s uncommitted changes are part of the diff but no commit."
        if head is None or head == recorded.base:
            return [], f"{where} vs {(recorded.base or 'empty tree')[:SHORT_ID]}", note, None
    paths = wanted if wanted is not None else recorded.paths
    logged = range_commits(repo, recorded.base, head, paths, limit=MAX_COMMITS, include_body=body)
    label = f"{recorded.base or 'root'}..{head}"
    if len(logged) == MAX_COMMITS:
        note = f"Only the newest {MAX_COMMITS} commits are listed."
    return _entries(logged), label, note, None


def commits_of(loaded: Session) -> list[CommitEntry]:
    """Every commit the diff shows, as :func:`list_commits` finds and keeps them with
    the session; [] for a diff that shows none or whose commits cannot be read."""
    key = f"commits:{None}:{False}"  # list_commits' key for the same list
    cached = loaded.cache.get(key)
    if cached is None:
        try:
            cached = _range_commits(loaded, None, False)
        except DiffchunkError:
            return []
        if cached is None:
            if not loaded.review.parsed.commits:
                return []
            cached = (_stream_commits(loaded, None, False), "stream", None, None)
        loaded.cache[key] = cached
    return list(cached[0])


def _fitting(commits: list[CommitEntry]) -> tuple[CommitEntry, ...]:
    """As many of ``commits`` as one response holds (at least one)."""
    used = 0
    for count, entry in enumerate(commits):
        used += json_size(entry.to_dict()) + 2
        if count and used > RESPONSE_TOKENS * CHARS_PER_TOKEN:
            return tuple(commits[:count])
    return tuple(commits)


def list_commits(
    absolute_file_path: str,
    file_path: str | None = None,
    offset: int = 0,
    limit: int = COMMITS_PAGE_DEFAULT,
    include_body: bool = False,
    *,
    store: SessionStore | None = None,
) -> CommitListing:
    """The commits of the diff (touching ``file_path`` when given); see the module docstring."""
    for name, value, low, high in (("offset", offset, 0, None), ("limit", limit, 1, MAX_LIMIT)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InvalidArgument(f"{name} must be an integer of at least {low}, got {value!r}.")
        if high is not None and value > high:
            raise InvalidArgument(f"{name} is at most {high}, got {value}.")
    loaded = session(absolute_file_path, store)
    path = None
    wanted: tuple[str, ...] | None = None
    if file_path is not None and file_path.strip():
        path = match_file(loaded.review, file_path)
        parsed = loaded.review.parsed
        olds = {
            parsed.files[i].old_path for i in table_of(parsed.files, parsed.data).indices_of(path)
        }
        wanted = tuple(dict.fromkeys([path, *(p for p in olds if p)]))
    if not isinstance(include_body, bool):
        raise InvalidArgument(f"include_body must be true or false, got {include_body!r}.")
    key = f"commits:{wanted}:{include_body}"
    cached = loaded.cache.get(key)
    if cached is None:
        cached = _range_commits(loaded, wanted, include_body)
        if cached is None and loaded.review.parsed.commits:
            stream = _stream_commits(loaded, set(wanted) if wanted else None, include_body)
            cached = (stream, "stream", None, None)
        if cached is None:
            raise InvalidArgument(
                f"{loaded.path} holds no commits: it is neither a range loaded from a "
                "repository nor a git log -p / format-patch stream.",
                suggestion="Load the range with load_git_diff (then list_commits on its "
                "file_path), or pass a diff made by git log -p or git format-patch.",
            )
        loaded.cache[key] = cached
    commits, source, note, since = cached
    page = _fitting(commits[offset : offset + limit])
    following = offset + len(page)
    return CommitListing(
        page,
        len(commits),
        source,
        file_path=path,
        note=note,
        next_offset=following if following < len(commits) else None,
        since_review=since,
    )


def message_rest(entry: CommitEntry) -> list[str]:
    """The lines of a commit's message after its subject (and the blank line after it)."""
    body = (entry.body or "")[:BODY_CHARS]
    lines = body.rstrip("\n").split("\n")
    if lines and lines[0].strip() == entry.subject.strip():
        lines = lines[1:]
    while lines and not lines[0].strip():
        lines = lines[1:]
    if entry.body is not None and len(entry.body) > BODY_CHARS:
        lines.append(f"(cut: {len(entry.body) - BODY_CHARS} more characters)")
    return lines


def render_messages(listing: CommitListing, offset: int = 0) -> str:
    """A page of commits with their messages as compact text (see the module docstring)."""
    head = f"{listing.total} commit(s) of {listing.source}"
    if listing.file_path is not None:
        head += f" touching {listing.file_path}"
    if listing.next_offset is not None or offset:
        head += f"; {offset + 1}-{offset + len(listing.commits)} shown"
    if listing.next_offset is not None:
        head += f", next offset={listing.next_offset}"
    lines = [_FULL_IDS.sub(lambda m: m.group(0)[:SHORT_ID], head)]
    if listing.note is not None:
        lines.append(f"note: {listing.note}")
    if listing.since_review is not None and listing.since_review.full_file_path:
        lines.append(f"full diff: {listing.since_review.full_file_path}")
    for entry in listing.commits:
        lines.append(f"{entry.short_id or (entry.id or '-')[:SHORT_ID]} {entry.subject}")
        lines += [f" {line}" if line.strip() else "" for line in message_rest(entry)]
    return "\n".join(lines) + "\n"
