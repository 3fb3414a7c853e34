from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from diffchunk.diff.patterns import (
    MAX_PATTERN_LENGTH,
    MAX_PATTERNS,
    MAX_PATTERNS_CHARS,
    PathPatterns,
    PathQuery,
)
from diffchunk.errors import InvalidArgument
from diffchunk.git.globs import attributes_glob, gitignore_glob

PATHS = [
    "a.py",
    "src/a.py",
    "src/deep/er/b.py",
    "src/a.pyc",
    "src",
    "docs/index.md",
    "docs/api/x.md",
    "x/docs/y.md",
    "doc/build/x.rst",
    "build/out.o",
    "mybuild/x.c",
    "vendor/lib.go",
    "a/vendor/lib.go",
    "Cargo.lock",
    "web/yarn.lock",
    "abc",
    "abc/def",
    "a/b",
    "a/x/b",
    "a/x/y/b",
    "test_x.py",
    "tests/test_y.py",
    "f[a]o",
    "fao",
]

GITIGNORE_PATTERNS = [
    "*.py",
    "src/",
    "src",
    "/src",
    "docs/*.md",
    "docs/**",
    "**/docs",
    "**/docs/*.md",
    "a/**/b",
    "build/",
    "*.lock",
    "vendor",
    "abc/**",
    "test_*",
    "tests/test_?.py",
    "[a-c]*.py",
    "[!a]*.py",
    "f[a]o",
    "*/b",
    "src/**/*.py",
    "a/**",
]


