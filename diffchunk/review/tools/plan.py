"""The plan a load answers with: what a reviewer needs to choose what to read, and the
whole change when it is small.

A load's answer (``load_diff``, ``load_git_diff``) carries:

- ``plan``: the files by kind (``code``, ``tests``, ``docs``, ``config``,
  ``generated``: :func:`~diffchunk.diff.review_order.category`), each kind with
  its file count and +/- lines and its files as ``"path +A -R"`` in chunk order
  (whatever the load's ``order``, the kinds come in reading order: code first)
  (``(new)``, ``(deleted)``, ``(renamed from X)`` after a path); then ``facts``,
  the few things that change the plan: renames, deletions, and a commit whose
  subject says version, release or bump but which changes code; ``commits``,
  how many the diff shows, and ``log``, each one's short id and subject, and
  the rest of its message (its lines indented, blank ones left out), when
  they are few (:data:`PLAN_COMMITS`): the whole log, so a small review needs
  no ``list_commits``.  Excluded
  files are not repeated (the load lists them).  The lists are cut to
  :data:`PLAN_CHARS` in all, each cut kind saying how many
  files it leaves out (``more``).
- ``change``: the whole change in lean when it fits
  :data:`LOAD_CHANGE_CHARS` (about 6,000 tokens), so a small
  review is one call: the files as lean shows them (those between two widened
  ones as one view: an edit repeated across files shows once), then code files (those
  that cost the fewest characters more first) widened to the definitions around
  their changes
  (``get_file_diff(context="symbol")``, their unchanged lines shown) while the
  whole fits :data:`LOAD_WIDENED_CHARS`; ``change_widened`` names those (not a
  file whose changes sit in no definition: widening adds none to it).
  The text is the answer's second block (``"change": "below"`` in the first):
  lean as it is, not escaped as a JSON string (a tenth more characters).  The plan's kinds then
  give their counts alone (the change's ``##`` lines list the files).

Invariants: the plan is computed from the loaded session (and, for the
facts, the commits :func:`~diffchunk.review.commits.list_commits` reads,
kept with the session); nothing here fails a load: what cannot be read
(commits of a repository that is gone, an outline) is left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ...diff.lean import render_lean
from ...diff.model import FileDiff, FileStatus, ParsedDiff
from ...diff.review_order import CODE, category
from ...errors import DiffchunkError
from ...limits import SHORT_ID
from ..sessions.loading import session
from ..sessions.store import Session, SessionStore
from .commits import CommitEntry, commits_of, list_commits, message_rest

LOAD_CHANGE_CHARS = 24_000
"""A load's answer includes the whole change in lean when it fits this (about
6,000 tokens): a small review is then one call, and costs less than the
tool calls that would read it file by file."""

LOAD_WIDENED_CHARS = 32_000
"""With a change that fits LOAD_CHANGE_CHARS, its code files are widened to the
definitions around their changes while the whole fits this (about 8,000
tokens): those definitions are what a reviewer reads next, and cost a call
each otherwise (on pydantic v2.13.3..v2.13.4, 8,761 characters for one)."""

PLAN_CHARS = 3_000
"""The characters a load's plan gives its file lists (``"path +A -R"`` by kind):
a 50-file change is listed whole; a larger one says how many each kind leaves
out, which ``list_chunks`` pages."""

PLAN_COMMITS = 20
"""A plan lists the commits (short id and subject) when there are at most this
many: a short log (with the messages) is part of what a reviewer plans with; a
longer one is paged by list_commits."""

PLAN_FACTS = 8
"""Facts a plan states (renames, deletions, release commits that change code):
the few that change a plan; more are counted."""


__all__ = ["KINDS", "ReviewPlan", "load_plan"]

#: The kinds of file, in the order a reviewer reads them.
KINDS = ("code", "tests", "docs", "config", "generated")

_RELEASE = re.compile(r"\b(?:version|release|releasing|bump)\b", re.I)


@dataclass(frozen=True, slots=True)
class KindFiles:
    """The files of one kind: how many, their +/- lines, and those listed."""

    files: int
    added: int
    removed: int
    listed: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {"files": self.files, "added": self.added, "removed": self.removed}
        if self.listed:
            result["list"] = list(self.listed)
        if self.listed and len(self.listed) < self.files:
            result["more"] = self.files - len(self.listed)
        return result


@dataclass(frozen=True, slots=True)
class ReviewPlan:
    """A load's plan (see the module doc)."""

    kinds: tuple[tuple[str, KindFiles], ...]
    facts: tuple[str, ...]
    commits: int = 0
    log: tuple[str, ...] = ()  # "id subject" of each commit, when they are few
    change: str | None = None
    widened: tuple[str, ...] = ()  # the code files ``change`` shows widened

    def to_dict(self) -> dict[str, Any]:
        plan: dict[str, Any] = {name: files.to_dict() for name, files in self.kinds}
        if self.facts:
            plan["facts"] = list(self.facts)
        if self.commits:
            plan["commits"] = self.commits
        if self.log:
            plan["log"] = list(self.log)
        result: dict[str, Any] = {"plan": plan}
        if self.change is not None:
            result["change"] = "below"  # the answer's next block, as lean text
            result["change_widened"] = list(self.widened)
        return result


