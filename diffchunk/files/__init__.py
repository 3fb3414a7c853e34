"""Tools for files too large to read whole: overview, search, read, edit, revert.

The tools are plain functions, each in its own module (:mod:`.overview`,
:mod:`.content_search`, :mod:`.content_read`, :mod:`.edit`, :mod:`.revert`).  Beneath them, one mechanism per job:

- reading: :mod:`.access` (a cached version of a file: encoding, line
  ending, line index), :mod:`.byte_reader` (the one reader of its bytes: in
  memory or ``pread``, line windows, blocks, line steps), :mod:`.lineindex`,
  :mod:`.encoding`, :mod:`.line_reads` (lines by number, head, tail),
  :mod:`.longline` (a matched line too long to decode whole);
- searching: :mod:`.matchers` (exact and regex in a window), :mod:`.line_search`
  (the scans and counts), :mod:`.grep` (the hand-off to ``grep``),
  :mod:`.fuzzy` (every fuzzy comparison, and the line search),
  :mod:`.fuzzy_block` (the block search of an edit), :mod:`.scan` (exact
  occurrences of needles with line numbers);
- editing: :mod:`.edit_blocks` (the change blocks), :mod:`.edit_snapshot` (the
  version edited), :mod:`.locate` (where each change applies),
  :mod:`.indent`, :mod:`.preview`, :mod:`.transaction` (the write shared by
  edit and revert), :mod:`.backups`, :mod:`.locking`;
- outlines: :mod:`.outline` (build and cache), :mod:`.outline_item`,
  :mod:`.outline_queries`, :mod:`.skeleton`, :mod:`.markdown_outline`,
  :mod:`.languages`, :mod:`.version_outline`, :mod:`.changed_symbols` (symbols
  changed since git HEAD).
"""
