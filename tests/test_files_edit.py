from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diffchunk.errors import FileToolError, InvalidArgument, PathError
from diffchunk.files import fuzzy_block, reader, snapshot
from diffchunk.files.edit import edit_content, list_backups
from diffchunk.files.reader import Reader

SAMPLE = (
    "import os\n"
    "\n"
    "def load(path):\n"
    "    with open(path) as handle:\n"
    "        data = handle.read()\n"
    "    return data\n"
    "\n"
    "\n"
    "class Store:\n"
    "    def __init__(self, root):\n"
    "        self.root = root\n"
    "\n"
    "    def save(self, name, value):\n"
    "        target = os.path.join(self.root, name)\n"
    "        with open(target, 'w') as handle:\n"
    "            handle.write(value)\n"
    "        return target\n"
)


@pytest.fixture(autouse=True)
def _backup_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "backups"
    monkeypatch.setenv("DIFFCHUNK_BACKUP_DIR", str(target))
    return target


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def _edit(path: Path, changes: list[dict[str, object]], **kw: Any) -> dict[str, Any]:
    return edit_content(str(path), changes, **kw).to_dict()


def test_exact_edit_writes_and_reports_line(tmp_path: Path) -> None:
    f = _write(tmp_path / "a.py", SAMPLE)
    result = _edit(
        f, [{"search": "data = handle.read()", "replace": "data = handle.read(10)"}], preview=False
    )
    assert result["success"] is True
    assert result["written"] is True
    item = result["results"][0]
    assert item["line_number"] == 5
    assert item["match_type"] == "exact"
    assert f.read_text() == SAMPLE.replace("handle.read()", "handle.read(10)")
    assert result["backup_created"]
    assert Path(str(result["backup_created"])).read_text() == SAMPLE


def test_preview_is_default_and_writes_nothing(tmp_path: Path) -> None:
    f = _write(tmp_path / "a.py", SAMPLE)
    result = _edit(f, [{"search": "return data", "replace": "return data.strip()"}])
    assert result["success"] is True
    assert result["written"] is False
    # changes_applied says what a write would apply; changes_matched what was found
    assert (result["changes_applied"], result["changes_matched"]) == (1, 1)
    assert result["backup_created"] is None
    assert f.read_text() == SAMPLE
    assert list_backups(str(f)) == []
    assert "-    return data\n+    return data.strip()" in str(result["preview"])


def test_preview_shows_only_affected_region_with_real_line_numbers(tmp_path: Path) -> None:
    lines = [f"line {i}" for i in range(1, 2001)]
    f = _write(tmp_path / "big.txt", "\n".join(lines) + "\n")
    result = _edit(
        f,
        [
            {"search": "line 100\n", "replace": "line one hundred\n"},
            {"search": "line 1500\nline 1501\n", "replace": "merged 1500-1501\n"},
        ],
    )
    preview = str(result["preview"])
    assert "@@ -97,7 +97,7 @@" in preview
    assert "@@ -1497,8 +1497,7 @@" in preview
    assert "-line 100\n+line one hundred" in preview
    assert "line 50\n" not in preview and "line 1000\n" not in preview
    assert len(preview.splitlines()) < 30


def test_multiline_exact_and_batch_located_in_original(tmp_path: Path) -> None:
    f = _write(tmp_path / "a.py", SAMPLE)
    result = _edit(
        f,
        [
            {"search": "import os\n", "replace": "import os\nimport sys\n"},
            # Located in the original text, not after the first change.
            {
                "search": "def load(path):\n    with open(path) as handle:",
                "replace": "def load(path):\n    with open(path, encoding='utf-8') as handle:",
            },
        ],
        preview=False,
    )
    assert result["success"] is True
    lines = [r["line_number"] for r in result["results"]]
    assert lines == [1, 3]
    text = f.read_text()
    assert text.startswith(
        "import os\nimport sys\n\ndef load(path):\n    with open(path, encoding='utf-8')"
    )


