"""The pre-push hook and the review record: real pushes to a local bare remote, with
and without ``diffchunk.failOn`` and ``diffchunk.requireReviewed``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gitrepo import run_git, write_files
from pushkit import pushed_clone
from recordkit import hook_environment, numbered

from diffchunk.git.repo import discover
from diffchunk.review import push_hook as hook
from diffchunk.review import record as core
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.record import pushed
from diffchunk.review.tools import diff_tools
from diffchunk.review.tools.exporting import export_review


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """What both this process and the hook see: one record, one cache."""
    values = hook_environment(tmp_path)
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    return values


def git(
    repo: Path, env: dict[str, str], *args: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    return run_git(repo, *args, check=check, env=env)


def commit(repo: Path, env: dict[str, str], files: dict[str, str], message: str = "c") -> str:
    write_files(repo, files)
    git(repo, env, "add", "-A")
    git(repo, env, "commit", "-q", "-m", message)
    return git(repo, env, "rev-parse", "HEAD").stdout.strip()


@pytest.fixture
def work(tmp_path: Path, env: dict[str, str]) -> Path:
    """A clone whose main is on the remote, with a feature branch of two files and a lockfile."""
    work = pushed_clone(
        tmp_path,
        {"a.py": numbered("a", 40), "b.py": numbered("b", 40)},
        {
            "a.py": numbered("a", 40, {5: "a five"}),
            "b.py": numbered("b", 40, {20: "b twenty"}),
            "yarn.lock": "# lock\n",
        },
    )
    hook.install(discover(str(work)), python=sys.executable)
    return work


def push(work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``git push origin feature``; the hook's report (its stdout) and advice (stderr)
    both in ``stderr``."""
    done = git(work, env, "push", "origin", "feature", check=False)
    done.stderr = done.stdout + done.stderr
    return done


def _review(work: Path) -> str:
    return str(load_git_diff(str(work), "main..feature").to_dict()["file_path"])


def test_push_reports_the_review_without_settings(work: Path, env: dict[str, str]) -> None:
    unreviewed = push(work, env)
    assert unreviewed.returncode == 0, unreviewed.stderr
    assert "review record: no review of this commit" in unreviewed.stderr
    # A review of main..feature, half done, with a finding.
    commit(work, env, {"b.py": numbered("b", 40, {20: "b twenty!"})})
    path = _review(work)
    core.mark_reviewed(path, file_pattern="a.py")
    core.add_finding(path, "b.py", "Why the bang?", line=20, severity="blocker")
    pushed = push(work, env)
    assert pushed.returncode == 0, pushed.stderr
    assert "review #1: main..feature" in pushed.stderr
    # The pushed range is the last commit only (b.py); a.py counts from the review's diff
    # only where the pushed range holds it.
    assert (
        "files: 0 reviewed, 0 changed since reviewed, 0 seen, 1 unseen, 0 excluded (of 1)"
        in pushed.stderr
    )
    assert "open findings: 1 blocker" in pushed.stderr


def test_fail_on_open_findings(work: Path, env: dict[str, str]) -> None:
    git(work, env, "config", "diffchunk.failOn", "major")
    path = _review(work)
    nit = core.add_finding(path, "a.py", "Five in words", line=5, severity="nit").finding
    assert push(work, env).returncode == 0  # a nit is below major
    git(work, env, "push", "-q", "origin", "--delete", "feature")
    major = core.add_finding(path, "b.py", "Twenty in words", line=20).finding
    stopped = push(work, env)
    assert stopped.returncode == 1
    assert (
        "The push of refs/heads/feature was stopped: 1 open finding(s) at or above major"
        in stopped.stderr
    )
    assert f"    #{major.id} major b.py:20: Twenty in words" in stopped.stderr
    assert f"#{nit.id} nit" not in stopped.stderr
    assert "git push --no-verify" in stopped.stderr
    assert "git config --unset diffchunk.failOn" in stopped.stderr
    assert git(work, env, "ls-remote", "origin", "feature").stdout == ""
    core.update_finding(path, major.id, status="resolved")
    assert push(work, env).returncode == 0


def test_require_reviewed(work: Path, env: dict[str, str]) -> None:
    git(work, env, "config", "diffchunk.requireReviewed", "true")
    stopped = push(work, env)
    assert stopped.returncode == 1
    assert "2 file(s) not marked reviewed (diffchunk.requireReviewed)" in stopped.stderr
    assert "    a.py (unseen)" in stopped.stderr and "    b.py (unseen)" in stopped.stderr
    assert "yarn.lock" not in stopped.stderr.split("stopped:")[1]  # generated: not required
    path = _review(work)
    core.mark_reviewed(path, file_pattern="a.py")
    stopped = push(work, env)
    assert stopped.returncode == 1 and "1 file(s) not marked reviewed" in stopped.stderr
    assert "    b.py (unseen)" in stopped.stderr and "    a.py (" not in stopped.stderr
    core.mark_reviewed(path, chunk_number=1)
    done = push(work, env)
    assert done.returncode == 0, done.stderr
    assert "files: 2 reviewed" in done.stderr
    # A later commit changes b.py again: its review no longer holds.
    commit(work, env, {"b.py": numbered("b", 40, {20: "b twenty", 21: "b 21!"})})
    path = _review(work)
    stopped = push(work, env)
    assert stopped.returncode == 1 and "    b.py (changed)" in stopped.stderr
    core.mark_reviewed(path, file_pattern="b.py")
    assert push(work, env).returncode == 0
    # --no-verify skips the hook, as the message says.
    commit(work, env, {"a.py": numbered("a", 40, {6: "a six"})})
    assert push(work, env).returncode == 1
    assert git(work, env, "push", "--no-verify", "origin", "feature", check=False).returncode == 0


