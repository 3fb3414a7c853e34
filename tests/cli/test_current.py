"""The command line's current review, ``diffchunk reviews``, ``next``, ``status --files``
and a diff on standard input, through the installed console script.

Without a target, ``status``, ``mark``, ``finding`` and ``export`` act on the
repository's latest review (the one loaded last) and say which on stderr;
``review`` without a target stays the uncommitted changes, as ``git diff``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepo import git, git_bytes
from recordkit import feature_repo, run_cli


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return feature_repo(tmp_path / "repo")


def ok(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = run_cli(*args, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done


def test_commands_without_a_target_act_on_the_latest_review(repo: Path) -> None:
    ok("review", "main", cwd=repo)  # the working tree against main: another review
    ok("review", "main~0..feature", "--max-chunk-lines", "50", cwd=repo)  # loaded last
    status = ok("status", cwd=repo)
    assert status.stderr == ""  # its title names the review
    assert "main~0..feature in" in status.stdout
    mark = ok("mark", "--chunk", "1", cwd=repo)
    assert "Marked reviewed:" in mark.stdout
    added = ok(
        "finding", "add", "--file", "src/a.py", "--line", "10", "--message", "Ten?", cwd=repo
    )
    assert "Finding #" in added.stdout
    listed = ok("finding", "list", cwd=repo)
    assert "Ten?" in listed.stdout
    exported = ok("export", cwd=repo)
    assert "Ten?" in exported.stdout
    # The other review did not get them.
    other = ok("finding", "list", "main", cwd=repo)
    assert "No open findings." in other.stdout


def test_code_commands_without_a_target_act_on_the_latest_review(repo: Path) -> None:
    """search-code, refs, show and symbols with no target read the latest review's range
    and say which on stderr, as status and mark do (they loaded the working tree)."""
    ok("review", "main..feature", cwd=repo)
    git(repo, "checkout", "-q", "main")  # the working tree is main's now
    ok("review", "main~0..feature", cwd=repo)  # loaded last
    latest = "(the latest review here)"
    found = ok("search-code", "-e", "a ten", cwd=repo)
    assert "src/a.py:10: a ten" in found.stdout and "at new (" in found.stdout
    assert "main~0..feature in" in found.stderr and latest in found.stderr
    refs = ok("refs", "-s", "forty", cwd=repo)
    assert "src/a.py:40: a forty" in refs.stdout and latest in refs.stderr
    shown = ok("show", "--path", "src/big.py", cwd=repo)
    assert shown.stdout.splitlines()[-1] == "big 400" and latest in shown.stderr
    old = ok("show", "--path", "src/a.py", "--side", "old", cwd=repo)
    assert "a ten" not in old.stdout and "a 10" in old.stdout
    symbols = ok("symbols", "--path", "src/a.py", "--json", cwd=repo)
    assert json.loads(symbols.stdout)["file_path"] == "src/a.py" and latest in symbols.stderr
    elsewhere = run_cli("show", "--path", "src/a.py", cwd=repo.parent)
    assert elsewhere.returncode == 1 and "is not inside a git repository" in elsewhere.stderr


def test_no_review_yet_says_what_to_do(repo: Path, tmp_path: Path) -> None:
    done = run_cli("status", cwd=repo)
    assert done.returncode == 1
    assert "no review of" in done.stderr and "diffchunk status main..feature" in done.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for args in (("mark", "--chunk", "1"), ("reviews",)):
        done = run_cli(*args, cwd=elsewhere)
        assert done.returncode == 1 and "is not inside a git repository" in done.stderr
        assert "--repo PATH" in done.stderr and "absolute path" not in done.stderr


def test_reviews_lists_each_review_with_coverage_and_findings(repo: Path) -> None:
    ok("review", "main..feature", cwd=repo)
    ok("mark", "main..feature", "--file", "src/a.py", cwd=repo)
    ok("finding", "add", "main..feature", "--file", "src/b.py", "--message", "B", cwd=repo)
    ok("review", "HEAD~1^!", cwd=repo)
    rows = json.loads(ok("reviews", "--json", cwd=repo).stdout)
    assert [r["range"] for r in rows] == ["HEAD~1^!", "main..feature"]
    first = rows[1]
    assert first["reviewed"] == 1 and first["files"] == 4 and first["open_findings"] == {"major": 1}
    text = ok("reviews", cwd=repo).stdout
    assert "main..feature" in text and "1/4" in text and "1 major" in text


def test_next_prints_the_next_unreviewed_chunk_until_none(repo: Path) -> None:
    ok("review", "main..feature", cwd=repo)
    seen = []
    for _ in range(10):
        done = ok("next", cwd=repo)
        if "Every chunk is reviewed." in done.stdout:
            break
        assert done.stdout.startswith("diff --git ")
        number = done.stderr.split("Chunk ", 1)[1].split(" ", 1)[0]
        seen.append(int(number))
        assert f"diffchunk mark main..feature --chunk {number}" in done.stderr
        ok("mark", "--chunk", number, cwd=repo)
    assert seen == sorted(seen) and len(seen) >= 1
    same = ok("review", "main..feature", "--next", cwd=repo)
    assert "Every chunk is reviewed." in same.stdout


def test_status_files_lists_every_file_with_its_state(repo: Path) -> None:
    ok("review", "main..feature", cwd=repo)
    ok("mark", "--file", "src/a.py", cwd=repo)
    text = ok("status", "--files", cwd=repo).stdout
    lines = {line.split()[-1]: line for line in text.splitlines()[1:] if line.strip()}
    assert lines["src/a.py"].startswith("reviewed")
    assert lines["src/b.py"].startswith("unseen")
    assert "excluded" in next(line for line in text.splitlines() if "package-lock.json" in line)
    assert len(lines) == 5


def test_a_diff_on_standard_input(repo: Path, tmp_path: Path) -> None:
    diff = git_bytes(repo, "diff", "main", "feature")
    script = Path(sys.executable).with_name("diffchunk")

    def piped(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([str(script), *args], input=diff, capture_output=True, cwd=tmp_path)

    overview = piped("review", "-")
    assert overview.returncode == 0, overview.stderr
    saved = overview.stderr.decode().split("standard input is ", 1)[1].split()[0]
    assert Path(saved).read_bytes() == diff
    assert b"src/a.py" in overview.stdout and saved.encode() in overview.stdout
    chunk = piped("review", "-", "--chunk", "1")
    assert chunk.returncode == 0 and chunk.stdout.startswith(b"diff --git")
    marked = piped("mark", "-", "--chunk", "1")
    assert marked.returncode == 0, marked.stderr
    status = run_cli("status", saved, cwd=tmp_path)  # the same diff is the same review
    assert status.returncode == 0 and "    1  reviewed " in status.stdout
    empty = subprocess.run([str(script), "review", "-"], input=b"", capture_output=True)
    assert empty.returncode == 2 and b"Standard input was empty" in empty.stderr


def test_the_diffs_read_from_standard_input_are_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache keeps the most recently used diffs read from stdin (a diff piped again is
    used again), within a count and a size; the one just read stays whatever its size."""
    from click.testing import CliRunner

    from diffchunk.cli import main, targets

    def diff(i: int) -> bytes:
        return (
            f"diff --git a/f{i} b/f{i}\n--- a/f{i}\n+++ b/f{i}\n@@ -1 +1 @@\n-a\n+b{i}\n".encode()
        )

    def pipe(i: int) -> None:
        done = CliRunner().invoke(main, ["review", "-"], input=diff(i))
        assert done.exit_code == 0, done.output

    def kept() -> set[bytes]:
        return {p.read_bytes() for p in (tmp_path / "cache" / "stdin").iterdir()}

    monkeypatch.setattr(targets, "STDIN_DIFFS_KEPT", 3)
    for i in range(5):
        pipe(i)
    assert kept() == {diff(2), diff(3), diff(4)}
    pipe(2)  # used again: the newest
    pipe(5)
    assert kept() == {diff(2), diff(4), diff(5)}
    monkeypatch.setattr(targets, "STDIN_DIFFS_MAX_BYTES", 1)
    pipe(6)
    assert kept() == {diff(6)}


