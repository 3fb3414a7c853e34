"""The review record's service: marks (by chunk, by pattern, of parts of split files),
what is seen, what an edit after a mark changes, which review a load belongs to, and the
file a path selects as listed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gitrepo import commit, git, init_repo
from recordkit import feature_repo, load_range, numbered, write_diff

from diffchunk.diff.options import LoadOptions
from diffchunk.errors import ChunkNotFound, FileNotInDiff, InvalidArgument
from diffchunk.review import record as core
from diffchunk.review.sessions.views import is_view_path, read_view
from diffchunk.review.tools import diff_tools

# Each test has a record and a cache of its own (DIFFCHUNK_STATE_DIR, DIFFCHUNK_CACHE_DIR).


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return feature_repo(tmp_path / "repo")


def _diff_of(path: str) -> str:
    """The diff file a load's file_path shows (itself, or the diff a view handle names)."""
    return read_view(path).diff if is_view_path(path) else path


def _states(path: str) -> dict[str, str]:
    doc = core.export_document(path).to_dict()
    return {f["path"]: f["state"] for f in doc["files"]}


# --------------------------------------------------------------------------
# Marks
# --------------------------------------------------------------------------


def test_mark_by_chunk_and_by_pattern_and_take_back(repo: Path) -> None:
    path = load_range(repo, max_chunk_lines=60)
    status = core.review_status(path)
    assert status.totals.to_dict() == {
        "files": 5,
        "reviewed": 0,
        "seen": 0,
        "unseen": 4,
        "changed": 0,
        "excluded": 1,
        "excluded_by_reason": {"generated": 1},
    }
    first = status.chunks[0]
    result = core.mark_reviewed(path, chunk_number=first.chunk)
    assert result.marked == first.files and result.reviewed
    again = core.mark_reviewed(path, chunk_number=first.chunk)  # idempotent
    assert again.totals == result.totals
    by_glob = core.mark_reviewed(path, file_pattern="src/a.py,docs/*")
    assert by_glob.marked == ("docs/c.md", "src/a.py")  # diff order
    assert _states(path)["src/a.py"] == "reviewed"
    undone = core.mark_reviewed(path, file_pattern="src/a.py", reviewed=False)
    assert undone.marked == ("src/a.py",) and not undone.reviewed
    assert _states(path)["src/a.py"] == "unseen"
    assert _states(path)["package-lock.json"] == "excluded"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "exactly one of chunk_number and file_pattern \\(got neither\\)"),
        ({"chunk_number": 1, "file_pattern": "*"}, "exactly one.*got both"),
        ({"file_pattern": "nothing/*"}, "No file of the diff matches"),
        ({"file_pattern": " "}, "file_pattern is empty"),
    ],
)
def test_mark_arguments_are_checked(repo: Path, kwargs: dict[str, Any], message: str) -> None:
    path = load_range(repo)
    with pytest.raises((InvalidArgument, FileNotInDiff), match=message):
        core.mark_reviewed(path, **kwargs)
    with pytest.raises(ChunkNotFound):
        core.mark_reviewed(path, chunk_number=99)


def test_marks_survive_other_options_and_filters(repo: Path) -> None:
    path = load_range(repo, max_chunk_lines=60)
    for number in range(1, core.review_status(path).total_chunks + 1):
        core.mark_reviewed(path, chunk_number=number)
    assert core.review_status(path).next_chunk is None
    for options in (
        {"max_chunk_lines": 1000},
        {"max_chunk_lines": 20, "context_lines": 0},
        {"exclude_patterns": "docs/**"},
        {"skip_generated": False},
    ):
        again = load_range(repo, **options)
        # the same cached diff, loaded otherwise (a view of it, besides its default view)
        assert _diff_of(again) == _diff_of(path) and again.endswith(".diffview") == (
            options != {"max_chunk_lines": 1000}
        )
        status = core.review_status(again)
        assert status.review.id == 1
        states = _states(again)
        assert states["src/a.py"] == states["src/b.py"] == states["src/big.py"] == "reviewed"
        if options.get("skip_generated") is False:
            assert states["package-lock.json"] == "unseen"
            assert status.next_chunk is not None
        else:
            assert status.next_chunk is None


def test_parts_of_a_split_file(repo: Path) -> None:
    path = load_range(repo, max_chunk_lines=100)
    chunks = [c for c in core.review_status(path).chunks if c.files == ("src/big.py",)]
    assert len(chunks) >= 3
    marked = core.mark_reviewed(path, chunk_number=chunks[0].chunk)
    assert marked.partly == ("src/big.py",)
    statuses = {c.chunk: c.status for c in core.review_status(path).chunks}
    assert statuses[chunks[0].chunk] == "reviewed" and statuses[chunks[1].chunk] == "unseen"
    assert core.review_status(path).next_chunk == min(
        n for n, s in statuses.items() if s != "reviewed"
    )
    assert _states(path)["src/big.py"] == "seen"  # part of it was read
    for chunk in chunks[1:]:
        core.mark_reviewed(path, chunk_number=chunk.chunk)
    assert _states(path)["src/big.py"] == "reviewed"
    # Reviewed in parts, it stays reviewed when it is no longer cut.
    assert _states(load_range(repo, max_chunk_lines=5000))["src/big.py"] == "reviewed"
    # Taking one part back keeps the others.
    load_range(repo, max_chunk_lines=100)
    core.mark_reviewed(path, chunk_number=chunks[1].chunk, reviewed=False)
    statuses = {c.chunk: c.status for c in core.review_status(path).chunks}
    assert statuses[chunks[1].chunk] != "reviewed"
    assert statuses[chunks[0].chunk] == statuses[chunks[2].chunk] == "reviewed"
    assert _states(path)["src/big.py"] == "seen"


