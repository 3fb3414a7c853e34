"""The export document of a review: every other export format is rendered from it.

``export_review(format="json")`` returns this document; the other formats are
pure functions of it (:func:`diffchunk.review.export.render`).  It is a JSON
object, stable within a ``format_version``: keys are only ever added to a
version, never renamed, removed or given another meaning.

Top level:

- ``format``: always ``"diffchunk-review"``.
- ``format_version``: ``1``.  A reader refuses a version it does not know.
- ``tool``: ``{"name": "diffchunk", "version": <diffchunk.__version__>}`` of the
  exporting diffchunk.
- ``exported_at``: ISO 8601 UTC time of the export (``2026-11-25T12:00:00Z``).
- ``review``:
  - ``id``: the review's number in the record.
  - ``source``: what is reviewed.  ``kind`` ``"git"``: ``repository`` (the work
    tree, or the git dir of a bare repository), ``range`` (as the user gave it:
    ``main..feature``, ``main...feature``, ``C^!``; ``worktree:<rev>`` for the
    working tree and ``index:<rev>`` for staged changes against a revision),
    ``base`` and ``head`` (commit ids of the current revision; ``head`` is null
    for the working tree and the index, ``base`` null for the empty tree);
    added within version 1: ``name``, how the repository is named outside this
    machine (its remote's URL without credentials, else its directory's name),
    which the exports meant for others (GitHub, SARIF) show instead of the path.
    ``kind`` ``"file"``: ``diff_file`` (absolute real path of the diff file) and
    ``sha256`` (of its content).
  - ``revision``: the loaded revision the export describes: ``id``, ``base``,
    ``head`` (as in ``source``; null for a diff file), ``sha256`` (of the diff
    text) and ``loaded_at``; ``paths`` (a list) when the range was limited to
    paths (absent: the whole range).
- ``coverage``: file counts of the current revision: ``files`` (all files of
  the diff), ``reviewed``, ``seen``, ``unseen``, ``changed`` (reviewed, then
  changed), ``excluded`` (left out of the chunks) and ``excluded_by_reason``
  (``{"generated": 1, ...}``).
- ``findings_summary``: ``open`` (a count per severity: ``blocker``, ``major``,
  ``minor``, ``nit``, ``question``), and the counts of ``resolved``,
  ``dismissed`` and ``outdated`` findings.  It counts every finding of the
  review, whichever findings ``findings`` lists.
- ``files``: the files of the diff in diff order, each with ``path``
  (repository-relative as the diff tools show it; the old path for a deleted
  file), ``old_path`` (set for a rename or copy, else null), ``status``
  (``added``, ``deleted``, ``modified``, ``renamed``, ``copied``, ``mode``,
  ``binary``), ``state`` (``reviewed``, ``seen``, ``unseen``, ``changed``,
  ``excluded``), ``excluded_reason`` (``generated``, ``vendored``,
  ``trivial``, ``pattern``, or null), ``added`` and ``removed`` line counts,
  ``binary`` and ``hunks`` (``old_start``, ``old_count``, ``new_start``,
  ``new_count`` of each ``@@`` hunk).
- ``findings``: the selected findings (``status="open"``: the open ones;
  ``"all"``: all), sorted by file order, then whole-file findings first, then
  where their lines are shown in the diff (an old-side line before the new-side
  lines below it), then side (``new`` first) and line for lines of another
  revision, then id.  Each has ``id``, ``file_path``,
  ``side`` (``new`` or ``old``), ``line`` and ``end_line`` (the first and last
  line on that side, numbered as in the revision the finding was made on; both
  null for a whole-file finding), ``severity``, ``status`` (``open``,
  ``resolved``, ``dismissed``, ``outdated``), ``message`` (Markdown written by
  the reviewer), ``suggestion`` (null, or the text replacing the new-side lines
  ``line``..``end_line``), ``lines`` (the text of those lines when the finding
  was made), ``chunk`` (the chunk of the current load holding the first line;
  null for a whole-file finding, an excluded file, or lines of another revision), ``created_at`` and
  ``updated_at``.  A finding may name a file that is no longer in ``files``
  (an outdated finding on a file the diff stopped changing).  Added within
  version 1: ``author`` (absent for a finding written before authors were
  recorded) and ``thread`` (absent when empty: the replies, oldest first, each
  ``{"author", "body", "at"}`` and ``status`` when the same update set one);
  ``anchor`` (may be absent or null), ``{"revision_id", "base",
  "head"}`` of the revision whose lines ``line``..``end_line`` number: the
  revision the finding was made on, or the later one a load found its lines
  in; for an ``outdated`` finding, the last revision that had its lines.  A
  finding whose anchor is another revision than ``review.revision`` (an export
  of an earlier load, or a finding not found again yet) has lines that are not
  those of this revision's diff: the formats never place it on this diff's
  lines (see :attr:`ExportFinding.on_lines`), and its ``chunk`` is null.

:func:`load_document` checks a document and gives it typed
(:class:`ReviewExport`); each error says what is wrong and what to do.  The
files are typed as they are read (a review of a million files is never a
million objects at once); a document's ``files`` may be any sequence, and one
that can ``find(path)`` a file's position (the record's, built as it is
written) lets the findings' files be looked up without a pass over all files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...diff.hunk import HunkRange
from ...diff.lazy import LazySequence
from ...errors import ExportDocumentError
from ..record import model as record_model
from ..record.results import Comment, Finding, FindingsSummary

FORMAT = "diffchunk-review"
FORMAT_VERSION = 1  # the export document's format: raised when its keys change meaning

# The record's words: a document holds what the record holds.
SEVERITIES = record_model.SEVERITIES
SIDES = record_model.SIDES
FINDING_STATUSES = record_model.ALL_STATUSES
FILE_STATES = record_model.FILE_STATES
FILE_STATUSES = ("added", "deleted", "modified", "renamed", "copied", "mode", "binary")
SOURCE_KINDS = ("git", "file")

_AGAIN = "Export the review again with export_review or 'diffchunk export'."


@dataclass(frozen=True, slots=True)
class Source:
    """What a review is of: a git range of a repository, or a diff file."""

    kind: str
    repository: str | None = None
    range: str | None = None
    base: str | None = None
    head: str | None = None
    diff_file: str | None = None
    sha256: str | None = None
    # How the repository is named outside this machine: its remote's URL without
    # credentials, or its directory's name (never a local path).
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Revision:
    id: int | None
    base: str | None
    head: str | None
    sha256: str | None
    loaded_at: str | None
    paths: tuple[str, ...] = ()  # those the range was limited to (none: all)


@dataclass(frozen=True, slots=True)
class ExportFile:
    index: int  # position in diff order
    path: str
    old_path: str | None
    status: str
    state: str
    excluded_reason: str | None
    added: int
    removed: int
    binary: bool
    hunks: tuple[HunkRange, ...]

    def holds(self, side: str, first: int, last: int) -> bool:
        """Whether lines ``first``..``last`` of ``side`` lie inside one hunk of this file."""
        return any(h.holds(side, first, last) for h in self.hunks)


@dataclass(frozen=True, slots=True)
class ExportFinding(Finding):
    """The record's :class:`~diffchunk.review.record.results.Finding` as a document holds
    it, with where its lines are numbered.

    What a document does not carry is left empty: ``review_id`` is the document's
    review (0 when it names none), ``revision_id`` the anchor's, ``change_id`` None,
    ``created_at``/``updated_at``/``author`` and a reply's ``created_at`` (its
    ``at``) ``""`` when absent.
    """

    anchor_head: str | None = None  # the commit whose lines line..end_line number
    # Whether line..end_line number the lines of the revision exported: false for a
    # finding anchored in another revision (its anchor's ``revision_id`` is not the
    # document's ``review.revision.id``, nor one at the same two commits); true when
    # either is not given.
    current: bool = True

    @property
    def whole_file(self) -> bool:
        return self.line is None

    @property
    def on_lines(self) -> bool:
        """Whether the finding sits on lines of the exported revision's diff: it has
        lines, they are numbered in that revision, and they did not change since it
        was written (not ``outdated``).  Only such findings are placed on lines (a
        GitHub line comment, a SARIF region, a reviewdog range, a row of the HTML
        diff); the others point at their file and say where their lines were."""
        return self.line is not None and self.status != "outdated" and self.current


@dataclass(frozen=True, slots=True)
class Coverage:
    files: int
    reviewed: int
    seen: int
    unseen: int
    changed: int
    excluded: int
    excluded_by_reason: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class FileFindings:
    """One file's findings, for renderers that group by file."""

    path: str
    file: ExportFile | None  # None: the file is no longer in the diff
    findings: tuple[ExportFinding, ...]


