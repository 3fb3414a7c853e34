"""Cut a parsed diff into chunks that fit a line and token budget.

``chunk_files`` packs whole files in diff order, aiming at 80% of the budget.
A file bigger than the whole budget is cut into *parts* at hunk boundaries,
and a hunk bigger than a part is cut into smaller hunks with new ``@@``
headers.  Every chunk stays a patch that ``git apply`` accepts on the tree
left by the chunks before it:

- each part repeats a file header; part 1 keeps the original one (new file,
  rename, copy, mode lines), later parts are plain modifications of the file
  as it then exists.  A deleted file is the other way round: earlier parts
  remove lines from it, the last part carries ``deleted file mode`` and
  removes what is left;
- git anchors a hunk whose old start is 0 or 1 at the top of the file and a
  hunk without trailing context at its end.  So when a hunk is cut between
  lines, the first piece borrows the next old-side line as trailing context
  and the second piece borrows the previous new-side line as leading context
  (a cut right after a context line shares that line), and a cut never
  borrows a line that carries ``\\ No newline at end of file``;
- old starts of hunks in later parts are moved by what earlier parts already
  changed, so the line hints are exact;
- ``git apply`` reads the source of a copy from the tree *before* the patch,
  whatever else the patch does to that file.  Once cut into chunks, a copy
  would read its source as earlier chunks left it (a new mode, new content,
  or no file after a rename), so a copied file is moved right before the
  first section of the same commit that changes its source.  In a stream of
  commits, a rename, copy or deletion of a path an earlier commit changed
  starts a new chunk when that change is in the chunk being filled (one
  ``git apply`` would read the path as it was before the chunk, or keep a
  file changed and then deleted);
- git lists a file ``P`` that replaces a directory before the removal of
  ``P/x`` (path order), which one ``git apply`` of the whole diff copes
  with; so the section creating ``P`` moves after those removals.

Chunk text is a list of pieces: spans of ``ParsedDiff.data`` wherever the
bytes are the original ones, literal bytes only for written headers and the
lines of cut hunks.  Work is per file and per hunk (``bytes.count`` over
spans); only a hunk that has to be cut is looked at line by line.

Modules: :mod:`.packing` packs files into chunks (:func:`chunk_files`) and
renders them, :mod:`.order` moves sections where the rules above need it,
:mod:`.parts` cuts a file into parts, :mod:`.cuts` cuts a hunk between
lines, :mod:`.pieces` measures chunk text against the budget.
"""

from __future__ import annotations

from .packing import chunk_files, look_ahead_lines, render_chunk
from .pieces import TARGET_FRACTION

__all__ = ["TARGET_FRACTION", "chunk_files", "look_ahead_lines", "render_chunk"]
