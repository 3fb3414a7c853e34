"""The diff tools as plain functions: the MCP server and the CLI both call these.

Every function takes the diff file's absolute path and loads it on first use
(default options), so a caller never has to call :func:`load_diff` first.
Results are JSON-ready dicts, lists and strings in the shapes of the tool
documentation; failures raise :class:`~diffchunk.errors.DiffchunkError`
subclasses whose message says what to do next.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..diff.formatter import format_chunk, normalize_format
from ..diff.model import Chunk, Excluded, FileDiff, FileStatus
from ..diff.options import LoadOptions, Progress
from ..diff.parser import parse_diff
from ..diff.patterns import PathPatterns
from ..diff.pipeline import Review
from ..errors import FileNotInDiff, InvalidArgument, NotADiffError, PathError
from ..paths import fingerprint, resolve_regular_file
from .sessions import Session, SessionStore, default_store

# A response should stay under about 20k tokens (token ~ 4 characters).
RESPONSE_TOKENS = 20_000
CHARS_PER_TOKEN = 4
# Lines longer than this are shortened in get_chunk output of an oversized chunk.
LONG_LINE_CHARS = 2_000
MAX_CANDIDATES = 20
LOAD_EXCLUDED_LISTED = 50


def _store(store: SessionStore | None) -> SessionStore:
    return store if store is not None else default_store()


# A large file is only read whole once its first MiB holds a diff (or a commit).
SNIFF_ABOVE = 64 * 1024 * 1024
SNIFF_BYTES = 1024 * 1024
_SNIFFED_KEPT = 64
_sniffed: OrderedDict[tuple[str, tuple[int, int, int, int, int]], None] = OrderedDict()
_sniffed_lock = threading.Lock()


def _refuse_large_non_diff(path: str) -> None:
    """Refuse a large file whose head holds no diff, before reading all of it.

    (A 2 GB disk image or log would otherwise be read and parsed whole just to
    learn that it is not a diff.)
    """
    real, st = resolve_regular_file(path, what="diff file")
    if st.st_size < SNIFF_ABOVE:
        return
    key = (real, fingerprint(st))
    with _sniffed_lock:
        if key in _sniffed:
            return
    try:
        with open(real, "rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError as exc:
        raise PathError(
            f"The diff file {path!r} cannot be read: {exc.strerror or exc}.",
            suggestion="Check that it exists and is readable.",
        ) from None
    cut = head.rfind(b"\n") + 1
    try:
        parse_diff(head[:cut] if cut else head)
    except NotADiffError:
        raise NotADiffError(
            f"{path!r} ({st.st_size:,} bytes) does not look like a diff: its first "
            f"{SNIFF_BYTES // 1024} KiB hold no diff header ('diff --git', '--- a/file' + "
            "'+++ b/file', '@@ ... @@') and no commit; it was not read further.",
            suggestion="Pass the output of git diff, git log -p, git format-patch or diff -u.",
        ) from None
    with _sniffed_lock:
        _sniffed[key] = None
        while len(_sniffed) > _SNIFFED_KEPT:
            _sniffed.popitem(last=False)


def _checked(path: str, store: SessionStore | None) -> None:
    """Refuse a large non-diff early; a path that is gone also drops its session."""
    try:
        _refuse_large_non_diff(path)
    except PathError:
        _store(store).forget(path)
        raise


def _session(path: str, store: SessionStore | None) -> Session:
    _checked(path, store)
    return _store(store).get(path)


def loaded_session(absolute_file_path: str, *, store: SessionStore | None = None) -> Session:
    """The fresh session of a diff file, as every diff tool gets it (loaded with the
    defaults if it is not yet; a large file that is no diff refused before it is read).
    For the review record (:mod:`diffchunk.review.record.changes`)."""
    return _session(absolute_file_path, store)


def _record_seen(session: Session, **returned: Any) -> None:
    """The review record notes what a tool returned as seen (best effort, never raises;
    see :func:`diffchunk.review.record.service.record_seen`)."""
    from .record.service import record_seen

    record_seen(session, **returned)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# --------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------


def _commit_label(review: Review, file_index: int) -> str | None:
    """The commit of a file section in a multi-commit stream (short sha or subject)."""
    parsed = review.parsed
    if len(parsed.commits) < 2 or not 0 <= file_index < len(parsed.files):
        return None
    commit = parsed.files[file_index].commit
    if commit is None:
        return None
    info = parsed.commits[commit]
    return info.sha[:12] if info.sha else info.subject


def excluded_entry(review: Review, ex: Excluded) -> dict[str, Any]:
    entry: dict[str, Any] = {"path": ex.path, "reason": ex.reason.value}
    if ex.detail:
        entry["detail"] = ex.detail
    commit = _commit_label(review, ex.file_index)
    if commit is not None:
        entry["commit"] = commit
    return entry


def _file_detail(review: Review, file_index: int, path: str, lines: int) -> dict[str, Any]:
    detail: dict[str, Any] = {"path": path, "lines": lines}
    fd = review.parsed.files[file_index]
    if fd.status is not FileStatus.MODIFIED:
        detail["status"] = fd.status.value
        if fd.status in (FileStatus.RENAMED, FileStatus.COPIED) and fd.old_path:
            detail["from"] = fd.old_path
    if fd.is_binary:
        detail["binary"] = True
    elif fd.metadata_only:
        detail["metadata_only"] = True
    elif path in review.binary_by_attributes:
        detail["binary_by_attributes"] = True  # -diff/binary: git would not show this text
    return detail


def _summary(chunk: Chunk) -> str:
    files = chunk.files
    lines = f"{chunk.line_count} line{'s' if chunk.line_count != 1 else ''}"
    if chunk.parent_file is not None:
        part = next((p for p in chunk.parts if p.path == chunk.parent_file), None)
        of = f" of {part.parts}" if part is not None and part.parts else ""
        text = f"part {chunk.sub_chunk_index}{of} of {chunk.parent_file}, {lines}"
    else:
        text = f"{len(files)} file{'s' if len(files) != 1 else ''}, {lines}"
    if chunk.oversized:
        text += " (oversized: a single line or binary payload exceeds the budget)"
    return text


def chunk_entry(review: Review, chunk: Chunk) -> dict[str, Any]:
    """The list_chunks entry of one chunk."""
    details: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for part in chunk.parts:
        at = index.get(part.path)
        if at is None:
            index[part.path] = len(details)
            details.append(_file_detail(review, part.file_index, part.path, part.lines))
        else:
            details[at]["lines"] += part.lines
    entry: dict[str, Any] = {
        "chunk": chunk.number,
        "files": chunk.files,
        "file_details": details,
        "lines": chunk.line_count,
        "token_count": chunk.token_count,
        "summary": _summary(chunk),
    }
    if chunk.parent_file is not None:
        entry["parent_file"] = chunk.parent_file
        entry["sub_chunk_index"] = chunk.sub_chunk_index
    if chunk.oversized:
        entry["oversized"] = True
    return entry


class _Listing:
    """list_chunks entries and their JSON sizes, built on demand and kept.

    A page only builds the entries it shows, so no single call pays for the
    listing of a whole large diff; a size is measured only for paging.
    """

    def __init__(self, review: Review) -> None:
        self._review = review
        self._entries: list[dict[str, Any] | None] = [None] * len(review.chunks)
        self._sizes: list[int] = [-1] * len(review.chunks)
        self.total_tokens = sum(c.token_count for c in review.chunks)
        self.excluded = [excluded_entry(review, ex) for ex in review.excluded]
        self._excluded_chars = -1

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def excluded_chars(self) -> int:
        """The length of the JSON text of :attr:`excluded` (measured for paging only)."""
        if self._excluded_chars < 0:
            self._excluded_chars = len(_dumps(self.excluded))
        return self._excluded_chars

    def entry(self, i: int) -> dict[str, Any]:
        """The entry of chunk index ``i`` (0-based)."""
        entry = self._entries[i]
        if entry is None:
            # Two threads may both build it; either result is the same.
            entry = chunk_entry(self._review, self._review.chunks[i])
            self._entries[i] = entry
        return entry

    def sized_entry(self, i: int) -> tuple[dict[str, Any], int]:
        """The entry of chunk index ``i`` and the length of its JSON text."""
        entry = self.entry(i)
        size = self._sizes[i]
        if size < 0:
            size = self._sizes[i] = len(_dumps(entry))
        return entry, size


def _listing(session: Session) -> _Listing:
    """The session's listing (created once per session)."""
    cached = session.cache.get("listing")
    if cached is None:
        cached = _Listing(session.review)
        session.cache["listing"] = cached
    assert isinstance(cached, _Listing)
    return cached


