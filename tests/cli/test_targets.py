"""What the commands sharing ``[RANGE|DIFF_FILE] [-- PATH...]`` take, and what they suggest.

The hints (``Next: ...``) repeat the options that select the files and cut
the chunks, shell-quoted; paths after ``--`` are paths even with no range
before them; a missing diff file is called one; and errors name the command
line's options, not the MCP tools' parameters.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result
from gitrepo import commit, git, init_repo, write_files
from recordkit import run_cli

from diffchunk.cli import SUBCOMMANDS, main
from diffchunk.cli.targets import TARGET_PARAMETERS, TargetCommand, suggested_command
from diffchunk.errors import ChunkNotFound
from diffchunk.review.tools import diff_tools

NUMBERS = "".join(f"{i}\n" for i in range(1, 31))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: src/a.py and b.txt, 1..30; feature: line 10 of a.py and line 20 of b.txt."""
    repo = init_repo(tmp_path / "repo")
    commit(repo, {"src/a.py": NUMBERS, "b.txt": NUMBERS}, "init")
    git(repo, "checkout", "-q", "-b", "feature")
    commit(
        repo,
        {
            "src/a.py": NUMBERS.replace("\n10\n", "\nten\n"),
            "b.txt": NUMBERS.replace("\n20\n", "\ntwenty\n"),
        },
        "f1",
    )
    return repo


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def ok(*args: str) -> Result:
    result = cli(*args)
    assert result.exit_code == 0, result.output
    return result


def follow(hint: str) -> Result:
    """Run a suggested ``diffchunk ...`` command as a shell would split it."""
    words = shlex.split(hint)
    assert words[0] == "diffchunk"
    return ok(*words[1:])


def next_commands(status_output: str) -> tuple[str, str]:
    """The review and mark commands of the ``Next:`` line of ``diffchunk status``."""
    last = status_output.rstrip("\n").splitlines()[-1]
    assert last.startswith("Next: chunk ") and last.endswith(")"), last
    review, mark = last[last.index("(") + 1 : -1].split(", then ")
    return review, mark


# --------------------------------------------------------------------------
# 1. hints repeat the load options
# --------------------------------------------------------------------------


def test_status_hint_keeps_the_chunk_budget(repo: Path) -> None:
    r = ("main..feature", "--repo", str(repo), "--max-chunk-lines", "10")
    status = ok("status", *r).output
    assert "    2  unseen    b.txt" in status  # b.txt's change in two parts
    review, mark = next_commands(status)
    assert review == f"diffchunk review main..feature --chunk 1 --repo {repo} --max-chunk-lines 10"
    assert mark == review.replace(" review ", " mark ", 1)
    # Following it reads chunk 1 as status numbered it: the first part of b.txt.
    shown = follow(review).output
    assert "+++ b/b.txt" in shown and "src/a.py" not in shown and "+twenty" not in shown
    assert "b.txt: other parts of this file are not marked yet" in follow(mark).output
    after = json.loads(ok("status", *r, "--json").output)["chunks"]
    assert [c["status"] for c in after] == ["reviewed", "unseen", "unseen", "unseen"]


def test_status_hint_keeps_the_paths(repo: Path) -> None:
    r = ("main..feature", "--repo", str(repo))
    status = ok("status", *r, "--", "b.txt").output
    review, mark = next_commands(status)
    assert review == f"diffchunk review main..feature --chunk 1 --repo {repo} -- b.txt"
    assert "+twenty" in follow(review).output
    marked = follow(mark).output
    assert marked.startswith("Marked reviewed: b.txt\n")
    # src/a.py, outside the paths, is not marked (chunk 1 of the whole range holds both).
    whole = json.loads(ok("status", *r, "--json").output)
    assert whole["totals"]["reviewed"] == 1 and whole["chunks"][0]["status"] == "partly"


