"""The streamed parse (``StreamParser``) gives exactly what ``parse_diff`` gives,
wherever the input is cut into blocks."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_data import CORPUS, ROOT

from diffchunk.diff.buffer import DiffBuffer
from diffchunk.diff.model import LazyHunks, ParsedDiff
from diffchunk.diff.options import LoadOptions
from diffchunk.diff.parser import StreamParser, parse_diff
from diffchunk.errors import GitError, NotADiffError
from diffchunk.git import diffwrite
from diffchunk.git.runner import GitCommand
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore, read_file
from diffchunk.review.tools import diff_tools

FIXTURES = ROOT / "fixtures"


def _fixtures() -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.is_file())


def _corpus() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(
        p for p in CORPUS.iterdir() if p.is_file() and p.suffix in (".diff", ".mbox", ".txt")
    )


def _blocks(data: bytes, size: int) -> Iterator[bytes]:
    for at in range(0, len(data), size):
        yield data[at : at + size]


def _random_blocks(data: bytes, seed: int, cuts: int) -> Iterator[bytes]:
    rng = random.Random(seed)
    points = sorted(rng.randrange(len(data) + 1) for _ in range(cuts))
    last = 0
    for point in [*points, len(data)]:
        yield data[last:point]
        last = point


def _stream(
    blocks: Iterator[bytes], min_step: int, growing: bool = False
) -> tuple[ParsedDiff, int]:
    """The stream parse of ``blocks``; ``growing``: written to a file as git writes
    its diff, the parser reading a mapping of the file (never a copy of it)."""
    if not growing:
        sp = StreamParser(min_step=min_step)
        for block in blocks:
            sp.feed(block)
        return sp.finish(), sp.streamed
    with tempfile.TemporaryFile() as fh:
        sp = StreamParser(min_step=min_step, growing=fh.fileno())
        for block in blocks:
            os.write(fh.fileno(), block)
            sp.feed(block)
        return sp.finish(), sp.streamed


def assert_same(got: ParsedDiff, want: ParsedDiff) -> None:
    assert type(got.data) in (bytes, DiffBuffer)  # never the growing bytearray
    assert got.data == want.data
    assert got.segments == want.segments
    assert got.commits == want.commits
    assert got.warnings == want.warnings
    assert len(got.files) == len(want.files)
    for g, w in zip(got.files, want.files, strict=True):
        for field in dataclasses.fields(w):
            if field.name == "hunks":
                continue
            gv, wv = getattr(g, field.name), getattr(w, field.name)
            assert gv == wv, (w.index, field.name)
            assert type(gv) is type(wv), (w.index, field.name)
        assert type(g.hunks) is type(w.hunks)
        assert len(g.hunks) == len(w.hunks)
        if isinstance(g.hunks, LazyHunks):
            assert g.hunks.data is got.data  # never a partial snapshot
            assert isinstance(w.hunks, LazyHunks)
            assert (g.hunks.start, g.hunks.end) == (w.hunks.start, w.hunks.end)
        assert tuple(g.hunks) == tuple(w.hunks)


@pytest.mark.parametrize("path", _fixtures(), ids=lambda p: p.name)
def test_stream_parse_matches_whole_parse_for_every_fixture_and_block_size(path: Path) -> None:
    data = path.read_bytes()
    try:
        want = parse_diff(data)
    except NotADiffError:
        with pytest.raises(NotADiffError):
            _stream(_blocks(data, 7), 1)
        return
    sizes = sorted({1, 2, 3, 5, 11, 64, 100, 1000, 4096, max(len(data), 1)})
    for size in sizes:
        for min_step in (1, 200, 1 << 20):
            for growing in (False, True):
                got, _ = _stream(_blocks(data, size), min_step, growing)
                assert_same(got, want)
    for seed in range(20):
        got, _ = _stream(_random_blocks(data, seed, 1 + seed % 9), 1, growing=seed % 2 == 1)
        assert_same(got, want)


@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name)
def test_stream_parse_matches_whole_parse_for_the_corpus(path: Path) -> None:
    data = path.read_bytes()
    want = parse_diff(data)
    streamed_any = 0
    for size, min_step, growing in (
        (4093, 1, False),
        (65536, 1 << 16, False),
        (1 << 20, 1 << 20, False),
        (777_777, 1, False),
        (4093, 1, True),
        (65536, 1 << 16, True),
    ):
        got, streamed = _stream(_blocks(data, size), min_step, growing)
        assert_same(got, want)
        streamed_any = max(streamed_any, streamed)
    for seed in range(4):
        got, _ = _stream(_random_blocks(data, seed, 40), 1)
        assert_same(got, want)
    if data.startswith(b"diff --git ") and len(data) > 1 << 17:
        # a plain git diff is really parsed while it arrives, not all at the end
        assert streamed_any > len(data) // 2


def test_stream_parse_of_a_growing_file_falls_back_to_a_copy_without_mappings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import diffchunk.diff.parser.stream as stream_module

    def unmappable(*args: object, **kwargs: object) -> DiffBuffer:
        raise OSError("mmap not supported")

    data = (FIXTURES / "log_p.txt").read_bytes()
    monkeypatch.setattr(stream_module, "map_file", unmappable)
    for size in (1, 100, 4096):
        got, _ = _stream(_blocks(data, size), 1, growing=True)
        assert_same(got, parse_diff(data))


def test_stream_parse_of_nothing_and_of_text_behaves_like_parse_diff() -> None:
    got, _ = _stream(iter(()), 1)
    assert got.files == () and got.data == b""
    with pytest.raises(NotADiffError):
        _stream(_blocks(b"hello\nworld\n" * 50, 3), 1)


def test_stream_parse_leaves_a_section_reaching_past_the_cut_to_the_end() -> None:
    # A binary payload without its closing blank line swallows the next header:
    # the streamed parse must not stop it at that header.
    text = (
        b"diff --git a/x.bin b/x.bin\nindex 1..2 100644\nGIT binary patch\nliteral 3\n"
        b"abcdef\ndiff --git a/y b/y\nindex 1..2 100644\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n"
        b"\ndiff --git a/z b/z\nindex 1..2 100644\n--- a/z\n+++ b/z\n@@ -1 +1 @@\n-a\n+b\n"
    )
    want = parse_diff(text)
    for size in range(1, len(text) + 1):
        got, _ = _stream(_blocks(text, size), 1)
        assert_same(got, want)


# ----------------------------------------------------------- the git review path


@pytest.fixture
def stream_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose diff spans many small stream blocks (renames, binary, attributes)."""
    from gitrepo import commit, git, init_repo, settle_file_times

    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(diffwrite, "GIT_STREAM_BLOCK", 4096)  # many blocks even for a small diff
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    repo = init_repo(tmp_path / "repo")
    first = {f"src/m{i:03d}.py": "".join(f"v{j} = {j}\n" for j in range(40)) for i in range(120)}
    first[".gitattributes"] = "src/m007.py linguist-generated\nsrc/gen/** -diff\n"
    first["old_name.txt"] = "".join(f"line {j}\n" for j in range(30))
    first["gone.txt"] = "bye\n"
    commit(repo, first)
    second = {
        f"src/m{i:03d}.py": f"# {i}\n" + "".join(f"v{j} = {j * (i % 3 + 1)}\n" for j in range(40))
        for i in range(120)
    }
    second["src/gen/table.py"] = "T = 1\n"
    second["zz_last.txt"] = "".join(f"tail {j}\n" for j in range(50))
    second["dir with space/na\u00efve\tname.txt"] = "quoted\n"  # a quoted diff --git line
    second["src/m050 b/x.py"] = "spaces and a b/ inside\n"
    (repo / "gone.txt").unlink()
    git(repo, "mv", "old_name.txt", "new_name.txt")
    (repo / "blob.bin").write_bytes(bytes(range(256)) * 4)
    commit(repo, second)
    settle_file_times()
    return repo


