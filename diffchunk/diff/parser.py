"""Parse a diff buffer into sections that tile it: ``parse_diff(data) -> ParsedDiff``.

Understands git diffs (quoted paths, any prefixes, renames, copies, modes,
binary payloads, submodules), combined diffs of merges, plain unified diffs
(``diff -u``/``-ruN``, svn, hg) and multi-commit streams (``git log -p``,
``git format-patch --stdout``).

How it stays fast: the parser only looks at *section* and *hunk header* lines
in Python.  A hunk body is measured with bytes operations: a regex finds the
first line that cannot be hunk content, ``bytes.count`` counts ``\\n+``,
``\\n-`` and ``\\n `` in that span, and when those agree with the ``@@`` counts
the hunk is done.  Only a hunk whose span over- or under-shoots (a plain diff's
next ``---`` header, a mail signature, a context line stripped to an empty
line) is walked line by line, and only that hunk.

Faster still, for ``diff --git`` files (the bulk of real input): the hunks of a
file are checked as a whole, with one regex scan (every header's counts, and
the first line that cannot be in a hunk) and three ``bytes.count`` calls over
each hunk's lines.  When every hunk holds exactly its header's counts, the
file gets a :class:`~diffchunk.diff.model.LazyHunks` that builds the ``Hunk``
objects only if a consumer asks for them (most files never need them: the
filters and the chunker work from spans).  Otherwise the per-hunk path above
decides, so a file with wrong counts is flagged exactly as before.

Rules worth knowing:

- Only ``\\n`` ends a line.  CR, form feed, U+2028 and invalid UTF-8 are content.
- A hunk's length comes from its header counts (a missing count means 1), so
  ``--- x`` inside a hunk is a removed line ``-- x``, not a file header.
- An empty line where the counts still expect lines is taken as a context line
  whose leading space was stripped (mail clients and editors do this); the
  diff gets a warning.
- Anything that cannot be parsed is kept: a suspect file gets
  ``FileDiff.malformed``, stray text becomes a ``MALFORMED`` segment.  Input
  with no diff section and no commit header raises :class:`NotADiffError`.
- Paths are decoded as UTF-8 with ``errors="replace"`` (see ``paths.py``).
- In a format-patch message, text before the ``---`` line is message even when
  it looks like a diff; in ``git log`` output messages are indented anyway.

Not recognised (kept as text segments): ``diff -r``'s ``Only in dir: name``
lines, ``git log --oneline -p`` commit lines, and mbox separators other than
git's ``From <sha> Mon Sep 17 00:00:00 2001``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from diffchunk.diff import syntax as sx
from diffchunk.diff.buffer import DiffBuffer, DiffData, map_file, trimmer
from diffchunk.diff.hunk import Hunk, LazyHunks, new_hunk, read_hunk_header, section_text
from diffchunk.diff.model import (
    Commit,
    DiffKind,
    FileDiff,
    FileStatus,
    ParsedDiff,
    Segment,
    SegmentKind,
    new_file_diff,
)
from diffchunk.diff.paths import (
    decode_path,
    is_quoted,
    quote_git_path,
    split_prefixes,
    split_quoted,
    strip_prefix,
    unquote_git_path,
)
from diffchunk.errors import NotADiffError
from diffchunk.fdio import pread_exact

logger = logging.getLogger(__name__)

# Enum members bound once: looking one up on its class costs about 0.1 us,
# a dozen times per file section.
_MODIFIED, _ADDED, _DELETED, _RENAMED, _COPIED = (
    FileStatus.MODIFIED,
    FileStatus.ADDED,
    FileStatus.DELETED,
    FileStatus.RENAMED,
    FileStatus.COPIED,
)
_KIND_GIT, _KIND_COMBINED, _KIND_UNIFIED = DiffKind.GIT, DiffKind.COMBINED, DiffKind.UNIFIED
_SEG_COMMIT, _SEG_TEXT, _SEG_MALFORMED = (
    SegmentKind.COMMIT,
    SegmentKind.TEXT,
    SegmentKind.MALFORMED,
)

__all__ = ["StreamParser", "parse_diff"]

# Splits of a ``diff --git`` line tried at most (see _Parser._split_git_header).
_MAX_SPLITS = 64
_NOT_A_DIFF = (
    "The input ({size} bytes) does not look like a diff: expected lines such as "
    "'diff --git a/file b/file', '--- a/file' followed by '+++ b/file', "
    "or '@@ -1,3 +1,4 @@'."
)
_NOT_A_DIFF_HINT = (
    "Pass the output of git diff, git show, git log -p, git format-patch --stdout, "
    "diff -u/-ruN, svn diff or hg diff."
)


def parse_diff(data: DiffData | bytearray | memoryview, *, lazy: bool = True) -> ParsedDiff:
    """Parse ``data`` (a whole diff file) into files, commits and segments.

    Raises :class:`NotADiffError` when non-empty ``data`` holds no diff section
    and no commit header; empty ``data`` gives an empty :class:`ParsedDiff`.

    With ``lazy`` (the default) a ``diff --git`` file whose hunks check out as
    a whole gets a :class:`LazyHunks` (built on first use, see its doc);
    ``lazy=False`` measures and builds every hunk at once.
    """
    if type(data) is not bytes and not isinstance(data, DiffBuffer):
        data = bytes(data)
    return _Parser(data, lazy=lazy).run()


_Measured = tuple[int, int, int, "str | None"]  # end, added, removed, problem


class _Parser:
    def __init__(self, data: DiffData, *, lazy: bool = True) -> None:
        self.data = data
        self.lazy = lazy
        self.n = len(data)
        self.files: list[FileDiff] = []
        self.segments: list[Segment] = []
        self.commits: list[Commit] = []
        self.warnings: list[str] = []
        self.gap_start = 0
        self.commit: int | None = None
        # Prefixes learned from an unambiguous ``diff --git`` line (a/ b/, i/ w/...).
        self.prefixes: tuple[bytes, bytes] | None = None
        self.stripped_hunks = 0
        self.not_lazy = -1  # where the whole-file hunk check last failed

    # ------------------------------------------------------------------ driver

    def run(self, pos: int = 0) -> ParsedDiff:
        n = self.n
        trim = trimmer(self.data)
        while pos < n:
            if trim is not None:
                trim(pos)
            start, kind = self._next_start(pos)
            if kind is None:
                break
            if kind == "commit" or kind == "mbox":
                pos = self._commit(start, kind)
            elif kind == "git":
                end = self._plain_git_file(start)
                pos = end if end >= 0 else self._git_file(start, False)
            elif kind == "cc":
                pos = self._git_file(start, True)
            else:
                pos = self._unified_file(start, kind)
        self._gap(n)
        if n and not self.files and not self.commits:
            hint = _NOT_A_DIFF_HINT
            if b"\x1b[" in self.data[:65536]:
                hint += " It holds terminal color codes: produce it again with --no-color."
            raise NotADiffError(_NOT_A_DIFF.format(size=n), suggestion=hint)
        if self.stripped_hunks:
            self.warnings.append(
                f"{self.stripped_hunks} hunk(s) contain empty lines read as context lines "
                "whose leading space was stripped"
            )
        bad = sum(1 for f in self.files if f.malformed)
        if bad:
            self.warnings.append(f"{bad} file section(s) look malformed; they are kept as written")
        self._warn_outside_sections()
        return ParsedDiff(
            data=self.data,
            files=tuple(self.files),
            segments=tuple(self.segments),
            commits=tuple(self.commits),
            warnings=tuple(self.warnings),
        )

    def _warn_outside_sections(self) -> None:
        """Say what lies outside every file section and so is in no chunk: stray diff
        lines, and the ``Only in DIR: NAME`` lines of ``diff -r`` (files it does not show)."""
        data = self.data
        stray = [seg for seg in self.segments if seg.kind is _SEG_MALFORMED]
        if stray:
            first = stray[0]
            line = data.count(b"\n", 0, first.start) + 1
            text = data[first.start : self._line_end(first.start)].rstrip(b"\r\n")
            self.warnings.append(
                f"{len(stray)} stretch(es) of diff lines outside any file section are in no "
                f"chunk ({first.note}); the first is at line {line}: "
                f"{text[:80].decode('utf-8', 'replace')!r}"
            )
        only = sum(
            data.count(b"\nOnly in ", max(seg.start - 1, 0), seg.end)
            + (seg.start == 0 and data.startswith(b"Only in "))
            for seg in self.segments
            if seg.kind is _SEG_TEXT
        )
        if only:
            self.warnings.append(
                f"{only} 'Only in ...' line(s) of diff -r name files that exist on one side "
                "only and are not shown as diffs; diff -ruN includes them"
            )

    def _span_lines(self, start: int, end: int) -> int:
        """Lines of ``data[start:end]`` (an unterminated last line counts)."""
        if end <= start:
            return 0
        return self.data.count(b"\n", start, end) + (self.data[end - 1] != 0x0A)

    def _line_end(self, pos: int) -> int:
        """Offset just after the line at ``pos`` (its ``\\n`` included)."""
        nl = self.data.find(b"\n", pos)
        return self.n if nl < 0 else nl + 1

    def _line(self, pos: int) -> tuple[bytes, int]:
        """The line at ``pos`` without ``\\n`` and trailing CR, and the next line's offset."""
        data = self.data
        nl = data.find(b"\n", pos)
        if nl < 0:
            line, nxt = data[pos:], self.n
        else:
            line, nxt = data[pos:nl], nl + 1
        if line.endswith(b"\r"):
            line = line[:-1]
        return line, nxt

    def _classify(self, s: int) -> str | None:
        """What kind of section starts at line offset ``s`` (None: not a start)."""
        data = self.data
        c = data[s]
        if c == 0x64:  # d
            if data.startswith(sx.GIT_HEADER, s):
                return "git"
            if sx.COMBINED_HEADER.match(data, s):
                return "cc"
            if sx.COMMAND_HEADER.match(data, s):
                return "cmd"
            return None
        if c == 0x2D:  # -  (the search pattern already saw the +++ line)
            return "pair"
        if c == 0x42:  # B
            return "binary" if sx.BINARY_LINE.match(data, s) else None
        if c == 0x49:  # I
            return "index" if sx.SVN_INDEX.match(data, s) else None
        if c == 0x63:  # c
            return "commit" if sx.LOG_COMMIT.match(data, s) else None
        if c == 0x46:  # F
            return "mbox" if sx.MBOX_FROM.match(data, s) else None
        return None

    def _next_start(self, pos: int) -> tuple[int, str | None]:
        """The next line at or after line offset ``pos`` that opens a section."""
        data = self.data
        search = sx.NEXT_SECTION_START.search
        while pos < self.n:
            if sx.SECTION_START.match(data, pos):
                s = pos
            else:
                m = search(data, pos)  # data[pos - 1] is "\n" or pos is 0
                if m is None:
                    break
                s = m.start() + 1
            kind = self._classify(s)
            if kind is not None:
                return s, kind
            pos = self._line_end(s)
        return self.n, None

    def _gap(self, end: int) -> None:
        start = self.gap_start
        if start < end:
            data = self.data
            kind, note = _SEG_TEXT, None
            if data.startswith(b"@@", start) or sx.HUNK_LIKE.search(data, start, end):
                kind = _SEG_MALFORMED
                note = "hunk lines outside a file section (unreadable or orphan @@ header)"
            elif data[start] in b"+- \\" and not sx.SIGNATURE.match(data, start):
                kind = _SEG_MALFORMED
                note = "diff lines that the preceding hunk's @@ counts do not cover"
            self.segments.append(Segment(start=start, end=end, kind=kind, note=note))
        self.gap_start = end

    # ----------------------------------------------------------------- commits

    def _commit(self, s: int, kind: str) -> int:
        data = self.data
        self._gap(s)
        m = (sx.LOG_COMMIT if kind == "commit" else sx.MBOX_FROM).match(data, s)
        sha = m.group(1).decode("ascii") if m else None
        end, _ = self._next_start(self._line_end(s))
        if kind == "mbox":
            # the message ends at the first "---" line: skip diff-like text before it
            limit = sx.MBOX_FROM_ANYWHERE.search(data, self._line_end(s))
            sep = sx.MAIL_SEPARATOR.search(data, s, limit.start() if limit else self.n)
            if sep is not None and sep.start() + 1 > end:
                end, _ = self._next_start(sep.end())
            subject = _mail_subject(data, s, end)
        else:
            subject = _log_subject(data, s, end)
        index = len(self.commits)
        self.commits.append(
            Commit(index=index, sha=sha, subject=subject, segment=len(self.segments))
        )
        self.segments.append(Segment(start=s, end=end, kind=_SEG_COMMIT, commit=index))
        self.commit = index
        self.gap_start = end
        return end

    # --------------------------------------------------------------- git files

    def _git_file(self, s: int, combined: bool) -> int:
        data = self.data
        n = self.n
        self._gap(s)
        first, pos = self._line(s)
        rest = first[first.index(b" ", 5) + 1 :]  # after "diff --git " / "--cc " / "--combined "

        old_mode = new_mode = None
        status = _MODIFIED
        src = dst = None
        similarity = None
        minus = plus = None
        is_binary = binary_patch = False
        malformed: str | None = None
        index_mode = None
        payload_start: int | None = None

        common = None if combined else sx.PLAIN_GIT_HEADER.match(data, s)
        if common is not None:
            # the usual modified-file header, in one regex instead of the loop below
            if common.group(1):
                index_mode = common.group(1).decode("ascii")
            minus = _strip_stamp(_strip_cr(common.group(2)))
            plus = _strip_stamp(_strip_cr(common.group(3)))
            pos = common.end()

        while common is None and pos < n:
            if data[pos] == 0x40:  # a hunk
                break
            line, nxt = self._line(pos)
            if line.startswith(sx.INDEX):
                m = sx.INDEX_LINE.match(line)
                if m and m.group(3):
                    index_mode = m.group(3).decode("ascii")
            elif line.startswith(sx.MINUS_FILE):
                if not data.startswith(sx.PLUS_FILE, nxt):
                    malformed = "'---' line without a '+++' line"
                    pos = nxt
                    break
                minus = _strip_stamp(line[len(sx.MINUS_FILE) :])
                plus_line, nxt = self._line(nxt)
                plus = _strip_stamp(plus_line[len(sx.PLUS_FILE) :])
                pos = nxt
                break
            elif line.startswith(sx.NEW_FILE_MODE):
                status = _ADDED
                new_mode = _mode(line[len(sx.NEW_FILE_MODE) :])
            elif line.startswith(sx.DELETED_FILE_MODE):
                status = _DELETED
                old_mode = _mode(line[len(sx.DELETED_FILE_MODE) :])
            elif line.startswith(sx.OLD_MODE):
                old_mode = _mode(line[len(sx.OLD_MODE) :])
            elif line.startswith(sx.NEW_MODE):
                new_mode = _mode(line[len(sx.NEW_MODE) :])
            elif line.startswith(sx.RENAME_FROM) or line.startswith(sx.COPY_FROM):
                status = _RENAMED if line[0] == 0x72 else _COPIED
                src = unquote_git_path(line[line.index(b" from ") + 6 :])
            elif line.startswith(sx.RENAME_TO) or line.startswith(sx.COPY_TO):
                dst = unquote_git_path(line[line.index(b" to ") + 4 :])
            elif line.startswith(sx.SIMILARITY):
                m = sx.PERCENT.match(line, len(sx.SIMILARITY))
                similarity = int(m.group(1)) if m else None
            elif line.startswith(sx.DISSIMILARITY):
                pass
            elif line.startswith(sx.BINARY_FILES):
                is_binary = True
                pos = nxt
                break
            elif line.startswith(sx.GIT_BINARY_PATCH):
                is_binary = binary_patch = True
                payload_start = pos
                pos, problem = self._binary_payload(nxt)
                if problem:
                    malformed = problem
                break
            elif combined and line.startswith(sx.COMBINED_MODE):
                modes = line[len(sx.COMBINED_MODE) :].split(b"..")
                old_mode = _mode(modes[0].split(b",")[0])
                new_mode = _mode(modes[-1]) if len(modes) > 1 else None
            else:
                break
            pos = nxt
        header_end = pos if payload_start is None else payload_start

        hunks: Sequence[Hunk] | None = None
        line_count = None
        if self.lazy and not combined and pos < n and data[pos] == 0x40 and pos != self.not_lazy:
            quick = self._lazy_hunks(pos)
            if quick is not None:
                hunks, end, added, removed, line_count = quick
                line_count += data.count(b"\n", s, pos)
        if hunks is None:
            eager, end, added, removed, problem = self._hunks(pos, combined)
            hunks = tuple(eager)
            malformed = malformed or problem
            line_count = self._span_lines(s, end)

        if index_mode and old_mode is None and new_mode is None:
            old_mode = new_mode = index_mode
        if status is _MODIFIED:
            if minus == sx.DEV_NULL:
                status = _ADDED
            elif plus == sx.DEV_NULL:
                status = _DELETED

        if combined:
            path_old, path_new, tok_old, tok_new = self._combined_paths(rest, minus, plus, status)
        else:
            path_old, path_new, tok_old, tok_new = self._git_paths(
                rest, minus, plus, src, dst, status
            )
        if (
            not hunks
            and not is_binary
            and malformed is None
            and status is _MODIFIED
            and (old_mode is None or old_mode == new_mode)
        ):
            malformed = "file header without changes"
        is_submodule = sx.SUBMODULE_MODE in (old_mode, new_mode) or self._submodule_body(hunks)
        if malformed:
            logger.debug("malformed file section at %d: %s", s, malformed)
        self.files.append(
            new_file_diff(
                index=len(self.files),
                start=s,
                header_end=header_end,
                end=end,
                kind=_KIND_COMBINED if combined else _KIND_GIT,
                status=status,
                old_path=path_old,
                new_path=path_new,
                hunks=hunks,
                added=added,
                removed=removed,
                old_mode=old_mode,
                new_mode=new_mode,
                similarity=similarity,
                is_binary=is_binary,
                binary_patch=binary_patch,
                is_submodule=is_submodule,
                commit=self.commit,
                old_token=tok_old,
                new_token=tok_new,
                malformed=malformed,
                line_count=line_count,
            )
        )
        self.gap_start = end
        return end

    def _plain_git_file(self, s: int) -> int:
        """The most common section, in one go: returns its end, or -1 to use :meth:`_git_file`.

        ``diff --git a/P b/P``, an ``index`` line, ``--- a/P`` and ``+++ b/P``
        (no quotes, tabs or CRs), then hunks that pass :meth:`_lazy_hunks`.
        What :meth:`_git_file` would record for it, with far less work per file.
        """
        if not self.lazy:
            return -1
        data = self.data
        m = sx.PLAIN_GIT_HEADER.match(data, s)
        if m is None:
            return -1
        pos = m.end()
        if pos >= self.n or data[pos] != 0x40:
            return -1
        minus, plus = m.group(2), m.group(3)
        if not (
            minus.startswith(b"a/")
            and plus.startswith(b"b/")
            and len(minus) > 2
            and minus[2:] == plus[2:]
            and b"\t" not in minus
            and not minus.endswith(b"\r")
            and data.startswith(minus + b" " + plus + b"\n", s + 11)  # after "diff --git "
            and not minus.endswith(b'"')
        ):
            return -1
        quick = self._lazy_hunks(pos)
        if quick is None:
            self.not_lazy = pos  # _git_file need not check these hunks again
            return -1
        hunks, end, added, removed, lines = quick
        self._gap(s)
        mode = m.group(1).decode("ascii") if m.group(1) else None
        self.prefixes = (b"a/", b"b/")
        path = decode_path(minus[2:])
        self.files.append(
            new_file_diff(
                index=len(self.files),
                start=s,
                header_end=pos,
                end=end,
                kind=_KIND_GIT,
                status=_MODIFIED,
                old_path=path,
                new_path=path,
                hunks=hunks,
                added=added,
                removed=removed,
                old_mode=mode,
                new_mode=mode,
                is_submodule=mode == sx.SUBMODULE_MODE or self._submodule_body(hunks),
                commit=self.commit,
                old_token=minus,
                new_token=plus,
                line_count=lines + 4,  # the four header lines the regex matched
            )
        )
        self.gap_start = end
        return end

    def _lazy_hunks(self, pos: int) -> tuple[LazyHunks, int, int, int, int] | None:
        """Check the hunks from ``pos`` on without building them: ``(hunks, end, added,
        removed, lines)``.

        The region runs to the first line that cannot be in a two-way hunk.
        Each hunk runs from its header to the next one (or the region's end)
        and must hold exactly what its header counts: ``removed + context ==
        old`` and ``added + context == new`` (``\\`` marker lines aside).
        Then the exact per-hunk reading would end every hunk at the same line,
        so the hunks can be built later, on first use.  The region must also
        end at a line that is not an ``@`` line (an unreadable header is
        reported as such).  Anything else (a plain diff's next ``---`` header,
        a mail signature, a context line stripped to an empty line, bad
        counts) returns None and the exact per-hunk path decides.
        """
        data = self.data
        n = self.n
        if data[pos - 1] != 0x0A:
            return None
        find = data.find
        headers = added = removed = lines = 0
        body = -1  # where the current hunk's body starts (-1: before the first header)
        old = new = hunk_marks = 0
        end = n
        # One scan finds every header (with its counts) and the region's end;
        # each hunk is counted when the next header (or the end) closes it.
        for m in sx.HUNK_SCAN.finditer(data, pos - 1):
            at = m.start() + 1
            if m.lastindex == 3:  # a line that is not ' ', '+' or '-' and not a header
                c = data[at]
                if c == 0x5C:  # a "\\ No newline at end of file" line
                    hunk_marks += 1
                    continue
                if c == 0x40:  # an "@" line that is not a well-formed hunk header
                    return None
                end = at
                break
            if body >= 0:
                counted = _hunk_body_counts(data, body, at, old, new, hunk_marks, 0)
                if counted is None:
                    return None
                lines += counted[0]
                added += counted[1]
                removed += counted[2]
            headers += 1
            old_count, new_count, _ = m.groups()
            old = 1 if old_count is None else int(old_count)
            new = 1 if new_count is None else int(new_count)
            hunk_marks = 0
            nl = find(b"\n", m.end(), end)
            body = end if nl < 0 else nl + 1
        if not headers:
            return None
        unterminated = int(end == n and body < n and data[n - 1] != 0x0A)
        counted = _hunk_body_counts(data, body, end, old, new, hunk_marks, unterminated)
        if counted is None:
            return None
        lines += counted[0] + headers
        added += counted[1]
        removed += counted[2]
        return LazyHunks(data, pos, end, headers), end, added, removed, lines

    def _binary_payload(self, pos: int) -> tuple[int, str | None]:
        """Consume ``literal``/``delta`` blocks, each ending at a blank line."""
        data = self.data
        blocks = 0
        while pos < self.n and sx.BINARY_BLOCK.match(data, pos):
            blank = sx.BLANK_LINE.search(data, pos)
            if blank is None:
                return self.n, "binary patch without its closing blank line"
            pos = blank.end()
            blocks += 1
        if blocks == 0:
            return pos, "'GIT binary patch' without a literal/delta block"
        return pos, None

    def _submodule_body(self, hunks: Sequence[Hunk]) -> bool:
        if len(hunks) != 1:
            return False
        if isinstance(hunks, LazyHunks):  # one hunk: its span is the region
            body_start = self._line_end(hunks.start)
            end = hunks.end
        else:
            body_start, end = hunks[0].body_start, hunks[0].end
        if end - body_start > 200:
            return False
        return self.data.find(b"Subproject commit ", body_start, end) >= 0

    def _git_paths(
        self,
        rest: bytes,
        minus: bytes | None,
        plus: bytes | None,
        src: bytes | None,
        dst: bytes | None,
        status: FileStatus,
    ) -> tuple[str | None, str | None, bytes, bytes]:
        if (
            src is None
            and minus is not None
            and plus is not None
            and minus.startswith(b"a/")
            and plus.startswith(b"b/")
            and len(minus) > 2
            and minus[2:] == plus[2:]
            and rest == minus + b" " + plus
            and not rest.endswith(b'"')
        ):
            # The usual ``diff --git a/x b/x`` with matching ---/+++ lines: what the
            # general code below finds for it, without the search.
            self.prefixes = (b"a/", b"b/")
            path = decode_path(minus[2:])
            return (
                None if status is _ADDED else path,
                None if status is _DELETED else path,
                minus,
                plus,
            )
        return self._any_git_paths(rest, minus, plus, src, dst, status)

    def _any_git_paths(
        self,
        rest: bytes,
        minus: bytes | None,
        plus: bytes | None,
        src: bytes | None,
        dst: bytes | None,
        status: FileStatus,
    ) -> tuple[str | None, str | None, bytes, bytes]:
        x, y = self._split_git_header(rest, minus, plus, src, dst)
        ux, uy = unquote_git_path(x), unquote_git_path(y)
        if src is not None and dst is not None:
            old, new = src, dst
            if (
                ux.endswith(src)
                and uy.endswith(dst)
                and (len(ux) != len(src) or len(uy) != len(dst))
            ):
                self.prefixes = (ux[: len(ux) - len(src)], uy[: len(uy) - len(dst)])
        else:
            split = split_prefixes(ux, uy)
            if split is None:
                old, new = ux, uy
            else:
                pa, pb, path = split
                if ux != uy:
                    self.prefixes = (pa, pb)
                elif self.prefixes and self.prefixes[0] == self.prefixes[1]:
                    path = strip_prefix(path, self.prefixes[0])
                old = new = path
        tok_old = minus if minus is not None else (sx.DEV_NULL if status is _ADDED else x)
        tok_new = plus if plus is not None else (sx.DEV_NULL if status is _DELETED else y)
        return (
            None if status is _ADDED else decode_path(old),
            None if status is _DELETED else decode_path(new),
            tok_old,
            tok_new,
        )

    def _split_git_header(
        self,
        rest: bytes,
        minus: bytes | None,
        plus: bytes | None,
        src: bytes | None,
        dst: bytes | None,
    ) -> tuple[bytes, bytes]:
        """Split the two path tokens of a ``diff --git`` line (names may hold spaces)."""
        if rest.startswith(b'"'):
            q = split_quoted(rest)
            if q is not None and q[1].startswith(b" "):
                return q[0], q[1][1:]
        elif rest.endswith(b'"'):
            i = rest.rfind(b' "')
            while i > 0:
                tail = rest[i + 1 :]
                q = split_quoted(tail)
                if q is not None and q[1] == b"":
                    return rest[:i], tail
                i = rest.rfind(b' "', 0, i)
        nspaces = rest.count(b" ")
        if nspaces <= 1:
            i = rest.find(b" ")
            return (rest, rest) if i < 0 else (rest[:i], rest[i + 1 :])
        # The ---/+++ names fix the split where they match (the leftmost such).
        fixed = len(rest)
        if minus is not None and minus != sx.DEV_NULL and rest.startswith(minus + b" "):
            fixed = len(minus)
        if plus is not None and plus != sx.DEV_NULL and rest.endswith(b" " + plus):
            fixed = min(fixed, len(rest) - len(plus) - 1)
        if fixed < len(rest):
            return rest[:fixed], rest[fixed + 1 :]
        half = len(rest) // 2
        spaces = [i for i in range(len(rest)) if rest[i] == 0x20]
        if len(spaces) > _MAX_SPLITS:
            # A real line has a few: a crafted one with thousands would make
            # the searches below quadratic.  Those nearest the middle remain.
            spaces = sorted(sorted(spaces, key=lambda k: abs(k - half))[:_MAX_SPLITS])
        candidates = [(rest[:i], rest[i + 1 :]) for i in spaces]
        if src is not None and dst is not None:
            for x, y in candidates:
                if unquote_git_path(x).endswith(src) and unquote_git_path(y).endswith(dst):
                    return x, y
        if self.prefixes is not None:
            pa, pb = self.prefixes
            for x, y in candidates:
                if x.startswith(pa) and y.startswith(pb) and x[len(pa) :] == y[len(pb) :]:
                    return x, y
        if len(rest) % 2 == 1 and rest[half] == 0x20:
            x, y = rest[:half], rest[half + 1 :]
            if x == y or _after_slash(x) == _after_slash(y):
                return x, y
        for x, y in candidates:
            split = split_prefixes(x, y)
            if split is not None and split[2] and len(split[0]) == len(split[1]):
                return x, y
        i = min(spaces, key=lambda k: abs(k - half))
        return rest[:i], rest[i + 1 :]

    def _combined_paths(
        self, rest: bytes, minus: bytes | None, plus: bytes | None, status: FileStatus
    ) -> tuple[str | None, str | None, bytes, bytes]:
        raw = unquote_git_path(rest)
        path = decode_path(raw)
        quote = quote_git_path if is_quoted(rest) else _as_is
        tok_old = minus if minus is not None else quote(b"a/" + raw)
        tok_new = plus if plus is not None else quote(b"b/" + raw)
        return (
            None if status is _ADDED else path,
            None if status is _DELETED else path,
            tok_old,
            tok_new,
        )

    # ----------------------------------------------------------- unified files

    def _unified_file(self, s: int, kind: str) -> int:
        data = self.data
        self._gap(s)
        pos = s
        hint_paths: tuple[bytes, bytes] | None = None
        if kind == "cmd":
            line, pos = self._line(s)
            hint_paths = _command_paths(line)
        elif kind == "binary":
            m = sx.BINARY_LINE.match(data, s)
            names = m.group(1) if m else b""
            hint_paths = _split_binary_names(names)
        elif kind == "index":
            line, pos = self._line(s)
            path = line[len(b"Index: ") :]
            hint_paths = (path, path)
            pos = self._line_end(pos)  # the ===== line
        minus = plus = None
        stamp_old = stamp_new = b""
        is_binary = False
        malformed: str | None = None
        m = sx.UNIFIED_PAIR.match(data, pos)
        if m:
            raw_minus, raw_plus = _strip_cr(m.group(1)), _strip_cr(m.group(2))
            minus, stamp_old = _split_stamp(raw_minus)
            plus, stamp_new = _split_stamp(raw_plus)
            pos = m.end()
        else:
            stop, _ = self._next_start(pos)
            if kind in ("cmd", "binary") and data.startswith(b"Binary file", pos):
                stop = self._line_end(pos)
            chunk = data[pos:stop]
            if sx.SVN_BINARY in chunk or sx.BINARY_FILES in chunk or sx.HG_BINARY in chunk:
                is_binary = True
            else:
                malformed = "no '---'/'+++' lines"
            pos = stop
        header_end = pos

        hunks, end, added, removed, problem = self._hunks(pos, False)
        malformed = malformed or problem
        if minus is not None and plus is not None and not hunks and malformed is None:
            malformed = "'---'/'+++' lines without hunks"

        status = _MODIFIED
        if minus == sx.DEV_NULL or (sx.ABSENT_STAMP.match(stamp_old) and _only_adds(hunks)):
            status = _ADDED
        elif plus == sx.DEV_NULL or (sx.ABSENT_STAMP.match(stamp_new) and _only_removes(hunks)):
            status = _DELETED

        ux = unquote_git_path(minus) if minus is not None else None
        uy = unquote_git_path(plus) if plus is not None else None
        if ux is None or uy is None:
            if hint_paths is not None:
                ux, uy = unquote_git_path(hint_paths[0]), unquote_git_path(hint_paths[1])
            else:
                ux = uy = b""
        old, new = self._unified_names(ux, uy)
        self.files.append(
            new_file_diff(
                index=len(self.files),
                start=s,
                header_end=header_end,
                end=end,
                kind=_KIND_UNIFIED,
                status=status,
                old_path=None if status is _ADDED else decode_path(old),
                new_path=None if status is _DELETED else decode_path(new),
                hunks=tuple(hunks),
                added=added,
                removed=removed,
                is_binary=is_binary,
                commit=self.commit,
                old_token=minus if minus is not None else ux,
                new_token=plus if plus is not None else uy,
                malformed=malformed,
                line_count=self._span_lines(s, end),
            )
        )
        self.gap_start = end
        return end

    def _unified_names(self, ux: bytes, uy: bytes) -> tuple[bytes, bytes]:
        """Names of a plain diff's two sides, with ``a/``-style or ``dir1/`` prefixes removed."""
        if ux == sx.DEV_NULL and uy == sx.DEV_NULL:
            return ux, uy
        if ux == sx.DEV_NULL:
            path = self._strip_one(uy, 1)
            return path, path
        if uy == sx.DEV_NULL:
            path = self._strip_one(ux, 0)
            return path, path
        split = split_prefixes(ux, uy)
        if split is None:
            return ux, uy
        return split[2], split[2]

    def _strip_one(self, path: bytes, side: int) -> bytes:
        if self.prefixes is not None:
            return strip_prefix(path, self.prefixes[side])
        return strip_prefix(path, b"b/" if side else b"a/")

    # ------------------------------------------------------------------- hunks

    def _hunks(self, pos: int, combined: bool) -> tuple[list[Hunk], int, int, int, str | None]:
        """Every hunk from ``pos`` on: ``(hunks, end, added, removed, problem)``."""
        data = self.data
        n = self.n
        hunks: list[Hunk] = []
        total_added = total_removed = 0
        if combined:
            while pos < n and data[pos] == 0x40:
                hunk, problem = self._combined_hunk(pos)
                if hunk is None:
                    return hunks, pos, total_added, total_removed, problem
                hunks.append(hunk)
                total_added += hunk.added
                total_removed += hunk.removed
                pos = hunk.end
                if problem:
                    return hunks, pos, total_added, total_removed, problem
            return hunks, pos, total_added, total_removed, None

        search_end = sx.NOT_HUNK_LINE.search
        count = data.count
        append = hunks.append
        while pos < n and data[pos] == 0x40:
            header = read_hunk_header(data, pos)
            if header is None or (header.line_end < n and data[header.line_end] != 0x0A):
                return hunks, pos, total_added, total_removed, "unreadable hunk header"
            hend = header.line_end
            old_start, old_count, new_start, new_count = header[:4]
            section = section_text(data, header)
            body_start = hend + 1
            problem = None
            if body_start < n:
                # fast path: the span up to the first line that cannot be hunk content
                found = search_end(data, hend)
                end = found.start() + 1 if found else n
                lines = count(b"\n", hend, end - 1)
                added = count(b"\n+", hend, end)
                removed = count(b"\n-", hend, end)
                # lines = context + removed + added + "\ No newline" marker lines
                marks = count(b"\n\\", hend, end)
                if lines - added - marks != old_count or lines - removed - marks != new_count:
                    end, added, removed, problem = self._measure(body_start, old_count, new_count)
            else:
                body_start = n
                end, added, removed, problem = self._measure(body_start, old_count, new_count)
            append(
                new_hunk(
                    pos,
                    body_start,
                    end,
                    old_start,
                    old_count,
                    new_start,
                    new_count,
                    added,
                    removed,
                    section,
                )
            )
            total_added += added
            total_removed += removed
            pos = end
            if problem:
                return hunks, pos, total_added, total_removed, problem
        return hunks, pos, total_added, total_removed, None

    def _measure(self, pos: int, old: int, new: int) -> _Measured:
        """Find where a two-way hunk body starting at ``pos`` ends (see module doc)."""
        data = self.data
        n = self.n
        count = data.count
        search = sx.NOT_HUNK_LINE.search
        added = removed = context = 0
        stripped = False
        while True:
            if pos >= n:
                a = r = c = 0
                region_end = n
            else:
                m = search(data, pos - 1)
                region_end = m.start() + 1 if m else n
                a = count(b"\n+", pos - 1, region_end)
                r = count(b"\n-", pos - 1, region_end)
                c = count(b"\n ", pos - 1, region_end)
            got_old = removed + r + context + c
            got_new = added + a + context + c
            if got_old == old and got_new == new:
                return self._body(region_end, added + a, removed + r, None, stripped)
            if got_old > old or got_new > new:
                return self._walk(
                    pos, old - removed - context, new - added - context, added, removed, stripped
                )
            if region_end < n and data[region_end] == 0x0A and got_old < old and got_new < new:
                # an empty line where a context line is expected
                added += a
                removed += r
                context += c + 1
                stripped = True
                pos = region_end + 1
                continue
            return self._body(
                region_end,
                added + a,
                removed + r,
                f"hunk ends early: its header promises {old} old and {new} new lines, "
                f"found {got_old} and {got_new}",
                stripped,
            )

    def _walk(
        self, pos: int, old_left: int, new_left: int, added: int, removed: int, stripped: bool
    ) -> _Measured:
        """Line-by-line end of a hunk whose span holds more than its counts."""
        data = self.data
        n = self.n
        find = data.find
        while pos < n and (old_left > 0 or new_left > 0):
            c = data[pos]
            if c == 0x20:
                if old_left <= 0 or new_left <= 0:
                    break
                old_left -= 1
                new_left -= 1
            elif c == 0x2D:
                if old_left <= 0:
                    break
                old_left -= 1
                removed += 1
            elif c == 0x2B:
                if new_left <= 0:
                    break
                new_left -= 1
                added += 1
            elif c == 0x0A and old_left > 0 and new_left > 0:
                old_left -= 1
                new_left -= 1
                stripped = True
                pos += 1
                continue
            elif c != 0x5C:
                break
            nl = find(b"\n", pos)
            pos = n if nl < 0 else nl + 1
        while pos < n and data[pos] == 0x5C:
            nl = find(b"\n", pos)
            pos = n if nl < 0 else nl + 1
        problem = None
        if old_left > 0 or new_left > 0:
            problem = (
                f"hunk ends early: {max(old_left, 0)} old and {max(new_left, 0)} new lines missing"
            )
        return self._body(pos, added, removed, problem, stripped)

    def _body(
        self, end: int, added: int, removed: int, problem: str | None, stripped: bool
    ) -> _Measured:
        if stripped:
            self.stripped_hunks += 1
        return end, added, removed, problem

    def _combined_hunk(self, s: int) -> tuple[Hunk | None, str | None]:
        data = self.data
        n = self.n
        m = sx.COMBINED_HUNK_HEADER.match(data, s)
        if m is None or m.group(1) != m.group(5):
            return None, "unreadable combined hunk header"
        hend = m.end()
        if hend < n and data[hend] != 0x0A:
            return None, "unreadable combined hunk header"
        ncol = len(m.group(1)) - 1
        parents = tuple(
            (int(r.group(1)), int(r.group(2)) if r.group(2) is not None else 1)
            for r in sx.COMBINED_RANGE.finditer(m.group(2))
        )
        if len(parents) != ncol:
            return None, "combined hunk header with a wrong number of ranges"
        new_start = int(m.group(3))
        new_count = int(m.group(4)) if m.group(4) is not None else 1
        left = [count for _, count in parents]
        new_left = new_count
        added = removed = 0
        pos = body_start = min(hend + 1, n)
        while pos < n and (new_left > 0 or any(v > 0 for v in left)):
            if data[pos] == 0x5C:
                pos = self._line_end(pos)
                continue
            prefix = data[pos : pos + ncol]
            if len(prefix) < ncol or prefix.strip(b" +-"):
                break
            has_minus = 0x2D in prefix
            # a removed line is in the parents marked '-'; a kept line in those marked ' '
            present = 0x2D if has_minus else 0x20
            if not has_minus:
                new_left -= 1
            for i in range(ncol):
                if prefix[i] == present:
                    left[i] -= 1
            added += 0x2B in prefix
            removed += has_minus
            pos = self._line_end(pos)
        while pos < n and data[pos] == 0x5C:
            pos = self._line_end(pos)
        problem = None
        if new_left > 0 or any(v > 0 for v in left):
            problem = "combined hunk ends early"
        hunk = Hunk(
            start=s,
            body_start=body_start,
            end=pos,
            old_start=parents[0][0],
            old_count=parents[0][1],
            new_start=new_start,
            new_count=new_count,
            added=added,
            removed=removed,
            section=_section_text(m.group(6)),
            parents=parents,
        )
        return hunk, problem


