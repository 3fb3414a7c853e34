"""The reader of a large file: the bytes methods the file tools use, read with pread,
and truncation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diffchunk.errors import FileToolError
from diffchunk.files import byte_reader
from diffchunk.files.byte_reader import Reader, last_lines_start, skip_lines


def _open(tmp_path: Path, data: bytes) -> Reader:
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    return Reader.of_file(open(path, "rb"), len(data), str(path))


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    data=st.binary(max_size=300).map(lambda b: b.replace(b"\x00", b"\n")),
    sub=st.sampled_from([b"\n", b"a", b"ab", b"\n\n", b"xyz", b""]),
    start=st.integers(-320, 320) | st.none(),
    end=st.integers(-320, 320) | st.none(),
)
def test_same_answers_as_bytes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    data: bytes,
    sub: bytes,
    start: int | None,
    end: int | None,
) -> None:
    # Tiny steps, so that matches straddle the reads.
    monkeypatch.setattr(byte_reader, "STEP", 7)
    monkeypatch.setattr(byte_reader, "FIRST_STEP", 3)
    fb = _open(tmp_path, data)
    assert len(fb) == len(data)
    assert fb.find(sub, start, end) == data.find(sub, start, end)
    assert fb.rfind(sub, start, end) == data.rfind(sub, start, end)
    if sub:
        assert fb.count(sub, start, end) == data.count(sub, start, end)
    else:
        with pytest.raises(ValueError):
            fb.count(sub)
    assert fb[start:end] == data[start:end]
    if data:
        assert fb[-1] == data[-1] and fb[0] == data[0]


@pytest.mark.parametrize("tail", [b"tail", b"", b"\n"])
def test_line_steps_over_file_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail: bytes
) -> None:
    monkeypatch.setattr(byte_reader, "STEP", 64)  # many blocks
    monkeypatch.setattr(byte_reader, "FIRST_STEP", 16)
    data = b"".join(b"line %d\n" % i for i in range(500)) + tail
    fb = _open(tmp_path, data)
    for pos, count in [(0, 1), (0, 100), (37, 250), (5, 499), (0, 501), (100, 0)]:
        assert skip_lines(fb, pos, count, len(data)) == skip_lines(data, pos, count, len(data))
    for start, count in [(0, 1), (0, 3), (0, 250), (90, 400), (0, 500), (0, 900), (2000, 7)]:
        expected = last_lines_start(data, start, len(data), count)
        assert last_lines_start(fb, start, len(data), count) == expected, (start, count)


def test_a_read_past_a_truncated_end_is_an_error(tmp_path: Path) -> None:
    fb = _open(tmp_path, b"x" * 1000)
    (tmp_path / "data.bin").write_bytes(b"x" * 10)
    assert fb[0:5] == b"xxxxx"
    with pytest.raises(FileToolError, match="became shorter"):
        fb[500:600]


def test_tools_on_a_large_file_truncated_meanwhile_report_it(tmp_path: Path) -> None:
    # With a memory mapping the process died of SIGBUS: the MCP server with it.
    log = tmp_path / "app.log"
    log.write_bytes(b"".join(b"2024-01-01 INFO request %06d done\n" % i for i in range(300_000)))
    code = f"""
import os
from diffchunk.files import access
from diffchunk.files.content_read import read_content
from diffchunk.files.content_search import search_content
from diffchunk.errors import FileToolError
path = {str(log)!r}
version = access.open_version(path)
assert version.data.memory is None, "the file is read on demand"
os.truncate(path, 1000)  # logrotate's copytruncate, say
from diffchunk.files import line_reads
try:
    print(line_reads.read_lines(version, 250_000, 3))
except FileToolError as exc:
    print("error:", exc.message)
print(read_content(path, mode="tail", limit=2).content.splitlines()[-1])
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    first, last = done.stdout.splitlines()[:2]
    assert first == "error: " + f"{log} became shorter while it was being read."
    assert last.startswith("2024-01-01 INFO request 0000")  # the new, short version
