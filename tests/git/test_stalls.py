"""No repository stalls a load, and a stalled git never holds the server.

A named pipe where git expects a file (an included config, the config itself,
``HEAD``, the alternates, ``packed-refs``, the index, ``shallow``) is refused
before git could wait on it.  A git that waits anyway (a ``.gitattributes``
that is a named pipe: git opens it while it diffs the work tree) is stopped
with its children past its time limit, and when the MCP call that started it
is cancelled: after more cancelled calls than anyio has worker threads, every
tool still answers (through the installed server and the SDK's stdio client).
The bounds below only prove that nothing hangs; they time nothing.
"""

from __future__ import annotations

import contextvars
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest
from gitrepo import git, history_repo
from mcpkit import Caller, serve

from diffchunk.errors import DiffchunkError, GitTimeout
from diffchunk.review.ranges.load import load_git_range
from diffchunk.server.app import TOOL_THREADS

pytestmark = pytest.mark.usefixtures("private_dirs")

NO_HANG = 60.0  # seconds: far beyond any of these loads; only proves nothing hangs


def _repo(tmp_path: Path) -> Path:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}, {"a.txt": "2\n"}])
    (repo / "a.txt").write_text("3\n")
    return repo


def _git_processes(needle: str) -> list[int]:
    """Pids of the git processes whose command line holds ``needle``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
        except OSError:
            continue
        if argv and os.path.basename(argv[0]) == b"git" and needle.encode() in b"\0".join(argv):
            found.append(int(entry))
    return found


def _release(fifo: Path) -> None:
    """Let whatever waits on the named pipe go on (a writer opens and closes it)."""
    if fifo.exists():
        fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        os.close(fd)


@pytest.fixture
def fifos(tmp_path: Path) -> Iterator[list[Path]]:
    """Named pipes made by a test, released at its end (a git of a failing test waits on
    one), again while a git of the test's is still running (up to three times); a test
    whose gits have all ended is not waited for."""
    made: list[Path] = []
    yield made
    for _ in range(3):
        for fifo in made:
            _release(fifo)
        if not _git_processes(str(tmp_path)):
            break
        time.sleep(0.2)


def _in_thread(work: Callable[[], Any]) -> tuple[threading.Thread, list[BaseException]]:
    """``work`` in a thread of its own, with this context; what it raised."""
    raised: list[BaseException] = []
    context = contextvars.copy_context()

    def run() -> None:
        try:
            context.run(work)
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, raised


# --------------------------------------------------------------------------
# A named pipe where git reads a file


def _pipe_at(repo: Path, name: str) -> Path:
    """Put a named pipe where the repository has (or names) the file ``name``."""
    dot_git = repo / ".git"
    if name == "include.path":
        git(repo, "config", "include.path", "included")
        target = dot_git / "included"
    elif name == "alternates":
        target = dot_git / "objects" / "info" / "alternates"
        target.parent.mkdir(exist_ok=True)
    else:
        target = dot_git / name
    if target.exists():
        target.unlink()
    os.mkfifo(target)
    return target


@pytest.mark.parametrize(
    "name", ["include.path", "config", "HEAD", "alternates", "packed-refs", "index", "shallow"]
)
def test_a_named_pipe_where_git_reads_a_file_never_hangs_a_load(
    tmp_path: Path, cache_dir: Path, fifos: list[Path], name: str
) -> None:
    repo = _repo(tmp_path)
    git(repo, "pack-refs", "--all")
    fifos.append(_pipe_at(repo, name))
    thread, raised = _in_thread(
        lambda: load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir)
    )
    thread.join(NO_HANG)
    assert not thread.is_alive(), f"a named pipe as {name} hung the load"
    assert raised and isinstance(raised[0], DiffchunkError), raised
    assert "named pipe" in str(raised[0])
    assert _git_processes(str(repo)) == []


# --------------------------------------------------------------------------
# A git that waits anyway


def test_git_past_its_time_limit_is_stopped_with_its_children(tmp_path: Path) -> None:
    from diffchunk.git.runner import GitCommand

    own = tmp_path / "own"
    own.mkdir()
    git(own, "init", "-q")
    # A repository of the test's own: its alias runs a shell, which runs sleep.
    git(own, "config", "alias.wait", "!sleep 4321.25")
    command = GitCommand.in_own_repository(str(own), {})
    with pytest.raises(GitTimeout, match=r"did not finish within 0\.5 s"):
        command.run(["wait"], timeout=0.5)
    deadline = time.monotonic() + NO_HANG
    while _sleeping() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _sleeping() == []  # the child of git's child went with it


def _sleeping() -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                if b"4321.25" in fh.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def _stalling_repo(tmp_path: Path, fifos: list[Path]) -> Path:
    """A work tree whose ``.gitattributes`` is a named pipe: a diff of it waits in git."""
    repo = _repo(tmp_path)
    fifo = repo / ".gitattributes"
    os.mkfifo(fifo)
    fifos.append(fifo)
    return repo


def _wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + NO_HANG
    while not condition():
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.05)


def test_a_cancelled_call_stops_its_git(tmp_path: Path, cache_dir: Path, fifos: list[Path]) -> None:
    from diffchunk.cancellation import CallToken, call_in_force
    from diffchunk.errors import CallCancelled

    repo = _stalling_repo(tmp_path, fifos)
    token = CallToken()
    with call_in_force(token):
        thread, raised = _in_thread(lambda: load_git_range(str(repo), None, cache_dir=cache_dir))
    _wait_for(lambda: bool(_git_processes(str(repo))))
    assert thread.is_alive()  # git waits on the pipe
    token.cancel()
    thread.join(NO_HANG)
    assert not thread.is_alive()
    assert raised and isinstance(raised[0], CallCancelled), raised
    _wait_for(lambda: not _git_processes(str(repo)))
    with pytest.raises(CallCancelled), call_in_force(token):  # nothing more starts
        load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache_dir)


CANCELLED_CALLS = 45  # more than anyio's 40 worker threads


def test_every_tool_still_answers_after_45_cancelled_calls(
    tmp_path: Path, fifos: list[Path]
) -> None:
    repo = _stalling_repo(tmp_path, fifos)
    other = history_repo(tmp_path / "other", [{"b.txt": "1\n"}, {"b.txt": "2\n"}])
    readable = tmp_path / "notes.txt"
    readable.write_text("still here\n")
    answers: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        async def load() -> None:
            await c.raw("load_git_diff", absolute_repo_path=str(repo))

        async def give_up(loads: anyio.abc.CancelScope) -> None:
            # The client gives up (notifications/cancelled) once every tool thread waits
            # on git (in half a second here), or after 5 s.
            answers["stalled"] = 0
            with anyio.move_on_after(5):
                while answers["stalled"] < TOOL_THREADS:
                    answers["stalled"] = max(answers["stalled"], len(_git_processes(str(repo))))
                    await anyio.sleep(0.1)
            loads.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(give_up, group.cancel_scope)
            for _ in range(CANCELLED_CALLS):
                group.start_soon(load)
        with anyio.fail_after(NO_HANG):
            while _git_processes(str(repo)):
                await anyio.sleep(0.1)
            answers["read"] = await c.json("read_content", absolute_file_path=str(readable))
            answers["load"] = await c.json(
                "load_git_diff", absolute_repo_path=str(other), revision_range="HEAD~1..HEAD"
            )

    serve(tmp_path, script)
    # Every tool thread held a call waiting on git when they were cancelled.
    assert answers["stalled"] >= TOOL_THREADS, answers
    assert "still here" in str(answers["read"])
    assert answers["load"]["files"] == 1, answers["load"]