def _entry(fd: FileDiff, added: int, removed: int) -> str:
    note = ""
    if fd.status is FileStatus.ADDED:
        note = " (new)"
    elif fd.status is FileStatus.DELETED:
        note = " (deleted)"
    elif fd.status in (FileStatus.RENAMED, FileStatus.COPIED) and fd.old_path:
        note = f" ({fd.status.value} from {fd.old_path})"
    return f"{fd.path} +{added} -{removed}{note}"


def _files(loaded: Session) -> list[tuple[str, list[FileDiff]]]:
    """The kept files by kind (in chunk order within one), each with its sections."""
    sections: dict[str, list[FileDiff]] = {}
    for fd in loaded.review.kept:
        sections.setdefault(fd.path, []).append(fd)
    return sorted(sections.items(), key=lambda item: category(item[0]))


def _kinds(
    files: list[tuple[str, list[FileDiff]]], *, listed: bool = True
) -> tuple[tuple[str, KindFiles], ...]:
    """Each kind's files; with ``listed`` false, counts only (the change shows them)."""
    grouped: dict[int, list[tuple[str, int, int]]] = {}
    for path, sections in files:
        added = sum(fd.added for fd in sections)
        removed = sum(fd.removed for fd in sections)
        grouped.setdefault(category(path), []).append(
            (_entry(sections[-1], added, removed), added, removed)
        )
    shown = {
        k: [text for text, _, _ in entries] if listed else [] for k, entries in grouped.items()
    }
    # Cut the longest lists first until the whole fits the budget.
    while sum(len(t) + 4 for texts in shown.values() for t in texts) > PLAN_CHARS:
        longest = max(shown, key=lambda k: len(shown[k]))
        shown[longest].pop()
    return tuple(
        (
            KINDS[k],
            KindFiles(
                files=len(grouped[k]),
                added=sum(a for _, a, _ in grouped[k]),
                removed=sum(r for _, _, r in grouped[k]),
                listed=tuple(shown[k]),
            ),
        )
        for k in sorted(grouped)
    )


def _log(path: str, count: int, store: SessionStore | None) -> tuple[str, ...]:
    """Each commit's ``"id subject"`` (ids cut to 12 characters) and the rest of its
    message, when there are at most :data:`PLAN_COMMITS`; else none (list_commits
    pages them)."""
    if not count or count > PLAN_COMMITS:
        return ()
    try:
        commits = list_commits(path, limit=PLAN_COMMITS, include_body=True, store=store).commits
    except DiffchunkError:
        return ()
    return tuple(
        (f"{c.id[:SHORT_ID]} {c.subject}" if c.id else c.subject)
        + "".join(f"\n  {line}" for line in message_rest(c) if line.strip())
        for c in commits
    )