@dataclass(frozen=True, slots=True)
class ReviewExport:
    """A checked export document, typed; ``document`` is the mapping it came from."""

    document: Mapping[str, Any]
    tool_name: str
    tool_version: str
    exported_at: str
    review_id: int | None
    source: Source
    revision: Revision
    coverage: Coverage
    summary: FindingsSummary
    files: Sequence[ExportFile]  # typed as they are read
    findings: tuple[ExportFinding, ...]
    # The files the findings name (the others are only read in order, from ``files``).
    _by_path: dict[str, ExportFile] = field(default_factory=dict, repr=False, compare=False)

    def file(self, path: str) -> ExportFile | None:
        """The file ``path`` when a finding names it (None: not in the diff)."""
        return self._by_path.get(path)

    def by_file(self) -> list[FileFindings]:
        """Findings grouped by file: files in diff order, then files no longer in the diff."""
        groups: dict[str, list[ExportFinding]] = {}
        for finding in self.findings:
            groups.setdefault(finding.file_path, []).append(finding)
        known = sorted(
            (f for f in map(self._by_path.get, groups) if f is not None), key=lambda f: f.index
        )
        gone = [p for p in groups if p not in self._by_path]
        out = [FileFindings(f.path, f, tuple(groups[f.path])) for f in known]
        out.extend(FileFindings(p, None, tuple(groups[p])) for p in gone)
        return out

    def file_states(self) -> Iterator[tuple[str, str]]:
        """``(path, state)`` of every file in diff order (from the document's own
        ``states()`` when it has them, without making each file's entry)."""
        raw = self.document.get("files")
        states = getattr(raw, "states", None)
        if callable(states):
            found: Iterator[tuple[str, str]] = states()
            return found
        return ((f.path, f.state) for f in self.files)

    def commit_id(self) -> str | None:
        """The head commit reviewed, when there is one (git ranges of commits)."""
        return self.revision.head or self.source.head


