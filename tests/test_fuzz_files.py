"""Property tests: edits and searches of the file tools against plain models.

The models and the checks live in ``tests/property/fuzz_files/`` (which also runs
them in a long loop): exact edits and searches, regex search against ``re`` on
each line, fuzzy search against the documented ``partial_ratio`` rule, fuzzy
edits against the documented window rule.  Here hypothesis draws the files,
batches and patterns; the tool bugs these checks found have their minimal
reproductions below (``REPROS``), kept as regression tests.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from diffchunk.errors import InvalidArgument
from diffchunk.files import access, grep
from diffchunk.files.content_search import search_content
from diffchunk.files.edit import edit_content, list_backups
from tests.property.fuzz_files import (
    cases,
    edit_checks,
    measures,
    regex_cases,
    search_checks,
    textfile,
)

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
def text_files(draw: st.DrawFn) -> textfile.TextFile:
    encoding = draw(st.sampled_from(("utf-8", "cp1252")))
    line = st.lists(
        st.tuples(st.sampled_from(textfile.WORDS), st.sampled_from(textfile.SEPARATORS)), max_size=5
    ).map(lambda pairs: "".join(word + sep for word, sep in pairs))
    trim = st.booleans()
    lines = [
        text.rstrip(" \t") if cut else text
        for text, cut in draw(st.lists(st.tuples(line, trim), max_size=8))
    ]
    if encoding == "cp1252" or draw(st.booleans()):
        lines.insert(0, textfile.HEADER)
    return textfile.TextFile(
        lines=tuple(lines),
        final_newline=draw(st.booleans()),
        newline=draw(st.sampled_from(("\n", "\r\n"))),
        encoding=encoding,
        bom=encoding == "utf-8" and draw(st.booleans()),
    )


@st.composite
def pieces(draw: st.DrawFn, tf: textfile.TextFile) -> str:
    """A substring of one to three consecutive lines, or text that is absent."""
    text = tf.text
    if not text or draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(textfile.ABSENT))
    lines = text.splitlines(keepends=True)
    first = draw(st.integers(0, len(lines) - 1))
    last = min(len(lines), first + draw(st.integers(1, 3)))
    block = "".join(lines[first:last])
    start = draw(st.integers(0, len(block) - 1))
    end = draw(st.integers(start + 1, len(block)))
    return block[start:end]


@st.composite
def edit_cases(draw: st.DrawFn) -> cases.EditCase:
    tf = draw(text_files())
    replacement = st.lists(
        st.sampled_from(textfile.WORDS + textfile.REPLACEMENT_EXTRA + textfile.SEPARATORS),
        max_size=4,
    ).map("".join)
    changes = []
    for _ in range(draw(st.integers(1, 4))):
        search = draw(pieces(tf))
        replace = search if draw(st.integers(0, 19)) == 0 else draw(replacement)
        changes.append((search, replace))
    return cases.EditCase(tf, tuple(changes))


@st.composite
def search_cases(draw: st.DrawFn) -> cases.SearchCase:
    tf = draw(text_files())
    lines = [line for line in tf.lines if line]
    if not lines or draw(st.integers(0, 6)) == 0:
        pattern = draw(st.sampled_from((*textfile.ABSENT, "é", "É", "€", "aA", "\t")))
    else:
        line = draw(st.sampled_from(lines))
        start = draw(st.integers(0, len(line) - 1))
        pattern = line[start : draw(st.integers(start + 1, len(line)))]
        if draw(st.booleans()):
            pattern = pattern.swapcase()
    return cases.SearchCase(tf, pattern)


@pytest.mark.slow
@settings(SETTINGS, max_examples=examples(400))
@given(case=edit_cases())
def test_exact_edit_batches_match_the_model(case: cases.EditCase, tmp_path: Path) -> None:
    with tempfile.TemporaryDirectory(dir=tmp_path) as work:
        edit_checks.check_edit(case, Path(work))


@pytest.mark.slow
@settings(SETTINGS, max_examples=examples(200))
@given(case=search_cases())
def test_exact_search_and_count_match_the_model_with_and_without_grep(
    case: cases.SearchCase, tmp_path: Path
) -> None:
    with tempfile.TemporaryDirectory(dir=tmp_path) as work:
        search_checks.check_search(case, Path(work))


def test_lf_search_text_in_a_crlf_cp1252_file_writes_crlf(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes("# header line\r\ncafé €1\r\nnext\r\n".encode("cp1252"))
    result = edit_content(
        str(path), [{"search": "café €1\nnext", "replace": "thé\n€2"}], fuzzy=False, preview=False
    ).to_dict()
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
        result = edit_content(str(path), changes, fuzzy=False, preview=False).to_dict()
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
    monkeypatch.setattr(grep, "GREP_MIN_BYTES", 0)
    found = search_content(str(path), "x", fuzzy=False, invert=invert).to_dict()
    assert (found["total_matches"], found["results"]) == (0, [])
    counted = search_content(str(path), "x", fuzzy=False, invert=invert, count_only=True).to_dict()
    assert counted["count"] == 0


# -- regex search, fuzzy search, fuzzy edits against their models -------------------

SEEDS = st.randoms(use_true_random=False)


@settings(SETTINGS, max_examples=examples(100))
@given(tf=text_files(), rng=SEEDS)
def test_regex_search_and_count_match_re_on_each_line(
    tf: textfile.TextFile, rng: random.Random, tmp_path: Path
) -> None:
    case = regex_cases.regex_case_for(rng, tf)
    with tempfile.TemporaryDirectory(dir=tmp_path) as work:
        search_checks.check_regex_search(case, Path(work))


@settings(SETTINGS, max_examples=examples(100))
@given(tf=text_files(), rng=SEEDS)
def test_fuzzy_search_keeps_the_documented_partial_ratio_rule(
    tf: textfile.TextFile, rng: random.Random, tmp_path: Path
) -> None:
    case = cases.fuzzy_search_case_for(rng, tf)
    with tempfile.TemporaryDirectory(dir=tmp_path) as work:
        search_checks.check_fuzzy_search(case, Path(work))


@settings(SETTINGS, max_examples=examples(50))
@given(rng=SEEDS)
def test_fuzzy_edits_refuse_or_replace_the_window_the_model_allows(
    rng: random.Random, tmp_path: Path
) -> None:
    case = cases.random_fuzzy_edit_case(rng)
    with tempfile.TemporaryDirectory(dir=tmp_path) as work:
        edit_checks.check_fuzzy_edit(case, Path(work))


def test_fuzzy_edit_ignores_blank_runs_and_reindents(tmp_path: Path) -> None:
    path = tmp_path / "f.py"
    path.write_bytes(b"def f():\r\n    if x:\r\n        return  1\r\n    return 2\r\n")
    change = {"search": "if x:\n  return 1\n", "replace": "if y:\n  return 3\n  pass\n"}
    result = edit_content(str(path), [change], fuzzy=True, preview=False).to_dict()
    assert result["success"], result
    assert result["results"][0]["match_type"] == "fuzzy"
    assert path.read_bytes() == (
        b"def f():\r\n    if y:\r\n      return 3\r\n      pass\r\n    return 2\r\n"
    )


def test_fuzzy_edit_with_two_equal_windows_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    original = b"alpha = 1\nbeta = 2\nalpha = 1\n"
    path.write_bytes(original)
    result = edit_content(
        str(path), [{"search": "alpha =  1", "replace": "x"}], preview=False
    ).to_dict()
    assert not result["success"]
    assert "ambiguous" in result["results"][0]["error"]
    assert path.read_bytes() == original
    assert list_backups(str(path)) == []


# -- the model's measures, against their definitions ---------------------------------

SHORT_TEXT = st.text(alphabet="abcé É\t", max_size=12)


def _lcs_table(a: str, b: str) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal = 0
        for j, y in enumerate(b, 1):
            diagonal, row[j] = row[j], diagonal + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


@settings(SETTINGS, max_examples=examples(300))
@given(a=SHORT_TEXT, b=SHORT_TEXT)
def test_model_lcs_and_ratios_follow_their_definitions(a: str, b: str) -> None:
    assert measures.lcs_length(a, b) == _lcs_table(a, b)
    # rapidfuzz documents both measures, and partial_ratio as optimal for
    # texts of up to 64 characters: the model must agree with it.
    assert float(measures.indel_ratio(a, b)) * 100 == pytest.approx(fuzz.ratio(a, b))
    assert float(measures.partial_ratio(a, b)) * 100 == pytest.approx(fuzz.partial_ratio(a, b))


@settings(SETTINGS, max_examples=examples(300))
@given(pattern=st.text(alphabet="abc", min_size=1, max_size=5), text=SHORT_TEXT)
def test_model_substring_distance_is_the_fewest_edits(pattern: str, text: str) -> None:
    def distance(a: str, b: str) -> int:
        row = list(range(len(b) + 1))
        for i, x in enumerate(a, 1):
            diagonal, row[0] = row[0], i
            for j, y in enumerate(b, 1):
                diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (x != y))
        return row[-1]

    best = min(
        distance(pattern, text[i:j]) for i in range(len(text) + 1) for j in range(i, len(text) + 1)
    )
    assert measures.substring_distance(pattern, text) == best


# -- minimal reproductions of the known bugs -----------------------------------------


def _lines(path: Path, pattern: str, **options: bool) -> list[tuple[int, float, str]]:
    access.clear_cache()
    found = search_content(str(path), pattern, max_results=50, context_lines=0, **options).to_dict()
    return [(r["line_number"], r["similarity_score"], r["match_type"]) for r in found["results"]]


def _regex(tmp_path: Path, content: bytes, pattern: str) -> list[int]:
    path = tmp_path / "r.txt"
    path.write_bytes(content)
    return [line for line, _, _ in _lines(path, pattern, fuzzy=False, regex=True)]


def _refused(tmp_path: Path, content: bytes, pattern: str, named: str) -> None:
    path = tmp_path / "r.txt"
    path.write_bytes(content)
    with pytest.raises(InvalidArgument, match=named):
        search_content(str(path), pattern, fuzzy=False, regex=True)


def _fuzzy(tmp_path: Path, content: bytes, pattern: str) -> list[tuple[int, float, str]]:
    path = tmp_path / "f.txt"
    path.write_bytes(content)
    return _lines(path, pattern)


REPROS: dict[str, dict[str, Callable[[Path], None]]] = {
    "regex-bytes": {
        # "\w" and "." on the UTF-8 bytes of "é".
        "word": lambda t: _check(_regex(t, "café\n".encode(), r"^\w+$"), [1]),
        "dot": lambda t: _check(_regex(t, "café\n".encode(), r"^caf.$"), [1]),
        # The bytes compile refuses "\u" (re.error escapes instead of InvalidArgument).
        "escape": lambda t: _check(_regex(t, "café\n".encode(), r"caf\u00e9"), [1]),
    },
    "regex-lines": {
        "crlf": lambda t: _check(_regex(t, b"foo\r\nbar\r\n", "foo$"), [1]),
        "empty": lambda t: _check(_regex(t, b"a\n", "^$"), []),
        "across": lambda t: _check(_regex(t, b"foo\nbar\n", r"foo\s+bar"), []),
        "start": lambda t: _check(_regex(t, b"foo\nbar\n", r"\Abar"), [2]),
        "line-mode-off": lambda t: _check(_regex(t, b"foo\nbar\n", r"(?-m:^)bar"), [2]),
        "line-mode-off-end": lambda t: _check(_regex(t, b"foo\nbar\n", r"foo(?-m:$)"), [1]),
        # an empty line: matched by \B (RE2 says so, as Python 3.14's re does)
        "empty-line": lambda t: _check(_regex(t, b"a\n\nb\n", r"\B"), [2]),
    },
    "regex-re2": {
        # What RE2 cannot run is refused, naming it.
        "lookahead": lambda t: _refused(t, b"foo\n", r"foo(?!\s)", "lookahead"),
        "lookbehind": lambda t: _refused(t, b"foo\nbar\n", r"(?<=\n)bar", "lookbehind"),
        "backreference": lambda t: _refused(t, b"aa\n", r"(a)\1", "backreference"),
        # \b sees ASCII words only: "é" is not a word character to RE2.
        "ascii-boundary": lambda t: _check(_regex(t, "café\n".encode(), r"caf\b"), [1]),
    },
    "fuzzy-case": {
        "upper": lambda t: _check(_fuzzy(t, "É\n".encode(), "É"), [(1, 1.0, "exact")]),
    },
    "fuzzy-crlf": {
        # The same line scores 0.8571 in an LF file.
        "score": lambda t: _check(_fuzzy(t, b"zzbar\r\n", "xbar"), [(1, 0.8571, "fuzzy")]),
    },
    "fuzzy-unencodable": {
        "cp1252": lambda t: _check(
            _fuzzy(t, "# header\ncafé bar\n".encode("cp1252"), "café✓"), [(2, 0.8889, "fuzzy")]
        ),
    },
    "fuzzy-blank-pieces": {
        "tab": lambda t: _check(_fuzzy(t, b"a\tb\n", "\t"), [(1, 1.0, "exact")]),
        "run": lambda t: _check(_fuzzy(t, b"x          y\n", "x          y"), [(1, 1.0, "exact")]),
    },
}


def _check(got: object, want: object) -> None:
    assert got == want


@pytest.mark.parametrize(
    ("bug", "name"), [(bug, name) for bug, repros in REPROS.items() for name in repros]
)
def test_reproduction(bug: str, name: str, tmp_path: Path) -> None:
    REPROS[bug][name](tmp_path)
