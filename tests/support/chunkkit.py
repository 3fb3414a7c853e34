"""Helpers of the chunker tests (``tests/test_chunker_*.py``): repositories with a
``base`` and a ``target`` commit, and the checks every chunking must pass.

The invariant: for ``git diff --binary base target``, applying every chunk's
text with ``git apply`` on the base tree, one after the other, gives the
target tree exactly, and ``git apply`` accepts each chunk on the tree the chunks
before it left (it checks the whole chunk before it writes a byte, as ``--check``
does, and fails without writing when any of it does not apply: one process a chunk).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from gitrepo import git_bytes as git

from diffchunk.diff.chunker import chunk_files, render_chunk
from diffchunk.diff.model import Chunk, ParsedDiff
from diffchunk.diff.parser import parse_diff

Change = Callable[[Path], None]


def make_repo(tmp_path: Path, base: dict[str, bytes], change: Change) -> Path:
    """A repository with commits ``base`` and ``target`` (``change`` applied to base)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    for name, content in base.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "base")
    git(repo, "tag", "base")
    change(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "target")
    git(repo, "tag", "target")
    return repo


def diff_of(repo: Path, *extra: str) -> bytes:
    return git(repo, "diff", "--binary", *extra, "base", "target")


def check_chunks(
    chunks: tuple[Chunk, ...], parsed: ParsedDiff, max_lines: int, max_tokens: int
) -> None:
    """Counts match the rendered text, and budgets hold unless flagged oversized."""
    for number, chunk in enumerate(chunks, start=1):
        text = render_chunk(parsed, chunk)
        assert chunk.number == number
        assert chunk.char_count == len(text)
        lines = text.count(b"\n") + (0 if text.endswith(b"\n") else 1)
        assert chunk.line_count == lines
        assert sum(p.lines for p in chunk.parts) == lines
        within = lines <= max_lines and len(text) <= max_tokens * 4
        assert within or chunk.oversized, (number, lines, len(text))
        if chunk.parent_file is not None:
            assert len(chunk.parts) == 1
            assert chunk.sub_chunk_index == chunk.parts[0].part


def assert_applies_in_order(
    tmp_path: Path,
    repo: Path,
    data: bytes,
    *,
    max_lines: int,
    max_tokens: int = 20_000,
    expect_split: bool = True,
) -> tuple[Chunk, ...]:
    parsed = parse_diff(data)
    chunks = chunk_files(parsed, parsed.files, max_lines=max_lines, max_tokens=max_tokens)
    check_chunks(chunks, parsed, max_lines, max_tokens)
    if expect_split:
        assert any(c.parent_file for c in chunks), "the test should split a file"
    covered = {p.file_index for c in chunks for p in c.parts}
    assert covered == {f.index for f in parsed.files}
    work = tmp_path / "work"
    git(repo, "worktree", "add", "-q", "--detach", str(work), "base")
    for chunk in chunks:
        patch = tmp_path / f"chunk{chunk.number}.diff"
        patch.write_bytes(render_chunk(parsed, chunk))
        git(work, "apply", str(patch))
    git(work, "add", "-A")
    tree = git(work, "write-tree").strip()
    assert tree == git(repo, "rev-parse", "target^{tree}").strip()
    return chunks


def lines_of(count: int, tag: str = "line", *, seed: int = 0) -> bytes:
    rng = random.Random(seed)
    return b"".join(f"{tag} {i} {rng.randrange(10**6)}\n".encode() for i in range(count))


def write(repo: Path, name: str, content: bytes) -> None:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
