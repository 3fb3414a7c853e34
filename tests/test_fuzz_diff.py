"""Property fuzzing of the diff engine on mutated, generated and real git diffs.

The generators and the properties live in ``tests/property/fuzz_diff/`` (the
long run: ``python -m tests.property.fuzz_diff --cases 100000``); here hypothesis
drives them, so a failure shrinks to a small input.  Properties (see
``checks.check_input`` there): only ``NotADiffError`` from the parser, every call
under one second, sections tile the input, every file kept or excluded once,
chunk counts and budgets, every chunk rendered and formatted in all modes,
``reduce_context`` re-parsing to the same change counts; generated diffs parse
to their model; real git diffs apply chunk by chunk, also after context
reduction.  Inputs that once broke a property are in ``fixtures/fuzz/``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diffchunk.diff.chunker import chunk_files, render_chunk
from diffchunk.diff.context import reduce_context
from diffchunk.diff.formatter import format_chunk
from diffchunk.diff.model import FileStatus
from diffchunk.diff.parser import parse_diff
from diffchunk.errors import InvalidArgument
from tests.property.fuzz_diff import checks, draws, git_cases, mutators, seeds, structural

ROOT = Path(__file__).resolve().parents[1]

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
FUZZ_FIXTURES = ROOT / "fixtures" / "fuzz"

FIXTURE_SEEDS = seeds.load_seeds(corpus=False, crashes=False)

# deadline=None: check_input times every call itself (the one-second hang guard)
_BASE = settings(
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)


class DrawSource:
    """A :class:`tests.property.fuzz_diff.draws.Source` over hypothesis draws (so failures shrink)."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))

    def raw(self, lo: int, hi: int) -> bytes:
        return self.data.draw(st.binary(min_size=lo, max_size=hi))


def _corpus_seeds() -> list[bytes]:
    if not CORPUS.is_dir():
        return []
    return [
        p.read_bytes()
        for p in sorted(CORPUS.iterdir())
        if p.suffix in (".diff", ".txt", ".mbox") and p.stat().st_size <= seeds.SMALL_CORPUS_BYTES
    ]


CORPUS_SEEDS = _corpus_seeds()


# --------------------------------------------------------------------------
# Generated and mutated inputs
# --------------------------------------------------------------------------


@pytest.mark.slow
@settings(_BASE, max_examples=examples(300))
@given(data=st.data())
def test_mutated_fixture_diffs_keep_every_property(data: st.DataObject) -> None:
    src = DrawSource(data)
    diff = mutators.mutate(src, FIXTURE_SEEDS)
    checks.check_input(diff, src)


@pytest.mark.slow
@settings(_BASE, max_examples=examples(100))
@given(data=st.data())
def test_mutated_corpus_diffs_keep_every_property(data: st.DataObject) -> None:
    if not CORPUS_SEEDS:
        pytest.skip("the shared corpus is not available")
    src = DrawSource(data)
    diff = mutators.mutate(src, CORPUS_SEEDS)
    checks.check_input(diff, src)


@pytest.mark.slow
@settings(_BASE, max_examples=examples(150))
@given(data=st.data())
def test_generated_diffs_parse_to_their_model_and_keep_every_property(
    data: st.DataObject,
) -> None:
    src = DrawSource(data)
    diff, expected = structural.structural(src)
    result = checks.check_input(diff, src, expected=expected)
    assert result.parsed and result.files == len(expected.files)


@pytest.mark.slow
@settings(_BASE, max_examples=examples(20))
@given(data=st.data())
def test_real_git_diffs_apply_chunk_by_chunk_after_context_reduction(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    src = DrawSource(data)
    case = git_cases.git_case(src)
    git_cases.check_git_case(src, case, tmp_path_factory.mktemp("fuzzgit"))


@pytest.mark.slow
def test_unmutated_seeds_keep_every_property() -> None:
    """Every fixture and small corpus file as is, with a fixed draw of options."""

    for k, diff in enumerate([*FIXTURE_SEEDS, *CORPUS_SEEDS]):
        src = draws.RandomSource(random.Random(k))
        checks.check_input(diff, src)


def test_bad_parameters_raise_invalid_argument_only() -> None:
    parsed = parse_diff(FIXTURE_SEEDS[0])
    for kwargs in ({"max_lines": 0}, {"max_tokens": -1}, {"max_lines": True}):
        with pytest.raises(InvalidArgument):
            chunk_files(parsed, parsed.files, **kwargs)
    for n in (-1, True, 1.5):
        with pytest.raises(InvalidArgument):
            reduce_context(parsed, n)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="raw, annotated, compact"):
        format_chunk(b"", "fancy")


