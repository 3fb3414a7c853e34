"""Large diffs mapped from a private copy (diffchunk.diff.buffer) instead of held in memory."""

from __future__ import annotations

import errno
import hashlib
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_data import CORPUS, ROOT

import diffchunk.diff.buffer as buffer_mod
from diffchunk.diff.buffer import DiffBuffer, map_copy
from diffchunk.diff.model import LazyHunks
from diffchunk.diff.options import LoadOptions
from diffchunk.errors import FileToolError
from diffchunk.review.sessions.store import SessionStore, read_file
from diffchunk.review.tools import diff_tools

FIXTURES = ROOT / "fixtures"


def _mapped(tmp_path: Path, content: bytes) -> DiffBuffer:
    src = tmp_path / "src.bin"
    src.write_bytes(content)
    spool = tmp_path / "spool"
    spool.mkdir(exist_ok=True)
    fd = os.open(src, os.O_RDONLY)
    try:
        return map_copy(fd, len(content), str(spool))
    finally:
        os.close(fd)


# ---------------------------------------------------------------- bytes methods


def test_buffer_answers_like_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Small blocks, so that counting crosses many block boundaries.
    monkeypatch.setattr(buffer_mod, "_COUNT_BLOCK", 7)
    rng = random.Random(7)
    content = bytes(rng.choice(b"\n+- a@\\") for _ in range(5000))
    buf = _mapped(tmp_path, content)
    n = len(content)
    subs = [b"\n", b"\n+", b"\n-", b"\n@", b"aa", b"\n\n", b"+-+", b"", b"zz"]
    bounds = [(0, None), (3, n), (10, 4000), (-50, None), (100, 90), (0, n + 10), (4999, n)]
    for sub in subs:
        for start, end in bounds:
            assert buf.count(sub, start, end) == content.count(sub, start, end), (sub, start, end)
        assert buf.find(sub, 5, 3000) == content.find(sub, 5, 3000)
        assert buf.rfind(sub, 5, 3000) == content.rfind(sub, 5, 3000)
        assert (sub in buf) == (sub in content)
    assert buf.count(b"\n") == content.count(b"\n")
    for prefix, start in [(content[:5], 0), (content[10:14], 10), (b"zzz", 0), (content[-3:], -3)]:
        assert buf.startswith(prefix, start) == content.startswith(prefix, start)
    assert buf.endswith(content[-4:]) and not buf.endswith(b"zz" + content[-4:])
    assert buf[17] == content[17] and buf[100:200] == content[100:200]
    assert buf == content and buf != content[:-1] and buf != content[:-1] + b"#"
    assert ord("\n") in buf and 0 not in buf
    with pytest.raises(TypeError):
        _ = "text" in buf  # type: ignore[operator]
    assert buf.decode("latin-1") == content.decode("latin-1")


def test_copy_is_exact_hashed_and_nameless(tmp_path: Path) -> None:
    content = os.urandom(3 << 20) + b"tail\n"
    buf = _mapped(tmp_path, content)
    assert buf[:] == content
    assert buf.digest == hashlib.sha256(content).hexdigest()
    assert os.listdir(tmp_path / "spool") == []  # nothing left behind with a name
    buf.release()
    assert buf[len(content) - 5 :] == b"tail\n"  # pages given back come in again