def test_fuzzy_multiline_with_indentation_drift_reindents_replacement(tmp_path: Path) -> None:
    f = _write(tmp_path / "a.py", SAMPLE)
    search = "def save(self, name, value):\n    target = os.path.join(self.root,  name)\n    with open(target, 'w') as handle:\n"
    replace = "def save(self, name, value):\n    target = self.path(name)\n    with open(target, 'w') as handle:\n"
    result = _edit(f, [{"search": search, "replace": replace}], preview=False)
    assert result["success"] is True, result
    item = result["results"][0]
    assert item["match_type"] == "fuzzy"
    assert item["line_number"] == 13
    assert 0.85 <= item["similarity"] <= 1.0
    expected = SAMPLE.replace(
        "    def save(self, name, value):\n        target = os.path.join(self.root, name)\n",
        "    def save(self, name, value):\n        target = self.path(name)\n",
    )
    assert f.read_text() == expected


def test_fuzzy_replaces_exactly_the_matched_lines(tmp_path: Path) -> None:
    text = "alpha = 1\nbeta  =  2\ngamma = 3\ndelta = 4\n"
    f = _write(tmp_path / "v.txt", text)
    result = _edit(f, [{"search": "beta = 2\ngamma = 3", "replace": "BG"}], preview=False)
    assert result["results"][0]["match_type"] == "fuzzy"
    # Neighbouring lines are neither merged nor split; the line ending stays.
    assert f.read_text() == "alpha = 1\nBG\ndelta = 4\n"


def test_fuzzy_off_refuses_and_suggests(tmp_path: Path) -> None:
    f = _write(tmp_path / "a.py", SAMPLE)
    result = _edit(f, [{"search": "def lod(path):", "replace": "x", "fuzzy": False}])
    assert result["success"] is False
    item = result["results"][0]
    assert "not found" in item["error"]
    assert item["similar_matches"][0]["line"] == 3
    assert item["similar_matches"][0]["similarity"] > 0.8


def test_miss_returns_similar_matches_with_line_numbers(tmp_path: Path) -> None:
    f = _write(tmp_path / "a.py", SAMPLE)
    result = _edit(f, [{"search": "class Storage:\n    def __init__(this, base):", "replace": "x"}])
    item = result["results"][0]
    assert item["success"] is False
    assert "threshold" in item["error"]
    best = item["similar_matches"][0]
    assert best["line"] == 9
    assert best["content"].startswith("class Store:")
    assert 0.6 < best["similarity"] < 0.85
    assert len(item["similar_matches"]) <= 5


def test_duplicate_exact_search_refused_with_line_numbers(tmp_path: Path) -> None:
    f = _write(tmp_path / "a.py", SAMPLE)
    before = f.read_bytes()
    result = _edit(f, [{"search": "as handle:", "replace": "as fh:"}], preview=False)
    assert result["success"] is False
    error = result["results"][0]["error"]
    assert "2 times" in error and "lines 4, 15" in error
    assert "surrounding lines" in error
    assert f.read_bytes() == before


def test_ambiguous_fuzzy_match_refused(tmp_path: Path) -> None:
    block = "if ready:\n    start()\n    wait()\n"
    text = (
        "def a():\n    "
        + block.replace("\n    ", "\n        ")
        + "\ndef b():\n    "
        + block.replace("\n    ", "\n        ")
    )
    f = _write(tmp_path / "dup.py", text)
    result = _edit(
        f, [{"search": "if ready:\n  start()\n  wait()", "replace": "go()"}], preview=False
    )
    assert result["success"] is False
    assert "ambiguous" in result["results"][0]["error"]
    assert f.read_text() == text


def test_overlapping_changes_refused(tmp_path: Path) -> None:
    f = _write(tmp_path / "a.py", SAMPLE)
    before = f.read_bytes()
    result = _edit(
        f,
        [
            {"search": "def load(path):\n    with open(path)", "replace": "x"},
            {"search": "with open(path) as handle:", "replace": "y"},
        ],
        preview=False,
    )
    assert result["success"] is False
    assert result["changes_failed"] == 2
    for item in result["results"]:
        assert "overlaps" in item["error"]
    assert f.read_bytes() == before