# --------------------------------------------------------------------------
# Regressions: inputs the fuzzer found
# --------------------------------------------------------------------------


def _fixture(name: str) -> bytes:
    return (FUZZ_FIXTURES / name).read_bytes()


def _reduced_round_trips(data: bytes, n: int) -> bytes:
    parsed = parse_diff(data)
    reduced = reduce_context(parsed, n)
    again = parse_diff(reduced)
    assert [f.malformed for f in again.files] == [None] * len(parsed.files)
    assert [(f.added, f.removed) for f in again.files] == [
        (f.added, f.removed) for f in parsed.files
    ]
    assert checks.lenient_hunks(again) == []
    return reduced


def test_context_reduction_keeps_a_hunk_without_changes() -> None:
    data = _fixture("context-only-hunk.diff")
    for n in (0, 1, 3):
        assert _reduced_round_trips(data, n) == data


def test_context_reduction_keeps_hunks_whose_numbers_a_header_cannot_hold() -> None:
    data = _fixture("huge-line-number.diff")
    assert _reduced_round_trips(data, 0) == data
    assert _reduced_round_trips(data, 10**6) == data


def test_context_reduction_does_not_count_a_marker_inside_a_hunk_as_a_line() -> None:
    data = _fixture("mid-hunk-marker.diff")
    assert _reduced_round_trips(data, 10**6) == data
    assert _reduced_round_trips(data, 2) == data
    one = data.replace(b"@@ -1,4 +1,4 @@", b"@@ -1,3 +1,3 @@").replace(b" e\n", b"")
    assert _reduced_round_trips(data, 1) == one


def test_context_reduction_keeps_a_file_followed_by_lines_its_counts_leave_over() -> None:
    """Cut, the file's hunks run into the stray lines and the orphan hunk after them,
    whose counts balance out over the file: each hunk must still be read on its own."""
    data = _fixture("stray-lines-after-hunks.diff")
    for n in (0, 1, 3):
        reduced = _reduced_round_trips(data, n)
        checks.check_lazy_matches_exact(parse_diff(reduced), reduced)
    assert _reduced_round_trips(data, 3) == data


def test_copy_is_chunked_before_the_change_of_its_source(tmp_path: Path) -> None:
    """git reads a copy's source before the patch; a chunk after the source's change must not."""
    data = _fixture("copy-of-changed-file.diff")
    repo = tmp_path / "repo"
    repo.mkdir()
    git_cases.git(repo, "init", "-q")
    (repo / "a.txt").write_bytes(b"one\ntwo\nthree\nfour\nfive\nsix\n")
    git_cases.git(repo, "add", "-A")
    git_cases.git(repo, "commit", "-q", "-m", "base")
    git_cases.git(repo, "tag", "base")
    git_cases.git(repo, "apply", "--index", "-", stdin=data)
    git_cases.git(repo, "commit", "-q", "-m", "target")
    git_cases.git(repo, "tag", "target")
    parsed = parse_diff(data)
    assert [f.status for f in parsed.files] == [FileStatus.MODIFIED, FileStatus.COPIED]
    for max_lines in (4, 8, 12, 1000):
        chunks = chunk_files(parsed, parsed.files, max_lines=max_lines)
        texts = [render_chunk(parsed, c) for c in chunks]
        git_cases._apply_in_order(repo, tmp_path / "index", texts, False, f"max_lines={max_lines}")
        if len(chunks) > 1:
            assert chunks[0].parts[0].path == "b.txt"  # the copy comes first


