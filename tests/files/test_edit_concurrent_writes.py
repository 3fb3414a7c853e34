"""An edit never silently loses another program's write to the file it replaces.

An edit renames a new version over the file.  What another program writes
meanwhile: appended before the rename, it is carried into the new version;
written to the replaced version (it had the file open), it is kept beside
the backup and reported (``late_write``); a program that keeps the file open
for writing stops the edit.  The fault runs (``python -m tests.property.faults
--appends N``, ``make faults``) race real appenders; the last test here runs
them short.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from diffchunk.errors import EditConflict
from diffchunk.files import edit, late_writes, transaction, writers
from diffchunk.files.edit import edit_content, revert_edit
from tests.property.faults import appender_rounds

pytestmark = pytest.mark.usefixtures("backup_dir")

CHANGE = [{"search": "state: A\n", "replace": "state: B\n"}]
LINES = b"".join(b"line %d\n" % i for i in range(200))

# Opens the file for appending, says so, writes one line when told (a line on its
# input), closes.
LATE_WRITER = """
import sys
with open(sys.argv[1], "ab", buffering=0) as fh:
    print("open", flush=True)
    sys.stdin.readline()
    fh.write(b"late line\\n")
"""


def _log(tmp_path: Path) -> Path:
    path = tmp_path / "app.log"
    path.write_bytes(b"log\nstate: A\n" + LINES)
    return path


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[bytes]]]:
    """A log and a process that holds it open for writing until its input closes,
    then appends one line."""
    path = _log(tmp_path)
    code = (
        "import sys\nfh = open(sys.argv[1], 'ab', buffering=0)\nprint('open', flush=True)\n"
        "sys.stdin.read()\nfh.write(b'held line\\n')\nfh.close()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stdout.readline() == b"open\n"
    yield path, proc
    proc.kill()
    proc.wait()


def test_a_file_another_program_keeps_open_for_writing_is_not_replaced(
    holder: tuple[Path, subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, proc = holder
    monkeypatch.setattr(transaction, "WRITERS_WAIT", 0.05)
    with pytest.raises(EditConflict, match=rf"open for writing by pid {proc.pid} \(python"):
        edit_content(str(path), CHANGE, preview=False)
    assert not edit.list_backups(str(path))
    proc.communicate(b"")  # it appends its line and closes the file
    assert path.read_bytes() == b"log\nstate: A\n" + LINES + b"held line\n"
    done = edit_content(str(path), CHANGE, preview=False).to_dict()
    assert done["written"] and path.read_bytes().endswith(b"held line\n")


def test_without_the_lease_probe_proc_names_the_program(
    holder: tuple[Path, subprocess.Popen[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A file the probe cannot ask about (another owner's, a network file system).
    path, proc = holder
    monkeypatch.setattr(transaction, "WRITERS_WAIT", 0.1)
    monkeypatch.setattr(writers, "_busy", lambda fd: None)
    with pytest.raises(EditConflict, match=rf"pid {proc.pid}"):
        edit_content(str(path), CHANGE, preview=False)
    assert path.read_bytes() == b"log\nstate: A\n" + LINES


def _late_writer_at_the_rename(
    path: Path, monkeypatch: pytest.MonkeyPatch, *, write_at_once: bool
) -> list[subprocess.Popen[bytes]]:
    """Have a program open ``path`` for appending right before an edit renames its new
    version over it; it writes a line right after the rename (``write_at_once``: while the
    edit waits for it) or when the test writes a line to its input."""
    real_replace = os.replace
    started: list[subprocess.Popen[bytes]] = []

    def replace(src: Any, dst: Any, **kw: Any) -> None:
        ours = os.path.basename(os.fsdecode(dst)) == path.name and not started
        if ours:
            proc = subprocess.Popen(
                [sys.executable, "-c", LATE_WRITER, str(path)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
            assert proc.stdout is not None and proc.stdout.readline() == b"open\n"
            started.append(proc)
        real_replace(src, dst, **kw)
        if ours and write_at_once:
            _tell_to_write(started[0])

    monkeypatch.setattr(os, "replace", replace)
    return started


def _tell_to_write(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(b"write\n")
    proc.stdin.close()


def test_a_line_written_to_the_replaced_version_is_kept_and_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _log(tmp_path)
    started = _late_writer_at_the_rename(path, monkeypatch, write_at_once=True)
    result = edit_content(str(path), CHANGE, preview=False).to_dict()
    started[0].wait(timeout=10)
    assert result["written"]
    assert path.read_bytes() == b"log\nstate: B\n" + LINES  # the line went to the old version
    late = result["late_write"]
    assert late["bytes"] == len(b"late line\n") and late["still_open_by"] == []
    assert late["replaced_version"] is None  # nobody writes to it any more
    assert late["from_offset"] == len(b"log\nstate: A\n" + LINES)
    assert Path(late["kept_in"]).read_bytes() == b"late line\n"
    assert late["kept_in"] == result["backup_created"] + ".late"
    assert late["kept_in"] in result["warnings"][-1]
    # The backup is the version replaced, line included; a revert restores what was read.
    assert Path(result["backup_created"]).read_bytes().endswith(b"late line\n")
    reverted = revert_edit(str(path)).to_dict()
    assert reverted["success"]
    assert path.read_bytes() == b"log\nstate: A\n" + LINES


def test_a_program_still_writing_after_the_wait_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _log(tmp_path)
    monkeypatch.setattr(late_writes, "WRITERS_WAIT", 0.05)
    started = _late_writer_at_the_rename(path, monkeypatch, write_at_once=False)
    result = edit_content(str(path), CHANGE, preview=False).to_dict()
    assert result["written"]
    late = result["late_write"]  # nothing came yet, but the program still has it open
    assert late["bytes"] == 0 and late["kept_in"] is None
    assert late["still_open_by"] == [f"pid {started[0].pid} (python3)"]
    assert late["replaced_version"] == result["backup_created"]
    assert result["backup_created"] in result["warnings"][-1]
    _tell_to_write(started[0])  # it writes once the edit has answered
    started[0].wait(timeout=10)
    assert b"late line" not in path.read_bytes()
    assert Path(result["backup_created"]).read_bytes().endswith(b"late line\n")


def test_lines_appended_while_the_edit_runs_are_carried_into_the_new_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _log(tmp_path)
    real_fill = edit._fill

    def fill_while_appended(*args: Any) -> None:
        with open(path, "ab") as fh:
            fh.write(b"appended during the edit\n")
        real_fill(*args)

    monkeypatch.setattr(edit, "_fill", fill_while_appended)
    result = edit_content(str(path), CHANGE, preview=False).to_dict()
    assert result["written"] and "late_write" not in result
    assert path.read_bytes() == b"log\nstate: B\n" + LINES + b"appended during the edit\n"
    backup = Path(result["backup_created"]).read_bytes()
    assert backup.startswith(b"log\nstate: A\n" + LINES)


def test_a_rewrite_with_appends_is_not_carried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Lines appended after a change of the text read are not an append: the edit
    # is made again on the new text.
    path = _log(tmp_path)
    real_fill = edit._fill
    calls: list[int] = []

    def rewrite_and_append(*args: Any) -> None:
        if not calls:
            with open(path, "r+b") as fh:
                fh.write(b"LOG")
            with open(path, "ab") as fh:
                fh.write(b"appended\n")
        calls.append(1)
        real_fill(*args)

    monkeypatch.setattr(edit, "_fill", rewrite_and_append)
    result = edit_content(str(path), CHANGE, preview=False).to_dict()
    assert result["written"] and len(calls) == 2
    assert path.read_bytes() == b"LOG\nstate: B\n" + LINES + b"appended\n"


def test_the_writer_probe_never_ends_the_process(tmp_path: Path) -> None:
    # A program opening the file for writing while the probe holds its lease
    # makes the kernel signal this process: SIGURG, whose default is to do nothing.
    path = tmp_path / "busy.txt"
    path.write_bytes(b"x")
    code = (
        "import os, sys\nprint('opening', flush=True)\nwhile True:\n"
        "    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)\n    os.close(fd)\n"
    )
    breaker = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert breaker.stdout is not None and breaker.stdout.readline() == b"opening\n"
        answers = {writers.wait_for_writers(fd, 0.0) == [] for _ in range(3000)}
    finally:
        os.close(fd)
        breaker.kill()
        breaker.wait()
    assert answers == {True, False}  # seen writing and not: the probe ran both ways


# Edits per kind of appender.  A writer that opens the file 5 ms before it writes is
# waited for at each edit (a few ms: it closes the file between two lines): without
# that wait, 15 edits leave some 14 of its lines to the version replaced, so 15 show
# either mechanism failing (`make faults` runs 200).  A file kept open is refused
# after a wait any length of which shows it (0.05 s here, 0.2 s in `make faults`).
EDITS = {"per line": 40, "open, then write": 15, "kept open": 3}


@pytest.mark.parametrize("kind", list(EDITS))
def test_appenders_racing_edits_lose_no_line(tmp_path: Path, kind: str) -> None:
    outcome = appender_rounds(tmp_path, EDITS[kind], kind, held_wait=0.05)
    assert outcome.failed == 0, (outcome.messages, outcome.notes)
