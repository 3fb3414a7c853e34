"""Search/replace edits of (possibly very large) files, with backups and revert.

``edit_content`` semantics:

- A batch of changes is all or nothing: every change is located first; if one
  fails, the result lists why and the file is not touched (no backup either).
- Every search text is located in the *original* content, not in the text
  produced by earlier changes of the batch; changes must not overlap.
- Exact search text must occur exactly once; several occurrences are refused
  with their line numbers.  When it does not occur and fuzzy matching is on
  (per call, or per change with ``"fuzzy"``), the most similar run of whole
  lines is used if it is similar enough and unambiguous (see
  :mod:`.matching`); the replacement then replaces exactly those lines and is
  re-indented by the difference between the search text's indentation and
  the file's (first non-blank line of each).
- Texts come in with ``\\n``; replacement line endings follow the matched
  text: a CRLF match gets CRLF, an LF match LF, a match inside one line takes
  that line's ending (the file's dominant ending on an unterminated last
  line).  The encoding and a byte-order mark are kept; characters the
  encoding cannot hold are refused.  Binary files are refused.
- ``preview=True`` (the default) only reports: a unified diff of the changed
  regions with three lines of context and real line numbers.  Besides the
  documented fields the result has ``written`` (whether the file changed)
  and ``error`` (a summary when a change failed).  Read-only files (no write
  bit) are refused; a batch whose replacements equal their targets writes
  nothing and makes no backup.
- Writing: under a per-file lock (:mod:`.locking`) the file is re-read, the
  changes located again, a backup stored (:mod:`.backups`), the new content
  written to ``.<name>.diffchunk-XXXXXXXX.tmp`` beside the target (owner and
  mode copied, fsynced) and renamed over it; the directory is fsynced.  A
  symlink is followed: its target is edited and the link kept.  Hard links
  to the file are not kept (the path gets a new inode).  A file changed by
  another program between reading and renaming is not overwritten.  A
  temporary file that a killed edit left is removed by the next write of the
  same file (under its lock).
- Large files stream: bytes are searched in bounded windows and the output
  is assembled with ``copy_file_range`` around the replaced spans.

``revert_edit`` saves the current content as a backup first, then restores
the chosen backup (by default the newest one whose content differs from the
current file), so a revert can itself be reverted and no version is lost.
"""

from __future__ import annotations

import codecs
import contextlib
import difflib
import errno
import itertools
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from .. import paths
from ..errors import EditConflict, FileToolError, InvalidArgument, PathError
from ..fdio import BackgroundHash, sha256_fd
from . import backups, fuzzy_block, scan
from .access import FileVersion, open_version
from .backups import list_backups
from .indent import MixedIndentation, reindent_replacement
from .locking import file_lock
from .reader import Reader

__all__ = ["edit_content", "list_backups", "revert_edit"]

CONTEXT_LINES = 3
MAX_CHANGES = 500
MAX_PREVIEW_LINES = 400
MAX_PREVIEW_LINE_CHARS = 400
SHOWN_OCCURRENCES = 20
MAX_TRANSCODE = 256 * 1024 * 1024
IN_MEMORY_LIMIT = 32 * 1024 * 1024
"""Files up to this size are read into memory for an edit; bigger ones stream."""
_CHANGE_KEYS = {"search", "replace", "fuzzy"}


# --------------------------------------------------------------------- input


@dataclass(frozen=True, slots=True)
class _Change:
    index: int
    search: str
    replace: str
    fuzzy: bool


def _validate(changes: object, fuzzy: bool) -> list[_Change]:
    if not isinstance(changes, list) or not changes:
        raise InvalidArgument(
            "changes must be a non-empty list of {search, replace} objects.",
            suggestion='Pass e.g. [{"search": "old text", "replace": "new text"}].',
        )
    if len(changes) > MAX_CHANGES:
        raise InvalidArgument(
            f"{len(changes)} changes in one call; at most {MAX_CHANGES} are accepted.",
            suggestion="Split the batch into several calls.",
        )
    out: list[_Change] = []
    for index, change in enumerate(changes):
        if not isinstance(change, dict):
            raise InvalidArgument(
                f"Change {index} is not an object.",
                suggestion='Each change is {"search": "...", "replace": "..."}.',
            )
        unknown = sorted(set(change) - _CHANGE_KEYS)
        if unknown:
            raise InvalidArgument(
                f"Change {index} has unknown keys {unknown}.",
                suggestion='Use only "search", "replace" and optionally "fuzzy".',
            )
        search = change.get("search")
        replace = change.get("replace")
        if not isinstance(search, str) or not search:
            raise InvalidArgument(
                f'Change {index} needs a non-empty "search" text.',
                suggestion="Copy the exact text to replace (a few whole lines work best).",
            )
        if not isinstance(replace, str):
            raise InvalidArgument(
                f'Change {index} needs a "replace" text (use "" to delete).',
            )
        own = change.get("fuzzy", fuzzy)
        if not isinstance(own, bool):
            raise InvalidArgument(f'Change {index}: "fuzzy" must be true or false.')
        out.append(
            _Change(index, _lf(search), _lf(replace), own),
        )
    return out


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


