"""The pre-push hook: install/uninstall beside a foreign hook, and real pushes to a bare remote."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from gitrepo import run_git, write_files
from pushkit import pushed_clone

import diffchunk
from diffchunk.cli import main
from diffchunk.errors import GitError
from diffchunk.git.repo import discover
from diffchunk.review import push_hook as hook

PROJECT = Path(diffchunk.__file__).resolve().parents[1]
# The hook runs `python -c 'from diffchunk.cli import main'`: find this checkout.
ENV = {"PYTHONPATH": str(PROJECT)}


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run_git(repo, *args, check=check, env=ENV)


def commit(repo: Path, files: dict[str, str], message: str = "c") -> str:
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").stdout.strip()


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    return pushed_clone(tmp_path, {"README.md": "hello\n"})


def _install(repo: Path) -> str:
    return hook.install(discover(str(repo)), python=sys.executable)


def test_contrib_hook_is_the_installed_template() -> None:
    contrib = PROJECT / "contrib" / "hooks" / "pre-push"
    assert contrib.read_text() == hook.hook_script("")
    assert os.access(contrib, os.X_OK)
    yaml = (PROJECT / ".pre-commit-hooks.yaml").read_text()
    for line in (
        "- id: diffchunk-review",
        "stages: [pre-push]",
        "pass_filenames: false",
        "language: python",
        "entry: diffchunk hook run-pre-push",
    ):
        assert line in yaml
    sh = subprocess.run(["sh", "-n", str(contrib)], capture_output=True)
    assert sh.returncode == 0, sh.stderr


def test_install_keeps_foreign_hook_and_uninstall_restores_it(clone: Path) -> None:
    hooks = clone / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    foreign = hooks / "pre-push"
    foreign.write_text("#!/bin/sh\necho foreign\n")
    foreign.chmod(0o755)
    message = _install(clone)
    assert "moved to" in message
    assert hook.is_ours(foreign) and os.access(foreign, os.X_OK)
    assert (hooks / "pre-push.legacy").read_text() == "#!/bin/sh\necho foreign\n"
    _install(clone)  # again: an upgrade, the legacy hook stays
    assert (hooks / "pre-push.legacy").exists()
    assert "restored" in hook.uninstall(discover(str(clone)))
    assert foreign.read_text() == "#!/bin/sh\necho foreign\n"
    assert not (hooks / "pre-push.legacy").exists()
    with pytest.raises(GitError, match="not installed by diffchunk"):
        hook.uninstall(discover(str(clone)))
    assert foreign.exists()


def test_install_refused_when_core_hooks_path_is_set(clone: Path) -> None:
    git(clone, "config", "core.hooksPath", "my-hooks")
    with pytest.raises(GitError, match=r"core\.hooksPath is set .*my-hooks"):
        _install(clone)
    assert not (clone / ".git" / "hooks" / "pre-push").exists()


def test_push_prints_review_and_leaves_cached_diff(clone: Path) -> None:
    hooks = clone / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    legacy_mark = clone.parent / "legacy-ran"
    foreign = hooks / "pre-push"
    foreign.write_text(f'#!/bin/sh\ncat > "{legacy_mark}"\necho "$1 $2" >> "{legacy_mark}"\n')
    foreign.chmod(0o755)
    _install(clone)
    commit(clone, {"src/app.py": "print('hi')\n", "package-lock.json": "{}\n"})
    push = git(clone, "push", "origin", "main")
    output = push.stdout + push.stderr
    assert "refs/heads/main -> refs/heads/main" in output
    assert "src/app.py" in output
    assert "package-lock.json" in output and "generated" in output  # excluded, with reason
    cached = [p for p in (clone / ".git" / "diffchunk").glob("*.diff")]
    assert len(cached) == 1 and "+print('hi')" in cached[0].read_text()
    # The commands it prints name the pushed range, not the hook's cache file (a diff
    # file, another review than the range's).
    assert str(cached[0]) not in output and "<range>" not in output
    assert "review it: diffchunk review " in output and "..main" in output
    # The foreign hook ran first, with git's stdin and arguments.
    ran = legacy_mark.read_text()
    assert "refs/heads/main" in ran and "origin" in ran


def test_push_over_limit_fails_and_no_verify_bypasses(clone: Path) -> None:
    hook.install(discover(str(clone)), python=sys.executable)
    git(clone, "config", "diffchunk.maxChunks", "1")
    big = {f"src/m{i}.py": "".join(f"x{j} = {j}\n" for j in range(700)) for i in range(3)}
    tip = commit(clone, big)
    push = git(clone, "push", "origin", "main", check=False)
    assert push.returncode != 0
    assert "diffchunk.maxChunks=1" in push.stderr
    assert "git push --no-verify" in push.stderr
    assert "git config diffchunk.maxChunks" in push.stderr
    remote = clone.parent / "remote.git"
    assert git(remote, "rev-parse", "main").stdout.strip() != tip
    # Raising the limit lets it through; so does --no-verify.
    git(clone, "config", "diffchunk.maxChunks", "50")
    git(clone, "config", "diffchunk.maxLines", "100")
    assert git(clone, "push", "origin", "main", check=False).returncode != 0
    git(clone, "push", "--no-verify", "origin", "main")
    assert git(remote, "rev-parse", "main").stdout.strip() == tip


def test_new_branch_reviewed_from_merge_base_and_deletion_skipped(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = git(clone, "rev-parse", "HEAD").stdout.strip()
    git(clone, "checkout", "-q", "-b", "feature")
    commit(clone, {"feature.py": "x = 1\n"})
    tip = commit(clone, {"feature.py": "x = 2\n"})
    repo = discover(str(clone))
    zero = "0" * 40
    refs = hook.parse_push_lines(
        [
            f"refs/heads/feature {tip} refs/heads/feature {zero}",
            f"(delete) {zero} refs/heads/old {base}",
        ]
    )
    reviews = hook.review_push(repo, "origin", refs, cache_dir=tmp_path / "c")
    assert reviews[0].diff is not None
    assert (reviews[0].diff.base, reviews[0].diff.head) == (base, tip)
    assert reviews[0].note == "merge base with origin/HEAD"
    assert reviews[1].diff is None and "deleted" in (reviews[1].note or "")
    # Pushing to a remote without tracking refs: the branch's new commits.
    other = hook.review_push(repo, "elsewhere", refs[:1], cache_dir=tmp_path / "c")
    assert other[0].diff is not None and other[0].diff.base == base


def test_run_pre_push_from_pre_commit_environment(
    clone: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = git(clone, "rev-parse", "HEAD").stdout.strip()
    tip = commit(clone, {"a.py": "a = 1\n"})
    monkeypatch.chdir(clone)
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", base)
    monkeypatch.setenv("PRE_COMMIT_TO_REF", tip)
    monkeypatch.setenv("PRE_COMMIT_REMOTE_NAME", "origin")
    monkeypatch.setenv("PRE_COMMIT_LOCAL_BRANCH", "refs/heads/main")
    result = CliRunner().invoke(main, ["hook", "run-pre-push"])
    assert result.exit_code == 0, result.output
    assert "a.py" in result.output and f"diffchunk review {base[:12]}..main" in result.output
    git(clone, "config", "diffchunk.maxLines", "1")
    result = CliRunner().invoke(main, ["hook", "run-pre-push"])
    assert result.exit_code == 1
    assert "git push --no-verify" in result.output


def test_cli_install_and_uninstall(clone: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["hook", "install", "--repo", str(clone)])
    assert result.exit_code == 0 and "Installed" in result.output
    text = (clone / ".git" / "hooks" / "pre-push").read_text()
    assert hook.MARKER in text and sys.executable in text
    result = runner.invoke(main, ["hook", "uninstall", "--repo", str(clone)])
    assert result.exit_code == 0 and "Removed" in result.output
    assert not (clone / ".git" / "hooks" / "pre-push").exists()


def test_failing_foreign_hook_still_stops_the_push(clone: Path) -> None:
    hooks = clone / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    foreign = hooks / "pre-push"
    foreign.write_text("#!/bin/sh\necho 'legacy says no' >&2\nexit 3\n")
    foreign.chmod(0o755)
    _install(clone)
    tip = commit(clone, {"b.py": "b = 1\n"})
    push = git(clone, "push", "origin", "main", check=False)
    assert push.returncode != 0 and "legacy says no" in push.stderr
    # ours did not run after the refusal: no report of chunks (a path may hold the word
    # inside another, as "diffchunk" does) and none of the commands it ends with
    output = push.stdout + push.stderr
    assert not re.search(r"\bchunks?\b", output) and "review it:" not in output
    remote = clone.parent / "remote.git"
    assert git(remote, "rev-parse", "main").stdout.strip() != tip
