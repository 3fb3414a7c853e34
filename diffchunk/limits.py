"""Every size limit, count bound, budget, timeout, block size and threshold of diffchunk.

One table, grouped by area: answers and listings; sessions and memory; the
diff cache and snapshots; git; the diff engine (parser, filters,
generated-file heuristics, chunker, lean format); large files (access,
reading, search, fuzzy, outline, edits, backups); the MCP server; the CLI.
Each value is followed by its reason: what it protects, what was measured,
or the outside fact that fixes it.  A value a user can change by an
environment variable is the default here, and the reason names the
variable; the module that reads the variable keeps the reading.

Modules take their values from here (``from ..limits import NAME``, or
``NAME as LOCAL`` where the module's own name is shorter), so a module
global still exists for tests to patch.  ``tests/test_limits.py`` fails on
any new module-level numeric constant elsewhere in the package: a new limit
is added here, with its reason.  Not here: format identifiers and versions,
enumerations, regexes, character tables and display widths (the CLI's and the
demo's).

This module imports nothing of the package (it is the bottom of the base
layer), and it is one table on purpose: longer than the package's other
modules, it holds no code.
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

BYTES_PER_TOKEN = CHARS_PER_TOKEN
"""The same rule over the bytes of a diff (the diff engine counts bytes, not
decoded characters)."""

LOAD_CHANGE_CHARS = 24_000
"""A load's answer includes the whole change in lean when it fits this (about
6,000 tokens): a small review is then one call, and costs less than the
tool calls that would read it file by file."""

LOAD_WIDENED_CHARS = 32_000
"""With a change that fits LOAD_CHANGE_CHARS, its code files are widened to the
definitions around their changes while the whole fits this (about 8,000
tokens): those definitions are what a reviewer reads next, and cost a call
each otherwise (on pydantic v2.13.3..v2.13.4, 8,761 characters for one)."""

PLAN_CHARS = 3_000
"""The characters a load's plan gives its file lists (``"path +A -R"`` by kind):
a 50-file change is listed whole; a larger one says how many each kind leaves
out, which ``list_chunks`` pages."""

PLAN_COMMITS = 20
"""A plan lists the commits (short id and subject) when there are at most this
many: a short log is part of what a reviewer plans with, and costs a fifth of
list_commits' answer; a longer one is paged there."""

PLAN_FACTS = 8
"""Facts a plan states (renames, deletions, release commits that change code):
the few that change a plan; more are counted."""

PART_BYTES = RESPONSE_TOKENS * CHARS_PER_TOKEN - 2_000
"""A part of a raw chunk too large for one answer fills an answer but the few
lines of its header (2,000 characters of room)."""

SHORTENED_LINE_CHARS = 2_000
"""Lines longer than this are shortened in a view too large for one answer:
one minified line must not take the whole answer."""

LISTING_PAGE_TOKENS = 6_000
"""A page of list_chunks: small enough to read whole (about 24,000
characters), so that a model reads a listing before it asks for chunks."""

EXCLUDED_LISTED_CHARS = 2_000
"""Excluded files listed beside the chunks, in characters of JSON (about 20
entries): the summary counts them all; ``excluded=True`` pages the whole list."""

EXCLUDED_SUMMARY_DIRS = 10
"""Top directories named in a summary of excluded files (the rest are counted
together): a release range excludes thousands of files in a few trees."""

LOAD_EXCLUDED_LISTED = 50
"""Excluded files a load summary lists at most (within EXCLUDED_LISTED_CHARS
of JSON); its excluded_summary counts them all, list_chunks(excluded=True)
pages them."""

LOAD_MAX_WARNINGS = 20
"""Parser warnings a load summary carries: a malformed diff can warn on every
section, and the first ones say what is wrong."""

BANNER_FILES = 20
"""File names the banner of a chunk lists (the rest are counted): a chunk of
many small files would otherwise open with a page of names."""

FIND_CHUNKS_PAGE_CHARS = RESPONSE_TOKENS * CHARS_PER_TOKEN
"""A page of find_chunks_for_files, in characters of JSON: the bound of any answer
(pattern "*" over SQLAlchemy's rel_1_4_0..rel_2_0_0 answered 85,425 characters
unpaged; with 10-line chunks, 323,356 of them, 26,321,519).  Most queries fit one
page and are answered as the plain list."""

FILE_MATCH_CANDIDATES = 20
"""Candidate paths an error names when a file is not in the diff: enough to
spot a typo, short enough for an error message."""

COMMIT_FILES_LISTED = 20
"""Files listed per commit by list_commits (the rest are counted): a merge or
a rename sweep touches thousands."""

COMMITS_PAGE_MAX = 200
"""Commits a list_commits page holds at most: 200 entries of a few files each
stay under one answer's ~20k tokens."""

COMMITS_PAGE_DEFAULT = 50
"""Commits a list_commits page holds unless asked otherwise (the tool's
``limit`` default)."""

MAX_COMMITS_READ = 5000
"""Commits read from a range at most: a review of a release range has
hundreds; more is a range mistyped, not a review."""

DIFF_SEARCH_TEXT_CHARS = 200
"""Characters of a search_diff hit's line shown (around the match when the
line is longer)."""

DIFF_SEARCH_MAX_RESULTS = 200
"""Hits a search_diff page holds at most: about 80 characters each plus their
text, at most DIFF_SEARCH_TEXT_CHARS, so 200 hits stay under the ~20k tokens
of one answer."""

DIFF_SEARCH_DEFAULT_RESULTS = 50
"""Hits a search_diff page holds unless asked otherwise (the tool's
``max_results`` default)."""

DIFF_SEARCH_TIME_BUDGET = 5.0
"""Seconds a search_diff may take before it is stopped: a regex that
backtracks must not hold the server."""

DIFF_SEARCH_MAX_PATTERN_CHARS = 1000
"""Longest search_diff pattern: a pattern is matched against single lines, so
a longer one is a pasted block (refused with a message) or a hostile regex."""

MAX_SYMBOL_LINES = 400
"""A definition longer than this is not shown whole around a hunk
(get_file_diff with context="symbol"): about 20k tokens of an answer hold
1,500 lines of code, and several hunks may widen."""

SYMBOLS_LISTED = 5
"""Definitions a listing names per file (the rest are counted): a page of
list_chunks stays small."""

SYMBOLS_MAX_BLOB_BYTES = 1 << 20
"""Blobs larger than this get the hunks' function context instead of outlines
in a listing: an outline of a 1 MB file takes tens of milliseconds, and a page
holds hundreds of files."""

SYMBOLS_MAX_PAGE_BYTES = 32 << 20
"""Blob bytes read for one listing page at most (the files beyond get the hunks'
function context): a page's outlines stay bounded whatever its files."""

SYMBOL_CONTEXT_NAME_CHARS = 60
"""Characters of a hunk's function-context line kept as a name in a listing
(``@@ ... @@ def name(...)`` lines run on with arguments)."""

SYMBOL_NAME_CHARS = 100
"""Characters of a definition's qualified name in a listing (``Outer.method.inner``,
every enclosing definition): longer ones keep their own name, the outermost and the
nearest enclosing names that fit, ``…`` for the rest.  A release range's Python
methods and their nested functions run to 60-90 characters; a name of 200 (a C++
template's, OUTLINE_NAME_CHARS) at each of a few levels would not."""

