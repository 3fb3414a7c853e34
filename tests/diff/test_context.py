"""reduce_context: the reduced diff still applies with git and keeps every change."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gitrepo import git_bytes as git
from test_data import CORPUS, ROOT

from diffchunk.diff.context import reduce_context
from diffchunk.diff.hunk import format_hunk_header
from diffchunk.diff.parser import parse_diff
from diffchunk.errors import InvalidArgument

FIXTURES = ROOT / "fixtures"


def _lines(prefix: str, count: int) -> list[str]:
    return [f"{prefix} {i}\n" for i in range(1, count + 1)]


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes, bytes]:
    """A repo at the base commit, the base->target diff, and the target tree id."""
    root = tmp_path_factory.mktemp("context")
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    files: dict[str, bytes] = {}
    for n in range(8):
        body = _lines(f"file{n} line", 60 + n * 7)
        files[f"src/mod{n}.txt"] = "".join(body).encode()
    files["nonl.txt"] = b"".join(f"n{i}\n".encode() for i in range(30)) + b"tail without newline"
    files["crlf.txt"] = b"".join(f"c{i}\r\n".encode() for i in range(40))
    files["start.txt"] = "".join(_lines("s", 12)).encode()
    files["gone.txt"] = b"bye\nnow\n"
    files["blank.txt"] = b"".join(b"\n" if i % 3 else f"b{i}\n".encode() for i in range(50))
    for name, data in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(data)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD").strip()

    for n in range(8):
        body = _lines(f"file{n} line", 60 + n * 7)
        # changes close together (shared context), far apart (split hunks), at both ends
        for at in (0, 5, 9, 11, 30, 31, len(body) - 1):
            if at < len(body) and (at + n) % 4 != 3:
                body[at] = f"changed {at} in {n}\n"
        body.insert(20, f"inserted in {n}\n")
        del body[40 + n]
        (repo / f"src/mod{n}.txt").write_text("".join(body))
    (repo / "nonl.txt").write_bytes(
        b"".join(f"n{i}\n".encode() for i in range(30)).replace(b"n3\n", b"N3\n")
        + b"tail changed, still no newline"
    )
    (repo / "crlf.txt").write_bytes(
        b"".join(f"c{i}\r\n".encode() for i in range(40)).replace(b"c20\r\n", b"C20\r\n")
    )
    (repo / "start.txt").write_text("new first\n" + "".join(_lines("s", 12)[1:]))
    (repo / "gone.txt").unlink()
    (repo / "added.txt").write_text("".join(_lines("a", 9)))
    (repo / "blank.txt").write_bytes(
        b"".join(b"\n" if i % 3 else f"b{i}\n".encode() for i in range(50)).replace(
            b"b21\n", b"B21\n"
        )
    )
    git(repo, "add", "-A")
    diff = git(repo, "diff", "--cached", "--binary", "-U5")
    target = git(repo, "write-tree").strip()
    git(repo, "reset", "-q", "--hard", base.decode())
    return repo, diff, target


@pytest.mark.parametrize("n", [0, 1, 3])
def test_reduced_diff_applies_and_gives_the_target_tree(
    trees: tuple[Path, bytes, bytes], tmp_path: Path, n: int
) -> None:
    repo, diff, target = trees
    original = parse_diff(diff)
    reduced = reduce_context(original, n)
    again = parse_diff(reduced)
    assert [(f.path, f.added, f.removed) for f in again.files] == [
        (f.path, f.added, f.removed) for f in original.files
    ]
    assert not any(f.malformed for f in again.files)
    for f in again.files:
        for h in f.hunks:
            body = reduced[h.body_start : h.end]
            context = sum(1 for line in body.split(b"\n")[:-1] if line[:1] in (b" ", b""))
            assert context <= 2 * n * max(1, h.added + h.removed)
    if n < 5:
        assert len(reduced) < len(diff)
    work = tmp_path / "work"
    shutil.copytree(repo, work)
    git(work, "status", "--porcelain")  # refresh the index stat data after the copy
    flags = ["--unidiff-zero"] if n == 0 else []
    git(work, "apply", "--check", "--index", *flags, stdin=reduced)
    git(work, "apply", "--index", *flags, stdin=reduced)
    assert git(work, "write-tree").strip() == target


def test_zero_context_headers_follow_git_convention() -> None:
    data = (
        b"diff --git a/f b/f\n--- a/f\n+++ b/f\n"
        b"@@ -3,6 +3,7 @@ def f():\n a\n b\n-c\n d\n e\n+X\n+Y\n f\n"
    )
    reduced = reduce_context(parse_diff(data), 0)
    assert reduced == (
        b"diff --git a/f b/f\n--- a/f\n+++ b/f\n"
        b"@@ -5 +4,0 @@ def f():\n-c\n"
        b"@@ -7,0 +7,2 @@ def f():\n+X\n+Y\n"
    )
    one = reduce_context(parse_diff(data), 1)
    assert one == (
        b"diff --git a/f b/f\n--- a/f\n+++ b/f\n"
        b"@@ -4,5 +4,6 @@ def f():\n b\n-c\n d\n e\n+X\n+Y\n f\n"
    )


def test_no_newline_marker_stays_with_its_line() -> None:
    data = (
        b"--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n-one\n+ONE\n two\n three\n four\n-five\n"
        b"\\ No newline at end of file\n+FIVE\n\\ No newline at end of file\n"
    )
    reduced = reduce_context(parse_diff(data), 0)
    assert reduced.endswith(
        b"@@ -5 +5 @@\n-five\n\\ No newline at end of file\n+FIVE\n\\ No newline at end of file\n"
    )
    tail_context = b"--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-one\n+ONE\n two\n three\n four\n\\ No newline at end of file\n"
    assert reduce_context(parse_diff(tail_context), 3) == tail_context
    assert reduce_context(parse_diff(tail_context), 1) == (
        b"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n"
    )


def test_segments_binary_and_combined_are_copied_unchanged() -> None:
    for name in (
        "format_patch.mbox",
        "combined.diff",
        "binary_patch.diff",
        "svn.diff",
        "log_p.txt",
    ):
        data = (FIXTURES / name).read_bytes()
        parsed = parse_diff(data)
        reduced = reduce_context(parsed, 0)
        again = parse_diff(reduced)
        assert len(again.commits) == len(parsed.commits)
        assert [(f.path, f.added, f.removed, f.is_binary) for f in again.files] == [
            (f.path, f.added, f.removed, f.is_binary) for f in parsed.files
        ]
    combined = (FIXTURES / "combined.diff").read_bytes()
    assert reduce_context(parse_diff(combined), 0) == combined


def test_git_default_context_is_reproduced_exactly() -> None:
    if not CORPUS.is_dir():
        pytest.skip("shared corpus not available")
    data = (CORPUS / "flask_2.3.3..3.0.0.diff").read_bytes()
    parsed = parse_diff(data)
    assert reduce_context(parsed, 3) == data
    for n in (0, 1):
        again = parse_diff(reduce_context(parsed, n))
        assert sum(f.added for f in again.files) == sum(f.added for f in parsed.files)
        assert sum(f.removed for f in again.files) == sum(f.removed for f in parsed.files)


def test_negative_or_non_integer_context_is_refused() -> None:
    parsed = parse_diff((FIXTURES / "hg.diff").read_bytes())
    with pytest.raises(InvalidArgument, match="0 or more"):
        reduce_context(parsed, -1)
    with pytest.raises(InvalidArgument, match="whole number"):
        reduce_context(parsed, 1.5)  # type: ignore[arg-type]


def test_hunk_header_format_matches_git() -> None:
    assert format_hunk_header(5, 0, 6, 2) == b"@@ -5,0 +6,2 @@\n"
    assert format_hunk_header(1, 1, 1, 1, b" def f():\n") == b"@@ -1 +1 @@ def f():\n"


def test_a_header_counting_lines_from_line_zero_is_kept_as_written() -> None:
    # "@@ -0,3": three old lines starting at line 0 cannot be: no cut of the
    # hunk has a right header, and reducing in two steps gave another text
    # than reducing in one (found by the fuzz campaign).
    data = (
        b"diff --git a/R.md b/R.md\nindex 1..2 100644\n--- a/R.md\n+++ b/R.md\n"
        b"@@ -0,3 +1,5 @@\n+x\n+\n # F\n \n F is\n"
    )
    for n in (0, 1, 2):
        assert reduce_context(parse_diff(data), n) == data
    for n, m in ((1, 0), (2, 1)):
        twice = reduce_context(parse_diff(reduce_context(parse_diff(data), n)), m)
        assert twice == reduce_context(parse_diff(data), m)
