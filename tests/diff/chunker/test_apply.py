"""Chunker: split files and hunks of real repositories, and random edits, applied in
order (the invariant is in ``chunkkit``)."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest
from chunkkit import assert_applies_in_order, diff_of, lines_of, make_repo, write
from examples import examples
from gitrepo import git_bytes as git
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diffchunk.diff.chunker import render_chunk
from diffchunk.diff.parser import parse_diff


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
    max_examples=examples(15),
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
