"""Lazy hunks: the load-time whole-file check and the hunks built on demand agree
with the exact per-hunk parse, and every consumer gives the same answers."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pytest
from test_data import CORPUS, ROOT

from diffchunk.diff.chunker import chunk_files, render_chunk
from diffchunk.diff.filters import filter_files, is_whitespace_only
from diffchunk.diff.generated import GeneratedFileDetector
from diffchunk.diff.hunk import read_hunk_header
from diffchunk.diff.model import (
    DiffKind,
    FileDiff,
    FileStatus,
    Hunk,
    LazyHunks,
    ParsedDiff,
    new_file_diff,
)
from diffchunk.diff.parser import git as git_section
from diffchunk.diff.parser import git_paths, parse_diff
from diffchunk.diff.pipeline import LoadOptions, build_review
from diffchunk.errors import NotADiffError
from diffchunk.review.sessions.store import SessionStore

FIXTURES = ROOT / "fixtures"


def _inputs() -> list[Path]:
    paths = sorted(p for p in FIXTURES.iterdir() if p.is_file())
    if CORPUS.is_dir():
        paths += sorted(
            p for p in CORPUS.iterdir() if p.is_file() and p.suffix in (".diff", ".mbox", ".txt")
        )
    return paths


INPUTS = _inputs()


def _both(data: bytes) -> tuple[ParsedDiff, ParsedDiff]:
    return parse_diff(data), parse_diff(data, lazy=False)


def _span_lines(data: bytes, start: int, end: int) -> int:
    if end <= start:
        return 0
    return data.count(b"\n", start, end) + (data[end - 1] != 0x0A)


def _file_facts(f: FileDiff) -> tuple[object, ...]:
    return (
        f.index,
        f.start,
        f.header_end,
        f.end,
        f.kind,
        f.status,
        f.old_path,
        f.new_path,
        f.added,
        f.removed,
        f.old_mode,
        f.new_mode,
        f.similarity,
        f.is_binary,
        f.binary_patch,
        f.is_submodule,
        f.commit,
        f.old_token,
        f.new_token,
        f.malformed,
    )


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_lazy_parse_matches_the_exact_per_hunk_parse(path: Path) -> None:
    data = path.read_bytes()
    try:
        lazy, eager = _both(data)
    except NotADiffError:
        pytest.skip("not a diff")
    assert lazy.segments == eager.segments
    assert lazy.commits == eager.commits
    assert lazy.warnings == eager.warnings
    assert len(lazy.files) == len(eager.files)
    for a, b in zip(lazy.files, eager.files, strict=True):
        assert _file_facts(a) == _file_facts(b)
        assert len(a.hunks) == len(b.hunks) and bool(a.hunks) == bool(b.hunks)
        if isinstance(a.hunks, LazyHunks):
            assert not a.hunks.materialised
            if a.hunks:
                assert a.hunks[0] == b.hunks[0]  # the first hunk alone, before building
            assert not a.hunks.materialised
            assert a.hunks == b.hunks and b.hunks == a.hunks
            assert a.hunks.line_counts() == tuple(
                _span_lines(data, h.start, h.end) for h in b.hunks
            )
        assert tuple(a.hunks) == tuple(b.hunks)
        assert a.line_count == _span_lines(data, a.start, a.end)


def test_the_corpus_takes_the_lazy_path() -> None:
    path = CORPUS / "sqlalchemy_rel_1_4_0..rel_1_4_54.diff"
    if not path.is_file():
        pytest.skip("shared corpus not available")
    parsed = parse_diff(path.read_bytes())
    lazy = [f for f in parsed.files if isinstance(f.hunks, LazyHunks)]
    assert len(lazy) > 0.9 * len(parsed.files)


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_hunks_for_cutting_tile_the_region_with_their_line_counts(path: Path) -> None:
    data = path.read_bytes()
    try:
        parsed = parse_diff(data)
    except NotADiffError:
        pytest.skip("not a diff")
    for f in parsed.files:
        if not isinstance(f.hunks, LazyHunks):
            continue
        once, once_lines = f.hunks.with_line_counts(keep=False)
        assert not f.hunks.materialised
        lines = f.hunks.line_counts()
        assert f.hunks.materialised
        built = tuple(f.hunks)
        assert (once, once_lines) == (built, lines)
        assert lines == tuple(_span_lines(data, h.start, h.end) for h in built)
        assert [h.start for h in built] == [f.hunks.start] + [h.end for h in built[:-1]]
        assert [
            (h.body_start, h.old_start, h.old_count, h.new_start, h.new_count) for h in built
        ] == [
            (min(r.line_end + 1, len(data)), r.old_start, r.old_count, r.new_start, r.new_count)
            for r in (read_hunk_header(data, h.start) for h in built)
            if r is not None
        ]


# Past this size an input is chunked at 60 and 1,000 lines only: the 7 MB corpus diff in
# 10-line chunks is 116,000 chunks (6 s of the suite), and every smaller input, real
# diffs among them, already compares 10-line chunks.
SMALL_CHUNKS_UP_TO_BYTES = 2_000_000


def _chunk_sizes(data: bytes) -> tuple[int, ...]:
    return (10, 60, 1000) if len(data) <= SMALL_CHUNKS_UP_TO_BYTES else (60, 1000)


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_filters_and_chunks_are_the_same_for_lazy_and_exact_parses(path: Path) -> None:
    data = path.read_bytes()
    try:
        lazy, eager = _both(data)
    except NotADiffError:
        pytest.skip("not a diff")
    for a, b in zip(lazy.files, eager.files, strict=True):
        assert is_whitespace_only(a, data) == is_whitespace_only(b, data)
    detector = GeneratedFileDetector()
    assert [detector.classify(f, lazy) for f in lazy.files] == [
        GeneratedFileDetector().classify(f, eager) for f in eager.files
    ]
    for trivial in (True, False):
        ra = filter_files(
            lazy,
            skip_trivial=trivial,
            skip_generated=True,
            include_patterns=None,
            exclude_patterns=None,
        )
        rb = filter_files(
            eager,
            skip_trivial=trivial,
            skip_generated=True,
            include_patterns=None,
            exclude_patterns=None,
        )
        assert [f.index for f in ra.kept] == [f.index for f in rb.kept]
        assert ra.excluded == rb.excluded
    for max_lines in _chunk_sizes(data):
        ca = chunk_files(lazy, lazy.files, max_lines=max_lines)
        cb = chunk_files(eager, eager.files, max_lines=max_lines)
        assert ca == cb
        assert [render_chunk(lazy, c) for c in ca] == [render_chunk(eager, c) for c in cb]


def _diff(*hunks: bytes, path: bytes = b"f.txt") -> bytes:
    head = b"diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n" % (
        path,
        path,
        path,
        path,
    )
    return head + b"".join(hunks)


def test_wrong_counts_are_still_flagged_at_load() -> None:
    # one hunk claims a line more than it has: not balanced, so the exact path decides
    data = _diff(b"@@ -1,3 +1,3 @@\n a\n-b\n+B\n") + _diff(b"@@ -1 +1 @@\n-x\n+y\n", path=b"g")
    lazy, eager = _both(data)
    assert lazy.files[0].malformed is not None
    assert lazy.files[0].malformed == eager.files[0].malformed
    assert not isinstance(lazy.files[0].hunks, LazyHunks)
    assert isinstance(lazy.files[1].hunks, LazyHunks) and lazy.files[1].malformed is None
    assert b"".join(lazy.raw(s) for s in lazy.sections()) == data


def _shape(parsed: ParsedDiff) -> list[object]:
    files = [
        (f.start, f.end, f.added, f.removed, f.malformed, [(h.start, h.end) for h in f.hunks])
        for f in parsed.files
    ]
    segments = [(s.start, s.end, s.kind, s.note) for s in parsed.segments]
    return [files, segments]


@pytest.mark.parametrize(
    "hunks",
    [
        # the first header says one line too many, the second one too few: the
        # file's totals add up, each hunk's do not
        b"@@ -1,3 +1,3 @@\n a\n-b\n+B\n@@ -10,2 +10,2 @@\n c\n d\n-e\n+E\n",
        # a context line of the first hunk read as part of the second
        b"@@ -1 +1 @@\n-a\n+b\n x\n@@ -5,2 +5,2 @@\n-c\n+d\n",
        # one hunk's '+' line where its header expects context, made up by the next
        b"@@ -1,2 +1,2 @@\n a\n-b\n+c\n+d\n@@ -5,2 +6,2 @@\n-x\n-y\n+z\n",
        # the same imbalance in the first two hunks, and a last hunk that is right
        # (the last is checked again on its own: not the others)
        b"@@ -1,3 +1,3 @@\n a\n-b\n+B\n@@ -10,2 +10,2 @@\n c\n d\n-e\n+E\n@@ -20 +20 @@\n-x\n+y\n",
    ],
)
def test_counts_that_balance_across_hunks_are_read_hunk_by_hunk(hunks: bytes) -> None:
    # Every hunk must hold what its own header counts; the file's totals are not
    # enough, or the lazy reading would end hunks elsewhere than the exact one.
    data = _diff(hunks)
    parsed = parse_diff(data)
    assert _shape(parsed) == _shape(parse_diff(data, lazy=False))
    assert not isinstance(parsed.files[0].hunks, LazyHunks)
    assert b"".join(parsed.raw(s) for s in parsed.sections()) == data


@pytest.mark.parametrize(
    ("hunks", "kind"),
    [
        (b"@@ -1 +1 @@\n-a\n+b\n\n", "empty line after the hunks"),
        (b"@@ -1,2 +1,2 @@\n a\n\n-b\n+c\n", "stripped context line"),
        (b"@@ -1 +1 @@\n-a\n+b\n@@ bad header\n", "unreadable header"),
        (b"@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n", "marker line"),
        (b"@@ -1 +1 @@\n-a\n+b", "no final newline"),
        (b"@@ -1 +1 @@\r\n-a\r\n+b\r\n", "CRLF"),
        (b"@@ -1 +1 @@\n-a\n+b\n-- \n2.43.0\n", "mail signature"),
        (b"@@ -0,0 +0,0 @@", "header at the end without a newline"),
        (b"@@ -1 +1 @@", "header at the end with a missing body"),
        (b"@@ -1,2 +1 @@\n-a\n-b\n+c\n@@ -9 +8 @@\n-x\n+y\n", "several hunks"),
    ],
)
def test_edge_cases_agree_with_the_exact_parse(hunks: bytes, kind: str) -> None:
    data = _diff(hunks)
    lazy, eager = _both(data)
    assert [_file_facts(f) for f in lazy.files] == [_file_facts(f) for f in eager.files], kind
    assert [tuple(f.hunks) for f in lazy.files] == [tuple(f.hunks) for f in eager.files]
    assert lazy.segments == eager.segments and lazy.warnings == eager.warnings


def test_empty_path_tokens_keep_their_general_reading() -> None:
    head = b"diff --git a/ b/\nindex 1111111..2222222 100644\n--- a/\n+++ b/\n"
    data = head + b"@@ -1 +1 @@\n-a\n+b\n"
    lazy, eager = _both(data)
    assert [_file_facts(f) for f in lazy.files] == [_file_facts(f) for f in eager.files]
    assert (lazy.files[0].old_path, lazy.files[0].new_path) == ("a/", "b/")


def test_whitespace_only_files_are_found_without_building_hunks() -> None:
    trivial = _diff(b"@@ -1,2 +1,2 @@\n-a  b\n+a b\n c\n@@ -9 +9 @@\n-\tx\n+x\n")
    parsed = parse_diff(trivial)
    assert is_whitespace_only(parsed.files[0], trivial)
    # second hunk is a real change: the first one alone is not enough
    real = _diff(b"@@ -1,2 +1,2 @@\n-a  b\n+a b\n c\n@@ -9 +9 @@\n-x\n+y\n")
    parsed = parse_diff(real)
    assert not is_whitespace_only(parsed.files[0], real)
    # only blank lines added: exact without building the hunks
    blank = _diff(b"@@ -1,1 +1,3 @@\n a\n+\n+  \n")
    parsed = parse_diff(blank)
    assert is_whitespace_only(parsed.files[0], blank)
    f = parsed.files[0]
    assert isinstance(f.hunks, LazyHunks) and not f.hunks.materialised


def test_lazy_hunks_compare_and_hash_like_tuples() -> None:
    data = _diff(b"@@ -1 +1 @@\n-a\n+b\n@@ -5 +5 @@\n-c\n+d\n")
    lazy, eager = _both(data)
    a, b = lazy.files[0], eager.files[0]
    assert isinstance(a.hunks, LazyHunks)
    assert a.hunks == b.hunks and hash(a.hunks) == hash(tuple(b.hunks))
    assert a.hunks[-1] == b.hunks[-1] and list(a.hunks[0:1]) == [b.hunks[0]]
    assert a.hunks != (b.hunks[0],)
    assert all(isinstance(h, Hunk) for h in a.hunks)
    assert a.hunks.index(b.hunks[1]) == 1 and b.hunks[1] in a.hunks


def test_fast_file_constructor_builds_equal_objects() -> None:
    kwargs: dict[str, object] = {
        "index": 3,
        "start": 10,
        "header_end": 20,
        "end": 30,
        "kind": DiffKind.GIT,
        "status": FileStatus.RENAMED,
        "old_path": "a",
        "new_path": "b",
        "similarity": 90,
    }
    made = new_file_diff(**kwargs)
    plain = FileDiff(**kwargs)  # type: ignore[arg-type]
    assert made == plain and hash(made) == hash(plain) and type(made) is FileDiff
    assert made.hunks == () and made.line_count is None and made.malformed is None


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_common_git_paths_shortcut_gives_what_the_general_code_gives(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = path.read_bytes()

    def facts() -> list[tuple[object, ...]]:
        return [
            (f.old_path, f.new_path, f.old_token, f.new_token, f.status)
            for f in parse_diff(data).files
        ]

    try:
        fast = facts()
    except NotADiffError:
        pytest.skip("not a diff")
    monkeypatch.setattr(git_section, "git_paths", git_paths.any_git_paths)
    assert facts() == fast


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_review_line_total_is_the_buffer_line_count(path: Path) -> None:
    data = path.read_bytes()
    try:
        review = build_review(data, LoadOptions())
    except NotADiffError:
        pytest.skip("not a diff")
    expected = data.count(b"\n") + (0 if data.endswith(b"\n") else 1) if data else 0
    assert review.stats.total_lines == expected


def test_large_first_load_hashes_in_a_thread_and_keys_the_session(tmp_path: Path) -> None:
    hunk = b"@@ -1 +1 @@\n-old line\n+new line\n"
    data = b"".join(_diff(hunk, path=b"f%05d.txt" % i) for i in range(12_000))
    assert len(data) > 1 << 20
    diff = tmp_path / "big.diff"
    diff.write_bytes(data)
    store = SessionStore()
    before = threading.active_count()
    session = store.get(str(diff))
    assert session.digest == hashlib.sha256(data).hexdigest()
    assert session.key.endswith("#" + session.digest[:16])
    assert threading.active_count() == before
    assert session.review.stats.total_files == 12_000


def test_a_failing_large_load_still_reports_its_error(tmp_path: Path) -> None:
    diff = tmp_path / "notadiff.txt"
    diff.write_bytes(b"just some text\n" * 100_000)
    store = SessionStore()
    before = threading.active_count()
    with pytest.raises(NotADiffError):
        store.get(str(diff))
    assert threading.active_count() == before
    assert store.peek(str(diff)) is None
