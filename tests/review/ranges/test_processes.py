"""Reviewing a git range: the git processes behind it (started before the pipeline
loads, stopped and cleaned up when interrupted or terminated), its progress, and cache
entries built, flushed or replaced while others read them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from attributes_repo import attributes_repo

from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools

# Each test has a cache of its own (DIFFCHUNK_CACHE_DIR).


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return attributes_repo(tmp_path / "repo")


# Run in a fresh interpreter: which pipeline modules are loaded when git diff starts.
_PROBE = """
import json, sys
from diffchunk.git import runner
loaded = []
real = runner.GitCommand.start_into
def start_into(self, args, fd, **kw):
    if args and args[0] == "diff":
        loaded.extend(m for m in sys.modules if m.startswith("diffchunk"))
    return real(self, args, fd, **kw)
runner.GitCommand.start_into = start_into
import atexit
atexit.register(lambda: sys.stderr.write(json.dumps(sorted(loaded))))
sys.argv = ["diffchunk", "review", "HEAD~1..HEAD", "--repo", sys.argv[1], "--json"]
from diffchunk.console import main
main()
"""


def test_cli_starts_git_diff_before_loading_the_pipeline(repo: Path) -> None:
    # Loading the parser, filters and chunker overlaps git's own start.
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(repo)], capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["chunks"]
    loaded = set(json.loads(done.stderr))
    assert "diffchunk.review.ranges.early_start" in loaded  # the probe saw the review start git
    heavy = {
        "diffchunk.diff.parser",
        "diffchunk.diff.model",
        "diffchunk.diff.filters",
        "diffchunk.diff.chunker",
        "diffchunk.diff.pipeline",
        "diffchunk.review.sessions.store",
        "diffchunk.review.tools.diff_tools",
    }
    assert not heavy & loaded, sorted(heavy & loaded)


def _git_children() -> list[str]:
    """Command lines of this process's living git children (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and "git" in cmdline:
            found.append(cmdline)
    return found


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
@pytest.mark.parametrize(
    "where", ["while git starts", "attribute source", "review build", "review adopted"]
)
def test_an_interrupted_review_leaves_no_git_process_or_temp_dir(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    import tempfile

    from diffchunk.review.ranges import load, stream
    from diffchunk.review.sessions import store

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    expected: type[BaseException] = KeyboardInterrupt
    if where == "while git starts":  # git diff started, its output not read yet
        monkeypatch.setattr(stream, "CommitIndex", interrupted)
    elif where == "attribute source":  # after git diff and read-tree started
        monkeypatch.setattr(stream, "StreamedCheckAttr", interrupted)
    elif where == "review build":  # after git check-attr was handed every path
        monkeypatch.setattr(load, "build_review", interrupted)
    else:  # the session cannot be adopted once git ran
        monkeypatch.setattr(store.SessionStore, "adopt", interrupted)
    before = _git_children()
    with pytest.raises(expected):
        load_git_diff(str(repo), "HEAD~1..HEAD", store=SessionStore()).to_dict()
    assert [c for c in _git_children() if c not in before] == []
    assert list(scratch.iterdir()) == []
    # git wrote into a temporary file of the cache: gone too.  Stopped before
    # git ended, there is no entry either (after, the entry is whole).
    names = [p.name for p in (tmp_path / "cache").iterdir()]
    assert [n for n in names if n.startswith(".tmp-")] == []
    if where in ("while git starts", "attribute source"):
        assert [n for n in names if n.endswith(".diff")] == []


# The console script, stopped by SIGTERM while it reads git's output.
_TERMINATED = """
import json, os, signal, sys
from diffchunk.git import runner
record = sys.argv.pop()
pids = []
real_blocks = runner.GitStream.blocks
def blocks(self):
    pids.append(self._proc.pid)
    with open(record, "w") as fh:
        json.dump(pids, fh)
    os.kill(os.getpid(), signal.SIGTERM)
    yield from real_blocks(self)
runner.GitStream.blocks = blocks
from diffchunk.console import main
main()
"""


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_terminated_review_stops_git_and_leaves_no_temporary_file(
    repo: Path, tmp_path: Path
) -> None:
    record = tmp_path / "pids.json"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _TERMINATED,
            "review",
            "--repo",
            str(repo),
            "HEAD~1..HEAD",
            str(record),
        ],
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 143, done.stderr  # 128 + SIGTERM
    [pid] = json.loads(record.read_text())
    assert not os.path.exists(f"/proc/{pid}")  # git was stopped and reaped
    cache = tmp_path / "cache"
    # (git/: diffchunk's git directories of the repositories, not entries)
    left = [p.name for p in cache.iterdir() if not p.name.endswith(".gitattrs.json")]
    assert left == ["git"]


