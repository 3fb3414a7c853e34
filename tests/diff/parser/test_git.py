"""parse_diff on what git writes: counts and paths checked against ``git diff --numstat``
for every kind of change, format-patch and log streams, merges, and ``diff -ruN``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from gitrepo import git_bytes as git
from gitrepo import git_environment
from parsekit import parse_checked

from diffchunk.diff.model import DiffKind, FileStatus, SegmentKind


def numstat(repo: Path, *args: str) -> list[tuple[int | None, int | None, str | None, str]]:
    """``git diff --numstat -z`` as ``(added, removed, old path or None, new path)``."""
    out = git(repo, "diff", "--numstat", "-z", *args)
    fields = out.split(b"\0")
    rows = []
    i = 0
    while i < len(fields) and fields[i]:
        added, removed, path = fields[i].split(b"\t", 2)
        a = None if added == b"-" else int(added)
        r = None if removed == b"-" else int(removed)
        if path:
            rows.append((a, r, None, path.decode("utf-8", "replace")))
            i += 1
        else:
            old, new = fields[i + 1], fields[i + 2]
            rows.append((a, r, old.decode("utf-8", "replace"), new.decode("utf-8", "replace")))
            i += 3
    return rows


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository whose index holds every kind of change against HEAD."""
    root = tmp_path_factory.mktemp("parser")
    sub = root / "subrepo"
    sub.mkdir()
    git(sub, "init", "-q")
    (sub / "s.txt").write_text("s\n")
    git(sub, "add", "-A")
    git(sub, "commit", "-qm", "sub")
    work = root / "repo"
    work.mkdir()
    git(work, "init", "-q")
    (work / "café.md").write_text("hello\n")
    (work / "x b").mkdir()
    (work / "x b" / "y z.txt").write_text("one\ntwo\n")
    (work / "tab\tname.txt").write_text("t\n")
    lines = "".join(f"line {i}\n" for i in range(1, 41))
    (work / "ren.txt").write_text(lines)
    edit_lines = lines.replace("line", "edit line")
    (work / "ren edit.txt").write_text(edit_lines)
    (work / "copysrc.txt").write_text(lines.replace("line", "copy line"))
    (work / "q.sql").write_text("select 1;\n-- comment\n-- other\n--- triple\n")
    (work / "nonl.txt").write_bytes(b"x\ny")
    (work / "crlf.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    (work / "bin.dat").write_bytes(bytes(range(256)))
    (work / "run.sh").write_text("#!/bin/sh\n")
    (work / "r b").mkdir()
    (work / "r b" / "old name.txt").write_text(lines.replace("line", "renamed line"))
    (work / "m b").mkdir()
    (work / "m b" / "mode only.sh").write_text("#!/bin/sh\n")
    (work / "gone.txt").write_text("bye\n")
    (work / "many.txt").write_text("".join(f"m{i}\n" for i in range(200)))
    git(work, "add", "-A")
    git(work, "commit", "-qm", "base")

    (work / "café.md").write_text("hello again\n")
    (work / "x b" / "y z.txt").write_text("one\nthree\n")
    (work / "tab\tname.txt").write_text("u\n")
    git(work, "mv", "ren.txt", "renamed.txt")
    git(work, "mv", "ren edit.txt", "ren b edited.txt")
    (work / "ren b edited.txt").write_text(edit_lines.replace("line 20\n", "line twenty\n"))
    (work / "copy of src.txt").write_text(lines.replace("line", "copy line"))
    (work / "q.sql").write_text("select 1;\n")
    (work / "nonl.txt").write_bytes(b"x\nz")
    (work / "crlf.txt").write_bytes(b"a\r\nB\r\nc\r\n")
    (work / "bin.dat").write_bytes(bytes(range(255, -1, -1)))
    git(work, "mv", "r b/old name.txt", "r b/new name ü.txt")
    (work / "r b" / "new name ü.txt").write_text(
        lines.replace("line", "renamed line").replace("line 7\n", "line seven\n")
    )
    (work / "run.sh").chmod(0o755)
    (work / "m b" / "mode only.sh").chmod(0o755)
    (work / "gone.txt").unlink()
    (work / "new.txt").write_text("fresh\n")
    (work / "empty.txt").write_text("")
    many = [f"m{i}\n" for i in range(200)]
    many[5], many[100], many[198] = "changed 5\n", "changed 100\n", "changed 198\n"
    (work / "many.txt").write_text("".join(many))
    git(
        work,
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        str(sub),
        "sub",
    )
    git(work, "add", "-A")
    return work


DIFF_VARIANTS = {
    "plain": [],
    "binary": ["--binary"],
    "copies": ["-C", "--find-copies-harder"],
    "no-prefix": ["--no-prefix", "-M"],
    "iw-prefix": ["--src-prefix=i/", "--dst-prefix=w/", "-M"],
    "co-prefix": ["--src-prefix=c/", "--dst-prefix=o/", "--binary", "-C", "--find-copies-harder"],
    "unified-0": ["-U0", "-M"],
    "quotepath-off": ["-M"],
}


@pytest.mark.parametrize("variant", list(DIFF_VARIANTS))
def test_git_diff_counts_and_paths_match_numstat(repo: Path, variant: str) -> None:
    args = DIFF_VARIANTS[variant]
    pre = ["-c", "core.quotePath=false"] if variant == "quotepath-off" else []
    data = git(repo, *pre, "diff", "--cached", *args)
    parsed = parse_checked(data)
    stat_args = [a for a in args if "prefix" not in a and a != "--binary"]
    expected = numstat(repo, "--cached", *stat_args)
    assert len(parsed.files) == len(expected)
    for f, (added, removed, old, new) in zip(parsed.files, expected, strict=True):
        assert f.malformed is None, (f.path, f.malformed)
        assert f.kind is DiffKind.GIT
        assert f.path == new
        if old is not None:
            assert f.old_path == old
            assert f.status in (FileStatus.RENAMED, FileStatus.COPIED)
        if added is None:
            assert f.is_binary and f.added == 0 and f.removed == 0
            assert f.binary_patch == ("--binary" in args)
        else:
            assert (f.added, f.removed) == (added, removed), f.path
    by_path = {f.path: f for f in parsed.files}
    assert by_path["sub"].is_submodule and by_path["sub"].status is FileStatus.ADDED
    assert by_path["gone.txt"].status is FileStatus.DELETED and by_path["gone.txt"].new_path is None
    assert by_path["new.txt"].status is FileStatus.ADDED and by_path["new.txt"].old_path is None
    assert by_path["empty.txt"].status is FileStatus.ADDED and by_path["empty.txt"].metadata_only
    assert (by_path["run.sh"].old_mode, by_path["run.sh"].new_mode) == ("100644", "100755")
    assert by_path["m b/mode only.sh"].new_mode == "100755"  # split without ---/+++ lines
    assert by_path["renamed.txt"].status is FileStatus.RENAMED
    assert by_path["renamed.txt"].similarity == 100
    assert by_path["ren b edited.txt"].old_path == "ren edit.txt"
    assert by_path["r b/new name ü.txt"].old_path == "r b/old name.txt"
    assert len(by_path["many.txt"].hunks) == 3
    assert by_path["q.sql"].removed == 3
    # tokens keep the prefix and quoting the ---/+++ lines use
    cafe = by_path["café.md"]
    if variant == "iw-prefix":
        assert cafe.old_token == b'"i/caf\\303\\251.md"'
    elif variant == "quotepath-off":
        assert cafe.old_token == "a/café.md".encode()
    elif variant == "no-prefix":
        assert cafe.new_token == b'"caf\\303\\251.md"'


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_a_single_format_patch_keeps_its_message_in_its_chunk(
    tmp_path: Path, object_format: str
) -> None:
    from diffchunk.diff.chunker import chunk_files, render_chunk
    from diffchunk.diff.formatter import format_chunk

    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", f"--object-format={object_format}")
    (repo / "a.txt").write_text("a\nb\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "root")
    for i in range(2):
        (repo / "a.txt").write_text(f"a\n{i}\n")
        git(repo, "commit", "-qam", f"Change {i}", "-m", f"Why change {i} was made.")
    one = git(repo, "format-patch", "-1", "--stdout")
    assert one.startswith(b"From ") and len(one.split(b" ", 2)[1]) == len(
        git(repo, "rev-parse", "HEAD").strip()
    )
    for data, commits in (
        (one, ["Change 1"]),
        (git(repo, "format-patch", "--stdout", "HEAD~2"), ["Change 0", "Change 1"]),
    ):
        parsed = parse_checked(data)
        assert [c.subject for c in parsed.commits] == commits
        text = b"".join(render_chunk(parsed, c) for c in chunk_files(parsed, parsed.files))
        heads = [bytes(parsed.raw(parsed.segments[c.segment])) for c in parsed.commits]
        assert text.startswith(heads[0])  # the chunks hold every commit's header and message
        assert all(head in text for head in heads)
        assert b"Why change 1 was made." in text
        for mode in ("annotated", "compact", "lean"):
            assert "Why change 1 was made." in format_chunk(text, mode)


def test_git_log_and_format_patch_streams(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("a\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "root")
    subjects = []
    for i in range(3):
        (repo / "a.txt").write_text(f"a\n{i}\n")
        (repo / f"f{i}.sql").write_text(f"-- note {i}\nselect {i};\n")
        git(repo, "add", "-A")
        subject = f"change number {i} " + "with a long subject line " * (3 if i == 1 else 0)
        subjects.append(subject.strip())
        git(
            repo,
            "commit",
            "-qm",
            subject.strip(),
            "-m",
            f"Body {i}\n\ndiff --git a/x b/x in a body",
        )
    per_commit = [
        numstat(repo, f"HEAD~{3 - i}", f"HEAD~{2 - i}" if i < 2 else "HEAD") for i in range(3)
    ]

    log = git(repo, "log", "-p", "--reverse", "HEAD~3..HEAD")
    parsed = parse_checked(log)
    assert [c.subject for c in parsed.commits] == subjects
    assert [f.commit for f in parsed.files] == [0, 0, 1, 1, 2, 2]
    assert [f.path for f in parsed.files].count("a.txt") == 3
    for f in parsed.files:
        stat = {row[3]: row for row in per_commit[f.commit or 0]}
        assert (f.added, f.removed) == stat[f.path][:2]

    mbox = git(repo, "format-patch", "--stdout", "HEAD~3..HEAD")
    parsed = parse_checked(mbox)
    assert [c.subject for c in parsed.commits] == subjects
    assert [f.commit for f in parsed.files] == [0, 0, 1, 1, 2, 2]
    for f in parsed.files:
        stat = {row[3]: row for row in per_commit[f.commit or 0]}
        assert (f.added, f.removed) == stat[f.path][:2]
    commit_text = parsed.raw(parsed.segments[parsed.commits[0].segment])
    assert b" 2 files changed" in commit_text  # the diffstat stays with its commit
    trailers = [s for s in parsed.segments if s.kind is SegmentKind.TEXT]
    assert len(trailers) == 3 and all(parsed.raw(s).startswith(b"-- \n") for s in trailers)


def test_combined_diff_of_a_real_merge(tmp_path: Path) -> None:
    repo = tmp_path / "m"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "f.txt").write_text("".join(f"{i}\n" for i in range(10)))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "side")
    (repo / "f.txt").write_text("".join(f"{i}\n" for i in range(10)).replace("5\n", "side\n"))
    git(repo, "commit", "-qam", "side")
    git(repo, "checkout", "-q", "main")
    (repo / "f.txt").write_text("".join(f"{i}\n" for i in range(10)).replace("5\n", "main\n"))
    git(repo, "commit", "-qam", "main")
    git(repo, "merge", "-q", "side", ok=(0, 1))
    (repo / "f.txt").write_text("".join(f"{i}\n" for i in range(10)).replace("5\n", "both\n"))
    git(repo, "commit", "-qam", "merge")
    for flag in ("--cc", "-c"):
        data = git(repo, "show", flag, "HEAD")
        parsed = parse_checked(data)
        assert len(parsed.commits) == 1 and parsed.commits[0].subject == "merge"
        (f,) = parsed.files
        assert f.kind is DiffKind.COMBINED and f.path == "f.txt" and f.commit == 0
        assert all(len(h.parents) == 2 for h in f.hunks)
        assert f.added == 1 and f.removed == 2


def test_plain_diff_ruN_matches_git_no_index(tmp_path: Path) -> None:
    if shutil.which("diff") is None:
        pytest.skip("no diff binary")
    one, two = tmp_path / "one", tmp_path / "two"
    for d in (one, two):
        (d / "sub dir").mkdir(parents=True)
    (one / "keep.txt").write_text("a\nb\nc\n")
    (two / "keep.txt").write_text("a\nB\nc\n-- x\n")
    (one / "sub dir" / "old.sql").write_text("-- comment\nselect 1;\n")
    (two / "sub dir" / "new.txt").write_text("new\nfile\n")
    (one / "b.bin").write_bytes(b"\x00\x01")
    (two / "b.bin").write_bytes(b"\x00\x02")
    (one / "nonl.txt").write_text("end")
    (two / "nonl.txt").write_text("end2")
    proc = subprocess.run(
        ["diff", "-ruN", "one", "two"], cwd=tmp_path, capture_output=True, check=False
    )
    assert proc.returncode == 1
    parsed = parse_checked(proc.stdout)
    assert all(f.kind is DiffKind.UNIFIED and f.malformed is None for f in parsed.files)
    assert [f.is_binary for f in parsed.files].count(True) == 1
    got = sorted((f.path, f.status, f.added, f.removed) for f in parsed.files)
    assert got == [
        ("b.bin", FileStatus.MODIFIED, 0, 0),
        ("keep.txt", FileStatus.MODIFIED, 2, 1),
        ("nonl.txt", FileStatus.MODIFIED, 1, 1),
        ("sub dir/new.txt", FileStatus.ADDED, 2, 0),
        ("sub dir/old.sql", FileStatus.DELETED, 0, 2),
    ]
    proc = subprocess.run(
        ["git", "diff", "--no-index", "--numstat", "one", "two"],
        cwd=tmp_path,
        env=git_environment(),
        capture_output=True,
        check=False,
    )
    git_counts = sorted(
        (int(a.replace("-", "0")), int(r.replace("-", "0")))
        for a, r, _ in (line.split("\t", 2) for line in proc.stdout.decode().splitlines())
    )
    assert git_counts == sorted((f.added, f.removed) for f in parsed.files)

    single = subprocess.run(
        ["diff", "-u", "one/keep.txt", "two/keep.txt"],
        cwd=tmp_path,
        capture_output=True,
        check=False,
    ).stdout
    (f,) = parse_checked(single).files
    assert (f.path, f.added, f.removed) == ("keep.txt", 2, 1)
    assert f.old_token == b"one/keep.txt"