def test_all_or_nothing_leaves_file_identical_and_no_backup(
    tmp_path: Path, _backup_dir: Path
) -> None:
    f = _write(tmp_path / "a.py", SAMPLE)
    before = f.read_bytes()
    st = f.stat()
    result = _edit(
        f,
        [
            {"search": "import os", "replace": "import os, sys"},
            {"search": "this text is nowhere at all", "replace": "x", "fuzzy": False},
        ],
        preview=False,
    )
    assert result["success"] is False
    assert result["changes_applied"] == 0
    assert result["changes_matched"] == 1  # the first was found; the batch writes nothing
    assert result["changes_failed"] == 1
    assert result["results"][0]["success"] is True
    assert f.read_bytes() == before
    assert f.stat().st_ino == st.st_ino
    assert list_backups(str(f)) == []
    assert not [p for p in tmp_path.iterdir() if ".diffchunk-" in p.name]


def test_crlf_file_edited_with_lf_search_keeps_crlf(tmp_path: Path) -> None:
    f = tmp_path / "win.txt"
    f.write_bytes(b"first\r\nsecond\r\nthird\r\n")
    result = _edit(
        f, [{"search": "second\nthird\n", "replace": "2nd\nthree\nfour\n"}], preview=False
    )
    assert result["success"] is True
    assert f.read_bytes() == b"first\r\n2nd\r\nthree\r\nfour\r\n"
    # A one-line search inside a CRLF line: inserted lines take that line's ending.
    _edit(f, [{"search": "2nd", "replace": "two\nlines"}], preview=False)
    assert f.read_bytes() == b"first\r\ntwo\r\nlines\r\nthree\r\nfour\r\n"


def test_crlf_fuzzy_match_keeps_crlf(tmp_path: Path) -> None:
    f = tmp_path / "win.txt"
    f.write_bytes(b"a = 1\r\n  b = 2\r\nc = 3\r\n")
    result = _edit(f, [{"search": "b = 2\nc  = 3\n", "replace": "b = 20\nc = 30\n"}], preview=False)
    assert result["results"][0]["match_type"] == "fuzzy"
    assert f.read_bytes() == b"a = 1\r\n  b = 20\r\n  c = 30\r\n"


def test_utf8_bom_kept(tmp_path: Path) -> None:
    f = tmp_path / "bom.txt"
    f.write_bytes(b"\xef\xbb\xbfhello\nworld\n")
    _edit(f, [{"search": "hello", "replace": "h\u00e9llo"}], preview=False)
    assert f.read_bytes() == b"\xef\xbb\xbfh\xc3\xa9llo\nworld\n"
    # Fuzzy match on the first line must not swallow the BOM.
    _edit(f, [{"search": "  h\u00e9llo", "replace": "bye"}], preview=False)
    assert f.read_bytes() == b"\xef\xbb\xbfbye\nworld\n"


def test_cp1252_round_trip_and_unrepresentable_refused(tmp_path: Path) -> None:
    text = (
        "Caf\u00e9 cr\u00e8me \u2014 \u20ac 5\n" * 40 + "na\u00efve r\u00e9sum\u00e9 fa\u00e7ade\n"
    )
    f = tmp_path / "legacy.txt"
    f.write_bytes(text.encode("cp1252"))
    result = _edit(
        f,
        [{"search": "na\u00efve r\u00e9sum\u00e9", "replace": "\u00fcber r\u00e9sum\u00e9 \u20ac"}],
        preview=False,
    )
    assert result["success"] is True, result
    assert f.read_bytes() == text.replace(
        "na\u00efve r\u00e9sum\u00e9", "\u00fcber r\u00e9sum\u00e9 \u20ac"
    ).encode("cp1252")
    before = f.read_bytes()
    result = _edit(f, [{"search": "fa\u00e7ade", "replace": "\u6f22\u5b57"}], preview=False)
    assert result["success"] is False
    assert "cannot represent" in result["results"][0]["error"]
    assert f.read_bytes() == before


def test_utf16_file_edited_and_kept_utf16(tmp_path: Path) -> None:
    text = "first line\nsecond line\nthird line\n"
    f = tmp_path / "wide.txt"
    f.write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    result = _edit(f, [{"search": "second line", "replace": "2nd line"}], preview=False)
    assert result["success"] is True, result
    assert f.read_bytes() == b"\xff\xfe" + text.replace("second", "2nd").encode("utf-16-le")


