"""``search_code`` and ``find_references``: every file of the tree at one side of a range.

The tree searched is that side's, read from the object store through git,
never a checkout (:mod:`diffchunk.git.trees`):

- ``old``: the range's base commit (nothing when the range starts at the root);
- ``new``: the head commit of a commit range; the index of a staged review;
  for a review of the working tree, the base's tree with the diff's files as
  the work tree has them (each read as ``open_file_version`` reads it:
  confined, hashed, checked against the diff), deleted ones left out.  The
  work tree's other files are the base's (the diff shows every change).

A diff file (not a range) has no tree: the error says to load the range.

Lines are split at ``\\n``; a pattern is matched against each line without its
line ending as ``re.search(pattern, line)`` does (``regex``: Python's syntax,
run by RE2 in linear time, :mod:`diffchunk.regex`; else the text as it is), so
a line counts once however many times it matches and ``total`` agrees with
``git grep -c`` at that revision (binary files included, as git counts them;
a CRLF line's CR is not part of it, so ``$`` matches before it).  A fixed
string is first looked for by ``git grep -l -F`` (files holding it; ASCII
text, or case kept); a user's regex never reaches git grep's engine.

Bounds: at most :data:`MAX_RESULTS` hits a page from ``offset`` (fewer when they
would not fit one answer), each line cut to :data:`TEXT_CHARS` characters around
its match; :data:`KEPT_HITS` hits kept
for paging (``total`` counts every one); files over :data:`MAX_FILE_BYTES`
are not searched and a tree past :data:`MAX_TREE_BYTES` is searched in part
(the answer names what was left out); :data:`TIME_BUDGET` seconds, checked
between files.  Several names of one ``find_references`` call share that time
and one answer (each page gets its part of it), so a list of names costs no
more than one search.

``find_references`` is ``search_code`` for the whole word ``symbol`` (its
last dotted part; ``\\b`` as ``git grep -w`` sees words), each hit with the
innermost definition it sits in (``in``, from the file's outline at that side),
the lines where a definition of that name starts left out, the hits in
files of another language than the definitions' counted apart (``other_files``:
a word in the docs is no caller), and so are the lines where the name sits only
in comments and strings (``comments_and_strings``, told by the file's syntax
tree; ``search_code`` finds them).  Textual plus syntax-aware: no type
checker, so a same-named attribute of another class is a hit too.
:func:`find_references_each` looks up several names in one call
(``"a, b"``), each paged alike.

The MCP tools answer in the compact text of :mod:`.hits_text`; the typed
result (:meth:`CodeSearch.to_dict`, the command line's ``--json``) keeps every
field.  The last searches of a session are kept (:data:`KEPT_HITS` hits in all),
so paging does not search again.
"""

from __future__ import annotations

import codecs
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from ...diff.model import DiffKind
from ...diff.patterns import PathQuery
from ...errors import FileToolError, InvalidArgument
from ...files.answer_size import json_size
from ...files.matchers import TextMatcher, window_hits
from ...git.trees import TreeFile, files_with, read_tree_blobs, tree_files
from ...limits import CHARS_PER_TOKEN, CODE_SEARCH_DEFAULT_RESULTS, RESPONSE_TOKENS, SHORT_ID
from ...regex import Pattern, compile_regex
from ..paging import check_search
from ..sessions.loading import session
from ..sessions.store import Session, SessionStore
from .diff_search import MAX_PATTERN_CHARS, changed_lines, line_pattern
from .file_versions import open_file_version, side_source
from .search_tree import CodeHit, SearchTree

_BINARY_PROBE = 8_000
"""Bytes at the start of a blob looked at for a NUL to call it binary: git's own
probe (``buffer_is_binary``), so a hit is shown as git grep would show it."""

_LISTED = 10
"""Files named when some are left out of a search (too large): the rest are
counted."""

FRAME_CHARS = 4_000
"""Characters of a search_code answer besides its hits (totals, notes naming
files left out, the references note): the hits fill the answer but this."""

KEPT_HITS = 20_000
"""Hits kept for paging (the rest are counted): a pattern such as ``e`` in a
large tree must not hold millions of lines in memory; the total still counts
every one.  The searches a session keeps hold at most this many together."""

MAX_SYMBOLS = 100
"""Names one find_references call looks up at most: every changed definition of
a file is a few dozen; more is a list pasted by mistake."""