SYMBOLS_SKELETON_ABOVE = 16 * 1024
"""Files above this are outlined from a skeleton for a listing (function bodies
elided, lines kept): 3-4 times faster on a release's Python files, and nested
closures are not what a listing needs."""

SYMBOLS_OUTLINES_KEPT = 512
"""Outlines kept by blob id, so that another view (or page) of the same diff,
or a blob both sides share, is outlined once."""

# ---------------------------------------------------------------------------
# Sessions and memory
# ---------------------------------------------------------------------------

DEFAULT_MAX_SESSIONS = 16
"""Diff sessions kept in memory (``DIFFCHUNK_MAX_SESSIONS``); the least
recently used is evicted.  Fifty 5-10 MB diffs loaded one after another: RSS
levels off at 222-250 MiB with 16 (116-139 MiB with 4)."""

DEFAULT_MAX_SESSION_BYTES = 1 << 30
"""Total bytes of the loaded diffs, mapped ones included
(``DIFFCHUNK_MAX_SESSION_BYTES``, 1 GiB): a few release-range diffs, far below
the memory of a machine that runs an assistant."""

MAP_COPY_KEEP_FREE = 256 << 20
"""A private copy of a large diff must leave this much free space in the cache
directory; otherwise the diff is read into memory: the copy must not be what
fills a disk."""

THREADED_HASH_BYTES = 1 << 20
"""Below this size a diff is hashed in the loading thread: a second thread
costs more than the hashing it overlaps."""

DEFAULT_MAP_BYTES = 8 << 20
"""A diff file at least this large is mapped from a copy (``DIFFCHUNK_MAP_BYTES``,
8 MiB); a smaller one is read into memory, where it costs little and is read
faster than it is copied, mapped and hashed.  A 1M-line diff: peak RSS
59 -> 33 MB mapped, load time unchanged."""

MAP_TRIM_STEP = 4 << 20
"""Pages touched by a pass over a mapped diff go back after this much progress:
often enough that a pass keeps a few MiB resident, rarely enough that the
madvise calls do not show in the load time."""

BUFFER_COMPARE_BLOCK = 1 << 20
"""Block of the comparisons over a diff buffer: one block is copied at a time."""

BUFFER_COUNT_BLOCK = 1 << 20
"""Block of the line counts over a diff buffer: one block is copied at a time."""

BUFFER_HASH_BLOCK = 1 << 20
"""Block a mapped diff's hashing thread holds: small, so that the load's peak
stays low."""

SNIFF_ABOVE = 64 * 1024 * 1024
"""A diff file this large is only read whole once its first SNIFF_BYTES hold a
diff or a commit: a sparse 2 GB file that is not a diff was read whole."""

SNIFF_BYTES = 1024 * 1024
"""What is read of a large file to see that it is a diff: any diff has a
header within its first MiB."""

SNIFFED_KEPT = 64
"""Large files remembered as already seen to be diffs (by path and stat), so
that a reload does not read their head again."""

COPY_BLOCK = 64 * 1024 * 1024
"""Bytes per copy_file_range/sendfile call: the kernel copies without the bytes
passing through the process, so a block may be large; one call per 64 MiB
keeps each system call short."""

COPY_FALLBACK_BLOCK = 8 * 1024 * 1024
"""Bytes per pread/write when the kernel cannot copy (another file system, an
old kernel): the copy holds one such block in memory."""

HASH_BLOCK = 16 * 1024 * 1024
"""Bytes read per step of hashing an open file (backups, edits, mapped diffs):
one block in memory, few enough steps that a large file hashes at disk speed."""

TEMP_NAME_TRIES = 100
"""Random temporary names tried before giving up: a taken name is rare, a
hundred in a row means the directory is not what it seems."""

# ---------------------------------------------------------------------------
# The diff cache and snapshots
# ---------------------------------------------------------------------------

CACHE_MAX_ENTRIES = 200
"""Diffs kept in the cache of git ranges (least recently used pruned first): a
bound on the cache directory; a review whose entry was pruned runs git again."""

CACHE_MAX_BYTES = 2 * 1024**3
"""Bytes kept in the cache of git ranges (2 GiB), so that the cache never fills
a disk by itself."""

STALE_TEMP_SECONDS = 3600
"""A temporary file of the cache (or of the snapshots) older than an hour is
left from a killed write and removed; no write takes that long."""

UNLOCKED_TEMP_SECONDS = 10
"""A temporary cache file that no process holds locked is garbage after this
long (its writer locks it right after creating it)."""

DISK_FULL_BELOW = 1 << 20
"""Free space below which a failed write into the cache is taken for a full
disk (and said so) rather than git's own failure."""

MAX_VIEWS = 500
"""View handles kept in the cache (each is a few hundred bytes)."""

VIEW_ORPHAN_SECONDS = 24 * 3600
"""A view handle whose diff is gone is removed after this long: its diff may
come back for a moment, as a working-tree diff is written anew."""

VIEW_HANDLE_MAX_BYTES = 64 * 1024
"""Larger files are not view handles (a handle is a few hundred bytes): a large
file is never parsed as one."""

VIEW_NAME_STEM_CHARS = 60
"""Characters of the diff's file name kept in a view handle's name: with the
key and suffix, the name stays far below the 255-byte limit of file names."""

SNAPSHOT_MAX_FILES = 5000
"""Snapshots of files at a revision kept (least recently used pruned first): a
bound on the snapshot directory; a pruned snapshot is written again when a
file is opened again."""

SNAPSHOT_MAX_BYTES = 256 << 20
"""The largest file a snapshot holds (256 MiB; ``DIFFCHUNK_SNAPSHOT_MAX_BYTES``
changes it), checked before a byte is written: larger than any source file a
reviewer reads a page at a time (the largest hand-written or amalgamated
sources are a few MB), far below a blob that fills a disk (a 3 GB blob of an
8.6 MB repository was written whole)."""

SNAPSHOT_STORE_MAX_BYTES = 1 << 30
"""Bytes of snapshots kept in all (1 GiB: four snapshots of the largest size),
writes under way included; room is made before a snapshot is written.  A
larger ``DIFFCHUNK_SNAPSHOT_MAX_BYTES`` raises it to that size, so that one
snapshot always fits."""

SNAPSHOT_MAX_SOURCES = 16
"""Sources recorded per snapshot (the latest kept): where a blob was seen, not
a history."""

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

FILE_CLOCK_MARGIN_NS = 20_000_000
"""File times come from a coarse clock (at most a tick, 10 ms at HZ=100,
behind the wall clock): a file changed within this margin of a git run is
taken as changed while git ran."""

GIT_PATHS_PER_RUN = 1000
"""Paths per git run: far below the argument size limit of any system (a path
is rarely over 200 bytes; Linux allows 2 MB of arguments)."""

MAX_RANGE_PATHS = 1000
"""Paths a range review may be limited to: more than any review needs (a
command line holds about this many)."""

MAX_RANGE_PATH_CHARS = 4096
"""Longest path a range may be limited to: Linux's PATH_MAX; a longer one names
no file, and its text would fill the answers that repeat it."""

GIT_TAIL_WAIT = 0.002
"""Seconds GitStream.blocks first waits when it has read all git wrote so far
(2 ms), twice as long each time git still has written nothing more..."""

