from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from test_data import CORPUS
from timing import Stopwatch

from diffchunk.diff.attributes import Attributes
from diffchunk.diff.filters import FilterResult, filter_files, is_whitespace_only
from diffchunk.diff.gitattributes import GitattributesFile
from diffchunk.diff.model import (
    DiffKind,
    ExcludeReason,
    FileDiff,
    FileStatus,
    Hunk,
    ParsedDiff,
)
from diffchunk.diff.parser import parse_diff
from diffchunk.errors import InvalidArgument


@dataclass
class Spec:
    path: str
    hunks: Sequence[Sequence[str]] = ((" x", "-a", "+b"),)
    status: FileStatus = FileStatus.MODIFIED
    old_path: str | None = field(default=None)
    old_mode: str | None = None
    new_mode: str | None = None
    kind: DiffKind = DiffKind.GIT
    is_binary: bool = False


def build(*specs: Spec) -> ParsedDiff:
    """A hand-built diff: each spec becomes one file section with its hunks."""
    data = b""
    files = []
    for index, spec in enumerate(specs):
        old = spec.old_path or spec.path
        old_path = None if spec.status is FileStatus.ADDED else old
        new_path = None if spec.status is FileStatus.DELETED else spec.path
        start = len(data)
        data += f"diff --git a/{old} b/{spec.path}\n".encode()
        if spec.old_mode and spec.new_mode:
            data += f"old mode {spec.old_mode}\nnew mode {spec.new_mode}\n".encode()
        if spec.hunks:
            data += f"--- a/{old}\n+++ b/{spec.path}\n".encode()
        header_end = len(data)
        hunks = []
        line = 1
        for lines in spec.hunks:
            old_n = sum(1 for ln in lines if ln[:1] in " -")
            new_n = sum(1 for ln in lines if ln[:1] in " +")
            h_start = len(data)
            data += f"@@ -{line},{old_n} +{line},{new_n} @@\n".encode()
            body_start = len(data)
            data += "".join(ln + "\n" for ln in lines).encode()
            added = sum(1 for ln in lines if ln.startswith("+"))
            removed = sum(1 for ln in lines if ln.startswith("-"))
            hunks.append(
                Hunk(h_start, body_start, len(data), line, old_n, line, new_n, added, removed)
            )
            line += 100
        files.append(
            FileDiff(
                index=index,
                start=start,
                header_end=header_end,
                end=len(data),
                kind=spec.kind,
                status=spec.status,
                old_path=old_path,
                new_path=new_path,
                hunks=tuple(hunks),
                added=sum(h.added for h in hunks),
                removed=sum(h.removed for h in hunks),
                old_mode=spec.old_mode,
                new_mode=spec.new_mode,
                is_binary=spec.is_binary,
            )
        )
    return ParsedDiff(data=data, files=tuple(files), segments=())


def run(parsed: ParsedDiff, **kw: object) -> FilterResult:
    options: dict[str, object] = {
        "skip_trivial": True,
        "skip_generated": True,
        "include_patterns": None,
        "exclude_patterns": None,
    }
    options.update(kw)
    result = filter_files(parsed, **options)  # type: ignore[arg-type]
    indices = sorted([f.index for f in result.kept] + [e.file_index for e in result.excluded])
    assert indices == list(range(len(parsed.files)))
    return result


def reasons(result: FilterResult) -> dict[str, tuple[str, str | None]]:
    return {e.path: (e.reason.value, e.detail) for e in result.excluded}


# --- whitespace-only changes -----------------------------------------------


@pytest.mark.parametrize(
    "hunk",
    [
        ["-def f():", "-  return 1", "+def f():", "+    return 1"],  # re-indent
        [" a", "+", "+", " b"],  # blank lines added
        [" a", "-", " b"],  # blank line removed
        ["-x = 1   ", "+x = 1"],  # trailing spaces
        ["-x = 1\r", "+x = 1"],  # CRLF -> LF
        ["-x  =\t1", "+x = 1"],  # the amount of whitespace between words
        ["-last", "\\ No newline at end of file", "+last"],  # final newline added
        ["-a", "-", "-b", "+a", "+b"],  # blank line between changes
        ["-\tkey:\tvalue\x0c", "+  key: value"],
    ],
)
def test_whitespace_only_hunks_are_trivial(hunk: list[str]) -> None:
    parsed = build(Spec("src/a.c", hunks=[hunk]))
    assert is_whitespace_only(parsed.files[0], parsed.data)
    assert reasons(run(parsed)) == {"src/a.c": ("trivial", "whitespace-only change")}