def _facts(files: list[tuple[str, list[FileDiff]]], commits: list[CommitEntry]) -> tuple[str, ...]:
    facts: list[str] = []
    for path, sections in files:
        fd = sections[-1]
        if fd.status is FileStatus.RENAMED and fd.old_path:
            facts.append(f"renamed: {fd.old_path} -> {path}")
        elif fd.status is FileStatus.DELETED:
            facts.append(f"deleted: {path} (-{sum(s.removed for s in sections)})")
    code = {path for path, _ in files if category(path) == CODE}
    for commit in commits:
        if not _RELEASE.search(commit.subject):
            continue
        changed = [p for p in commit.files if p in code]
        if changed:
            head = f"{commit.id[:SHORT_ID]} " if commit.id else ""
            facts.append(
                f"commit {head}{commit.subject!r} says release or version but changes code: "
                + ", ".join(changed[:PLAN_FACTS])
            )
    if len(facts) > PLAN_FACTS:
        facts[PLAN_FACTS:] = [f"+{len(facts) - PLAN_FACTS} more"]
    return tuple(facts)


def _change(
    loaded: Session, files: list[tuple[str, list[FileDiff]]], store: SessionStore | None
) -> tuple[str, tuple[str, ...]] | None:
    """The whole change in lean and the code files shown widened to their definitions,
    or None when lean does not fit :data:`LOAD_CHANGE_CHARS`.

    Each file is first rendered as lean shows it; then code files are widened (their
    unchanged lines shown), those that add the fewest characters first, while the
    whole fits :data:`LOAD_WIDENED_CHARS`.  A widened file shows the unchanged lines
    of the definitions around its changes, not git's context lines outside them; a
    file whose changes sit in no definition (at module level) stays as lean shows it."""
    parsed = loaded.review.parsed
    texts = [render_lean(b"".join(parsed.raw(fd) for fd in sections)).text for _, sections in files]
    used = sum(map(len, texts))
    if used > LOAD_CHANGE_CHARS:
        return None
    from .symbol_context import symbol_context  # on first use: it reads the new side

    candidates: list[tuple[int, int, str]] = []  # (characters more, file, text)
    for i, (path, _) in enumerate(files):
        if category(path) != CODE:
            continue
        try:
            data, _, definitions = symbol_context(loaded.handle, loaded, path, store)
        except DiffchunkError:
            continue
        if data is not None and definitions:
            text = render_lean(data, keep_context=True, context_spans=definitions).text
            candidates.append((len(text) - len(texts[i]), i, text))
    widened: list[str] = []
    wide: dict[int, str] = {}
    for more, i, text in sorted(candidates):  # the cheapest first: the most files whole
        if used + more <= LOAD_WIDENED_CHARS:
            used += more
            wide[i] = text
            widened.append(files[i][0])
    return _joined(parsed, files, wide), tuple(widened)


def _joined(
    parsed: ParsedDiff, files: list[tuple[str, list[FileDiff]]], wide: dict[int, str]
) -> str:
    """The change: the widened files' texts, and each run of files between them
    rendered as one lean view, so an edit repeated in several files shows once and
    is named after (lean finds repeats and moves only within a view, and folds them
    only where that costs less than showing them)."""
    out: list[str] = []
    run: list[bytes] = []
    for i, (_, sections) in enumerate(files):
        if i in wide:
            out += [render_lean(b"".join(run)).text, wide[i]] if run else [wide[i]]
            run = []
        else:
            run += [parsed.raw(fd) for fd in sections]
    if run:
        out.append(render_lean(b"".join(run)).text)
    return "".join(out)


def load_plan(absolute_file_path: str, *, store: SessionStore | None = None) -> ReviewPlan:
    """The plan of a loaded diff (or view): see the module doc."""
    loaded = session(absolute_file_path, store)
    files = _files(loaded)
    raw = sum(fd.end - fd.start for _, sections in files for fd in sections)
    change = None
    # Lean is rarely less than a third of the raw text: a larger diff is not tried.
    if raw <= 3 * LOAD_CHANGE_CHARS:
        change = _change(loaded, files, store)
    commits = commits_of(loaded)
    facts, log = _facts(files, commits), _log(absolute_file_path, len(commits), store)
    if change is None:
        return ReviewPlan(_kinds(files), facts, len(commits), log)
    text, widened = change
    return ReviewPlan(_kinds(files, listed=False), facts, len(commits), log, text, widened)
