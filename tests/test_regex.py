"""Every pattern a caller supplies runs in time linear in the text (diffchunk.regex, RE2).

The reproducers run the real tools in a process of their own with a deadline:
a pattern that backtracks holds the interpreter, so a thread of this one could
not stop it.  Python's ``re`` is the oracle of what a pattern means.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from diffchunk.errors import InvalidArgument
from diffchunk.regex import MAX_REPEAT, compile_literal, compile_regex

DEADLINE = 60.0
"""Seconds a reproducer may take in its own process: about one on this code."""

LINE = "a" * 34 + "!"  # 35 characters: (a+)+$ backtracks 2**34 ways before it gives up
WORDS = "x" * 34 + " "  # (\w+\s?)+\( tries every split of the word before it gives up


def _run(tmp_path: Path, code: str, *args: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; what it printed as JSON (the test fails when
    it takes longer than DEADLINE)."""
    script = tmp_path / "reproduce.py"
    script.write_text(textwrap.dedent(code), encoding="utf-8")
    env = {**os.environ, "DIFFCHUNK_CACHE_DIR": str(tmp_path / "cache")}
    try:
        done = subprocess.run(
            [sys.executable, str(script), *args],
            capture_output=True,
            text=True,
            timeout=DEADLINE,
            env=env,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the search did not finish in {DEADLINE:g} s: the pattern backtracks")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _diff_adding(path: Path, line: str) -> Path:
    path.write_text(
        f"diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,1 +1,2 @@\n keep\n+{line}\n",
        encoding="utf-8",
    )
    return path


SEARCH_DIFF = """
    import json, sys
    from diffchunk.review.tools.diff_search import search_diff
    found = search_diff(sys.argv[1], sys.argv[2], regex=True)
    print(json.dumps(found.to_dict()))
"""

SEARCH_CONTENT = """
    import json, sys
    from diffchunk.files.content_search import search_content
    shown = search_content(sys.argv[1], sys.argv[2], fuzzy=False, regex=True).to_dict()
    counted = search_content(
        sys.argv[1], sys.argv[2], fuzzy=False, regex=True, count_only=True
    ).to_dict()
    print(json.dumps({"total": shown["total_matches"], "count": counted["count"]}))
"""


@pytest.mark.parametrize(("pattern", "line"), [("(a+)+$", LINE), (r"(\w+\s?)+\(", WORDS)])
def test_search_diff_with_a_backtracking_pattern_answers_at_once(
    tmp_path: Path, pattern: str, line: str
) -> None:
    diff = _diff_adding(tmp_path / "change.diff", line)
    found = _run(tmp_path, SEARCH_DIFF, str(diff), pattern)
    assert found["total"] == 0
    matching = _diff_adding(
        tmp_path / "match.diff", line.rstrip("! ") + ("" if "$" in pattern else "(")
    )
    assert _run(tmp_path, SEARCH_DIFF, str(matching), pattern)["total"] == 1


@pytest.mark.parametrize(("pattern", "line"), [("(a+)+$", LINE), (r"(\w+\s?)+\(", WORDS)])
def test_search_content_with_a_backtracking_pattern_answers_at_once(
    tmp_path: Path, pattern: str, line: str
) -> None:
    path = tmp_path / "lines.txt"
    path.write_text(f"{line}\n" * 3 + "call(x)\naaa\n", encoding="utf-8")
    found = _run(tmp_path, SEARCH_CONTENT, str(path), pattern)
    # One line matches: "aaa" the first pattern, "call(x)" the second (Python's re
    # would backtrack on the others for hours before it said no).
    assert found == {"total": 1, "count": 1}


LONG_LITERAL = 200_000
"""Characters of a text searched as it is: RE2 matched a literal in time proportional to
the text times the literal (100,000 characters took 48 s of CPU on one line), so this one
held a search for minutes."""

SEARCH_LONG_LITERAL = """
    import json, sys
    from diffchunk.files.content_search import search_content
    needle = "x" * int(sys.argv[2])
    shown = search_content(sys.argv[1], needle, fuzzy=False).to_dict()
    print(json.dumps({"total": shown["total_matches"]}))
"""


def test_search_content_of_a_long_text_as_it_is_answers_at_once(tmp_path: Path) -> None:
    path = tmp_path / "one_long_line.txt"
    path.write_text("before\ny" + "x" * LONG_LITERAL + "\nafter\n", encoding="utf-8")
    found = _run(tmp_path, SEARCH_LONG_LITERAL, str(path), str(LONG_LITERAL))
    assert found == {"total": 1}


@pytest.mark.parametrize(
    ("needle", "text"),
    [
        ("aa", "aaaaa"),  # matches do not overlap: left to right, as RE2 gives them
        ("", "ab"),  # the empty text matches everywhere
        ("é.", "café. é.x É."),
        ("x" * 50, "y" + "x" * 120),
        ("\udcff", "a\udcffb"),  # a lone surrogate (surrogatepass), as files may hold
        ("needle", "no match here"),
    ],
)
def test_a_literal_found_without_re2_matches_where_re2_does(needle: str, text: str) -> None:
    """A case-sensitive literal is found with ``bytes.find``; RE2's literal search (the
    same pattern without its needle) is the oracle."""
    fast = compile_literal(needle, case_sensitive=True)
    assert fast.needle is not None
    oracle = dataclasses.replace(fast, needle=None)
    data = text.encode("utf-8", "surrogatepass")
    assert list(fast.iter_spans(data)) == list(oracle.iter_spans(data))
    assert fast.spans(text) == oracle.spans(text)
    for pos in range(len(data) + 1):
        assert fast.search(data, pos, len(data) - 1 if pos < len(data) else None) == (
            oracle.search(data, pos, len(data) - 1 if pos < len(data) else None)
        )


SEARCH_CODE = """
    import json, sys
    from diffchunk.review.tools.code_search import search_code
    from diffchunk.review.ranges.load import load_git_diff
    diff = load_git_diff(sys.argv[1], "HEAD~1..HEAD").file_path
    found = search_code(diff, sys.argv[2], regex=True)
    print(json.dumps(found.to_dict()))
"""


@pytest.mark.parametrize(("pattern", "line"), [("(a+)+$", LINE), (r"(\w+\s?)+\(", WORDS)])
def test_search_code_with_a_backtracking_pattern_answers_at_once(
    tmp_path: Path, pattern: str, line: str
) -> None:
    from gitrepo import commit, init_repo

    repo = init_repo(tmp_path / "repo")
    commit(repo, {"keep.txt": "keep\n"})
    # Many backtracking lines across the tree: none reaches git grep's own engine.
    commit(repo, {f"f{i}.txt": f"{line}\n" * 20 for i in range(10)} | {"m.txt": "call(x)\naaa\n"})
    found = _run(tmp_path, SEARCH_CODE, str(repo), pattern)
    assert found["total"] == 1  # "aaa" for the first pattern, "call(x)" for the second


# -- what a pattern means: Python's, but for \b ---------------------------------

LINES = [
    "café au lait",
    "foo bar",
    "  \tindent\x0bvt",
    "x = 42 ٤٢",
    "É€9 déjà",
    "",
    "AA aa Aa",
    "ǅ ß ẞ ſ K",
    "tab\there\x1cseparated\u2003em",
    "line\rwith a carriage return",
]
PATTERNS = [
    r"\w+",
    r"^\w+$",
    r"caf.",
    r"[^\W\d]+",
    r"[\w€]+",
    r"\s+",
    r"[^\s]+",
    r"\S+\s",
    r"\d+",
    r"\D+",
    r"(?i)É",
    r"(?ia)é",
    r"(?ia)[^a]",
    r"(?a)\w+",
    r"(?a)\s+",
    r"[à-é]",
    r"^$",
    r"\Afoo",
    r"bar\Z",
    r"(?-m:^)x",
    r"a(?-m:$)",
    r"(?i)aa",
    r"(?i)[^a]+",
    r"(?i:F)OO|(?-i:b)AR",
    r"[\s\S]",
    r"\N{EURO SIGN}\d",
    r"\u00e9|\xe9",
    r"(?x) f o o  # a comment",
    r"(?s).",
    r"a{,2}",
    r"[[:alpha:]]",
    r"(?#note)x",
    r"[]a]",
    r"a*?b|a+?",
    r"ß|ẞ",
    r"(?i)ß",
    r"(?i)k",
    r"(?i)ſ",
]


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_a_regex_finds_what_python_re_finds(pattern: str) -> None:
    for case_sensitive in (True, False):
        python = re.compile(pattern, re.MULTILINE | (0 if case_sensitive else re.IGNORECASE))
        ours = compile_regex(pattern, case_sensitive=case_sensitive)
        for line in LINES:
            first = python.search(line)
            assert ours.search_text(line) == (first and first.span()), (line, case_sensitive)
            spans = [m.span() for m in python.finditer(line) if m.end() > m.start()]
            assert ours.spans(line) == spans, (line, case_sensitive)
            data = line.encode()
            at = ours.search(data)
            if first is None:
                assert at is None
            else:
                assert at is not None
                assert data[at[0] : at[1]].decode() == line[first.start() : first.end()]


def test_word_boundaries_are_ascii_ones() -> None:
    # The one documented difference: RE2 has no Unicode \b.
    assert re.search(r"caf\b", "café") is None
    assert compile_regex(r"caf\b").search_text("café") == (0, 3)
    assert compile_regex(r"\bau\b").search_text("café au lait") == (5, 7)


def test_literal_text_folds_case_the_unicode_way() -> None:
    found = compile_literal("Éa.", case_sensitive=False)
    assert found.spans("éA. xx éa. Éax") == [(0, 3), (7, 10)]
    assert compile_literal("a.", case_sensitive=True).spans("ab a. A.") == [(3, 5)]


@pytest.mark.parametrize(
    ("pattern", "named"),
    [
        (r"(a)\1", "backreference"),
        (r"(?P<x>a)(?P=x)", "backreference"),
        (r"foo(?=bar)", "lookahead"),
        (r"(?<=a)b", "lookahead or lookbehind"),
        (r"foo(?!\s)", "negative lookahead"),
        (r"(?<![a-z])x", "negative lookahead"),
        (r"(?>ab|a)c", "atomic group"),
        (r"a++", "possessive quantifier"),
        (r"(a)?(?(1)b|c)", "conditional group"),
        (f"a{{{MAX_REPEAT + 1}}}", "at most 1000"),
        (r"(", "Invalid regular expression"),
        (r"\p{L}", "Invalid regular expression"),
        ("(" * 5000 + ")" * 5000, "too large"),
        (r"[^\W\d]" * 200, "too large"),
        (r"((a{100}){100}){100}", "too large"),
    ],
)
def test_what_the_engine_cannot_run_is_refused_by_name(pattern: str, named: str) -> None:
    with pytest.raises(InvalidArgument, match=re.escape(named)) as caught:
        compile_regex(pattern)
    assert caught.value.suggestion