@pytest.mark.parametrize(
    ("path", "hunk", "trivial"),
    [
        # Indentation is syntax here: a dedent moves a call out of its block.
        ("app.py", ["     if admin:", "-        audit(user)", "+    audit(user)"], False),
        ("ci.yml", ["-  key: 1", "+key: 1"], False),
        ("Makefile", ["-\t$(CC) -o x", "+    $(CC) -o x"], False),
        ("lib/x.pyi", ["-  a: int", "+    a: int"], False),
        # ... but blank lines, trailing spaces and inner runs still are whitespace.
        ("app.py", [" x = 1", "+", "+   ", " y = 2"], True),
        ("app.py", ["-    x  = 1  ", "+    x = 1"], True),
        ("app.c", ["     if (admin)", "-        audit(user);", "+    audit(user);"], True),
    ],
)
def test_indentation_counts_where_it_is_syntax(path: str, hunk: list[str], trivial: bool) -> None:
    parsed = build(Spec(path, hunks=[hunk]))
    assert is_whitespace_only(parsed.files[0], parsed.data) is trivial


@pytest.mark.parametrize(
    "hunk",
    [
        ["-x = 1", "+x = 2"],
        [" a", "+b"],
        ["-a", " b", "+a"],  # a line moved past context
        ["-ab", "+a", "+b"],  # a line split in two
        ["-a", "-b", "+b", "+a"],  # reordered
        ["-x", "\\ No newline at end of file", "+y"],
        ["-x=1", "+x = 1"],  # whitespace where there was none
        ['-s = "hello world"', '+s = "helloworld"'],  # and gone where there was some
    ],
)
def test_real_changes_are_kept(hunk: list[str]) -> None:
    parsed = build(Spec("src/a.py", hunks=[hunk]))
    assert not is_whitespace_only(parsed.files[0], parsed.data)
    assert [f.path for f in run(parsed).kept] == ["src/a.py"]


def test_one_real_hunk_keeps_the_file() -> None:
    parsed = build(Spec("a.c", hunks=[["-  a", "+a"], ["-b", "+c"]]))
    assert len(run(parsed).kept) == 1
    parsed = build(Spec("a.c", hunks=[["-  a", "+a"], ["-b ", "+b"]]))
    assert len(run(parsed).kept) == 0


@pytest.mark.parametrize(
    "spec",
    [
        Spec("new.py", old_path="old.py", status=FileStatus.RENAMED, hunks=()),
        Spec("new.py", old_path="old.py", status=FileStatus.RENAMED, hunks=[["-  a", "+a"]]),
        Spec("copy.py", old_path="a.py", status=FileStatus.COPIED, hunks=[["- a", "+a"]]),
        Spec("run.sh", old_mode="100644", new_mode="100755", hunks=()),
        Spec("run.sh", old_mode="100644", new_mode="100755", hunks=[["-a ", "+a"]]),
        Spec("logo.png", hunks=(), is_binary=True),
        Spec("empty.txt", status=FileStatus.ADDED, hunks=()),
        Spec("empty.txt", status=FileStatus.DELETED, hunks=()),
        Spec("blank.txt", status=FileStatus.ADDED, hunks=[["+", "+  "]]),
        Spec("gone.txt", status=FileStatus.DELETED, hunks=[["-", "- "]]),
        Spec("merge.py", kind=DiffKind.COMBINED, hunks=[["- a", "+a"]]),
    ],
)
def test_metadata_and_structural_changes_are_never_trivial(spec: Spec) -> None:
    parsed = build(spec)
    assert not is_whitespace_only(parsed.files[0], parsed.data)
    assert len(run(parsed).kept) == 1


def test_skip_flags_off_keep_everything() -> None:
    parsed = build(Spec("yarn.lock"), Spec("a.py", hunks=[["-a ", "+a"]]))
    result = run(parsed, skip_trivial=False, skip_generated=False)
    assert [f.path for f in result.kept] == ["yarn.lock", "a.py"]
    assert result.excluded == ()


# --- patterns ----------------------------------------------------------------


