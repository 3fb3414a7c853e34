"""The interdiff section: the change text of a file, and a section the parser keeps as that
file's (byte-exact, counts right) and the chunker cuts like any other."""

from __future__ import annotations

from diffchunk.diff.options import LoadOptions
from diffchunk.diff.parser import parse_diff
from diffchunk.diff.pipeline import build_review
from diffchunk.review.incremental.interdiff import change_text, interdiff_section

REVIEWED = b"""diff --git a/src/x.py b/src/x.py
index 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222 100644
--- a/src/x.py
+++ b/src/x.py
@@ -8,7 +8,7 @@ def f():
     a = 1
     b = 2
     c = 3
-    old = 1
+    new = 2
     d = 4
     e = 5
     f = 6
"""

# The same change 20 lines lower (upstream added lines above it), then amended.
NOW = b"""diff --git a/src/x.py b/src/x.py
index 3333333333333333333333333333333333333333..4444444444444444444444444444444444444444 100644
--- a/src/x.py
+++ b/src/x.py
@@ -28,7 +28,8 @@ def f():
     a = 1
     b = 2
     c = 3
-    old = 1
+    new = 3
+    more = 4
     d = 4
     e = 5
     f = 6
\\ No newline at end of file
"""


def _text(diff: bytes) -> list[bytes]:
    parsed = parse_diff(diff)
    return change_text(parsed.data, list(parsed.files))


def test_change_text_leaves_out_line_numbers_and_blob_ids() -> None:
    text = _text(REVIEWED)
    assert text[0] == b"@@ def f():\n"
    assert b"index" not in b"".join(text) and b"--- a/" not in b"".join(text)
    moved = REVIEWED.replace(b"-8,7 +8,7", b"-28,7 +28,7").replace(b"1111", b"5555")
    assert _text(moved) == text  # shifted by upstream: the same change text
    assert interdiff_section("src/x.py", text, _text(moved)) == b""


def test_the_section_parses_as_the_files_and_says_what_it_is() -> None:
    section = interdiff_section("src/x.py", _text(REVIEWED), _text(NOW))
    head, body = section.split(b"\n@@", 1)
    assert head.splitlines() == [
        b"diff --git a/src/x.py b/src/x.py",
        b"--- a/src/x.py\tthe branch's change as reviewed (interdiff)",
        b"+++ b/src/x.py\tthe branch's change now (interdiff)",
    ]
    lines = body.splitlines()[1:]
    changed = [line for line in lines if line[:2] in (b"-+", b"++", b"--", b"+-")]
    assert changed == [b"-+    new = 2", b"++    new = 3", b"++    more = 4"]
    assert b"+\\ No newline at end of file" in section  # the marker is part of the change
    parsed = parse_diff(section)
    (fd,) = parsed.files
    assert fd.path == "src/x.py" and fd.malformed is None and not parsed.warnings
    assert (fd.start, fd.end) == (0, len(section))  # the section tiles its text
    assert (fd.added, fd.removed) == (3, 1)


def test_the_chunker_cuts_a_long_interdiff() -> None:
    old = [b"@@\n", *(b" line %d\n" % i for i in range(10))]
    new = [b"@@\n", *(b"+added %d\n" % i for i in range(60))]
    section = interdiff_section("docs/long name.md", old, new)
    review = build_review(section, LoadOptions(max_chunk_lines=20))
    assert len(review.chunks) >= 3
    texts = [review.chunk_bytes(c.number) for c in review.chunks]
    assert all(t.startswith(b"diff --git a/docs/long name.md b/docs/long name.md\n") for t in texts)
    assert all(b"@@ interdiff: the change as reviewed (-) and now (+)\n" in t for t in texts)
    assert sum(t.count(b"\n++added ") for t in texts) == 60


def test_a_path_git_would_quote() -> None:
    section = interdiff_section("caf\\351.txt", [b"-a\n"], [b"-b\n"])
    assert section.startswith(b'diff --git "a/caf\\351.txt" "b/caf\\351.txt"\n')
    (fd,) = parse_diff(section).files
    assert fd.path == "caf\\351.txt"