GIT_TAIL_WAIT_MAX = 0.05
"""...up to 50 ms: git may think for seconds before it writes (on renames, for
instance), and a reader polling faster would only burn a core."""

GIT_ERROR_LINES = 6
"""Lines of git's error output kept in an error message: git says what is
wrong first; its hints follow."""

GIT_PROGRESS_EVERY = 0.1
"""Seconds between two reports of git diff's progress: often enough for a
progress bar, rarely enough not to flood an MCP client."""

GIT_CONFIG_MAX_BYTES = 4 << 20
"""The largest git config file diffchunk reads (a repository's, the user's, an
included one): a real config is a few kB; a larger one is refused, never read
into memory whole."""

GIT_CONFIG_FILES_KEPT = 64
"""Parsed git config files kept (with their stat) so that the next discovery of
a repository does not parse them again: a repository's, its includes, the
user's global and system files; a server meets a few dozen repositories."""

GIT_CONFIG_INCLUDE_DEPTH = 10
"""Includes followed within includes: git's own limit (``MAX_INCLUDE_DEPTH``),
past which git refuses the config too."""

GIT_SMALL_FILE_BYTES = 1 << 20
"""The largest small file of a repository read to find it (``HEAD``, a ``.git``
file, ``commondir``, ``objects/info/alternates``): git's own bound for a
``.git`` file; real ones are a line or a few."""

SHALLOW_FILE_BYTES = 16 << 20
"""The largest ``shallow`` file read to tell where a shallow clone's history is
cut off: one commit id a line, so 400,000 boundary commits; past it the
boundary is not told apart (a commit then shows as having no parent)."""

GIT_ALTERNATES_DEPTH = 5
"""Alternates of alternates followed: git stops at this depth too (it ignores
deeper ones with an error)."""

GIT_RUN_TIME_LIMIT = 300.0
"""Seconds a git command that answers (``rev-parse``, ``cat-file``, ``check-attr``,
``log``...) may run before it is stopped with its children: far more than any
of them takes on a large repository (seconds), so that a git waiting on
something that never comes (a named pipe where git expects a file) cannot
hold a worker thread for good."""

GIT_STREAM_TIME_LIMIT = 1800.0
"""Seconds a ``git diff`` or ``cat-file blob`` streaming into the cache may run
before it is stopped: a diff of years of a large project's history takes
minutes, not half an hour."""

CHANGES_GIT_TIMEOUT = 10.0
"""Seconds any single git call may take while an outline's symbols are marked
against HEAD: the marks are extra, and a slow repository must not hold the
overview; past this they are given up with a warning."""

HOOK_MAX_NEW_COMMITS = 500
"""A new branch with no merge base is reviewed over its last commits, at most
this many: the hook must not review a whole history before a push."""

HOOK_MARKER_BYTES = 4096
"""Bytes of a pre-push hook read for diffchunk's marker: the marker sits in the
first lines of our own hook script."""

# ---------------------------------------------------------------------------
# The diff engine: load options and hunks
# ---------------------------------------------------------------------------

CHUNK_DEFAULT_LINES = 1000
"""A chunk's line budget unless asked otherwise (``max_chunk_lines``): the
spec's default, about a context window's comfortable read."""

MIN_CHUNK_LINES = 10
"""A chunk holds a file header (up to 4 lines for a git diff) and lines of a
hunk: below 10 lines a part of a cut file would be mostly headers."""

MAX_CHUNK_LINES = 1_000_000
"""An upper bound no review needs (a context window holds far fewer lines), so
that a mistyped number is refused instead of asking for one huge chunk."""

MAX_CONTEXT_LINES = 1_000_000
"""The same bound for ``context_lines``."""

MAX_LINE_NUMBER = 10**18 - 1
"""The largest line number or count a hunk header may hold: the parser reads at
most 18 digits, so a header written with a larger number would not read back
(context reduction keeps such hunks as written)."""

# ---------------------------------------------------------------------------
# The diff engine: parser
# ---------------------------------------------------------------------------

SUBMODULE_BODY_BYTES = 200
"""Bodies of at most this many bytes are looked at for ``Subproject commit``
lines: a gitlink's one hunk holds two such lines, about 110 bytes."""

GIT_NAME_SPLITS = 64
"""Splits of a ``diff --git`` line tried at most: a real line has a few spaces,
a crafted one with thousands would make the searches quadratic."""

COLOR_PROBE_BYTES = 65536
"""A diff written with colors has escape codes in its first lines: looking at
this much of a file that is not a diff is enough to say so."""

PARSE_MIN_STEP = 1 << 20
"""Bytes of complete sections that make a step of the streaming parse by
default (a range review passes GIT_STREAM_BLOCK): a step's setup is paid per
step, not per section."""

# ---------------------------------------------------------------------------
# The diff engine: filters
# ---------------------------------------------------------------------------

MAX_PATTERNS = 512
"""Caps on an include/exclude pattern list, so that a hostile or mistaken
argument cannot make every path lookup slow: far above any list a person
writes (a few dozen items of a few dozen characters), far below what would
cost seconds.  This one: items in a list..."""

MAX_PATTERN_LENGTH = 1024
"""...characters in one pattern..."""

MAX_PATTERNS_CHARS = 8192
"""...and characters in the whole argument."""

GITATTRIBUTES_MAX_LINE = 2048
"""Longer lines of a .gitattributes file are ignored: git ignores them."""

GITATTRIBUTES_MAX_BYTES = 100 * 1024 * 1024
"""Larger .gitattributes files are refused: git refuses them."""

ATTRIBUTE_MACRO_DEPTH = 64
"""Macros expanded within macros at most: a macro naming itself (directly or
through others) must not recurse forever; real macros nest once or twice."""

BINARY_SNIFF_BYTES = 8192
"""A NUL byte within this many leading bytes marks a file as binary (a
.gitattributes file, a file the file tools open, unless it is UTF-16): git
looks at the first 8000 bytes the same way."""

# ---------------------------------------------------------------------------
# The diff engine: generated-file heuristics
# ---------------------------------------------------------------------------

MINIFIED_LINE_LENGTH = 110
"""Hand-written code keeps its lines under about 100 characters (style guides
say 79 to 120); a minifier writes a whole file on a few lines."""

GENERATED_HEADER_LINES = 10
"""A generator writes its marker in the first comment lines of a file; further
down the words only appear as mentions in ordinary code.  Lines..."""

GENERATED_HEADER_BYTES = 1024
"""...and bytes of the header looked at."""

GENERATED_HEADER_WINDOW = 4 * GENERATED_HEADER_BYTES
"""The part of the first hunk read for those lines: removed lines (skipped)
may come first."""

MINIFIED_SAMPLE_LINES = 5
"""Added lines sampled for the minified check (of the first 20 lines of the
first hunk): a minified file is long lines throughout, a few tell."""

# ---------------------------------------------------------------------------
# The diff engine: chunker
# ---------------------------------------------------------------------------

CHUNK_TARGET_FRACTION = 0.8
"""The share of the budget a chunk aims at: the rest leaves room for a file
that does not quite fit, so most files are not cut (the spec: aim at 80%)."""

CHUNK_MAX_TOKENS = RESPONSE_TOKENS
"""A chunk fits one tool answer: answers stay under about 20k tokens."""

CUT_KEEP_CONTEXT = 3
"""Context lines kept before a change when a long run of context is cut: git's
default context, so that a piece reads like the hunks git writes."""