def test_bad_settings_are_explained(work: Path, env: dict[str, str]) -> None:
    git(work, env, "config", "diffchunk.failOn", "severe")
    stopped = push(work, env)
    assert stopped.returncode == 1
    assert "diffchunk.failOn is 'severe', not a severity" in stopped.stderr
    git(work, env, "config", "--unset", "diffchunk.failOn")
    git(work, env, "config", "diffchunk.requireReviewed", "perhaps")
    stopped = push(work, env)
    assert stopped.returncode == 1 and "not true or false" in stopped.stderr


def test_the_review_of_the_pushed_head_is_found_after_any_call_on_an_earlier_load(
    work: Path, env: dict[str, str]
) -> None:
    first = load_git_diff(str(work), "main..feature")
    head = commit(work, env, {"b.py": numbered("b", 40, {20: "b twenty!"})})
    second = load_git_diff(str(work), "main..feature")
    earlier = first.file_path
    # Every tool, called with the path of the first load: each works on that revision.
    core.review_status(earlier)
    core.list_findings(earlier)
    core.export_document(earlier)
    export_review(earlier, "github")
    diff_tools.get_chunk(earlier, 1)
    diff_tools.get_file_diff(earlier, "a.py")
    core.mark_reviewed(earlier, file_pattern="a.py")
    core.add_finding(earlier, "a.py", "Five in words", line=5)
    found = pushed.push_report(discover(str(work)), second.file_path, head, pushed.RecordSettings())
    assert [(review.id, revision.head) for review, revision in found.reviews] == [(1, head)]
    assert found.open_findings["major"] == 1
    done = push(work, env)
    assert done.returncode == 0 and "review #1: main..feature" in done.stderr


def _printed_command(output: str, prefix: str) -> list[str]:
    """The words of the ``diffchunk ...`` command the hook printed after ``prefix``."""
    import shlex

    line = next(line for line in output.splitlines() if prefix in line)
    words = shlex.split(line.split(prefix, 1)[1])
    end = next((i for i, w in enumerate(words) if w.startswith("(") or w.endswith(",")), None)
    return words[:end] if end is not None else words


def test_the_hook_prints_commands_for_the_pushed_range_that_work(
    work: Path, env: dict[str, str]
) -> None:
    """No ``<range>`` placeholder and no cache file of the hook's (a diff file is another
    review): following the printed commands reviews the pushed range, and the push then
    passes requireReviewed."""
    from recordkit import run_cli

    git(work, env, "config", "diffchunk.requireReviewed", "true")
    first = push(work, env)
    assert first.returncode != 0
    assert "<range>" not in first.stderr and "/diffchunk/" not in first.stderr.split("diff:")[0]
    review = _printed_command(first.stderr, "review it: diffchunk review ")
    assert review[0].endswith("..feature")
    done = run_cli("review", *review, cwd=work, env=env)
    assert done.returncode == 0, done.stderr
    mark = _printed_command(first.stderr, "Mark files reviewed: ")
    assert mark[:2] == ["diffchunk", "mark"] and mark[2] == review[0]
    done = run_cli("mark", review[0], "--file", "*", cwd=work, env=env)
    assert done.returncode == 0, done.stderr
    second = push(work, env)
    assert second.returncode == 0, second.stderr


def test_a_push_over_max_chunks_gets_advice_that_can_help(work: Path, env: dict[str, str]) -> None:
    git(work, env, "config", "diffchunk.maxChunks", "1")
    git(work, env, "config", "diffchunk.maxLines", "100000")
    commit(work, env, {f"m{i}.py": numbered(f"m{i}", 400) for i in range(4)})
    stopped = push(work, env)
    assert stopped.returncode != 0
    assert "over diffchunk.maxChunks=1" in stopped.stderr
    assert "Review it first" not in stopped.stderr  # reviewing never lifts the limit
    raise_it = _printed_command(stopped.stderr, "Raise the limit for this repository: ")
    assert raise_it[:3] == ["git", "config", "diffchunk.maxChunks"]
    assert "git push origin COMMIT:feature" in stopped.stderr
    git(work, env, *raise_it[1:])
    assert push(work, env).returncode == 0