def test_git_stream_that_cannot_start_its_reader_stops_git(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from diffchunk.git import runner
    from diffchunk.git.repo import discover

    git = discover(str(repo)).git
    started: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = real_popen(*args, **kwargs)
        started.append(proc)
        return proc

    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(runner.subprocess, "Popen", popen)
    monkeypatch.setattr(threading.Thread, "start", refuse)
    with tempfile.TemporaryFile() as out, pytest.raises(RuntimeError, match="new thread"):
        git.start_into(["diff", "HEAD~1", "HEAD"], out.fileno())
    monkeypatch.undo()
    [proc] = started
    # Waited for (not left to run or linger unowned), its pipe closed.
    assert proc.returncode is not None
    assert proc.stderr is not None and proc.stderr.closed


def test_git_progress_is_reported_and_throttled(repo: Path) -> None:
    import time

    from diffchunk.review.ranges import load

    stages: list[str] = []
    load_git_diff(
        str(repo), "HEAD~1..HEAD", store=SessionStore(), progress=lambda s, f: stages.append(s)
    ).to_dict()
    assert stages[0].startswith("running git diff (") and stages[-1] == "done"
    # However often git's progress comes, it is passed on at most every 0.1 s.
    seen: list[str] = []
    report = load._git_progress(lambda s, f: seen.append(s))
    assert report is not None
    started = time.monotonic()
    for written in range(10_000):
        report(written)
    elapsed = time.monotonic() - started
    assert 1 <= len(seen) <= elapsed / load._PROGRESS_EVERY + 1


def test_review_built_while_the_entry_is_flushed_and_a_failed_build_leaves_no_entry(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The review is built while the new cache entry is flushed to disk: when the
    build fails, the entry and its sidecar are dropped and check-attr is stopped;
    the next review runs git again and succeeds."""
    from diffchunk.git.attributes import StreamedCheckAttr
    from diffchunk.review.ranges import load

    cache = tmp_path / "cache"
    closed: list[StreamedCheckAttr] = []
    real_close = StreamedCheckAttr.close

    def close(self: StreamedCheckAttr) -> None:
        closed.append(self)
        real_close(self)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("build failed")

    monkeypatch.setattr(StreamedCheckAttr, "close", close)
    monkeypatch.setattr(load, "build_review", broken)
    with pytest.raises(RuntimeError, match="build failed"):
        load_git_diff(str(repo), "main~1..main", store=SessionStore()).to_dict()
    assert closed and all(c._proc is None for c in closed)
    # No entry, no sidecar, no temporary file (git/: diffchunk's git directories).
    assert [p.name for p in cache.iterdir()] == ["git"]
    monkeypatch.undo()
    summary = load_git_diff(str(repo), "main~1..main", store=SessionStore()).to_dict()
    assert summary["cached"] is False and Path(summary["file_path"]).is_file()


def test_an_entry_replaced_by_another_writer_is_read_not_adopted(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two reviews of the working tree write the same entry: if the other one's
    file is renamed over ours before ours is adopted, the session is that file's
    (read again), not our review paired with its content."""
    from diffchunk.git.cache import PendingEntry

    (repo / "src" / "app.py").write_text("a = 3\n")  # uncommitted: the working-tree entry
    real_commit = PendingEntry.commit
    theirs = b""

    def commit_then_replaced(self: PendingEntry) -> Path:
        nonlocal theirs
        final = real_commit(self)
        ours = final.read_bytes()
        theirs = ours.replace(b"+a = 3", b"+a = 4")  # the other review saw another edit
        assert len(theirs) == len(ours) and theirs != ours
        other = final.with_name("other.tmp")
        other.write_bytes(theirs)
        os.replace(other, final)
        return final

    monkeypatch.setattr(PendingEntry, "commit", commit_then_replaced)
    store = SessionStore()
    summary = load_git_diff(str(repo), "HEAD", store=store).to_dict()
    chunk = diff_tools.get_chunk_bytes(summary["file_path"], 1, store=store)
    assert b"+a = 4" in chunk and b"+a = 3" not in chunk
    assert Path(summary["file_path"]).read_bytes() == theirs
