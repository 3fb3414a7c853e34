"""Chunker: other diff kinds (commit streams, combined diffs, plain unified diffs) and
the real corpus's speed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from chunkkit import assert_applies_in_order, check_chunks, lines_of, write
from gitrepo import git_bytes as git
from gitrepo import git_environment
from test_data import CORPUS
from timing import Stopwatch

from diffchunk.diff.chunker import chunk_files, render_chunk
from diffchunk.diff.model import DiffKind
from diffchunk.diff.parser import parse_diff


def _corpus(name: str) -> bytes:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"corpus file {name} is not available")
    return path.read_bytes()


def test_multi_commit_stream_keeps_every_commit_message_once() -> None:
    data = _corpus("flask_log-p_3.1.2..3.1.3.txt")
    parsed = parse_diff(data)
    chunks = chunk_files(parsed, parsed.files, max_lines=200)
    check_chunks(chunks, parsed, 200, 20_000)
    text = b"".join(render_chunk(parsed, c) for c in chunks)
    committed = {f.commit for f in parsed.files if f.commit is not None}
    for commit in parsed.commits:
        header = parsed.raw(parsed.segments[commit.segment])
        assert text.count(header) == (1 if commit.index in committed else 0)


def test_combined_diff_is_chunked_at_hunk_boundaries(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    base = lines_of(300, "c").splitlines(keepends=True)
    write(repo, "m.txt", b"".join(base))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    spots = (10, 150, 290)

    def edit(tag: bytes) -> bytes:
        rows = list(base)
        for k in spots:
            rows[k - 3 : k + 3] = [tag + b" %d\n" % j for j in range(6)]
        return b"".join(rows)

    git(repo, "checkout", "-q", "-b", "side")
    write(repo, "m.txt", edit(b"side"))
    git(repo, "commit", "-q", "-am", "side")
    git(repo, "checkout", "-q", "main")
    write(repo, "m.txt", edit(b"main"))
    git(repo, "commit", "-q", "-am", "main")
    subprocess.run(
        ["git", "-C", str(repo), "merge", "-q", "side"], env=git_environment(), capture_output=True
    )
    write(repo, "m.txt", edit(b"merged"))
    git(repo, "commit", "-q", "-am", "merge")
    data = git(repo, "show", "--cc", "HEAD")
    parsed = parse_diff(data)
    (fd,) = parsed.files
    assert fd.kind is DiffKind.COMBINED and len(fd.hunks) == 3
    chunks = chunk_files(parsed, parsed.files, max_lines=30)
    check_chunks(chunks, parsed, 30, 20_000)
    assert [c.sub_chunk_index for c in chunks] == [1, 2, 3]
    header = parsed.data[fd.start : fd.header_end]
    texts = [render_chunk(parsed, c) for c in chunks]
    for text, hunk in zip(texts, fd.hunks, strict=True):
        # Each part repeats the header and holds one hunk unchanged.
        assert text.endswith(header + parsed.raw(hunk))
        again = parse_diff(text)
        assert again.files[-1].kind is DiffKind.COMBINED and not again.files[-1].malformed
    assert texts[0].startswith(parsed.raw(parsed.segments[0]))  # the merge's message


def test_corpus_diff_chunks_fast_and_covers_every_file() -> None:
    data = _corpus("sqlalchemy_rel_1_4_0..rel_1_4_54.diff")
    parsed = parse_diff(data)
    watch = Stopwatch()
    chunks = chunk_files(parsed, parsed.files)
    elapsed = watch.elapsed()
    assert elapsed.within(0.5), str(elapsed)
    check_chunks(chunks, parsed, 1000, 20_000)
    assert {p.file_index for c in chunks for p in c.parts} == {f.index for f in parsed.files}
    whole = [c for c in chunks if c.parent_file is None]
    assert all(c.line_count <= 800 or len(c.parts) == 1 for c in whole)


def test_log_stream_of_several_commits_applies_in_order(tmp_path: Path) -> None:
    base = lines_of(150, "s")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, "s.txt", base)
    write(repo, "t.txt", b"t\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "tag", "base")
    rows = base.splitlines(keepends=True)
    for step in range(4):
        for k in range(step, 150, 6):
            rows[k] = b"step %d %s" % (step, rows[k])
        write(repo, "s.txt", b"".join(rows))
        write(repo, "t.txt", b"t %d\n" % step)
        git(repo, "commit", "-q", "-am", f"step {step}\n\nmessage body {step}")
    git(repo, "tag", "target")
    data = git(repo, "log", "-p", "--reverse", "base..target")
    chunks = assert_applies_in_order(tmp_path, repo, data, max_lines=40)
    parsed = parse_diff(data)
    text = b"".join(render_chunk(parsed, c) for c in chunks)
    for step in range(4):
        assert text.count(b"message body %d" % step) == 1


def test_plain_unified_diff_is_split_and_applies(tmp_path: Path) -> None:
    if shutil.which("diff") is None:
        pytest.skip("no diff program")
    old, new = tmp_path / "a", tmp_path / "b"
    old.mkdir()
    new.mkdir()
    (old / "mod.txt").write_bytes(lines_of(300, "m"))
    (new / "mod.txt").write_bytes(lines_of(300, "m").replace(b"m 1", b"M 1"))
    (new / "new.txt").write_bytes(lines_of(200, "n"))
    (old / "gone.txt").write_bytes(lines_of(150, "g"))
    done = subprocess.run(
        ["diff", "-ruN", "a", "b"], cwd=tmp_path, capture_output=True, check=False
    )
    parsed = parse_diff(done.stdout)
    assert {f.kind for f in parsed.files} == {DiffKind.UNIFIED}
    chunks = chunk_files(parsed, parsed.files, max_lines=40)
    check_chunks(chunks, parsed, 40, 20_000)
    assert sum(1 for c in chunks if c.parent_file) > 10
    work = tmp_path / "work"
    shutil.copytree(old, work)
    git(work, "init", "-q")
    for chunk in chunks:
        patch = tmp_path / "chunk.diff"
        patch.write_bytes(render_chunk(parsed, chunk))
        git(work, "apply", "--check", str(patch))
        git(work, "apply", str(patch))
    shutil.rmtree(work / ".git")
    assert sorted(p.name for p in work.iterdir()) == sorted(p.name for p in new.iterdir())
    for path in new.iterdir():
        assert (work / path.name).read_bytes() == path.read_bytes()
