"""A file's change id and the record's view of a loaded diff (review/record/changes.py).

The change id must survive what does not change the change (line numbers,
context width, chunking, filters, edits elsewhere in the file) and must not
survive an edit of the change itself; git is the oracle for the diffs.
"""

from __future__ import annotations

from pathlib import Path

from gitrepo import commit, git, git_bytes, init_repo
from recordkit import feature_repo, numbered

from diffchunk.diff.options import LoadOptions
from diffchunk.diff.pipeline import build_review
from diffchunk.review.record.changes import RecordedDiff


def _loaded(data: bytes, **options: object) -> RecordedDiff:
    return RecordedDiff("/x.diff", "sha", build_review(data, LoadOptions(**options)))  # type: ignore[arg-type]


def _ids(data: bytes, **options: object) -> dict[str, str]:
    loaded = _loaded(data, **options)
    return {f.path: f.change_id for f in loaded.files()}


def test_change_id_ignores_chunking_context_and_filters(tmp_path: Path) -> None:
    repo = feature_repo(tmp_path / "repo")
    data = git_bytes(repo, "diff", "main", "feature")
    wide = git_bytes(repo, "diff", "-U12", "main", "feature")
    base = _ids(data, skip_generated=False)
    assert len(set(base.values())) == len(base) == 5
    assert _ids(data, max_chunk_lines=50, skip_generated=False) == base
    assert _ids(data, context_lines=0, skip_generated=False) == base
    assert _ids(wide, skip_generated=False) == base  # another context width from git
    filtered = _ids(data, include_patterns="src/**")
    assert filtered == base  # excluded files keep their ids too
    loaded = _loaded(data, include_patterns="src/**")
    assert loaded.file("docs/c.md").excluded_reason == "pattern"
    assert loaded.file("package-lock.json").excluded_reason == "pattern"
    assert loaded.file("src/a.py").chunks == (1,)


def test_change_id_survives_a_shift_and_changes_with_an_edit(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {"m.py": numbered("m", 80)})
    git(repo, "checkout", "-q", "-b", "one")
    commit(repo, {"m.py": numbered("m", 80, {50: "m fifty!"})})
    original = git_bytes(repo, "diff", "main", "one")
    assert b"@@ -47,7 +47,7 @@" in original
    first = _ids(original)["m.py"]
    # The same edit on a base with lines added above it: other line numbers, same id.
    git(repo, "checkout", "-q", "main")
    commit(repo, {"m.py": "top 1\ntop 2\ntop 3\n" + numbered("m", 80)})
    git(repo, "checkout", "-q", "-b", "two")
    commit(repo, {"m.py": "top 1\ntop 2\ntop 3\n" + numbered("m", 80, {50: "m fifty!"})})
    shifted = git_bytes(repo, "diff", "main", "two")
    assert b"@@ -50,7 +50,7 @@" in shifted
    assert _ids(shifted)["m.py"] == first
    # An edit of the change: a new id.
    commit(repo, {"m.py": "top 1\ntop 2\ntop 3\n" + numbered("m", 80, {50: "m fifty?"})})
    assert _ids(git_bytes(repo, "diff", "main", "two"))["m.py"] != first
    # A whitespace-only difference counts (exact about whitespace).
    commit(repo, {"m.py": "top 1\ntop 2\ntop 3\n" + numbered("m", 80, {50: "m fifty? "})})
    assert _ids(git_bytes(repo, "diff", "main", "two"))["m.py"] != first


def test_change_id_of_sections_without_hunks(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {"run.sh": "echo hi\n", "old.txt": numbered("o", 20), "img.bin": "\x00\x01\x02"})
    git(repo, "checkout", "-q", "-b", "f")
    (repo / "run.sh").chmod(0o755)
    git(repo, "mv", "old.txt", "new.txt")
    (repo / "img.bin").write_bytes(b"\x00\x01\x03")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "meta")
    loaded = _loaded(git_bytes(repo, "diff", "-M", "main", "f"))
    statuses = {f.path: (f.status, f.hunks, f.binary, f.old_path) for f in loaded.files()}
    assert statuses["run.sh"] == ("mode", (), False, None)
    assert statuses["new.txt"] == ("renamed", (), False, "old.txt")
    assert statuses["img.bin"][0] == "binary" and statuses["img.bin"][2]
    ids = {f.path: f.change_id for f in loaded.files()}
    assert len(set(ids.values())) == 3
    # Another binary content: another id.
    (repo / "img.bin").write_bytes(b"\x00\x01\x04")
    git(repo, "commit", "-q", "-am", "again")
    assert _ids(git_bytes(repo, "diff", "-M", "main", "f"))["img.bin"] != ids["img.bin"]


def test_a_split_file_has_a_key_per_part_and_lines_find_their_chunk(tmp_path: Path) -> None:
    repo = feature_repo(tmp_path / "repo")
    data = git_bytes(repo, "diff", "main", "feature")
    loaded = _loaded(data, max_chunk_lines=100)
    big = loaded.file("src/big.py")
    assert len(big.chunks) > 2 and len(big.parts) == len(big.chunks)
    assert len(set(big.parts)) == len(big.parts)
    assert _loaded(data, max_chunk_lines=100).file("src/big.py").parts == big.parts
    for number in big.chunks:
        refs = loaded.chunk_parts(number)
        assert [r.path for r in refs] == ["src/big.py"]
        assert refs[0].key in big.parts
    # Each line is found in the chunk whose text holds it.
    for line in (1, 150, 399):
        located = loaded.locate("src/big.py", "new", line, line)
        assert located is not None and located.text == f"big {line}\n"
        chunk = loaded.chunk_of("src/big.py", located.offset)
        assert chunk is not None
        from diffchunk.diff.pipeline import build_review as build

        review = build(data, LoadOptions(max_chunk_lines=100))
        assert f"+big {line}\n".encode() in review.chunk_bytes(chunk)
    # An unsplit file is one whole share.
    assert loaded.file("src/a.py").parts == ()


def test_locate_numbers_each_side(tmp_path: Path) -> None:
    repo = feature_repo(tmp_path / "repo")
    loaded = _loaded(git_bytes(repo, "diff", "main", "feature"))
    new = loaded.locate("src/a.py", "new", 9, 11)
    assert new is not None
    assert new.text == "a 9\na ten\na 11\n"
    assert new.before == "a 7\na 8\n" and new.after == "a 12\na 13\n"  # inside the hunk
    old = loaded.locate("src/a.py", "old", 10, 10)
    assert old is not None and old.text == "a 10\n"
    assert loaded.locate("src/a.py", "new", 20, 20) is None  # between hunks
    assert loaded.locate("src/a.py", "new", 12, 38) is None  # across two hunks
    assert [h.span("new") for h in loaded.file("src/a.py").hunks] == [(7, 13), (37, 43)]
