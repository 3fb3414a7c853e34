"""Randomised checks of the large-file tools' edit and search paths.

Each case builds a small text file (random words, spaces and tabs, LF or CRLF
line endings, an optional UTF-8 byte-order mark, UTF-8 or cp1252 with ``é``
and ``€``) and compares ``edit_content`` / ``search_content`` with plain
reference models written on the decoded text.  A *line* is what the tools
document: the text between two ``\\n`` (the ``\\r`` of a CRLF ending and the
byte-order mark are not part of it; a final line break ends the last line and
does not start a new one).

- exact edits (``fuzzy=False``): every search text is counted in the original
  content (LF-normalised, overlapping occurrences counted); a batch is applied
  only when each search text occurs exactly once, no two located spans
  overlap and every replacement can be encoded; the result is the original
  with the replacements, converted back to the file's line ending, BOM and
  encoding.  A refused batch leaves the bytes alone and makes no backup;
  ``preview=True`` never writes.
- exact search: matching line numbers (case-insensitive on request,
  complemented with ``invert``), their texts and ``count_only`` counts equal
  the model's, with the in-process scanner (whole and in 64-byte windows)
  and with the ``grep`` hand-off.
- regex search (``regex=True``): the tool documents Python ``re`` syntax run
  by RE2 (linear time).  A line matches when Python's ``re.search`` finds the
  pattern in that one decoded line (``re.IGNORECASE`` when case-insensitive),
  with ``\\b`` and ``\\B`` seeing ASCII words only (RE2's one difference); a
  pattern Python refuses, or one holding what RE2 cannot run (a backreference,
  a lookahead or lookbehind), is refused with ``InvalidArgument``.  Patterns
  mix literals, ``\\x``/``\\u``/``\\N`` escapes, classes, anchors,
  lookarounds, groups, backreferences, alternation, quantifiers and inline
  flags.  Checked like exact search, in every scanner mode.
- fuzzy search (``fuzzy=True``): the documented rule is rapidfuzz's
  ``partial_ratio`` (the best alignment of the shorter text in the longer),
  case ignored for ASCII letters, at least 80 (75 for patterns of up to 6
  characters); a line containing the pattern scores 1.0 and is "exact".  The
  model computes the measure itself (bit-parallel LCS over every alignment).
  The tool prunes candidates (a line must hold one of several disjoint pieces
  of the pattern) and skips lines too short to reach the cutoff, so the check
  is one-sided: every reported line reaches the cutoff with the reported
  score, results come best first, counts agree, every line containing the
  pattern is reported, and so is every line holding the pattern within one
  edit (two edits for patterns of 15 characters or more) that scores enough.
- fuzzy edits (``fuzzy=True``, or per change): a search text found exactly
  once is an exact match, one found several times is refused, one not found
  is refused unless fuzzy matching is on for it; then whole lines are
  compared with blank runs collapsed and ends stripped, windows of the search
  text's line count and one more or fewer scored with the InDel ratio; the
  best window is used when it reaches ``DIFFCHUNK_FUZZY_THRESHOLD`` and no
  window that does not overlap it is nearly as close (distance below twice
  the best's, or below 0.01).  The replacement takes the window's lines (and
  its last line break when the search text ends with one), re-indented from
  the search text's first indentation to the window's.  Ties between
  overlapping best windows may go either way, and scores within 1e-9 of a
  bound either side of it.  Each change's reported line, match type and
  similarity must fit the placement; a refused batch leaves the file and the
  backups alone, an applied one makes one backup unless every replacement
  equals its target.  Checked in memory, streamed, and with the anchored
  search of big files, where a window may be missed (the edit may be
  refused) but an applied one must reach the threshold and be replaced as
  the model says.

Run ``python -m tests.property.fuzz_files --cases N --seed S``; cases cycle
through the kinds (``--kinds`` picks some); it prints progress, the outcomes
seen per kind and a final ``N passed, N failed`` line.

Modules: ``textfile`` (the generated files), ``cases`` and ``regex_cases``
(the random cases), ``measures`` (similarity measures from their
definitions), ``models`` and ``fuzzy_edit_model`` (the reference models),
``search_checks`` and ``edit_checks`` (the tools against the models),
``__main__`` (the long run).  The suite draws the same cases with hypothesis
(``tests/test_fuzz_files.py``).
"""
