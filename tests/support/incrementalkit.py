"""Branches that move under review, and git's own answers to check ours against.

``five_files`` builds a repository whose ``feature`` branch changes five
60-line files of ``main`` (line 10 of each, and line 40 of ``f1.py``).  The
oracles are git's: ``git patch-id --stable`` of one file's change in a range,
``git range-diff`` of two ranges, and blob ids.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from gitrepo import commit, git, git_environment, init_repo, templated
from recordkit import numbered

from diffchunk.diff.options import LoadOptions
from diffchunk.review import record as core
from diffchunk.review.incremental.load import load_git_diff
from diffchunk.review.results import RangeSummary

FIVE = tuple(f"f{i}.py" for i in range(1, 6))


def branch_text(name: str, extra: dict[int, str] | None = None, lines: int = 60) -> str:
    """A file of the branch: line 10 changed (and line 40 of f1.py), plus ``extra``."""
    stem = name.split(".")[0]
    changed = {10: f"{stem} ten"}
    if name == "f1.py":
        changed[40] = f"{stem} forty"
    changed.update(extra or {})
    return numbered(stem, lines, changed)


@templated
def five_files(path: Path) -> Path:
    """main: five 60-line files; feature: one commit changing each of them."""
    repo = init_repo(path)
    commit(repo, {name: numbered(name.split(".")[0], 60) for name in FIVE}, "base")
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, {name: branch_text(name) for name in FIVE}, "feature")
    return repo


def load(
    repo: Path, since: bool = False, rng: str = "main..feature", **options: Any
) -> RangeSummary:
    return load_git_diff(str(repo), rng, options=LoadOptions(**options), since_review=since)


def review_everything(path: str) -> None:
    """Mark every chunk of the loaded diff at ``path`` reviewed."""
    for number in range(1, core.review_status(path).total_chunks + 1):
        core.mark_reviewed(path, chunk_number=number)


def file_states(path: str) -> dict[str, str]:
    """Each file's state as review_status says it per file (or its coverage state)."""
    status = core.review_status(path).to_dict()
    found: dict[str, str] = {}
    for chunk in status["chunks"]:
        found.update(chunk.get("file_states") or dict.fromkeys(chunk["files"], chunk["status"]))
    return found


def patch_id(repo: Path, base: str, head: str, path: str) -> str | None:
    """``git patch-id --stable`` of ``path``'s change from ``base`` to ``head`` (None: none)."""
    diff = subprocess.run(
        ["git", "-C", str(repo), "diff", base, head, "--", path],
        capture_output=True,
        check=True,
        env=git_environment(),
    ).stdout
    if not diff:
        return None
    out = subprocess.run(
        ["git", "-C", str(repo), "patch-id", "--stable"],
        input=diff,
        capture_output=True,
        check=True,
        env=git_environment(),
    ).stdout.decode()
    return out.split()[0]


def unchanged_by_git(repo: Path, old: tuple[str, str], new: tuple[str, str]) -> dict[str, bool]:
    """Per file of either range: whether git gives its change the same patch id in both."""
    names = set(git(repo, "diff", "--name-only", *old).split()) | set(
        git(repo, "diff", "--name-only", *new).split()
    )
    return {
        name: patch_id(repo, *old, name) == patch_id(repo, *new, name) for name in sorted(names)
    }


def range_diff_lines(repo: Path, old: tuple[str, str], new: tuple[str, str]) -> list[str]:
    """The inner diff lines of ``git range-diff`` (a patch's lines that changed, with
    their two markers: ``-+x``, ``++y``...), without the indentation."""
    out = git(repo, "range-diff", "--no-color", f"{old[0]}..{old[1]}", f"{new[0]}..{new[1]}")
    return [
        line[4:]
        for line in out.splitlines()
        if line.startswith("    ") and line[4:6] in ("-+", "--", "++", "+-")
    ]


def blob(repo: Path, rev: str, path: str) -> str:
    return git(repo, "rev-parse", f"{rev}:{path}")