CUT_OVERHEAD_LINES = 3
"""What a part may add to its share of a file's lines when a hunk is cut in it:
a written ``@@`` header and two borrowed context lines..."""

CUT_OVERHEAD_BYTES = 256
"""...and their bytes."""

SLACK_DIVISOR = 20
"""Even parts of a cut file get a twentieth more than their exact share (at
least MIN_SLACK lines): cuts land at hunk and context boundaries, rarely right
at the share, and without the slack the rest would make one more, small, part."""

MIN_SLACK = 2
"""The least slack of an even part, in lines."""

MIN_ROOM_DIVISOR = 5
"""A hunk is cut into the part being filled only when at least a fifth of the
part's room is left (MIN_ROOM_LINES at least): a smaller piece would be mostly
its header and borrowed lines.  Otherwise the part is closed first."""

MIN_ROOM_LINES = 6
"""The least room, in lines, worth cutting a hunk into."""

HUNK_HEADER_BYTES = 24
"""The bytes of a written ``@@ -a,b +c,d @@`` beyond its tail, for numbers of a
few digits each."""

# ---------------------------------------------------------------------------
# The diff engine: lean format
# ---------------------------------------------------------------------------

LEAN_LONG_LINE_CHARS = 1000
"""Lines longer than this are cut in the lean format..."""

LEAN_LONG_LINE_HEAD = 300
"""...to their first characters, this many (a fold says what was left out)."""

MIN_REINDENTED = 2
"""A block is folded as re-indented when at least this many of its lines, and
most of them, come back only re-indented..."""

REINDENT_WINDOW = 4
"""...found among this many next added lines."""

MIN_ECHO_LINES = 3
"""A run of added lines shown again folds when it is at least this long..."""

MIN_ECHO_CHARS = 120
"""...and this many characters (a fold line costs about 40)..."""

MAX_ECHO_CANDIDATES = 16
"""...and a line is looked for in this many earlier places at most."""

MIN_REMOVED_LINES = 6
"""A run of removed lines folds when it is at least this long: a shorter one
costs less to show than a reader's call for its lines at the old side (about
1,000 characters, measured by ``make bench-review``)..."""

MIN_REPLACED_LINES = 8
"""...and, in a block that also adds lines, at least this long..."""

REPLACED_RATIO = 4
"""...and this many times longer than what the block adds (a rewrite shows
both sides)."""

MIN_MOVED_LINES = 3
"""A moved run is at least this many lines..."""

MIN_MOVED_CHARS = 80
"""...holding at least this many characters besides whitespace (git's
--color-moved asks for 20 alphanumeric characters; a fold line costs ~40)."""

MIN_REPEATED_CHARS = 40
"""A repeated edit is looked at when its lines hold at least this many
characters: a fold line costs about 40."""

MAX_MOVE_CANDIDATES = 32
"""Places a common line (a closing brace, a blank line) is looked for at most,
so that moves are found in linear time."""

SHOWN_CONTEXT_CHARS = 12
"""An unchanged line between two changes of a hunk is shown (not folded) when
it is at most this long: a "⋯ N" line would cost about as much."""

FOLD_MAX_NAMES = 6
"""Names of removed definitions a fold line lists at most."""

MAX_SECTION_CHARS = 50
"""A hunk's function context is cut to this many characters in its head."""

HEADING_TITLE_CHARS = 40
"""A Markdown heading named in a summary is cut to this many characters."""

WORD_MAX_CHANGES = 3
"""Lines are paired word by word for "a few words" changed: at most this many
changed places in a line..."""

MAX_CHANGED_SHARE = 0.5
"""...touching at most this share of the longer line's characters (whitespace
aside)..."""

MAX_CHANGED_SHORT = 16
"""...or this many characters in a short line."""

MAX_PAIR_CHARS = 1000
"""Longer lines are not compared word by word (the comparison is quadratic in
the words of a line, and such lines are cut anyway)."""

PAIR_MIN_SAVING = 8
"""A pair line must save at least this many characters over the two lines."""

PAIR_MAX_COMPARISONS = 2500
"""Lines of a change block compared pairwise at most (removed x added): beyond,
only lines at the same position in the block are paired."""

PAIR_WINDOW = 8
"""A removed line is looked for among this many added lines after the last
pair."""

# ---------------------------------------------------------------------------
# Large files: access
# ---------------------------------------------------------------------------

SMALL_FILE = 4 * 1024 * 1024
"""Files up to this size are read into memory; larger ones are read on demand
with pread (a mapping killed the process with SIGBUS when another program
truncated the file)."""

MAX_TRANSCODE = 256 * 1024 * 1024
"""Largest UTF-16/UTF-32 file the tools accept: it is transcoded in memory."""

ENCODING_SAMPLE_BYTES = 64 * 1024
"""Bytes sampled at the start (and at a few other places) to detect a file's
encoding."""

WC_MIN_BYTES = 8 * 1024 * 1024
"""Line counts of files at least this large come from ``wc -l`` when it is on
PATH (``DIFFCHUNK_NO_GREP=1`` turns it off): below, starting a process costs
more than the count."""

OPEN_VERSIONS_KEPT = 8
"""File versions kept open at once (each holds a descriptor and its line
index)."""

LANGUAGE_SNIFF_BYTES = 200
"""Bytes of a file's head looked at for a ``#!`` line when its name does not
say its language: a shebang line is short."""

UTF16_PROBE_BYTES = 4096
"""Bytes looked at for UTF-16 without a byte-order mark..."""

UTF16_NUL_SHARE = 0.4
"""...which it is when more than this share of the bytes at one parity are
NUL (ASCII text in UTF-16 has one NUL in two bytes)..."""

UTF16_STRAY_NUL_SHARE = 0.02
"""...and fewer than this share at the other."""

BINARY_CONTROL_SHARE = 0.1
"""A sample whose share of control bytes (other than tab, newline, CR, FF, ESC,
BS) is above this is binary data, not text in a legacy encoding."""

CHARSET_SAMPLE_BYTES = ENCODING_SAMPLE_BYTES
"""Bytes handed to the encoding detector (charset-normalizer) for text that is
not UTF-8: what the file tools sample anyway; the detector's time grows with
its input."""

# ---------------------------------------------------------------------------
# Large files: reading
# ---------------------------------------------------------------------------

READ_STEP = 1 << 20
"""The most bytes read per step of a search, count or line step of a file."""

READ_FIRST_STEP = 1 << 12
"""The first step (most steps look for the end of a line, a few bytes away);
each further step doubles, up to READ_STEP."""

LINE_WINDOW = 16 * 1024 * 1024
"""Bytes per line window (a line longer than this grows its window)."""

READ_BLOCK = 16 * 1024 * 1024
"""Bytes per block of Reader.blocks (before the overlap): few blocks for a
gigabyte file, one block of memory."""

SKIP_LOOP_LINES = 48
"""Up to this many lines are skipped one find at a time; more with one compiled
pattern (cheaper per line, dearer to start)."""

SKIP_PATTERNS_KEPT = 256
"""Compiled line-skipping patterns kept (one per line count asked)."""

LINE_INDEX_BLOCK = 64 * 1024
"""Bytes per block of the sparse line index: the longest scan a lookup can
need."""