def test_exclude_and_include_patterns() -> None:
    parsed = build(
        Spec("src/app.py"),
        Spec("src/app_test.py"),
        Spec("docs/Guide.MD"),
        Spec("Cargo.lock"),
        Spec("web/main.js"),
    )
    result = run(parsed, include_patterns="*.py, *.md", exclude_patterns=" *_test.py ,")
    assert [f.path for f in result.kept] == ["src/app.py", "docs/Guide.MD"]
    assert reasons(result) == {
        "src/app_test.py": ("pattern", "matches exclude pattern '*_test.py'"),
        "Cargo.lock": ("pattern", "not matched by include patterns"),
        "web/main.js": ("pattern", "not matched by include patterns"),
    }
    assert result.files_excluded_by_pattern == 3


def test_patterns_come_before_generated_and_trivial() -> None:
    parsed = build(Spec("yarn.lock"), Spec("a.py", hunks=[["-a ", "+a"]]), Spec("b.py"))
    result = run(parsed, exclude_patterns="*.lock,a.py")
    assert {e.reason for e in result.excluded} == {ExcludeReason.PATTERN}
    assert result.files_excluded_by_pattern == 2
    assert [f.path for f in result.kept] == ["b.py"]


def test_renamed_and_deleted_files_match_by_old_path_too() -> None:
    parsed = build(
        Spec("lib/new.py", old_path="legacy/old.py", status=FileStatus.RENAMED),
        Spec("legacy/gone.py", status=FileStatus.DELETED, hunks=[["-x"]]),
        Spec("src/keep.py"),
    )
    result = run(parsed, exclude_patterns="legacy/")
    assert [f.path for f in result.kept] == ["src/keep.py"]
    result = run(parsed, include_patterns="legacy/**")
    assert [f.path for f in result.kept] == ["lib/new.py", "legacy/gone.py"]


def test_empty_pattern_strings_filter_nothing() -> None:
    parsed = build(Spec("a.py"))
    assert len(run(parsed, include_patterns="", exclude_patterns=" , ").kept) == 1


def test_bad_pattern_lists_raise_invalid_argument() -> None:
    with pytest.raises(InvalidArgument, match="limit"):
        run(build(Spec("a.py")), exclude_patterns=",".join(["*.x"] * 10_000))


# --- generated, vendored and attributes ---------------------------------------


class CountingSource:
    def __init__(self, table: Mapping[str, Attributes]) -> None:
        self.table = table
        self.calls = 0

    def lookup(self, paths: Sequence[str]) -> Mapping[str, Attributes]:
        self.calls += 1
        return {p: self.table.get(p, {}) for p in paths}


def test_generated_vendored_and_attributes_in_one_run() -> None:
    parsed = build(
        Spec("package-lock.json"),
        Spec("vendor/x/y.go"),
        Spec("api/gen.go", hunks=[["+// Code generated by x. DO NOT EDIT.", "+package api"]]),
        Spec("src/schema.sql"),
        Spec("yarn.lock"),
        Spec("assets/logo.svg"),
        Spec("src/main.py"),
    )
    source = CountingSource(
        {
            "src/schema.sql": {"linguist-generated": True},
            "yarn.lock": {"linguist-generated": False},
            "assets/logo.svg": {"diff": False},
        }
    )
    result = run(parsed, attributes=source)
    assert source.calls == 1
    assert reasons(result) == {
        "package-lock.json": ("generated", "lockfile"),
        "vendor/x/y.go": ("vendored", "vendored tree: vendor/"),
        "api/gen.go": ("generated", "Code generated header"),
        "src/schema.sql": ("generated", "linguist-generated"),
    }
    assert [f.path for f in result.kept] == ["yarn.lock", "assets/logo.svg", "src/main.py"]
    assert result.binary_by_attributes == frozenset({"assets/logo.svg"})


def test_no_attribute_lookup_when_no_file_remains() -> None:
    source = CountingSource({})
    run(build(Spec("a.py")), attributes=source, include_patterns="*.md")
    assert source.calls == 0


# --- end to end: real git diffs ------------------------------------------------


def _git(repo: Path, *args: str) -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        HOME=str(repo.parent),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@t",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@t",
    )
    return subprocess.run(
        ["git", "-c", "core.autocrlf=false", *args],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    ).stdout


def _write(repo: Path, rel: str, content: str | bytes) -> None:
    target = repo / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    target.write_bytes(content)


