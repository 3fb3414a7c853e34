"""The pre-push hook after the branch moved: it says what changed since the last review
of the pushed branch, and ``diffchunk.requireReviewed`` counts a file changed since its
review as not reviewed.  Real pushes (force-pushes too) to a local bare remote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gitrepo import run_git, write_files
from incrementalkit import load, review_everything
from pushkit import pushed_clone
from recordkit import hook_environment, numbered

from diffchunk.git.repo import discover
from diffchunk.review import push_hook as hook
from diffchunk.review import record as core


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """What both this process and the hook see: one record, one cache."""
    values = hook_environment(tmp_path)
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    return values


def git(work: Path, env: dict[str, str], *args: str) -> str:
    return run_git(work, *args, env=env).stdout.strip()


def commit(work: Path, env: dict[str, str], files: dict[str, str], message: str = "c") -> None:
    write_files(work, files)
    git(work, env, "add", "-A")
    git(work, env, "commit", "-q", "-m", message)


@pytest.fixture
def work(tmp_path: Path, env: dict[str, str]) -> Path:
    """A clone whose main is on the remote, and a feature branch changing two files."""
    work = pushed_clone(
        tmp_path,
        {"a.py": numbered("a", 40), "b.py": numbered("b", 40)},
        {"a.py": numbered("a", 40, {5: "a five"}), "b.py": numbered("b", 40, {20: "b twenty"})},
        set_head=False,
    )
    hook.install(discover(str(work)), python=sys.executable)
    return work


def push(work: Path, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    """``git push origin feature``; the hook's report and advice both in ``stderr``."""
    done = run_git(work, "push", *extra, "origin", "feature", check=False, env=env)
    done.stderr = done.stdout + done.stderr
    return done


def test_a_push_after_an_amend_reports_what_changed_since_the_review(
    work: Path, env: dict[str, str]
) -> None:
    git(work, env, "config", "diffchunk.requireReviewed", "true")
    first = load(work)
    review_everything(first.file_path)
    assert push(work, env).returncode == 0
    # The amend changes b.py's change; the review is not loaded again before the push.
    commit(work, env, {"b.py": numbered("b", 40, {20: "b TWENTY"})})
    git(work, env, "reset", "-q", "--soft", "main")
    git(work, env, "commit", "-q", "-m", "feature, amended")
    stopped = push(work, env, "--force")
    assert stopped.returncode == 1, stopped.stderr
    assert (
        f"since review #1's last review ({first.base[:12]}..{first.head[:12]}"  # type: ignore[index]
        in stopped.stderr
    )
    assert "history rewritten; 1 changed, 0 new, 1 unchanged, 0 no longer changed" in stopped.stderr
    assert "  changed: b.py" in stopped.stderr
    assert "1 file(s) not marked reviewed (diffchunk.requireReviewed)" in stopped.stderr
    assert "    b.py (changed)" in stopped.stderr
    # The hook recorded nothing: the review's latest revision is still the reviewed one.
    assert core.review_status(first.file_path).revision.head == first.head
    # Review what changed since, then the push goes through.
    since = load(work, since=True)
    assert since.to_dict()["files"] == 1
    core.mark_reviewed(since.file_path, chunk_number=1)
    done = push(work, env, "--force")
    assert done.returncode == 0, done.stderr
    assert "review #1: main..feature" in done.stderr
    assert "files: 1 reviewed" in done.stderr


def test_a_push_of_new_commits_on_top(work: Path, env: dict[str, str]) -> None:
    first = load(work)
    review_everything(first.file_path)
    commit(work, env, {"c.py": numbered("c", 5)}, "a new file")
    pushed = push(work, env)
    assert pushed.returncode == 0, pushed.stderr
    assert "history fast-forward; 0 changed, 1 new, 2 unchanged, 0 no longer changed" in (
        pushed.stderr
    )
    assert "  new: c.py" in pushed.stderr
    assert "files: 2 reviewed, 0 changed since reviewed, 0 seen, 1 unseen" in pushed.stderr