# ------------------------------------------------------------------ snapshot


def _byte_searchable(encoding: str) -> str | None:
    """Codec for snippets when ``encoding`` can be searched as bytes, else None."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return None
    if name in ("utf-8", "ascii", "utf-8-sig"):
        return "utf-8"
    try:
        single_byte = len(bytes(range(256)).decode(name, errors="replace")) == 256
        return name if single_byte and "\r\n".encode(name) == b"\r\n" else None
    except (LookupError, UnicodeError):
        return None


class _Snapshot:
    """One consistent version of the file: its bytes (streamed or in memory)."""

    def __init__(self, realpath: str) -> None:
        self.realpath = realpath
        self.fd = -1
        self.version: FileVersion = self._open()
        try:
            self._prepare()
        except BaseException:
            self.close()
            raise

    def _prepare(self) -> None:
        st = self.version.stat
        if st.st_size == 0 and self.version.size:
            raise FileToolError(
                f"{self.realpath} reports a size of 0 but has content: it is a special "
                "file (such as /proc or /sys) and cannot be edited.",
                suggestion="Edit a regular file.",
            )
        self.stat = st
        self.size = st.st_size
        self.bom = self.version.bom
        self.newline = self.version.newline
        encoding = self.version.encoding or "utf-8"
        self.file_encoding = encoding
        snippet = None if self.version.transcoded else _byte_searchable(encoding)
        self.transcoded = snippet is None
        if snippet is not None:
            self.encoding = snippet
            if self.size <= IN_MEMORY_LIMIT:
                data = self.version.data
                raw = data.memory if data.memory is not None else self._read_all()
                self.source = Reader.of_bytes(raw, start=len(self.bom))
            else:
                self.source = Reader.of_fd(self.fd, self.size, start=len(self.bom))
        else:
            self.encoding = "utf-8"
            self.source = Reader.of_bytes(self._transcode(encoding))

    def _open(self) -> FileVersion:
        for _ in range(3):
            version = open_version(self.realpath)
            if version.is_binary:
                version.require_text()
            fd = os.open(self.realpath, os.O_RDONLY | os.O_CLOEXEC)
            if paths.fingerprint(os.fstat(fd)) == version.fingerprint:
                self.fd = fd
                return version
            os.close(fd)
        raise EditConflict(
            f"{self.realpath} keeps changing while it is being read.",
            suggestion="Retry when the program writing it has finished.",
        )

    def known_lines(self) -> Callable[[int], int] | None:
        """Offset -> line from the version's line index, when one is already built."""
        version = self.version
        if self.transcoded or not version.index_built:
            return None
        index = version.line_index()
        data = version.data
        return lambda offset: index.line_of_offset(data, offset)

    def _read_all(self) -> bytes:
        return Reader.of_fd(self.fd, self.size).read(0, self.size)

    def _transcode(self, encoding: str) -> bytes:
        if self.size > MAX_TRANSCODE:
            raise FileToolError(
                f"{self.realpath} is {encoding} and {self.size} bytes; files in encodings "
                f"other than UTF-8 and single-byte code pages are edited up to "
                f"{MAX_TRANSCODE // (1024 * 1024)} MB.",
                suggestion="Convert it to UTF-8 first (e.g. with iconv).",
            )
        raw = self._read_all()[len(self.bom) :]
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as exc:
            raise FileToolError(
                f"{self.realpath} is not valid {encoding} (byte {exc.start + len(self.bom)}); "
                "editing it would alter the undecodable bytes.",
                suggestion="Fix or convert the file's encoding first.",
            ) from None
        # The whole file is written back from its text: only right when the
        # text encodes to the very bytes it came from (cp932 and Big5 have
        # characters with two byte forms; the second would come back changed).
        if text.encode(encoding, errors="replace") != raw:
            raise FileToolError(
                f"{self.realpath} is {encoding}, and some of its characters would be written "
                "back as other bytes than they are now; editing it would change the file "
                "beyond the edit.",
                suggestion="Convert it to UTF-8 first (e.g. with iconv), or edit it with a "
                "tool that keeps its bytes.",
            )
        return text.encode("utf-8", errors="surrogatepass")

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


