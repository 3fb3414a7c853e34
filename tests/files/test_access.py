"""File access: encodings, binary detection, the line index (numbers as sed sees them)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diffchunk.errors import FileToolError, PathError
from diffchunk.files import access
from diffchunk.files.access import clear_cache, detect_encoding, open_text_version, open_version
from diffchunk.files.byte_reader import LongLine, last_lines_start, skip_lines
from diffchunk.files.lineindex import LineIndex

CASES = {
    "crlf": b"one\r\ntwo\r\nthree\r\n",
    "lone_cr": b"a\rb\nc\rd\n\re\n",
    "no_trailing_newline": b"first\nsecond\nthird",
    "empty": b"",
    "only_newlines": b"\n\n\n",
    "single_line_no_newline": b"solo",
    "blank_last_line": b"x\n\n",
}


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_cache()


def _sed_line(path: Path, n: int) -> bytes:
    return subprocess.run(["sed", "-n", f"{n}p", str(path)], capture_output=True, check=True).stdout


def _expected_lines(data: bytes) -> list[bytes]:
    """Lines as sed prints them (each ending in \\n)."""
    if not data:
        return []
    parts = data.split(b"\n")
    if parts[-1] == b"":
        parts.pop()
    return [p + b"\n" for p in parts]


@pytest.mark.parametrize("name", sorted(CASES))
def test_line_count_and_lines_agree_with_sed_and_wc(tmp_path: Path, name: str) -> None:
    data = CASES[name]
    path = tmp_path / f"{name}.txt"
    path.write_bytes(data)
    version = open_text_version(str(path))
    index = version.line_index()
    wc = int(subprocess.run(["wc", "-l"], input=data, capture_output=True, check=True).stdout)
    unterminated = 1 if data and not data.endswith(b"\n") else 0
    assert index.line_count == wc + unterminated
    expected = _expected_lines(data)
    assert index.line_count == len(expected)
    for n in range(1, index.line_count + 1):
        start = index.line_start(version.data, n)
        end = index.line_start(version.data, n + 1)
        line = bytes(version.data[start:end])
        # sed prints a final unterminated line without adding a newline
        assert line.rstrip(b"\n") == _sed_line(path, n).rstrip(b"\n")
        assert line.rstrip(b"\n") == expected[n - 1].rstrip(b"\n")


def test_line_index_across_blocks_and_windows_matches_split(tmp_path: Path) -> None:
    rng = random.Random(7)
    lines = [b"x" * rng.choice((0, 1, 5, 80, 3000)) for _ in range(20_000)]
    data = b"\n".join(lines) + b"\ntail-without-newline"
    path = tmp_path / "many.txt"
    path.write_bytes(data)
    version = open_text_version(str(path))
    expected_starts = [0]
    for line in lines:
        expected_starts.append(expected_starts[-1] + len(line) + 1)
    # Small windows exercise window boundaries; the default exercises blocks.
    for index in (
        version.line_index(),
        LineIndex.build(version.windows(size=4096), version.start, version.end),
    ):
        assert index.line_count == len(lines) + 1
        for n in [
            1,
            2,
            3,
            1000,
            4097,
            12345,
            19999,
            20000,
            20001,
            *rng.sample(range(1, 20002), 200),
        ]:
            assert index.line_start(version.data, n) == expected_starts[n - 1]
            assert index.line_of_offset(version.data, expected_starts[n - 1]) == n


@pytest.mark.parametrize("in_memory", [False, True])
def test_file_windows_are_line_aligned_bounded_and_tile_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_memory: bool
) -> None:
    # Lines longer than a window (in the middle, and an unterminated last one)
    # come as their bounds, never as a grown window.
    monkeypatch.setattr(access, "SMALL_FILE", 1 << 20 if in_memory else 1024)
    lines = b"".join(b"line %d %s\n" % (i, b"y" * (i % 50)) for i in range(3000))
    data = lines + b"x" * 5000 + b"\n" + lines + b"z" * 9000
    path = tmp_path / "mapped.txt"
    path.write_bytes(data)
    version = open_text_version(str(path))
    assert (version.data.memory is None) is not in_memory
    pieces = []
    long_lines = []
    for step in version.windows(size=1000):
        if isinstance(step, LongLine):
            chunk = data[step.start : step.stop]
            assert step.start == sum(len(p) for p in pieces)
            assert step.terminated == chunk.endswith(b"\n")
            long_lines.append(len(chunk))
        else:
            base, buf, length = step
            chunk = bytes(buf[:length])
            assert base == sum(len(p) for p in pieces) and length <= 1000
            if base + length < len(data):
                assert chunk.endswith(b"\n")
        pieces.append(chunk)
    assert b"".join(pieces) == data
    assert long_lines == [5001, 9000]
    assert version.line_index().line_count == 6002


def test_tail_and_skip_helpers_without_index() -> None:
    data = b"a\nbb\nccc"
    assert data[last_lines_start(data, 0, len(data), 2) :] == b"bb\nccc"
    assert data[last_lines_start(data, 0, len(data), 10) :] == data
    assert last_lines_start(b"a\nb\n", 0, 4, 1) == 2
    assert skip_lines(data, 0, 2, len(data)) == 5
    assert skip_lines(data, 0, 100, len(data)) == len(data)
    many = b"\n".join(b"%d" % i for i in range(500)) + b"\n"
    assert many[: skip_lines(many, 0, 120, len(many))].count(b"\n") == 120


@pytest.mark.parametrize(
    ("raw", "encoding", "bom", "text"),
    [
        ("héllo wörld\n".encode(), "utf-8", b"", "héllo wörld"),
        (b"\xef\xbb\xbf" + "bom café\n".encode(), "utf-8", b"\xef\xbb\xbf", "bom café"),
        (
            b"\xff\xfe" + "utf16 € line\nsecond\n".encode("utf-16-le"),
            "utf-16-le",
            b"\xff\xfe",
            "utf16 € line",
        ),
        ("Le café coûte 5€\nà bientôt\n".encode("cp1252"), "cp1252", b"", "Le café coûte 5€"),
        (b"plain ascii\n", "utf-8", b"", "plain ascii"),
    ],
)
def test_encodings_detected_and_first_line_decoded(
    tmp_path: Path, raw: bytes, encoding: str, bom: bytes, text: str
) -> None:
    path = tmp_path / "enc.txt"
    path.write_bytes(raw)
    version = open_text_version(str(path))
    assert (version.encoding, version.bom) == (encoding, bom)
    index = version.line_index()
    first = version.decode(
        version.data[index.line_start(version.data, 1) : index.line_start(version.data, 2)]
    )
    assert first.rstrip("\n") == text


def test_utf8_multibyte_char_cut_at_sample_edge_is_still_utf8() -> None:
    sample = ("é" * 10).encode()[:-1]  # ends mid-character
    assert detect_encoding(sample) == ("utf-8", b"")


@pytest.mark.parametrize(
    ("head", "hint"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 50, "image"),
        (b"\x1f\x8b\x08\x00" + b"\x00" * 50, "compressed"),
        (b"\x7fELF\x02\x01\x01" + b"\x00" * 50, "executable"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\x00", "pdf"),
        (b"some text\x00with a NUL\n", "data"),
    ],
)
def test_binary_files_refused_for_text_with_hint(tmp_path: Path, head: bytes, hint: str) -> None:
    path = tmp_path / "blob.bin"
    path.write_bytes(head)
    version = open_version(str(path))
    assert version.is_binary
    assert version.binary_hint == hint
    with pytest.raises(FileToolError, match="binary"):
        open_text_version(str(path))


def test_real_executable_is_binary() -> None:
    ls = shutil.which("ls")
    if ls is None:
        pytest.skip("no ls binary")
    version = open_version(os.path.realpath(ls))
    assert version.is_binary and version.binary_hint == "executable"


def test_dominant_newline(tmp_path: Path) -> None:
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(b"a\r\nb\r\nc\n")
    lf = tmp_path / "lf.txt"
    lf.write_bytes(b"a\nb\r\nc\n")
    assert open_text_version(str(crlf)).newline == b"\r\n"
    assert open_text_version(str(lf)).newline == b"\n"


def test_versions_cached_until_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"one\n")
    first = open_text_version(str(path))
    assert open_text_version(str(path)) is first
    path.write_bytes(b"one\ntwo\n")
    os.utime(path, ns=(1, 1))
    second = open_text_version(str(path))
    assert second is not first
    assert second.line_index().line_count == 2


def test_relative_and_directory_paths_refused(tmp_path: Path) -> None:
    with pytest.raises(PathError, match="relative"):
        open_version("some/file.txt")
    with pytest.raises(PathError, match="directory"):
        open_version(str(tmp_path))


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(st.sampled_from([b"a", b"\n", b"\r", b"\r\n", "é".encode(), b"xyz" * 40]), max_size=80)
)
def test_line_index_matches_a_split_model(tmp_path: Path, parts: list[bytes]) -> None:
    clear_cache()
    data = b"".join(parts)
    path = tmp_path / "prop.txt"
    path.write_bytes(data)
    version = open_text_version(str(path))
    expected = _expected_lines(data)
    index = LineIndex.build(version.windows(size=7), version.start, version.end)
    assert index.line_count == len(expected) == version.line_count()
    offset = 0
    for n, line in enumerate(expected, start=1):
        assert index.line_start(version.data, n) == offset
        offset += len(line) if offset + len(line) <= len(data) else len(line) - 1
    assert index.line_start(version.data, len(expected) + 1) == len(data)


def test_mapped_version_closes_its_file_when_released(tmp_path: Path) -> None:
    """A mapped version's file is closed explicitly when the version is let go
    (not left to the garbage collector's unclosed-file fallback)."""
    import gc
    import warnings

    from diffchunk.files import access

    big = tmp_path / "big.log"
    big.write_bytes(b"line\n" * (access.SMALL_FILE // 5 + 10))
    access.clear_cache()
    gc.collect()
    before = len(os.listdir("/proc/self/fd"))
    version = access.open_version(str(big))
    assert len(os.listdir("/proc/self/fd")) > before  # mapped and open
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        access.clear_cache()
        del version
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []
    assert len(os.listdir("/proc/self/fd")) == before


def test_utf8_with_a_stray_byte_stays_utf8(tmp_path: Path) -> None:
    from diffchunk.files.content_search import search_content
    from diffchunk.files.encoding import sniff

    # One Latin-1 byte pasted into UTF-8 text made the whole file cp1252:
    # its UTF-8 text could not be found and read back garbled.
    mixed = "msg = 'café crème'\n".encode() + b"name = '\xe9'\n"
    assert sniff(mixed).encoding == "utf-8"
    path = tmp_path / "mixed.py"
    path.write_bytes(mixed)
    assert search_content(str(path), "café", fuzzy=False).to_dict()["total_matches"] == 1
    # Text in a code page stays in it.
    assert sniff("café crème à la mode, déjà vu\n".encode("cp1252")).encoding == "cp1252"