OTHER_FILES_LISTED = 5
"""Files of another language named when find_references counts hits there."""

MAX_FILE_BYTES = 32 << 20
"""A blob larger than this is not searched (and the answer names it): one
generated file must not hold the search."""

MAX_RESULTS = 500
"""The most hits one page holds; each is cut to CODE_SEARCH_TEXT_CHARS, so a
page stays within an answer (500 x ~250 characters)."""

MAX_TREE_BYTES = 1 << 30
"""The most bytes of blobs one search reads: a tree larger than this is searched
in part, and the answer says so (file_pattern narrows it)."""

TEXT_CHARS = 200
"""A hit's text is cut to this many characters around the match: a minified
line must not fill the page."""

TIME_BUDGET = 60.0
"""Seconds one tree-wide search may take, checked between files; past it the
search stops with an error saying to narrow it.  A regex runs in linear time
(RE2), so this bounds the size of the tree, not the pattern."""

OUTLINE_FILES = 200
"""Files outlined to say in which definition each reference sits; past it the
hits keep their lines without ``in`` (outlines cost a parse each)."""

SIDES = ("new", "old")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")

REFERENCES_NOTE = "textual and syntax-aware, not a type checker"


def files_counted(count: int) -> str:
    """``1 file``, ``2 files``: a count of files as the answers write it."""
    return f"{count} file" if count == 1 else f"{count} files"


@dataclass(frozen=True, slots=True)
class CodeSearch:
    """One page of ``search_code`` or ``find_references``."""

    hits: tuple[CodeHit, ...]
    total: int
    files_matched: int
    files_searched: int
    side: str
    revision: str | None
    next_offset: int | None = None
    notes: tuple[str, ...] = ()
    other_files: tuple[int, tuple[str, ...]] | None = None  # references: (hits, files)
    prose: int | None = None  # references: lines holding the name only in comments, strings

    @property
    def where(self) -> str:
        """``at SIDE (REVISION)``: the tree the page searched."""
        return f"at {self.side} ({str(self.revision or 'empty tree')[:SHORT_ID]})"

    def left_apart(self) -> list[str]:
        """What the hits leave out, as a count each ("+N in comments and strings"):
        the text and the command line's summary say it alike."""
        said = []
        if self.other_files is not None:
            hits, files = self.other_files
            said.append(f"+{hits} in {files_counted(len(files))} of other languages")
        if self.prose:
            said.append(f"+{self.prose} in comments and strings")
        return said

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "hits": [h.to_dict() for h in self.hits],
            "total": self.total,
            "files_matched": self.files_matched,
            "files_searched": self.files_searched,
            "side": self.side,
            "revision": self.revision,
        }
        if self.next_offset is not None:
            result["next_offset"] = self.next_offset
        if self.notes:
            result["notes"] = list(self.notes)
        if self.other_files is not None:
            hits, files = self.other_files
            result["other_files"] = {
                "hits": hits,
                "files": len(files),
                "listed": list(files[:OTHER_FILES_LISTED]),
            }
        if self.prose is not None:
            result["comments_and_strings"] = self.prose
        return result


@dataclass(slots=True)
class _Found:
    """What one search found (kept with the session for paging)."""

    hits: list[CodeHit] = field(default_factory=list)
    total: int = 0
    files_matched: int = 0
    files_searched: int = 0
    notes: list[str] = field(default_factory=list)
    other_files: tuple[int, tuple[str, ...]] | None = None
    prose: int | None = None


def _compiled(pattern: str, regex: bool, case_sensitive: bool) -> Pattern:
    if isinstance(pattern, str) and "\0" in pattern:
        raise InvalidArgument(
            "The pattern holds a NUL character (a text searched as it is goes to git grep, "
            "whose arguments cannot hold one).",
            suggestion="Write it as \\x00 in a regex (regex=true).",
        )
    return line_pattern(pattern, regex, case_sensitive)


def _tree(loaded: Session, side: str) -> SearchTree:
    """The files of ``side`` (kept with the session)."""
    key = f"code_search.tree:{side}"
    cached = loaded.cache.get(key)
    if isinstance(cached, SearchTree):
        return cached
    source = side_source(loaded)
    # The tree listed (None: the index): the base's for the old side and for the work
    # tree (its files the diff leaves out are the base's), else the head or the index.
    treeish = source.head if side == "new" and source.kind == "commits" else source.base
    if side == "new" and source.kind == "index":
        files = tree_files(source.repo, None)
    elif treeish is None:
        files = []  # the range starts at the root (or an unborn branch): nothing before it
    else:
        files = tree_files(source.repo, treeish)
    local: dict[str, str] = {}
    if side == "new" and source.kind == "worktree":
        files, local = _work_tree_side(loaded, files)
    revision = source.base if side == "old" else source.new_revision
    tree = SearchTree(source.repo, treeish, files, local, revision)
    loaded.cache[key] = tree
    return tree