_B = TypeVar("_B")


def _backed_up_unchanged(
    realpath: str, fd: int, expected: os.stat_result, backup: Callable[[], _B]
) -> tuple[_B, paths.Fingerprint]:
    """``backup()`` of the file open at ``fd``, checked to be as read before and after
    it, and the identity the final check compares the file with.

    That is the identity as read, but for the ctime when the backup is a hard
    link to the file (the link changes it): then the ctime right after.  A
    write by another program during a copied backup changes the size, mtime
    or ctime (the ctime even when the writer restores the mtime, as cp -p and
    rsync -t --inplace do), and is caught here or by the final check.
    """
    before = paths.fingerprint(expected)
    if paths.fingerprint(os.fstat(fd)) != before:
        raise _changed_meanwhile(realpath)
    made = backup()
    after = os.fstat(fd)
    linked = after.st_nlink == expected.st_nlink + 1
    baseline = (*before[:4], after.st_ctime_ns if linked else before[4])
    if paths.fingerprint(after) != baseline:
        raise _changed_meanwhile(realpath)
    return made, baseline


def _changed_meanwhile(realpath: str) -> EditConflict:
    return EditConflict(
        f"{realpath} was changed by another program during the edit; it was not overwritten.",
        suggestion="Read the file again and repeat the edit.",
    )


@contextlib.contextmanager
def _snapshot(realpath: str) -> Iterator[_Snapshot]:
    snap = _Snapshot(realpath)
    try:
        yield snap
    finally:
        snap.close()


# ---------------------------------------------------------------- locating


@dataclass(frozen=True, slots=True)
class _Located:
    index: int
    start: int
    end: int
    replacement: bytes
    line: int
    last_line: int
    match_type: str
    similarity: float | None


def _result(
    index: int,
    *,
    located: _Located | None = None,
    error: str | None = None,
    similar: list[dict[str, object]] | None = None,
) -> dict[str, object]:
    return {
        "index": index,
        "success": located is not None and error is None,
        "line_number": located.line if located else None,
        "match_type": located.match_type if located else None,
        "similarity": located.similarity if located else None,
        "error": error,
        "similar_matches": similar or [],
    }


def _needles(change: _Change, encoding: str) -> list[bytes]:
    try:
        plain = change.search.encode(encoding)
    except UnicodeEncodeError:
        return []
    variants = [plain]
    if "\n" in change.search:
        variants.append(change.search.replace("\n", "\r\n").encode(encoding))
    return variants


def _encode(text: str, encoding: str, newline: bytes) -> bytes:
    return text.replace("\n", newline.decode("ascii")).encode(encoding)


def _encoding_error(snap: _Snapshot, exc: UnicodeEncodeError) -> str:
    char = exc.object[exc.start : exc.start + 1]
    return (
        f"The replacement contains {char!r} (U+{ord(char):04X}), which the file's "
        f"encoding {snap.file_encoding} cannot represent; nothing can be written."
    )


def _check_encodable(snap: _Snapshot, text: str) -> None:
    if snap.transcoded:
        text.encode(snap.file_encoding)


def _plan(
    snap: _Snapshot, changes: list[_Change], threshold: float
) -> tuple[list[_Located | None], list[dict[str, object]]]:
    source = snap.source
    needle_sets = [_needles(change, snap.encoding) for change in changes]
    flat = [needle for needles in needle_sets for needle in needles]
    found = scan.scan(source, flat, line_of=snap.known_lines())
    located: list[_Located | None] = []
    results: list[dict[str, object]] = []
    cursor = 0
    for change, needles in zip(changes, needle_sets, strict=True):
        per_needle = found[cursor : cursor + len(needles)]
        cursor += len(needles)
        occurrences = _merge_variants(per_needle, change.search.startswith("\n"))
        loc: _Located | None = None
        error: str | None = None
        similar: list[dict[str, object]] = []
        try:
            if len(occurrences) == 1:
                start, line, k = occurrences[0]
                loc = _exact(snap, change, start, line, needles[k], k)
            elif len(occurrences) > 1:
                error = _duplicate_message(occurrences)
            else:
                loc, error, similar = _fuzzy(snap, change, threshold)
        except UnicodeEncodeError as exc:
            loc, error = None, _encoding_error(snap, exc)
        located.append(loc if error is None else None)
        results.append(
            _result(
                change.index, located=loc if error is None else None, error=error, similar=similar
            )
        )
    _refuse_overlaps(located, results)
    return located, results


