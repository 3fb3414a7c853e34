"""The numbers several modules share, each with its reason: one value, one name.

A number used by one module lives in that module, named, with its reason in a
docstring or a comment beside it; only what several modules must agree on is
here: the answer budget (:data:`RESPONSE_TOKENS`, :data:`CHARS_PER_TOKEN`),
the short id of a commit or digest (:data:`SHORT_ID`), default chunk and page
sizes the shells and the application share, the blocks and windows that the
readers of one file share.  A value a user can change is a setting
(:mod:`diffchunk.settings`).

``tests/test_limits.py`` checks the rule: every module-level number of the
package has a name and a reason; a name from here is imported as it is (no
``as``); no module writes the short id's length as a literal.  This module
imports nothing of the package (it is the bottom of the base layer).
"""

from __future__ import annotations

# ---------------------------------------------------------------------------
# Answers and listings
# ---------------------------------------------------------------------------

RESPONSE_TOKENS = 20_000
"""An answer stays under about 20k tokens: the spec's bound, so that any tool
result fits a model's context beside the conversation."""

CHARS_PER_TOKEN = 4
"""A token is counted as 4 characters: the spec's rule of thumb for code and
English (``token_count = characters // 4``); no model's tokenizer is at hand."""

SHORT_ID = 12
"""Characters of a commit, blob or digest shown as its short id (and of the
digests that key a file name): unique in repositories of millions of objects,
where git's own shortest abbreviation grows to 12, and the same everywhere so
that one id reads alike in every answer."""

COMMITS_PAGE_DEFAULT = 100
"""Commits a list_commits page holds unless asked otherwise (the tool's
``limit`` default): a release's commits in one page (click 8.5.0 has 96; 50 made
its messages two calls), each page still cut to one answer."""

DIFF_SEARCH_DEFAULT_RESULTS = 50
"""Hits a search_diff page holds unless asked otherwise (the tool's
``max_results`` default)."""

CODE_SEARCH_DEFAULT_RESULTS = 50
"""Hits of a search_code or find_references page unless asked otherwise (the
tools' ``max_results`` default): as search_diff."""

# ---------------------------------------------------------------------------
# Sessions and memory
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# The diff cache and snapshots
# ---------------------------------------------------------------------------

STALE_TEMP_SECONDS = 3600
"""A temporary file of the cache (or of the snapshots) older than an hour is
left from a killed write and removed; no write takes that long."""

SNAPSHOT_READ_BLOCK = 1 << 20
"""Bytes read per step while a snapshot is written or hashed: one block in
memory, whatever the file's size."""

OBJECT_ID_MIN_DIGITS = 4
"""The shortest abbreviated object id of a diff file's ``index`` line looked
up in a repository: git's own minimum (``MINIMUM_ABBREV``; ``rev-parse``
takes no shorter prefix).  One hex digit named a sixteenth of every object."""

# ---------------------------------------------------------------------------
# Git
# ---------------------------------------------------------------------------

GIT_STREAM_BLOCK = 1 << 18
"""The largest block of git's output handed out at once (when git is ahead;
otherwise what it has written so far): large enough that the parse takes
few steps, small enough that it starts while git still writes."""

GIT_STREAM_TIME_LIMIT = 1800.0
"""Seconds a ``git diff`` or ``cat-file blob`` streaming into the cache may run
before it is stopped: a diff of years of a large project's history takes
minutes, not half an hour."""

# ---------------------------------------------------------------------------
# The diff engine: load options and hunks
# ---------------------------------------------------------------------------

CHUNK_DEFAULT_LINES = 1000
"""A chunk's line budget unless asked otherwise (``max_chunk_lines``): the
spec's default, about a context window's comfortable read."""

# ---------------------------------------------------------------------------
# The diff engine: filters
# ---------------------------------------------------------------------------

BINARY_SNIFF_BYTES = 8192
"""A NUL byte within this many leading bytes marks a file as binary (a
.gitattributes file, a file the file tools open, unless it is UTF-16): git
looks at the first 8000 bytes the same way."""

# ---------------------------------------------------------------------------
# Large files: access
# ---------------------------------------------------------------------------

ENCODING_SAMPLE_BYTES = 64 * 1024
"""Bytes sampled at the start (and at a few other places) to detect a file's
encoding."""

LANGUAGE_SNIFF_BYTES = 200
"""Bytes of a file's head looked at for a ``#!`` line when its name does not
say its language: a shebang line is short."""

# ---------------------------------------------------------------------------
# Large files: reading
# ---------------------------------------------------------------------------

