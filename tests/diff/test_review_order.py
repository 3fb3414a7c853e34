"""``order="review"``: code first, each test after its source, docs, config, generated last,
and the chunks still apply one after the other with ``git apply``."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import git_bytes as git
from test_data import CORPUS

from diffchunk.diff.chunker import render_chunk
from diffchunk.diff.options import LoadOptions
from diffchunk.diff.parser import parse_diff
from diffchunk.diff.pipeline import build_review
from diffchunk.diff.review_order import (
    CODE,
    CONFIG,
    DOCS,
    GENERATED,
    TEST,
    category,
    near,
    source_stem,
)
from diffchunk.errors import InvalidArgument


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("src/flask/app.py", CODE),
        ("tests/test_app.py", TEST),
        ("pkg/util_test.go", TEST),
        ("web/button.test.tsx", TEST),
        ("src/test/java/FooTest.java", TEST),
        ("tests/conftest.py", TEST),
        ("docs/api.rst", DOCS),
        ("CHANGES.rst", DOCS),
        ("README", DOCS),
        ("pyproject.toml", CONFIG),
        ("CITATION.cff", CONFIG),  # the Citation File Format: YAML
        (".github/workflows/tests.yaml", CONFIG),
        ("requirements/dev.txt", CONFIG),
        (".gitignore", CONFIG),
        ("poetry.lock", GENERATED),
        ("web/app.min.js", GENERATED),
        ("vendor/lib/x.c", GENERATED),
    ],
)
def test_what_a_path_is_to_a_reviewer(path: str, kind: int) -> None:
    assert category(path) == kind


def test_a_test_names_its_source_by_its_stem() -> None:
    assert source_stem("tests/test_helpers.py") == "helpers"
    assert source_stem("pkg/parse_test.go") == "parse"
    assert source_stem("src/Widget.spec.ts") == "widget"
    assert source_stem("src/test/java/ParserTest.java") == "parser"
    assert source_stem("tests/conftest.py") == ""
    assert source_stem("src/app.py") is None


def test_a_test_pairs_with_a_source_where_it_may_exercise_it() -> None:
    assert near("tests/test_util.py", "src/pkg/util.py")  # a flat tests directory
    assert near("tests/pkg/test_util.py", "src/pkg/util.py")
    assert near("pkg/parse_test.go", "pkg/parse.go")
    assert near("src/test/java/com/x/FooTest.java", "src/main/java/com/x/Foo.java")
    # sqlalchemy 2.0.36: the mysql dialect's compiler tests, not sqlalchemy.ext.compiler's
    assert not near("test/dialect/mysql/test_compiler.py", "lib/sqlalchemy/ext/compiler.py")
    # Tests are still told by their directories (testdata too), and "t" is not one.
    assert category("pkg/testdata/input.go") == TEST
    assert category("src/t/util.py") == CODE


def test_an_unknown_order_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="valid orders are path, review"):
        LoadOptions(order="size")
    assert LoadOptions(order=" Review ").order == "review"


def _write(repo: Path, files: dict[str, bytes | None]) -> None:
    for name, content in files.items():
        path = repo / name
        if content is None:
            if path.is_dir():
                for sub in sorted(path.rglob("*"), reverse=True):
                    sub.unlink() if sub.is_file() else sub.rmdir()
                path.rmdir()
            else:
                path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


def _lines(tag: str, n: int = 30) -> bytes:
    return b"".join(f"{tag} line {i}\n".encode() for i in range(n))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    base: dict[str, bytes | None] = {
        "src/pkg/util.py": _lines("util"),
        "src/pkg/core.py": _lines("core"),
        "src/pkg/old.py": _lines("old"),
        "tests/test_util.py": _lines("test util"),
        "tests/test_misc.py": _lines("test misc"),
        "docs/guide.md": _lines("guide"),
        "pyproject.toml": _lines("toml"),
        "poetry.lock": _lines("lock"),
        "assets/data/x.txt": _lines("x"),
    }
    _write(repo, base)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "tag", "base")
    target: dict[str, bytes | None] = {
        "src/pkg/util.py": _lines("util").replace(b"line 3\n", b"line three\n"),
        "src/pkg/core.py": _lines("core").replace(b"line 9\n", b"line nine\n"),
        "src/pkg/old.py": None,
        "src/pkg/new.py": _lines("old"),  # a rename...
        "tests/test_util.py": _lines("test util") + b"more\n",
        "tests/test_misc.py": _lines("test misc") + b"more\n",
        "docs/guide.md": _lines("guide") + b"more\n",
        "pyproject.toml": _lines("toml") + b"more\n",
        "poetry.lock": _lines("lock") + b"more\n",
        "assets/data": None,
    }
    _write(repo, target)
    _write(repo, {"src/pkg/old.py": b"a new file where the renamed one was\n"})
    _write(repo, {"assets/data": b"a file where a directory was\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "target")
    git(repo, "tag", "target")
    return repo


def _apply_in_order(repo: Path, work: Path, texts: list[bytes]) -> None:
    """``git apply`` each text in turn on a work tree of the base commit: the target tree."""
    git(repo, "worktree", "add", "-q", "--detach", str(work), "base")
    for text in texts:
        git(work, "apply", "-", stdin=text)
    git(work, "add", "-A")
    assert git(work, "write-tree").strip() == git(repo, "rev-parse", "target^{tree}").strip()


def test_review_order_reads_code_and_its_tests_first_and_still_applies(
    repo: Path, tmp_path: Path
) -> None:
    data = git(repo, "diff", "-M", "base", "target")
    for max_lines in (1000, 12):
        options = LoadOptions(order="review", skip_generated=False, max_chunk_lines=max_lines)
        review = build_review(data, options)
        files = [p.path for c in review.chunks for p in c.parts]
        seen = list(dict.fromkeys(files))
        assert seen.index("src/pkg/util.py") + 1 == seen.index("tests/test_util.py")
        code = ["src/pkg/core.py", "src/pkg/new.py", "src/pkg/old.py", "src/pkg/util.py"]
        assert [p for p in seen if p.startswith("src/")] == code
        # an unpaired test after the code and its tests, before the docs
        assert seen.index("tests/test_util.py") < seen.index("tests/test_misc.py")
        assert seen.index("tests/test_misc.py") < seen.index("docs/guide.md")
        # the file that replaces a directory comes after the directory's files are gone
        assert seen.index("assets/data/x.txt") < seen.index("assets/data")
        assert seen[-2:] == ["pyproject.toml", "poetry.lock"]
        texts = [render_chunk(review.parsed, c) for c in review.chunks]
        _apply_in_order(repo, tmp_path / f"work-{max_lines}", texts)
        assert seen[0] == "src/pkg/core.py"
    path_order = build_review(data, LoadOptions(skip_generated=False))
    assert next(p.path for c in path_order.chunks for p in c.parts) == "assets/data/x.txt"


def _corpus() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if p.suffix in (".diff", ".txt", ".mbox"))


@pytest.mark.parametrize("path", _corpus() or [None], ids=lambda p: p.name if p else "absent")
def test_review_order_keeps_each_path_and_commit_in_order_on_the_corpus(
    path: Path | None,
) -> None:
    if path is None:
        pytest.skip("the corpus (../shared/corpus) is not available")
    data = path.read_bytes()
    review = build_review(data, LoadOptions(order="review", skip_generated=False))
    parsed = review.parsed
    order = [p.file_index for c in review.chunks for p in c.parts]
    first = list(dict.fromkeys(order))
    assert first == [fd.index for fd in review.kept if fd.index in first]
    assert sorted(first) == sorted(fd.index for fd in review.kept)
    where = {index: n for n, index in enumerate(first)}
    by_path: dict[str, list[int]] = {}
    for fd in parsed.files:
        if fd.index in where:
            for p in {fd.old_path, fd.new_path} - {None}:
                by_path.setdefault(p, []).append(fd.index)  # type: ignore[arg-type]
    for indices in by_path.values():
        shown = [where[i] for i in indices]
        assert shown == sorted(shown)  # a path's sections keep their order
    commits = [parsed.files[i].commit for i in first]
    assert commits == sorted(commits, key=lambda c: -1 if c is None else c)
    # every commit's message still comes before its first file
    text = b"".join(render_chunk(parsed, c) for c in review.chunks)
    for commit in parsed.commits[:50]:
        seg = parsed.segments[commit.segment]
        head = bytes(parsed.data[seg.start : seg.end])
        files = [fd for fd in parsed.files if fd.commit == commit.index and fd.index in where]
        if files:
            first_file = min(files, key=lambda fd: where[fd.index])
            assert text.index(head) < text.index(bytes(parsed.raw(first_file)[:200]))
    assert parse_diff(text).files  # the chunks' text is still a diff
