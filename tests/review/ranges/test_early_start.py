"""``diffchunk review RANGE`` starts git diff before the command line's modules load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from gitrepo import commit, git

from diffchunk.cli import main
from diffchunk.cli.review import review
from diffchunk.console import REVIEW_FLAGS, REVIEW_VALUED, review_range
from diffchunk.git.runner import GitCommand, GitStream
from diffchunk.review.ranges import early_start
from diffchunk.review.ranges.early_start import start_early
from diffchunk.review.ranges.load import load_git_range


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    commit(r, {"a.py": "a = 1\n"})
    commit(r, {"a.py": "a = 2\n", "b.py": "b = 1\n"})
    commit(r, {"b.py": "b = 2\n"})
    return r


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cache"
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(path))
    return path


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["main..feature"], ("main..feature", None, False)),
        ([], (None, None, False)),
        (["--staged"], (None, None, True)),
        (["--repo", "/r", "A..B", "--json"], ("A..B", "/r", False)),
        (["A..B", "--repo=/r", "--repo", "/s"], ("A..B", "/s", False)),  # the last one wins
        (["--chunk", "3", "HEAD^!", "--format", "annotated"], ("HEAD^!", None, False)),
        (["--include", "*.py", "--exclude=tests/**", "x"], ("x", None, False)),
        (["--file", "--repo", "A..B"], ("A..B", None, False)),  # --repo is --file's value
    ],
)
def test_review_range_reads_the_git_part_of_the_command(
    args: list[str], expected: tuple[str | None, str | None, bool]
) -> None:
    assert review_range(args) == expected


@pytest.mark.parametrize(
    "args",
    [
        ["-h"],
        ["--help"],
        ["A..B", "C..D"],  # two targets: click refuses it
        ["--", "A..B"],
        ["--repo"],  # no value
        ["--json=1"],  # a flag with a value
        ["--no-such-option"],
        ["--gitattributes", "f", "A..B"],  # not for a range
        ["-x"],
    ],
)
def test_review_range_starts_nothing_for_anything_else(args: list[str]) -> None:
    assert review_range(args) is None


def test_review_range_knows_every_option_of_review() -> None:
    options = [p for p in review.params if isinstance(p, click.Option)]
    flags = {name for p in options if p.is_flag for name in p.opts if name.startswith("--")}
    valued = {name for p in options if not p.is_flag for name in p.opts if name.startswith("--")}
    assert flags == REVIEW_FLAGS
    assert valued == REVIEW_VALUED
    assert all(p.nargs == 1 for p in options if not p.is_flag)
    # Short options other than -h would escape review_range's reading.
    assert {name for p in options for name in p.opts if not name.startswith("--")} == set()


def test_every_command_taking_a_target_declares_its_options_from_the_one_table() -> None:
    """The console script's early reading and the commands' click declarations come from
    one table (review/ranges/command_line.py): each option there is declared under its
    parameter's name, as a flag or with one value, by review and by every command
    taking a target."""
    from diffchunk.cli.code import show
    from diffchunk.cli.export import export
    from diffchunk.cli.record import status
    from diffchunk.review.ranges.command_line import REVIEW_OPTIONS, TARGET_OPTIONS

    tables = [(review, {**TARGET_OPTIONS, **REVIEW_OPTIONS})]
    tables += [(command, TARGET_OPTIONS) for command in (status, export, show)]
    for command, table in tables:
        declared = {p.name: p for p in command.params if isinstance(p, click.Option)}
        for name, spelled in table.items():
            assert declared[name].opts == [spelled.option], (command.name, name)
            assert declared[name].is_flag is not spelled.valued, (command.name, name)


# Run the console script with git's starts recorded: what is loaded when git
# diff starts (nothing of click, nor the slower parts of the standard library
# that the command loads meanwhile), and how many git diff runs are there.
_PRELUDE = """
import atexit, json, sys
from diffchunk.git import runner
runs = []
real = runner.GitCommand.start_into
def start_into(self, args, fd, **kw):
    if args and args[0] == "diff":
        runs.append(sorted({"click", "dataclasses", "logging"} & set(sys.modules)))
    return real(self, args, fd, **kw)
runner.GitCommand.start_into = start_into
kills = []
real_kill = runner.GitStream.kill
def kill(self):
    kills.append(self._proc.poll())
    real_kill(self)