def test_filter_real_git_diff(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    body = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(30))
    before: dict[str, str | bytes] = {
        "src/indent.py": body,
        "src/real.py": body,
        "src/renamed_ws.py": body,
        "src/mode.sh": "echo hi\n",
        "docs/build/index.rst": "Title\n=====\n",
        "package-lock.json": '{"a": 1}\n',
        "vendor/lib/lib.go": "package lib\n",
        "src/crlf.txt": "one\ntwo\n",
        "gen/types.go": "// Code generated by gen. DO NOT EDIT.\n// gen v1\n\npackage gen\n",
        "data/blob.bin": b"\x00\x01\x02",
    }
    for rel, content in before.items():
        _write(repo, rel, content)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")

    _write(repo, "src/indent.py", body.replace("    return", "        return"))
    _write(repo, "src/real.py", body.replace("return 3\n", "return 33\n"))
    (repo / "src/renamed_ws.py").unlink()
    _write(repo, "src/renamed.py", body.replace("return 5\n", "return 5  \n"))
    (repo / "src/mode.sh").chmod(0o755)
    _write(repo, "docs/build/index.rst", "Title\n=====\n\nMore text.\n")
    _write(repo, "package-lock.json", '{"a": 2}\n')
    _write(repo, "vendor/lib/lib.go", "package lib\n\nvar Y = 2\n")
    _write(repo, "src/crlf.txt", "one\r\ntwo\r\n")
    _write(
        repo, "gen/types.go", "// Code generated by gen. DO NOT EDIT.\n// gen v2\n\npackage gen\n"
    )
    _write(repo, "data/blob.bin", b"\x00\x01\x03")
    _write(repo, "src/empty.txt", "")
    _git(repo, "add", "-A")
    data = _git(repo, "diff", "--cached", "-M", "HEAD")

    parsed = parse_diff(data)
    result = run(parsed)
    assert reasons(result) == {
        "src/crlf.txt": ("trivial", "whitespace-only change"),
        "package-lock.json": ("generated", "lockfile"),
        "vendor/lib/lib.go": ("vendored", "vendored tree: vendor/"),
        "gen/types.go": ("generated", "Code generated header"),
    }
    assert sorted(f.path for f in result.kept) == [
        "data/blob.bin",
        "docs/build/index.rst",
        "src/empty.txt",
        "src/indent.py",  # re-indented Python is a real change
        "src/mode.sh",
        "src/real.py",
        "src/renamed.py",
    ]

    attrs = GitattributesFile(
        "gen/** linguist-generated=false\n*.bin binary\ndocs/** linguist-documentation\n"
    )
    result = run(parsed, attributes=attrs, exclude_patterns="SRC/*.TXT")
    excluded = reasons(result)
    assert "gen/types.go" not in excluded
    assert excluded["src/crlf.txt"] == ("pattern", "matches exclude pattern 'src/*.txt'")
    assert excluded["src/empty.txt"] == ("pattern", "matches exclude pattern 'src/*.txt'")
    assert result.binary_by_attributes == frozenset({"data/blob.bin"})


# --- the corpus ------------------------------------------------------------------


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if p.is_file() and p.name != "README.md")


@pytest.mark.parametrize("name", [p.name for p in _corpus_files()] or ["(no corpus)"])
def test_every_corpus_file_is_kept_or_excluded_once(name: str) -> None:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip("the shared corpus is not available")
    parsed = parse_diff(path.read_bytes())
    for options in (
        {},
        {"skip_trivial": False, "skip_generated": False},
        {"include_patterns": "*.py,*.rst", "exclude_patterns": "test/**"},
        {"exclude_patterns": "*"},
    ):
        result = run(parsed, **options)
        assert all(e.detail for e in result.excluded)
        if options.get("exclude_patterns") == "*":
            assert result.kept == ()
            assert result.files_excluded_by_pattern == len(parsed.files)


def test_filter_is_fast_on_the_largest_corpus_diff() -> None:
    path = CORPUS / "sqlalchemy_rel_1_4_0..rel_1_4_54.diff"
    if not path.is_file():
        pytest.skip("the shared corpus is not available")
    parsed = parse_diff(path.read_bytes())
    watch = Stopwatch()
    result = run(parsed, include_patterns="*.py,*.rst,*.txt,*.cfg", exclude_patterns="test/**")
    result = run(parsed)
    elapsed = watch.elapsed()
    assert len(parsed.files) > 500
    assert all(e.reason is ExcludeReason.TRIVIAL for e in result.excluded)
    # doc/build/ is documentation, never build output.
    assert any(f.path.startswith("doc/build/") for f in result.kept)
    assert elapsed.within(1.0), str(elapsed)