def test_hint_quotes_and_repeats_every_shaping_option(repo: Path, tmp_path: Path) -> None:
    odd = tmp_path / "it's here.diff"
    odd.write_bytes(git(repo, "diff", "main", "feature").encode() + b"\n")
    attrs = tmp_path / "my attrs"
    attrs.write_text("*.lock linguist-generated\n")
    args = [
        str(odd), "--max-chunk-lines", "12", "--include", "*.py, b*", "--exclude", "x y",
        "--exclude", "$HOME", "--no-skip-trivial", "--no-skip-generated",
        "--context-lines", "2", "--gitattributes", str(attrs), "--order", "review",
    ]  # fmt: skip
    status = ok("status", *args).output
    review, _ = next_commands(status)
    assert "'x y'" in review and "'$HOME'" in review and "'*.py, b*'" in review
    # Read back by the command itself, the hint names what was reviewed, loaded alike.
    wanted = parsed_target("status", args)
    words = shlex.split(review)
    assert parsed_target("review", [w for w in words[2:] if w not in ("--chunk", "1")]) == wanted
    overview = ok("review", *args).output
    assert overview.rstrip("\n").splitlines()[-1] == (
        f"Next: {suggested_command('review', wanted, '--chunk', '1')} [--format annotated]"
    )
    quoted = shlex.quote(str(odd))
    assert f"Next: diffchunk review {quoted} --chunk 1 --max-chunk-lines 12 --include" in overview


def test_range_hints_keep_staged_and_the_uncommitted_changes(repo: Path) -> None:
    write_files(repo, {"b.txt": NUMBERS + "31\n", "src/a.py": NUMBERS})
    git(repo, "add", "b.txt")
    review, _ = next_commands(ok("status", "--staged", "--repo", str(repo)).output)
    assert review == f"diffchunk review --chunk 1 --repo {repo} --staged"
    assert "+31" in follow(review).output
    review, _ = next_commands(ok("status", "--repo", str(repo), "--", "src").output)
    assert review == f"diffchunk review --chunk 1 --repo {repo} -- src"


def parsed_target(command: str, args: list[str]) -> dict[str, Any]:
    cmd = main.get_command(click.Context(main), command)
    assert cmd is not None
    params = cmd.make_context(command, list(args)).params
    return {name: params[name] for name in TARGET_PARAMETERS}


# --------------------------------------------------------------------------
# 2. `-- PATH` without a range: the uncommitted changes in PATH
# --------------------------------------------------------------------------