DEFAULT_LONG_LINE_CHARS = 1000
"""Lines longer than this are truncated in read results and counted as long
(``DIFFCHUNK_LONG_LINE_CHARS`` changes it, to at least MIN_LONG_LINE_CHARS): the
seeds' "lines over 1000 characters are truncated"."""

MIN_LONG_LINE_CHARS = 100
"""The least ``DIFFCHUNK_LONG_LINE_CHARS`` taken: a shorter cut would hide
ordinary code."""

COUNT_FOR_TOTAL = 64 * 1024 * 1024
"""head/tail count all lines for ``total_lines`` only up to this file size: a
tail of a large log must not read it all."""

BACKWARD_SCAN_LINES = 20_000
"""Reads this close to the end seek backwards from the end instead of
indexing the file from its start."""

WHOLE_LINE_BYTES = 1 << 16
"""Lines up to this many bytes are decoded whole before being cut; a longer
one only as far as the cut reaches (a line of hundreds of megabytes, minified
JSON, must not be decoded whole)."""

CONTEXT_LINE_CHARS = 500
"""A line read as the context of another (around a match) is cut to this many
characters."""

READ_DEFAULT_LINES = 100
"""Lines read_content returns unless asked otherwise (the seeds' default)."""

READ_MAX_CONTENT_CHARS = RESPONSE_TOKENS * CHARS_PER_TOKEN
"""About 20k tokens: a read stops at a line boundary so that its answer, as the JSON
text sent (the content escaped, the other fields counted), stays within this (80,000
characters of content once answered 83,272: quotes, backslashes and line breaks
take two characters each in JSON)."""

SEMANTIC_MAX_LINES = 2000
"""Lines of a definition read_content(mode="semantic") returns at most: at 40
characters a line, 2,000 lines fill one answer."""

OVERVIEW_SYMBOL_HINTS = 8
"""Top-level symbols an overview suggests as searches."""

OVERVIEW_MARKER_SCAN_BYTES = 64 * 1024 * 1024
"""Bytes of a file looked at for TODO/FIXME and log markers to suggest as
searches: a hint must not cost a scan of a huge file."""

COUNT_ONLY_HINT_ABOVE = 50 * 1024 * 1024
"""Above this size an overview suggests count_only=True before a search (the
seeds' 50 MB line between files read whole and files streamed)."""

LONG_LINE_SAMPLE_ABOVE = 200 * 1024 * 1024
"""Long-line statistics of an overview are sampled (not exact) for files larger
than this..."""

LONG_LINE_SAMPLES = 16
"""...in this many windows spread over the file..."""

LONG_LINE_SAMPLE_BYTES = 4 * 1024 * 1024
"""...of this many bytes each (64 MiB read in all, whatever the size)."""

# ---------------------------------------------------------------------------
# Large files: search
# ---------------------------------------------------------------------------

SEARCH_DEFAULT_RESULTS = 20
"""Results search_content returns unless asked otherwise (the seeds' default)."""

SEARCH_DEFAULT_CONTEXT_LINES = 3
"""Context lines around each result unless asked otherwise: git's default."""

SEARCH_MAX_RESULTS = 500
"""Results search_content returns at most (a larger ``max_results`` is capped
with a warning); the answer's character bound usually stops earlier."""

SEARCH_MAX_CONTEXT_LINES = 50
"""Context lines around each result at most (capped with a warning): more is a
read, not a search."""

SEARCH_MAX_CONTENT_CHARS = RESPONSE_TOKENS * CHARS_PER_TOKEN
"""About 20k tokens: search results stop before the answer's JSON text (escapes
included) would exceed this many characters (an estimate of the unescaped text
once answered 81,047 for results full of quotes)."""

MATCH_CHARS = 500
"""Longest ``match`` text in a search result (longer lines are cut around the
match)."""

MAX_SUBMATCHES = 50
"""Spans of the pattern listed in one matched line: a pattern found thousands
of times in a minified line would fill the answer."""

GREP_MIN_BYTES = 8 * 1024 * 1024
"""Exact counts and searches on files at least this large are delegated to
``grep`` when present (``DIFFCHUNK_NO_GREP=1`` turns it off): below, starting
a process costs more than the scan."""

GREP_ADDRESS_SPACE = 256 * 1024 * 1024
"""Address space a grep child may use: GNU grep holds a whole line, about twice
(133 MB for a 64 MB line), so a gigabyte one-line file took 2 GB in grep
alone; capped, such a grep fails and the Python scan, which reads a long
line in pieces, answers (lines up to about 100 MB still go to grep)."""

GREP_LISTING_BLOCK = 1 << 16
"""Bytes of grep's listing read at a time: the listing is read as a stream,
stepping over each listed line (a 300 MB one-line log: peak RSS 591 -> 24 MB)."""

GREP_HEADER_BYTES = 48
"""Room for the ``LINE:OFFSET:`` grep writes before a listed line: two 20-digit
numbers fit."""

DENSE_MATCHES = 16384
"""Matching lines per window after which exact counting switches to
``findall`` (faster when nearly every line matches)."""

REGEX_MAX_REPEAT = 1000
"""The largest repeat count (``x{n}``, ``x{m,n}``) a caller's regex may hold:
RE2's own bound (a larger one is refused with that message, not RE2's)."""

REGEX_MAX_TRANSLATED_CHARS = 1 << 20
"""Characters of RE2 syntax one caller's regex may be written out as: a class
holding ``\\W`` becomes about 700 ranges (15 KB), and a pattern of thousands
of them would be parsed by RE2 only to be refused as too large."""

PIECEWISE_LINE_BYTES = 4 << 20
"""A matched line longer than this (in bytes) is decoded piece by piece, never
whole: a one-line log of gigabytes would otherwise be held as one string
several times its size (a 300 MB one-line log: 3.2 s -> 1.6 s)."""

LONG_LINE_PIECE_BYTES = 1 << 20
"""Bytes per piece of such a line, decoded with an incremental decoder."""

LONG_LINE_OVERLAP_CHARS = 1 << 16
"""Characters two pieces overlap: a match this short that straddles two pieces
is still found."""

MAX_OCCURRENCES = 1000
"""Occurrences of one needle recorded before the exact scan stops looking for
it (an edit's search text that occurs more often is ambiguous anyway)."""

# ---------------------------------------------------------------------------
# Large files: fuzzy search and fuzzy edit matching
# ---------------------------------------------------------------------------

LINE_CUTOFF = 80.0
"""Lowest ``partial_ratio`` (0-100) a fuzzy search result may have."""

SHORT_PATTERN = 6
"""Patterns up to this many characters use SHORT_CUTOFF..."""

SHORT_CUTOFF = 75.0
"""...a lower cutoff: one typo costs more of a short pattern's score."""

FUZZY_TIME_BUDGET = 10.0
"""Seconds a fuzzy line search may take; then it stops and reports the lines it
covered."""

FUZZY_CHECK_EVERY = 4096
"""Anchors found, or candidate lines scored, between two looks at the clock."""

ANCHOR_WORDS = 5
"""Longest distinct words of a search text used as its anchors in a file too
large for a full fuzzy scan."""

ANCHOR_PIECE_SAMPLE_BYTES = 1 << 20
"""Bytes of a file looked at to choose the rarest pieces of a fuzzy pattern as
anchors."""

