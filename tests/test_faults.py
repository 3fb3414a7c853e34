"""Nothing is lost under faults: kills mid-edit, write limits, read-only places,
and a diff file that changes between calls.

The long versions (100 kills, 2 and 8 writers x 100 edits) are
``python -m tests.property.faults`` (``make faults``).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from gitrepo import GIT_ENV, run_git

from diffchunk.diff.parser import parse_diff
from diffchunk.errors import GitError, PathError
from diffchunk.files.edit import edit_content, list_backups
from diffchunk.git.cache import DiffCache, is_entry_name
from diffchunk.review.ranges.load import load_git_range
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools
from tests.property.faults import sigkill_rounds

REPO = Path(__file__).resolve().parents[1]

CHANGE = [{"search": "needle 1\n", "replace": "needle 2\n"}]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _temps(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if ".diffchunk-" in p.name]


def _backup_files(root: Path) -> list[str]:
    if not root.exists():
        return []
    return sorted(p.name for p in root.iterdir() if p.name != "locks")


def _run_child(
    code: str,
    env: dict[str, str],
    *,
    fsize: int | None = None,
    permissions: bool = False,
) -> dict[str, object]:
    """Run ``code`` in a fresh Python; it prints one JSON object as its last line."""

    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    argv = [sys.executable, "-c", code]
    if permissions and os.geteuid() == 0:
        # Root ignores file modes: drop the capabilities that let it.
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: permissions cannot apply")
        drop = "-dac_override,-dac_read_search"
        argv = [setpriv, "--bounding-set", drop, "--inh-caps", drop, "--", *argv]
    proc = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        cwd=str(REPO),
        env={**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1", **env},
        preexec_fn=limit,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


_EDIT_CHILD = """
import json, sys
from diffchunk.errors import DiffchunkError
from diffchunk.files.edit import edit_content
try:
    result = edit_content(sys.argv[1] if len(sys.argv) > 1 else {path!r},
                          {changes!r}, fuzzy=False, preview=False)
    print(json.dumps({{"result": result.to_dict()}}))
except DiffchunkError as exc:
    print(json.dumps({{"error": type(exc).__name__, "message": str(exc)}}))
"""


def _big_text(path: Path, size: int) -> None:
    line = b"filler filler filler filler filler filler filler\n"
    body = line * (size // len(line))
    path.write_bytes(body[: len(body) // 2] + b"needle 1\n" + body[len(body) // 2 :])


# -------------------------------------------------------------------- SIGKILL


@pytest.mark.slow
def test_sigkill_mid_edit_of_50mb_file_leaves_old_or_new_content_and_complete_backups(
    tmp_path: Path,
) -> None:
    outcome = sigkill_rounds(tmp_path, 8, size=50 * 1024 * 1024, seed=20261121)
    assert outcome.failed == 0, outcome.messages
    # Per kill: file state, next edit, its content and no temporaries left.
    assert outcome.passed >= 8 * 4


def test_temp_file_left_by_a_killed_edit_is_removed_by_the_next_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIFFCHUNK_BACKUP_DIR", str(tmp_path / "backups"))
    work = tmp_path / "work"
    work.mkdir()
    target = work / "notes.txt"
    target.write_text("needle 1\n")
    stale = work / ".notes.txt.diffchunk-0badf00d.tmp"
    stale.write_bytes(b"half of an old write")
    other_file = work / ".notes.txt.bak.diffchunk-0badf00d.tmp"  # another file's temporary
    other_file.write_bytes(b"x")
    unrelated = work / ".notes.txt.diffchunk-keep.txt"
    unrelated.write_bytes(b"y")
    assert edit_content(str(target), CHANGE, preview=False).to_dict()["success"] is True
    assert target.read_text() == "needle 2\n"
    assert not stale.exists()
    assert other_file.exists() and unrelated.exists()


# ---------------------------------------------------------- file size limit


@pytest.mark.parametrize("link", ["1", "0"], ids=["hardlink-backup", "copied-backup"])
def test_edit_over_file_size_limit_fails_clearly_and_leaves_original_and_no_backup(
    tmp_path: Path, link: str
) -> None:
    target = tmp_path / "big.txt"
    _big_text(target, 2 * 1024 * 1024)
    before = _sha(target)
    backups = tmp_path / "backups"
    env = {"DIFFCHUNK_BACKUP_DIR": str(backups), "DIFFCHUNK_BACKUP_LINK": link}
    out = _run_child(_EDIT_CHILD.format(path=str(target), changes=CHANGE), env, fsize=1024 * 1024)
    assert out.get("error") == "FileToolError", out
    message = str(out["message"])
    assert "file size limit" in message or "File too large" in message, message
    assert "not changed" in message
    assert _sha(target) == before
    assert _temps(tmp_path) == []
    # No backup data or metadata is left, listed or not.
    assert _backup_files(backups) == []
    assert list_backups_in(backups, target) == []
    # With the limit lifted the same edit works.
    out = _run_child(_EDIT_CHILD.format(path=str(target), changes=CHANGE), env)
    assert out["result"]["success"] is True  # type: ignore[index]
    assert len(list_backups_in(backups, target)) == 1


def list_backups_in(root: Path, target: Path) -> list[dict[str, object]]:
    saved = os.environ.get("DIFFCHUNK_BACKUP_DIR")
    os.environ["DIFFCHUNK_BACKUP_DIR"] = str(root)
    try:
        return list_backups(str(target))
    finally:
        if saved is None:
            del os.environ["DIFFCHUNK_BACKUP_DIR"]
        else:
            os.environ["DIFFCHUNK_BACKUP_DIR"] = saved


_GIT_CHILD = """
import json
from diffchunk.errors import DiffchunkError
from diffchunk.review.ranges.load import load_git_range
try:
    got = load_git_range({repo!r}, "HEAD~1..HEAD", cache_dir={cache!r})
    print(json.dumps({{"path": got.diff_path}}))