@pytest.mark.parametrize("mode", [0o640, 0o755])
def test_mode_kept(tmp_path: Path, mode: int) -> None:
    f = _write(tmp_path / "script.sh", "#!/bin/sh\necho hi\n")
    f.chmod(mode)
    _edit(f, [{"search": "echo hi", "replace": "echo bye"}], preview=False)
    assert f.stat().st_mode & 0o7777 == mode
    assert f.read_text() == "#!/bin/sh\necho bye\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_owner_kept(tmp_path: Path) -> None:
    f = _write(tmp_path / "owned.txt", "owner = 1\n")
    os.chown(f, 1234, 2345)
    _edit(f, [{"search": "owner = 1", "replace": "owner = 2"}], preview=False)
    st = f.stat()
    assert (st.st_uid, st.st_gid) == (1234, 2345)
    assert f.read_text() == "owner = 2\n"


def test_symlink_edits_target_and_keeps_link(tmp_path: Path) -> None:
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = _write(real_dir / "config.ini", "[main]\nkey = 1\n")
    link = tmp_path / "link.ini"
    link.symlink_to(target)
    result = _edit(link, [{"search": "key = 1", "replace": "key = 2"}], preview=False)
    assert result["success"] is True
    assert link.is_symlink()
    assert os.readlink(link) == str(target)
    assert target.read_text() == "[main]\nkey = 2\n"
    assert list_backups(str(link)) == list_backups(str(target))
    assert not [p for p in tmp_path.iterdir() if ".diffchunk-" in p.name]


def test_binary_file_refused(tmp_path: Path) -> None:
    f = tmp_path / "blob.bin"
    f.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    with pytest.raises(FileToolError, match="binary"):
        _edit(f, [{"search": "PNG", "replace": "GIF"}], preview=False)


def test_invalid_arguments(tmp_path: Path) -> None:
    f = _write(tmp_path / "a.txt", "x\n")
    with pytest.raises(InvalidArgument):
        _edit(f, [])
    with pytest.raises(InvalidArgument, match="unknown keys"):
        _edit(f, [{"search": "x", "replacement": "y"}])
    with pytest.raises(InvalidArgument):
        _edit(f, [{"search": "", "replace": "y"}])
    with pytest.raises(PathError):
        edit_content("relative.txt", [{"search": "x", "replace": "y"}])


def test_write_failure_leaves_original_untouched(tmp_path: Path, _backup_dir: Path) -> None:
    f = _write(tmp_path / "grow.txt", "seed\n" + "x" * 4000 + "\n")
    before = f.read_bytes()
    script = textwrap.dedent(
        f"""
        import json, resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (6000, 6000))
        from diffchunk.errors import FileToolError
        from diffchunk.files.edit import edit_content
        try:
            edit_content({str(f)!r}, [{{"search": "seed", "replace": "y" * 5000}}], preview=False)
        except FileToolError as exc:
            print("ERROR:", exc)
            sys.exit(0)
        print("NO ERROR")
        """
    )
    env = dict(os.environ, DIFFCHUNK_BACKUP_DIR=str(_backup_dir))
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).resolve().parents[1],
        timeout=60,
    )
    assert "ERROR:" in proc.stdout, proc.stdout + proc.stderr
    assert "file size limit" in proc.stdout and "not changed" in proc.stdout
    assert f.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if ".diffchunk-" in p.name]
    assert list_backups(str(f)) == []


