"""get_file_diff in lean: lines moved unchanged from another file of the diff are named
by both places, not shown twice, and every place named holds exactly those lines."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gitrepo import commit, git_bytes, init_repo

from diffchunk.diff.options import LoadOptions
from diffchunk.review.answers import CHARS_PER_TOKEN
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.loading import load_diff, session
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools
from diffchunk.review.tools.lean_partners import MOVES_ACROSS_LINES, partners
from diffchunk.review.tools.listing import list_chunks


def _tests(names: str, tag: str = "") -> str:
    return "".join(
        f"def test_{n}(runner):\n    result = runner.invoke(cli, ['{n}'])\n"
        f"    assert result.exit_code == 0{tag}\n    assert result.output == '{n}\\n'\n\n\n"
        for n in names.split()
    )


ECHO, STYLE, GONE = _tests("echo echo_bytes echo_err"), _tests("style unstyle"), _tests("gone")
HELPER = "".join(
    f"def helper_{i}(value):\n    return transform(value, {i})\n\n\n" for i in range(5)
)
OLD = {
    "tests/test_utils.py": "import click\n\n\n" + ECHO + GONE + STYLE,
    "src/core.py": "import os\n\n\n" + HELPER + "def main():\n    return 0\n",
    "src/util.py": "import sys\n",
}
NEW = {
    "tests/utils/test_echo.py": "import click\n\n\n" + ECHO,
    # one test edited on the way: that line is shown
    "tests/utils/test_style.py": "import click\n\n\n" + STYLE.replace("== 0\n", "== 2\n", 1),
    "src/core.py": "import os\n\n\ndef main():\n    return 0\n",
    "src/util.py": "import sys\n\n\n" + HELPER,
}
_HERE = re.compile(r"^⋯ (\d+) lines \(new (\d+)-(\d+)\) moved unchanged from old (.+):(\d+)-(\d+)$")
_AWAY = re.compile(r"^⋯ (\d+) lines \(old (\d+)-(\d+)\) moved to (.+):(\d+)$")


@pytest.fixture()
def diff(tmp_path: Path) -> str:
    repo = init_repo(tmp_path / "repo")
    commit(repo, OLD)
    (repo / "tests" / "test_utils.py").unlink()
    commit(repo, NEW, "split")
    return load_git_diff(str(repo), "HEAD~1..HEAD", store=SessionStore()).file_path


def _lines(repo: Path, rev: str, path: str) -> list[str]:
    return git_bytes(repo, "show", f"{rev}:{path}").decode().split("\n")


def _check_claims(repo: Path, text: str) -> int:
    """Every move a lean answer names holds in git: the lines at both places are the
    same.  Answers how many lines the claims cover."""
    here = was = ""
    covered = 0
    for line in text.split("\n"):
        if line.startswith("## "):
            here = was = line[3:].split(" (")[0]
            renamed = re.search(r"\(renamed from ([^,]+),", line)
            was = renamed.group(1) if renamed else here
        m = _HERE.match(line)
        if m:
            n, a, b, other, x, y = m.groups()
            new = _lines(repo, "HEAD", here)[int(a) - 1 : int(b)]
            old = _lines(repo, "HEAD~1", other)[int(x) - 1 : int(y)]
            assert len(new) == int(n) and new == old, line
            covered += int(n)
        m = _AWAY.match(line)
        if m:
            n, a, b, other, at = m.groups()
            old = _lines(repo, "HEAD~1", was)[int(a) - 1 : int(b)]
            new = _lines(repo, "HEAD", other)[int(at) - 1 : int(at) - 1 + int(n)]
            assert len(old) == int(n) and new == old, line
            covered += int(n)
    return covered


def test_a_split_names_where_each_run_came_from_and_shows_only_what_changed(diff: str) -> None:
    """git calls the split a rename of test_utils.py to test_echo.py: its view names
    where the style tests went; test_style.py's names where they came from (by the
    old path) and shows the line edited on the way."""
    echo = diff_tools.get_file_diff(diff, "tests/utils/test_echo.py", format="lean")
    assert "(renamed from tests/test_utils.py, " in echo
    assert "moved to tests/utils/test_style.py:7" in echo
    style = diff_tools.get_file_diff(diff, "tests/utils/test_style.py", format="lean")
    assert "+    assert result.exit_code == 2" in style
    assert "moved from old tests/test_utils.py:31" in style
    code = diff_tools.get_file_diff(diff, "src/*", format="lean")
    assert "⋯ 20 lines (old 4-23) moved to src/util.py:4" in code
    assert "⋯ 20 lines (new 4-23) moved unchanged from old src/core.py:4-23" in code
    assert "helper_" not in code  # moved as they were: named, not shown


def test_every_place_a_lean_answer_names_holds_those_lines(tmp_path: Path, diff: str) -> None:
    repo = tmp_path / "repo"
    everything = diff_tools.get_file_diff(diff, "*", format="lean")
    assert _check_claims(repo, everything) == 20 + 20 + 9  # helpers (both sides), style
    for path in ("src/util.py", "src/core.py", "tests/utils/test_echo.py"):
        for context in ("hunks", "symbol"):
            one = diff_tools.get_file_diff(diff, path, format="lean", context=context)
            assert _check_claims(repo, one) > 0, one


def test_raw_answers_are_untouched(diff: str) -> None:
    raw = diff_tools.get_file_diff(diff, "src/util.py")
    assert raw.count("\n+def helper_") == 5 and "⋯" not in raw


def test_chunks_name_moves_to_other_chunks_and_list_them_at_their_size(tmp_path: Path) -> None:
    """Each file in a chunk of its own: a chunk's lean view finds the moves to and from
    the other chunks, and list_chunks counts the tokens of that view."""
    repo = init_repo(tmp_path / "repo")
    commit(repo, OLD)
    (repo / "tests" / "test_utils.py").unlink()
    commit(repo, NEW, "split")
    store = SessionStore()
    diff = load_git_diff(
        str(repo), "HEAD~1..HEAD", options=LoadOptions(max_chunk_lines=30), store=store
    ).file_path
    listing = list_chunks(diff, format="lean", store=store, max_tokens=None)
    texts = []
    for entry in listing.chunks:
        assert len(entry.files) == 1
        text = diff_tools.get_chunk(diff, entry.chunk, False, "lean", store=store)
        assert entry.token_count == len(text) // CHARS_PER_TOKEN
        texts.append(text)
    whole = "".join(texts)
    assert "⋯ 20 lines (old 4-23) moved to src/util.py:4" in whole
    assert "⋯ 20 lines (new 4-23) moved unchanged from old src/core.py:4-23" in whole
    assert _check_claims(tmp_path / "repo", whole) == 20 + 20 + 9


def test_the_command_lines_file_in_lean_names_the_same_moves(diff: str) -> None:
    from click.testing import CliRunner

    from diffchunk.cli import main

    result = CliRunner().invoke(
        main, ["--no-pager", "review", diff, "--file", "src/util.py", "--format", "lean"]
    )
    assert result.exit_code == 0, result.output
    assert "⋯ 20 lines (new 4-23) moved unchanged from old src/core.py:4-23" in result.stdout
    tool = diff_tools.get_file_diff(diff, "src/util.py", format="lean")
    assert tool.endswith(result.stdout)


def test_a_diff_of_too_many_lines_is_not_read_for_moves_across_it(tmp_path: Path) -> None:
    """Within the size bound, a diff of very many short lines would hold hundreds of MB
    once read for moves: past :data:`MOVES_ACROSS_LINES` its views look within
    themselves only (and still name the moves they hold)."""
    many = tmp_path / "many.diff"
    many.write_bytes(
        _file("a.py", _RUN, []) + _file("b.py", [], [*_RUN, *[b"x"] * MOVES_ACROSS_LINES])
    )
    few = tmp_path / "few.diff"
    few.write_bytes(_file("a.py", _RUN, []) + _file("b.py", [], _RUN))
    store = SessionStore()
    for path in (many, few):
        load_diff(str(path), store=store)
    assert partners(session(str(many), store)) is None
    found = partners(session(str(few), store))
    assert found is not None and len(found.blocks) == 2


def _file(path: str, removed: list[bytes], added: list[bytes]) -> bytes:
    head = f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
    hunk = f"@@ -1,{len(removed)} +1,{len(added)} @@\n"
    lines = [b"-" + t + b"\n" for t in removed] + [b"+" + t + b"\n" for t in added]
    return head.encode() + hunk.encode() + b"".join(lines)


_RUN = [
    f"    value_{i} = compute_something_long(argument_{i}, other_{i})".encode() for i in range(8)
]
