"""list_chunks' file details: every file's status and its +/- lines in each chunk."""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from gitrepo import commit, git, git_bytes, init_repo

from diffchunk.diff.options import LoadOptions
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools


def _lines(n: int, tag: str) -> str:
    return "".join(f"{tag} line {i}\n" for i in range(n))


def _repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    commit(
        repo,
        {
            "keep.py": _lines(40, "keep"),
            "gone.py": _lines(5, "gone"),
            "old_name.py": _lines(30, "moved"),
            "big.py": _lines(400, "big"),
            "run.sh": "echo hi\n",
            "logo.bin": "\0\1\2",
        },
    )
    (repo / "gone.py").unlink()
    os.rename(repo / "old_name.py", repo / "new_name.py")
    text = (repo / "new_name.py").read_text().replace("moved line 3\n", "moved line three\n")
    (repo / "new_name.py").write_text(text)
    (repo / "keep.py").write_text(_lines(40, "keep").replace("keep line 7\n", "seven\nmore\n"))
    (repo / "big.py").write_text(_lines(400, "big").replace("big", "BIG"))
    (repo / "added.py").write_text(_lines(3, "new"))
    (repo / "run.sh").chmod(0o755)
    (repo / "logo.bin").write_bytes(b"\0\3")
    commit(repo, {}, "two")
    return repo


def test_every_file_has_its_status_and_counts_that_add_up_to_numstat(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    diff = tmp_path / "change.diff"
    diff.write_bytes(git_bytes(repo, "diff", "-M", "HEAD~1", "HEAD"))
    store = SessionStore()
    view = diff_tools.load_diff(str(diff), LoadOptions(max_chunk_lines=150), store=store)
    listing = diff_tools.list_chunks(view.file_path, store=store).to_dict()
    status: dict[str, str] = {}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for chunk in listing["chunks"]:
        for detail in chunk["file_details"]:
            status[detail["path"]] = detail["status"]
            counts[detail["path"]][0] += detail.get("added", 0)
            counts[detail["path"]][1] += detail.get("removed", 0)
            assert ("added" in detail) == ("removed" in detail)
    assert status == {
        "added.py": "added",
        "big.py": "modified",
        "gone.py": "deleted",
        "keep.py": "modified",
        "logo.bin": "binary",
        "new_name.py": "renamed",
        "run.sh": "mode",
    }
    numstat = git(repo, "diff", "--numstat", "-M", "HEAD~1", "HEAD").splitlines()
    for row in numstat:
        added, removed, name = row.split("\t")
        if added == "-":  # binary
            continue
        path = name.split(" => ")[-1].rstrip("}") if "=>" in name else name
        assert counts[path] == [int(added), int(removed)], path
    split = [c for c in listing["chunks"] if c.get("parent_file") == "big.py"]
    assert len(split) >= 3  # big.py is cut: each part counts its own lines
    parts = [(c["file_details"][0]["added"], c["file_details"][0]["removed"]) for c in split]
    assert all(0 < a + r < 800 for a, r in parts)
    assert "added" not in next(
        d for c in listing["chunks"] for d in c["file_details"] if d["path"] == "run.sh"
    )