def _merge_variants(
    per_needle: list[list[scan.Occurrence]], leading_newline: bool
) -> list[tuple[int, int, int]]:
    """``(start, line, variant)`` of every occurrence, best variant per place.

    A search text starting with ``\n`` also matches, as its LF variant, one
    byte into each match of its CRLF variant: that is the same place.
    """
    merged = {(occ.start, occ.line, k) for k, occs in enumerate(per_needle) for occ in occs}
    if leading_newline and len(per_needle) == 2:
        crlf_starts = {occ.start for occ in per_needle[1]}
        merged = {item for item in merged if not (item[2] == 0 and item[0] - 1 in crlf_starts)}
    return sorted(merged)


def _duplicate_message(occurrences: list[tuple[int, int, int]]) -> str:
    count = len(occurrences)
    shown = ", ".join(str(line) for _, line, _ in occurrences[:SHOWN_OCCURRENCES])
    many = f"more than {scan.MAX_OCCURRENCES}" if count > scan.MAX_OCCURRENCES else str(count)
    more = " ..." if count > SHOWN_OCCURRENCES else ""
    return (
        f"The search text occurs {many} times (lines {shown}{more}); it must be unique. "
        "Add surrounding lines to the search text so that it matches one place only."
    )


def _exact(
    snap: _Snapshot, change: _Change, start: int, line: int, needle: bytes, variant: int
) -> _Located:
    end = start + len(needle)
    if "\n" in change.search:
        newline = b"\r\n" if variant == 1 else b"\n"
    else:
        newline = snap.source.ending_at(start) or snap.newline
    _check_encodable(snap, change.replace)
    replacement = _encode(change.replace, snap.encoding, newline)
    return _Located(
        index=change.index,
        start=start,
        end=end,
        replacement=replacement,
        line=line,
        last_line=line + change.search.count("\n"),
        match_type="exact",
        similarity=None,
    )


def _fuzzy(
    snap: _Snapshot, change: _Change, threshold: float
) -> tuple[_Located | None, str | None, list[dict[str, object]]]:
    source = snap.source
    outcome = fuzzy_block.similar_block(source, snap.encoding, change.search, threshold=threshold)
    similar = [s.to_dict() for s in fuzzy_block.suggestions(outcome.ranked)]
    if outcome.hints:
        similar = _merge_suggestions([h.to_dict() for h in outcome.hints], similar)
    if not change.fuzzy:
        return (
            None,
            "Search text not found (exact match; fuzzy matching is off for this change).",
            similar,
        )
    window = outcome.match
    if window is None:
        return None, f"Search text not found. {outcome.error}", similar
    if outcome.anchored:
        # Only areas around the search text's rarer words were scored: a
        # closer block elsewhere, or a second one as close, could be missed,
        # and an edit must not land in the wrong place on a guess.
        return (
            None,
            f"Search text not found exactly; the closest block found is at line {window.line} "
            f"(similarity {window.score:.2f}), but in files over "
            f"{fuzzy_block.FULL_FUZZY_LIMIT // (1024 * 1024)} MB fuzzy matching looks only near "
            "the search text's rarer words, so it is not applied. To change that block, "
            "search for its exact text (similar_matches shows it).",
            similar,
        )
    search_lines = change.search.split("\n")
    ends_with_newline = change.search.endswith("\n")
    if ends_with_newline:
        search_lines.pop()
    try:
        text = reindent_replacement(change.replace, search_lines, list(window.lines))
    except MixedIndentation as mixed:
        return (
            None,
            f"The closest block (line {window.line}) is indented with "
            f"{mixed.file_kind}, the search text with {mixed.text_kind}: "
            "re-indenting the replacement would mix them. Write the search and "
            "replacement with the file's indentation.",
            similar,
        )
    end = window.after if ends_with_newline else window.end
    if ends_with_newline and window.after == window.end and text.endswith("\n"):
        text = text[:-1]  # the last line of the file has no line ending: add none
    newline = source.read(window.end, window.after) or snap.newline
    if newline not in (b"\n", b"\r\n"):
        newline = snap.newline
    _check_encodable(snap, text)
    replacement = _encode(text, snap.encoding, newline)
    located = _Located(
        index=change.index,
        start=window.start,
        end=end,
        replacement=replacement,
        line=window.line,
        last_line=window.line + window.count - 1,
        match_type="fuzzy",
        similarity=round(window.score, 3),
    )
    return located, None, []


def _merge_suggestions(
    first: list[dict[str, object]], second: list[dict[str, object]]
) -> list[dict[str, object]]:
    seen: set[object] = set()
    merged: list[dict[str, object]] = []
    for item in sorted(first + second, key=lambda d: -float(d["similarity"])):  # type: ignore[arg-type]
        if item["line"] in seen:
            continue
        seen.add(item["line"])
        merged.append(item)
    return merged[:5]