# --------------------------------------------------------------------- helpers


def _as_is(path: bytes) -> bytes:
    return path


def _command_paths(line: bytes) -> tuple[bytes, bytes] | None:
    """The file names of ``diff -ruN one/x two/x`` or hg's ``diff -r REV [-r REV] x``."""
    args = line.split()[1:]
    names: list[bytes] = []
    hg = False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == b"-r" and i + 1 < len(args) and sx.HG_REVISION.fullmatch(args[i + 1]):
            hg = True
            i += 2
            continue
        if not arg.startswith(b"-"):
            names.append(arg)
        i += 1
    if not names:
        return None
    if hg or len(names) == 1:
        return names[-1], names[-1]
    return names[-2], names[-1]


def _split_binary_names(names: bytes) -> tuple[bytes, bytes]:
    """``one/x and two/x`` -> both names; prefers the split whose names share a path."""
    candidates = []
    at = names.find(b" and ")
    while at >= 0:
        candidates.append((names[:at], names[at + 5 :]))
        at = names.find(b" and ", at + 1)
    if not candidates:
        return names, names
    for old, new in candidates:
        if split_prefixes(unquote_git_path(old), unquote_git_path(new)) is not None:
            return old, new
    return candidates[0]


def _strip_cr(value: bytes) -> bytes:
    return value[:-1] if value.endswith(b"\r") else value


