"""edit_content: where an edit applies (exact and fuzzy matches, batches located in the
original, previews) and the misses, duplicates, ambiguities and overlaps it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from editkit import edit_file, write_utf8
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diffchunk.files.edit import edit_content, list_backups

# Each test's backups go to a directory of its own (DIFFCHUNK_BACKUP_DIR).
pytestmark = pytest.mark.usefixtures("backup_dir")


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


def test_exact_edit_writes_and_reports_line(tmp_path: Path) -> None:
    f = write_utf8(tmp_path / "a.py", SAMPLE)
    result = edit_file(
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
    f = write_utf8(tmp_path / "a.py", SAMPLE)
    result = edit_file(f, [{"search": "return data", "replace": "return data.strip()"}])
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
    f = write_utf8(tmp_path / "big.txt", "\n".join(lines) + "\n")
    result = edit_file(
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
    f = write_utf8(tmp_path / "a.py", SAMPLE)
    result = edit_file(
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
    f = write_utf8(tmp_path / "a.py", SAMPLE)
    search = "def save(self, name, value):\n    target = os.path.join(self.root,  name)\n    with open(target, 'w') as handle:\n"
    replace = "def save(self, name, value):\n    target = self.path(name)\n    with open(target, 'w') as handle:\n"
    result = edit_file(f, [{"search": search, "replace": replace}], preview=False)
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
    f = write_utf8(tmp_path / "v.txt", text)
    result = edit_file(f, [{"search": "beta = 2\ngamma = 3", "replace": "BG"}], preview=False)
    assert result["results"][0]["match_type"] == "fuzzy"
    # Neighbouring lines are neither merged nor split; the line ending stays.
    assert f.read_text() == "alpha = 1\nBG\ndelta = 4\n"


def test_fuzzy_off_refuses_and_suggests(tmp_path: Path) -> None:
    f = write_utf8(tmp_path / "a.py", SAMPLE)
    result = edit_file(f, [{"search": "def lod(path):", "replace": "x", "fuzzy": False}])
    assert result["success"] is False
    item = result["results"][0]
    assert "not found" in item["error"]
    assert item["similar_matches"][0]["line"] == 3
    assert item["similar_matches"][0]["similarity"] > 0.8


def test_miss_returns_similar_matches_with_line_numbers(tmp_path: Path) -> None:
    f = write_utf8(tmp_path / "a.py", SAMPLE)
    result = edit_file(
        f, [{"search": "class Storage:\n    def __init__(this, base):", "replace": "x"}]
    )
    item = result["results"][0]
    assert item["success"] is False
    assert "threshold" in item["error"]
    best = item["similar_matches"][0]
    assert best["line"] == 9
    assert best["content"].startswith("class Store:")
    assert 0.6 < best["similarity"] < 0.85
    assert len(item["similar_matches"]) <= 5


def test_a_miss_says_how_its_similar_lines_are_scored(tmp_path: Path) -> None:
    """A one-line search inside a longer line: the best whole-line score is under the
    threshold (0.66), while the line is listed at the score of its matching part
    (0.96); the error says which is which (it said "best: 0.66", then listed that
    line at 0.96, unexplained)."""
    f = write_utf8(
        tmp_path / "h.py", "def handler(request, response, context_object_value):\n    pass\n"
    )
    result = edit_file(f, [{"search": "handler(request, response)", "replace": "x"}])
    item = result["results"][0]
    assert item["success"] is False
    best = item["similar_matches"][0]
    assert best["line"] == 1 and best["similarity"] > 0.9
    assert "best: 0.6" in item["error"]
    assert "scored on the part of each line that matches" in item["error"]


def test_duplicate_exact_search_refused_with_line_numbers(tmp_path: Path) -> None:
    f = write_utf8(tmp_path / "a.py", SAMPLE)
    before = f.read_bytes()
    result = edit_file(f, [{"search": "as handle:", "replace": "as fh:"}], preview=False)
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
    f = write_utf8(tmp_path / "dup.py", text)
    result = edit_file(
        f, [{"search": "if ready:\n  start()\n  wait()", "replace": "go()"}], preview=False
    )
    assert result["success"] is False
    assert "ambiguous" in result["results"][0]["error"]
    assert f.read_text() == text


def test_overlapping_changes_refused(tmp_path: Path) -> None:
    f = write_utf8(tmp_path / "a.py", SAMPLE)
    before = f.read_bytes()
    result = edit_file(
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
    tmp_path: Path, backup_dir: Path
) -> None:
    f = write_utf8(tmp_path / "a.py", SAMPLE)
    before = f.read_bytes()
    st = f.stat()
    result = edit_file(
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


_lines = st.lists(
    st.sampled_from(["alpha", "beta", "  gamma", "", "delta  x", "é"]), min_size=1, max_size=12
)


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
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
    result = edit_file(f, [{"search": search, "replace": repl}], fuzzy=False, preview=False)
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


def test_edit_that_changes_nothing_writes_nothing(tmp_path: Path) -> None:
    f = write_utf8(tmp_path / "same.txt", "stay = 1\n")
    inode = f.stat().st_ino
    result = edit_file(f, [{"search": "stay = 1", "replace": "stay = 1"}], preview=False)
    assert result["success"] is True
    assert result["written"] is False and result["backup_created"] is None
    assert f.stat().st_ino == inode
    assert list_backups(str(f)) == []


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
