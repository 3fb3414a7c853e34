"""The diff tools at the edges: what one response holds (oversized lines, big files,
binary patches, thousands of files), the real corpus's latency, and file names that are
not UTF-8 or read as globs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from gitrepo import commit, git_bytes, init_repo
from test_data import CORPUS
from timing import Stopwatch

from diffchunk.diff.options import LoadOptions
from diffchunk.errors import InvalidArgument
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools


def test_corpus_listing_and_chunk_latency(store: SessionStore) -> None:
    big = CORPUS / "sqlalchemy_rel_1_4_0..rel_1_4_54.diff"
    if not big.exists():
        pytest.skip("corpus not available")
    path = str(big)
    diff_tools.load_diff(path, store=store).to_dict()
    watch = Stopwatch()
    listing = diff_tools.list_chunks(path, store=store).to_dict()
    list_time = watch.elapsed()
    assert len(json.dumps(listing)) // 4 <= 20_000
    watch = Stopwatch()
    text = diff_tools.get_chunk(path, listing["total_chunks"] // 2 or 1, store=store)
    chunk_time = watch.elapsed()
    assert text.startswith("=== Chunk")
    assert list_time.within(0.5) and chunk_time.within(0.5)
    split = next(c for c in listing["chunks"] if c.get("parent_file"))
    whole = diff_tools.get_file_diff(path, split["parent_file"], store=store)
    assert whole.startswith(f"=== {split['parent_file']}: ~")  # too big: says how to page
    assert f"diff --git a/{split['parent_file']}" in whole


def test_oversized_chunk_comes_in_raw_parts_and_shortened_in_other_formats(
    tmp_path: Path, store: SessionStore
) -> None:
    line = "x" * 200_000
    diff = tmp_path / "wide.diff"
    diff.write_text(
        "diff --git a/wide.txt b/wide.txt\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/wide.txt\n@@ -0,0 +1 @@\n+{line}\n"
    )
    limit = diff_tools.RESPONSE_TOKENS * diff_tools.CHARS_PER_TOKEN
    listing = diff_tools.list_chunks(str(diff), store=store).to_dict()
    assert listing["chunks"][0]["oversized"] is True
    parts = listing["chunks"][0]["parts"]
    assert parts == 3
    framed = diff_tools.get_chunk(str(diff), 1, format="annotated", store=store)
    assert "very long line(s) shortened" in framed
    assert len(framed) < 10_000
    lean = diff_tools.get_chunk(str(diff), 1, format="lean", store=store)
    assert "199,701 more characters of this line" in lean and len(lean) < 2_000
    first = diff_tools.get_chunk(str(diff), 1, store=store)
    assert "Raw text part 1 of 3" in first and len(first) <= limit
    exact = "".join(
        diff_tools.get_chunk(str(diff), 1, include_context=False, part=n, store=store)
        for n in range(1, parts + 1)
    )
    assert line in exact
    assert exact == diff.read_text()
    with pytest.raises(InvalidArgument, match="comes in 3 parts"):
        diff_tools.get_chunk(str(diff), 1, include_context=False, store=store)
    with pytest.raises(InvalidArgument, match="between 1 and 3"):
        diff_tools.get_chunk(str(diff), 1, part=4, store=store)


def test_big_file_diffs_and_chunks_fit_one_response(tmp_path: Path, store: SessionStore) -> None:
    limit = diff_tools.RESPONSE_TOKENS * diff_tools.CHARS_PER_TOKEN
    body = "".join(f"+row {i} {'x' * 40}\n" for i in range(6000))  # ~290k characters
    payload = "".join(f"z{'0' * 60}\n" for i in range(3000))  # a binary patch cannot be cut
    diff = tmp_path / "big.diff"
    diff.write_text(
        "diff --git a/big.txt b/big.txt\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,6000 @@\n{body}"
        "diff --git a/package-lock.json b/package-lock.json\nnew file mode 100644\n"
        "index 0000000..2222222\n--- /dev/null\n+++ b/package-lock.json\n"
        f"@@ -0,0 +1,6000 @@\n{body}"
        "diff --git a/blob.bin b/blob.bin\nnew file mode 100644\n"
        "index 0000000..3333333\nGIT binary patch\nliteral 180000\n"
        f"{payload}\nliteral 0\nHcmV?d00001\n\n"
    )
    path = str(diff)
    lines = diff.read_text().splitlines()
    kept = diff_tools.get_file_diff(path, "big.txt", store=store)
    assert kept.startswith("=== big.txt: ~") and len(kept) <= limit
    note = kept.split("\n", 1)[0]
    assert "get_chunk serves it whole in parts (chunks 1, " in note
    offset = int(note.split("offset=")[1].split(")")[0])
    shown = kept.split("\n\n", 1)[1].splitlines()
    assert lines[offset - 2] == shown[-1]  # read_content goes on where the reply stops
    excluded = diff_tools.get_file_diff(path, "package-lock.json", store=store)
    assert excluded.startswith("=== package-lock.json is excluded from the chunks (generated")
    assert "more are left out" in excluded and len(excluded) <= limit
    number = diff_tools.find_chunks_for_files(path, "blob.bin", store=store)[0]
    framed = diff_tools.get_chunk(path, number, store=store)
    assert "Raw text part 1 of 3" in framed and len(framed) <= limit
    parts = diff_tools.list_chunks(path, store=store).to_dict()["chunks"][number - 1]["parts"]
    texts = [
        diff_tools.get_chunk(path, number, include_context=False, part=n, store=store)
        for n in range(1, parts + 1)
    ]
    assert all(len(text) <= limit for text in texts)
    exact = "".join(texts)
    assert exact.count("\nz000") == 3000 and exact.endswith("HcmV?d00001\n\n")
    lean = diff_tools.get_chunk(path, number, format="lean", store=store)
    assert "GIT binary patch of 186,056 bytes left out: new 180,000 bytes" in lean
    assert len(lean) < 2_000


def test_several_files_fill_one_answer_and_name_those_left_out(
    tmp_path: Path, store: SessionStore
) -> None:
    """Files that do not fit one answer together: as many whole ones as fit, then a
    file_path that reads the rest, which answers them as their own calls would."""
    limit = diff_tools.RESPONSE_TOKENS * diff_tools.CHARS_PER_TOKEN
    body = "".join(f"+row {i} {'x' * 40}\n" for i in range(1200))  # ~58k characters
    diff = tmp_path / "three.diff"
    diff.write_text(
        "".join(
            f"diff --git a/{n}.txt b/{n}.txt\nnew file mode 100644\nindex 0000000..1111111\n"
            f"--- /dev/null\n+++ b/{n}.txt\n@@ -0,0 +1,1200 @@\n{body}"
            for n in ("a", "b", "c")
        )
    )
    path = str(diff)
    first = diff_tools.get_file_diff(path, "*.txt", store=store)
    alone = {n: diff_tools.get_file_diff(path, f"{n}.txt", store=store) for n in "abc"}
    assert len(alone["a"]) + len(alone["b"]) > limit
    assert first == alone["a"] + (
        '=== 2 more file(s) match, left out to fit one answer: file_path="b.txt,c.txt" '
        "reads them ===\n"
    )
    rest = diff_tools.get_file_diff(path, "b.txt,c.txt", store=store)
    assert rest == alone["b"] + (
        '=== 1 more file(s) match, left out to fit one answer: file_path="c.txt" reads them ===\n'
    )


def test_several_files_name_at_most_a_bounded_list_of_those_they_leave(
    tmp_path: Path, store: SessionStore
) -> None:
    """A glob over thousands of files: the answer names the next files and the skipped
    excluded ones within a bound and counts the rest, and stays within one answer."""
    limit = diff_tools.RESPONSE_TOKENS * diff_tools.CHARS_PER_TOKEN
    body = "".join(f"+row {i} {'x' * 40}\n" for i in range(1200))  # ~58k characters

    def added(name: str, text: str, lines: int) -> str:
        return (
            f"diff --git a/{name} b/{name}\nnew file mode 100644\nindex 0000000..1111111\n"
            f"--- /dev/null\n+++ b/{name}\n@@ -0,0 +1,{lines} @@\n{text}"
        )

    many = [
        (f"pkg{i:04d}/a/longer/directory/module.txt", f"pkg{i:04d}/package-lock.json")
        for i in range(2000)
    ]
    diff = tmp_path / "many.diff"
    diff.write_text(
        added("big.txt", body, 1200)
        + "".join(added(code, "+x\n", 1) + added(lock, "+x\n", 1) for code, lock in many)
    )
    path = str(diff)
    answer = diff_tools.get_file_diff(path, "*", store=store)
    assert answer.startswith(diff_tools.get_file_diff(path, "big.txt", store=store))
    assert len(answer) <= limit
    left, skipped = answer.splitlines()[-2:]
    shown = answer.count("+++ b/pkg")
    assert left.startswith(f"=== {2000 - shown} more file(s) match, left out to fit one answer: ")
    assert left.endswith(" (find_chunks_for_files lists them all) ===")
    named = left.split('file_path="')[1].split('"')[0].split(",")
    assert 10 < len(named) < 2000 - shown
    assert named == [code for code, _ in many[shown : shown + len(named)]]
    assert f"reads the next {len(named)} " in left
    assert skipped.startswith("=== excluded from the chunks, not shown (each is served alone): ")
    listed = skipped.count("(generated)")
    assert 10 < listed < 2000
    assert skipped.endswith(
        f" and {2000 - listed} more (list_chunks names them all among the excluded files) ==="
    )
    nexts = diff_tools.get_file_diff(path, ",".join(named), store=store)
    assert [line[6:] for line in nexts.splitlines() if line.startswith("+++ b/")] == named


def test_a_chunk_that_is_not_utf8_says_where_its_exact_bytes_are(
    tmp_path: Path, store: SessionStore
) -> None:
    diff = tmp_path / "latin1.diff"
    diff.write_bytes(
        b"diff --git a/legacy.c b/legacy.c\n--- a/legacy.c\n+++ b/legacy.c\n"
        b"@@ -1 +1 @@\n-/* caf\xe9 */\n+/* caf\xe9s */\n"
    )
    framed = diff_tools.get_chunk(str(diff), 1, store=store)
    assert "not UTF-8" in framed and f"diffchunk review --chunk 1 {diff}" in framed
    assert "\ufffd" in framed
    utf8 = tmp_path / "utf8.diff"
    utf8.write_bytes(diff.read_bytes().replace(b"\xe9", "é".encode()))
    assert "not UTF-8" not in diff_tools.get_chunk(str(utf8), 1, store=store)


def test_find_chunks_takes_a_listed_path_that_reads_otherwise_as_a_glob(
    tmp_path: Path, store: SessionStore
) -> None:
    diff = tmp_path / "route.diff"
    diff.write_bytes(
        b"diff --git a/app/[id]/page.tsx b/app/[id]/page.tsx\n"
        b"--- a/app/[id]/page.tsx\n+++ b/app/[id]/page.tsx\n@@ -1 +1 @@\n-a\n+b\n"
    )
    listed = diff_tools.list_chunks(str(diff), store=store).to_dict()["chunks"][0]["files"]
    assert listed == ["app/[id]/page.tsx"]
    # as a glob, [id] is one of "i" or "d": the listed path must still find its chunk
    assert diff_tools.find_chunks_for_files(str(diff), "app/[id]/page.tsx", store=store) == [1]
    assert diff_tools.find_chunks_for_files(str(diff), "x.py, app/[id]/page.tsx", store=store) == [
        1
    ]
    assert diff_tools.find_chunks_for_files(str(diff), "app/*/page.tsx", store=store) == [1]
    assert diff_tools.find_chunks_for_files(str(diff), "app/i/page.tsx", store=store) == []
    assert diff_tools.find_chunks_for_files(str(diff), "APP/[ID]/page.tsx", store=store) == [1]
    # an exclusion still decides in the globs' order
    assert (
        diff_tools.find_chunks_for_files(str(diff), "app/[id]/page.tsx,!app/*", store=store) == []
    )


def test_file_names_that_are_not_utf8_stay_apart(tmp_path: Path, store: SessionStore) -> None:
    """Two Latin-1 names that differ in one byte are two files, each served alone."""
    repo = init_repo(tmp_path / "repo")
    names = [b"caf\xe8.txt", b"caf\xe9.txt"]
    files = [Path(os.fsdecode(os.fsencode(repo) + b"/" + name)) for name in names]
    try:
        for i, file in enumerate(files):
            file.write_text(f"{i}\n")
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    commit(repo, {})
    for i, file in enumerate(files):
        file.write_text(f"{i}\nmore {i}\n")
    diff = tmp_path / "latin1-names.diff"
    diff.write_bytes(git_bytes(repo, "diff"))
    assert b'"a/caf\\350.txt"' in diff.read_bytes()  # git quotes them, octal escapes

    listed = diff_tools.list_chunks(str(diff), store=store).to_dict()
    assert listed["chunks"][0]["files"] == ["caf\\350.txt", "caf\\351.txt"]
    for i, shown in enumerate(["caf\\350.txt", "caf\\351.txt"]):
        one = diff_tools.get_file_diff(str(diff), shown, store=store)
        assert f"+more {i}" in one and f"+more {1 - i}" not in one
        assert diff_tools.find_chunks_for_files(str(diff), shown, store=store) == [1]
    # the same names in a plain unified diff, unquoted raw bytes
    plain = tmp_path / "plain.diff"
    plain.write_bytes(
        b"".join(
            b"--- " + name + b"\n+++ " + name + b"\n@@ -1 +1,2 @@\n %d\n+more %d\n" % (i, i)
            for i, name in enumerate(names)
        )
    )
    assert diff_tools.list_chunks(str(plain), store=store).to_dict()["chunks"][0]["files"] == [
        "caf\\350.txt",
        "caf\\351.txt",
    ]
    assert "+more 1" in diff_tools.get_file_diff(str(plain), "caf\\351.txt", store=store)


def test_an_annotated_chunk_fits_one_response_too(tmp_path: Path, store: SessionStore) -> None:
    # Annotated shows context lines twice and numbers them: a chunk within
    # the budget as raw text can be over it as annotated text.
    rows = [f"context line {i} " + "x" * 50 for i in range(3000)]
    body = "".join(
        (f"-{row}\n+{row} changed\n" if i % 3 == 0 else f" {row}\n") for i, row in enumerate(rows)
    )
    diff = tmp_path / "wide.diff"
    diff.write_text(
        f"diff --git a/w.txt b/w.txt\n--- a/w.txt\n+++ b/w.txt\n@@ -1,3000 +1,3000 @@\n{body}"
    )
    limit = diff_tools.RESPONSE_TOKENS * diff_tools.CHARS_PER_TOKEN
    view = diff_tools.load_diff(
        str(diff), options=LoadOptions(max_chunk_lines=5000), store=store
    ).file_path
    raw = diff_tools.get_chunk(view, 1, include_context=False, store=store)
    assert len(raw) < limit * 1.1
    annotated = diff_tools.get_chunk(view, 1, format="annotated", store=store)
    assert len(annotated) < limit + 2_000 and "cut after" in annotated


def test_a_chunk_with_thousands_of_files_is_listed_within_one_response(
    tmp_path: Path, store: SessionStore
) -> None:
    # Mode changes are three-line sections: a chunk holds hundreds, and with
    # names JSON must escape (control characters, as git quotes them: \001)
    # its listing entry alone was bigger than one response.
    name = "\\001" * 30
    sections = "".join(
        f'diff --git "a/{name}{i:05d}.sh" "b/{name}{i:05d}.sh"\nold mode 100644\nnew mode 100755\n'
        for i in range(3000)
    )
    diff = tmp_path / "modes.diff"
    diff.write_text(sections)
    limit = diff_tools.RESPONSE_TOKENS * diff_tools.CHARS_PER_TOKEN
    view = diff_tools.load_diff(
        str(diff), options=LoadOptions(max_chunk_lines=5000), store=store
    ).file_path
    listing = diff_tools.list_chunks(view, store=store).to_dict()
    assert "\x01" in listing["chunks"][0]["files"][0]
    first = listing["chunks"][0]
    assert len(json.dumps(listing)) <= limit
    page = len(json.dumps(listing, ensure_ascii=False, separators=(",", ":")))
    assert page <= diff_tools.PAGE_TOKENS * diff_tools.CHARS_PER_TOKEN  # a page, not more
    assert first["files_total"] > first["files_listed"] == len(first["files"]) > 40
    assert "find_chunks_for_files" in first["files_note"]
