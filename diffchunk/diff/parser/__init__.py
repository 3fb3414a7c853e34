"""Parse a diff buffer into sections that tile it: ``parse_diff(data) -> ParsedDiff``.

Understands git diffs (quoted paths, any prefixes, renames, copies, modes,
binary payloads, submodules), combined diffs of merges, plain unified diffs
(``diff -u``/``-ruN``, svn, hg) and multi-commit streams (``git log -p``,
``git format-patch --stdout``).  :class:`StreamParser` gives the same parse
while the diff still arrives.

The parser is split by what it reads; each reading function states the
grammar it reads in its docstring:

- :mod:`.reader`: the buffer as a whole, section after section, and what
  lies between sections (:class:`~.reader.SectionReader`, :func:`parse_diff`);
- :mod:`.cursor`: where a parse stands, below every grammar (its lines, the
  next section start, the gaps, a checkpoint to undo a section);
- :mod:`.git`: ``diff --git`` and ``diff --cc`` sections and their extended
  header lines; :mod:`.git_paths`: the two names on a ``diff --git`` line;
- :mod:`.unified`: plain unified sections (``---``/``+++``, ``Index:``,
  ``diff -ruN`` command lines, ``Binary files ... differ``);
- :mod:`.combined`: the ``@@@`` hunks of combined diffs;
- :mod:`.commits`: commit headers and messages of ``git log -p`` and
  ``git format-patch`` streams;
- :mod:`.hunks`: two-way hunk bodies, measured exactly or checked as a whole;
- :mod:`.stream`: :class:`StreamParser`.

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
file gets a :class:`~diffchunk.diff.hunk.LazyHunks` that builds the ``Hunk``
objects only if a consumer asks for them (most files never need them: the
filters and the chunker work from the section's span and line count).
Otherwise the per-hunk path above decides, so a file with wrong counts is
flagged exactly as before.

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

from .reader import parse_diff
from .stream import StreamParser

__all__ = ["StreamParser", "parse_diff"]
