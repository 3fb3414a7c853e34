"""Property tests: exact edits and searches of the file tools against a plain model.

The model and the checks live in ``benchmarks/fuzz_files.py`` (which also runs
them in a long loop); here hypothesis draws the files, batches and patterns.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import fuzz_files as fz
from diffchunk.files import access
from diffchunk.files import search as search_module
from diffchunk.files.edit import edit_content, list_backups
from diffchunk.files.service import search_content

SETTINGS = settings(
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("DIFFCHUNK_BACKUP_DIR", str(tmp_path / "backups"))
    monkeypatch.delenv("DIFFCHUNK_NO_GREP", raising=False)
    access.clear_cache()
    yield
    access.clear_cache()


@st.composite
def text_files(draw: st.DrawFn) -> fz.TextFile:
    encoding = draw(st.sampled_from(("utf-8", "cp1252")))
    line = st.lists(
        st.tuples(st.sampled_from(fz.WORDS), st.sampled_from(fz.SEPARATORS)), max_size=5
    ).map(lambda pairs: "".join(word + sep for word, sep in pairs))
    trim = st.booleans()
    lines = [
        text.rstrip(" \t") if cut else text
        for text, cut in draw(st.lists(st.tuples(line, trim), max_size=8))
    ]
    if encoding == "cp1252" or draw(st.booleans()):
        lines.insert(0, fz.HEADER)
    return fz.TextFile(
        lines=tuple(lines),
        final_newline=draw(st.booleans()),
        newline=draw(st.sampled_from(("\n", "\r\n"))),
        encoding=encoding,
        bom=encoding == "utf-8" and draw(st.booleans()),
    )


@st.composite
def pieces(draw: st.DrawFn, tf: fz.TextFile) -> str:
    """A substring of one to three consecutive lines, or text that is absent."""
    text = tf.text
    if not text or draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(fz.ABSENT))
    lines = text.splitlines(keepends=True)
    first = draw(st.integers(0, len(lines) - 1))
    last = min(len(lines), first + draw(st.integers(1, 3)))
    block = "".join(lines[first:last])
    start = draw(st.integers(0, len(block) - 1))
    end = draw(st.integers(start + 1, len(block)))
    return block[start:end]


@st.composite
def edit_cases(draw: st.DrawFn) -> fz.EditCase:
    tf = draw(text_files())
    replacement = st.lists(
        st.sampled_from(fz.WORDS + fz.REPLACEMENT_EXTRA + fz.SEPARATORS), max_size=4
    ).map("".join)
    changes = []
    for _ in range(draw(st.integers(1, 4))):
        search = draw(pieces(tf))
        replace = search if draw(st.integers(0, 19)) == 0 else draw(replacement)
        changes.append((search, replace))
    return fz.EditCase(tf, tuple(changes))


@st.composite
def search_cases(draw: st.DrawFn) -> fz.SearchCase:
    tf = draw(text_files())
    lines = [line for line in tf.lines if line]
    if not lines or draw(st.integers(0, 6)) == 0:
        pattern = draw(st.sampled_from((*fz.ABSENT, "é", "É", "€", "aA", "\t")))
    else:
        line = draw(st.sampled_from(lines))
        start = draw(st.integers(0, len(line) - 1))
        pattern = line[start : draw(st.integers(start + 1, len(line)))]
        if draw(st.booleans()):
            pattern = pattern.swapcase()
    return fz.SearchCase(tf, pattern)


@settings(SETTINGS, max_examples=400)
@given(case=edit_cases())
def test_exact_edit_batches_match_the_model(case: fz.EditCase, tmp_path: Path) -> None:
    with tempfile.TemporaryDirectory(dir=tmp_path) as work:
        fz.check_edit(case, Path(work))


@settings(SETTINGS, max_examples=200)
@given(case=search_cases())
def test_exact_search_and_count_match_the_model_with_and_without_grep(
    case: fz.SearchCase, tmp_path: Path
) -> None:
    with tempfile.TemporaryDirectory(dir=tmp_path) as work:
        fz.check_search(case, Path(work))


def test_lf_search_text_in_a_crlf_cp1252_file_writes_crlf(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes("# header line\r\ncafé €1\r\nnext\r\n".encode("cp1252"))
    result = edit_content(
        str(path), [{"search": "café €1\nnext", "replace": "thé\n€2"}], fuzzy=False, preview=False
    )
    assert result["success"], result
    assert path.read_bytes() == "# header line\r\nthé\r\n€2\r\n".encode("cp1252")
    assert len(list_backups(str(path))) == 1


def test_refused_batch_leaves_file_and_backups_alone(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    original = "# header line\ncafé one\ncafé two\n".encode("cp1252")
    path.write_bytes(original)
    batches = [
        [{"search": "one", "replace": "1"}, {"search": "café", "replace": "x"}],  # 2 hits
        [{"search": "one", "replace": "ś"}],  # not in cp1252
        [{"search": "é one", "replace": "a"}, {"search": "one\ncafé", "replace": "b"}],
    ]
    for changes in batches:
        result = edit_content(str(path), changes, fuzzy=False, preview=False)
        assert not result["success"], (changes, result)
        assert path.read_bytes() == original
    assert list_backups(str(path)) == []


@pytest.mark.parametrize("invert", [False, True])
def test_grep_hand_off_sees_no_line_in_a_file_holding_only_a_bom(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, invert: bool
) -> None:
    # grep reads the BOM as a line of its own; the file has no line at all.
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf")
    monkeypatch.setattr(search_module, "GREP_MIN_BYTES", 0)
    found = search_content(str(path), "x", fuzzy=False, invert=invert)
    assert (found["total_matches"], found["results"]) == (0, [])
    counted = search_content(str(path), "x", fuzzy=False, invert=invert, count_only=True)
    assert counted["count"] == 0