def test_review_paths_are_relative_to_the_current_directory(repo: Path) -> None:
    inside = repo / "src"
    done = ok("review", "main..feature", "--", "a.py", cwd=inside)
    assert "src/a.py" in done.stdout and "src/b.py" not in done.stdout
    top = ok("review", "main..feature", "--", "../docs", cwd=inside)
    assert "docs/c.md" in top.stdout and "src/a.py" not in top.stdout
    outside = run_cli("review", "main..feature", "--", "../../x", cwd=inside)
    assert outside.returncode == 1 and "leads out of the repository" in outside.stderr


def test_the_latest_reviews_paths_are_read_from_the_top_in_a_subdirectory(repo: Path) -> None:
    """The latest review's paths are stored relative to the top: a command run without a
    target in a subdirectory loads them as they are, not under the subdirectory again."""
    inside = repo / "src"
    ok("review", "main..feature", "--", "a.py", cwd=inside)
    status = ok("status", cwd=inside)
    assert "main..feature -- src/a.py in" in status.stdout and "src/src" not in status.stdout
    added = ok(
        "finding", "add", "--file", "src/a.py", "--line", "10", "--message", "Ten?", cwd=inside
    )
    assert "Finding #" in added.stdout and "src/src" not in added.stderr


def test_findings_are_listed_where_the_diff_shows_their_lines(repo: Path) -> None:
    """An old-side finding in the first hunk comes before a new-side one in the second
    (they came after every new-side finding), in the list and the exports alike."""
    r = ("main..feature",)
    ok("finding", "add", *r, "--file", "src/a.py", "--line", "40", "--message", "second", cwd=repo)
    ok(
        "finding",
        "add",
        *r,
        "--file",
        "src/a.py",
        "--line",
        "10",
        "--side",
        "old",
        "--message",
        "first",
        cwd=repo,
    )
    ok("finding", "add", *r, "--file", "src/a.py", "--line", "10", "--message", "then", cwd=repo)
    listed = ok("finding", "list", *r, cwd=repo).stdout.splitlines()
    assert [line.split()[-1] for line in listed] == ["first", "then", "second"]
    exported = json.loads(ok("export", *r, "--format", "json", cwd=repo).stdout)
    assert [f["message"] for f in exported["findings"]] == ["first", "then", "second"]


def test_every_command_has_examples_in_its_help() -> None:
    """The group's help promises examples (finding add, hook install and file read lacked
    them)."""
    import click
    from click.testing import CliRunner

    from diffchunk.cli import main

    context = click.Context(main)

    def leaves(command: click.Command, path: list[str]) -> list[list[str]]:
        if not isinstance(command, click.Group):
            return [path]
        found = []
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            assert sub is not None
            found += leaves(sub, [*path, name])
        return found

    lacking = []
    for path in leaves(main, []):
        shown = CliRunner().invoke(main, [*path, "--help"]).output
        if "Examples:" not in shown:
            lacking.append(" ".join(path))
    assert lacking == []
