"""The parse of one buffer, section after section: :class:`SectionReader`.

The input as a whole reads::

    diff     = *(section / gap)
    section  = commit / git-section / combined-section / unified-section
    gap      = 1*line                 ; anything before the next section start

A section starts at a line that one of the section grammars opens with
(:meth:`SectionReader.next_section` finds it, :mod:`.git`, :mod:`.unified`
and :mod:`.commits` read it); each section reader ends its section where
its grammar ends.  A gap becomes a :class:`~diffchunk.diff.model.Segment`:
``MALFORMED`` when it holds diff lines (an orphan ``@@`` hunk, lines that
the preceding hunk's counts do not cover), ``TEXT`` otherwise (a preamble,
a mail trailer).  The sections and gaps tile the buffer.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from diffchunk.diff import syntax as sx
from diffchunk.diff.buffer import DiffBuffer, DiffData, trimmer
from diffchunk.diff.model import Commit, FileDiff, ParsedDiff, Segment, SegmentKind
from diffchunk.diff.table import FileTable
from diffchunk.errors import NotADiffError

from ...limits import COLOR_PROBE_BYTES
from . import commits, git, unified

__all__ = ["Checkpoint", "SectionKind", "SectionReader", "parse_diff"]

#: What a section start line opens: ``git`` (``diff --git``), ``cc`` (``diff
#: --cc``/``--combined``), ``cmd`` (``diff -u a b`` before ``---``), ``pair``
#: (``---`` then ``+++``), ``binary`` (``Binary files ... differ``), ``index``
#: (svn's ``Index:``), ``commit`` (``git log``), ``mbox`` (format-patch).
SectionKind = Literal["git", "cc", "cmd", "pair", "binary", "index", "commit", "mbox"]

_SEG_TEXT, _SEG_MALFORMED = SegmentKind.TEXT, SegmentKind.MALFORMED

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
    a whole gets a :class:`~diffchunk.diff.hunk.LazyHunks` (built on first
    use, see its doc); ``lazy=False`` measures and builds every hunk at once.
    """
    if type(data) is not bytes and not isinstance(data, DiffBuffer):
        data = bytes(data)
    return SectionReader(data, lazy=lazy).read_to_end()


class Checkpoint(NamedTuple):
    """What reading one section may change in a :class:`SectionReader`, saved
    before it (:meth:`SectionReader.checkpoint`) to undo it."""

    files: int  # lengths of the output lists
    segments: int
    commits: int
    gap_start: int  # the reader's state (see SectionReader)
    commit: int | None
    prefixes: tuple[bytes, bytes] | None
    stripped_hunks: int
    not_lazy: int


