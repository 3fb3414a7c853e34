"""Where a parse stands in its buffer: :class:`Cursor`, below every section grammar.

The section grammars (:mod:`.git`, :mod:`.unified`, :mod:`.commits`,
:mod:`.combined`, :mod:`.hunks`) read a section from a cursor: its lines, the
next section start (:meth:`Cursor.next_section`), the gap before a file and
the file read (:meth:`Cursor.gap`, :meth:`Cursor.add_file`), and a checkpoint
to undo a section that turned out to be something else.  The reader that
drives them section after section (:class:`~.reader.SectionReader`) is a
cursor too, and sits above the grammars, as a tokenizer sits below the parser
that uses it.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from diffchunk.diff import syntax as sx
from diffchunk.diff.buffer import DiffData
from diffchunk.diff.model import Commit, FileDiff, Segment, SegmentKind
from diffchunk.diff.table import FileTable

__all__ = ["Checkpoint", "Cursor", "SectionKind"]

#: What a section start line opens: ``git`` (``diff --git``), ``cc`` (``diff
#: --cc``/``--combined``), ``cmd`` (``diff -u a b`` before ``---``), ``pair``
#: (``---`` then ``+++``), ``binary`` (``Binary files ... differ``), ``index``
#: (svn's ``Index:``), ``commit`` (``git log``), ``mbox`` (format-patch).
SectionKind = Literal["git", "cc", "cmd", "pair", "binary", "index", "commit", "mbox"]

SEG_TEXT, SEG_MALFORMED = SegmentKind.TEXT, SegmentKind.MALFORMED


class Checkpoint(NamedTuple):
    """What reading one section may change in a :class:`Cursor`, saved
    before it (:meth:`Cursor.checkpoint`) to undo it."""

    files: int  # lengths of the output lists
    segments: int
    commits: int
    gap_start: int  # the reader's state (see Cursor)
    commit: int | None
    prefixes: tuple[bytes, bytes] | None
    stripped_hunks: int
    not_lazy: int


class Cursor:
    """Where a parse of ``data[:limit]`` stands, and what it has read: ``files``,
    ``segments`` and ``commits`` (see the module doc).

    Besides its input and its output lists, a cursor remembers what the
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
            seg.kind is SEG_MALFORMED for seg in self.segments[mark.segments :]
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
            kind, note = SEG_TEXT, None
            if data.startswith(b"@@", start) or sx.HUNK_LIKE.search(data, start, end):
                kind = SEG_MALFORMED
                note = "hunk lines outside a file section (unreadable or orphan @@ header)"
            elif data[start] in b"+- \\" and not sx.SIGNATURE.match(data, start):
                kind = SEG_MALFORMED
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