def test_unwritable_backup_dir_refuses_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("DIFFCHUNK_BACKUP_DIR", str(blocker / "backups"))
    f = _write(tmp_path / "a.txt", "x = 1\n")
    with pytest.raises(FileToolError, match="DIFFCHUNK_BACKUP_DIR"):
        _edit(f, [{"search": "x = 1", "replace": "x = 2"}], preview=False)
    assert f.read_text() == "x = 1\n"


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
    small = _write(tmp_path / "small.py", text)
    expected = _edit(small, changes, preview=False)
    assert expected["success"] is True, expected
    # Same edit on the streaming path: tiny windows so needles straddle them.
    monkeypatch.setattr(snapshot, "IN_MEMORY_LIMIT", 1024)
    monkeypatch.setattr(reader, "BLOCK", 4099)
    streamed = _write(tmp_path / "streamed.py", text)
    got = _edit(streamed, changes, preview=False)
    assert got["success"] is True, got
    assert streamed.read_bytes() == small.read_bytes()
    assert [r["line_number"] for r in got["results"]] == [
        r["line_number"] for r in expected["results"]
    ]
    assert got["results"][2]["match_type"] == "fuzzy"
    # Duplicates are still found across windows.
    dup = _edit(streamed, [{"search": "compute(", "replace": "x("}])
    assert "more than" in dup["results"][0]["error"]
    # Where fuzzy matching only looks near rare words, it finds the block
    # but does not apply it: a closer one elsewhere could have been missed.
    monkeypatch.setattr(fuzzy_block, "FULL_FUZZY_LIMIT", 1024)
    anchored = _write(tmp_path / "anchored.py", text)
    refused = _edit(anchored, changes, preview=False)
    assert refused["success"] is False and anchored.read_text() == text
    error = refused["results"][2]["error"]
    line = expected["results"][2]["line_number"]
    assert f"closest block found is at line {line}" in error and "not applied" in error
    assert refused["results"][2]["similar_matches"][0]["line"] == line


def test_large_file_fuzzy_without_anchor_explains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot, "IN_MEMORY_LIMIT", 1024)
    monkeypatch.setattr(fuzzy_block, "FULL_FUZZY_LIMIT", 1024)
    f = _write(tmp_path / "big.py", _big_text(500))
    result = _edit(f, [{"search": "totally_absent_identifier = 3", "replace": "x"}])
    assert result["success"] is False
    assert "none occurs" in result["results"][0]["error"]


def test_read_only_file_refused(tmp_path: Path) -> None:
    f = _write(tmp_path / "locked.txt", "keep = 1\n")
    f.chmod(0o444)
    with pytest.raises(FileToolError, match="read-only"):
        _edit(f, [{"search": "keep = 1", "replace": "keep = 2"}], preview=False)
    assert f.read_text() == "keep = 1\n"
    # A preview is still possible.
    assert _edit(f, [{"search": "keep = 1", "replace": "keep = 2"}])["success"] is True


def test_line_numbers_from_an_existing_line_index(tmp_path: Path) -> None:
    from diffchunk.files.access import open_version

    f = _write(tmp_path / "indexed.py", _big_text(3000))
    open_version(str(f)).line_index()  # as left behind by an earlier read or search
    result = _edit(
        f,
        [
            {"search": "record_002718 = ", "replace": "renamed = "},
            {"search": "record_000001 =", "replace": "one ="},
        ],
    )
    assert [r["line_number"] for r in result["results"]] == [2719, 2]
    dup = _edit(f, [{"search": "compute(27", "replace": "x"}])
    assert "lines 28, 271, 272, 273" in dup["results"][0]["error"]


def test_crlf_search_starting_with_newline_is_one_place(tmp_path: Path) -> None:
    f = tmp_path / "win.txt"
    f.write_bytes(b"a\r\nb\r\nc\r\n")
    result = _edit(f, [{"search": "\nb", "replace": "\nB"}], preview=False)
    assert result["success"] is True, result
    assert f.read_bytes() == b"a\r\nB\r\nc\r\n"


