from __future__ import annotations

import hashlib
import json
import multiprocessing
import re
from pathlib import Path

import pytest

from diffchunk.files.edit import edit_content, list_backups
from tests.property.faults import counter_writer

EDITS_PER_PROCESS = 25


def _run(tmp_path: Path, processes: int) -> None:
    target = tmp_path / "shared.txt"
    target.write_text("".join(f"counter-{i}: 0\n" for i in range(processes)))
    target.chmod(0o644)
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    workers = [
        ctx.Process(target=counter_writer, args=(str(target), i, EDITS_PER_PROCESS, queue))
        for i in range(processes)
    ]
    for proc in workers:
        proc.start()
    reports = [queue.get(timeout=120) for _ in workers]
    for proc in workers:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    assert all(not failures for _, failures in reports), reports
    # Every update of every process is in the final file, which is intact.
    assert target.read_text() == "".join(
        f"counter-{i}: {EDITS_PER_PROCESS}\n" for i in range(processes)
    )
    assert target.stat().st_mode & 0o777 == 0o644
    assert not [p for p in tmp_path.iterdir() if ".diffchunk-" in p.name]
    # One complete, distinct backup per edit: each one a whole earlier state.
    listed = list_backups(str(target))
    total = processes * EDITS_PER_PROCESS
    assert len(listed) == total
    assert len({b["id"] for b in listed}) == total
    contents = set()
    for info in listed:
        data = Path(str(info["path"])).read_bytes()
        meta = json.loads(Path(str(info["path"]) + ".json").read_text())
        assert meta["sha256"] == hashlib.sha256(data).hexdigest()
        assert re.fullmatch(rb"(counter-\d+: \d+\n)+", data)
        assert data.count(b"\n") == processes
        contents.add(data)
    assert len(contents) == total  # every state was different: none lost or repeated
    # Newest first: the sum of counters in the backups decreases strictly.
    sums = [
        sum(int(n) for n in re.findall(rb": (\d+)", Path(str(b["path"])).read_bytes()))
        for b in listed
    ]
    assert sums == list(range(total - 1, -1, -1))


@pytest.mark.parametrize("processes", [2, 8])
def test_concurrent_processes_never_lose_an_update(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processes: int
) -> None:
    monkeypatch.setenv("DIFFCHUNK_BACKUP_DIR", str(tmp_path / "backups"))
    monkeypatch.setenv("DIFFCHUNK_BACKUP_KEEP", "1000")
    _run(tmp_path, processes)


def test_concurrent_threads_in_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    monkeypatch.setenv("DIFFCHUNK_BACKUP_DIR", str(tmp_path / "backups"))
    monkeypatch.setenv("DIFFCHUNK_BACKUP_KEEP", "1000")
    target = tmp_path / "threads.txt"
    target.write_text("".join(f"t{i}=0\n" for i in range(4)))
    errors: list[str] = []

    def work(me: int) -> None:
        for n in range(10):
            result = edit_content(
                str(target),
                [{"search": f"t{me}={n}\n", "replace": f"t{me}={n + 1}\n"}],
                fuzzy=False,
                preview=False,
            ).to_dict()
            if not result["success"]:
                errors.append(str(result["results"]))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert target.read_text() == "".join(f"t{i}=10\n" for i in range(4))
    assert len({b["id"] for b in list_backups(str(target))}) == 40


def test_stale_change_fails_cleanly_after_another_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIFFCHUNK_BACKUP_DIR", str(tmp_path / "backups"))
    target = tmp_path / "race.txt"
    target.write_text("mode = fast\nlevel = 3\n")
    change = [{"search": "mode = fast\n", "replace": "mode = safe\n"}]
    planned = edit_content(str(target), change, fuzzy=False).to_dict()  # preview seen by one editor
    assert planned["success"] is True
    # Another editor changes the same line first.
    other = edit_content(
        str(target), [{"search": "mode = fast", "replace": "mode = turbo"}], preview=False
    ).to_dict()
    assert other["success"] is True
    late = edit_content(str(target), change, fuzzy=False, preview=False).to_dict()
    assert late["success"] is False
    assert "not found" in str(late["results"][0]["error"])
    assert target.read_text() == "mode = turbo\nlevel = 3\n"
