"""parse_diff on every fixture and corpus file: byte-exact round trips and counts, and
the dialects the fixtures hold (svn, hg, plain, combined, binary patches)."""

from __future__ import annotations

from pathlib import Path

import pytest
from parsekit import CORPUS, FIXTURES, parse_checked

from diffchunk.diff.model import DiffKind, FileStatus, SegmentKind
from diffchunk.diff.parser import parse_diff

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
