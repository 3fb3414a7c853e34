"""read_content: lines/head/tail/semantic modes, numbers as sed prints them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from growing import appending_first

from diffchunk.errors import FileToolError, InvalidArgument
from diffchunk.files import access, line_reads
from diffchunk.files.access import clear_cache
from diffchunk.files.content_read import read_content
from diffchunk.files.content_search import search_content


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_cache()


def _sed(path: Path, first: int, last: int) -> str:
    out = subprocess.run(
        ["sed", "-n", f"{first},{last}p", str(path)], capture_output=True, check=True
    ).stdout
    return out.decode().replace("\r\n", "\n").rstrip("\n")


@pytest.fixture()
def numbered(tmp_path: Path) -> Path:
    path = tmp_path / "numbered.txt"
    path.write_text("".join(f"line {i}\n" for i in range(1, 5001)), encoding="utf-8")
    return path


@pytest.mark.parametrize(("offset", "limit"), [(1, 10), (2500, 7), (4990, 100), (5000, 1)])
def test_lines_mode_matches_sed(numbered: Path, offset: int, limit: int) -> None:
    result = read_content(str(numbered), offset=offset, limit=limit).to_dict()
    last = min(5000, offset + limit - 1)
    assert result["content"] == _sed(numbered, offset, last)
    assert (result["start_line"], result["end_line"]) == (offset, last)
    assert result["lines_returned"] == last - offset + 1
    assert result["total_lines"] == 5000
    assert result["truncated"] == (last < 5000)


def test_lines_mode_on_a_mapped_file_matches_sed(
    numbered: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(access, "SMALL_FILE", 100)
    result = read_content(str(numbered), offset=4321, limit=5).to_dict()
    assert result["content"] == _sed(numbered, 4321, 4325)
    assert (
        search_content(str(numbered), "line 4999", fuzzy=False).to_dict()["results"][0][
            "line_number"
        ]
        == 4999
    )


def test_crlf_and_lone_cr(tmp_path: Path) -> None:
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"one\r\ntwo\rstill two\r\nthree")
    result = read_content(str(path), offset=2, limit=5).to_dict()
    assert result["content"] == "two\rstill two\nthree"
    assert (result["start_line"], result["end_line"], result["total_lines"]) == (2, 3, 3)


def test_tail_without_trailing_newline(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    path.write_text("a\nb\nc\nlast line", encoding="utf-8")
    result = read_content(str(path), mode="tail", limit=2).to_dict()
    assert result["content"] == "c\nlast line"
    assert (result["start_line"], result["end_line"], result["total_lines"]) == (3, 4, 4)
    assert result["mode"] == "tail"
    assert result["truncated"] is False  # it ends at the last line: nothing follows
    everything = read_content(str(path), mode="tail", limit=50).to_dict()
    assert everything["content"] == "a\nb\nc\nlast line"
    assert everything["truncated"] is False


def test_tail_of_large_file_does_not_count_lines(
    numbered: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(line_reads, "COUNT_FOR_TOTAL", 10)
    result = read_content(str(numbered), mode="tail", limit=3).to_dict()
    assert result["content"] == "line 4998\nline 4999\nline 5000"
    assert result["total_lines"] is None and result["start_line"] is None
    assert any("not computed" in w for w in result["warnings"])
    # Once the index exists (any lines read), tail reports numbers again.
    read_content(str(numbered), offset=10, limit=1)
    again = read_content(str(numbered), mode="tail", limit=3).to_dict()
    assert (again["start_line"], again["end_line"], again["total_lines"]) == (4998, 5000, 5000)


def test_head_and_ignored_parameters(numbered: Path) -> None:
    result = read_content(str(numbered), mode="head", limit=3, offset=40, pattern="x").to_dict()
    assert result["content"] == "line 1\nline 2\nline 3"
    assert (result["start_line"], result["end_line"]) == (1, 3)
    assert any("pattern ignored" in w for w in result["warnings"])
    assert any("offset ignored" in w for w in result["warnings"])


def test_pattern_locates_start_exact_then_fuzzy(numbered: Path) -> None:
    exact = read_content(str(numbered), pattern="line 1234", limit=2).to_dict()
    assert exact["content"] == "line 1234\nline 1235"
    assert exact["match_line"] == 1234 and exact["similarity_score"] == 1.0
    with pytest.raises(FileToolError, match="not found"):
        read_content(str(numbered), pattern="zzzzqqqq")


PY_SOURCE = '''import os


class Greeter:
    """Says hello."""

    def greet(self, name):
        message = f"hello {name}"
        return message

    def part(self):
        return 2


def helper():
    return 1
'''


def test_semantic_mode_returns_the_whole_function(tmp_path: Path) -> None:
    path = tmp_path / "greeter.py"
    path.write_text(PY_SOURCE, encoding="utf-8")
    result = read_content(str(path), offset=8, mode="semantic").to_dict()
    assert result["content"].splitlines()[0].strip() == "def greet(self, name):"
    assert (result["start_line"], result["end_line"]) == (7, 9)
    by_pattern = read_content(str(path), pattern="def helper", mode="semantic").to_dict()
    assert by_pattern["content"] == "def helper():\n    return 1"
    assert by_pattern["match_line"] == 15


def test_semantic_mode_falls_back_to_lines_without_outline(numbered: Path) -> None:
    result = read_content(str(numbered), offset=3, limit=2, mode="semantic").to_dict()
    assert result["content"] == "line 3\nline 4"
    assert any("fell back" in w for w in result["warnings"])


def test_long_lines_are_cut_with_marker(tmp_path: Path) -> None:
    path = tmp_path / "min.js"
    path.write_text("short\n" + "x" * 5000 + "\n", encoding="utf-8")
    result = read_content(str(path)).to_dict()
    first, second = result["content"].split("\n")
    assert first == "short"
    assert second.startswith("x" * 1000) and "4000 more characters" in second
    assert any("longer than 1000" in w for w in result["warnings"])


def test_bad_arguments(numbered: Path) -> None:
    with pytest.raises(InvalidArgument, match="lines, semantic, head, tail"):
        read_content(str(numbered), mode="middle")
    with pytest.raises(InvalidArgument, match="offset"):
        read_content(str(numbered), offset=0)
    with pytest.raises(InvalidArgument, match="limit"):
        read_content(str(numbered), limit=0)
    with pytest.raises(InvalidArgument, match="past the end"):
        read_content(str(numbered), offset=5001)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    for mode in ("lines", "head", "tail"):
        result = read_content(str(path), mode=mode).to_dict()
        assert result["content"] == "" and result["lines_returned"] == 0
        assert result["total_lines"] == 0


@pytest.mark.parametrize("use_wc", [True, False])
def test_read_near_end_without_index_matches_sed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_wc: bool
) -> None:
    path = tmp_path / "big.txt"
    path.write_text(
        "".join(f"row {i} {'x' * (i % 7)}\n" for i in range(1, 30001)) + "end", encoding="utf-8"
    )
    monkeypatch.setattr(access, "WC_MIN_BYTES", 0)
    if not use_wc:
        monkeypatch.setenv("DIFFCHUNK_NO_GREP", "1")
    result = read_content(str(path), offset=29_990, limit=20).to_dict()
    assert result["content"] == _sed(path, 29_990, 30_001)
    assert (result["start_line"], result["end_line"], result["total_lines"]) == (
        29_990,
        30_001,
        30_001,
    )
    version = access.open_version(str(path))
    assert version.index_built is (not use_wc)
    # Far from the end the index is used; numbers agree either way.
    middle = read_content(str(path), offset=1234, limit=2).to_dict()
    assert middle["content"] == _sed(path, 1234, 1235)


def test_lines_appended_while_wc_counts_do_not_shift_line_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # wc -l reads to the file's end as it is then: lines a writer appends
    # meanwhile were counted for the version read, and line N came out as N-k.
    path = tmp_path / "growing.log"
    path.write_bytes(b"".join(b"line %05d\n" % i for i in range(1, 2001)))
    monkeypatch.setattr(access, "WC_MIN_BYTES", 0)
    late = b"".join(b"late %05d\n" % i for i in range(5))
    version = access.open_version(str(path))
    monkeypatch.setattr(access.subprocess, "run", appending_first(path, late, subprocess.run))
    assert version.line_count() == 2000  # this version's lines, not the grown file's
    assert version.index_built  # counted from the version's own bytes instead


def test_a_huge_line_is_not_decoded_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A one-line file of hundreds of MB took four times its size to line_reads.
    monkeypatch.setattr(line_reads, "WHOLE_LINE_BYTES", 0)
    decoded: list[int] = []
    path = tmp_path / "one-line.json"
    path.write_text('{"a": "' + "é" * 3000 + '"}\n', encoding="utf-8")
    version = access.open_version(str(path))
    real_decode = version.decode
    monkeypatch.setattr(version, "decode", lambda raw: decoded.append(len(raw)) or real_decode(raw))
    text, count, cut = line_reads.decode_lines(version, version.data[0 : version.end])
    assert (count, cut) == (1, 1) and max(decoded) <= 1000 * 4 + 4
    kept, _, marker = text.partition("… [line truncated: ")
    assert len(kept) == 1000 and marker == f"{6009 - len(kept.encode())} more bytes]"


def test_a_line_over_64_kib_is_cut_without_decoding_it_whole(tmp_path: Path) -> None:
    # (a constant of the search once shadowed this one's threshold)
    path = tmp_path / "wide.txt"
    path.write_text("é" * 100_000 + "\nnext\n", encoding="utf-8")
    content = read_content(str(path), 1, 1).to_dict()["content"]
    kept, _, marker = content.partition("… [line truncated: ")
    assert marker == f"{200_000 - len(kept.encode())} more bytes]"


def test_a_tail_cut_to_fit_a_reply_still_ends_at_the_last_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diffchunk.files import content_read

    path = tmp_path / "wide.log"
    path.write_text("".join(f"{i:04d} " + "x" * 95 + "\n" for i in range(1, 2001)))
    monkeypatch.setattr(content_read, "READ_MAX_CONTENT_CHARS", 10_000)
    result = read_content(str(path), mode="tail", limit=500).to_dict()
    assert result["end_line"] == result["total_lines"] == 2000
    assert result["content"].endswith("2000 " + "x" * 95)
    assert result["start_line"] == 2000 - result["lines_returned"] + 1 > 1500
    # Fewer lines than asked (the 720 of 1,000): truncated says so.
    assert result["lines_returned"] < 500
    assert result["truncated"] is True
    assert any("Output stopped" in w for w in result["warnings"])