_lines = st.lists(
    st.sampled_from(["alpha", "beta", "  gamma", "", "delta  x", "é"]), min_size=1, max_size=12
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=_lines,
    start=st.integers(0, 60),
    length=st.integers(1, 30),
    repl=st.text("xy\n", max_size=6),
    crlf=st.booleans(),
)
def test_exact_edit_equals_single_replace(
    tmp_path: Path, lines: list[str], start: int, length: int, repl: str, crlf: bool
) -> None:
    text = "\n".join(lines) + "\n"
    search = text[start : start + length]
    nl = "\r\n" if crlf else "\n"
    on_disk = text.replace("\n", nl)
    needle = search.replace("\n", nl)
    if not search or needle not in on_disk:
        return
    # Count overlapping occurrences as the tool does.
    count = sum(1 for i in range(len(on_disk)) if on_disk.startswith(needle, i))
    f = tmp_path / "prop.txt"
    f.write_bytes(on_disk.encode("utf-8"))
    result = _edit(f, [{"search": search, "replace": repl}], fuzzy=False, preview=False)
    if count == 1:
        assert result["success"] is True, result
        pos = on_disk.index(needle)
        if "\n" in search:
            repl_nl = nl
        else:
            line_end = on_disk.find("\n", pos)
            repl_nl = "\r\n" if line_end > 0 and on_disk[line_end - 1] == "\r" else "\n"
        expected = on_disk[:pos] + repl.replace("\n", repl_nl) + on_disk[pos + len(needle) :]
        assert f.read_bytes() == expected.encode("utf-8")
        assert result["results"][0]["line_number"] == on_disk.count("\n", 0, pos) + 1
    else:
        assert result["success"] is False
        assert f.read_bytes() == on_disk.encode("utf-8")


@settings(max_examples=60, deadline=None)
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


def test_edit_that_changes_nothing_writes_nothing(tmp_path: Path) -> None:
    f = _write(tmp_path / "same.txt", "stay = 1\n")
    inode = f.stat().st_ino
    result = _edit(f, [{"search": "stay = 1", "replace": "stay = 1"}], preview=False)
    assert result["success"] is True
    assert result["written"] is False and result["backup_created"] is None
    assert f.stat().st_ino == inode
    assert list_backups(str(f)) == []


@pytest.mark.parametrize("keep_mtime", [False, True])
@pytest.mark.parametrize(
    "when", ["before the backup", "during a copied backup", "while the new version is written"]
)
def test_a_rewrite_in_place_during_the_edit_is_never_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep_mtime: bool, when: str
) -> None:
    # Another program writes the same number of bytes in place; with
    # keep_mtime it restores the mtime too (cp -p, rsync -t --inplace).
    from diffchunk.errors import EditConflict
    from diffchunk.files import edit

    path = tmp_path / "conf.txt"
    path.write_bytes(b"alpha\nbeta\ngamma\n")

    def other_program() -> None:
        st = os.stat(path)
        with open(path, "r+b") as fh:
            fh.write(b"ALPHA\nBETA\nGAMMA\n")
        if keep_mtime:
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))

    if when == "before the backup":  # after the edit was planned on the old text
        from diffchunk.files import transaction

        real_check = transaction.check_writable

        def check_after_rewrite(*args: Any) -> None:
            other_program()
            real_check(*args)

        monkeypatch.setattr(transaction, "check_writable", check_after_rewrite)
    elif when == "during a copied backup":  # no hard link: the backup is a copy
        from diffchunk.files import backups

        monkeypatch.setenv("DIFFCHUNK_BACKUP_LINK", "0")
        real_copy = backups.copy_range

        def copy_while_rewritten(*args: Any) -> None:
            other_program()
            real_copy(*args)

        monkeypatch.setattr(backups, "copy_range", copy_while_rewritten)
    else:
        real_fill = edit._fill

        def fill_after_rewrite(*args: Any) -> None:
            other_program()
            real_fill(*args)

        monkeypatch.setattr(edit, "_fill", fill_after_rewrite)
    with pytest.raises(EditConflict, match="changed by another program"):
        edit_content(str(path), [{"search": "beta", "replace": "BETA2"}], preview=False)
    assert path.read_bytes() == b"ALPHA\nBETA\nGAMMA\n"  # the other program's text stands