def load_document(document: object) -> ReviewExport:
    """Check ``document`` (as ``json.loads`` gives it) and return it typed.

    Raises :class:`ExportDocumentError` naming the first key that is missing
    or wrong; an unknown ``format_version`` is refused rather than guessed at.
    """
    doc = _mapping(document, "the document")
    fmt = doc.get("format")
    if fmt != FORMAT:
        raise ExportDocumentError(
            f"This is not a diffchunk review export: 'format' is {fmt!r}, expected {FORMAT!r}.",
            suggestion=_AGAIN,
        )
    version = doc.get("format_version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        newer = isinstance(version, int) and not isinstance(version, bool) and version > 1
        raise ExportDocumentError(
            f"Unsupported export format_version {version!r}: this diffchunk reads "
            f"version {FORMAT_VERSION}.",
            suggestion="Upgrade diffchunk to read it."
            if newer
            else "Export the review again with this diffchunk.",
        )
    tool = _mapping(doc.get("tool"), "'tool'")
    review = _mapping(doc.get("review"), "'review'")
    raw_files = _list(doc, "files", "the document")
    files = _Files(raw_files)
    revision = _revision(_mapping(review.get("revision"), "'review.revision'"))
    review_id = _opt_int(review, "id", "'review'")
    findings = tuple(
        _finding(_mapping(f, f"findings[{i}]"), f"findings[{i}]", revision, review_id or 0)
        for i, f in enumerate(_list(doc, "findings", "the document"))
    )
    by_path = _named_files(raw_files, files, {f.file_path for f in findings})
    return ReviewExport(
        document=doc,
        tool_name=_str(tool, "name", "'tool'"),
        tool_version=_str(tool, "version", "'tool'"),
        exported_at=_str(doc, "exported_at", "the document"),
        review_id=review_id,
        source=_source(_mapping(review.get("source"), "'review.source'")),
        revision=revision,
        coverage=_coverage(_mapping(doc.get("coverage"), "'coverage'")),
        summary=_summary(_mapping(doc.get("findings_summary"), "'findings_summary'")),
        files=files,
        findings=findings,
        _by_path=by_path,
    )


class _Files(LazySequence[ExportFile]):
    """A document's files, each checked and typed when it is read.  A sequence whose
    ``checked`` attribute is true (the record's, which makes each entry from the
    record as this module describes it) has its entries typed without the checks."""

    ITEM = "file"
    __slots__ = ("_raw", "_typed")

    def __init__(self, raw: Sequence[Any]) -> None:
        self._raw = raw
        self._typed = _checked_file if getattr(raw, "checked", False) is True else _any_file

    def __len__(self) -> int:
        return len(self._raw)

    def _build(self, i: int) -> ExportFile:
        return self._typed(self._raw[i], i)

    def __iter__(self) -> Iterator[ExportFile]:
        typed = self._typed
        for i, f in enumerate(self._raw):
            yield typed(f, i)


def _any_file(doc: object, index: int) -> ExportFile:
    return _file(_mapping(doc, f"files[{index}]"), index)


def _checked_file(doc: Any, index: int) -> ExportFile:
    """A file entry known to be valid, typed as :func:`_file` would type it."""
    return ExportFile(
        index,
        doc["path"],
        doc["old_path"],
        doc["status"],
        doc["state"],
        doc["excluded_reason"],
        doc["added"],
        doc["removed"],
        bool(doc["binary"]),
        tuple(
            HunkRange(h["old_start"], h["old_count"], h["new_start"], h["new_count"])
            for h in doc["hunks"]
        ),
    )


def _named_files(raw: Sequence[Any], files: _Files, paths: set[str]) -> dict[str, ExportFile]:
    """The files of ``paths``: found by the sequence's own ``find`` when it has one,
    else by one pass over the files (which checks every one of them)."""
    find = getattr(raw, "find", None)
    if callable(find):
        found = ((p, find(p)) for p in paths)
        return {p: files[i] for p, i in found if i is not None}
    named: dict[str, ExportFile] = {}
    for file in files:
        if file.path in paths:
            named[file.path] = file
    return named


def _fail(where: str, what: str) -> ExportDocumentError:
    return ExportDocumentError(f"Invalid review export: {where} {what}.", suggestion=_AGAIN)


def _mapping(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(where, f"must be an object, not {type(value).__name__}")
    return value


def _list(doc: Mapping[str, Any], key: str, where: str) -> Sequence[Any]:
    value = doc.get(key)
    if not isinstance(value, Sequence) or isinstance(value, str | bytes | bytearray):
        raise _fail(where, f"needs '{key}' as a list")
    return value


def _str(doc: Mapping[str, Any], key: str, where: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str):
        raise _fail(where, f"needs '{key}' as a string, not {value!r}")
    return value


def _opt_str(doc: Mapping[str, Any], key: str, where: str) -> str | None:
    value = doc.get(key)
    if value is not None and not isinstance(value, str):
        raise _fail(where, f"needs '{key}' as a string or null, not {value!r}")
    return value


def _int(doc: Mapping[str, Any], key: str, where: str, minimum: int = 0) -> int:
    value = doc.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise _fail(where, f"needs '{key}' as an integer >= {minimum}, not {value!r}")
    return value


def _opt_int(doc: Mapping[str, Any], key: str, where: str, minimum: int = 0) -> int | None:
    return None if doc.get(key) is None else _int(doc, key, where, minimum)


def _choice(doc: Mapping[str, Any], key: str, where: str, choices: tuple[str, ...]) -> str:
    value = doc.get(key)
    if value not in choices:
        raise _fail(where, f"has '{key}' {value!r}; expected one of {', '.join(choices)}")
    return str(value)


def _source(doc: Mapping[str, Any]) -> Source:
    where = "'review.source'"
    kind = _choice(doc, "kind", where, SOURCE_KINDS)
    if kind == "git":
        return Source(
            kind=kind,
            repository=_str(doc, "repository", where),
            range=_str(doc, "range", where),
            base=_opt_str(doc, "base", where),
            head=_opt_str(doc, "head", where),
            name=_opt_str(doc, "name", where),
        )
    return Source(
        kind=kind, diff_file=_str(doc, "diff_file", where), sha256=_opt_str(doc, "sha256", where)
    )


def _revision(doc: Mapping[str, Any]) -> Revision:
    where = "'review.revision'"
    return Revision(
        id=_opt_int(doc, "id", where),
        base=_opt_str(doc, "base", where),
        head=_opt_str(doc, "head", where),
        sha256=_opt_str(doc, "sha256", where),
        loaded_at=_opt_str(doc, "loaded_at", where),
        paths=_opt_paths(doc, "paths", where),
    )


def _opt_paths(doc: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    """A list of paths (absent: none)."""
    value = doc.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise _fail(where, f"has {key!r} that is not a list of paths")
    return tuple(value)


def _coverage(doc: Mapping[str, Any]) -> Coverage:
    where = "'coverage'"
    reasons = _mapping(doc.get("excluded_by_reason", {}), "'coverage.excluded_by_reason'")
    return Coverage(
        files=_int(doc, "files", where),
        reviewed=_int(doc, "reviewed", where),
        seen=_int(doc, "seen", where),
        unseen=_int(doc, "unseen", where),
        changed=_int(doc, "changed", where),
        excluded=_int(doc, "excluded", where),
        excluded_by_reason={
            str(k): _int(reasons, k, "'coverage.excluded_by_reason'") for k in reasons
        },
    )


def _summary(doc: Mapping[str, Any]) -> FindingsSummary:
    where = "'findings_summary'"
    open_counts = _mapping(doc.get("open"), "'findings_summary.open'")
    return FindingsSummary(
        open={s: _int(open_counts, s, "'findings_summary.open'") for s in SEVERITIES},
        resolved=_int(doc, "resolved", where),
        dismissed=_int(doc, "dismissed", where),
        outdated=_int(doc, "outdated", where),
    )


_HUNK_KEYS = ("old_start", "old_count", "new_start", "new_count")


def _hunks(doc: Mapping[str, Any], where: str) -> tuple[HunkRange, ...]:
    """A file's hunks; checked with one test per hunk, the slow way only to say what is wrong."""
    hunks = []
    for j, h in enumerate(_list(doc, "hunks", where)):
        try:
            hunk = HunkRange(h["old_start"], h["old_count"], h["new_start"], h["new_count"])
        except (KeyError, TypeError):
            hunk = None
        if hunk is None or not all(type(v) is int and v >= 0 for v in hunk):
            hw = f"{where}.hunks[{j}]"
            hm = _mapping(h, hw)
            hunk = HunkRange(*(_int(hm, k, hw) for k in _HUNK_KEYS))
        hunks.append(hunk)
    return tuple(hunks)


def _file(doc: Mapping[str, Any], index: int) -> ExportFile:
    where = f"files[{index}]"
    return ExportFile(
        index=index,
        path=_str(doc, "path", where),
        old_path=_opt_str(doc, "old_path", where),
        status=_choice(doc, "status", where, FILE_STATUSES),
        state=_choice(doc, "state", where, FILE_STATES),
        excluded_reason=_opt_str(doc, "excluded_reason", where),
        added=_int(doc, "added", where),
        removed=_int(doc, "removed", where),
        binary=bool(doc.get("binary", False)),
        hunks=_hunks(doc, where),
    )


def _finding(
    doc: Mapping[str, Any], where: str, revision: Revision, review_id: int
) -> ExportFinding:
    side = _choice(doc, "side", where, SIDES)
    line = _opt_int(doc, "line", where, minimum=1)
    end_line = _opt_int(doc, "end_line", where, minimum=1)
    if (line is None) != (end_line is None) or (
        line is not None and end_line is not None and end_line < line
    ):
        raise _fail(
            where, f"has line {line!r} and end_line {end_line!r}; both null, or line <= end_line"
        )
    suggestion = _opt_str(doc, "suggestion", where)
    anchor = _anchor(doc, where)
    anchored = None if anchor is None else _opt_int(anchor, "revision_id", f"{where}.anchor")
    if suggestion is not None and (side == "old" or line is None):
        raise _fail(where, "has a suggestion, which only new-side lines can carry")
    return ExportFinding(
        id=_int(doc, "id", where),
        review_id=review_id,
        revision_id=anchored,
        file_path=_str(doc, "file_path", where),
        side=side,
        line=line,
        end_line=end_line,
        severity=_choice(doc, "severity", where, SEVERITIES),
        status=_choice(doc, "status", where, FINDING_STATUSES),
        message=_str(doc, "message", where),
        suggestion=suggestion,
        lines=_opt_str(doc, "lines", where),
        change_id=None,
        chunk=_opt_int(doc, "chunk", where),
        created_at=_opt_str(doc, "created_at", where) or "",
        updated_at=_opt_str(doc, "updated_at", where) or "",
        anchor_head=None if anchor is None else _opt_str(anchor, "head", f"{where}.anchor"),
        current=_current(anchor, anchored, revision, where),
        author=_opt_str(doc, "author", where) or "",
        thread=_thread(doc, where),
    )


def _thread(doc: Mapping[str, Any], where: str) -> tuple[Comment, ...]:
    replies = doc.get("thread")
    if replies is None:
        return ()
    if not isinstance(replies, list):
        raise _fail(where, f"has 'thread' {type(replies).__name__}; expected a list")
    found = []
    for i, reply in enumerate(replies):
        at = f"{where}.thread[{i}]"
        if not isinstance(reply, Mapping):
            raise _fail(at, "is not an object")
        found.append(
            Comment(
                author=_str(reply, "author", at),
                body=_str(reply, "body", at),
                created_at=_opt_str(reply, "at", at) or "",
                status=_opt_str(reply, "status", at),
            )
        )
    return tuple(found)


def _current(
    anchor: Mapping[str, Any] | None, anchored: int | None, revision: Revision, where: str
) -> bool:
    """Whether a finding's lines number those of the exported revision: anchored in it,
    or at the same two commits (the same blobs: a range limited to paths)."""
    if anchored is None or revision.id is None or anchored == revision.id:
        return True
    assert anchor is not None
    head = _opt_str(anchor, "head", f"{where}.anchor")
    base = _opt_str(anchor, "base", f"{where}.anchor")
    return head is not None and (base, head) == (revision.base, revision.head)


def _anchor(doc: Mapping[str, Any], where: str) -> Mapping[str, Any] | None:
    anchor = doc.get("anchor")
    if anchor is None:
        return None
    if not isinstance(anchor, Mapping):
        raise _fail(where, f"needs 'anchor' as an object or null, not {anchor!r}")
    return anchor
