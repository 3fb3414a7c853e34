"""Decide which files of a parsed diff are reviewed: ``filter_files``.

Every file ends up in exactly one of ``FilterResult.kept`` and
``FilterResult.excluded`` (with a reason and a short detail), in diff order.
Steps, first decision wins:

1. ``include_patterns`` / ``exclude_patterns`` (:class:`PathPatterns`): a file
   is tested by its new path and, for renames, copies and deletions, its old
   path too.  With include patterns, a file none of them selects is excluded;
   an exclude pattern wins over an include pattern.
2. ``skip_generated``: :class:`GeneratedFileDetector` (``.gitattributes``
   first, then path and header heuristics).
3. ``skip_trivial``: a whitespace-only content change: blank lines,
   indentation, trailing spaces, CRLF vs LF, a final newline, the amount of
   whitespace between two words.  Within each hunk, every line of the old side
   (context and removed lines) and of the new side (context and added lines)
   loses its leading and trailing whitespace and has each run of whitespace
   inside it made one space; lines left empty are dropped, and the two
   sequences must be equal.  So whitespace that appears or disappears between
   two characters (``"a b"`` to ``"ab"``, ``x=1`` to ``x = 1``) is a real
   change, and so is a line moved past a context line.  Where indentation is
   syntax (Python, YAML, Makefiles, Haskell... see :func:`indentation_is_syntax`)
   the leading whitespace is compared as written: re-indenting a line there
   changes the program.  Never trivial: changes without hunks (rename, copy,
   mode, binary, empty new/deleted file), any rename/copy/mode change even
   with whitespace-only edits, added or deleted files (their existence is the
   change), combined diffs of merges (their columns mix several parents;
   deciding would need each parent's view) and sections flagged malformed.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest

from .attributes import AttributeSource
from .buffer import DiffData, trimmer
from .generated import GeneratedFileDetector, Heuristics
from .model import (
    DiffKind,
    Excluded,
    ExcludeReason,
    FileDiff,
    FileStatus,
    LazyHunks,
    ParsedDiff,
)
from .patterns import PathPatterns
from .table import ExcludedFiles, FileTable, FileView, table_of

# Enum members bound once (a lookup on the class costs about 0.1 us per file).
_COMBINED = DiffKind.COMBINED
_MODIFIED = FileStatus.MODIFIED


_OLD_SIDE = re.compile(rb"^[ -](.*)", re.MULTILINE)
_NEW_SIDE = re.compile(rb"^[ +](.*)", re.MULTILINE)
_NONBLANK_ADDED = re.compile(rb"^\+[ \t\r\x0b\x0c]*[^ \t\r\x0b\x0c\n]", re.MULTILINE)
_NONBLANK_REMOVED = re.compile(rb"^-[ \t\r\x0b\x0c]*[^ \t\r\x0b\x0c\n]", re.MULTILINE)
_WHITESPACE = b" \t\r\x0b\x0c"
_FIRST_CHANGE = re.compile(rb"\n[+-]")
_NONBLANK_OLD = re.compile(rb"^[ -]([ \t\r\x0b\x0c]*[^ \t\r\x0b\x0c\n].*)", re.MULTILINE)
_NONBLANK_NEW = re.compile(rb"^[ +]([ \t\r\x0b\x0c]*[^ \t\r\x0b\x0c\n].*)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class FilterResult:
    # Sequences of the parse's sections: a FileView and ExcludedFiles from filter_files.
    kept: Sequence[FileDiff]
    excluded: Sequence[Excluded]
    files_excluded_by_pattern: int = 0
    # Paths of kept files that ``.gitattributes`` marks ``-diff`` or ``binary``
    # (git would show them as binary; list_chunks says so).
    binary_by_attributes: frozenset[str] = field(default_factory=frozenset)


# File names and extensions of languages whose indentation is syntax.
_INDENT_SYNTAX_NAMES = frozenset({"makefile", "gnumakefile", "bsdmakefile"})
_INDENT_SYNTAX_SUFFIXES = (
    *(".py", ".pyi", ".pyw", ".pyx", ".pxd"),  # Python, Cython
    *(".yaml", ".yml"),
    *(".mk", ".mak"),  # Makefiles: a recipe line starts with a tab
    *(".hs", ".lhs", ".elm", ".fs", ".fsi", ".fsx", ".nim", ".nims"),
    *(".coffee", ".sass", ".styl", ".pug", ".jade", ".haml", ".slim"),
)


def indentation_is_syntax(path: str) -> bool:
    """Whether re-indenting a line of ``path`` can change what it means."""
    name = path.rsplit("/", 1)[-1].lower()
    return name in _INDENT_SYNTAX_NAMES or name.endswith(_INDENT_SYNTAX_SUFFIXES)


def _words(line: bytes) -> bytes:
    """``line`` without leading and trailing whitespace, each inner run one space."""
    return b" ".join(line.split())


def _indent_and_words(line: bytes) -> bytes:
    """Like :func:`_words`, the leading whitespace kept as written (blank lines: empty)."""
    words = line.split()
    if not words:
        return b""
    return line[: len(line) - len(line.lstrip(_WHITESPACE))] + b" ".join(words)


def _hunk_whitespace_only(
    body: bytes | bytearray, removed: int, added: int, keep_indent: bool = False
) -> bool:
    if not removed and not added:
        return True
    if not removed:
        return _NONBLANK_ADDED.search(body) is None
    if not added:
        return _NONBLANK_REMOVED.search(body) is None
    # Both sides with their context lines, so that a line moved past context
    # is a change.  Compared lazily: most hunks differ at their first change.
    norm = _indent_and_words if keep_indent else _words
    old = filter(None, (norm(m.group(1)) for m in _OLD_SIDE.finditer(body)))
    new = filter(None, (norm(m.group(1)) for m in _NEW_SIDE.finditer(body)))
    return all(a == b for a, b in zip_longest(old, new))


def is_whitespace_only(file: FileDiff, data: DiffData | bytearray) -> bool:
    """True when every hunk of ``file`` only changes whitespace (see the module doc)."""
    if (
        not file.hunks
        or file.kind is _COMBINED
        or file.malformed is not None
        or file.is_binary
        or file.is_submodule
        or file.status is not _MODIFIED
        or (file.old_mode is not None and file.old_mode != file.new_mode)
    ):
        return False
    hunks = file.hunks
    if isinstance(hunks, LazyHunks) and not hunks.materialised:
        # One look at the whole hunk region first, without building the hunks.
        if not _region_may_be_whitespace_only(data, hunks.start, hunks.end, file):
            return False
        if not file.removed or not file.added:
            return True  # the region check was exact (see there)
    keep_indent = indentation_is_syntax(file.path)
    return all(
        _hunk_whitespace_only(data[h.body_start : h.end], h.removed, h.added, keep_indent)
        for h in hunks
    )


def _region_may_be_whitespace_only(
    data: DiffData | bytearray, start: int, end: int, file: FileDiff
) -> bool:
    """A necessary condition for every hunk in ``data[start:end]`` to be whitespace-only.

    Header and marker lines match neither side's pattern.  When the file has
    no removed (added) line, every hunk has none either and the answer is
    exact: no added (removed) line may hold more than whitespace.  Otherwise
    the old and new sides of the whole region are compared with all
    whitespace removed (lines equal as :func:`_hunk_whitespace_only` compares
    them are equal so too); equal sides per hunk imply equal sides for the
    concatenation, so a difference proves the file is not whitespace-only,
    and equality needs the per-hunk check.
    """
    if not file.removed:
        return _NONBLANK_ADDED.search(data, start, end) is None
    if not file.added:
        return _NONBLANK_REMOVED.search(data, start, end) is None
    # Lines before the first change are context (or headers): the same on both sides.
    first = _FIRST_CHANGE.search(data, start - 1, end)
    if first is None:
        return True
    start = first.start() + 1
    # Most files differ at their first non-blank line on each side from there.
    first_old = _NONBLANK_OLD.search(data, start, end)
    first_new = _NONBLANK_NEW.search(data, start, end)
    if first_old is None or first_new is None:
        return first_old is first_new
    if first_old.group(1).translate(None, _WHITESPACE) != first_new.group(1).translate(
        None, _WHITESPACE
    ):
        return False
    old = filter(
        None,
        (m.group(1).translate(None, _WHITESPACE) for m in _OLD_SIDE.finditer(data, start, end)),
    )
    new = filter(
        None,
        (m.group(1).translate(None, _WHITESPACE) for m in _NEW_SIDE.finditer(data, start, end)),
    )
    return all(a == b for a, b in zip_longest(old, new))


class Prescreen:
    """The per-file verdicts that neither load options nor attributes change, made ahead.

    A git review feeds it each file section as soon as the section is parsed,
    while ``git diff`` still writes the rest, so that :func:`filter_files`
    finds the path and content heuristics and the whitespace check done.
    The verdicts belong to the sections of one table (the parse's
    :class:`~diffchunk.diff.table.FileTable`) and are used only for a section
    of that table at the same place: a diff parsed again (or whose context was
    reduced) is judged anew.  Kept compact: a span and a flag per section, and
    the heuristics that say something.
    """

    __slots__ = ("_detector", "_flagged", "_known", "_spans", "_table", "_whitespace")

    def __init__(self) -> None:
        self._detector = GeneratedFileDetector(None)
        self._table: Sequence[FileDiff] | None = None
        self._spans = array("q")  # start and end of each section judged (-1: not judged)
        self._whitespace = bytearray()
        self._flagged: dict[int, Heuristics] = {}  # verdicts other than "neither"
        self._known = 0

    def add(
        self,
        files: Iterable[FileDiff],
        data: DiffData | bytearray,
        *,
        table: Sequence[FileDiff] | None = None,
    ) -> None:
        """Judge ``files``, sections of ``table`` (default: ``files`` itself, a parse's
        table) whose text ``data`` holds at their recorded offsets."""
        owner = table if table is not None else files
        if not isinstance(owner, FileTable):
            raise TypeError("Prescreen.add: name the table the files are sections of")
        if self._table is None:
            self._table = owner
        elif owner is not self._table:
            raise ValueError("Prescreen.add: the files of another parse")
        detector, spans = self._detector, self._spans
        for file in files:
            i = file.index
            if 2 * i + 1 >= len(spans):
                spans.extend([-1] * (2 * (i + 1) - len(spans)))
                self._whitespace.extend(bytes(i + 1 - len(self._whitespace)))
            if spans[2 * i] < 0:
                self._known += 1
            spans[2 * i], spans[2 * i + 1] = file.start, file.end
            heuristics = detector.heuristics(file, data)
            if heuristics.verdict() is not None:
                self._flagged[i] = heuristics
            else:
                self._flagged.pop(i, None)
            self._whitespace[i] = is_whitespace_only(file, data)

    def get(self, file: FileDiff, table: Sequence[FileDiff]) -> tuple[Heuristics, bool] | None:
        """``(heuristics, whitespace_only)`` made for ``file`` of ``table``, or None."""
        i, spans = file.index, self._spans
        if table is not self._table or 2 * i + 1 >= len(spans):
            return None
        if (spans[2 * i], spans[2 * i + 1]) != (file.start, file.end):
            return None
        return self._flagged.get(i, _NEITHER), bool(self._whitespace[i])

    def __len__(self) -> int:
        return self._known


_NEITHER = Heuristics(None, None)


def _patterns(value: str | None, name: str) -> PathPatterns | None:
    if value is None:
        return None
    patterns = PathPatterns(value, name=name)
    return patterns if patterns else None


def _pattern_verdict(
    files: FileTable, i: int, include: PathPatterns | None, exclude: PathPatterns | None
) -> str | None:
    new_path, old_path = files.new_path(i), files.old_path(i)
    paths = [new_path]
    if old_path is not None and old_path != new_path:
        paths.append(old_path)
    if exclude is not None:
        hit = exclude.matches_any(paths)
        if hit is not None:
            return f"matches exclude pattern '{hit}'"
    if include is not None and include.matches_any(paths) is None:
        return "not matched by include patterns"
    return None


def filter_files(
    parsed: ParsedDiff,
    *,
    skip_trivial: bool,
    skip_generated: bool,
    include_patterns: str | None,
    exclude_patterns: str | None,
    attributes: AttributeSource | None = None,
    prescreen: Prescreen | None = None,
) -> FilterResult:
    """Split ``parsed.files`` into kept and excluded files (see the module doc).

    Bad patterns raise :class:`~diffchunk.errors.InvalidArgument`.  With an
    attribute source, its ``lookup`` is called once, for all remaining paths.
    ``prescreen`` holds verdicts already made for some of the files.  Each
    file's FileDiff is built once, for the content checks (the patterns read
    the paths from the table).
    """
    include = _patterns(include_patterns, "include_patterns")
    exclude = _patterns(exclude_patterns, "exclude_patterns")
    files = table_of(parsed.files, parsed.data)
    kept = array("q")
    excluded = ExcludedFiles(files)
    by_pattern = 0

    candidates: Iterable[int] = range(len(files))
    if include is not None or exclude is not None:
        left = array("q")
        for i in candidates:
            detail = _pattern_verdict(files, i, include, exclude)
            if detail is not None:
                excluded.add(i, ExcludeReason.PATTERN, detail)
                by_pattern += 1
            else:
                left.append(i)
        candidates = left

    detector = GeneratedFileDetector(attributes)
    if attributes is not None:
        detector.prefetch([files.path(i) for i in candidates])

    binary: set[str] = set()
    trim = trimmer(parsed.data)
    for i in candidates:
        file = files[i]
        if trim is not None:
            trim(file.start)
        known = prescreen.get(file, parsed.files) if prescreen is not None else None
        if skip_generated:
            verdict = detector.classify(file, parsed, None if known is None else known[0])
            if verdict is not None:
                excluded.add(i, verdict[0], verdict[1])
                continue
        if skip_trivial and (is_whitespace_only(file, parsed.data) if known is None else known[1]):
            excluded.add(i, ExcludeReason.TRIVIAL, "whitespace-only change")
            continue
        kept.append(i)
        if attributes is not None and detector.is_binary(file):
            binary.add(file.path)

    if by_pattern:
        excluded.sort()
    return FilterResult(
        kept=FileView(files, kept),
        excluded=excluded,
        files_excluded_by_pattern=by_pattern,
        binary_by_attributes=frozenset(binary),
    )