def test_a_file_edited_after_its_mark_is_changed(repo: Path) -> None:
    path = load_range(repo)
    core.mark_reviewed(path, file_pattern="src/*")
    first = core.review_status(path)
    # feature moves: a.py's change is edited, b.py's is not.
    git(repo, "checkout", "-q", "feature")
    commit(repo, {"src/a.py": numbered("a", 60, {10: "a TEN", 40: "a forty"})})
    moved = load_range(repo)
    assert moved != path  # another cached diff (feature's head moved)...
    status = core.review_status(moved)
    assert status.review.id == first.review.id  # ...of the same review
    assert status.revision.id != first.revision.id
    assert status.revision.head == git(repo, "rev-parse", "feature")
    states = _states(moved)
    assert states["src/a.py"] == "changed"
    assert states["src/b.py"] == states["src/big.py"] == "reviewed"
    assert status.totals.changed == 1 and status.changed_files == ("src/a.py",)
    core.mark_reviewed(moved, file_pattern="src/a.py")
    assert _states(moved)["src/a.py"] == "reviewed"


def test_get_chunk_and_get_file_diff_record_seen(repo: Path) -> None:
    path = load_range(repo, max_chunk_lines=60)
    diff_tools.get_chunk(path, 1)
    status = core.review_status(path)
    assert status.chunks[0].status == "seen"
    assert all(c.status == "unseen" for c in status.chunks[1:])
    diff_tools.get_file_diff(path, "docs/c.md")
    states = _states(path)
    assert states["docs/c.md"] == "seen"
    assert status.totals.seen >= 1


def test_seen_is_recorded_after_a_reload_with_other_options(repo: Path, tmp_path: Path) -> None:
    diff = str(write_diff(repo, tmp_path / "x.diff", "main", "feature"))
    small = diff_tools.load_diff(diff, LoadOptions(max_chunk_lines=10)).file_path
    diff_tools.get_chunk(small, 1)  # the first part of src/a.py
    assert core.review_status(small).totals.seen == 1
    # Loaded again with larger chunks: chunk 1 now holds other files, whole.
    large = diff_tools.load_diff(diff, LoadOptions(max_chunk_lines=4000)).file_path
    files = core.review_status(large).chunks[0].files
    assert len(files) > 1
    diff_tools.get_chunk(large, 1)
    assert {p: s for p, s in _states(large).items() if p in files} == dict.fromkeys(files, "seen")


# --------------------------------------------------------------------------
# Identity
# --------------------------------------------------------------------------


def test_reviews_by_range_and_by_diff_file(repo: Path, tmp_path: Path) -> None:
    two_path = load_range(repo, "main..feature")
    two = core.review_status(two_path).review
    three_path = load_range(repo, "main...feature")  # the same commits: the same review
    three = core.review_status(three_path).review
    assert two.id == three.id
    core.mark_reviewed(two_path, file_pattern="src/b.py")
    assert _states(two_path)["src/b.py"] == "reviewed"
    assert _states(three_path)["src/b.py"] == "reviewed"
    # The range as last spelled.
    assert core.review_status(two_path).review.source.shown_range == "main...feature"
    assert core.review_status(load_range(repo, "main..feature")).review.id == two.id
    # The working tree vs HEAD is a review of its own, regenerated on each load.
    (repo / "src/a.py").write_text(numbered("a", 60, {1: "dirty"}))
    work = core.review_status(load_range(repo, None)).review
    assert work.source.range == "worktree:HEAD" and work.id not in (two.id, three.id)
    # A diff file: its path is the review, each content a revision.
    diff = write_diff(repo, tmp_path / "x.diff", "main", "feature")
    first = core.review_status(str(diff))
    assert first.review.source.kind == "file" and first.review.source.diff_file == str(diff)
    core.mark_reviewed(str(diff), file_pattern="src/b.py")
    write_diff(repo, diff, "main")  # main vs the dirty working tree
    second = core.review_status(str(diff))
    assert second.review.id == first.review.id and second.revision.id != first.revision.id
    assert _states(str(diff))["src/b.py"] == "reviewed"  # the same change of b.py


# --------------------------------------------------------------------------
# Paths as listed
# --------------------------------------------------------------------------


def test_a_path_as_listed_selects_that_file_alone(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "readmes")
    files = {"README.md": "r\n", "docs/README.md": "d\n", "pkg/readme.md": "p\n"}
    commit(repo, files, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, {name: text * 2 for name, text in files.items()}, "feature")
    path = load_range(repo)
    assert core.mark_reviewed(path, file_pattern="README.md").marked == ("README.md",)
    assert core.mark_reviewed(path, file_pattern="docs/readme.md").marked == ("docs/README.md",)
    assert core.mark_reviewed(path, file_pattern="*.md", reviewed=False).marked == tuple(
        sorted(files)
    )
    assert core.mark_reviewed(path, file_pattern="*/readme.md").marked == (
        "docs/README.md",
        "pkg/readme.md",
    )
    for name in files:
        core.add_finding(path, name, f"On {name}")
    listed = core.list_findings(path, file_pattern="README.md").findings
    assert [f.file_path for f in listed] == ["README.md"]
    assert len(core.list_findings(path, file_pattern="readme.md, docs/*").findings) == 3  # globs
    assert [f.file_path for f in core.list_findings(path, file_pattern="docs/*").findings] == [
        "docs/README.md"
    ]