FULL_FUZZY_LIMIT = 32 * 1024 * 1024
"""Files up to this size get a full fuzzy scan for an edit; bigger ones an
anchored one (around exact occurrences of the search text's longest words)."""

DEFAULT_FUZZY_THRESHOLD = 0.85
"""Minimum similarity (0-1) for a fuzzy edit match (``DIFFCHUNK_FUZZY_THRESHOLD``):
high, because a fuzzy match rewrites the file: only the same block slightly
changed (whitespace, a typo) should pass."""

AMBIGUITY_MARGIN = 0.03
"""A runner-up must be at least twice as far from the search text as the best
window, and more than a third of this (distances under it count as "equal"
for near-perfect matches): otherwise the match is ambiguous, and the edit is
refused rather than guessed."""

MAX_FUZZY_CHARS = 64 * 1024
"""Longest search text matched fuzzily: comparisons cost the product of the
lengths (a 1 MB fuzzy edit search ran for minutes)."""

PARTIAL_HINTS_LIMIT = 4 * 1024 * 1024
"""One-line searches also get partial-match hints in files up to this size."""

FULL_SCORE_LINES = 64
"""A region of at most this many lines is scored at every start, without a
prefilter."""

PREFILTER_LIMIT = 400
"""Lines kept per anchor line by the prefilter of a full fuzzy scan: the window
starts worth scoring."""

PREFILTER_CUTOFF = 50
"""Lowest ratio (0-100) a line must reach to be kept by the prefilter."""

ANCHOR_HITS = 200
"""Occurrences of an anchor word looked at: a word found more often is too
common to place a block, when rarer ones occur."""

WINDOW_BUDGET_COST = 300_000_000
"""Fuzzy windows scored for an edit at most: this divided by the cost of one
comparison (the search text's length squared / 64)..."""

WINDOW_BUDGET_MIN = 30
"""...but at least this many windows..."""

WINDOW_BUDGET_MAX = 60_000
"""...and at most this many: the edit stays within seconds whatever the file."""

FUZZY_WINDOWS_KEPT = 50
"""Best non-overlapping windows kept for the answer and its ambiguity check."""

SUGGESTIONS = 5
"""Similar texts offered (``similar_matches``) when a search text is not found."""

LINE_HINT_CUTOFF = 60
"""Lowest ``partial_ratio`` (0-100) of a line offered as a partial-match hint."""

SUGGESTION_CHARS = 200
"""Characters of a similar text shown in a suggestion."""

LENGTH_FILTER_ABOVE = 48
"""Anchor lines longer than this are only compared with lines of similar length
(a ratio of 50 needs the shorter text to be a third of the longer)."""

# ---------------------------------------------------------------------------
# Large files: outline
# ---------------------------------------------------------------------------

OUTLINE_MAX_BYTES = 50 * 1024 * 1024
"""Files larger than this get no outline (callers report it as skipped): the
seeds' line between files parsed whole and files streamed."""

SKELETON_MIN_BYTES = 1024 * 1024
"""Above this size function bodies are elided before parsing (and Markdown
headings are scanned, not parsed): tree-sitter's time and memory grow with
the text it parses."""

SKELETON_KEEP_BODY_BYTES = 64 * 1024
"""Function bodies larger than this are outlined inside even in a skeleton
(a file that is one huge function keeps its inner definitions)."""

BLOCK_END_PATTERNS_KEPT = 256
"""Compiled block-end patterns of the skeleton kept (one per indentation)."""

MAX_FUNCTION_NESTING = 2
"""How many functions deep a nested function may sit and still be listed:
deeper ones are closures, not what an outline is read for."""

OUTLINE_MAX_DEPTH = 16
"""Definitions nested deeper than this (classes in classes, namespaces...) are
left out of an outline, and a skeleton elides the blocks kept open that deep:
real code nests a few levels (C# namespace, class, nested class, method: 4),
and 2,400 nested classes made every walk of the outline recurse past Python's
limit (get_overview failed)."""

OUTLINE_MAX_START_DEPTH = 512
"""Syntax-tree depth below which the outline's query starts no match: the
definitions of real code sit 20 levels deep or less (typescript.js: 18), and
tree-sitter's query cursor took 104 s on 150,000 nested functions (0.01 s with
this bound)."""

OUTLINE_MATCH_LIMIT = 4096
"""Matches the outline's query cursor may have in progress at once: far above
what real code needs, a bound on the cursor's memory on hostile input; past it
the outline says that some definitions may be missing."""

OUTLINE_TIME_BUDGET = 10.0
"""Seconds one outline's parse and queries may take: the 9 MB typescript.js
takes about 0.5 s; past it the outline stops where it got to and says so."""

OUTLINE_QUERY_SLICE_BYTES = 128 * 1024
"""Bytes of source the outline's query covers in one call: tree-sitter holds the
interpreter for the whole call (512 KB of minified code: 0.4 s under load);
between calls other threads run and the time budget is checked."""

OUTLINE_PARSE_PIECE_BYTES = 256 * 1024
"""Bytes handed to the parser at a time: its progress callback, which checks
the time budget and lets other threads run, comes between steps of the parse."""

PYTHON_MAX_INDENT_CHARS = 256
"""Lines indented this many whitespace characters deep are blanked before a
Python parse: tree-sitter-python's scanner overflows its saved state (and the
process dies) on a string inside 512 levels of indentation, and a line under
256 characters and 32 tabs (PYTHON_MAX_INDENT_TABS, a tab counting 8 columns
to it) sits at most 472 columns, so 472 levels, deep."""

PYTHON_MAX_INDENT_TABS = 32
"""Lines indented this many tabs deep are blanked before a Python parse (see
PYTHON_MAX_INDENT_CHARS)."""

SKELETON_SCAN_FACTOR = 8
"""Bytes a skeleton's searches for block ends may scan, as a multiple of the
file's size: each search scans the block it ends, and nested blocks are
scanned again by each one around them (2,400 nested Python functions: 86 s of
scanning); past it the skeleton elides nothing more and the parser reads the
rest whole."""

OUTLINES_CACHED = 16
"""Outlines of file versions kept (by path and fingerprint)."""

OUTLINE_NAME_CHARS = 200
"""Outline names longer than this are cut (with an ellipsis): a C++ template
or a Markdown heading can run on for a line."""

OUTLINE_PAGE_ITEMS = 400
"""Items per outline page (get_overview pages its outline by ``outline_offset``):
about 12k tokens of JSON at ~120 characters an item."""

SYMBOL_QUERY_MATCHES = 200
"""Definitions a ``symbol`` query lists (the total is given beside them)."""

SYMBOL_QUERY_CHARS = 500
"""A symbol query longer than any definition name could be is refused."""

# ---------------------------------------------------------------------------
# Large files: edits
# ---------------------------------------------------------------------------

MAX_EDIT_CHANGES = 500
"""Changes one edit call may hold: far above any batch written by hand, and a
bound on the work of one all-or-nothing call."""

PREVIEW_CONTEXT_LINES = 3
"""Context lines around each change in an edit's preview: git's default."""

MAX_PREVIEW_LINES = 400
"""An edit's preview stops after this many lines, with a note of how many more
there were: about 12k tokens at 120 characters a line."""

MAX_PREVIEW_LINE_CHARS = 400
"""Lines of a preview longer than this are cut."""

