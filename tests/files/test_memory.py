"""Every file tool's memory is bounded whatever the line lengths.

A 1 GB file with no line break took the server to 3.1 GB (overview), 4.2 GB
(fuzzy search) and 6.2 GB (edit preview).  Here a 64 MB one-line file: each
tool, run in a process of its own (:mod:`tests.property.file_memory`), may
grow its peak resident size by at most :data:`BOUND`, half the line (the
tools held the line whole, two to fifteen times over: 64 MB for a read,
955 MB for a fuzzy search).  ``make bench-memory`` prints the 1 GB figures.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_data import ROOT

from diffchunk.files import grep
from diffchunk.files.access import open_text_version
from diffchunk.files.content_search import search_content
from tests.property.file_memory import NEEDLE, OPERATIONS, measure, write_one_line

MB = 1024 * 1024
SIZE = 64 * MB
BOUND = SIZE // 2

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/clear_refs").exists(), reason="needs Linux's /proc/self/clear_refs"
)


@pytest.fixture(scope="module")
def one_line(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_one_line(tmp_path_factory.mktemp("memory") / "one-line.json", SIZE)


def test_no_file_tool_holds_a_long_line(one_line: Path, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DIFFCHUNK_BACKUP_DIR": str(tmp_path / "backups"),
        "PYTHONPATH": str(ROOT),
    }
    rows = measure(one_line, env)
    assert [row["operation"] for row in rows] == list(OPERATIONS)
    for row in rows:
        assert row["error"] is None, row
        assert int(str(row["peak_growth"])) < BOUND, row
    assert one_line.read_bytes().count(NEEDLE.encode()) == 1  # reverted after the edit


def test_a_grep_out_of_memory_leaves_the_answer_to_the_python_scan(
    one_line: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # grep holds a line whole (twice): capped, it fails, and the scan answers alike.
    version = open_text_version(str(one_line))
    assert grep.grep_count(version, NEEDLE, case_sensitive=True, invert=False) == 1
    monkeypatch.setattr(grep, "GREP_ADDRESS_SPACE", 32 * MB)
    assert grep.grep_count(version, NEEDLE, case_sensitive=True, invert=False) is None
    found = search_content(str(one_line), NEEDLE, fuzzy=False).to_dict()
    assert found["total_matches"] == 1
    assert NEEDLE in found["results"][0]["match"]


# -- the bounded paths give the answers the whole reads gave ---------------------------


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """Short lines, lines of a few hundred characters (some multibyte), a CRLF one."""
    lines = [
        f"line {i} " + ("é€x" * (i * 37 % 300) if i % 7 == 0 else "word " * (i % 5))
        for i in range(400)
    ]
    lines[200] += "\r"
    path = tmp_path / "mixed.txt"
    path.write_bytes(("\n".join(lines) + "\n" + "tail " * 90).encode())
    return path


def _answers(path: Path) -> list[dict[str, object]]:
    from diffchunk.files import access
    from diffchunk.files.content_read import read_content
    from diffchunk.files.overview import get_overview

    access.clear_cache()
    answers: list[dict[str, object]] = [get_overview(str(path)).to_dict()["long_lines"]]
    for mode in ("lines", "head", "tail"):
        answers.append(read_content(str(path), 1, 300, mode=mode).to_dict())
    answers.append(read_content(str(path), 150, 200).to_dict())
    for pattern, regex, fuzzy in (
        ("é€xé", False, False),
        (r"\d+ é", True, False),
        ("wrod", False, True),
    ):
        found = search_content(str(path), pattern, regex=regex, fuzzy=fuzzy, max_results=50)
        answers.append(found.to_dict())
    return answers


def test_long_lines_read_in_pieces_answer_as_whole_ones(
    mixed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diffchunk.files import access, byte_reader, line_reads

    monkeypatch.setattr(access, "SMALL_FILE", 0)  # read through the file, not from memory
    whole = _answers(mixed)
    monkeypatch.setattr(byte_reader, "LINE_WINDOW", 256)  # most lines of é€x are long lines now
    monkeypatch.setattr(line_reads, "LINE_WINDOW", 256)  # reads go line by line
    assert _answers(mixed) == whole


def test_a_preview_shows_the_change_inside_a_long_line(tmp_path: Path) -> None:
    from diffchunk.files.edit import edit_content

    path = tmp_path / "min.js"
    path.write_bytes(
        b"// header\n" + b"a=1;" * 50_000 + b"needle=1;" + b"b=2;" * 50_000 + b"\nend\n"
    )
    preview = edit_content(str(path), [{"search": "needle=1", "replace": "needle=2"}]).preview
    minus = [line for line in preview.splitlines() if line.startswith("-") and "needle" in line]
    plus = [line for line in preview.splitlines() if line.startswith("+") and "needle" in line]
    # 100 bytes on each side of the change, the rest of the 400,009-byte line counted
    shown = "a=1;" * 25 + "needle=1" + ";b=2" * 25
    assert minus == [f"-[... 199900 bytes]{shown}[... 199901 bytes]"]
    assert plus == [minus[0].replace("needle=1", "needle=2").replace("-", "+", 1)]
    assert " // header" in preview and " end" in preview and "@@ -1,3 +1,3 @@" in preview