def _chunks(path: str, store: SessionStore) -> list[str]:
    listing = diff_tools.list_chunks(path, store=store, max_tokens=None).to_dict()
    return [
        diff_tools.get_chunk(path, n, store=store) for n in range(1, len(listing["chunks"]) + 1)
    ]


def test_streamed_review_is_adopted_without_rereading_and_matches_a_fresh_load(
    stream_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []

    def reader(path: str) -> tuple[bytes, tuple[int, int, int, int, int]]:
        reads.append(path)
        return read_file(path)

    fed: list[int] = []
    real_feed = StreamParser.feed

    def feed(self: StreamParser, block: bytes) -> None:
        fed.append(len(block))
        real_feed(self, block)

    monkeypatch.setattr(StreamParser, "feed", feed)
    monkeypatch.setenv("DIFFCHUNK_MAP_BYTES", "1")  # mapped as a large diff is
    store = SessionStore(reader=reader)
    summary = load_git_diff(str(stream_repo), "main~1..main", store=store).to_dict()
    path = summary["file_path"]
    assert summary["cached"] is False
    assert len(fed) > 5, "the diff was parsed in blocks while git wrote it"
    assert reads == [], "the adopted session must not read the cached file again"
    session = store.peek(path)
    assert session is not None
    data = Path(path).read_bytes()
    assert session.digest == hashlib.sha256(data).hexdigest()
    # The review refers to the cache entry's pages, not to a copy of what was read.
    assert isinstance(session.review.parsed.data, DiffBuffer)
    assert session.review.parsed.data.digest == session.digest
    assert_same(session.review.parsed, parse_diff(data))
    excluded = {e["path"]: e["reason"] for e in summary["excluded"]}
    assert excluded.get("src/m007.py") == "generated"  # by the repository's attributes

    fresh = SessionStore()
    again = diff_tools.load_diff(path, store=fresh).to_dict()
    assert {k: v for k, v in summary.items() if k in again} == again
    assert _chunks(path, store) == _chunks(path, fresh)
    assert (
        diff_tools.list_chunks(path, store=store, max_tokens=None).to_dict()
        == diff_tools.list_chunks(path, store=fresh, max_tokens=None).to_dict()
    )
    assert reads == []
    assert list(Path(tempfile.gettempdir()).iterdir()) == []  # the attribute index is gone


@pytest.mark.parametrize("context_lines", [0, 1])
def test_streamed_review_with_reduced_context_is_adopted_too(
    stream_repo: Path, context_lines: int
) -> None:
    reads: list[str] = []

    def reader(path: str) -> tuple[bytes, tuple[int, int, int, int, int]]:
        reads.append(path)
        return read_file(path)

    store = SessionStore(reader=reader)
    summary = load_git_diff(
        str(stream_repo),
        "main~1..main",
        options=LoadOptions(context_lines=context_lines, include_patterns="src/**"),
        store=store,
    ).to_dict()
    assert reads == []
    path = summary["file_path"]
    fresh = SessionStore()
    again = diff_tools.load_diff(
        path,
        options=LoadOptions(context_lines=context_lines, include_patterns="src/**"),
        store=fresh,
    ).to_dict()
    assert again["chunks"] == summary["chunks"] and again["files"] == summary["files"]
    assert _chunks(path, store) == _chunks(path, fresh)


def test_repeat_review_reuses_the_cached_diff_without_git_diff(
    stream_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = load_git_diff(str(stream_repo), "main~1..main", store=SessionStore()).to_dict()
    runs: list[str] = []
    # Every git diff starts here.
    monkeypatch.setattr(GitCommand, "start_into", lambda *a, **k: runs.append("start_into"))
    store = SessionStore()
    second = load_git_diff(str(stream_repo), "main~1..main", store=store).to_dict()
    assert runs == [] and second["cached"] is True
    assert {**first, "cached": True} == second
    assert _chunks(first["file_path"], store) == _chunks(first["file_path"], SessionStore())


def test_git_failing_mid_stream_leaves_no_cache_entry_and_no_session(
    stream_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gitrepo import git

    # A late file's new blob is missing: git diff dies after writing the others.
    blob = git(stream_repo, "rev-parse", "main:src/m119.py")
    (stream_repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    fed: list[int] = []
    real_feed = StreamParser.feed

    def feed(self: StreamParser, block: bytes) -> None:
        fed.append(len(block))
        real_feed(self, block)

    monkeypatch.setattr(StreamParser, "feed", feed)
    store = SessionStore()
    with pytest.raises(GitError, match="git diff failed") as info:
        load_git_diff(str(stream_repo), "main~1..main", store=store).to_dict()
    assert blob[:7] in str(info.value) or "unable to read" in str(info.value)
    assert sum(fed) > 4096, "git failed after some of its output was parsed"
    cache = Path(os.environ["DIFFCHUNK_CACHE_DIR"])
    assert [p.name for p in cache.iterdir() if p.name.endswith(".diff")] == []
    assert [p.name for p in cache.iterdir() if p.name.startswith(".tmp-")] == []
    assert store.sessions() == []
    assert list(Path(tempfile.gettempdir()).iterdir()) == []


def test_git_stream_hands_over_everything_git_writes_in_bounded_blocks(
    stream_repo: Path,
) -> None:
    from diffchunk.git.repo import discover

    repo = discover(str(stream_repo))
    blocks: list[bytes] = []
    with tempfile.TemporaryFile() as out:
        stream = repo.git.start_into(
            ["diff", *diffwrite.DIFF_OPTIONS, "main~1", "main"], out.fileno(), block_size=3000
        )
        blocks.extend(stream.blocks())
        out.seek(0)
        written = out.read()
    assert len(written) > 20 * 3000 and b"".join(blocks) == written
    assert max(len(b) for b in blocks) == 3000 and min(len(b) for b in blocks) > 0


def test_git_stream_reads_what_git_wrote_after_it_was_last_caught_up(
    stream_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Caught up (nothing new to read), then git writes the rest and exits
    # before it is asked whether it still runs: the rest is read all the same.
    from diffchunk.git.repo import discover

    repo = discover(str(stream_repo))
    real_pread = os.pread
    first = [True]

    def pread(fd: int, n: int, offset: int) -> bytes:
        if first[0]:
            first[0] = False
            return b""
        return real_pread(fd, n, offset)

    blocks: list[bytes] = []
    with tempfile.TemporaryFile() as out:
        stream = repo.git.start_into(
            ["diff", *diffwrite.DIFF_OPTIONS, "main~1", "main"], out.fileno()
        )
        proc = stream._proc
        monkeypatch.setattr(proc, "poll", proc.wait)  # "still running?" once it has ended
        monkeypatch.setattr(os, "pread", pread)
        blocks.extend(stream.blocks())
        monkeypatch.undo()
        out.seek(0)
        written = out.read()
    assert written and b"".join(blocks) == written


def test_a_failing_consumer_stops_git_and_propagates(stream_repo: Path) -> None:
    from diffchunk.git.repo import discover

    repo = discover(str(stream_repo))
    seen: list[int] = []

    def consume(block: bytes) -> None:
        seen.append(len(block))
        raise RuntimeError("stop")

    with tempfile.TemporaryFile() as out:
        stream = repo.git.start_into(
            ["diff", *diffwrite.DIFF_OPTIONS, "main~1", "main"], out.fileno(), block_size=1024
        )
        with pytest.raises(RuntimeError, match="stop"):
            for block in stream.blocks():
                consume(block)
        assert stream._proc.returncode is not None  # waited for
    assert seen == [1024]


def test_streamed_check_attr_answers_like_one_check_attr_batch(stream_repo: Path) -> None:
    from gitrepo import git

    from diffchunk.diff.attributes import WANTED
    from diffchunk.git.attributes import CheckAttrSource, CommitIndex, StreamedCheckAttr
    from diffchunk.git.repo import discover

    repo = discover(str(stream_repo))
    head = git(stream_repo, "rev-parse", "main")
    paths = [
        "src/m007.py",
        "src/gen/table.py",
        "src/m001.py",
        "dir with space/na\u00efve\tname.txt",
    ]
    asked = [*paths, "nope/x.py", "never/added.py"]
    want = CheckAttrSource(repo, head, attributes=WANTED).lookup(asked)
    assert want["src/m007.py"] == {"linguist-generated": True}
    assert want["src/gen/table.py"] == {"diff": False}
    streamed = StreamedCheckAttr(repo, head, attributes=WANTED, prepared=CommitIndex(repo, head))
    try:
        streamed.add(paths[:2])
        streamed.add([*paths[2:], "nope/x.py", ""])
        assert streamed.lookup(asked) == want  # "never/added.py" is asked separately
    finally:
        streamed.close()

    missing = "0" * 40  # read-tree fails: add() never raises, lookup() reports it
    broken = StreamedCheckAttr(
        repo, missing, attributes=WANTED, prepared=CommitIndex(repo, missing)
    )
    try:
        broken.add(["a.txt"])
        with pytest.raises(GitError, match="read-tree"):
            broken.lookup(["a.txt"])
    finally:
        broken.close()
    assert list(Path(tempfile.gettempdir()).iterdir()) == []