PREVIEW_LONG_LINE_BYTES = 4 * MAX_PREVIEW_LINE_CHARS
"""A line of a preview's region longer than this is read in excerpts (around
its changes, else its start), never whole: in UTF-8 a character is at most
four bytes, so a shorter line is cut by MAX_PREVIEW_LINE_CHARS anyway, and a
gigabyte line no longer costs gigabytes (a 1 GB one-line file took 6.2 GB)."""

PREVIEW_AROUND_CHANGE_BYTES = MAX_PREVIEW_LINE_CHARS // 4
"""Bytes shown on each side of a change in such a line: the change stays in
the first MAX_PREVIEW_LINE_CHARS characters shown, with context around it."""

EDIT_IN_MEMORY_BYTES = 32 * 1024 * 1024
"""Files up to this size are read into memory for an edit; bigger ones stream."""

EDIT_MAX_TRANSCODE = 256 * 1024 * 1024
"""Largest file in another encoding than UTF-8 or a single-byte code page that
is edited: it is transcoded in memory."""

SHOWN_OCCURRENCES = 20
"""Line numbers of a repeated search text listed in its error."""

DEFAULT_LOCK_TIMEOUT = 30.0
"""Seconds to wait for another edit of the same file (``DIFFCHUNK_LOCK_TIMEOUT``):
long enough for an edit of a large file to copy and flush it, short enough
that a stuck one is reported."""

LOCK_POLL_FIRST = 0.002
"""Seconds between the first tries of a held edit lock (2 ms), doubling..."""

LOCK_POLL_MAX = 0.01
"""...up to 10 ms: a waiting edit starts soon after the other ends."""

TEMP_STEM_BYTES = 150
"""Bytes of the edited file's name kept in its temporary sibling's name
(``.<name>.diffchunk-XXXXXXXX.tmp``): the whole stays under the 255-byte limit
of file names.  Stale temporaries of longer names are left alone, as their
stem could be another file's."""

EDIT_ATTEMPTS = 3
"""Times an edit (or a revert) is made again from a fresh read when another
program changed the file before the new version was renamed over it: an
appender between two lines lets the next attempt through; a file rewritten
faster than it can be edited is an EditConflict after the third."""

EDIT_CARRY_ROUNDS = 8
"""Rounds of copying the lines another program appended during an edit into the
new version before it is renamed over the file: each round copies what came
during the one before (microseconds); an appender that outpaces eight rounds
is an EditConflict (the edit is made again from a fresh read)."""

WRITERS_WAIT = 2.0
"""Seconds an edit waits for programs that hold the file open for writing
(:mod:`diffchunk.files.writers`) to close it, before the rename (still held:
the file is not replaced) and after it (still held: reported).  A program
that opens, appends a line and closes holds it for microseconds; one that
keeps it open (a running logger) would write its next lines to the replaced
version."""

WRITERS_POLL_FIRST = 0.002
"""Seconds between the first looks for such writers (2 ms), doubling..."""

WRITERS_POLL_MAX = 0.05
"""...up to 50 ms: where the lease probe cannot tell, each look reads every
descriptor of the user's processes in ``/proc`` (about 12 us each: 0.25 s
for 20,000 descriptors), so a long wait looks about 40 times, not 1,000."""

# ---------------------------------------------------------------------------
# Large files: backups
# ---------------------------------------------------------------------------

DEFAULT_BACKUP_KEEP = 50
"""Backups kept per edited file (``DIFFCHUNK_BACKUP_KEEP``), oldest pruned
first: enough to step back through a session's edits, and a bound on the
backup directory."""

DEFAULT_BACKUP_MAX_BYTES = 2 * 1024**3
"""Backup bytes kept per edited file (``DIFFCHUNK_BACKUP_MAX_BYTES``, 2 GiB):
backups of a large log must not fill the disk."""

BACKUP_NAME_PART_BYTES = 120
"""Bytes of the edited file's name kept in its backups' names: with the key,
the id and ``.json``, a name stays under the 255-byte limit of file names."""

BACKUP_IDS_SHOWN = 20
"""Backup ids an error lists (newest first)."""

# ---------------------------------------------------------------------------
# The review record and its exports
# ---------------------------------------------------------------------------

PAGE_SEPARATOR_CHARS = 2
"""What a page costs per entry besides the entry's own JSON text: ``, `` between
entries of indented answers (1 in compact JSON, which callers pass)."""

RECORD_RESPONSE_CHARS = RESPONSE_TOKENS * CHARS_PER_TOKEN
"""A page of review_status or list_findings, in characters: the same bound as
any other answer (RESPONSE_TOKENS)."""

STATUS_CHANGED_LISTED = 50
"""Files whose change moved since their mark that review_status names (the count
is always whole): enough to act on, and the full list pages by state."""

SEEN_MEMORY_ENTRIES = 4_096
"""Shares this process remembers having recorded as seen, so a chunk read again
writes nothing: a few hundred bytes each, far more than one review reads."""

SINCE_PATHS_LISTED = 50
"""Paths of each kind (changed, new, no longer changed, interdiff) a since-review
summary lists; the counts are always whole and the diff itself has them all."""

HOOK_PATHS_LISTED = 10
"""Paths of each kind the pre-push hook prints under a refused push: a terminal's
worth, with the rest counted; diffchunk status lists them all."""

HOOK_REVIEWS_RESOLVED = 20
"""Reviews of one repository (most recently loaded first) whose ranges the hook
resolves on a push: each costs a git run or two, and a repository rarely has
more live reviews."""

INTERDIFF_CONTEXT_LINES = 3
"""Context lines of an interdiff hunk: git's default (-U3), so it reads like the
diffs around it."""

FINDING_CONTEXT_LINES = 3
"""Lines kept on each side of a finding's lines, for re-anchoring it when the
branch moves: git's default context, enough to place a line that moved."""

REVIEWER_CHARS = 200
"""Longest author name kept on a mark, finding or comment: a name and an email
address fit many times over; more is not a name."""

FINDING_COMMENT_CHARS = 20_000
"""Longest reply on a finding's thread: as a finding's message."""

FINDING_COMMENTS_SHOWN = 20
"""Replies of a thread a finding carries in an answer (the latest): a discussion
longer than that is read in the export, whole."""

RECORD_IDS_PER_QUERY = 500
"""Ids one record query names at once (``IN (?, ...)``): SQLite builds before 3.32
accept at most 999 parameters in a statement."""

SYNC_GIT_TIME_LIMIT = 300.0
"""How long one git of ``diffchunk sync`` may run (a push or fetch over a slow
network, a credential prompt answered by a person): minutes, not forever."""

SYNC_LOG_MAX_BYTES = 256 << 20
"""Largest review log read back from a remote: 2,000 findings and 5,000 marks
take about 3 MB; a log past this is refused as hostile (or a record to split)."""

SYNC_LOG_MAX_LINES = 1_000_000
"""Most operations read from one log: an order above any team's record (the
2,000-finding benchmark writes about 9,000)."""

SYNC_OP_MAX_CHARS = 1 << 20
"""Longest operation (one JSON line) accepted: a finding with the longest message
and suggestion the record takes (FINDING_MESSAGE_CHARS + FINDING_SUGGESTION_CHARS),
its lines and context, JSON-escaped."""

SYNC_LOGS_MAX = 1_000
"""Most reviewers' logs fetched from one remote: more is a remote filled to hurt."""

