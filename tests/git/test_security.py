"""User text never reaches git as an option; repository config never makes us run a program."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from gitrepo import run_git

from diffchunk.diff.attributes import WANTED
from diffchunk.errors import RefusedRange
from diffchunk.git.attributes import CheckAttrSource
from diffchunk.review.ranges.load import load_git_range


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run_git(repo, *args, check=check)


def _repo_with_commits(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    (repo / "a.txt").write_text("two\n")
    git(repo, "commit", "-q", "-am", "two")
    return repo


INJECTIONS = [
    "--output={out}",
    "-O{out}",
    "--ext-diff",
    "main..--no-index",
    "main..--output={out}",
    "--output={out}..main",
    "main...-O{out}",
    "-p^!",
    "main\0--output={out}",
    "main\n--output={out}",
    "main..HEAD\r",
    "",
    "   ",
]


def test_review_rejects_flag_injection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repo_with_commits(tmp_path)
    cache = tmp_path / "cache"
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    out = tmp_path / "x"
    for template in INJECTIONS:
        text = template.format(out=out)
        with pytest.raises(RefusedRange):
            load_git_range(str(repo), text, cache_dir=cache)
        with pytest.raises(RefusedRange):
            load_git_range(str(repo), text.replace("{out}", "x"), staged=True, cache_dir=cache)
    assert not out.exists()
    assert list(work.iterdir()) == []
    assert not cache.exists() or list(cache.iterdir()) == []
    # The same through the CLI: click takes a leading dash for one of its options (and
    # refuses it: a usage error), the loader refuses the rest; after `--` they are paths.
    from click.testing import CliRunner

    from diffchunk.cli import main

    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(cache))
    runner = CliRunner()
    for template in ("--output={out}", "-O{out}", "--ext-diff"):
        result = runner.invoke(main, ["review", "--repo", str(repo), template.format(out=out)])
        assert result.exit_code == 2 and "No such option" in result.output, result.output
    for template in ("main..--output={out}", "main...-O{out}", "main..--ext-diff"):
        result = runner.invoke(main, ["review", "--repo", str(repo), template.format(out=out)])
        assert result.exit_code == 1, result.output
        assert "refused" in result.output
    assert not out.exists()
    assert list(work.iterdir()) == []
    assert not cache.exists() or list(cache.iterdir()) == []
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "paths-cache"))
    paths = [t.format(out=out) for t in ("--output={out}", "-O{out}", "--ext-diff")]
    result = runner.invoke(main, ["review", "--repo", str(repo), "--json", "--", *paths])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["paths"] == paths
    assert not out.exists()
    assert list(work.iterdir()) == []


MARKER_SCRIPT = """#!/bin/sh
echo "$0 $*" >> "{marks}/$(basename "$0")"
cat
"""


def _program(bin_dir: Path, marks: Path, name: str) -> str:
    path = bin_dir / name
    path.write_text(MARKER_SCRIPT.format(marks=marks))
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


def test_review_ignores_repo_config_programs(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitattributes").write_text("*.txt diff=evil filter=evil\n*.dat filter=proc\n")
    (repo / "a.txt").write_text("one\n")
    (repo / "b.dat").write_text("data\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    (repo / "a.txt").write_text("two\n")
    git(repo, "commit", "-q", "-am", "two")

    settings = {
        "core.fsmonitor": _program(bin_dir, marks, "fsmonitor"),
        "diff.external": _program(bin_dir, marks, "external"),
        "diff.evil.textconv": _program(bin_dir, marks, "textconv"),
        "diff.evil.command": _program(bin_dir, marks, "drivercommand"),
        "core.pager": _program(bin_dir, marks, "pager"),
        "pager.diff": _program(bin_dir, marks, "pagerdiff"),
        "core.sshCommand": _program(bin_dir, marks, "ssh"),
        "alias.diff": "!" + _program(bin_dir, marks, "aliasdiff"),
        "alias.rev-parse": "!" + _program(bin_dir, marks, "aliasrevparse"),
        "alias.review": "!" + _program(bin_dir, marks, "aliasreview"),
        "filter.evil.clean": _program(bin_dir, marks, "clean"),
        "filter.evil.smudge": _program(bin_dir, marks, "smudge"),
        "filter.evil.required": "true",
        "filter.proc.process": _program(bin_dir, marks, "process"),
        "gpg.program": _program(bin_dir, marks, "gpg"),
        "log.showSignature": "true",
        "credential.helper": _program(bin_dir, marks, "credential"),
    }
    for key, value in settings.items():
        git(repo, "config", key, value)
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in ("post-index-change", "pre-commit", "post-checkout", "reference-transaction"):
        _program(hooks, marks, name)

    # Dirty working tree, changed stat data everywhere, staged changes.
    (repo / "a.txt").write_text("three\n")
    (repo / "b.dat").write_text("more data\n")
    os.utime(repo / ".gitattributes", ns=(1, 1))
    (repo / "c.txt").write_text("staged\n")
    git(repo, "update-index", "--add", "--cacheinfo", "100644", git_hash(repo, "staged\n"), "c.txt")
    for mark in marks.iterdir():  # the setup's own git calls
        mark.unlink()

    cache = tmp_path / "cache"
    worktree = load_git_range(str(repo), cache_dir=cache)
    staged = load_git_range(str(repo), staged=True, cache_dir=cache)
    commits = load_git_range(str(repo), "main~1..main", cache_dir=cache)
    single = load_git_range(str(repo), "HEAD^!", cache_dir=cache)
    CheckAttrSource(str(repo), "HEAD", attributes=WANTED).lookup(["a.txt", "b.dat"])
    CheckAttrSource(str(repo), attributes=WANTED).lookup(["a.txt", "b.dat"])

    assert sorted(p.name for p in marks.iterdir()) == [], "a configured program ran"
    assert "+three" in Path(worktree.diff_path).read_text()
    assert "+staged" in Path(staged.diff_path).read_text()
    assert "+two" in Path(commits.diff_path).read_text()
    assert Path(single.diff_path).read_text() == Path(commits.diff_path).read_text()

    # The setup is effective: plain git runs them.
    git(repo, "diff", check=False)
    ran = {p.name for p in marks.iterdir()}
    assert ran & {"fsmonitor", "clean", "external", "process"}, ran


def git_hash(repo: Path, text: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-w", "--no-filters", "--stdin"],
        input=text.encode(),
        check=True,
        capture_output=True,
    )
    return out.stdout.decode().strip()