def _refuse_overlaps(located: list[_Located | None], results: list[dict[str, object]]) -> None:
    spans = sorted(
        (loc for loc in located if loc is not None), key=lambda loc: (loc.start, loc.end)
    )
    bad: dict[int, int] = {}
    for before, after in itertools.pairwise(spans):
        if after.start < before.end or (after.start == before.start):
            bad.setdefault(before.index, after.index)
            bad.setdefault(after.index, before.index)
    by_index = {loc.index: loc for loc in spans}
    for position, loc in enumerate(located):
        if loc is None or loc.index not in bad:
            continue
        other = by_index[bad[loc.index]]
        results[position] = _result(
            loc.index,
            error=(
                f"This change (lines {loc.line}-{loc.last_line}) overlaps change "
                f"{other.index} (lines {other.line}-{other.last_line}). All search texts are "
                "located in the original content, so changes of one batch must not overlap: "
                "merge them into one change."
            ),
        )
        located[position] = None


# ------------------------------------------------------------------ preview


def _preview(snap: _Snapshot, located: list[_Located]) -> str:
    source = snap.source
    ordered = sorted(located, key=lambda loc: loc.start)
    regions: list[list[_Located]] = []
    bounds: list[tuple[int, int, int]] = []  # (begin, end, first line)
    for loc in ordered:
        first = source.line_start(loc.start)
        begin = source.last_lines_start(source.start, first, CONTEXT_LINES)
        back = source.read(begin, first).count(b"\n")
        last = (
            source.line_end(max(loc.start, loc.end - 1))
            if loc.end > loc.start
            else source.line_end(loc.start)
        )
        end = source.skip_lines(last, CONTEXT_LINES)
        if bounds and begin <= bounds[-1][1]:
            b0, e0, l0 = bounds[-1]
            bounds[-1] = (b0, max(e0, end), l0)
            regions[-1].append(loc)
        else:
            bounds.append((begin, end, loc.line - back))
            regions.append([loc])
    name = snap.realpath
    out = [f"--- {name}\t(before)", f"+++ {name}\t(after)"]
    shift = 0
    for (begin, end, first_line), locs in zip(bounds, regions, strict=True):
        old = source.read(begin, end)
        pieces: list[bytes] = []
        pos = begin
        for loc in locs:
            pieces.append(source.read(pos, loc.start))
            pieces.append(loc.replacement)
            pos = loc.end
        pieces.append(source.read(pos, end))
        new = b"".join(pieces)
        old_lines = _split(old, snap.encoding)
        new_lines = _split(new, snap.encoding)
        _hunks(out, old_lines, new_lines, first_line, first_line + shift)
        shift += len(new_lines) - len(old_lines)
    if len(out) > MAX_PREVIEW_LINES:
        hidden = len(out) - MAX_PREVIEW_LINES
        out = [*out[:MAX_PREVIEW_LINES], f"... ({hidden} more preview lines not shown)"]
    return "\n".join(out) + "\n"


