from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from diffchunk.diff.model import ExcludeReason
from diffchunk.diff.pipeline import LoadOptions, build_review
from diffchunk.errors import ChunkNotFound, InvalidArgument

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.autocrlf=false"]


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True).stdout


def _repo_diff(tmp_path: Path, before: dict[str, str], after: dict[str, str]) -> bytes:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    for name, text in before.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "one")
    for name, text in after.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "two")
    return _git(repo, "diff", "HEAD~1", "HEAD")


def _numbers(n: int, step: int = 1) -> str:
    return "".join(f"value_{i * step}\n" for i in range(n))


@pytest.fixture
def mixed_diff(tmp_path: Path) -> bytes:
    return _repo_diff(
        tmp_path,
        {"src/a.py": _numbers(50), "src/ws.py": "x = 1\ny = 2\n", "big.txt": _numbers(400)},
        {
            "src/a.py": _numbers(50).replace("value_10\n", "value_ten\n"),
            "src/ws.py": "x = 1\n\n\ny = 2\n",
            "big.txt": _numbers(400, step=3),
            "package-lock.json": '{"lockfileVersion": 3}\n',
        },
    )


def test_options_are_validated_with_valid_ranges() -> None:
    with pytest.raises(InvalidArgument, match="between 10 and"):
        LoadOptions(max_chunk_lines=5)
    with pytest.raises(InvalidArgument, match="negative"):
        LoadOptions(context_lines=-1)
    with pytest.raises(InvalidArgument, match="integer"):
        LoadOptions(max_chunk_lines="100")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="patterns"):
        LoadOptions(include_patterns=",".join(f"f{i}.py" for i in range(1000)))
    assert LoadOptions(exclude_patterns="  ").exclude_patterns is None


def test_every_file_is_chunked_or_excluded(mixed_diff: bytes) -> None:
    review = build_review(mixed_diff, LoadOptions(max_chunk_lines=200))
    paths = {f.path for f in review.parsed.files}
    assert paths == {"src/a.py", "src/ws.py", "big.txt", "package-lock.json"}
    excluded = {e.path: e.reason for e in review.excluded}
    assert excluded == {
        "src/ws.py": ExcludeReason.TRIVIAL,
        "package-lock.json": ExcludeReason.GENERATED,
    }
    assert set(review.file_to_chunks) == {"src/a.py", "big.txt"}
    assert review.stats.total_files == 4
    assert review.stats.files_excluded == 2
    assert review.stats.chunks_count == len(review.chunks) > 1
    assert review.stats.total_lines == mixed_diff.count(b"\n")
    # The big file is split, and each chunk number listed for it really holds it.
    assert len(review.file_to_chunks["big.txt"]) > 1
    for path, numbers in review.file_to_chunks.items():
        for n in numbers:
            assert path in review.chunk(n).files


def test_filters_can_be_turned_off(mixed_diff: bytes) -> None:
    review = build_review(mixed_diff, LoadOptions(skip_trivial=False, skip_generated=False))
    assert review.excluded == ()
    assert len(review.file_to_chunks) == 4


def test_context_reduction_happens_before_chunking(mixed_diff: bytes) -> None:
    full = build_review(mixed_diff, LoadOptions())
    reduced = build_review(mixed_diff, LoadOptions(context_lines=0))
    assert reduced.stats.total_lines < full.stats.total_lines
    a = reduced.parsed.files[[f.path for f in reduced.parsed.files].index("src/a.py")]
    assert a.added == 1 and a.removed == 1
    assert b" value_9\n" not in reduced.parsed.raw(a)


def test_progress_reports_stages_in_order(mixed_diff: bytes) -> None:
    seen: list[tuple[str, float]] = []
    build_review(mixed_diff, LoadOptions(), progress=lambda s, f: seen.append((s, f)))
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions)
    assert seen[-1] == ("done", 1.0)


def test_gitattributes_file_marks_generated(mixed_diff: bytes, tmp_path: Path) -> None:
    attrs = tmp_path / "attrs"
    attrs.write_text("src/a.py linguist-generated\n")
    review = build_review(mixed_diff, LoadOptions(gitattributes_path=str(attrs)))
    reasons = {e.path: e.reason for e in review.excluded}
    assert reasons["src/a.py"] is ExcludeReason.GENERATED


def test_chunk_errors_name_the_valid_range_or_why_empty(mixed_diff: bytes) -> None:
    review = build_review(mixed_diff, LoadOptions())
    total = len(review.chunks)
    with pytest.raises(ChunkNotFound, match=rf"1\.\.{total}"):
        review.chunk(total + 1)
    empty = build_review(mixed_diff, LoadOptions(include_patterns="*.rs"))
    assert empty.chunks == ()
    with pytest.raises(ChunkNotFound, match=r"excluded.*pattern"):
        empty.chunk(1)


def test_empty_input_is_an_empty_review() -> None:
    review = build_review(b"", LoadOptions())
    assert review.chunks == () and review.stats.total_files == 0
    with pytest.raises(ChunkNotFound, match="no file changes"):
        review.chunk(1)


def test_files_marked_binary_by_attributes_are_flagged_in_the_listing(
    mixed_diff: bytes, tmp_path: Path
) -> None:
    # git would show a -diff/binary file as binary; a diff file still holds its
    # text, which stays in the chunks exactly as written, and the listing says so.
    from diffchunk.review.sessions.store import SessionStore
    from diffchunk.review.tools import diff_tools

    attrs = tmp_path / "attrs"
    attrs.write_text("big.txt -diff\n*.py binary\n")
    path = tmp_path / "mixed.diff"
    path.write_bytes(mixed_diff)
    store = SessionStore()
    view = diff_tools.load_diff(
        str(path),
        options=LoadOptions(gitattributes_path=str(attrs), skip_generated=False),
        store=store,
    ).file_path
    listing = diff_tools.list_chunks(view, store=store).to_dict()
    details = {d["path"]: d for c in listing["chunks"] for d in c["file_details"]}
    assert details["big.txt"].get("binary_by_attributes") is True
    assert details["src/a.py"].get("binary_by_attributes") is True
    assert "binary_by_attributes" not in details["package-lock.json"]
    whole = b"".join(
        diff_tools.get_chunk_bytes(view, n, store=store)
        for n in range(1, listing["total_chunks"] + 1)
    )
    assert b"+value_1197\n" in whole  # big.txt's text is still served
    plain = SessionStore()
    diff_tools.load_diff(str(path), store=plain).to_dict()
    plain_listing = diff_tools.list_chunks(str(path), store=plain).to_dict()
    assert all(
        "binary_by_attributes" not in d for c in plain_listing["chunks"] for d in c["file_details"]
    )
