"""The suite's wait for Debian's packages that ``make test`` installs beside it
(tests/support/system_packages.py): it waits while the install goes on, and never for
a mark an interrupted run left behind."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest
import system_packages
from system_packages import wait_for_system_packages
from timing import Stopwatch


def _sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits' pauses, recorded instead of slept."""
    pauses: list[float] = []
    monkeypatch.setattr(system_packages.time, "sleep", pauses.append)
    return pauses


def test_nothing_pending_is_not_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pauses = _sleeps(monkeypatch)
    wait_for_system_packages(tmp_path / "absent.pending")
    assert pauses == []


def test_a_running_install_is_waited_for_until_its_mark_goes(tmp_path: Path) -> None:
    mark = tmp_path / "system-packages.pending"
    mark.write_text(f"{os.getpid()}\n")  # a live make test
    threading.Timer(0.5, mark.unlink).start()  # the install ends
    watch = Stopwatch()
    wait_for_system_packages(mark)
    assert 0.5 <= watch.elapsed().wall < 5


def test_a_mark_whose_writer_is_gone_is_not_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ended = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True)
    mark = tmp_path / "system-packages.pending"
    mark.write_text(ended.stdout)  # an interrupted make test left it
    pauses = _sleeps(monkeypatch)
    wait_for_system_packages(mark)
    assert pauses == [] and mark.exists()


def test_the_wait_has_an_end(tmp_path: Path) -> None:
    writer = subprocess.Popen(["sleep", "30"])
    mark = tmp_path / "system-packages.pending"
    mark.write_text(f"{writer.pid}\n")
    try:
        watch = Stopwatch()
        wait_for_system_packages(mark, longest=0.5)
        assert 0.5 <= watch.elapsed().wall < 5
    finally:
        writer.kill()
        writer.wait()
