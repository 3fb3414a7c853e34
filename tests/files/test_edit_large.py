"""edit_content on large files: the streaming path agrees with the in-memory one, and
the streamed line helpers with plain bytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from editkit import edit_file, write_utf8
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from diffchunk.files import byte_reader, edit_snapshot, fuzzy_block
from diffchunk.files.byte_reader import Reader

# Each test's backups go to a directory of its own (DIFFCHUNK_BACKUP_DIR).
pytestmark = pytest.mark.usefixtures("backup_dir")


def _big_text(lines: int) -> str:
    return "".join(f"    record_{i:06d} = compute({i}, 'value {i % 97}')\n" for i in range(lines))


def test_streaming_path_matches_in_memory_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _big_text(6000)
    changes: list[dict[str, object]] = [
        {"search": "record_000010 = compute(10, 'value 10')\n", "replace": "first\n"},
        {
            "search": "    record_004321 = compute(4321, 'value 53')\n    record_004322",
            "replace": "    joined\n    record_004322",
        },
        {"search": "record_005990 = compute(5990,  'value 73')", "replace": "fuzzy_one = 1"},
    ]
    small = write_utf8(tmp_path / "small.py", text)
    expected = edit_file(small, changes, preview=False)
    assert expected["success"] is True, expected
    # Same edit on the streaming path: tiny windows so needles straddle them.
    monkeypatch.setattr(edit_snapshot, "IN_MEMORY_LIMIT", 1024)
    monkeypatch.setattr(byte_reader, "BLOCK", 4099)
    streamed = write_utf8(tmp_path / "streamed.py", text)
    got = edit_file(streamed, changes, preview=False)
    assert got["success"] is True, got
    assert streamed.read_bytes() == small.read_bytes()
    assert [r["line_number"] for r in got["results"]] == [
        r["line_number"] for r in expected["results"]
    ]
    assert got["results"][2]["match_type"] == "fuzzy"
    # Duplicates are still found across windows.
    dup = edit_file(streamed, [{"search": "compute(", "replace": "x("}])
    assert "more than" in dup["results"][0]["error"]
    # Where fuzzy matching only looks near rare words, it finds the block
    # but does not apply it: a closer one elsewhere could have been missed.
    monkeypatch.setattr(fuzzy_block, "FULL_FUZZY_LIMIT", 1024)
    anchored = write_utf8(tmp_path / "anchored.py", text)
    refused = edit_file(anchored, changes, preview=False)
    assert refused["success"] is False and anchored.read_text() == text
    error = refused["results"][2]["error"]
    line = expected["results"][2]["line_number"]
    assert f"closest block found is at line {line}" in error and "not applied" in error
    assert refused["results"][2]["similar_matches"][0]["line"] == line


def test_large_file_fuzzy_without_anchor_explains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(edit_snapshot, "IN_MEMORY_LIMIT", 1024)
    monkeypatch.setattr(fuzzy_block, "FULL_FUZZY_LIMIT", 1024)
    f = write_utf8(tmp_path / "big.py", _big_text(500))
    result = edit_file(f, [{"search": "totally_absent_identifier = 3", "replace": "x"}])
    assert result["success"] is False
    assert "none occurs" in result["results"][0]["error"]


def test_line_numbers_from_an_existing_line_index(tmp_path: Path) -> None:
    from diffchunk.files.access import open_version

    f = write_utf8(tmp_path / "indexed.py", _big_text(3000))
    open_version(str(f)).line_index()  # as left behind by an earlier read or search
    result = edit_file(
        f,
        [
            {"search": "record_002718 = ", "replace": "renamed = "},
            {"search": "record_000001 =", "replace": "one ="},
        ],
    )
    assert [r["line_number"] for r in result["results"]] == [2719, 2]
    dup = edit_file(f, [{"search": "compute(27", "replace": "x"}])
    assert "lines 28, 271, 272, 273" in dup["results"][0]["error"]


@settings(max_examples=examples(60), deadline=None)
@given(
    data=st.binary(max_size=300).map(lambda b: b.replace(b"\r", b"")),
    picks=st.lists(st.integers(0, 300), min_size=1, max_size=5),
    count=st.integers(0, 6),
)
def test_streamed_line_helpers_agree_with_memory(data: bytes, picks: list[int], count: int) -> None:
    import tempfile

    with tempfile.TemporaryFile() as handle:
        handle.write(data)
        handle.flush()
        memory = Reader.of_bytes(data)
        streamed = Reader.of_fd(handle.fileno(), len(data))
        for pick in picks:
            pos = min(pick, len(data))
            start = memory.line_start(pos)
            assert streamed.line_start(pos) == start
            assert streamed.line_end(pos) == memory.line_end(pos)
            back = memory.last_lines_start(0, start, count)
            assert streamed.last_lines_start(0, start, count) == back
            assert back == _naive_back(data, start, count)
            forward = memory.skip_lines(start, count)
            assert streamed.skip_lines(start, count) == forward
            assert forward == _naive_forward(data, start, count)


def _naive_back(data: bytes, pos: int, count: int) -> int:
    for _ in range(count):
        if pos == 0:
            break
        pos = data.rfind(b"\n", 0, pos - 1) + 1
    return pos


def _naive_forward(data: bytes, pos: int, count: int) -> int:
    for _ in range(count):
        if pos >= len(data):
            return len(data)
        nl = data.find(b"\n", pos)
        pos = len(data) if nl < 0 else nl + 1
    return pos


def test_streamed_line_helpers_with_lines_longer_than_a_block(tmp_path: Path) -> None:
    data = b"".join(bytes([65 + i]) * (70_000 + i) + b"\n" for i in range(6)) + b"tail"
    f = tmp_path / "long.txt"
    f.write_bytes(data)
    fd = os.open(f, os.O_RDONLY)
    try:
        streamed = Reader.of_fd(fd, len(data))
        starts = [0] + [i + 1 for i, b in enumerate(data) if b == 10]
        for index, start in enumerate(starts):
            assert streamed.line_start(start + 5) == start
            for count in range(4):
                assert streamed.last_lines_start(0, start, count) == starts[max(0, index - count)]
                expected = starts[index + count] if index + count < len(starts) else len(data)
                assert streamed.skip_lines(start, count) == expected
    finally:
        os.close(fd)
