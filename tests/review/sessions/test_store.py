from __future__ import annotations

import hashlib
import os
import threading
import time
from pathlib import Path

import pytest

from diffchunk.diff.options import LoadOptions
from diffchunk.errors import NotADiffError, PathError
from diffchunk.review.sessions.store import SessionStore, read_file


def _diff(name: str, lines: int, tag: str = "x") -> bytes:
    body = "".join(f"+{tag} line {i}\n" for i in range(lines))
    return (
        f"diff --git a/{name} b/{name}\n"
        "new file mode 100644\n"
        "index 0000000..1111111\n"
        "--- /dev/null\n"
        f"+++ b/{name}\n"
        f"@@ -0,0 +1,{lines} @@\n"
    ).encode() + body.encode()


class CountingReader:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, path: str) -> tuple[bytes, tuple[int, int, int, int, int]]:
        with self.lock:
            self.calls.append(path)
        return read_file(path)


@pytest.fixture
def diff_file(tmp_path: Path) -> Path:
    path = tmp_path / "change.diff"
    path.write_bytes(_diff("src/a.py", 30))
    return path


def test_session_key_is_realpath_and_content_hash(diff_file: Path, tmp_path: Path) -> None:
    link = tmp_path / "link.diff"
    link.symlink_to(diff_file)
    store = SessionStore()
    session = store.get(str(link))
    digest = hashlib.sha256(diff_file.read_bytes()).hexdigest()
    assert session.key == f"{os.path.realpath(diff_file)}#{digest[:16]}"
    assert store.get(str(diff_file)) is session


def test_unchanged_file_is_not_read_again(diff_file: Path) -> None:
    reader = CountingReader()
    store = SessionStore(reader=reader)
    first = store.get(str(diff_file))
    for _ in range(5):
        assert store.get(str(diff_file)) is first
    assert len(reader.calls) == 1


def test_touched_file_with_same_content_is_reread_but_not_rebuilt(diff_file: Path) -> None:
    reader = CountingReader()
    store = SessionStore(reader=reader)
    first = store.get(str(diff_file))
    st = diff_file.stat()
    os.utime(diff_file, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    again = store.get(str(diff_file))
    assert len(reader.calls) == 2
    assert again is first and again.review is first.review
    store.get(str(diff_file))
    assert len(reader.calls) == 2  # the new fingerprint was recorded


def test_changed_content_rebuilds_the_review(diff_file: Path) -> None:
    store = SessionStore()
    first = store.get(str(diff_file))
    diff_file.write_bytes(_diff("src/b.py", 12, tag="y"))
    second = store.get(str(diff_file))
    assert second.key != first.key
    assert second.review.stats.total_files == 1
    assert second.review.parsed.files[0].path == "src/b.py"
    assert len(store.sessions()) == 1  # the stale version is gone


def test_options_rebuild_and_are_reused_by_later_calls(diff_file: Path) -> None:
    store = SessionStore()
    custom = LoadOptions(max_chunk_lines=10)
    loaded = store.get(str(diff_file), custom)
    assert loaded.options == custom
    assert store.get(str(diff_file)).options == custom  # no options: keep them
    assert store.get(str(diff_file), reload_options=True).options == LoadOptions()


def test_eviction_keeps_at_most_max_sessions(tmp_path: Path) -> None:
    store = SessionStore(max_sessions=2)
    paths = []
    for i in range(3):
        p = tmp_path / f"d{i}.diff"
        p.write_bytes(_diff(f"f{i}.py", 5))
        paths.append(p)
        store.get(str(p))
    loaded = [s.path for s in store.sessions()]
    assert loaded == [os.path.realpath(paths[1]), os.path.realpath(paths[2])]
    # Using an old one again brings it back and evicts the least recently used.
    store.get(str(paths[0]))
    assert [s.path for s in store.sessions()] == [
        os.path.realpath(paths[2]),
        os.path.realpath(paths[0]),
    ]


def test_many_paths_leave_no_per_path_state_behind(tmp_path: Path) -> None:
    store = SessionStore(max_sessions=2)
    for i in range(40):
        p = tmp_path / f"m{i}.diff"
        p.write_bytes(_diff(f"f{i}.py", 3))
        store.get(str(p))
    assert len(store.sessions()) == 2
    assert len(store._path_locks) == 0  # each load's lock went with its last user


def test_eviction_bounds_bytes_but_never_the_returned_session(tmp_path: Path) -> None:
    small = tmp_path / "small.diff"
    small.write_bytes(_diff("s.py", 5))
    big = tmp_path / "big.diff"
    big.write_bytes(_diff("b.py", 200))
    store = SessionStore(max_bytes=len(small.read_bytes()) + 10)
    store.get(str(small))
    session = store.get(str(big))  # larger than the whole budget on its own
    assert [s.path for s in store.sessions()] == [session.path]
    assert store.total_bytes == session.size


def test_fifo_and_device_are_refused_before_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.diff"
    os.mkfifo(fifo)
    store = SessionStore()
    started = time.monotonic()
    with pytest.raises(PathError, match="named pipe"):
        store.get(str(fifo))
    with pytest.raises(PathError, match="device"):
        store.get("/dev/zero")
    assert time.monotonic() - started < 2


def test_relative_path_is_refused_with_an_absolute_suggestion() -> None:
    with pytest.raises(PathError, match="absolute path is required"):
        SessionStore().get("changes.diff")


def test_deleted_file_is_an_error_not_stale_chunks(diff_file: Path) -> None:
    store = SessionStore()
    store.get(str(diff_file))
    diff_file.unlink()
    with pytest.raises(PathError, match="does not exist"):
        store.get(str(diff_file))
    assert store.sessions() == []


def test_file_replaced_by_directory_is_an_error(diff_file: Path) -> None:
    store = SessionStore()
    store.get(str(diff_file))
    diff_file.unlink()
    diff_file.mkdir()
    with pytest.raises(PathError, match="directory"):
        store.get(str(diff_file))
    assert store.sessions() == []


def test_file_that_stops_being_a_diff_drops_the_old_session(diff_file: Path) -> None:
    store = SessionStore()
    store.get(str(diff_file))
    diff_file.write_text("just some notes\nnot a diff at all\n")
    with pytest.raises(NotADiffError):
        store.get(str(diff_file))
    assert store.sessions() == []


def test_concurrent_first_access_loads_once(diff_file: Path) -> None:
    reader = CountingReader()
    store = SessionStore(reader=reader)
    results = []

    def work() -> None:
        results.append(store.get(str(diff_file)))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(reader.calls) == 1
    assert all(r is results[0] for r in results)


def test_limits_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIFFCHUNK_MAX_SESSIONS", "3")
    monkeypatch.setenv("DIFFCHUNK_MAX_SESSION_BYTES", "4096")
    store = SessionStore()
    assert (store.max_sessions, store.max_bytes) == (3, 4096)
    monkeypatch.setenv("DIFFCHUNK_MAX_SESSIONS", "many")
    assert SessionStore().max_sessions == 16