runner.GitStream.kill = kill
atexit.register(lambda: sys.stderr.write("\\n" + json.dumps({"runs": runs, "kills": kills})))
"""


def _console(*args: str) -> tuple[subprocess.CompletedProcess[bytes], dict[str, list[object]]]:
    code = _PRELUDE + "from diffchunk.console import main; main()"
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, timeout=120)
    record = json.loads(done.stderr.decode().rsplit("\n", 1)[-1])
    return done, record


def test_console_starts_git_diff_before_click_loads_and_once(repo: Path, cache: Path) -> None:
    done, record = _console("review", "--repo", str(repo), "HEAD~2..HEAD", "--json")
    assert done.returncode == 0, done.stderr
    assert record == {"runs": [[]], "kills": []}  # one git diff, started before click
    overview = json.loads(done.stdout)
    expected = CliRunner().invoke(main, ["review", "--repo", str(repo), "HEAD~2..HEAD", "--json"])
    assert expected.exit_code == 0, expected.output
    reused = json.loads(expected.stdout)  # the same, from the diff the console cached
    assert (overview["summary"].pop("cached"), reused["summary"].pop("cached")) == (False, True)
    assert overview == reused
    # Again: the cache holds the diff, so no git diff runs at all.
    again, record = _console("review", "--repo", str(repo), "HEAD~2..HEAD", "--json")
    assert again.returncode == 0 and record == {"runs": [], "kills": []}
    assert json.loads(again.stdout)["chunks"] == overview["chunks"]


def test_console_early_start_for_the_working_tree(repo: Path, cache: Path) -> None:
    (repo / "a.py").write_text("a = 3\n")
    done, record = _console("review", "--repo", str(repo), "--json")
    assert done.returncode == 0, done.stderr
    assert record["runs"] == [[]]
    assert json.loads(done.stdout)["summary"]["files"] == 1


def test_an_early_start_that_is_not_taken_is_stopped_and_leaves_nothing(
    repo: Path, cache: Path
) -> None:
    # Click refuses the command after git diff started: git is stopped at exit.
    done, record = _console("review", "--repo", str(repo), "HEAD~2..HEAD", "--json", "--chunk", "1")
    assert done.returncode == 2 and b"Use only one of" in done.stderr
    assert record["runs"] == [[]] and len(record["kills"]) == 1
    # Nothing but diffchunk's git directory of the repository (git/).
    assert not cache.exists() or [p.name for p in cache.iterdir()] in ([], ["git"])


def test_a_load_with_other_arguments_does_not_take_an_early_start(
    repo: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    starts: list[list[str]] = []
    kills: list[GitStream] = []
    real_start, real_kill = GitCommand.start_into, GitStream.kill

    def start_into(self: GitCommand, args: list[str], fd: int, **kw: object) -> GitStream:
        starts.append(list(args))
        return real_start(self, args, fd, **kw)  # type: ignore[arg-type]

    def kill(self: GitStream) -> None:
        kills.append(self)
        real_kill(self)

    monkeypatch.setattr(GitCommand, "start_into", start_into)
    monkeypatch.setattr(GitStream, "kill", kill)
    start_early(str(repo), "HEAD~1..HEAD", False)
    assert len(starts) == 1
    other = load_git_range(str(repo), "HEAD~2..HEAD")
    assert len(kills) == 1 and len(starts) == 2  # stopped, and the right diff made
    assert other.review is not None and {f.path for f in other.review.parsed.files} == {
        "a.py",
        "b.py",
    }
    # The same arguments take it over: git diff is not started again.
    start_early(str(repo), "HEAD~1..HEAD", False)
    same = load_git_range(str(repo), "HEAD~1..HEAD")
    assert len(starts) == 3 and len(kills) == 1
    assert same.review is not None and [f.path for f in same.review.parsed.files] == ["b.py"]
    # Now cached: the early start runs no git diff.  Another cache directory
    # is another load, which does not take it.
    start_early(str(repo), "HEAD~1..HEAD", False)
    assert len(starts) == 3 and len(early_start._early) == 1
    elsewhere = load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache / "x")
    assert len(starts) == 4 and len(kills) == 1 and early_start._early == []
    assert elsewhere.diff_path.startswith(str(cache / "x"))


def test_an_early_start_that_fails_leaves_the_error_to_the_load(repo: Path, cache: Path) -> None:
    start_early(str(repo), "nosuch..HEAD", False)
    start_early(str(repo), "--output=/tmp/x", False)
    start_early(str(repo.parent / "missing"), None, False)
    assert early_start._early == []
    with pytest.raises(Exception, match="Unknown revision 'nosuch'"):
        load_git_range(str(repo), "nosuch..HEAD")


def test_lazy_logger_loads_logging_only_when_a_record_could_be_shown() -> None:
    code = """
import sys
from diffchunk.log import LazyLogger
log = LazyLogger("diffchunk.test")
log.debug("not shown %s", 1)
log.info("not shown %s", 2)
print("logging" in sys.modules)
log.warning("shown %s", 3)
print("logging" in sys.modules)
import logging
logging.basicConfig(level=logging.DEBUG, format="%(levelname)s %(name)s %(message)s")
log.debug("debug %s", 4)
log.info("info %s", 5)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]
    lines = done.stderr.splitlines()
    assert lines == ["shown 3", "DEBUG diffchunk.test debug 4", "INFO diffchunk.test info 5"]


def test_a_refused_command_leaves_the_cache_untouched(repo: Path, cache: Path) -> None:
    done, _ = _console("review", "--repo", str(repo), "HEAD~1..HEAD", "--json")
    assert done.returncode == 0, done.stderr
    (entry,) = cache.glob("*.diff")
    os.utime(entry, (1_000_000_000, 1_000_000_000))
    refused, record = _console(
        "review", "--repo", str(repo), "HEAD~1..HEAD", "--json", "--chunk", "1"
    )
    assert refused.returncode == 2 and record["runs"] == []
    assert entry.stat().st_mtime == 1_000_000_000  # no cache hit was counted


def test_a_vanished_working_directory_is_reported_clearly(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    code = (
        f"import os; os.chdir({str(gone)!r}); os.rmdir({str(gone)!r}); "
        "from diffchunk.console import main; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "review", "--json"], capture_output=True, timeout=60
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(b"Error: The current directory no longer exists.")
    assert b"--repo" in done.stderr and b"Traceback" not in done.stderr
