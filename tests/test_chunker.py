"""Chunker: budgets, split files and hunks, and the apply-in-order invariant.

The invariant: for ``git diff --binary base target``, applying every chunk's
text with ``git apply`` on the base tree, one after the other, gives the
target tree exactly, and ``git apply --check`` accepts each chunk on the tree
the chunks before it left.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from gitrepo import git_bytes as git
from gitrepo import git_environment
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diffchunk.diff.chunker import chunk_files, render_chunk
from diffchunk.diff.model import (
    Chunk,
    DiffKind,
    FileDiff,
    FileStatus,
    Hunk,
    ParsedDiff,
    Segment,
    SegmentKind,
)
from diffchunk.diff.parser import parse_diff
from diffchunk.errors import InvalidArgument

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


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
        git(work, "apply", "--check", str(patch))
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


# --------------------------------------------------------------------------
# Hand-built diffs (no git needed)
# --------------------------------------------------------------------------


def _hand_diff(files: list[tuple[str, int]]) -> ParsedDiff:
    """A ParsedDiff of small modified files, built without the parser."""
    out = bytearray()
    fds: list[FileDiff] = []
    for index, (name, changed) in enumerate(files):
        start = len(out)
        out += f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n".encode()
        header_end = len(out)
        body = b" ctx\n" + b"-old\n" * changed + b"+new\n" * changed + b" ctx\n"
        header = f"@@ -1,{changed + 2} +1,{changed + 2} @@\n".encode()
        hunk = Hunk(
            start=header_end,
            body_start=header_end + len(header),
            end=header_end + len(header) + len(body),
            old_start=1,
            old_count=changed + 2,
            new_start=1,
            new_count=changed + 2,
            added=changed,
            removed=changed,
        )
        out += header + body
        fds.append(
            FileDiff(
                index=index,
                start=start,
                header_end=header_end,
                end=len(out),
                kind=DiffKind.GIT,
                status=FileStatus.MODIFIED,
                old_path=name,
                new_path=name,
                hunks=(hunk,),
                added=changed,
                removed=changed,
                old_token=f"a/{name}".encode(),
                new_token=f"b/{name}".encode(),
            )
        )
    return ParsedDiff(data=bytes(out), files=tuple(fds), segments=())


def test_small_files_pack_in_diff_order_up_to_80_percent() -> None:
    parsed = _hand_diff([(f"f{i}.txt", 2) for i in range(10)])  # 10 lines each
    chunks = chunk_files(parsed, parsed.files, max_lines=30)
    check_chunks(chunks, parsed, 30, 20_000)
    # 80% of 30 is 24 lines: two 10-line files per chunk.
    assert [c.files for c in chunks] == [[f"f{i}.txt", f"f{i + 1}.txt"] for i in range(0, 10, 2)]
    assert all(c.line_count == 20 and not c.oversized for c in chunks)
    assert b"".join(render_chunk(parsed, c) for c in chunks) == parsed.data
    # Whole files are spans of the input, never copies.
    assert all(isinstance(p, tuple) for c in chunks for part in c.parts for p in part.pieces)


def test_file_between_target_and_budget_stays_whole() -> None:
    parsed = _hand_diff([("a.txt", 1), ("big.txt", 12), ("c.txt", 1)])  # 8, 30, 8 lines
    chunks = chunk_files(parsed, parsed.files, max_lines=30)
    assert [c.files for c in chunks] == [["a.txt"], ["big.txt"], ["c.txt"]]
    assert chunks[1].line_count == 30 and not chunks[1].oversized
    assert chunks[1].parent_file is None


def test_token_budget_also_bounds_chunks() -> None:
    parsed = _hand_diff([(f"f{i}.txt", 2) for i in range(6)])  # 9 lines, ~70 bytes each
    chunks = chunk_files(parsed, parsed.files, max_lines=1000, max_tokens=40)  # 160 bytes
    check_chunks(chunks, parsed, 1000, 40)
    assert len(chunks) == 6
    assert all(c.char_count <= 128 for c in chunks)


def test_subset_of_files_is_chunked_alone() -> None:
    parsed = _hand_diff([(f"f{i}.txt", 1) for i in range(5)])
    kept = [parsed.files[1], parsed.files[3]]
    chunks = chunk_files(parsed, kept)
    assert [c.files for c in chunks] == [["f1.txt", "f3.txt"]]
    assert render_chunk(parsed, chunks[0]) == parsed.raw(kept[0]) + parsed.raw(kept[1])


def test_empty_file_list_gives_no_chunks() -> None:
    parsed = _hand_diff([("a", 1)])
    assert chunk_files(parsed, []) == ()


@pytest.mark.parametrize("bad", [0, -5, True, 2.5])
def test_bad_budgets_are_refused(bad: object) -> None:
    parsed = _hand_diff([("a", 1)])
    with pytest.raises(InvalidArgument, match="max_lines"):
        chunk_files(parsed, parsed.files, max_lines=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="max_tokens"):
        chunk_files(parsed, parsed.files, max_tokens=bad)  # type: ignore[arg-type]


def test_commit_message_goes_before_the_first_file_of_its_commit() -> None:
    base = _hand_diff([("a.txt", 1), ("b.txt", 1)])
    msg = b"commit 1234\nAuthor: t <t@t>\n\n    Fix things\n\n"
    data = msg + base.data
    n = len(msg)
    files = tuple(
        FileDiff(
            index=f.index,
            start=f.start + n,
            header_end=f.header_end + n,
            end=f.end + n,
            kind=f.kind,
            status=f.status,
            old_path=f.old_path,
            new_path=f.new_path,
            hunks=tuple(
                Hunk(
                    h.start + n,
                    h.body_start + n,
                    h.end + n,
                    h.old_start,
                    h.old_count,
                    h.new_start,
                    h.new_count,
                    h.added,
                    h.removed,
                )
                for h in f.hunks
            ),
            commit=0,
            old_token=f.old_token,
            new_token=f.new_token,
        )
        for f in base.files
    )
    from diffchunk.diff.model import Commit

    parsed = ParsedDiff(
        data=data,
        files=files,
        segments=(Segment(0, n, SegmentKind.COMMIT, commit=0),),
        commits=(Commit(0, "1234", "Fix things", 0),),
    )
    chunks = chunk_files(parsed, parsed.files, max_lines=8)
    texts = [render_chunk(parsed, c) for c in chunks]
    assert texts[0].startswith(msg)
    assert sum(t.count(b"Fix things") for t in texts) == 1
    # Only the second file kept: the message moves with it.
    (only,) = chunk_files(parsed, [parsed.files[1]])
    assert render_chunk(parsed, only) == msg + parsed.raw(parsed.files[1])


# --------------------------------------------------------------------------
# Real repositories: the apply-in-order invariant
# --------------------------------------------------------------------------


@pytest.mark.parametrize("max_lines", [20, 45])
def test_big_new_file_is_split_and_applies(tmp_path: Path, max_lines: int) -> None:
    repo = make_repo(
        tmp_path,
        {"keep.txt": b"x\n"},
        lambda r: write(r, "src/new.py", lines_of(300, "new")),
    )
    chunks = assert_applies_in_order(tmp_path, repo, diff_of(repo), max_lines=max_lines)
    split = [c for c in chunks if c.parent_file == "src/new.py"]
    assert [c.sub_chunk_index for c in split] == list(range(1, len(split) + 1))
    assert all(c.parts[0].parts == len(split) for c in split)
    parsed = parse_diff(diff_of(repo))
    first, second = (render_chunk(parsed, c) for c in split[:2])
    assert b"new file mode" in first and b"new file mode" not in second
    assert b"--- a/src/new.py\n+++ b/src/new.py\n" in second


def test_big_deleted_file_without_final_newline_is_split_and_applies(tmp_path: Path) -> None:
    content = lines_of(250, "old").rstrip(b"\n")
    repo = make_repo(
        tmp_path, {"gone.txt": content, "other.txt": b"a\n"}, lambda r: (r / "gone.txt").unlink()
    )
    data = diff_of(repo)
    chunks = assert_applies_in_order(tmp_path, repo, data, max_lines=30)
    parsed = parse_diff(data)
    split = [render_chunk(parsed, c) for c in chunks if c.parent_file == "gone.txt"]
    assert b"deleted file mode" in split[-1]
    assert all(b"deleted file mode" not in t for t in split[:-1])
    assert re.search(rb"@@ -1,\d+ \+0,0 @@", split[-1])
    assert split[-1].endswith(b"\\ No newline at end of file\n")


def test_rename_with_big_edit_is_split_and_applies(tmp_path: Path) -> None:
    old = lines_of(400, "r")

    def change(r: Path) -> None:
        (r / "old name.txt").unlink()
        rows = old.splitlines(keepends=True)
        for k in range(0, 400, 7):
            rows[k] = b"changed " + rows[k]
        write(r, "dir/new name.txt", b"".join(rows))

    repo = make_repo(tmp_path, {"old name.txt": old}, change)
    data = diff_of(repo, "-M50%")
    assert b"rename from" in data
    chunks = assert_applies_in_order(tmp_path, repo, data, max_lines=40)
    parsed = parse_diff(data)
    texts = [render_chunk(parsed, c) for c in chunks]
    assert b"rename from old name.txt" in texts[0]
    assert all(b'"a/dir/new name.txt"' not in t for t in texts)
    assert b"--- a/dir/new name.txt\n" in texts[1]


def test_copy_with_edits_is_split_and_applies(tmp_path: Path) -> None:
    src = lines_of(200, "c")

    def change(r: Path) -> None:
        rows = src.splitlines(keepends=True)
        for k in range(3, 200, 9):
            rows[k] = b"edited\n"
        write(r, "copy.txt", b"".join(rows))
        write(r, "src.txt", src + b"tail\n")

    repo = make_repo(tmp_path, {"src.txt": src}, change)
    data = diff_of(repo, "-C", "-C")
    assert b"copy from src.txt" in data
    assert_applies_in_order(tmp_path, repo, data, max_lines=25)


@pytest.mark.parametrize("becomes", ["file", "symlink", "file, files renamed away"])
def test_a_directory_replaced_by_a_file_applies_in_chunks(tmp_path: Path, becomes: str) -> None:
    # git lists the new `docs` before the removal of `docs/*` (path order): a
    # chunk creating `docs` while docs/* still exist would not apply.
    pages = {f"docs/page{k}.md": lines_of(60, f"p{k}") for k in range(3)}

    def change(r: Path) -> None:
        for name in pages:
            if becomes.endswith("renamed away"):
                write(r, "site/" + name.split("/")[1], (r / name).read_bytes() + b"more\n")
            (r / name).unlink()
        (r / "docs").rmdir()
        if becomes == "symlink":
            os.symlink("site/docs", r / "docs")
        else:
            write(r, "docs", b"now a file\n")

    repo = make_repo(tmp_path, pages, change)
    data = diff_of(repo, "-M50%")
    first = data.index(b"diff --git a/docs b/docs")
    assert first < data.index(b"diff --git a/docs/page0.md")  # the order git gives
    chunks = assert_applies_in_order(tmp_path, repo, data, max_lines=12, expect_split=False)
    assert len(chunks) > 1


def test_a_copy_replacing_a_directory_still_copies_the_unchanged_source(tmp_path: Path) -> None:
    # P/x goes, P arrives as a copy of P.txt, and P.txt changes too: P moves
    # after the removal of P/x, but must stay before the change of P.txt.
    body = b"".join(b"shared line %d with enough text to be similar\n" % i for i in range(40))

    def change(r: Path) -> None:
        (r / "P" / "x").unlink()
        (r / "P").rmdir()
        write(r, "P", body.replace(b"line 5 ", b"line five "))
        write(r, "P.txt", body.replace(b"line 30 ", b"line thirty "))

    repo = make_repo(tmp_path, {"P/x": b"inside the directory\n", "P.txt": body}, change)
    data = diff_of(repo, "-C")
    assert b"copy from P.txt" in data
    assert_applies_in_order(tmp_path, repo, data, max_lines=12, expect_split=False)


def test_mode_change_with_big_edit_is_split_and_applies(tmp_path: Path) -> None:
    content = lines_of(200, "m")

    def change(r: Path) -> None:
        write(r, "run.sh", content.replace(b"m 1", b"M 1"))
        os.chmod(r / "run.sh", 0o755)

    repo = make_repo(tmp_path, {"run.sh": content}, change)
    data = diff_of(repo)
    assert b"new mode 100755" in data
    assert_applies_in_order(tmp_path, repo, data, max_lines=30)


def test_binary_and_metadata_only_files_apply(tmp_path: Path) -> None:
    rng = random.Random(7)
    blob = bytes(rng.randrange(256) for _ in range(3000))

    def change(r: Path) -> None:
        write(r, "a.txt", lines_of(120, "a", seed=1))
        write(r, "img.bin", blob[::-1])
        write(r, "z.txt", lines_of(120, "z", seed=2))
        write(r, "new.bin", blob[:500])
        write(r, "empty.txt", b"")
        (r / "moved.txt").rename(r / "sub" / "moved.txt")
        os.chmod(r / "tool.sh", 0o755)

    base = {
        "a.txt": lines_of(120, "a"),
        "img.bin": blob,
        "z.txt": lines_of(120, "z"),
        "moved.txt": lines_of(10, "mv"),
        "sub/keep": b"k\n",
        "tool.sh": b"echo hi\n",
    }
    repo = make_repo(tmp_path, base, change)
    data = diff_of(repo)
    assert b"GIT binary patch" in data and b"rename to sub/moved.txt" in data
    chunks = assert_applies_in_order(tmp_path, repo, data, max_lines=40)
    binary = [c for c in chunks if "img.bin" in c.files]
    assert len(binary) == 1 and binary[0].parent_file is None
    assert binary[0].oversized  # the payload alone is bigger than 40 lines
    parsed = parse_diff(data)
    metadata_only = [f for f in parsed.files if not f.hunks and not f.is_binary]
    assert {f.path for f in metadata_only} == {"empty.txt", "sub/moved.txt", "tool.sh"}


def test_no_newline_at_end_on_either_side_applies(tmp_path: Path) -> None:
    body = lines_of(120, "n")
    base = {
        "old_side.txt": body.rstrip(b"\n"),
        "new_side.txt": body,
        "both.txt": body.rstrip(b"\n"),
        "tail.txt": body.rstrip(b"\n"),
    }

    def change(r: Path) -> None:
        rows = body.splitlines(keepends=True)
        edited = b"".join(b"X" + row if k % 3 == 0 else row for k, row in enumerate(rows))
        write(r, "old_side.txt", edited)
        write(r, "new_side.txt", edited.rstrip(b"\n"))
        write(r, "both.txt", edited.rstrip(b"\n") + b" end")
        write(r, "tail.txt", body.rstrip(b"\n") + b"\n" + lines_of(60, "t").rstrip(b"\n"))

    repo = make_repo(tmp_path, base, change)
    data = diff_of(repo)
    assert data.count(b"\\ No newline at end of file") >= 4
    assert_applies_in_order(tmp_path, repo, data, max_lines=20)


def test_crlf_lines_survive_splitting(tmp_path: Path) -> None:
    body = lines_of(200, "w").replace(b"\n", b"\r\n")

    def change(r: Path) -> None:
        write(r, "win.txt", body.replace(b"w 1", b"W 1").replace(b"w 5", b"w\r5"))

    repo = make_repo(tmp_path, {"win.txt": body}, change)
    assert_applies_in_order(tmp_path, repo, diff_of(repo), max_lines=25)


def test_gigantic_replaced_block_is_cut_into_hunks(tmp_path: Path) -> None:
    base = lines_of(700, "g")

    def change(r: Path) -> None:
        rows = base.splitlines(keepends=True)
        rows[100:600] = [b"new " + row for row in rows[100:600]]
        write(r, "huge.txt", b"".join(rows))

    repo = make_repo(tmp_path, {"huge.txt": base}, change)
    data = diff_of(repo)
    assert data.count(b"\n@@ ") == 1
    chunks = assert_applies_in_order(tmp_path, repo, data, max_lines=60)
    assert len(chunks) >= 1000 // 60
    assert not any(c.oversized for c in chunks)
    assert all(c.line_count <= 48 for c in chunks)  # 80% of 60


def test_big_pure_addition_in_the_middle_of_a_file(tmp_path: Path) -> None:
    base = lines_of(100, "p")

    def change(r: Path) -> None:
        rows = base.splitlines(keepends=True)
        rows[50:50] = lines_of(500, "ins").splitlines(keepends=True)
        write(r, "mid.txt", b"".join(rows))

    repo = make_repo(tmp_path, {"mid.txt": base}, change)
    chunks = assert_applies_in_order(tmp_path, repo, diff_of(repo), max_lines=40)
    assert not any(c.oversized for c in chunks)


def test_repeated_identical_lines_land_in_the_right_place(tmp_path: Path) -> None:
    # Exact line hints matter when the same text occurs many times in a file.
    base = b"same\n" * 300

    def change(r: Path) -> None:
        rows = base.splitlines(keepends=True)
        for k in (20, 100, 101, 102, 180, 250):
            rows[k] = b"diff\n"
        rows[140:140] = [b"same\n"] * 30 + [b"added\n"] * 40
        write(r, "same.txt", b"".join(rows))

    repo = make_repo(tmp_path, {"same.txt": base}, change)
    assert_applies_in_order(tmp_path, repo, diff_of(repo), max_lines=20)


def test_many_small_files_and_a_file_with_many_hunks(tmp_path: Path) -> None:
    base = {f"pkg/m{i:02}.py": lines_of(30, f"m{i}") for i in range(40)}
    base["many.txt"] = lines_of(1000, "h")

    def change(r: Path) -> None:
        for i in range(40):
            write(r, f"pkg/m{i:02}.py", lines_of(30, f"m{i}").replace(b"m%d 7 " % i, b"M "))
        rows = base["many.txt"].splitlines(keepends=True)
        for k in range(5, 1000, 23):
            rows[k] = b"hunk change\n"
        write(r, "many.txt", b"".join(rows))

    repo = make_repo(tmp_path, base, change)
    chunks = assert_applies_in_order(tmp_path, repo, diff_of(repo), max_lines=50)
    packed = [c for c in chunks if len(c.files) > 1]
    assert packed and all(c.line_count <= 40 for c in packed)


def test_long_context_diff_is_cut_with_trimmed_context(tmp_path: Path) -> None:
    base = lines_of(400, "u")

    def change(r: Path) -> None:
        rows = base.splitlines(keepends=True)
        rows[10] = b"one\n"
        rows[200] = b"two\n"
        rows[390] = b"three\n"
        write(r, "ctx.txt", b"".join(rows))

    repo = make_repo(tmp_path, {"ctx.txt": base}, change)
    data = git(repo, "diff", "--binary", "-U200", "base", "target")
    assert data.count(b"\n@@ ") == 1
    assert_applies_in_order(tmp_path, repo, data, max_lines=30)


def test_tiny_budget_still_applies_with_oversized_chunks(tmp_path: Path) -> None:
    base = lines_of(60, "t")

    def change(r: Path) -> None:
        write(r, "t.txt", base.replace(b"t 1", b"T 1"))
        write(r, "n.txt", lines_of(40, "n"))

    repo = make_repo(tmp_path, {"t.txt": base}, change)
    chunks = assert_applies_in_order(tmp_path, repo, diff_of(repo), max_lines=3, max_tokens=10)
    assert any(c.oversized for c in chunks)


def test_unicode_and_quoted_path_continuation_headers(tmp_path: Path) -> None:
    def change(r: Path) -> None:
        write(r, "café dir/naïve.txt", lines_of(120, "q"))

    repo = make_repo(tmp_path, {"k": b"k\n"}, change)
    data = diff_of(repo)
    assert b'"b/caf\\303\\251 dir/na\\303\\257ve.txt"' in data
    chunks = assert_applies_in_order(tmp_path, repo, data, max_lines=30)
    parsed = parse_diff(data)
    second = render_chunk(parsed, chunks[1])
    assert b'--- "a/caf\\303\\251 dir/na\\303\\257ve.txt"\n' in second


# --------------------------------------------------------------------------
# Random edits
# --------------------------------------------------------------------------

_LINE = st.sampled_from([b"a\n", b"b\n", b"c\n", b"same\n", b"x y\n", b"\n", b"crlf\r\n"])
_EDIT = st.tuples(st.integers(0, 10_000), st.integers(0, 40), st.lists(_LINE, max_size=60))


@st.composite
def _file_pair(draw: st.DrawFn) -> tuple[bytes, bytes]:
    old = b"".join(draw(st.lists(_LINE, max_size=120)))
    rows = old.splitlines(keepends=True)
    for at, drop, insert in draw(st.lists(_EDIT, max_size=5)):
        k = at % (len(rows) + 1)
        rows[k : k + drop] = insert
    new = b"".join(rows)
    if draw(st.booleans()):
        new = new.rstrip(b"\n")
    if draw(st.booleans()):
        old = old.rstrip(b"\n")
    return old, new


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    pairs=st.lists(_file_pair(), min_size=1, max_size=3),
    max_lines=st.integers(6, 40),
    max_tokens=st.sampled_from([20_000, 200, 40]),
    context=st.integers(1, 8),
)
def test_random_edits_apply_chunk_by_chunk(
    tmp_path_factory: pytest.TempPathFactory,
    pairs: list[tuple[bytes, bytes]],
    max_lines: int,
    max_tokens: int,
    context: int,
) -> None:
    tmp = tmp_path_factory.mktemp("rand")
    base = {f"f{i}.txt": old for i, (old, _) in enumerate(pairs) if old}

    def change(r: Path) -> None:
        for i, (_, new) in enumerate(pairs):
            path = r / f"f{i}.txt"
            if new:
                write(r, f"f{i}.txt", new)
            elif path.exists():
                path.unlink()

    repo = make_repo(tmp, base, change)
    data = diff_of(repo, f"-U{context}")
    if not data:
        return
    assert_applies_in_order(
        tmp, repo, data, max_lines=max_lines, max_tokens=max_tokens, expect_split=False
    )


# --------------------------------------------------------------------------
# Real corpus: other diff kinds, and speed
# --------------------------------------------------------------------------


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
    start = time.perf_counter()
    chunks = chunk_files(parsed, parsed.files)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5, elapsed
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
