"""The lean format: every change of a chunk visible for the fewest characters, and
expandable back to the raw text byte for byte.

:func:`render_lean` gives a :class:`LeanView`: its ``text``, and the raw bytes
the text leaves out (``originals``, keyed by the index of the lean line that
stands for them); :func:`expand` gives the raw text back from both.

The format, line by line (each kind is told by its first characters; no
line of a diff's hunks starts with one of the markers)::

    ## path (notes, +A -R)     a file: new, deleted, renamed from X (N%), copied
                               from X, mode A -> B, binary, submodule, and the
                               lines it adds and removes here
    @@ N section               a hunk: its next shown line is line N of the new
                               file; section is the function context of "@@"
    +added line                as in the diff
    -removed line              as in the diff
     unchanged line            shown only between two changes, when shorter
                               than its fold
    ~a [-removed-]{+added+} b  a removed and an added line that differ in a few
                               words, in one line
    \\ No newline at end of file
    ⋯ N                        N unchanged lines left out
    ⋯ what                     other lines left out, and what they were: a run of
                               removed lines (their line range, count and the
                               definitions they held), lines re-indented (the
                               added side follows), lines moved to or from
                               another place of the diff (a long run moved
                               unchanged is named by both places and shown on
                               neither side), an edit repeated from another
                               place, a GIT binary patch (its sizes and blob
                               ids), a mail's diffstat
    ↳ N more characters...     the rest of the line above, cut
    | text                     a line outside the files (a commit message), as it is

A commit's header lines (``From``/``commit``, author, date, subject) are one
``## commit`` line.  Unchanged lines are left out: the context before a
hunk's first change and after its last, and runs between two changes (a
``⋯ N`` line).  A deleted file whose lines are all removed is its ``##``
line alone (unless some of its lines moved elsewhere: then it is written run by
run).  Word-level pairs and repeated edits are found only within the view, so
every place their folds name is in the same answer; moved lines are found
within the view and, when :func:`render_lean` is given the rest of the diff
(``partners``), in the diff's other files too, which a fold then names by path.
Any line the view leaves out is served exactly by ``get_chunk`` with
``format="raw"`` (or ``get_file_diff`` for one file).

Modules: :mod:`.reading` reads a chunk into files, hunks and change blocks;
:mod:`.words` makes and reads word-level pairs; :mod:`.matching` finds moved
lines and repeated edits; :mod:`.summaries` writes what fold lines say;
:mod:`.blocks` writes a change block; :mod:`.render` the whole view;
:mod:`.view` holds the view and its writer; :mod:`.expand` reads it back.
"""

from __future__ import annotations

from .expand import expand
from .markers import KINDS
from .partners import Partners
from .render import render_lean
from .view import FoldStats, LeanView

__all__ = ["KINDS", "FoldStats", "LeanView", "Partners", "expand", "render_lean"]