def _split_stamp(token: bytes) -> tuple[bytes, bytes]:
    """``a/x\\t2024-...`` -> ``(b"a/x", b"\\t2024-...")``; quoted names keep their tabs."""
    if token.startswith(b'"'):
        q = split_quoted(token)
        if q is not None:
            return q[0], q[1]
    tab = token.find(b"\t")
    if tab < 0:
        return token, b""
    return token[:tab], token[tab:]


def _strip_stamp(token: bytes) -> bytes:
    return _split_stamp(token)[0]


def _mode(value: bytes) -> str | None:
    m = sx.MODE_VALUE.match(value.strip())
    return m.group(0).decode("ascii") if m else None


def _after_slash(token: bytes) -> bytes:
    slash = token.find(b"/")
    return token[slash + 1 :] if slash >= 0 else token


def _only_adds(hunks: list[Hunk]) -> bool:
    return len(hunks) == 1 and hunks[0].old_start == 0 and hunks[0].old_count == 0


def _only_removes(hunks: list[Hunk]) -> bool:
    return len(hunks) == 1 and hunks[0].new_start == 0 and hunks[0].new_count == 0


def _section_text(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace")
    if text.endswith("\r"):
        text = text[:-1]
    return text.strip()


def _log_subject(data: DiffData, start: int, end: int) -> str:
    blank = sx.BLANK_LINE.search(data, start, end)
    pos = start if blank is None else blank.end()
    while pos < end:
        nl = data.find(b"\n", pos, end)
        line = data[pos : end if nl < 0 else nl]
        text = line.strip()
        if text:
            return text.decode("utf-8", errors="replace")
        if nl < 0:
            break
        pos = nl + 1
    return ""


def _mail_subject(data: DiffData, start: int, end: int) -> str:
    m = sx.MAIL_SUBJECT.search(data, start, end)
    if m is None:
        return ""
    raw = b" ".join(part.strip() for part in m.group(1).split(b"\n"))
    text = raw.decode("utf-8", errors="replace")
    if "=?" in text:
        try:
            from email.errors import MessageError
            from email.header import decode_header, make_header  # rare: not at import

            text = str(make_header(decode_header(text)))
        except (ValueError, LookupError, UnicodeError, MessageError):  # e.g. CharsetError
            pass
    return sx.PATCH_TAG.sub("", text, count=1).strip()


def _hunk_body_counts(
    data: DiffData, body: int, end: int, old: int, new: int, marks: int, unterminated: int
) -> tuple[int, int, int] | None:
    """``(lines, added, removed)`` of the hunk body ``data[body:end]``, or None when its
    lines do not make exactly ``old`` old and ``new`` new lines.

    Every line there is a ``' '``, ``'+'``, ``'-'`` or ``\\`` marker line
    (``marks`` of those); ``unterminated`` is 1 when the last one has no ``\\n``.
    """
    if isinstance(data, DiffBuffer):  # a mapped diff: one copy of the body, not one per count
        data, body, end = data[body - 1 : end], 1, end - body + 1
    count = data.count
    lines = count(b"\n", body, end) + unterminated
    added = count(b"\n+", body - 1, end)
    removed = count(b"\n-", body - 1, end)
    context = lines - marks - added - removed
    if context < 0 or removed + context != old or added + context != new:
        return None
    return lines, added, removed


# ------------------------------------------------------------------ streaming

_GIT_LINE = b"\n" + sx.GIT_HEADER
# Section kinds parsed while the input still grows (others wait for finish()).
_STREAMED_KINDS = frozenset({"git", "cc", "commit"})
# What a section may change in the parser (restored when it is undone).
_State = tuple[int, int, int, int, "int | None", "tuple[bytes, bytes] | None", int, int]


class StreamParser:
    """Parse a diff while it arrives: ``feed(block)`` repeatedly, then ``finish()``.

    ``finish()`` returns exactly what :func:`parse_diff` returns for the
    concatenated blocks.  Sections are parsed as soon as they are known to be
    complete: everything before the last ``diff --git`` line received so far.
    The section code is the one :func:`parse_diff` runs; it reads the bytes
    received so far (in place) with its end of input set at that
    ``diff --git`` line, where every section rule stops anyway.  A section
    that reaches past that line, looks malformed, fails, or is of a kind
    other than ``diff --git``, ``diff --cc`` or a ``git log`` commit, is
    undone and left (with everything after it) to ``finish()``, which
    parses the rest over the whole input.
    """

    def __init__(self, *, min_step: int = 1 << 20, growing: int | None = None) -> None:
        # With ``growing`` (the descriptor of the file the blocks are written to,
        # from its start), the parse reads a mapping of that file instead of a
        # copy of every block: nothing of the input is held in memory.
        self._growing = growing
        self._size = 0
        self._view: DiffBuffer | None = None  # the file as far as fed (growing mode)
        self._viewing: list[FileDiff] = []  # files whose LazyHunks read self._view
        self._tail = b""  # the last bytes fed (growing mode; a diff --git line may span blocks)
        self._buf = bytearray()
        self._parser = _Parser(b"")
        self._pos = 0  # the parser's loop position: sections before it are done
        self._scan = 0  # where the search for the next diff --git line resumes
        self._cut = 0  # start of the last diff --git line seen
        self._min_step = min_step
        self._stalled = False
        self.streamed = 0  # bytes parsed before finish() (for tests and logs)

    @property
    def size(self) -> int:
        return self._size if self._growing is not None else len(self._buf)

    @property
    def buffer(self) -> DiffData | bytearray:
        """Everything parsed so far, in place: the sections of :meth:`files_since` are in
        it at their offsets (read it, never keep it or a view of it across :meth:`feed`)."""
        if self._growing is not None:
            return self._view if self._view is not None else b""
        return self._buf

    @property
    def file_count(self) -> int:
        """File sections parsed so far."""
        return len(self._parser.files)

    def files_since(self, start: int) -> list[FileDiff]:
        """The file sections parsed so far from index ``start`` on (a later one may replace
        the last of them: use them for early work such as prefetching, not as the result)."""
        return self._parser.files[start:]

    def feed(self, block: bytes) -> None:
        """Append ``block`` and parse the sections now complete."""
        if self._growing is not None:
            self._feed_growing(block)
            return
        buf = self._buf
        try:
            buf += block
        except BufferError:  # something still views the buffer: grow a copy
            self._buf = buf = bytearray(buf)
            buf += block
        if self._stalled:
            return
        at = buf.rfind(_GIT_LINE, self._scan)
        self._scan = max(0, len(buf) - len(_GIT_LINE) + 1)
        if at >= 0:
            self._cut = at + 1
        if self._cut - self._pos >= self._min_step:
            self._advance(buf, self._cut)

    def _feed_growing(self, block: bytes) -> None:
        start = self._size - len(self._tail)
        self._size += len(block)
        if self._stalled:
            return
        seen = self._tail + block
        at = seen.rfind(_GIT_LINE)
        self._tail = seen[-(len(_GIT_LINE) - 1) :]
        if at >= 0:
            self._cut = start + at + 1
        if self._cut - self._pos >= self._min_step:
            self._advance(self._remap(), self._cut)

    def _remap(self) -> DiffBuffer | bytearray:
        """A mapping of the growing file as far as fed; the files parsed on the
        previous one let it go (finish() gives every file the final buffer)."""
        assert self._growing is not None
        try:
            view = map_file(self._growing, self._size, "")
        except (OSError, ValueError) as exc:  # no mappings here: hold a copy after all
            logger.debug("growing file not mapped (%s): parsing a copy", exc)
            self._buf = bytearray(pread_exact(self._growing, 0, self._size))
            self._growing = None
            return self._buf
        for f in self._viewing:
            hunks = f.hunks
            if isinstance(hunks, LazyHunks):
                hunks.rebind(b"")
        self._viewing = []
        self._view = view
        return view

    def _advance(self, data: bytearray | DiffBuffer, limit: int) -> None:
        p = self._parser
        # The section code reads the buffer in place (no copy per step); what it
        # keeps from it is bytes (regex groups) except the path tokens, made
        # bytes below, and LazyHunks.data, rebound in finish().
        p.data = data  # type: ignore[assignment]
        p.n = limit
        pos = self._pos
        try:
            while pos < limit:
                start, kind = p._next_start(pos)
                if kind is None or start >= limit:
                    break
                if kind not in _STREAMED_KINDS:
                    self._stalled = True
                    break
                state: _State = (
                    len(p.files),
                    len(p.segments),
                    len(p.commits),
                    p.gap_start,
                    p.commit,
                    p.prefixes,
                    p.stripped_hunks,
                    p.not_lazy,
                )
                try:
                    if kind == "commit":
                        end = p._commit(start, kind)
                    elif kind == "git":
                        end = p._plain_git_file(start)
                        if end < 0:
                            end = p._git_file(start, False)
                    else:
                        end = p._git_file(start, True)
                except Exception:  # left to finish(), which parses as parse_diff does
                    logger.debug("streamed parse stopped at %d", start, exc_info=True)
                    self._undo(state)
                    self._stalled = True
                    break
                files = p.files
                new_file = files[-1] if len(files) > state[0] else None  # one at most
                if (
                    end > limit
                    or (new_file is not None and new_file.malformed is not None)
                    or (
                        len(p.segments) > state[1]
                        and any(seg.kind is _SEG_MALFORMED for seg in p.segments[state[1] :])
                    )
                ):
                    self._undo(state)
                    self._stalled = True
                    break
                if new_file is not None:
                    _own_bytes(new_file)
                    if self._growing is not None:
                        self._viewing.append(new_file)
                prefixes = p.prefixes
                if prefixes is not None and type(prefixes[0]) is not bytes:
                    p.prefixes = (bytes(prefixes[0]), bytes(prefixes[1]))
                pos = end
        finally:
            # Nothing may keep the partial input alive past finish().
            p.data = b""
            p.n = 0
        self.streamed = pos
        self._pos = pos

    def _undo(self, state: _State) -> None:
        p = self._parser
        files, segments, commits = state[0], state[1], state[2]
        del p.files[files:]
        del p.segments[segments:]
        del p.commits[commits:]
        (
            _,
            _,
            _,
            p.gap_start,
            p.commit,
            p.prefixes,
            p.stripped_hunks,
            p.not_lazy,
        ) = state

    def finish(self, whole: DiffBuffer | None = None) -> ParsedDiff:
        """The parse of everything fed (raises :class:`NotADiffError` as :func:`parse_diff`).

        ``whole``: the same bytes, mapped from the file they were read from;
        the parse then refers to it instead of a copy of what was fed (or,
        for a parser of a ``growing`` file, instead of the file read anew).
        """
        data: DiffData
        if whole is not None:
            data = whole
        elif self._growing is not None:
            data = pread_exact(self._growing, 0, self._size)
        else:
            data = bytes(self._buf)
        self._view = None
        if len(data) != self.size:
            raise ValueError("StreamParser.finish: the mapped file is not what was fed")
        self._buf = bytearray()
        self._viewing = []
        p = self._parser
        p.data = data
        p.n = len(data)
        parsed = p.run(self._pos)
        for f in parsed.files:
            hunks = f.hunks
            if isinstance(hunks, LazyHunks):
                hunks.rebind(data)  # not the growing buffer it was checked in
        return parsed


def _own_bytes(f: FileDiff) -> None:
    """Tokens sliced from the growing input are bytearrays: store them as bytes."""
    if type(f.old_token) is not bytes:
        object.__setattr__(f, "old_token", bytes(f.old_token))
    if type(f.new_token) is not bytes:
        object.__setattr__(f, "new_token", bytes(f.new_token))