class SectionReader:
    """Reads the sections of ``data[:limit]`` in order, into ``files``, ``segments``
    and ``commits`` (see the module doc).

    Besides its input and its output lists, a reader remembers what the
    sections read so far decided for the next ones:

    - ``gap_start``: where the text that no section holds yet starts;
    - ``commit``: the commit the next file sections belong to (index into
      ``commits``), None before any commit header;
    - ``prefixes``: the path prefixes learned from an unambiguous
      ``diff --git`` line (``a/`` ``b/``, ``i/`` ``w/``...), used to read
      ambiguous ones;
    - ``stripped_hunks``: hunks read with empty lines taken for context lines
      (the diff gets a warning);
    - ``not_lazy``: where the whole-file hunk check last failed (the general
      git section reader need not check those hunks again).

    The file sections go to a :class:`~diffchunk.diff.table.FileTable`, which
    keeps them in columns.  Everything the reader keeps from its input is
    ``bytes`` or offsets into ``data`` (lazy hunks, path tokens), also when
    ``data`` is a ``bytearray`` that grows meanwhile.
    """

    __slots__ = (
        "commit",
        "commits",
        "data",
        "files",
        "gap_start",
        "lazy",
        "limit",
        "not_lazy",
        "prefixes",
        "segments",
        "stripped_hunks",
    )

    def __init__(self, data: DiffData | bytearray, *, lazy: bool = True) -> None:
        self.data = data
        self.limit = len(data)  # the input ends here (a cut, while a stream is read)
        self.lazy = lazy
        self.files = FileTable(data)
        self.segments: list[Segment] = []
        self.commits: list[Commit] = []
        self.gap_start = 0
        self.commit: int | None = None
        self.prefixes: tuple[bytes, bytes] | None = None
        self.stripped_hunks = 0
        self.not_lazy = -1

    # ------------------------------------------------------------------ driving

    def view(self, data: DiffData | bytearray, limit: int) -> None:
        """Read ``data[:limit]`` from now on (the input so far, or all of it).

        ``data`` must hold the bytes read so far at the same offsets.
        """
        self.data = data
        self.limit = limit
        self.files.rebind(data)

    def read_to_end(self, pos: int = 0) -> ParsedDiff:
        """Read every section from line offset ``pos`` on, and give the parse of all
        the input (raises :class:`NotADiffError` as :func:`parse_diff`)."""
        limit = self.limit
        trim = trimmer(self.data)
        read_plain = git.read_plain_git_section
        while pos < limit:
            if trim is not None:
                trim(pos)
            start, kind = self.next_section(pos)
            if kind is None:
                break
            if kind == "git":  # the bulk of real input: read_section's first case, inline
                end = read_plain(self, start)
                pos = end if end >= 0 else git.read_git_section(self, start, combined=False)
            else:
                pos = self.read_section(start, kind)
        self.gap(limit)
        return self._result()

    def read_section(self, start: int, kind: SectionKind) -> int:
        """Read the section of ``kind`` that starts at ``start``; returns its end."""
        if kind == "git":
            end = git.read_plain_git_section(self, start)
            return end if end >= 0 else git.read_git_section(self, start, combined=False)
        if kind == "cc":
            return git.read_git_section(self, start, combined=True)
        if kind == "commit" or kind == "mbox":
            return commits.read_commit(self, start, kind)
        return unified.read_unified_section(self, start, kind)

    def checkpoint(self) -> Checkpoint:
        """What the next section may change, to undo it with :meth:`rollback`."""
        return Checkpoint(
            len(self.files),
            len(self.segments),
            len(self.commits),
            self.gap_start,
            self.commit,
            self.prefixes,
            self.stripped_hunks,
            self.not_lazy,
        )

    def rollback(self, mark: Checkpoint) -> None:
        """Undo every section read since ``mark`` was taken."""
        del self.files[mark.files :]
        del self.segments[mark.segments :]
        del self.commits[mark.commits :]
        self.gap_start = mark.gap_start
        self.commit = mark.commit
        self.prefixes = mark.prefixes
        self.stripped_hunks = mark.stripped_hunks
        self.not_lazy = mark.not_lazy

    def malformed_since(self, mark: Checkpoint) -> bool:
        """Whether a file section or a gap read since ``mark`` was flagged malformed."""
        files = self.files
        return any(files.malformed(i) is not None for i in range(mark.files, len(files))) or any(
            seg.kind is _SEG_MALFORMED for seg in self.segments[mark.segments :]
        )

    # ----------------------------------------------------------------- sections

    def next_section(self, pos: int) -> tuple[int, SectionKind | None]:
        """The next line at or after line offset ``pos`` that opens a section
        (``(limit, None)`` when none does)."""
        data = self.data
        search = sx.NEXT_SECTION_START.search
        while pos < self.limit:
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
            pos = self.line_end(s)
        return self.limit, None

    def _classify(self, s: int) -> SectionKind | None:
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

    def gap(self, end: int) -> None:
        """Make the text from ``gap_start`` to ``end`` a segment (nothing when empty)."""
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

    def add_file(self, fd: FileDiff) -> int:
        """Record a file section (read after :meth:`gap` up to its start); its end."""
        self.files.append(fd)
        self.gap_start = fd.end
        return fd.end

    # -------------------------------------------------------------------- lines

    def line(self, pos: int) -> tuple[bytes, int]:
        """The line at ``pos`` without ``\\n`` and trailing CR (as ``bytes``), and the
        next line's offset."""
        data = self.data
        nl = data.find(b"\n", pos)
        if nl < 0:
            line, nxt = data[pos:], self.limit
        else:
            line, nxt = data[pos:nl], nl + 1
        if type(line) is not bytes:  # a slice of a bytearray
            line = bytes(line)
        if line.endswith(b"\r"):
            line = line[:-1]
        return line, nxt

    def line_end(self, pos: int) -> int:
        """Offset just after the line at ``pos`` (its ``\\n`` included)."""
        nl = self.data.find(b"\n", pos)
        return self.limit if nl < 0 else nl + 1

    def span_lines(self, start: int, end: int) -> int:
        """Lines of ``data[start:end]`` (an unterminated last line counts)."""
        if end <= start:
            return 0
        return self.data.count(b"\n", start, end) + (self.data[end - 1] != 0x0A)

    # ------------------------------------------------------------------- result

    def _result(self) -> ParsedDiff:
        data = self.data
        # the whole input by now: a growing bytearray is read to its end as bytes
        assert not isinstance(data, bytearray), "read_to_end reads bytes or a mapping"
        n = self.limit
        if n and not self.files and not self.commits:
            hint = _NOT_A_DIFF_HINT
            if sx.COLORED_DIFF.search(data[:COLOR_PROBE_BYTES]):
                hint += " It holds terminal color codes: produce it again with --no-color."
            raise NotADiffError(_NOT_A_DIFF.format(size=n), suggestion=hint)
        warnings: list[str] = []
        if self.stripped_hunks:
            warnings.append(
                f"{self.stripped_hunks} hunk(s) contain empty lines read as context lines "
                "whose leading space was stripped"
            )
        bad = self.files.malformed_count()
        if bad:
            warnings.append(f"{bad} file section(s) look malformed; they are kept as written")
        warnings.extend(self._outside_sections())
        return ParsedDiff(
            data=data,
            files=self.files,
            segments=tuple(self.segments),
            commits=tuple(self.commits),
            warnings=tuple(warnings),
        )

    def _outside_sections(self) -> list[str]:
        """Say what lies outside every file section and so is in no chunk: stray diff
        lines, and the ``Only in DIR: NAME`` lines of ``diff -r`` (files it does not show)."""
        data = self.data
        out: list[str] = []
        stray = [seg for seg in self.segments if seg.kind is _SEG_MALFORMED]
        if stray:
            first = stray[0]
            line = data.count(b"\n", 0, first.start) + 1
            text = data[first.start : self.line_end(first.start)].rstrip(b"\r\n")
            out.append(
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
            out.append(
                f"{only} 'Only in ...' line(s) of diff -r name files that exist on one side "
                "only and are not shown as diffs; diff -ruN includes them"
            )
        return out