def test_an_edit_never_changes_bytes_its_encoding_cannot_write_back(tmp_path: Path) -> None:
    # cp932 decodes 0x879A and 0x81E6 to the same character, and encodes it
    # as 0x81E6: re-encoding the whole file would change a line far away.
    text = ("これは日本語のテキストファイルです。設定を変更してください。\n" * 40).encode("cp932")
    data = text + b"note \x87\x9a end\n" + "最後の行です。値 = 1\n".encode("cp932")
    path = tmp_path / "sjis.txt"
    path.write_bytes(data)
    with pytest.raises(FileToolError, match="written back as other bytes"):
        edit_content(str(path), [{"search": "値 = 1", "replace": "値 = 2"}], preview=False)
    assert path.read_bytes() == data
    clean = tmp_path / "clean.txt"  # without such a character the edit goes through
    clean.write_bytes(text + "最後の行です。値 = 1\n".encode("cp932"))
    done = edit_content(
        str(clean), [{"search": "値 = 1", "replace": "値 = 2"}], preview=False
    ).to_dict()
    assert done["success"] and clean.read_bytes() == text + "最後の行です。値 = 2\n".encode("cp932")


def test_an_edit_keeps_extended_attributes_and_says_what_it_cannot_keep(tmp_path: Path) -> None:
    path = tmp_path / "tagged.txt"
    path.write_text("x\ny\n")
    try:
        os.setxattr(path, "user.origin", b"review")
    except OSError:
        pytest.skip("this file system has no user extended attributes")
    (tmp_path / "other-name.txt").hardlink_to(path)
    done = edit_content(str(path), [{"search": "y", "replace": "Y"}], preview=False).to_dict()
    assert done["success"] and path.read_text() == "x\nY\n"
    assert os.getxattr(path, "user.origin") == b"review"
    (warning,) = done["warnings"]
    assert warning.startswith("The file had 2 hard links")
    assert (tmp_path / "other-name.txt").read_text() == "x\ny\n"
    plain = tmp_path / "plain.txt"
    plain.write_text("a\n")
    assert (
        "warnings"
        not in edit_content(str(plain), [{"search": "a", "replace": "b"}], preview=False).to_dict()
    )


def test_revert_of_a_deleted_file_says_where_its_backups_are(tmp_path: Path) -> None:
    from diffchunk.files.edit import revert_edit

    path = tmp_path / "gone.txt"
    path.write_text("one\n")
    edit_content(str(path), [{"search": "one", "replace": "two"}], preview=False)
    path.unlink()
    with pytest.raises(FileToolError, match=r"does not exist .*but 1 backup") as raised:
        revert_edit(str(path))
    assert "cp " in (raised.value.suggestion or "")
    with pytest.raises(PathError):
        revert_edit(str(tmp_path / "never-there.txt"))


def test_a_fuzzy_edit_never_mixes_tabs_and_spaces(tmp_path: Path) -> None:
    path = tmp_path / "tabs.py"
    path.write_text("def f(x):\n\tif x:\n\t\ta = 1\n\t\treturn a\n\treturn 0\n")
    search = "    if x:\n        a = 1\n        return a\n"  # typed with spaces
    replace = "    if x:\n        a = 2\n        return a\n"
    result = edit_content(
        str(path), [{"search": search, "replace": replace}], preview=False
    ).to_dict()
    assert result["success"] is False
    assert "would mix them" in result["results"][0]["error"]
    assert path.read_text() == "def f(x):\n\tif x:\n\t\ta = 1\n\t\treturn a\n\treturn 0\n"
    # With the file's own indentation the same edit goes through.
    tabbed = edit_content(
        str(path),
        [{"search": "\tif x:\n\t\ta = 1\n", "replace": "\tif x:\n\t\ta = 2\n"}],
        preview=False,
    ).to_dict()
    assert tabbed["success"] and "\t\ta = 2\n" in path.read_text()
    # Tabs, then spaces to align a continuation (gofmt, kernel style): the
    # text's own alignment is no mixing by the edit.
    aligned = tmp_path / "aligned.c"
    aligned.write_text(
        "int f(void)\n{\n\treturn call(alpha_value,\n\t            beta_value);\n}\n"
    )
    fuzzy = edit_content(
        str(aligned),
        [
            {
                "search": "\t\treturn call(alpha_value,\n\t\t            beta_value);",
                "replace": "\t\treturn call(alpha_value,\n\t\t            gamma_value);",
            }
        ],
        preview=False,
    ).to_dict()
    assert fuzzy["success"], fuzzy["results"]
    assert "\t            gamma_value);\n" in aligned.read_text()