def test_copy_without_copy_file_range(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> int:
        raise OSError(errno.EXDEV, "cross-device")

    monkeypatch.setattr(os, "copy_file_range", refuse)
    content = os.urandom((1 << 20) * 2 + 123)
    buf = _mapped(tmp_path, content)
    assert buf[:] == content and buf.digest == hashlib.sha256(content).hexdigest()


def test_copy_of_a_file_that_shrank(tmp_path: Path) -> None:
    src = tmp_path / "src.diff"
    src.write_bytes(b"x" * 1000)
    fd = os.open(src, os.O_RDONLY)
    try:
        with pytest.raises(FileToolError, match="became shorter while it was being copied"):
            map_copy(fd, 5000, str(tmp_path))
    finally:
        os.close(fd)


# ---------------------------------------------------------------- sessions


def _bytes_reader(path: str) -> tuple[bytes, tuple[int, int, int, int, int]]:
    data, fp = read_file(path)
    return bytes(data), fp


def _everything(path: str, store: SessionStore) -> list[object]:
    """What every diff tool answers for the diff at ``path``."""
    summary = diff_tools.load_diff(
        path, options=LoadOptions(max_chunk_lines=120), store=store
    ).to_dict()
    out: list[object] = [summary, diff_tools.list_chunks(path, store=store).to_dict()]
    for n in range(1, summary["chunks"] + 1):
        out.append(diff_tools.get_chunk_bytes(path, n, store=store))
        if n % 4 == 1:  # the formats of a quarter of them (the corpus has hundreds)
            for fmt in ("raw", "annotated", "compact"):
                out.append(diff_tools.get_chunk(path, n, format=fmt, store=store))
    review = store.get(path).review
    for fd in review.parsed.files[:40]:
        out.append(diff_tools.get_file_diff(path, fd.path, store=store))
    out.append(diff_tools.find_chunks_for_files(path, "*.py", store=store))
    return out


def _diffs() -> list[Path]:
    found = sorted(p for p in FIXTURES.iterdir() if p.is_file() and p.suffix != ".md")
    if CORPUS.is_dir():
        found += sorted(p for p in CORPUS.iterdir() if p.suffix in (".diff", ".txt", ".mbox"))
    return found


@pytest.mark.parametrize("path", _diffs(), ids=lambda p: p.name)
def test_mapped_diff_serves_what_an_in_memory_one_does(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DIFFCHUNK_MAP_BYTES", "1")
    monkeypatch.setattr(DiffBuffer, "trim_step", 4096)  # pages go back often meanwhile
    try:
        expected = _everything(str(path), SessionStore(reader=_bytes_reader))
    except Exception as exc:  # e.g. not a diff: the mapped load must say the same
        with pytest.raises(type(exc)):
            _everything(str(path), SessionStore())
        return
    store = SessionStore()
    assert _everything(str(path), store) == expected
    session = store.get(str(path))
    assert isinstance(session.review.parsed.data, DiffBuffer)
    assert session.digest == hashlib.sha256(path.read_bytes()).hexdigest()
    lazy = [f.hunks for f in session.review.parsed.files if isinstance(f.hunks, LazyHunks)]
    assert all(h.data is session.review.parsed.data for h in lazy)


def test_small_file_or_unwritable_cache_reads_into_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    diff = FIXTURES / "combined.diff"
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("DIFFCHUNK_MAP_BYTES", raising=False)
    assert type(read_file(str(diff))[0]) is bytes  # below the 8 MiB default
    monkeypatch.setenv("DIFFCHUNK_MAP_BYTES", "1")
    assert isinstance(read_file(str(diff))[0], DiffBuffer)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(blocker))
    data, _ = read_file(str(diff))
    assert type(data) is bytes and data == diff.read_bytes()


def test_rewriting_the_file_in_place_changes_nothing_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git diff > file` again truncates the file: a mapping of the file itself would
    die of SIGBUS on its lost pages; the private copy still holds the loaded text."""
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DIFFCHUNK_MAP_BYTES", "1")
    path = tmp_path / "review.diff"
    original = (FIXTURES / "log_p.txt").read_bytes()
    path.write_bytes(original)
    store = SessionStore()
    session = store.get(str(path))
    first = session.review.chunk_bytes(1)
    with open(path, "r+b") as fh:
        fh.truncate(0)  # the lost pages would be past the end of a mapped original
    assert session.review.chunk_bytes(1) == first
    assert session.review.parsed.data == original
    path.write_bytes((FIXTURES / "combined.diff").read_bytes())
    assert store.get(str(path)).review.parsed.data == path.read_bytes()


def test_a_large_diff_is_not_held_in_memory(tmp_path: Path) -> None:
    """Loading and serving a 24 MB diff keeps far less than 24 MB resident."""
    script = textwrap.dedent(
        """
        import sys
        from diffchunk.review.tools import diff_tools

        def rss():
            with open("/proc/self/status") as fh:
                return next(int(l.split()[1]) for l in fh if l.startswith("VmRSS:")) * 1024

        path = sys.argv[1]
        lines = 400_000
        with open(path, "wb") as fh:
            for f in range(400):
                fh.write(f"diff --git a/d/f{f}.py b/d/f{f}.py\\n--- a/d/f{f}.py\\n+++ b/d/f{f}.py\\n"
                         .encode())
                fh.write(f"@@ -1,{lines // 400} +1,{lines // 400} @@\\n".encode())
                fh.write(b"".join(b"-old line %d of a file that changed a lot\\n+new line %d of it\\n"
                                  % (i, i) for i in range(lines // 800)))
                fh.write(b"".join(b" kept line %d of a file that changed a lot, unchanged\\n"
                                  % i for i in range(lines // 800)))
        size = len(open(path, "rb").read())
        warm = path + ".warm.diff"  # the modules a load imports, loaded before measuring
        with open(warm, "wb") as fh:
            fh.write(b"diff --git a/w.py b/w.py\\n--- a/w.py\\n+++ b/w.py\\n@@ -1 +1 @@\\n-a\\n+b\\n")
        diff_tools.get_chunk(warm, diff_tools.load_diff(warm).chunks)
        before = rss()
        summary = diff_tools.load_diff(path)
        for n in range(1, summary.chunks + 1, 5):
            diff_tools.get_chunk(path, n)
        print(size, rss() - before, summary.chunks)
        """
    )
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc to read the resident size")
    env = dict(os.environ, DIFFCHUNK_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    env.pop("DIFFCHUNK_MAP_BYTES", None)
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "big.diff")],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.split()
    size, grown, chunks = (int(x) for x in out)
    assert size > 20 << 20 and chunks > 1
    assert grown < size // 3, f"{grown / 1e6:.1f} MB resident for a {size / 1e6:.1f} MB diff"


def test_copy_where_os_has_no_copy_file_range(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(os, "copy_file_range", raising=False)  # macOS, BSD, older glibc
    content = os.urandom((1 << 20) + 77)
    buf = _mapped(tmp_path, content)
    assert buf[:] == content and buf.digest == hashlib.sha256(content).hexdigest()


def _big_diff(tmp_path: Path) -> Path:
    path = tmp_path / "big.diff"
    path.write_bytes((FIXTURES / "log_p.txt").read_bytes())
    return path


def test_cache_directory_made_for_a_copy_is_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache" / "diffchunk"
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(cache))
    monkeypatch.setenv("DIFFCHUNK_MAP_BYTES", "1")
    assert isinstance(read_file(str(_big_diff(tmp_path)))[0], DiffBuffer)
    assert cache.stat().st_mode & 0o777 == 0o700  # as the git cache makes it


@pytest.mark.parametrize("why", ["no home directory", "little free space"])
def test_no_room_for_a_copy_reads_into_memory(
    why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import diffchunk.review.sessions.store as sessions

    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DIFFCHUNK_MAP_BYTES", "1")
    if why == "no home directory":

        def no_home() -> Path:
            raise RuntimeError("Could not determine home directory.")

        monkeypatch.setattr(sessions, "default_cache_dir", no_home)
    else:
        real = os.statvfs

        class Full:
            def __init__(self, st: os.statvfs_result) -> None:
                self.f_frsize = st.f_frsize
                self.f_bavail = 10

        monkeypatch.setattr(os, "statvfs", lambda p: Full(real(p)))
    path = _big_diff(tmp_path)
    data, _ = read_file(str(path))
    assert type(data) is bytes and data == path.read_bytes()
    assert SessionStore().get(str(path)).review.stats.total_files > 0


def test_a_read_error_while_hashing_the_copy_is_the_files_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diffchunk.errors import PathError

    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DIFFCHUNK_MAP_BYTES", "1")

    def failing(fd: int, n: int, offset: int) -> bytes:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "pread", failing)
    with pytest.raises(PathError, match="cannot be read: Input/output error"):
        SessionStore().get(str(_big_diff(tmp_path)))


def _mapped_files() -> str:
    with open("/proc/self/maps") as fh:
        return fh.read()


def test_a_cached_git_diff_is_mapped_itself_and_other_files_through_a_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cache entries are written once and renamed into place: the reuse of one
    maps it without a copy; any other diff file is copied first."""
    from gitrepo import commit, git

    from diffchunk.review.ranges.load import load_git_diff

    if not Path("/proc/self/maps").exists():
        pytest.skip("needs /proc to see the mappings")
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DIFFCHUNK_MAP_BYTES", "1")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {f"f{i}.txt": f"{i}\n" for i in range(20)})
    commit(repo, {f"f{i}.txt": f"{i}\nmore\n" for i in range(20)})
    first = load_git_diff(str(repo), "main~1..main", store=SessionStore()).to_dict()
    entry = first["file_path"]
    store = SessionStore()
    again = load_git_diff(str(repo), "main~1..main", store=store).to_dict()
    assert again["cached"] is True and again["file_path"] == entry
    session = store.get(entry)
    assert isinstance(session.review.parsed.data, DiffBuffer)
    assert session.digest == hashlib.sha256(Path(entry).read_bytes()).hexdigest()
    assert entry in _mapped_files()
    other = tmp_path / "copy.diff"
    other.write_bytes(Path(entry).read_bytes())
    assert isinstance(read_file(str(other))[0], DiffBuffer)
    assert str(other) not in _mapped_files()  # a copy of it is mapped, not the file


def test_a_failed_mapped_load_leaves_no_thread_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from diffchunk.errors import NotADiffError

    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DIFFCHUNK_MAP_BYTES", "1")
    text = tmp_path / "notes.txt"
    text.write_bytes(b"just some text\n" * 200_000)
    before = set(threading.enumerate())
    with pytest.raises(NotADiffError):
        SessionStore().get(str(text))
    assert set(threading.enumerate()) <= before  # the copy's hashing stopped


@pytest.mark.parametrize("exposed", ["another name", "a directory others can write"])
def test_a_cache_entry_others_could_rewrite_is_copied_not_mapped(
    exposed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mapped in place, a file truncated through another name or by another user
    would kill the process (SIGBUS): such an entry is read through a copy."""
    from gitrepo import commit, git

    from diffchunk.review.ranges.load import load_git_diff

    if not Path("/proc/self/maps").exists():
        pytest.skip("needs /proc to see the mappings")
    cache = tmp_path / "cache"
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(cache))
    monkeypatch.setenv("DIFFCHUNK_MAP_BYTES", "1")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"a.txt": "1\n"})
    commit(repo, {"a.txt": "2\n"})
    entry = load_git_diff(str(repo), "main~1..main", store=SessionStore()).to_dict()["file_path"]
    if exposed == "another name":
        os.link(entry, tmp_path / "elsewhere.diff")
    else:
        cache.chmod(0o777)
    data, _ = read_file(entry)
    assert isinstance(data, DiffBuffer) and data == Path(entry).read_bytes()
    assert entry not in _mapped_files()