SYNC_CLOCK_MAX = 2**53
"""Largest Lamport clock or line number an operation may carry: JSON readers in
other languages keep integers exactly up to here."""

SYNC_TEXT_CHARS = 4096
"""Longest path, range or key part in an operation: git's own paths stop at
PATH_MAX (4,096 bytes on Linux)."""

OVERLAPPING_REVIEWS_LISTED = 5
"""Earlier reviews a load names when it cannot tell which one it continues (the
latest first): enough to choose from; more are counted."""

SIMILAR_MESSAGE_RATIO = 0.6
"""Two findings' messages are similar (dismissal memory) when difflib's ratio of
their normalised words reaches this: a rewording keeps most words (measured on
rephrasings an assistant writes of one problem: 0.62-0.9), two problems on one
line share few (0.1-0.4)."""

FINDING_MESSAGE_CHARS = 20_000
"""Longest finding message accepted: several pages of prose; longer is a pasted
file, which belongs in the suggestion or nowhere."""

FINDING_SUGGESTION_CHARS = 200_000
"""Longest suggested replacement accepted: a rewritten file of a few thousand
lines; the record keeps it whole, answers show it clipped."""

CLIP_HEAD_LINES = 20
"""First lines of a finding's long lines or suggestion shown in an answer: enough
to check that it points where it was meant to."""

CLIP_TAIL_LINES = 5
"""Last lines shown with CLIP_HEAD_LINES: where the finding's lines end."""

CLIP_MAX_CHARS = 4_000
"""Characters of a clipped text in an answer: a finding of 100,000 lines answered
1.19 MB before clipping; a page holds about twenty clipped findings."""

CLIP_HEAD_CHARS = 3_000
"""Of CLIP_MAX_CHARS, the characters for the head; the rest for the tail."""

WRITE_ANSWER_LINE_CHARS = 160
"""Characters of the anchored line a write tool's one-line answer quotes
(``add_finding``): enough to tell the line meant from its neighbours; the finding
itself is not sent back (21 acknowledgements of whole findings cost a review
as much as a file's diff)."""

CLIP_MIN_CHARS = 100
"""The least a text is cut to when a page has little room left: a line or two
to recognise it."""

RECORD_BUSY_TIMEOUT_MS = 5_000
"""How long one attempt waits for the record's write lock (SQLite's busy
handler), in milliseconds; the attempt is retried until RECORD_WRITE_WAIT_SECONDS."""

RECORD_WRITE_WAIT_SECONDS = 30.0
"""How long a record tool's write is retried in all before the record is reported
unavailable (a CLI, the server and the hook share the file; writes take
milliseconds, so 30 s means another process is stuck)."""

RECORD_SIDE_WRITE_SECONDS = 0.5
"""How long a write on the side of a diff tool (seen marks, a range load's
revision, re-anchoring) waits for the lock: the tool's answer must not wait for
the record (it waited 30 s before); the write is logged and skipped."""

RECORD_RETRY_FIRST_PAUSE_SECONDS = 0.005
"""The first pause before a write is tried again while another process holds the
record's lock; doubled at each try (with jitter) up to RECORD_RETRY_MAX_PAUSE_SECONDS."""

RECORD_RETRY_MAX_PAUSE_SECONDS = 0.1
"""The longest pause between tries: a lock is held for milliseconds, so a waiter
tries again at least ten times a second."""

HOOK_MESSAGE_CHARS = 100
"""Characters of a finding's first line the pre-push hook prints: one terminal
line per finding."""

EXPORTS_KEPT = 50
"""Exports too large for one answer kept in the cache (``exports/``), the most
recently written: each is one review in one format, made again by asking again."""

GITHUB_MAX_BODY_CHARS = 65_536
"""GitHub refuses a review or comment body longer than this (characters): a
limit of its REST API."""

GITHUB_TRAILER_ROOM = 1_000
"""Characters of a review body kept for the line that says how much was cut and
where the rest is."""

# ---------------------------------------------------------------------------
# The review page (diffchunk web) and its highlighting
# ---------------------------------------------------------------------------

HIGHLIGHT_LINE_CHARS = 2_000
"""Lines longer than this are shown without syntax colours or word marks: a
minified line of a megabyte would take the lexer seconds for colours nobody
reads."""

HIGHLIGHT_PAGE_CHARS = 100_000
"""Characters the lexer colours for one answer of the page: Pygments lexes
Python at about 100,000 characters a second here (``make bench-web``), so an
answer waits at most about a second for its colours; the lines after them in
that answer are shown plain."""

WORD_PAIR_COMPARISONS = 10_000
"""Removed x added lines of one change block compared to pair them for word
marks; a larger block pairs its lines in order (the i-th with the i-th)."""

WORD_PAIR_SIMILARITY = 0.5
"""Share of their words two lines must have in common to be shown as a pair
with word marks: below it they are different lines, shown whole."""

PAGE_LINE_CHARS = 10_000
"""Characters of one diff or file line the page shows; the rest is left out
with a note saying how many characters (the diff tools serve the line whole)."""

PAGE_ROWS = 1_000
"""Rows of one file's diff sent at once; the page asks for the next rows as the
reader scrolls to them, so a file of a million lines opens at once."""

PAGE_CONTEXT_LINES = 1_000
"""Lines of a file one request for more context may read (expanding a gap
larger than this takes several clicks)."""

PAGE_REQUEST_BYTES = 1_048_576
"""Largest request body the page's server reads: a finding's message and
suggestion fit many times over."""

PAGE_TOKEN_BYTES = 32
"""Random bytes of the page's secret token (256 bits), as in the printed URL."""

PAGE_SHUTDOWN_SECONDS = 5
"""Seconds the page's server waits for open requests when it is stopped."""

# ---------------------------------------------------------------------------
# The MCP server
# ---------------------------------------------------------------------------

TOOL_THREADS = 32
"""Worker threads the MCP tools run in, a pool of their own: the SDK's stdio
transport reads and writes each message through a thread of anyio's default
pool (40 threads), so tools sharing it could take every thread (45 calls
waiting on git did) and leave the server unable to read even the client's
cancellations.  32 calls at work at once is more than any client makes."""

ROOTS_TIMEOUT_SECONDS = 10.0
"""Seconds to wait for the client's answer to roots/list: a client that never
answers must not hold every tool call."""

SHOWN_INPUT_CHARS = 60
"""Characters of a rejected argument's value repeated in an error: enough to
recognise it, not a pasted file echoed back."""

ECHOED_PATTERN_CHARS = 500
"""Characters of a search pattern a file tool's answer repeats back: enough to
recognise it; a pattern of a whole pasted file would otherwise take the room
of the results."""

ERROR_TEXT_CHARS = 2_000
"""Characters of an error's message or suggestion in a tool's answer: the
longest real message is a few hundred; one that repeats a user's text of
100,000 characters (a pattern, a range) is cut in the middle, not sent whole."""

SHOWN_SCHEMA_ERRORS = 5
"""Problems of a call that fails the input schema named at most, one line
each."""

# ---------------------------------------------------------------------------
# The CLI
# ---------------------------------------------------------------------------

MAX_CHANGES_JSON = 64 * 1024 * 1024
"""Largest ``--changes-json`` file read (it is parsed in memory): far above
MAX_EDIT_CHANGES changes of real code; /dev/zero, a FIFO or a log passed by
mistake is refused before being read whole."""