def _git_check_ignore(tmp_path: Path, pattern: str, paths: list[str]) -> set[str]:
    repo = tmp_path / f"repo{abs(hash(pattern))}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "xdg"), GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    (repo / ".gitignore").write_text(pattern + "\n")
    proc = subprocess.run(
        ["git", "check-ignore", "--no-index", "-z", "--stdin"],
        cwd=repo,
        input=b"".join(p.encode() + b"\0" for p in paths),
        capture_output=True,
        env=env,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return {p for p in proc.stdout.decode().split("\0") if p}


def test_gitignore_semantics_agree_with_git_check_ignore(tmp_path: Path) -> None:
    for pattern in GITIGNORE_PATTERNS:
        expected = _git_check_ignore(tmp_path, pattern, PATHS)
        ours = {p for p in PATHS if gitignore_glob(pattern).matches(p)}
        assert ours == expected, pattern


def test_star_py_matches_at_any_depth_case_insensitively() -> None:
    pats = PathPatterns("*.py")
    assert pats.matches("a.py")
    assert pats.matches("src/deep/B.PY")
    assert not pats.matches("a.pyc")
    assert not pats.matches("py")


def test_directory_pattern_matches_its_files() -> None:
    pats = PathPatterns("src/")
    assert pats.matches("src/a.py")
    assert pats.matches("lib/src/a.py")  # no inner slash: any depth, like .gitignore
    assert not pats.matches("src")
    assert not pats.matches("srcs/a.py")
    assert PathPatterns("/src/").matches("src/a/b.c")
    assert not PathPatterns("/src/").matches("lib/src/a.py")


def test_commas_whitespace_and_empty_items() -> None:
    pats = PathPatterns("  *.lock , ,docs/** ,")
    assert pats.patterns == ("*.lock", "docs/**")
    assert pats.matches("Cargo.LOCK")
    assert pats.matches("DOCS/x/y.md")
    assert not pats.matches("src/docs.py")
    assert not PathPatterns(" , ")


def test_list_input_takes_each_item_as_one_glob() -> None:
    pats = PathPatterns(["notes/a,b.txt", " *.md "])
    assert pats.patterns == ("notes/a,b.txt", "*.md")
    assert pats.matches("Notes/A,B.txt")
    assert not pats.matches("notes/a")


def test_first_match_names_the_pattern() -> None:
    pats = PathPatterns("*.md, *.LOCK, web/")
    assert pats.first_match("web/yarn.lock") == "*.lock"
    assert pats.first_match("web/app.js") == "web/"
    assert pats.first_match("src/a.py") is None
    assert pats.matches_any([None, "old/name.md"]) == "*.md"


def test_negation_last_match_decides() -> None:
    pats = PathPatterns("*.py, !test_*.py")
    assert pats.matches("src/a.py")
    assert not pats.matches("tests/test_a.py")
    assert pats.first_match("tests/test_a.py") is None
    assert PathPatterns("!*.py, *.py").matches("test_a.py")


def test_anchored_and_globstar_patterns() -> None:
    assert PathPatterns("src/*.py").matches("src/a.py")
    assert not PathPatterns("src/*.py").matches("src/x/a.py")
    assert not PathPatterns("src/*.py").matches("lib/src/a.py")
    assert PathPatterns("**/migrations/*.py").matches("app/db/migrations/0001.py")
    assert PathPatterns("a/**/b").matches("a/b")
    assert PathPatterns("a/**/b").matches("a/x/y/b")
    assert not PathPatterns("a/**").matches("a")


def test_malformed_globs_match_nothing() -> None:
    assert not PathPatterns("foo[").matches("foo[")
    assert not PathPatterns("foo\\").matches("foo")
    assert PathPatterns("foo\\[x]").matches("foo[x]")


def test_too_many_or_too_long_patterns_are_refused_fast() -> None:
    start = time.perf_counter()
    with pytest.raises(InvalidArgument, match="limit"):
        PathPatterns(",".join(f"p{i}" for i in range(10_000)))
    with pytest.raises(InvalidArgument, match="limit"):
        PathPatterns("a" * 100_000)
    with pytest.raises(InvalidArgument, match="limit"):
        PathPatterns("x" * (MAX_PATTERN_LENGTH + 1))
    with pytest.raises(InvalidArgument, match="comma-separated"):
        PathPatterns(42)  # type: ignore[arg-type]
    assert time.perf_counter() - start < 1.0
    assert len(PathPatterns(",".join(f"*.e{i}" for i in range(MAX_PATTERNS)))) == MAX_PATTERNS


def test_a_query_checks_each_path_against_one_paths_length_and_the_list_by_count() -> None:
    """A comma-separated list of paths longer than one path may be is taken (it was
    refused whole against the 1,024 characters meant for one path); one path past them,
    or more than MAX_PATTERNS paths, is refused saying the bound."""
    paths = [f"src/module_{i:03d}/implementation.py" for i in range(60)]
    query = PathQuery(",".join(paths), name="file_path")
    assert len(query.text) > MAX_PATTERN_LENGTH
    assert [p for p in [*paths, "src/other.py"] if query.matches(p)] == paths
    with pytest.raises(InvalidArgument, match="A pattern in file_path is 1025 characters"):
        PathQuery(f"a.py,{'x' * (MAX_PATTERN_LENGTH + 1)}", name="file_path")
    too_many = ",".join(f"f{i}.py" for i in range(MAX_PATTERNS + 1))
    with pytest.raises(
        InvalidArgument, match=f"holds {MAX_PATTERNS + 1} patterns; the limit is 512"
    ):
        PathQuery(too_many, name="file_path")
    with pytest.raises(InvalidArgument, match=f"the limit is {MAX_PATTERNS_CHARS}"):
        PathQuery(",".join(["y" * 1000] * 9), name="file_path")
    # a listed path holding a comma still matches as itself
    assert PathQuery("docs/a,b.md", name="file_path").matches("docs/a,b.md")


def test_a_path_holding_a_comma_is_named_among_other_paths() -> None:
    """A list naming a path that holds a comma beside other paths (as a several-file
    answer writes the files it left out) selects it: it was split with the list and
    lost, or the list matched one file and was refused."""
    paths = ["docs/a,b.md", "c.md", "docs/a", "b.md"]
    for text in ("c.md,docs/a,b.md", "docs/a,b.md,c.md", "c.md, Docs/A,B.md"):
        query = PathQuery(text, name="file_path")
        assert [p for p in paths if query.matches(p)] == ["docs/a,b.md", "c.md", "docs/a", "b.md"]
    query = PathQuery("c.md,docs/a", name="file_path")
    assert [p for p in paths if query.matches(p)] == ["c.md", "docs/a"]  # no run: not named
    assert not PathQuery("docs/a,b.md,!c.md", name="file_path").matches("docs/a,b.md,!c.md")


def test_hostile_globs_stay_fast() -> None:
    star_heavy = "*a" * 40 + "*b"
    pats = PathPatterns(f"{star_heavy}, **/**/**/**/**/**/x*y*z*q")
    path = "/".join(["a" * 200] * 20)
    start = time.perf_counter()
    for _ in range(20):
        assert not pats.matches(path)
    assert time.perf_counter() - start < 1.0
    assert pats.matches("x/" + "a" * 50 + "b")


@pytest.mark.parametrize(
    "pattern", ["a/**/a/**/b", "**/a/**/b", "a/**/a/**/a/**/b", "**/a*/**/b", "**/a/**/a/**/a/**/b"]
)
def test_many_globstars_on_a_deep_path_stay_fast(pattern: str) -> None:
    deep = "/".join(["a"] * 2000)
    start = time.perf_counter()
    assert not gitignore_glob(pattern).matches(deep)
    assert not attributes_glob(pattern).matches(deep)
    assert not PathPatterns(pattern).matches(deep)
    assert gitignore_glob(pattern).matches(deep + "/b")
    assert time.perf_counter() - start < 0.5


def test_many_patterns_on_many_paths_is_quick() -> None:
    pats = PathPatterns(",".join(f"dir{i}/*.e{i}, *.x{i}" for i in range(MAX_PATTERNS // 2)))
    paths = [f"src/pkg{i}/mod{i}.py" for i in range(2000)]
    start = time.perf_counter()
    hits = sum(pats.matches(p) for p in paths)
    assert hits == 0
    assert time.perf_counter() - start < 2.0


def test_attributes_glob_does_not_match_inside_directories() -> None:
    assert not attributes_glob("docs").matches("docs/a.md")
    assert attributes_glob("docs").matches("x/docs")
    assert not attributes_glob("docs/").matches("docs/a.md")
    assert attributes_glob("docs/**").matches("docs/a/b.md")
    assert attributes_glob("*.md").matches("a/b/c.md")
    assert not attributes_glob("*.md").matches("a.md/x")
    assert not attributes_glob("*.MD").matches("a.md")  # case-sensitive, like git


_SEG = st.sampled_from(["a", "b", "ab", "*", "?", "**", "[ab]", "a*", "*b", "*a*", "[!a]*", "x"])
_PSEG = st.sampled_from(["a", "b", "ab", "ba", "aab", "x", "abab", "bx"])


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(_SEG, min_size=1, max_size=5),
    st.lists(_PSEG, min_size=1, max_size=6),
    st.booleans(),
    st.booleans(),
)
def test_regex_fast_path_agrees_with_segment_matcher(
    segs: list[str], parts: list[str], dir_only: bool, attributes: bool
) -> None:
    text = "/".join(segs) + ("/" if dir_only else "")
    glob = attributes_glob(text) if attributes else gitignore_glob(text)
    path = "/".join(parts)
    assert glob.matches(path) == glob.matches_slow(path)


_ITEM = st.sampled_from(
    ["*.py", "a", "b/", "*b", "a*", "*a*b*", "a/**", "**/b", "[ab]", "x/*.py", "?", "ab/", "!a"]
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_ITEM, min_size=1, max_size=6), st.lists(_PSEG, min_size=1, max_size=5))
def test_pattern_list_fast_paths_agree_with_item_by_item_matching(
    items: list[str], parts: list[str]
) -> None:
    pats = PathPatterns(items)
    path = "/".join(parts)
    expected = False
    for item in items:
        glob = gitignore_glob(item)
        if glob.matches_slow(path):
            expected = not glob.negated
    if not any(item.startswith("!") for item in items):
        expected = any(gitignore_glob(item).matches_slow(path) for item in items)
    assert pats.matches(path) == expected


def test_names_takes_items_as_written_where_nothing_excludes() -> None:
    listed = PathPatterns("x.py, App/[id]/page.tsx")
    assert listed.names("app/[id]/Page.tsx") and not listed.matches("app/[id]/page.tsx")
    assert listed.names("X.PY") and not listed.names("src/x.py")
    assert not PathPatterns("app/[id]/page.tsx, !app/*").names("app/[id]/page.tsx")
