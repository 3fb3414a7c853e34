"""Colour and the pager of the command line, on a real pseudo-terminal.

The installed ``diffchunk`` runs with its standard output on a pty (as in a
terminal) or on a pipe: colour and the pager only on the terminal, unless
``--color always``; ``NO_COLOR`` honoured; the pager is the one the user names
(``DIFFCHUNK_PAGER``, else ``PAGER``), never one a repository or ``GIT_PAGER``
names; piped output keeps a chunk's exact bytes.
"""

from __future__ import annotations

import errno
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepo import commit, git, init_repo

SCRIPT = Path(sys.executable).with_name("diffchunk")
WORD_ADDED = "\x1b[1;7;32m"
ADDED = "\x1b[32m"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    commit(repo, {"app.py": "x = compute(a, b)\nkeep = 1\n"}, "one")
    commit(repo, {"app.py": "x = compute(a, c)\nkeep = 1\nnew = 2\n"}, "two")
    return repo


def _environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NO_COLOR", "PAGER", "DIFFCHUNK_PAGER", "GIT_PAGER", "LESS")
    }
    env.update(
        DIFFCHUNK_STATE_DIR=str(tmp_path / "state"),
        DIFFCHUNK_CACHE_DIR=str(tmp_path / "cache"),
        TERM="xterm",
    )
    env.update(extra)
    return env


def on_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run ``diffchunk ARGS`` with its standard output on a pty; (exit status, output)."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [str(SCRIPT), *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError as exc:  # EIO: every writer of the pty is gone
            if exc.errno != errno.EIO:
                raise
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert process.wait(timeout=60) == 0, process.stderr.read() if process.stderr else ""
    return process.returncode, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def piped(args: list[str], cwd: Path, env: dict[str, str]) -> bytes:
    done = subprocess.run([str(SCRIPT), *args], cwd=cwd, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _recording_pager(path: Path, log: Path, name: str) -> str:
    path.write_text(f'#!/bin/sh\necho {name} >> "{log}"\ncat\n')
    path.chmod(0o755)
    return str(path)


def test_colour_and_word_highlights_on_a_terminal(repo: Path, tmp_path: Path) -> None:
    env = _environment(tmp_path, DIFFCHUNK_PAGER="cat")
    _, out = on_terminal(["review", "HEAD~1..HEAD", "--chunk", "1"], repo, env)
    assert f"{ADDED}+new = 2" in out
    assert f"{WORD_ADDED}c" in out  # the word that changed, in its line
    assert "\x1b[36m@@ " in out
    _, overview = on_terminal(["review", "HEAD~1..HEAD"], repo, env)
    assert "\x1b[1m" in overview


def test_no_color_and_never_and_pipes_keep_plain_text(repo: Path, tmp_path: Path) -> None:
    args = ["review", "HEAD~1..HEAD", "--chunk", "1"]
    _, out = on_terminal(args, repo, _environment(tmp_path, DIFFCHUNK_PAGER="cat", NO_COLOR="1"))
    assert "\x1b[" not in out
    _, out = on_terminal(["--color", "never", *args], repo, _environment(tmp_path, PAGER="cat"))
    assert "\x1b[" not in out
    forced = ["--color", "always", *args]
    _, out = on_terminal(forced, repo, _environment(tmp_path, PAGER="cat", NO_COLOR="1"))
    assert WORD_ADDED in out  # the command line wins over NO_COLOR
    exact = piped(args, repo, _environment(tmp_path))
    cached = piped(["review", "HEAD~1..HEAD", "--json"], repo, _environment(tmp_path))
    assert exact == Path(json.loads(cached)["summary"]["file_path"]).read_bytes()
    assert WORD_ADDED.encode() in piped(forced, repo, _environment(tmp_path))


def test_the_pager_is_the_users(repo: Path, tmp_path: Path) -> None:
    log = tmp_path / "pagers.log"
    mine = _recording_pager(tmp_path / "mine", log, "diffchunk-pager")
    theirs = _recording_pager(tmp_path / "theirs", log, "pager")
    repos = _recording_pager(tmp_path / "repos", log, "repository-pager")
    gits = _recording_pager(tmp_path / "gits", log, "git-pager")
    git(repo, "config", "core.pager", repos)
    git(repo, "config", "pager.diff", repos)
    args = ["review", "HEAD~1..HEAD", "--chunk", "1"]
    env = _environment(tmp_path, DIFFCHUNK_PAGER=mine, PAGER=theirs, GIT_PAGER=gits)
    _, out = on_terminal(args, repo, env)
    assert "+new = 2" in out and f"{WORD_ADDED}c" in out  # through the pager, in colour
    assert log.read_text().split() == ["diffchunk-pager"]
    _, out = on_terminal(["review", "HEAD~1..HEAD"], repo, _environment(tmp_path, PAGER=theirs))
    assert log.read_text().split() == ["diffchunk-pager", "pager"]
    _, out = on_terminal(["--no-pager", *args], repo, env)
    piped(args, repo, env)
    assert log.read_text().split() == ["diffchunk-pager", "pager"]  # neither paged
    assert "+new = 2" in out


def test_the_pager_quit_early_ends_the_output_quietly(repo: Path, tmp_path: Path) -> None:
    head = tmp_path / "head1"
    head.write_text("#!/bin/sh\nhead -n 1\n")
    head.chmod(0o755)
    many = {f"f{i}.py": f"v = {i}\n" for i in range(300)}
    commit(repo, many, "many")
    code, out = on_terminal(
        ["review", "HEAD~1..HEAD", "--chunk", "1"],
        repo,
        _environment(tmp_path, DIFFCHUNK_PAGER=str(head)),
    )
    assert code == 0 and out.count("\n") <= 2


def test_an_empty_diffchunk_pager_names_none_over_pager(monkeypatch: pytest.MonkeyPatch) -> None:
    from diffchunk.cli.terminal import pager_command

    monkeypatch.setenv("PAGER", "more")
    monkeypatch.setenv("DIFFCHUNK_PAGER", " ")
    assert pager_command() is None
    monkeypatch.setenv("DIFFCHUNK_PAGER", " less -R ")
    assert pager_command() == "less -R"
    monkeypatch.delenv("DIFFCHUNK_PAGER")
    assert pager_command() == "more"


def test_the_code_commands_page_on_a_terminal(repo: Path, tmp_path: Path) -> None:
    """search-code, refs, show and symbols go through the user's pager on a terminal, as
    review and status do, and print as they are with --no-pager or into a pipe."""
    log = tmp_path / "pagers.log"
    env = _environment(tmp_path, DIFFCHUNK_PAGER=_recording_pager(tmp_path / "p", log, "paged"))
    commit(repo, {"calc.py": "def total(a):\n    return a\n"}, "three")
    piped(["review", "HEAD~2..HEAD"], repo, env)
    commands = (
        (["search-code", "-e", "compute"], "app.py:1: x = compute(a, c)"),
        (["refs", "-s", "compute"], "app.py:1: x = compute(a, c)"),
        (["show", "--path", "app.py", "--side", "old"], "x = compute(a, b)\nkeep = 1\n"),
        (["symbols", "--path", "calc.py"], "added     function  total 1-2"),
    )
    for args, expected in commands:
        _, out = on_terminal(args, repo, env)
        assert expected in out
    assert log.read_text().split() == ["paged"] * 4
    for args, expected in commands:
        _, out = on_terminal(["--no-pager", *args], repo, env)
        assert expected in out
        assert expected.encode() in piped(args, repo, env)
    assert log.read_text().split() == ["paged"] * 4
