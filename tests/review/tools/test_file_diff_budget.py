"""get_file_diff of a file larger than one answer: the cut text and the line above it
that says how to read on fit one answer together, in every format, alone or first of
several files (a file in 2,778 chunks answered 95,822 characters: the note named
each chunk)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diffchunk.diff.options import LoadOptions
from diffchunk.review.sessions.loading import load_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools

LIMIT = diff_tools.RESPONSE_TOKENS * diff_tools.CHARS_PER_TOKEN
LINES = 60_000


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A diff of one file of 60,000 added lines and a small one after it."""
    body = "".join(f"+row {i}\n" for i in range(LINES))
    diff = tmp_path_factory.mktemp("budget") / "split.diff"
    diff.write_text(
        "diff --git a/big.txt b/big.txt\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,{LINES} @@\n{body}"
        "diff --git a/small.txt b/small.txt\nnew file mode 100644\nindex 0000000..2222222\n"
        "--- /dev/null\n+++ b/small.txt\n@@ -0,0 +1 @@\n+small\n"
    )
    return diff


@pytest.mark.parametrize("fmt", ["raw", "lean", "annotated"])
def test_a_file_in_thousands_of_chunks_is_cut_to_fit_one_answer_with_its_note(
    split: Path, store: SessionStore, fmt: str
) -> None:
    handle = load_diff(str(split), LoadOptions(max_chunk_lines=20), store=store).file_path
    answer = diff_tools.get_file_diff(handle, "big.txt", format=fmt, store=store)
    assert len(answer) <= LIMIT, len(answer)
    note, text = answer.split("\n\n", 1)
    assert re.search(r"get_chunk serves it whole in parts \(chunks 1 to \d{4}\)", note), note
    shown = int(note.split("the first ")[1].split(" lines")[0])
    assert text.count("\n") == shown
    assert len(text) > LIMIT - 1_000  # the note takes only its own room


def test_a_cut_file_first_of_several_leaves_room_for_the_list_of_the_others(
    split: Path, store: SessionStore
) -> None:
    handle = load_diff(str(split), LoadOptions(max_chunk_lines=20), store=store).file_path
    answer = diff_tools.get_file_diff(handle, "*.txt", store=store)
    assert len(answer) <= LIMIT, len(answer)
    assert answer.startswith("=== big.txt: ~")
    assert answer.endswith('left out to fit one answer: file_path="small.txt" reads them ===\n')


def test_the_raw_cut_says_where_read_content_reads_on(split: Path, store: SessionStore) -> None:
    path = str(split)
    answer = diff_tools.get_file_diff(path, "big.txt", store=store)
    assert len(answer) <= LIMIT
    note, text = answer.split("\n\n", 1)
    offset = int(note.split("offset=")[1].split(")")[0])
    lines = split.read_text().splitlines()
    assert lines[offset - 2] == text.splitlines()[-1]


def test_a_list_of_paths_longer_than_one_path_reads_them(
    tmp_path: Path, store: SessionStore
) -> None:
    """The several-file answer names the files it leaves out in a file_path; a list of
    60 paths (2,000 characters) passed back is each path checked, not the list as one."""
    names = [f"src/module_{i:03d}/implementation_{i:03d}.txt" for i in range(60)]
    diff = tmp_path / "many.diff"
    diff.write_text(
        "".join(
            f"diff --git a/{n} b/{n}\nnew file mode 100644\nindex 0000000..1111111\n"
            f"--- /dev/null\n+++ b/{n}\n@@ -0,0 +1 @@\n+{n}\n"
            for n in names
        )
    )
    wanted = ",".join(names[10:])
    assert len(wanted) > 1_024
    answer = diff_tools.get_file_diff(str(diff), wanted, store=store)
    shown = [n for n in names if f"diff --git a/{n} " in answer]
    assert shown == names[10:]


def test_a_left_out_path_holding_a_comma_is_read_by_the_list_given_back(
    tmp_path: Path, store: SessionStore
) -> None:
    """The files a several-file answer leaves out, a path holding a comma among them,
    are read by the file_path it names (the comma path was split and lost)."""
    big = "".join(f"+{'x' * 70} {i}\n" for i in range(1_500))
    names = ["big.txt", "notes/a,b.txt", "c.txt"]
    diff = tmp_path / "comma.diff"
    diff.write_text(
        "".join(
            f"diff --git a/{n} b/{n}\nnew file mode 100644\nindex 0000000..1111111\n"
            f"--- /dev/null\n+++ b/{n}\n@@ -0,0 +1,{1_500 if n == 'big.txt' else 1} @@\n"
            + (big if n == "big.txt" else f"+{n}\n")
            for n in names
        )
    )
    answer = diff_tools.get_file_diff(str(diff), "*.txt", store=store)
    wanted = answer.rsplit('file_path="', 1)[1].split('"', 1)[0]
    assert wanted == "notes/a,b.txt,c.txt", answer[-300:]
    again = diff_tools.get_file_diff(str(diff), wanted, store=store)
    assert [n for n in names if f"diff --git a/{n} " in again] == names[1:]