except DiffchunkError as exc:
    print(json.dumps({{"error": type(exc).__name__, "message": str(exc)}}))
"""


def _repo_with_big_commit(root: Path, lines: int) -> Path:
    repo = root / "repo"
    repo.mkdir()
    run_git(repo, "init", "-q", "-b", "main")
    (repo / "small.txt").write_text("one\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "first")
    (repo / "big.txt").write_text("".join(f"added line {i}\n" for i in range(lines)))
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "second")
    return repo


def test_git_range_cache_write_over_size_limit_raises_git_error_and_leaves_no_entry(
    tmp_path: Path,
) -> None:
    repo = _repo_with_big_commit(tmp_path, 20_000)
    cache = tmp_path / "cache"
    code = _GIT_CHILD.format(repo=str(repo), cache=str(cache))
    out = _run_child(code, dict(GIT_ENV), fsize=64 * 1024)
    assert out.get("error") == "GitError", out
    # Written by git (either way), which dies of SIGXFSZ: the message names it.
    assert "git diff failed" in str(out["message"])
    assert "file size limit" in str(out["message"])
    names = os.listdir(cache) if cache.exists() else []
    assert [n for n in names if is_entry_name(n)] == []
    assert [n for n in names if n.startswith(".tmp-")] == []
    # The limit lifted: the range is generated again, whole.
    got = load_git_range(str(repo), "HEAD~1..HEAD", cache_dir=cache)
    assert got.cached is False
    data = Path(got.diff_path).read_bytes()
    assert len(data) > 64 * 1024
    parsed = parse_diff(data)
    assert [f.path for f in parsed.files] == ["big.txt"]
    assert data.count(b"\n+added line ") == 20_000


def test_cache_write_error_like_a_full_disk_raises_git_error_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = DiffCache(tmp_path / "cache")
    entry = cache.begin("commits-0123456789abcdef")
    os.write(entry.fd, b"diff --git a/x b/x\n")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)  # the flush before the entry appears fails
    with pytest.raises(GitError, match="No space left on device"):
        entry.commit()
    assert os.listdir(tmp_path / "cache") == []


# ------------------------------------------------------- read-only places


@pytest.mark.parametrize("locks", [False, True], ids=["no-lock-dir", "writable-lock-dir"])
def test_read_only_backup_directory_fails_clearly_and_leaves_original(
    tmp_path: Path, locks: bool
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    target = work / "file.txt"
    target.write_text("needle 1\nrest\n")
    backups = tmp_path / "backups"
    backups.mkdir()
    if locks:
        (backups / "locks").mkdir()
    backups.chmod(0o500)
    before = _sha(target)
    env = {"DIFFCHUNK_BACKUP_DIR": str(backups)}
    out = _run_child(_EDIT_CHILD.format(path=str(target), changes=CHANGE), env, permissions=True)
    assert out.get("error") == "FileToolError", out
    message = str(out["message"])
    assert str(backups) in message
    assert ("backup" in message) or ("lock" in message)
    assert _sha(target) == before
    assert _temps(work) == []
    backups.chmod(0o700)
    assert _backup_files(backups) == []


def test_read_only_target_directory_fails_clearly_and_leaves_original(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    target = work / "file.txt"
    target.write_text("needle 1\nrest\n")
    backups = tmp_path / "backups"
    backups.mkdir()
    work.chmod(0o555)
    before = _sha(target)
    env = {"DIFFCHUNK_BACKUP_DIR": str(backups)}
    out = _run_child(_EDIT_CHILD.format(path=str(target), changes=CHANGE), env, permissions=True)
    assert out.get("error") == "FileToolError", out
    assert "not writable" in str(out["message"])
    assert _sha(target) == before
    assert _temps(work) == []
    assert list_backups_in(backups, target) == []
    assert _backup_files(backups) == []
    work.chmod(0o755)


# ------------------------------------------------- diff file changing under us


def _diff(name: str, body: str) -> str:
    return (
        f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n"
        f"@@ -1 +1 @@\n-old {body}\n+new {body}\n"
    )


def test_replaced_diff_content_is_served_fresh_never_stale(tmp_path: Path) -> None:
    store = SessionStore()
    path = tmp_path / "change.diff"
    path.write_text(_diff("first.py", "alpha"))
    assert "first.py" in diff_tools.get_chunk(str(path), 1, store=store)
    path.write_text(_diff("second_file.py", "beta beta"))
    chunk = diff_tools.get_chunk(str(path), 1, store=store)
    assert "second_file.py" in chunk and "first.py" not in chunk
    # Replaced by rename (a new inode), as editors and `git diff > x` do.
    new = tmp_path / "next.diff"
    new.write_text(_diff("third.py", "gamma"))
    os.replace(new, path)
    chunk = diff_tools.get_chunk(str(path), 1, store=store)
    assert "third.py" in chunk and "second_file.py" not in chunk


def test_same_size_rewrite_with_mtime_forced_back_still_reloads(tmp_path: Path) -> None:
    store = SessionStore()
    path = tmp_path / "change.diff"
    path.write_text(_diff("aaaa.py", "one"))
    assert "aaaa.py" in diff_tools.get_chunk(str(path), 1, store=store)
    st = path.stat()
    # In place (same inode), same size, mtime put back: only ctime moves.
    with open(path, "r+b") as handle:
        handle.write(_diff("bbbb.py", "two").encode())
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        st.st_ino,
        st.st_size,
        st.st_mtime_ns,
    )
    if after.st_ctime_ns == st.st_ctime_ns:
        pytest.skip("the file system's ctime did not move (coarse clock); see the report")
    chunk = diff_tools.get_chunk(str(path), 1, store=store)
    assert "bbbb.py" in chunk and "aaaa.py" not in chunk
    # A new inode with the same size and mtime: also reloaded.
    other = tmp_path / "other.diff"
    other.write_text(_diff("cccc.py", "two"))
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(other, path)
    chunk = diff_tools.get_chunk(str(path), 1, store=store)
    assert "cccc.py" in chunk and "bbbb.py" not in chunk


def test_deleted_diff_file_gives_path_error(tmp_path: Path) -> None:
    store = SessionStore()
    path = tmp_path / "change.diff"
    path.write_text(_diff("a.py", "x"))
    diff_tools.list_chunks(str(path), store=store).to_dict()
    path.unlink()
    with pytest.raises(PathError) as info:
        diff_tools.get_chunk(str(path), 1, store=store)
    assert str(path) in str(info.value)


def test_diff_file_replaced_by_directory_gives_path_error(tmp_path: Path) -> None:
    store = SessionStore()
    path = tmp_path / "change.diff"
    path.write_text(_diff("a.py", "x"))
    diff_tools.list_chunks(str(path), store=store).to_dict()
    path.unlink()
    path.mkdir()
    with pytest.raises(PathError, match="directory"):
        diff_tools.get_chunk(str(path), 1, store=store)


def test_diff_file_replaced_by_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    store = SessionStore()
    path = tmp_path / "change.diff"
    path.write_text(_diff("a.py", "x"))
    diff_tools.list_chunks(str(path), store=store).to_dict()
    path.unlink()
    os.mkfifo(path)
    outcome: list[BaseException | str] = []

    def call() -> None:
        try:
            outcome.append(diff_tools.get_chunk(str(path), 1, store=store))
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(timeout=10)
    if worker.is_alive():
        # Unblock the reader so the thread can end, then fail.
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        pytest.fail("get_chunk blocked on a FIFO")
    assert len(outcome) == 1 and isinstance(outcome[0], PathError), outcome
    assert "FIFO" in str(outcome[0]) or "pipe" in str(outcome[0])


def test_sigxfsz_is_ignored_by_python_children() -> None:
    # The size-limit tests rely on write() failing with EFBIG instead of the
    # child dying of SIGXFSZ; Python ignores that signal at startup.
    out = _run_child(
        "import json, signal; print(json.dumps({'ign': "
        "signal.getsignal(signal.SIGXFSZ) == signal.SIG_IGN}))",
        {},
    )
    assert out == {"ign": True}
