"""Reviewing a git range end to end: load_git_diff, the MCP tool and `diffchunk review RANGE`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from gitrepo import commit, git, settle_file_times

from diffchunk.cli import main
from diffchunk.diff.options import LoadOptions
from diffchunk.git.runner import GitCommand
from diffchunk.review import diff_tools
from diffchunk.review.range_review import load_git_diff
from diffchunk.review.sessions import SessionStore, default_store


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    commit(
        r,
        {
            ".gitattributes": "src/schema_gen.py linguist-generated\n"
            "package-lock.json linguist-generated=false\n",
            "src/app.py": "a = 1\n",
        },
    )
    commit(
        r,
        {
            "src/app.py": "a = 2\n",
            "src/schema_gen.py": "x = 1\n",  # generated only by attribute
            "package-lock.json": '{"a": 1}\n',  # a lockfile kept by attribute
            "vendor/lib.js": "var v;\n",  # vendored by heuristics
        },
    )
    settle_file_times()
    return r


def _paths(entries: list[dict[str, Any]]) -> dict[str, str]:
    return {e["path"]: e["reason"] for e in entries}


def test_load_git_diff_uses_repository_attributes(repo: Path) -> None:
    store = SessionStore()
    summary = load_git_diff(str(repo), "main~1..main", store=store).to_dict()
    assert summary["base"] == git(repo, "rev-parse", "main~1")
    assert summary["head"] == git(repo, "rev-parse", "main")
    assert summary["cached"] is False and summary["range"] == "main~1..main"
    excluded = _paths(summary["excluded"])
    assert excluded == {"src/schema_gen.py": "generated", "vendor/lib.js": "vendored"}
    listing = diff_tools.list_chunks(summary["file_path"], store=store).to_dict()
    kept = {f for c in listing["chunks"] for f in c["files"]}
    assert kept == {"src/app.py", "package-lock.json"}
    chunk = diff_tools.get_chunk(summary["file_path"], 1, include_context=False, store=store)
    assert "+a = 2" in chunk
    # A small diff is held in memory: a mapping would hold a descriptor per session.
    assert type(store.get(summary["file_path"]).review.parsed.data) is bytes
    again = load_git_diff(str(repo), "main~1..main", store=store).to_dict()
    assert again["cached"] is True and again["file_path"] == summary["file_path"]


def test_fresh_process_sees_the_same_chunks(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = load_git_diff(str(repo), "HEAD^!", store=SessionStore()).to_dict()
    # Another process (new store) given only the cached path: attributes come
    # from the sidecar, without asking git again.
    calls: list[str] = []
    real = GitCommand.run

    def spy(self: GitCommand, args: list[str], **kw: object) -> object:
        calls.append(args[0])
        return real(self, args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(GitCommand, "run", spy)
    listing = diff_tools.list_chunks(summary["file_path"], store=SessionStore()).to_dict()
    assert _paths(listing["excluded"]) == _paths(summary["excluded"])
    # No attribute lookup; only the blobs the listing's changed symbols are read from.
    assert set(calls) <= {"cat-file"}


def test_reload_with_other_patterns_keeps_repository_attributes(repo: Path) -> None:
    first = load_git_diff(
        str(repo), "HEAD^!", options=LoadOptions(exclude_patterns="src/**"), store=SessionStore()
    ).to_dict()
    assert _paths(first["excluded"])["src/schema_gen.py"] == "pattern"
    # Paths the first load never asked about are looked up now, then recorded.
    second = load_git_diff(str(repo), "HEAD^!", store=SessionStore()).to_dict()
    assert _paths(second["excluded"])["src/schema_gen.py"] == "generated"
    sidecar = json.loads(Path(second["file_path"] + ".gitattrs.json").read_text())
    assert sidecar["attributes"]["src/schema_gen.py"] == {"linguist-generated": True}
    assert sidecar["attributes"]["src/app.py"] == {}


def test_attributes_are_read_as_of_the_reviewed_commit(repo: Path) -> None:
    (repo / ".gitattributes").write_text("src/app.py linguist-generated\n")  # not committed
    summary = load_git_diff(str(repo), "main~1..main", store=SessionStore()).to_dict()
    assert "src/app.py" not in _paths(summary["excluded"])
    worktree = load_git_diff(
        str(repo), store=SessionStore()
    ).to_dict()  # the working tree's own attributes
    assert worktree["head"] is None
    assert worktree["files"] == 1 and worktree["files_excluded"] == 0  # .gitattributes itself


def test_working_tree_and_staged_reviews(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("a = 3\n")
    (repo / "new.py").write_text("n = 1\n")
    git(repo, "add", "new.py")
    store = SessionStore()
    worktree = load_git_diff(str(repo), store=store).to_dict()
    staged = load_git_diff(str(repo), staged=True, store=store).to_dict()
    wt_text = Path(worktree["file_path"]).read_text()
    st_text = Path(staged["file_path"]).read_text()
    assert "+a = 3" in wt_text and "new.py" in wt_text
    assert "new.py" in st_text and "+a = 3" not in st_text
    (repo / "src" / "app.py").write_text("a = 4\n")
    again = load_git_diff(str(repo), store=store).to_dict()
    assert again["cached"] is False and "+a = 4" in Path(again["file_path"]).read_text()
    assert "+a = 4" in diff_tools.get_chunk(again["file_path"], 1, store=store)


def test_invalid_options_fail_before_git_runs(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="context_lines"):
        load_git_diff(str(repo), "HEAD^!", options=LoadOptions(context_lines=-1)).to_dict()
    assert not (tmp_path / "cache").exists()


def test_mcp_tool_loads_range_and_reports_errors(repo: Path) -> None:
    from mcp import Client, types

    from diffchunk.server import app

    async def run() -> dict[str, types.CallToolResult]:
        async with Client(app) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["load_git_diff"].annotations is not None
            assert tools["load_git_diff"].annotations.read_only_hint is True
            return {
                "ok": await client.call_tool(
                    "load_git_diff",
                    {"absolute_repo_path": str(repo), "revision_range": "main~1..main"},
                ),
                "unknown": await client.call_tool(
                    "load_git_diff",
                    {"absolute_repo_path": str(repo), "revision_range": "main..nosuch"},
                ),
                "refused": await client.call_tool(
                    "load_git_diff",
                    {"absolute_repo_path": str(repo), "revision_range": "--output=/tmp/x"},
                ),
                "not_repo": await client.call_tool(
                    "load_git_diff", {"absolute_repo_path": str(repo.parent / "cache-none")}
                ),
            }

    out = anyio.run(run)

    def text(result: types.CallToolResult) -> str:
        block = result.content[0]
        assert isinstance(block, types.TextContent)
        return block.text

    assert not out["ok"].is_error
    summary = json.loads(text(out["ok"]))
    assert summary["chunks"] >= 1 and os.path.isabs(summary["file_path"])
    assert out["unknown"].is_error and "git log --oneline" in text(out["unknown"])
    assert out["refused"].is_error and "refused" in text(out["refused"])
    assert out["not_repo"].is_error and "does not exist" in text(out["not_repo"])


def test_cli_review_range_overview_chunk_and_json(repo: Path) -> None:
    default_store().clear()
    runner = CliRunner()
    result = runner.invoke(main, ["review", "--repo", str(repo), "main~1..main"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "main~1..main in" in out and "src/app.py" in out
    assert "src/schema_gen.py" in out and "generated" in out
    cached = next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("Cached"))
    assert f"diffchunk review --chunk N {cached}" in out
    assert "Next:" not in out  # one way to read a chunk, not two
    assert "get_chunk(absolute_file_path=" in out
    # The printed command, in a "new process" (empty store), gives the same chunk.
    default_store().clear()
    chunk = runner.invoke(main, ["review", "--chunk", "1", cached])
    by_range = runner.invoke(main, ["review", "--repo", str(repo), "--chunk", "1", "main~1..main"])
    assert chunk.exit_code == 0 and chunk.output == by_range.output
    assert "+a = 2" in chunk.output
    as_json = runner.invoke(main, ["review", "--repo", str(repo), "HEAD^!", "--json"])
    data = json.loads(as_json.output)
    assert data["summary"]["cached"] is True  # HEAD^! is main~1..main: same commits
    assert data["summary"]["head"] == git(repo, "rev-parse", "HEAD")
    assert {e["path"] for e in data["excluded"]} == {"src/schema_gen.py", "vendor/lib.js"}
    # Without a range: the uncommitted changes of the current repository.
    (repo / "src" / "app.py").write_text("a = 5\n")
    wt = runner.invoke(main, ["review", "--repo", str(repo), "--chunk", "1"])
    assert wt.exit_code == 0 and "+a = 5" in wt.output
    bad = runner.invoke(main, ["review", "--repo", str(repo), "nosuch..main"])
    assert bad.exit_code == 1 and "Unknown revision 'nosuch'" in bad.output
    usage = runner.invoke(main, ["review", "--repo", str(repo), "HEAD^!", "--gitattributes", "x"])
    assert usage.exit_code == 2


def test_cli_review_still_reads_diff_files(repo: Path, tmp_path: Path) -> None:
    diff = tmp_path / "HEAD^!"  # a file whose name looks like a range is a file
    diff.write_text(git(repo, "diff", "main~1", "main", "--", "src/app.py") + "\n")
    result = CliRunner().invoke(main, ["review", str(diff), "--chunk", "1"])
    assert result.exit_code == 0 and "+a = 2" in result.output


def test_cli_cache_path_and_clear(repo: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    load_git_diff(str(repo), "HEAD^!", store=SessionStore()).to_dict()
    path = runner.invoke(main, ["cache", "path"])
    assert path.exit_code == 0 and path.output.splitlines()[0] == str(tmp_path / "cache")
    cleared = runner.invoke(main, ["cache", "clear"])
    assert cleared.exit_code == 0 and "Removed 1 cached diff" in cleared.output
    assert list((tmp_path / "cache").glob("*.diff")) == []
    assert list((tmp_path / "cache").glob("*.json")) == []


def test_cli_review_range_out_and_file(repo: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "review"
    result = runner.invoke(main, ["review", "--repo", str(repo), "HEAD^!", "--out", str(out)])
    assert result.exit_code == 0, result.output
    index = json.loads((out / "index.json").read_text())
    assert index["summary"]["range"] == "HEAD^!" and index["total_chunks"] >= 1
    assert "+a = 2" in (out / "chunk-0001.diff").read_text()
    one = runner.invoke(main, ["review", "--repo", str(repo), "HEAD^!", "--file", "vendor/lib.js"])
    assert one.exit_code == 0 and "+var v;" in one.output


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
    assert "diffchunk.review.early_start" in loaded  # the probe saw the review start git
    heavy = {
        "diffchunk.diff.parser",
        "diffchunk.diff.model",
        "diffchunk.diff.filters",
        "diffchunk.diff.chunker",
        "diffchunk.diff.pipeline",
        "diffchunk.review.sessions",
        "diffchunk.review.diff_tools",
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

    from diffchunk.review import range_review as git_review
    from diffchunk.review import range_stream, sessions

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    expected: type[BaseException] = KeyboardInterrupt
    if where == "while git starts":  # git diff started, its output not read yet
        monkeypatch.setattr(range_stream, "CommitIndex", interrupted)
    elif where == "attribute source":  # after git diff and read-tree started
        monkeypatch.setattr(range_stream, "StreamedCheckAttr", interrupted)
    elif where == "review build":  # after git check-attr was handed every path
        monkeypatch.setattr(git_review, "build_review", interrupted)
    else:  # the session cannot be adopted once git ran
        monkeypatch.setattr(sessions.SessionStore, "adopt", interrupted)
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
    assert [p.name for p in cache.iterdir() if not p.name.endswith(".gitattrs.json")] == []


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

    from diffchunk.review import range_review as git_review

    stages: list[str] = []
    load_git_diff(
        str(repo), "HEAD~1..HEAD", store=SessionStore(), progress=lambda s, f: stages.append(s)
    ).to_dict()
    assert stages[0].startswith("running git diff (") and stages[-1] == "done"
    # However often git's progress comes, it is passed on at most every 0.1 s.
    seen: list[str] = []
    report = git_review._git_progress(lambda s, f: seen.append(s))
    assert report is not None
    started = time.monotonic()
    for written in range(10_000):
        report(written)
    elapsed = time.monotonic() - started
    assert 1 <= len(seen) <= elapsed / git_review._PROGRESS_EVERY + 1


def test_review_built_while_the_entry_is_flushed_and_a_failed_build_leaves_no_entry(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The review is built while the new cache entry is flushed to disk: when the
    build fails, the entry and its sidecar are dropped and check-attr is stopped;
    the next review runs git again and succeeds."""
    from diffchunk.git.attributes import StreamedCheckAttr
    from diffchunk.review import range_review

    cache = tmp_path / "cache"
    closed: list[StreamedCheckAttr] = []
    real_close = StreamedCheckAttr.close

    def close(self: StreamedCheckAttr) -> None:
        closed.append(self)
        real_close(self)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("build failed")

    monkeypatch.setattr(StreamedCheckAttr, "close", close)
    monkeypatch.setattr(range_review, "build_review", broken)
    with pytest.raises(RuntimeError, match="build failed"):
        load_git_diff(str(repo), "main~1..main", store=SessionStore()).to_dict()
    assert closed and all(c._proc is None for c in closed)
    assert [p.name for p in cache.iterdir()] == []  # no entry, no sidecar, no temporary file
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