def _split(raw: bytes, encoding: str) -> list[str]:
    text = raw.decode(encoding, errors="replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = []
    for line in lines:
        line = line[:-1] if line.endswith("\r") else line
        if len(line) > MAX_PREVIEW_LINE_CHARS:
            line = line[:MAX_PREVIEW_LINE_CHARS] + " [...]"
        out.append(line)
    return out


def _hunks(out: list[str], old: list[str], new: list[str], old_first: int, new_first: int) -> None:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        out.append(f"@@ -{_range(old_first + i1, i2 - i1)} +{_range(new_first + j1, j2 - j1)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(" " + line for line in old[a1:a2])
                continue
            out.extend("-" + line for line in old[a1:a2])
            out.extend("+" + line for line in new[b1:b2])


def _range(start: int, length: int) -> str:
    if length == 1:
        return str(start)
    if length == 0:
        return f"{start - 1},0"
    return f"{start},{length}"


# -------------------------------------------------------------------- write


_TEMP_STEM_BYTES = 150


def _remove_stale_temps(directory: str, base: str) -> None:
    """Delete temporary files that an edit of ``base`` killed mid-write left behind.

    Runs under the file's edit lock, so no live edit of this file has one.
    Only when the name is shorter than the stem limit: a longer name's stem
    could be shared with another file's temporaries.
    """
    stem = os.fsencode(base)
    if len(stem) >= _TEMP_STEM_BYTES:
        return
    prefix = b"." + stem + b".diffchunk-"
    try:
        names = os.listdir(os.fsencode(directory))
    except OSError:
        return
    for name in names:
        rest = name[len(prefix) :]
        if (
            name.startswith(prefix)
            and len(rest) == 12
            and rest.endswith(b".tmp")
            and all(c in b"0123456789abcdef" for c in rest[:8])
        ):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(os.fsencode(directory), name))


def _create_temp(directory: str, base: str) -> tuple[int, str]:
    stem = os.fsencode(base)[:_TEMP_STEM_BYTES]
    stem_text = os.fsdecode(stem)
    while True:
        path = os.path.join(directory, f".{stem_text}.diffchunk-{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        except FileExistsError:
            continue
        return fd, path


def _write_failure(realpath: str, exc: OSError, *, stage: str) -> FileToolError:
    reasons = {
        errno.EFBIG: "the file size limit was exceeded",
        errno.ENOSPC: "no space left on the device",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.EROFS: "the file system is read-only",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
    }
    reason = reasons.get(exc.errno or 0, exc.strerror or str(exc))
    where = os.path.dirname(realpath)
    return FileToolError(
        f"Cannot {stage} {realpath!r}: {reason}. The file was not changed.",
        suggestion=(
            f"Make sure {where!r} is writable and has room for a second copy of the file, "
            "then retry."
        ),
    )


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        done = os.write(fd, view)
        view = view[done:]


def _fill(tmp_fd: int, snap: _Snapshot, located: list[_Located]) -> None:
    source = snap.source
    if snap.transcoded:
        pieces: list[bytes] = []
        pos = 0
        data = source.memory
        assert data is not None
        for loc in located:
            pieces.append(data[pos : loc.start])
            pieces.append(loc.replacement)
            pos = loc.end
        pieces.append(data[pos:])
        text = b"".join(pieces).decode("utf-8", errors="surrogatepass")
        _write_all(tmp_fd, snap.bom + text.encode(snap.file_encoding))
        return
    pos = 0
    for loc in located:
        _copy(snap, tmp_fd, pos, loc.start)
        _write_all(tmp_fd, loc.replacement)
        pos = loc.end
    _copy(snap, tmp_fd, pos, snap.size)


def _copy(snap: _Snapshot, tmp_fd: int, begin: int, end: int) -> None:
    if end <= begin:
        return
    data = snap.source.memory
    if data is not None:
        _write_all(tmp_fd, memoryview(data)[begin:end])
    else:
        backups.copy_range(snap.fd, tmp_fd, begin, end - begin)


class _TempFile:
    """The temporary sibling that becomes the new file on :meth:`commit`."""

    def __init__(self, realpath: str, st: os.stat_result) -> None:
        self.realpath = realpath
        self.directory = os.path.dirname(realpath)
        _remove_stale_temps(self.directory, os.path.basename(realpath))
        try:
            self.fd, self.path = _create_temp(self.directory, os.path.basename(realpath))
        except OSError as exc:
            raise _write_failure(realpath, exc, stage="create a temporary file next to") from None
        # What the new version cannot keep of the old file, said in the result.
        self.warnings: list[str] = []
        try:
            with contextlib.suppress(OSError):
                os.fchown(self.fd, st.st_uid, st.st_gid)
            os.fchmod(self.fd, stat.S_IMODE(st.st_mode))
            made = os.fstat(self.fd)
        except OSError as exc:
            self.abort()
            raise _write_failure(realpath, exc, stage="set the permissions of the new") from None
        if (made.st_uid, made.st_gid) != (st.st_uid, st.st_gid):
            self.warnings.append(
                f"The file belonged to uid {st.st_uid}, gid {st.st_gid}; this process cannot "
                f"give that to the new version, which belongs to uid {made.st_uid}, "
                f"gid {made.st_gid}."
            )
        if st.st_nlink > 1:
            self.warnings.append(
                f"The file had {st.st_nlink} hard links; the new version is a new file, "
                "and the other names still show the old content."
            )
        self.warnings.extend(_copy_xattrs(realpath, self.fd))

    def finish(self, expected: paths.Fingerprint) -> None:
        """fsync, check the target is unchanged, rename over it, fsync the directory."""
        try:
            os.fsync(self.fd)
            os.close(self.fd)
            self.fd = -1
        except OSError as exc:
            self.abort()
            raise _write_failure(self.realpath, exc, stage="write the new content of") from None
        try:
            current = os.stat(self.realpath)
        except OSError:
            current = None
        if current is None or paths.fingerprint(current) != expected:
            self.abort()
            raise _changed_meanwhile(self.realpath)
        try:
            os.replace(self.path, self.realpath)
        except OSError as exc:
            self.abort()
            raise _write_failure(self.realpath, exc, stage="replace") from None
        backups.fsync_dir(self.directory)

    def abort(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1
        with contextlib.suppress(OSError):
            os.unlink(self.path)


# ---------------------------------------------------------------- public API


def edit_content(
    absolute_file_path: str,
    changes: list[dict[str, Any]],
    fuzzy: bool = True,
    preview: bool = True,
) -> dict[str, Any]:
    """Apply search/replace ``changes`` to a file, all or nothing.

    With ``preview`` (the default) nothing is written; the result shows the
    diff that would be applied.  See the module documentation for matching,
    line-ending, encoding and atomicity rules.
    """
    parsed = _validate(changes, fuzzy)
    realpath, _ = paths.resolve_regular_file(absolute_file_path)
    threshold = fuzzy_block.fuzzy_threshold()
    if preview:
        with _snapshot(realpath) as snap:
            located, results = _plan(snap, parsed, threshold)
            return _edit_result(snap, located, results, written=False, backup=None)
    with file_lock(backups.lock_dir(), realpath), _snapshot(realpath) as snap:
        located, results = _plan(snap, parsed, threshold)
        if any(loc is None for loc in located) or _changes_nothing(snap, located):
            return _edit_result(snap, located, results, written=False, backup=None)
        # The backup's checksum is computed in a thread while the new version
        # is written (hashlib releases the GIL; the copy is mostly I/O).
        hasher = BackgroundHash(snap.fd, snap.size)
        try:
            return _apply(snap, located, results, hasher)
        finally:
            hasher.cancel()


def _changes_nothing(snap: _Snapshot, located: list[_Located | None]) -> bool:
    """True when every replacement equals the text it replaces (no write, no backup)."""
    return all(
        loc is not None and snap.source.read(loc.start, loc.end) == loc.replacement
        for loc in located
    )


def _apply(
    snap: _Snapshot,
    located: list[_Located | None],
    results: list[dict[str, object]],
    hasher: BackgroundHash,
) -> dict[str, object]:
    realpath = snap.realpath
    ready = sorted((loc for loc in located if loc is not None), key=lambda loc: loc.start)
    _check_writable(realpath, snap.stat)
    temp = _TempFile(realpath, snap.stat)
    try:
        pending, baseline = _backed_up_unchanged(
            realpath,
            snap.fd,
            snap.stat,
            lambda: backups.begin_backup(realpath, snap.fd, snap.size),
        )
    except BaseException:
        temp.abort()
        raise
    try:
        try:
            _fill(temp.fd, snap, ready)
        except OSError as exc:
            raise _write_failure(realpath, exc, stage="write the new content of") from None
        except UnicodeEncodeError as exc:
            raise FileToolError(_encoding_error(snap, exc)) from None
        info = pending.commit(hasher.result(), kind="edit")
        temp.finish(baseline)
    except BaseException:
        temp.abort()
        pending.discard()
        raise
    backups.prune(realpath, protect={info.id})
    return _edit_result(
        snap, located, results, written=True, backup=info.path, warnings=temp.warnings
    )


def _check_writable(realpath: str, st: os.stat_result) -> None:
    if not st.st_mode & 0o222:
        raise FileToolError(
            f"{realpath!r} is read-only (mode {stat.S_IMODE(st.st_mode):04o}); it was not changed.",
            suggestion="Make it writable first (e.g. chmod u+w) if it really should be edited.",
        )
    directory = os.path.dirname(realpath)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise FileToolError(
            f"Cannot edit {realpath!r}: its directory {directory!r} is not writable "
            "(the new version is written beside the file, then renamed). The file was not changed.",
            suggestion="Make the directory writable, or copy the file somewhere writable.",
        )


def _copy_xattrs(realpath: str, fd: int) -> list[str]:
    """Give the new version (open at ``fd``) the extended attributes of the file
    (ACLs, SELinux labels, user.*); a warning for each that cannot be copied."""
    if not hasattr(os, "listxattr"):
        return []
    try:
        names = os.listxattr(realpath)
    except OSError:  # not supported here
        return []
    failed = []
    for name in names:
        try:
            os.setxattr(fd, name, os.getxattr(realpath, name))
        except OSError as exc:
            failed.append(f"{name} ({exc.strerror})")
    if not failed:
        return []
    return [f"Extended attributes the new version could not keep: {', '.join(failed)}."]


def _edit_result(
    snap: _Snapshot,
    located: list[_Located | None],
    results: list[dict[str, object]],
    *,
    written: bool,
    backup: str | None,
    warnings: list[str] | None = None,
) -> dict[str, object]:
    failed = sum(1 for item in results if not item["success"])
    ok = [loc for loc in located if loc is not None]
    error = None
    if failed:
        error = (
            f"{failed} of {len(results)} change(s) failed; nothing was written "
            "(a batch is applied all or nothing). See results[].error."
        )
    return {
        "success": failed == 0,
        "changes_applied": len(ok) if failed == 0 else 0,
        "changes_failed": failed,
        "results": results,
        "preview": _preview(snap, ok) if ok else "",
        "backup_created": backup,
        "written": written,
        "error": error,
        **({"warnings": warnings} if warnings else {}),
    }


# -------------------------------------------------------------------- revert


def revert_edit(absolute_file_path: str, backup_id: str | None = None) -> dict[str, Any]:
    """Restore a backup of a file, after saving its current content as a backup.

    Without ``backup_id`` the newest backup whose content differs from the
    current file is restored (a revert right after a revert thus swaps back).
    """
    try:
        realpath, _ = paths.resolve_regular_file(absolute_file_path)
    except PathError:
        _backups_of_a_missing_file(absolute_file_path)
        raise
    with file_lock(backups.lock_dir(), realpath):
        available = backups.backups_for(realpath)
        if not available:
            raise FileToolError(
                f"There are no backups of {realpath!r} (in {backups.backup_root()!r}).",
                suggestion="Backups are made by edit_content with preview=false before each write.",
            )
        fd = os.open(realpath, os.O_RDONLY | os.O_CLOEXEC)
        try:
            current = os.fstat(fd)
            if backup_id is not None and str(backup_id).strip():
                target = backups.find_backup(realpath, str(backup_id))
            else:
                target = _default_target(available, fd, current.st_size)
            return _restore(realpath, fd, current, target)
        finally:
            os.close(fd)


def _default_target(available: list[backups.BackupInfo], fd: int, size: int) -> backups.BackupInfo:
    digest: str | None = None
    for info in available:
        if info.size != size:
            return info
        if digest is None:
            digest = sha256_fd(fd, size)
        if backups.read_metadata(info).get("sha256") != digest:
            return info
    raise FileToolError(
        f"Every backup of {available[0].path!r}'s file has the same content as the file now; "
        "there is nothing different to restore.",
        suggestion=f"Pass a backup_id to restore one explicitly: {backups.ids_text(available)}.",
    )


def _backups_of_a_missing_file(path: str) -> None:
    """When ``path`` is gone but has backups: say how to bring one back."""
    expanded = os.path.expanduser(path)
    if not os.path.isabs(expanded) or os.path.lexists(expanded):
        return
    real = os.path.join(os.path.realpath(os.path.dirname(expanded)), os.path.basename(expanded))
    available = backups.backups_for(real)
    if available:
        newest = available[0]
        raise FileToolError(
            f"{real} does not exist (deleted or moved), but {len(available)} backup(s) of it "
            f"do; the newest, {newest.id}, is {newest.path}.",
            suggestion=f"Copy it back first (cp {newest.path!r} {real!r}), then revert_edit "
            "can restore any other backup.",
        )


def _restore(
    realpath: str, fd: int, current: os.stat_result, target: backups.BackupInfo
) -> dict[str, object]:
    try:
        src = os.open(target.path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise FileToolError(
            f"The backup {target.id} cannot be opened: {exc.strerror}.",
            suggestion=f"Pick another backup: {backups.ids_text(backups.backups_for(realpath))}.",
        ) from None
    try:
        size = os.fstat(src).st_size
        expected = backups.read_metadata(target).get("size")
        if isinstance(expected, int) and expected != size:
            raise FileToolError(
                f"The backup {target.id} is damaged ({size} bytes instead of {expected}).",
                suggestion=f"Pick another backup: {backups.ids_text(backups.backups_for(realpath))}.",
            )
        _check_writable(realpath, current)
        temp = _TempFile(realpath, current)
        try:
            saved, baseline = _backed_up_unchanged(
                realpath,
                fd,
                current,
                lambda: backups.create_backup(realpath, fd, current.st_size, kind="revert"),
            )
        except BaseException:
            temp.abort()
            raise
        try:
            try:
                backups.copy_range(src, temp.fd, 0, size)
            except OSError as exc:
                raise _write_failure(realpath, exc, stage="write the restored content of") from None
            temp.finish(baseline)
        except BaseException:
            temp.abort()
            backups.discard_backup(saved)
            raise
    finally:
        os.close(src)
    backups.prune(realpath, protect={saved.id, target.id})
    return {
        "success": True,
        "reverted_to": target.as_dict(),
        "current_saved_as": saved.as_dict(),
        "available_backups": [info.as_dict() for info in backups.backups_for(realpath)],
        "error": None,
        **({"warnings": temp.warnings} if temp.warnings else {}),
    }
