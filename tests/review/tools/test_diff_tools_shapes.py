"""The diff tools on one 30-file diff (a split file, a rename, a lockfile, whitespace
noise): the shapes of their answers, pages, formats, file matching and errors; and the
numbered lines of a cut hunk."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from diffchunk.diff.options import LoadOptions
from diffchunk.errors import ChunkNotFound, FileNotInDiff, InvalidArgument, PathError
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.sessions.views import read_view
from diffchunk.review.tools import diff_tools

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.autocrlf=false"]


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True).stdout


def _lines(n: int, tag: str) -> str:
    return "".join(f"{tag} {i}\n" for i in range(n))


@pytest.fixture(scope="module")
def diff_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A diff with 30 source files, a split file, a rename, a lockfile and whitespace noise."""
    root = tmp_path_factory.mktemp("tools")
    repo = root / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    files = {f"src/mod_{i:02d}.py": _lines(20, f"m{i}") for i in range(30)}
    files["docs/Guide.md"] = _lines(10, "guide")
    files["big.py"] = _lines(300, "old")
    files["old_name.py"] = _lines(15, "keep")
    files["ws.py"] = "a = 1\nb = 2\n"
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "one")
    for i in range(30):
        (repo / f"src/mod_{i:02d}.py").write_text(_lines(20, f"m{i}").replace(" 5\n", " five\n"))
    (repo / "docs/Guide.md").write_text(_lines(10, "guide") + "more\n")
    (repo / "big.py").write_text(_lines(300, "new"))
    _git(repo, "mv", "old_name.py", "new_name.py")
    (repo / "ws.py").write_text("a = 1\n\nb = 2\n")
    (repo / "yarn.lock").write_text("pkg@1:\n  version 1\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "two")
    path = root / "change.diff"
    path.write_bytes(_git(repo, "diff", "-M", "HEAD~1", "HEAD"))
    return path


def _load(path: Path, store: SessionStore, **kw: Any) -> dict[str, Any]:
    options = LoadOptions(max_chunk_lines=100, **kw)
    return diff_tools.load_diff(str(path), options, store=store).to_dict()


def _view(path: Path, store: SessionStore, **kw: Any) -> str:
    """The handle of the view ``_load`` returns (other options than the defaults)."""
    return str(_load(path, store, **kw)["file_path"])


def test_load_diff_summary_shape(diff_path: Path, store: SessionStore) -> None:
    result = _load(diff_path, store)
    assert {"chunks", "files", "total_lines", "file_path", "files_excluded", "excluded"} <= set(
        result
    )
    # Not the defaults: a view of the diff, which keeps its own path for its default view.
    view = read_view(result["file_path"])
    assert view.diff == str(diff_path.resolve()) and view.options.max_chunk_lines == 100
    assert result["files"] == 35
    assert result["files_excluded"] == 2
    reasons = {e["path"]: e["reason"] for e in result["excluded"]}
    assert reasons == {"ws.py": "trivial", "yarn.lock": "generated"}


def test_list_chunks_entries_follow_the_documented_shape(
    diff_path: Path, store: SessionStore
) -> None:
    listing = diff_tools.list_chunks(_view(diff_path, store), store=store).to_dict()
    assert "next_offset" not in listing
    chunks = listing["chunks"]
    assert [c["chunk"] for c in chunks] == list(range(1, listing["total_chunks"] + 1))
    assert listing["total_token_count"] == sum(c["token_count"] for c in chunks)
    for c in chunks:
        assert set(c) >= {"chunk", "files", "file_details", "lines", "token_count", "summary"}
        assert [d["path"] for d in c["file_details"]] == c["files"]
        assert sum(d["lines"] for d in c["file_details"]) == c["lines"]
    split = [c for c in chunks if c.get("parent_file") == "big.py"]
    assert [c["sub_chunk_index"] for c in split] == list(range(1, len(split) + 1))
    assert len(split) > 1
    renamed = [d for c in chunks for d in c["file_details"] if d["path"] == "new_name.py"]
    assert renamed[0]["status"] == "renamed" and renamed[0]["from"] == "old_name.py"


def test_list_chunks_pages_under_the_token_budget(diff_path: Path, store: SessionStore) -> None:
    view = _view(diff_path, store)
    whole = diff_tools.list_chunks(view, store=store, max_tokens=None).to_dict()["chunks"]
    seen: list[int] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        page = diff_tools.list_chunks(view, offset, store=store, max_tokens=200).to_dict()
        compact = json.dumps(page, separators=(",", ":"))  # as the tool answers it
        assert len(compact) // 4 <= 200 or len(page["chunks"]) == 1
        seen += [c["chunk"] for c in page["chunks"]]
        offset = page.get("next_offset")
        pages += 1
    assert pages > 1
    assert seen == [c["chunk"] for c in whole]
    limited = diff_tools.list_chunks(view, 1, 2, store=store).to_dict()
    assert [c["chunk"] for c in limited["chunks"]] == [2, 3]
    assert limited["next_offset"] == 3
    with pytest.raises(InvalidArgument, match="past the end"):
        diff_tools.list_chunks(view, 10_000, store=store).to_dict()
    with pytest.raises(InvalidArgument, match="non-negative"):
        diff_tools.list_chunks(view, -1, store=store).to_dict()


def test_get_chunk_banner_and_exact_text(diff_path: Path, store: SessionStore) -> None:
    view = _view(diff_path, store)
    exact = diff_tools.get_chunk_bytes(view, 1, store=store)
    bare = diff_tools.get_chunk(view, 1, include_context=False, store=store)
    assert bare == exact.decode()
    total = diff_tools.list_chunks(view, store=store).to_dict()["total_chunks"]
    framed = diff_tools.get_chunk(view, 1, store=store)
    assert framed.startswith(f"=== Chunk 1 of {total} ===\nFiles: ")
    assert framed.endswith(bare)
    numbers = diff_tools.find_chunks_for_files(view, "big.py", store=store)
    part = diff_tools.get_chunk(view, numbers[1], store=store)
    assert "Part 2 of" in part and "big.py" in part


def test_get_chunk_formats_and_errors(diff_path: Path, store: SessionStore) -> None:
    path = _view(diff_path, store)
    annotated = diff_tools.get_chunk(
        path, 1, include_context=False, format="annotated", store=store
    )
    assert "## File:" in annotated
    with pytest.raises(InvalidArgument, match="raw, annotated, compact"):
        diff_tools.get_chunk(path, 1, format="pretty", store=store)
    total = diff_tools.list_chunks(path, store=store).to_dict()["total_chunks"]
    with pytest.raises(ChunkNotFound, match=rf"1\.\.{total}"):
        diff_tools.get_chunk(path, total + 1, store=store)
    with pytest.raises(ChunkNotFound):
        diff_tools.get_chunk(path, 0, store=store)


def test_no_chunks_error_says_why(diff_path: Path, store: SessionStore) -> None:
    view = _view(diff_path, store, include_patterns="*.rs")
    with pytest.raises(ChunkNotFound, match="excluded"):
        diff_tools.get_chunk(view, 1, store=store)


def test_find_chunks_for_files_is_case_insensitive(diff_path: Path, store: SessionStore) -> None:
    path = _view(diff_path, store)
    guide = diff_tools.find_chunks_for_files(path, "docs/guide.MD", store=store)
    assert len(guide) == 1
    assert diff_tools.find_chunks_for_files(path, "*.md", store=store) == guide
    every = diff_tools.find_chunks_for_files(path, "*.py", store=store)
    assert every == sorted(set(every))
    assert diff_tools.find_chunks_for_files(path, "*.rs", store=store) == []
    assert diff_tools.find_chunks_for_files(path, "yarn.lock", store=store) == []  # excluded
    with pytest.raises(InvalidArgument):
        diff_tools.find_chunks_for_files(path, "  ", store=store)


def test_found_chunks_name_their_matching_files_and_lines(
    diff_path: Path, store: SessionStore
) -> None:
    path = _view(diff_path, store)
    found = diff_tools.find_chunks_with_files(path, "big.py,docs/*", store=store)
    numbers = diff_tools.find_chunks_for_files(path, "big.py,docs/*", store=store)
    assert [item.chunk for item in found] == numbers and len(numbers) >= 3
    review = store.get(path).review
    for item in found:
        counts = review.chunks[item.chunk - 1].file_line_counts
        assert {p for p, _ in item.files} <= {"big.py", "docs/Guide.md"}
        assert all(counts[p] == lines for p, lines in item.files)
    big = [lines for item in found for p, lines in item.files if p == "big.py"]
    assert len(big) >= 2 and sum(big) > 600  # a split file: its part in each chunk
    assert found[0].to_dict()["files"][0].keys() == {"path", "lines"}


def test_get_file_diff_matching(diff_path: Path, store: SessionStore) -> None:
    path = _view(diff_path, store)
    whole = diff_tools.get_file_diff(path, "big.py", store=store)
    assert whole.startswith("diff --git a/big.py b/big.py\n")
    assert whole.count("\n+new ") == 300  # all hunks, though split over chunks
    assert diff_tools.get_file_diff(path, "*guide*", store=store).startswith("diff --git")
    assert "new_name.py" in diff_tools.get_file_diff(path, "old_name.py", store=store)
    with pytest.raises(FileNotInDiff, match=r"Closest paths: .*src/mod_") as missing:
        diff_tools.get_file_diff(path, "src/mod_99.py", store=store)
    # a file the diff leaves alone is read by another tool, and the error says which
    closest = str(missing.value).split("Closest paths: ")[1].split(".py.")[0]
    assert closest.count(", ") == 4  # five paths, the closest first: not the diff's list
    assert "open_file_version reads it" in (missing.value.suggestion or "")
    assert "diffchunk show --path PATH" in (missing.value.cli_suggestion or "")
    with pytest.raises(InvalidArgument, match="empty"):
        diff_tools.get_file_diff(path, " ", store=store)


def test_get_file_diff_of_several_files_answers_each_in_turn(
    diff_path: Path, store: SessionStore
) -> None:
    """A glob or a comma-separated list matching several files: each file's diff as its
    own answer gives it (lean without its head line: its ``##`` line names it), in the
    diff's order, the excluded ones named, not shown; each shown file is seen."""
    path = _view(diff_path, store)
    each = [diff_tools.get_file_diff(path, f"src/mod_{i:02d}.py", store=store) for i in range(30)]
    assert diff_tools.get_file_diff(path, "src/*.py", store=store) == "".join(each)
    lean = diff_tools.get_file_diff(path, "yarn.lock,docs/*,big.py", format="lean", store=store)
    alone = [
        diff_tools.get_file_diff(path, name, format="lean", store=store)
        for name in ("big.py", "docs/Guide.md")  # the diff's order
    ]
    assert alone[1].startswith("=== docs/Guide.md | lean |")
    assert lean == "".join(text.split("\n\n", 1)[1] for text in alone) + (
        "=== excluded from the chunks, not shown (each is served alone): yarn.lock "
        "(generated) ===\n"
    )


def test_excluded_file_is_served_with_the_reason(diff_path: Path, store: SessionStore) -> None:
    text = diff_tools.get_file_diff(_view(diff_path, store), "yarn.lock", store=store)
    assert text.startswith("=== yarn.lock is excluded from the chunks (generated")
    assert "diff --git a/yarn.lock b/yarn.lock" in text


def test_tools_auto_load_and_overview_lists_sessions(diff_path: Path, store: SessionStore) -> None:
    assert diff_tools.get_current_overview(store=store).to_dict() == {
        "loaded_diffs": [],
        "total_sessions": 0,
    }
    diff_tools.list_chunks(str(diff_path), store=store).to_dict()
    overview = diff_tools.get_current_overview(store=store).to_dict()
    assert overview["total_sessions"] == 1
    entry = overview["loaded_diffs"][0]
    assert entry["file_path"] == str(diff_path.resolve())
    assert entry["options"]["max_chunk_lines"] == 1000
    assert {"chunks", "files", "total_lines", "files_excluded"} <= set(entry)


def test_relative_path_error_is_actionable(store: SessionStore) -> None:
    with pytest.raises(PathError, match="absolute path is required"):
        diff_tools.list_chunks("change.diff", store=store).to_dict()


def test_deleted_diff_file_is_refused_and_its_session_dropped(
    diff_path: Path, store: SessionStore
) -> None:
    diff_tools.list_chunks(str(diff_path), store=store).to_dict()
    assert store.peek(str(diff_path)) is not None
    diff_path.unlink()
    with pytest.raises(PathError, match="does not exist"):
        diff_tools.get_chunk(str(diff_path), 1, store=store)
    assert store.peek(str(diff_path)) is None
    assert diff_tools.get_current_overview(store=store).to_dict()["loaded_diffs"] == []


def test_numbered_lines_of_cut_hunks_are_lines_of_the_new_file(
    tmp_path: Path, store: SessionStore
) -> None:
    # A rewrite big enough to cut one hunk: each piece borrows the file's next
    # line as trailing context, which a later piece may remove. It must not
    # be shown as line N of the new file.
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "f.txt").write_text("".join(f"old {i}\n" for i in range(1200)))
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    target = [f"new {i}" for i in range(1200)]
    (repo / "f.txt").write_text("".join(line + "\n" for line in target))
    diff = tmp_path / "rewrite.diff"
    diff.write_bytes(_git(repo, "diff"))
    listing = diff_tools.list_chunks(str(diff), store=store).to_dict()
    assert listing["total_chunks"] > 1
    borrowed = 0
    for entry in listing["chunks"]:
        for fmt in ("annotated", "compact"):
            text = diff_tools.get_chunk(str(diff), entry["chunk"], format=fmt, store=store)
            for line in text.splitlines():
                number, _, rest = line.partition(" ")
                if number.isdigit() and rest[:1] in ("+", " "):
                    assert rest[1:] == target[int(number) - 1], (fmt, line)
                elif number == "~":
                    borrowed += 1
                    assert rest.startswith(" old ")
    assert borrowed > 0