def _load_summary(session: Session) -> dict[str, Any]:
    review = session.review
    stats = review.stats
    result: dict[str, Any] = {
        "chunks": stats.chunks_count,
        "files": stats.total_files,
        "total_lines": stats.total_lines,
        "file_path": session.path,
        "files_excluded": stats.files_excluded,
    }
    excluded = [excluded_entry(review, ex) for ex in review.excluded[:LOAD_EXCLUDED_LISTED]]
    result["excluded"] = excluded
    if stats.files_excluded > len(excluded):
        result["excluded_more"] = stats.files_excluded - len(excluded)
    if review.parsed.warnings:
        result["warnings"] = list(review.parsed.warnings[:MAX_CANDIDATES])
    return result


# --------------------------------------------------------------------------
# Tools
# --------------------------------------------------------------------------


def load_diff(
    absolute_file_path: str,
    max_chunk_lines: int = 1000,
    skip_trivial: bool = True,
    skip_generated: bool = True,
    include_patterns: str | None = None,
    exclude_patterns: str | None = None,
    context_lines: int | None = None,
    gitattributes_path: str | None = None,
    *,
    store: SessionStore | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Load (or reload with new options) a diff file; return its summary."""
    attrs = None
    if gitattributes_path is not None and str(gitattributes_path).strip():
        attrs, _ = resolve_regular_file(gitattributes_path, what=".gitattributes file")
    options = LoadOptions(
        max_chunk_lines=max_chunk_lines,
        skip_trivial=skip_trivial,
        skip_generated=skip_generated,
        include_patterns=include_patterns,
        exclude_patterns=exclude_patterns,
        context_lines=context_lines,
        gitattributes_path=attrs,
    )
    _checked(absolute_file_path, store)
    session = _store(store).get(absolute_file_path, options, reload_options=True, progress=progress)
    return _load_summary(session)


def _check_page(offset: int, limit: int | None, total: int) -> None:
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidArgument(
            f"offset must be a non-negative integer, got {offset!r}.",
            suggestion="Use 0 for the first page, then the next_offset of the previous page.",
        )
    if offset > total:
        raise InvalidArgument(
            f"offset={offset} is past the end: this diff has {total} chunks.",
            suggestion=f"Use an offset between 0 and {max(total - 1, 0)}.",
        )
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InvalidArgument(
            f"limit must be a positive integer, got {limit!r}.",
            suggestion="Leave it unset to get as many chunks as fit in one response.",
        )


def list_chunks(
    absolute_file_path: str,
    offset: int = 0,
    limit: int | None = None,
    *,
    store: SessionStore | None = None,
    max_tokens: int | None = RESPONSE_TOKENS,
) -> dict[str, Any]:
    """Chunk metadata (files, lines, tokens, summaries) and what was excluded.

    The listing pages when it would exceed ``max_tokens``: the response then
    carries ``next_offset`` (pass it as ``offset``).  ``max_tokens=None``
    returns everything (the CLI's ``--json``).
    """
    session = _session(absolute_file_path, store)
    listing = _listing(session)
    total = len(listing)
    _check_page(offset, limit, total)
    end = total if limit is None else min(total, offset + limit)

    excluded = listing.excluded
    result: dict[str, Any] = {
        "chunks": [],
        "total_token_count": listing.total_tokens,
        "total_chunks": total,
        "excluded": excluded,
    }
    if max_tokens is None:
        result["chunks"] = [listing.entry(i) for i in range(offset, end)]
        return result

    budget = max_tokens * CHARS_PER_TOKEN
    if listing.excluded_chars > budget // 2:
        kept: list[dict[str, Any]] = []
        used = 0
        for item in excluded:
            size = len(_dumps(item)) + 2
            if used + size > budget // 2:
                break
            kept.append(item)
            used += size
        result["excluded"] = kept
        result["excluded_total"] = len(excluded)
        result["excluded_truncated"] = True
    used = len(_dumps(result)) + 64  # room for next_offset
    page: list[dict[str, Any]] = []
    stop = offset
    while stop < end:
        entry, size = listing.sized_entry(stop)
        if page and used + size + 2 > budget:
            break
        if not page and used + size + 2 > budget:
            entry, size = _shortened_entry(entry, size, budget - used - 2)
        page.append(entry)
        used += size + 2
        stop += 1
    result["chunks"] = page
    if stop < total:
        result["next_offset"] = stop
    return result


def _shortened_entry(entry: dict[str, Any], size: int, room: int) -> tuple[dict[str, Any], int]:
    """A chunk's listing entry (``size`` characters as JSON) whose file lists alone
    exceed a response (thousands of files with long names), with as many files
    as fit and the counts."""
    files = entry.get("files") or []
    details = entry.get("file_details") or []
    keep = len(files)
    shortened = entry
    while keep > 1 and size > room:
        keep = max(1, min(keep - 1, keep * room // size))
        shortened = dict(entry, files=files[:keep], file_details=details[:keep])
        shortened["files_listed"] = keep
        shortened["files_total"] = len(files)
        shortened["files_note"] = (
            "The chunk's file list is cut to fit one response; get_chunk shows every file, "
            "and find_chunks_for_files finds a file's chunk."
        )
        size = len(_dumps(shortened))
    return shortened, size


def get_chunk_bytes(
    absolute_file_path: str, chunk_number: int, *, store: SessionStore | None = None
) -> bytes:
    """The exact text of one chunk (a valid patch on its own)."""
    return _session(absolute_file_path, store).review.chunk_bytes(chunk_number)


def _shorten_long_lines(text: str, limit: int) -> tuple[str, int]:
    out: list[str] = []
    shortened = 0
    for line in text.splitlines(keepends=True):
        if len(line) > limit:
            shortened += 1
            body = line.rstrip("\r\n")
            ending = line[len(body) :]
            line = f"{body[:limit]} … [{len(body) - limit} more characters]{ending}"
        out.append(line)
    return "".join(out), shortened


def _chunk_banner(review: Review, chunk: Chunk, fmt: str) -> list[str]:
    files = chunk.files
    shown = ", ".join(files[:MAX_CANDIDATES])
    if len(files) > MAX_CANDIDATES:
        shown += f" (+{len(files) - MAX_CANDIDATES} more)"
    lines = [
        f"=== Chunk {chunk.number} of {len(review.chunks)} ===",
        f"Files: {shown}",
    ]
    if chunk.parent_file is not None:
        part = next((p for p in chunk.parts if p.path == chunk.parent_file), None)
        of = f" of {part.parts}" if part is not None and part.parts else ""
        lines.append(f"Part {chunk.sub_chunk_index}{of} of {chunk.parent_file} (split file)")
    lines.append(f"Lines: {chunk.line_count} | Tokens: ~{chunk.token_count} | Format: {fmt}")
    return lines


def get_chunk(
    absolute_file_path: str,
    chunk_number: int,
    include_context: bool = True,
    format: str = "raw",
    *,
    store: SessionStore | None = None,
) -> str:
    """One chunk's diff text, optionally formatted and with a short banner."""
    fmt = normalize_format(format)
    session = _session(absolute_file_path, store)
    review = session.review
    chunk = review.chunk(chunk_number)
    raw = review.chunk_bytes(chunk_number)
    text = format_chunk(raw, fmt, review.look_ahead(chunk_number))
    _record_seen(session, chunk_number=chunk_number)
    if not include_context:
        return text
    banner = _chunk_banner(review, chunk, fmt)
    if fmt == "raw" and not _is_utf8(raw):
        banner.append(
            "Note: this chunk holds text that is not UTF-8 (shown with U+FFFD in its place), "
            "so this text is not the exact patch; `diffchunk review --chunk "
            f"{chunk_number} {absolute_file_path}` writes the exact bytes."
        )
    if len(text) > RESPONSE_TOKENS * CHARS_PER_TOKEN:
        # An oversized chunk (one unit too big to cut), or a format that
        # adds to the text (annotated shows context lines twice).
        text, shortened = _shorten_long_lines(text, LONG_LINE_CHARS)
        if shortened:
            banner.append(
                f"Note: {shortened} very long line(s) shortened to {LONG_LINE_CHARS} characters; "
                "use include_context=false (or the CLI's --chunk) for the exact text."
            )
        text, left_out = _fit_response(text)
        if left_out:
            banner.append(
                f"Note: cut after {text.count(chr(10))} lines to fit one response; {left_out} "
                "more line(s) follow. include_context=false (or the CLI's --chunk) returns "
                "the whole chunk; a smaller max_chunk_lines makes chunks that fit."
            )
    return "\n".join(banner) + "\n\n" + text


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _fit_response(text: str) -> tuple[str, int]:
    """``text`` up to its last line that fits one response, and how many lines are left out."""
    limit = RESPONSE_TOKENS * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text, 0
    cut = text.rfind("\n", 0, limit) + 1 or limit
    rest = text[cut:]
    return text[:cut], rest.count("\n") + (not rest.endswith("\n"))


# --------------------------------------------------------------------------
# Path matching: diff.patterns.PathPatterns (case-insensitive, .gitignore rules)
# --------------------------------------------------------------------------


def _patterns(pattern: str) -> PathPatterns:
    if not isinstance(pattern, str) or not pattern.strip():
        raise InvalidArgument(
            "The pattern is empty.",
            suggestion="Pass a glob such as '*.py', 'src/**' or an exact path from list_chunks.",
        )
    return PathPatterns(pattern, name="pattern")


def _all_paths(review: Review) -> list[str]:
    seen: dict[str, None] = {}
    for fd in review.parsed.files:
        seen.setdefault(fd.path, None)
    return list(seen)


def find_chunks_for_files(
    absolute_file_path: str, pattern: str, *, store: SessionStore | None = None
) -> list[int]:
    """Numbers of the chunks holding files that match ``pattern`` (sorted).

    A path as listed (case ignored, as in the globs) matches itself too, even
    where it reads differently as a glob (``app/[id]/page.tsx``, or a name
    shown with backslash escapes): the whole ``pattern`` (a name may hold a
    comma), or one of its comma-separated items (:meth:`PathPatterns.names`).
    """
    patterns = _patterns(pattern)
    whole = PathPatterns([pattern.strip()], name="pattern")
    review = _session(absolute_file_path, store).review
    found: set[int] = set()
    for path, numbers in review.file_to_chunks.items():
        if patterns.matches(path) or patterns.names(path) or whole.names(path):
            found.update(numbers)
    return sorted(found)


def _closest(query: str, paths: Iterable[str]) -> list[str]:
    pool = list(paths)
    if len(pool) <= MAX_CANDIDATES:
        return pool
    try:
        from rapidfuzz import fuzz, process

        ranked = process.extract(query, pool, scorer=fuzz.WRatio, limit=MAX_CANDIDATES)
        return [str(item[0]) for item in ranked]
    except ImportError:  # pragma: no cover - rapidfuzz is a dependency
        import difflib

        return difflib.get_close_matches(query, pool, n=MAX_CANDIDATES, cutoff=0.0)


def _match_file(review: Review, file_path: str) -> str:
    if not isinstance(file_path, str) or not file_path.strip():
        raise InvalidArgument(
            "file_path is empty.",
            suggestion="Pass a path from list_chunks (e.g. 'src/main.py') or a glob "
            "matching exactly one file.",
        )
    query = file_path.strip()
    paths = _all_paths(review)
    renamed_from = {fd.old_path: fd.path for fd in review.parsed.files if fd.old_path}
    glob = PathPatterns([query], name="file_path")
    for candidates in (
        [p for p in paths if p == query],
        [p for p in paths if p.lower() == query.lower()],
        [renamed_from[query]] if query in renamed_from else [],
        [p for p in paths if glob.matches(p)],
    ):
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            shown = candidates[:MAX_CANDIDATES]
            more = (
                f" (and {len(candidates) - len(shown)} more)"
                if len(candidates) > len(shown)
                else ""
            )
            raise FileNotInDiff(
                f"{query!r} matches {len(candidates)} files of the diff: {', '.join(shown)}{more}.",
                suggestion="Pass one exact path, or a more specific glob.",
            )
    raise FileNotInDiff(
        f"No file of the diff matches {query!r}. "
        f"Closest paths: {', '.join(_closest(query, paths)) or '(the diff has no files)'}.",
        suggestion="Pass an exact path from list_chunks, or a glob such as '*name*'.",
    )


@dataclass(frozen=True, slots=True)
class FileDiffText:
    path: str
    data: bytes  # the file's sections, exactly as in the loaded diff
    sections: int  # how many sections (several in a multi-commit stream)
    excluded: Excluded | None  # why it is not in any chunk, if it is not


def get_file_diff_bytes(
    absolute_file_path: str, file_path: str, *, store: SessionStore | None = None
) -> FileDiffText:
    """The whole diff of one file (all its sections), even if split or excluded."""
    review = _session(absolute_file_path, store).review
    path = _match_file(review, file_path)
    sections: list[FileDiff] = [fd for fd in review.parsed.files if fd.path == path]
    data = b"".join(review.parsed.raw(fd) for fd in sections)
    excluded = next((ex for ex in review.excluded if ex.path == path), None)
    if excluded is not None and path in review.file_to_chunks:
        excluded = None  # excluded in one commit, kept in another
    return FileDiffText(path=path, data=data, sections=len(sections), excluded=excluded)


def get_file_diff(
    absolute_file_path: str, file_path: str, *, store: SessionStore | None = None
) -> str:
    """The diff text of one file; an excluded file is served with a note saying why."""
    session = _session(absolute_file_path, store)
    review = session.review
    result = get_file_diff_bytes(absolute_file_path, file_path, store=store)
    _record_seen(session, file_path=result.path)
    text, left_out = _fit_response(result.data.decode("utf-8", errors="replace"))
    notes = []
    if result.excluded is not None:
        ex = result.excluded
        why = ex.reason.value + (f": {ex.detail}" if ex.detail else "")
        notes.append(f"{result.path} is excluded from the chunks ({why})")
    if left_out:
        tokens = len(result.data) // CHARS_PER_TOKEN
        shown = text.count("\n")
        numbers = ", ".join(map(str, review.file_to_chunks.get(result.path, ())))
        more = f"get_chunk serves it whole in parts (chunks {numbers})" if numbers else ""
        if result.sections == 1:
            fd = next(f for f in review.parsed.files if f.path == result.path)
            line = review.parsed.data.count(b"\n", 0, fd.start) + 1 + shown
            rest = (
                f'read_content(absolute_file_path="{absolute_file_path}", offset={line}) '
                "reads on from there"
            )
            more = f"{more}; {rest}" if more else rest
        notes.append(
            f"{result.path}: ~{tokens} tokens, more than one response holds; the first "
            f"{shown} lines follow and {left_out} more are left out"
            + (f" ({more})" if more else "")
        )
        return f"=== {'; '.join(notes)} ===\n\n{text}"
    if notes:
        return f"=== {notes[0]}; its full diff follows ===\n\n{text}"
    return text


def get_current_overview(*, store: SessionStore | None = None) -> dict[str, Any]:
    """Every loaded diff with its counts and load options."""
    loaded = []
    for session in _store(store).sessions():
        review = session.review
        stats = review.stats
        loaded.append(
            {
                "file_path": session.path,
                "chunks": stats.chunks_count,
                "files": stats.total_files,
                "total_lines": stats.total_lines,
                "files_excluded": stats.files_excluded,
                "total_token_count": sum(c.token_count for c in review.chunks),
                "options": review.options.as_dict(),
            }
        )
    return {"loaded_diffs": loaded, "total_sessions": len(loaded)}
