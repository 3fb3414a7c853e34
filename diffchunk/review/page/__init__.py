"""What the review page (``diffchunk web``) asks of the application, as plain functions
with typed results; the page's server (:mod:`diffchunk.web`) only renders them.

- :mod:`.files`: every file of the loaded diff with its review state, findings
  and what changed since the last review (the file tree);
- :mod:`.file_view`: one file's diff as rows, paged, coloured
  (:mod:`diffchunk.review.export.highlight`), its opening noted as *seen*;
- :mod:`.context`: lines of a file at either revision, to expand the context
  around a hunk;
- :mod:`.latest`: the repository's reviews and the latest of them, for a page
  started without a target (and the CLI's commands without one, ``diffchunk
  reviews``), and a review's latest diff file (the MCP resources).

Everything that changes the record goes through the record's own tools
(``mark_reviewed``, ``add_finding``, ``update_finding``): the page writes what
the MCP tools write, and reads what they read.
"""