def _work_tree_side(loaded: Session, base: list[TreeFile]) -> tuple[list[TreeFile], dict[str, str]]:
    """The base's files, those the diff changes replaced by the work tree's versions."""
    parsed = loaded.review.parsed
    gone = {fd.old_path for fd in parsed.files if fd.old_path}
    local: dict[str, str] = {}
    for fd in parsed.files:
        if fd.new_path is None or fd.is_submodule or fd.kind is DiffKind.COMBINED:
            continue
        local[fd.new_path] = open_file_version(loaded.path, fd.path, "new").path
    kept = [f for f in base if f.path not in gone and f.path not in local]
    return kept, local


def _in_diff(loaded: Session, side: str) -> dict[str, set[int]]:
    key = f"code_search.in_diff:{side}"
    cached = loaded.cache.get(key)
    if not isinstance(cached, dict):
        cached = loaded.cache[key] = changed_lines(loaded.review, side)
    return cached


def _shown(text: str, match: tuple[int, int] | None) -> str:
    if len(text) <= TEXT_CHARS:
        return text
    at = 0 if match is None else match[0]
    start = max(0, min(at - TEXT_CHARS // 4, len(text) - TEXT_CHARS))
    cut = text[start : start + TEXT_CHARS]
    return ("…" if start else "") + cut + ("…" if start + TEXT_CHARS < len(text) else "")


def _lines(data: bytes, compiled: Pattern) -> Iterator[tuple[int, bytes]]:
    """The numbers and bytes of the lines of ``data`` the pattern matches."""
    number, counted = 0, 0
    for start, end in window_hits(TextMatcher(compiled, "utf-8", "regex"), data, len(data)):
        number += data.count(b"\n", counted, start)
        counted = start
        yield number + 1, data[start:end]


def _deadline() -> float:
    return time.monotonic() + TIME_BUDGET


class _Search:
    """One tree-wide search, file by file, within its bounds."""

    def __init__(self, loaded: Session, side: str, compiled: Pattern, deadline: float) -> None:
        self.loaded = loaded
        self.side = side
        self.compiled = compiled
        self.changed = _in_diff(loaded, side)
        self.found = _Found()
        self.deadline = deadline
        self.matched: set[str] = set()

    def file(self, path: str, data: bytes) -> Iterator[CodeHit]:
        if time.monotonic() > self.deadline:
            raise FileToolError(
                f"The search stopped after {TIME_BUDGET:g} s, at {path}: the tree is too "
                "large to search whole.",
                suggestion="Narrow it with file_pattern (e.g. 'src/**/*.py').",
            )
        self.found.files_searched += 1
        binary = b"\0" in data[:_BINARY_PROBE]
        changed = self.changed.get(path, set())
        for number, raw in _lines(data, self.compiled):
            self.matched.add(path)
            text = None
            if not binary:
                line = codecs.decode(raw.removesuffix(b"\r"), "utf-8", "replace")
                text = _shown(line, self.compiled.search_text(line))
            yield CodeHit(path, number, text, number in changed)


def _candidates(
    tree: SearchTree, files: PathQuery | None, prefilter: set[str] | None, notes: list[str]
) -> list[TreeFile]:
    """The object store's files to read, within the size bounds (notes say what is left)."""
    chosen = [
        f
        for f in tree.files
        if (files is None or files.matches(f.path)) and (prefilter is None or f.path in prefilter)
    ]
    large = [f.path for f in chosen if f.size > MAX_FILE_BYTES]
    if large:
        notes.append(
            f"{len(large)} file(s) over {MAX_FILE_BYTES >> 20} MiB not searched: "
            + ", ".join(large[:_LISTED])
        )
    kept: list[TreeFile] = []
    held = 0
    for f in chosen:
        if f.size > MAX_FILE_BYTES:
            continue
        if held + f.size > MAX_TREE_BYTES:
            notes.append(
                f"The tree holds more than {MAX_TREE_BYTES >> 20} MiB: {len(chosen) - len(kept)} "
                "file(s) not searched; narrow the search with file_pattern."
            )
            break
        kept.append(f)
        held += f.size
    return kept


def _run(
    loaded: Session,
    side: str,
    compiled: Pattern,
    files: PathQuery | None,
    literal: tuple[str, bool] | None,
    deadline: float,
) -> _Found:
    tree = _tree(loaded, side)
    search = _Search(loaded, side, compiled, deadline)
    found = search.found
    prefilter = None
    # (files listed with no tree: the index's, which git grep --cached reads)
    if literal is not None and tree.files and (literal[1] or literal[0].isascii()):
        prefilter = files_with(tree.repo, tree.treeish, literal[0], case_sensitive=literal[1])
        if side == "new" and tree.local and prefilter is not None:
            prefilter |= set(tree.local)
    stored = _candidates(tree, files, prefilter, found.notes)
    local = sorted(p for p in tree.local if files is None or files.matches(p))
    sources = _merged(stored, local, tree)
    for path, data in sources:
        for hit in search.file(path, data):
            found.total += 1
            if len(found.hits) < KEPT_HITS:
                found.hits.append(hit)
    if found.total > len(found.hits):
        found.notes.append(
            f"Only the first {KEPT_HITS} hits can be paged ({found.total} in all): narrow "
            "the search."
        )
    found.files_matched = len(search.matched)
    return found


def _merged(
    stored: list[TreeFile], local: list[str], tree: SearchTree
) -> Iterator[tuple[str, bytes]]:
    """The object store's files and the work tree's, in path order (as git grep lists):
    a work-tree path comes before the first stored path greater than it.  One pass
    over each list (``local`` sorted), whatever their lengths."""
    at = 0
    for file, data in read_tree_blobs(tree.repo, stored):
        while at < len(local) and local[at] < file.path:
            yield local[at], tree.local_content(local[at])
            at += 1
        yield file.path, data
    for path in local[at:]:
        yield path, tree.local_content(path)


HITS_CHARS = RESPONSE_TOKENS * CHARS_PER_TOKEN - FRAME_CHARS
"""Characters of one answer its hits may fill (shared by the names of one
find_references call)."""


def _fitting(hits: list[CodeHit], room: int) -> list[CodeHit]:
    """As many of ``hits`` as ``room`` characters hold (at least one)."""
    used = 0
    for count, hit in enumerate(hits):
        used += json_size(hit.to_dict()) + 1
        if count and used > room:
            return hits[:count]
    return hits


def _page(
    found: _Found, tree: SearchTree, side: str, max_results: int, offset: int, room: int
) -> CodeSearch:
    hits = _fitting(found.hits[offset : offset + max_results], room)
    following = offset + len(hits)
    return CodeSearch(
        tuple(hits),
        found.total,
        found.files_matched,
        found.files_searched,
        side,
        tree.revision,
        following if following < min(found.total, len(found.hits)) else None,
        tuple(found.notes),
        found.other_files,
        found.prose,
    )


def _remembered(loaded: Session, key: tuple[Any, ...], make: Any) -> _Found:
    """A search the session keeps, else a new one, kept with the latest ones as long
    as they hold :data:`KEPT_HITS` hits together."""
    recent = loaded.cache.get("code_search.recent")
    if not isinstance(recent, dict):
        recent = loaded.cache["code_search.recent"] = {}
    found: _Found | None = recent.pop(key, None)
    if found is None:
        found = make()
    recent[key] = found  # the latest last
    while len(recent) > 1 and sum(len(f.hits) for f in recent.values()) > KEPT_HITS:
        del recent[next(iter(recent))]
    return found


def search_code(
    absolute_file_path: str,
    pattern: str,
    side: str = "new",
    regex: bool = False,
    case_sensitive: bool = True,
    file_pattern: str | None = None,
    max_results: int = CODE_SEARCH_DEFAULT_RESULTS,
    offset: int = 0,
    *,
    store: SessionStore | None = None,
) -> CodeSearch:
    """The lines of every file of the tree at ``side`` that match (see the module docstring)."""
    check_search(side, SIDES, max_results, MAX_RESULTS, offset)
    compiled = _compiled(pattern, regex, case_sensitive)
    loaded = session(absolute_file_path, store)
    files = PathQuery(file_pattern, name="file_pattern") if file_pattern else None
    literal = None if regex else (pattern, case_sensitive)
    key = ("search", side, pattern, regex, case_sensitive, file_pattern)
    found = _remembered(
        loaded, key, lambda: _run(loaded, side, compiled, files, literal, _deadline())
    )
    return _page(found, _tree(loaded, side), side, max_results, offset, HITS_CHARS)


def find_references(
    absolute_file_path: str,
    symbol: str,
    side: str = "new",
    max_results: int = CODE_SEARCH_DEFAULT_RESULTS,
    offset: int = 0,
    *,
    store: SessionStore | None = None,
    deadline: float | None = None,
    room: int = HITS_CHARS,
) -> CodeSearch:
    """Where ``symbol`` is used across the tree at ``side`` (see the module docstring);
    ``deadline`` (a :func:`time.monotonic` time) and ``room`` (characters of hits)
    are those of a call that looks up several names."""
    check_search(side, SIDES, max_results, MAX_RESULTS, offset)
    name = _reference_name(symbol)
    loaded = session(absolute_file_path, store)
    key = ("references", side, name)
    until = _deadline() if deadline is None else deadline
    found = _remembered(loaded, key, lambda: _references(loaded, side, name, until))
    page = _page(found, _tree(loaded, side), side, max_results, offset, room)
    return replace(page, notes=(REFERENCES_NOTE, *page.notes))


def find_references_each(
    absolute_file_path: str,
    symbol: str,
    side: str = "new",
    max_results: int = CODE_SEARCH_DEFAULT_RESULTS,
    offset: int = 0,
    *,
    store: SessionStore | None = None,
) -> list[tuple[str, CodeSearch]]:
    """:func:`find_references` of each name of ``symbol`` (names separated by commas
    or spaces; each identifier looked for once, under that name), each paged by
    ``max_results`` and ``offset``."""
    if not isinstance(symbol, str):
        _reference_name(symbol)  # the error saying what a name is
    asked = [n for n in re.split(r"[\s,]+", symbol.strip()) if n]
    if len(asked) > MAX_SYMBOLS:
        raise InvalidArgument(
            f"{len(asked)} names: find_references looks up at most {MAX_SYMBOLS} at once.",
            suggestion="Ask for the names of one file at a time.",
        )
    # Every name checked before any search; each looked for once; all in one time
    # budget and one answer.
    names = list(dict.fromkeys(_reference_name(n) for n in asked)) or [symbol]
    until, room = _deadline(), HITS_CHARS // len(names)
    return [
        (
            name,
            find_references(
                absolute_file_path,
                name,
                side,
                max_results,
                offset,
                store=store,
                deadline=until,
                room=room,
            ),
        )
        for name in names
    ]


def _reference_name(symbol: str) -> str:
    """The identifier ``symbol`` names (its last dotted part), or an error saying so."""
    if not isinstance(symbol, str) or not symbol.strip():
        raise InvalidArgument("symbol is empty.", suggestion="Pass a name, e.g. 'parse_args'.")
    name = symbol.strip().rsplit(".", 1)[-1].rsplit("::", 1)[-1]
    if not _IDENTIFIER.fullmatch(name) or len(name) > MAX_PATTERN_CHARS:
        raise InvalidArgument(
            f"{symbol!r} is not a name: find_references takes an identifier "
            "(or a dotted name, whose last part is looked for; several: 'a, b').",
            suggestion="Pass a function, class or variable name; search_code finds any text.",
        )
    return name


def _references(loaded: Session, side: str, name: str, deadline: float) -> _Found:
    compiled = compile_regex(r"\b" + re.escape(name) + r"\b")
    found = _run(loaded, side, compiled, None, (name, True), deadline)
    from .references import place_hits, split_languages

    placed = place_hits(_tree(loaded, side), found.hits, name, OUTLINE_FILES, deadline)
    same, other = split_languages(placed.hits, placed.defining)
    found.hits = [h for h in same if (h.path, h.line) not in placed.prose]
    prose = len(same) - len(found.hits)
    found.total -= placed.definitions + len(other) + prose
    found.prose = prose
    if other:
        found.other_files = (len(other), tuple(dict.fromkeys(h.path for h in other)))
    if found.total == len(found.hits):
        found.files_matched = len({hit.path for hit in found.hits})
    else:
        dropped = {h.path for h in other} | {path for path, _ in placed.prose}
        found.files_matched -= len(dropped - {h.path for h in found.hits})
    return found