LINE_WINDOW = 16 * 1024 * 1024
"""Bytes per line window (a line longer than this grows its window)."""

READ_DEFAULT_LINES = 100
"""Lines read_content returns unless asked otherwise (the seeds' default)."""

READ_MAX_CONTENT_CHARS = RESPONSE_TOKENS * CHARS_PER_TOKEN
"""About 20k tokens: a read stops at a line boundary so that its answer, as the JSON
text sent (the content escaped, the other fields counted), stays within this (80,000
characters of content once answered 83,272: quotes, backslashes and line breaks
take two characters each in JSON)."""

# ---------------------------------------------------------------------------
# Large files: search
# ---------------------------------------------------------------------------

SEARCH_DEFAULT_RESULTS = 20
"""Results search_content returns unless asked otherwise (the seeds' default)."""

SEARCH_DEFAULT_CONTEXT_LINES = 3
"""Context lines around each result unless asked otherwise: git's default."""

MAX_SUBMATCHES = 50
"""Spans of the pattern listed in one matched line: a pattern found thousands
of times in a minified line would fill the answer."""

LONG_LINE_PIECE_BYTES = 1 << 20
"""Bytes per piece of such a line, decoded with an incremental decoder."""

# ---------------------------------------------------------------------------
# Large files: fuzzy search and fuzzy edit matching
# ---------------------------------------------------------------------------

SUGGESTIONS = 5
"""Similar texts offered (``similar_matches``) when a search text is not found."""

# ---------------------------------------------------------------------------
# Large files: outline
# ---------------------------------------------------------------------------

OUTLINE_MAX_DEPTH = 16
"""Definitions nested deeper than this (classes in classes, namespaces...) are
left out of an outline, and a skeleton elides the blocks kept open that deep:
real code nests a few levels (C# namespace, class, nested class, method: 4),
and 2,400 nested classes made every walk of the outline recurse past Python's
limit (get_overview failed)."""

OUTLINE_PAGE_ITEMS = 400
"""Items per outline page (get_overview pages its outline by ``outline_offset``):
about 12k tokens of JSON at ~120 characters an item."""

# ---------------------------------------------------------------------------
# Large files: edits
# ---------------------------------------------------------------------------

EDIT_ATTEMPTS = 3
"""Times an edit (or a revert) is made again from a fresh read when another
program changed the file before the new version was renamed over it: an
appender between two lines lets the next attempt through; a file rewritten
faster than it can be edited is an EditConflict after the third."""

WRITERS_WAIT = 2.0
"""Seconds an edit waits for programs that hold the file open for writing
(:mod:`diffchunk.files.writers`) to close it, before the rename (still held:
the file is not replaced) and after it (still held: reported).  A program
that opens, appends a line and closes holds it for microseconds; one that
keeps it open (a running logger) would write its next lines to the replaced
version."""

# ---------------------------------------------------------------------------
# The review record and its exports
# ---------------------------------------------------------------------------

RECORD_RESPONSE_CHARS = RESPONSE_TOKENS * CHARS_PER_TOKEN
"""A page of review_status or list_findings, in characters: the same bound as
any other answer (RESPONSE_TOKENS)."""

STATUS_CHANGED_LISTED = 50
"""Files whose change moved since their mark that review_status names (the count
is always whole): enough to act on, and the full list pages by state."""

RECORD_SIDE_WRITE_SECONDS = 0.5
"""How long a write on the side of a diff tool (seen marks, a range load's
revision, re-anchoring) waits for the lock: the tool's answer must not wait for
the record (it waited 30 s before); the write is logged and skipped."""

FINDING_MESSAGE_CHARS = 20_000
"""Longest finding message accepted (add_finding, update_finding and a synced
log alike): several pages of prose; longer is a pasted file, which belongs in
the suggestion or nowhere."""

FINDING_SUGGESTION_CHARS = 200_000
"""Longest suggested replacement accepted (written or synced): a rewritten file
of a few thousand lines; the record keeps it whole, answers show it clipped."""

FINDING_COMMENT_CHARS = 20_000
"""Longest reply on a finding's thread (written or synced): as a finding's
message."""

REVIEWER_CHARS = 200
"""Longest author name kept on a mark, finding or comment (written or synced): a
name and an email address fit many times over; more is not a name."""

SYNC_LOG_MAX_BYTES = 256 << 20
"""Largest review log read back from a remote or imported: 2,000 findings and
5,000 marks take about 3 MB; a log past this is refused as hostile (or a record
to split)."""