def test_split_hunks_with_impossible_line_numbers_keep_readable_headers() -> None:
    """A start of 0 with lines, or numbers near 10**18: parts still re-parse."""
    for name in ("new-start-zero.diff", "huge-line-number-split.diff"):
        parsed = parse_diff(_fixture(name))
        (fd,) = parsed.files
        assert fd.malformed is None
        for max_lines in (1, 3, 5):
            chunks = chunk_files(parsed, parsed.files, max_lines=max_lines)
            assert len(chunks) > 1
            again = [parse_diff(render_chunk(parsed, c)) for c in chunks]
            assert [f.malformed for p in again for f in p.files] == [None] * len(chunks)
            assert sum(f.added for p in again for f in p.files) == fd.added
            assert sum(f.removed for p in again for f in p.files) == fd.removed


def test_copy_in_a_later_commit_stays_after_the_change_it_copies(tmp_path: Path) -> None:
    """In ``git log -p`` a copy reads the tree its parent commit left: no moving across."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git_cases.git(repo, "init", "-q")
    (repo / "a.txt").write_bytes(b"one\ntwo\nthree\nfour\nfive\nsix\n")
    git_cases.git(repo, "add", "-A")
    git_cases.git(repo, "commit", "-q", "-m", "base")
    git_cases.git(repo, "tag", "base")
    (repo / "a.txt").write_bytes(b"one\nTWO\nthree\nfour\nfive\nsix\n")
    git_cases.git(repo, "commit", "-q", "-am", "change a")
    (repo / "b.txt").write_bytes(b"one\nTWO\nthree\nfour\nfive\nsix\nseven\n")
    (repo / "a.txt").chmod(0o755)
    git_cases.git(repo, "add", "-A")
    git_cases.git(repo, "commit", "-q", "-m", "copy a")
    git_cases.git(repo, "tag", "target")
    data = git_cases.git(
        repo, "log", "-p", "--reverse", "-C", "--find-copies-harder", "base..target"
    )
    parsed = parse_diff(data)
    statuses = [(f.commit, f.status, f.path) for f in parsed.files]
    assert (1, FileStatus.COPIED, "b.txt") in statuses
    for max_lines in (4, 10, 1000):
        chunks = chunk_files(parsed, parsed.files, max_lines=max_lines)
        order = [p.file_index for c in chunks for p in c.parts]
        assert order[0] == 0  # commit 1's change of a.txt stays first
        texts = [render_chunk(parsed, c) for c in chunks]
        git_cases._apply_in_order(repo, tmp_path / "index", texts, False, f"max_lines={max_lines}")


def test_stream_chunk_does_not_hold_a_change_and_a_later_move_or_delete_of_it(
    tmp_path: Path,
) -> None:
    """One ``git apply`` reads moves from the tree before it and keeps changed-then-deleted files.

    The fixture's second commit renames ``k`` and ``z`` and deletes ``x``,
    all changed by the first; chunks applied in order must still give the
    tree that applying the commits one by one gives.
    """
    data = _fixture("stream-change-then-move-or-delete.txt")
    repo = tmp_path / "repo"
    repo.mkdir()
    git_cases.git(repo, "init", "-q")
    for name, text in (("x", b"a\nb\nc\nd\ne\n"), ("k", b"k1\nk2\nk3\nk4\nk5\n")):
        (repo / name).write_bytes(text)
    (repo / "y").write_bytes(b"y1\ny2\ny3\ny4\ny5\n")
    git_cases.git(repo, "add", "-A")
    git_cases.git(repo, "commit", "-q", "-m", "base")
    git_cases.git(repo, "tag", "base")
    parsed = parse_diff(data)
    starts = [parsed.segments[c.segment].start for c in parsed.commits]
    assert len(starts) == 2
    for start, end in zip(starts, [*starts[1:], len(data)], strict=True):
        git_cases.git(repo, "apply", "--index", "-", stdin=data[start:end])
        git_cases.git(repo, "commit", "-q", "-m", "step")
    git_cases.git(repo, "tag", "target")
    for max_lines in (1000, 30, 12):
        chunks = chunk_files(parsed, parsed.files, max_lines=max_lines)
        texts = [render_chunk(parsed, c) for c in chunks]
        git_cases._apply_in_order(repo, tmp_path / "index", texts, False, f"max_lines={max_lines}")