def test_paths_after_dashes_without_a_range(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_files(repo, {"src/a.py": NUMBERS + "x\n", "b.txt": NUMBERS + "y\n"})
    monkeypatch.chdir(repo)
    for paths in (["src"], ["src/a.py"]):
        data = json.loads(ok("review", "--json", "--", *paths).output)
        assert data["summary"]["paths"] == paths
        assert [f for c in data["chunks"] for f in c["files"]] == ["src/a.py"]
        against_head = json.loads(ok("review", "HEAD", "--json", "--", *paths).output)
        assert against_head["summary"]["paths"] == paths
        assert "+x" in ok("review", "--chunk", "1", "--", *paths).output
    nothing = json.loads(ok("review", "--json", "--", "missing").output)
    assert nothing["chunks"] == [] and nothing["summary"]["paths"] == ["missing"]
    assert "    1  seen      src/a.py" in ok("status", "--", "src").output
    assert ok("mark", "--chunk", "1", "--", "src").output.startswith("Marked reviewed: src/a.py")
    added = ok("finding", "add", "--file", "src/a.py", "--message", "m", "--", "src").output
    assert added.startswith("Finding #1 (major) on src/a.py")
    assert "src/a.py" in ok("finding", "list", "--", "src").output
    assert "src/a.py" in ok("export", "--format", "json", "--", "src").output
    staged = json.loads(ok("review", "--staged", "--json", "--", "b.txt").output)
    assert staged["chunks"] == [] and staged["summary"]["paths"] == ["b.txt"]


def test_a_dashes_value_is_not_the_end_of_the_options(repo: Path) -> None:
    # `--include --` takes `--` as its value: src is then the target, as before.
    refused = cli("review", "--repo", str(repo), "--include", "--", "src")
    assert refused.exit_code == 1 and "Unknown revision 'src'" in refused.output
    params = parsed_target("review", ["--include", "--", "main..feature", "--", "src"])
    assert params["include"] == ("--",) and params["target"] == "main..feature"
    assert params["paths"] == ("src",)
    params = parsed_target("review", ["main..feature", "b.txt", "--", "src"])
    assert params["target"] == "main..feature" and params["paths"] == ("b.txt", "src")
    params = parsed_target("review", ["--", "main..feature", "--", "src"])
    assert params["target"] is None and params["paths"] == ("main..feature", "--", "src")


def test_the_installed_command_takes_paths_without_a_range(repo: Path, tmp_path: Path) -> None:
    write_files(repo, {"src/a.py": NUMBERS + "x\n", "b.txt": NUMBERS + "y\n"})
    env = {"DIFFCHUNK_CACHE_DIR": str(tmp_path / "cache"), "DIFFCHUNK_STATE_DIR": str(tmp_path)}
    done = run_cli("review", "--", "src", cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("working tree vs HEAD -- src in ")
    assert "src/a.py" in done.stdout and "b.txt" not in done.stdout


def test_every_command_with_the_target_options_takes_paths_after_dashes() -> None:
    ctx = click.Context(main)
    commands: list[click.Command] = []
    for name in SUBCOMMANDS:
        command = main.get_command(ctx, name)
        assert command is not None
        group = command if isinstance(command, click.Group) else None
        commands.extend(group.commands.values() if group else [command])
    with_targets = [c for c in commands if any(p.name == "paths" for p in c.params)]
    assert {c.name for c in with_targets} >= {"review", "status", "mark", "add", "list", "export"}
    assert all(isinstance(c, TargetCommand) for c in with_targets)


# --------------------------------------------------------------------------
# 3. a missing diff file; errors in the command line's terms
# --------------------------------------------------------------------------


def test_a_missing_file_is_called_one(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)  # "../x" and "./notes" are looked for beside the test's repository
    assert not (repo.parent / "x").exists()
    r = ("--repo", str(repo))
    for target in ("/nonexistent.diff", "changes.patch", "./notes", "../x"):
        result = cli("review", target, *r)
        assert result.exit_code == 1
        assert f"The diff file {target!r} does not exist (nor is it a revision)." in result.output
        assert "working tree vs" not in result.output
    # A name with a slash may be a branch too: both are said, with the branches.
    branchy = cli("review", "origin/mian", *r)
    assert branchy.exit_code == 1
    assert "No file 'origin/mian' exists, nor is it a revision here" in branchy.output
    assert "recent branches and tags: feature, main" in branchy.output
    plain = cli("review", "nope", *r)
    assert "'nope' is not an existing diff file, nor a range here" in plain.output
    # A range whose name ends like a patch is a range.
    assert "Unknown revision 'fix.patch'" in cli("review", "main..fix.patch", *r).output


def test_errors_name_the_options_of_the_command_line(repo: Path) -> None:
    r = ("main..feature", "--repo", str(repo))
    for args in (("review", *r, "--chunk", "9"), ("mark", *r, "--chunk", "9")):
        result = cli(*args)
        assert result.exit_code == 1 and "numbered 1..1" in result.output
        assert "`diffchunk review` of the same diff or range" in result.output
        assert "list_chunks" not in result.output
    path = ok("review", *r, "--json").output
    with pytest.raises(ChunkNotFound, match="Call list_chunks"):  # the MCP tools' terms
        diff_tools.get_chunk(json.loads(path)["summary"]["file_path"], 9)
    outside = cli("finding", "add", *r, "--file", "b.txt", "--line", "900", "--message", "m")
    assert outside.exit_code == 1 and "past its end" in outside.output
    assert "omit --line for a finding" in outside.output and "omit line" not in outside.output
    unmatched = cli("mark", *r, "--file", "zz*")
    assert unmatched.exit_code == 1 and "`diffchunk status` lists it" in unmatched.output
    assert "review_status" not in unmatched.output
    add = ("finding", "add", *r, "--file", "b.txt", "--message", "m")
    for extra, said in (
        (("--end-line", "20"), "--end-line needs --line"),
        (("--line", "21", "--end-line", "20"), "--end-line (20) is before --line (21)"),
        (("--suggestion", "x\n"), "--suggestion replaces lines: give --line"),
        (("--line", "20", "--side", "old", "--suggestion", "x"), "(--side old) cannot carry"),
        (("--line", "0"), "0 is not in the range x>=1"),
    ):
        result = cli(*add, *extra)
        assert result.exit_code == 2 and said in result.output, result.output
