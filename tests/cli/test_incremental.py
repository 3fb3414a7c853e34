"""``diffchunk review RANGE --since-review`` and ``diffchunk status`` after the branch moved,
through the installed command."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import commit, git, run_git
from incrementalkit import branch_text, five_files
from recordkit import numbered, run_cli, write_diff


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {
        "DIFFCHUNK_STATE_DIR": str(tmp_path / "state"),
        "DIFFCHUNK_CACHE_DIR": str(tmp_path / "cache"),
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return five_files(tmp_path / "repo")


def test_review_since_review_and_status(repo: Path, env: dict[str, str]) -> None:
    def cli(*args: str) -> str:
        done = run_cli(*args, cwd=repo, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    cli("review", "main..feature")
    cli("mark", "main..feature", "--file", "*.py")
    commit(repo, {"f2.py": branch_text("f2.py", {30: "f2 thirty"}), "new.py": numbered("n", 3)})
    out = cli("review", "main..feature", "--since-review")
    assert "history fast-forward" in out
    assert "4 unchanged, 1 changed, 1 new, 0 no longer changed" in out
    assert "This diff holds only what changed since; the full diff: " in out
    since_path = out.split("Cached diff: ")[1].split("\n")[0]
    assert "/since-" in since_path
    chunk = cli("review", "main..feature", "--since-review", "--chunk", "1")
    assert "+f2 thirty" in chunk and "f1" not in chunk and "+n 1" in chunk
    status = cli("status", "main..feature")
    # What the load compared (the same counts as review's), then what is not reviewed now.
    assert "4 unchanged, 1 changed, 1 new, 0 no longer changed" in status
    assert "not reviewed now: 1 changed since their review, 1 new since review" in status
    assert "  new since review: new.py" in status
    assert "  changed since reviewed: f2.py" in status
    # The since-review diff is a handle of the same review: marks made on it hold.
    cli("mark", since_path, "--chunk", "1")
    assert "Every chunk is reviewed." in cli("status", "main..feature")


def test_since_review_errors(repo: Path, env: dict[str, str], tmp_path: Path) -> None:
    diff = write_diff(repo, tmp_path / "x.diff", "main", "feature")
    usage = run_cli("review", str(diff), "--since-review", cwd=repo, env=env)
    assert usage.returncode == 2 and "applies to a git range" in usage.stderr
    first = run_cli("review", "main..feature", cwd=repo, env=env)
    head = git(repo, "rev-parse", "feature")
    assert first.returncode == 0
    commit(repo, {"f5.py": branch_text("f5.py", {20: "f5 twenty"})})
    git(repo, "reset", "-q", "--soft", "main")
    git(repo, "commit", "-q", "-m", "rewritten")
    run_git(repo, "reflog", "expire", "--expire=now", "--all")
    run_git(repo, "gc", "-q", "--prune=now")
    gone = run_cli("review", "main..feature", "--since-review", cwd=repo, env=env)
    assert gone.returncode == 1
    assert "no longer in the repository" in gone.stderr and head[:12] in gone.stderr
    assert "diffchunk review main..feature" in gone.stderr
    full = run_cli("review", "main..feature", cwd=repo, env=env)
    assert full.returncode == 0 and "are no longer in the repository" in full.stdout


def test_status_counts_against_the_revision_it_names(repo: Path, env: dict[str, str]) -> None:
    """A file reviewed two revisions ago and changed since is not reviewed now, but the
    comparison with the last reviewed revision counts it unchanged, as review says."""

    def cli(*args: str) -> str:
        done = run_cli(*args, cwd=repo, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    cli("review", "main..feature")
    cli("mark", "main..feature", "--file", "f1.py")
    commit(repo, {"f1.py": branch_text("f1.py", {50: "f1 fifty"})}, "f1 again")
    cli("review", "main..feature")
    cli("mark", "main..feature", "--file", "f2.py")  # the reviewed revision is now this one
    commit(repo, {"new.py": numbered("n", 3)}, "new file")
    review = cli("review", "main..feature")
    status = cli("status", "main..feature")
    counts = "5 unchanged, 0 changed, 1 new, 0 no longer changed"
    assert counts in review and counts in status
    assert "not reviewed now: 1 changed since their review, 1 new since review" in status
    assert "  changed since reviewed: f1.py" in status
