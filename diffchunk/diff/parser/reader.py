"""The parse of one buffer, section after section: :class:`SectionReader`.

The input as a whole reads::

    diff     = *(section / gap)
    section  = commit / git-section / combined-section / unified-section
    gap      = 1*line                 ; anything before the next section start

A section starts at a line that one of the section grammars opens with
(:meth:`~.cursor.Cursor.next_section` finds it, :mod:`.git`, :mod:`.unified`
and :mod:`.commits` read it); each section reader ends its section where
its grammar ends.  A gap becomes a :class:`~diffchunk.diff.model.Segment`:
``MALFORMED`` when it holds diff lines (an orphan ``@@`` hunk, lines that
the preceding hunk's counts do not cover), ``TEXT`` otherwise (a preamble,
a mail trailer).  The sections and gaps tile the buffer.
"""

from __future__ import annotations

from diffchunk.diff import syntax as sx
from diffchunk.diff.buffer import DiffBuffer, DiffData, trimmer
from diffchunk.diff.model import ParsedDiff
from diffchunk.errors import NotADiffError

from . import commits, git, unified
from .cursor import SEG_MALFORMED, SEG_TEXT, Cursor, SectionKind

COLOR_PROBE_BYTES = 65536
"""A diff written with colors has escape codes in its first lines: looking at
this much of a file that is not a diff is enough to say so."""


__all__ = ["SectionKind", "SectionReader", "parse_diff"]

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


class SectionReader(Cursor):
    """Reads the sections of ``data[:limit]`` in order, each with the grammar its
    start line opens, into the cursor's ``files``, ``segments`` and ``commits``
    (see the module doc and :class:`~.cursor.Cursor`)."""

    __slots__ = ()

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
        stray = [seg for seg in self.segments if seg.kind is SEG_MALFORMED]
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
            if seg.kind is SEG_TEXT
        )
        if only:
            out.append(
                f"{only} 'Only in ...' line(s) of diff -r name files that exist on one side "
                "only and are not shown as diffs; diff -ruN includes them"
            )
        return out
