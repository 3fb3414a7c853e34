"""list_chunks names the definitions each file's change touches: from the outlines of
both revisions when the repository is known, else from the hunks' function context."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from gitrepo import commit, git_bytes, init_repo

from diffchunk.diff.options import LoadOptions
from diffchunk.review import diff_tools
from diffchunk.review.range_review import load_git_diff
from diffchunk.review.sessions import SessionStore
from diffchunk.review.symbols import MAX_LISTED


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))


def _fn(name: str, tag: str = "", indent: str = "") -> str:
    return f"{indent}def {name}(x):\n{indent}    y = x{tag}\n{indent}    return y\n\n"


OLD = {
    "svc.py": _fn("keep")
    + _fn("edit")
    + _fn("gone")
    + "class Box:\n"
    + _fn("size", indent="    ")
    + _fn("open", indent="    "),
    "many.py": "".join(_fn(f"f{i}") for i in range(12)),
    "notes.txt": "plain\ntext\n",
}
NEW = {
    "svc.py": _fn("keep")
    + _fn("edit", " + 1")
    + _fn("fresh")
    + "class Box:\n"
    + _fn("size", indent="    ")
    + _fn("open", " * 2", indent="    ")
    + "class Lid:\n"
    + _fn("close", indent="    "),
    "many.py": "".join(_fn(f"f{i}", " - 1") for i in range(12)),
    "notes.txt": "plain\ntext, edited\n",
}


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    commit(repo, OLD)
    commit(repo, NEW, "two")
    return repo


def _details(file_path: str, store: SessionStore, **kw: Any) -> dict[str, dict[str, Any]]:
    listing = diff_tools.list_chunks(file_path, store=store, **kw).to_dict()
    return {d["path"]: d for c in listing["chunks"] for d in c["file_details"]}


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_symbols_from_both_revisions_of_a_range(repo: Path) -> None:
    store = SessionStore()
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=store).file_path
    details = _details(diff, store)
    svc = details["svc.py"]
    assert svc["symbols_from"] == "outline"
    new, old = NEW["svc.py"], OLD["svc.py"]

    def span(text: str, first: str, last: str) -> str:
        return f"{_line(text, first)}-{_line(text, last) + 2}"

    assert svc["symbols"] == [
        f"edit (function, modified, {span(new, 'def edit', 'def edit')})",
        f"fresh (function, added, {span(new, 'def fresh', 'def fresh')})",
        f"Box.open (method, modified, {span(new, 'def open', 'def open')})",
        f"Lid (class, added, {span(new, 'class Lid', 'def close')})",
        f"gone (function, removed, old {span(old, 'def gone', 'def gone')})",
    ]
    many = details["many.py"]
    assert len(many["symbols"]) == MAX_LISTED and many["symbols_more"] == 12 - MAX_LISTED
    assert [s.split(" ")[0] for s in many["symbols"]] == [f"f{i}" for i in range(MAX_LISTED)]
    assert "symbols" not in details["notes.txt"]  # no grammar, no function context


def test_symbols_from_the_hunks_of_a_diff_file(repo: Path, tmp_path: Path) -> None:
    text = git_bytes(repo, "diff", "-U1", "HEAD~1", "HEAD", "--", "many.py")
    diff = tmp_path / "change.diff"
    diff.write_bytes(text)
    # git's function context after each @@, once each, in order
    contexts = list(dict.fromkeys(re.findall(r"^@@ [^@]+ @@ (.+)$", text.decode(), re.M)))
    assert len(contexts) > MAX_LISTED
    many = _details(str(diff), SessionStore())["many.py"]
    assert many["symbols_from"] == "hunks"
    assert many["symbols"] == contexts[:MAX_LISTED]
    assert many["symbols_more"] == len(contexts) - MAX_LISTED


def test_symbols_are_computed_for_the_page_asked_and_per_part(repo: Path) -> None:
    store = SessionStore()
    loaded = load_git_diff(
        str(repo), "HEAD~1..HEAD", options=LoadOptions(max_chunk_lines=20), store=store
    )
    session = store.get(loaded.file_path)
    first = diff_tools.list_chunks(loaded.file_path, limit=1, store=store).to_dict()
    page_files = {p.file_index for p in session.review.chunks[0].parts}
    assert set(session.cache["symbols"]) == page_files  # only this page's files
    whole = diff_tools.list_chunks(loaded.file_path, store=store).to_dict()
    parts = [c for c in whole["chunks"] if c.get("parent_file") == "many.py"]
    assert len(parts) >= 2 and first["chunks"][0] == whole["chunks"][0]
    # Each part of the cut file lists the definitions its own lines touch.
    names = [[s.split(" ")[0] for s in c["file_details"][0]["symbols"]] for c in parts]
    assert names == [[f"f{i}", f"f{i + 1}"] for i in range(0, 12, 2)]
