from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from diffchunk.errors import FileToolError
from diffchunk.files import backups
from diffchunk.files.edit import edit_content, list_backups
from diffchunk.files.edit import revert_edit as _revert_edit


def revert_edit(path: str, backup_id: str | None = None) -> dict[str, Any]:
    return _revert_edit(path, backup_id=backup_id).to_dict()


@pytest.fixture(autouse=True)
def _backup_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    target = tmp_path / "backups"
    monkeypatch.setenv("DIFFCHUNK_BACKUP_DIR", str(target))
    return target


def _apply(path: Path, search: str, replace: str) -> dict[str, Any]:
    result = edit_content(
        str(path), [{"search": search, "replace": replace}], fuzzy=False, preview=False
    ).to_dict()
    assert result["success"] is True, result
    return result


def test_backup_dir_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DIFFCHUNK_BACKUP_DIR")
    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", str(tmp_path / "mystate"))
    assert backups.backup_root() == str(tmp_path / "mystate" / "backups")
    monkeypatch.delenv("DIFFCHUNK_STATE_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert backups.backup_root() == str(tmp_path / "state" / "diffchunk" / "backups")
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert backups.backup_root() == str(
        tmp_path / "home" / ".local" / "state" / "diffchunk" / "backups"
    )


def test_backup_name_metadata_and_content(tmp_path: Path, _backup_dir: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("v1\n")
    result = _apply(f, "v1", "v2")
    path = Path(str(result["backup_created"]))
    key = hashlib.sha256(os.fsencode(str(f))).hexdigest()[:12]
    assert path.parent == _backup_dir
    assert path.name.startswith(f"notes.txt.{key}.")
    assert path.read_text() == "v1\n"
    meta = json.loads(Path(str(path) + ".json").read_text())
    assert meta["original_path"] == str(f)
    assert meta["size"] == 3
    assert meta["sha256"] == hashlib.sha256(b"v1\n").hexdigest()
    assert meta["created"]
    (info,) = list_backups(str(f))
    assert set(info) == {"id", "timestamp", "size", "path"}
    assert info["path"] == str(path) and info["size"] == 3
    assert path.name.endswith(str(info["id"]))


@pytest.mark.parametrize("link", ["1", "0"])
def test_backup_survives_later_edits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, link: str
) -> None:
    monkeypatch.setenv("DIFFCHUNK_BACKUP_LINK", link)
    f = tmp_path / "data.txt"
    f.write_text("alpha\nbeta\n")
    first = Path(str(_apply(f, "alpha", "ALPHA")["backup_created"]))
    _apply(f, "beta", "BETA")
    assert first.read_text() == "alpha\nbeta\n"
    storage = json.loads(Path(str(first) + ".json").read_text())["storage"]
    assert storage == ("hardlink" if link == "1" else "copy")


def test_hardlinked_file_gets_a_copied_backup(tmp_path: Path) -> None:
    f = tmp_path / "data.txt"
    f.write_text("one\n")
    other = tmp_path / "other-name.txt"
    os.link(f, other)
    backup = Path(str(_apply(f, "one", "two")["backup_created"]))
    assert json.loads(Path(str(backup) + ".json").read_text())["storage"] == "copy"
    other.write_text("changed through the other link\n")
    assert backup.read_text() == "one\n"


def test_twenty_edits_in_one_second_get_distinct_ordered_ids(tmp_path: Path) -> None:
    f = tmp_path / "count.txt"
    f.write_text("n=0\n")
    for i in range(20):
        _apply(f, f"n={i}\n", f"n={i + 1}\n")
    listed = list_backups(str(f))
    ids = [str(b["id"]) for b in listed]
    assert len(ids) == 20 and len(set(ids)) == 20
    assert ids == sorted(ids, reverse=True)
    # Newest first, and each backup holds the state just before its edit.
    assert [Path(str(b["path"])).read_text() for b in listed] == [
        f"n={i}\n" for i in range(19, -1, -1)
    ]


def test_retention_by_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIFFCHUNK_BACKUP_KEEP", "5")
    f = tmp_path / "count.txt"
    f.write_text("n=0\n")
    for i in range(12):
        _apply(f, f"n={i}\n", f"n={i + 1}\n")
    listed = list_backups(str(f))
    assert [Path(str(b["path"])).read_text() for b in listed] == [
        f"n={i}\n" for i in range(11, 6, -1)
    ]
    leftovers = [p for p in os.listdir(backups.backup_root()) if p.startswith("count.txt.")]
    assert len(leftovers) == 10  # 5 data files + 5 metadata files


def test_retention_by_total_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIFFCHUNK_BACKUP_MAX_BYTES", "25000")
    f = tmp_path / "big.txt"
    f.write_text("head 0\n" + "x" * 10_000 + "\n")
    for i in range(6):
        _apply(f, f"head {i}\n", f"head {i + 1}\n")
    listed = list_backups(str(f))
    assert len(listed) == 2
    assert sum(int(str(b["size"])) for b in listed) <= 25000


def test_revert_restores_previous_and_saves_current(tmp_path: Path) -> None:
    f = tmp_path / "doc.txt"
    f.write_text("A\n")
    f.chmod(0o640)
    _apply(f, "A", "B")
    _apply(f, "B", "C")
    result = revert_edit(str(f))
    assert result["success"] is True and result["error"] is None
    assert f.read_text() == "B\n"
    assert f.stat().st_mode & 0o777 == 0o640
    saved = result["current_saved_as"]
    assert Path(str(saved["path"])).read_text() == "C\n"
    assert result["reverted_to"]["size"] == 2
    assert [b["id"] for b in result["available_backups"]] == [b["id"] for b in list_backups(str(f))]
    # Reverting again swaps back to the state the first revert saved.
    second = revert_edit(str(f))
    assert f.read_text() == "C\n"
    assert second["reverted_to"]["id"] == saved["id"]


def test_revert_to_specific_id_and_prefix(tmp_path: Path) -> None:
    f = tmp_path / "doc.txt"
    f.write_text("A\n")
    first = _apply(f, "A", "B")
    _apply(f, "B", "C")
    first_id = Path(str(first["backup_created"])).name.rsplit(".", 1)[1]
    revert_edit(str(f), backup_id=first_id)
    assert f.read_text() == "A\n"


def test_revert_unknown_id_lists_available(tmp_path: Path) -> None:
    f = tmp_path / "doc.txt"
    f.write_text("A\n")
    _apply(f, "A", "B")
    (only,) = list_backups(str(f))
    with pytest.raises(FileToolError) as caught:
        revert_edit(str(f), backup_id="19990101_000000")
    assert str(only["id"]) in str(caught.value)
    assert f.read_text() == "B\n"


def test_revert_without_backups_is_an_error(tmp_path: Path) -> None:
    f = tmp_path / "fresh.txt"
    f.write_text("x\n")
    with pytest.raises(FileToolError, match="no backups"):
        revert_edit(str(f))


def test_no_version_is_ever_lost(tmp_path: Path) -> None:
    f = tmp_path / "history.txt"
    f.write_text("v0\n")
    written = {"v0\n"}
    for i in range(4):
        _apply(f, f"v{i}\n", f"v{i + 1}\n")
        written.add(f.read_text())
    for backup_id in (None, None, "pick-oldest", None):
        if backup_id == "pick-oldest":
            backup_id = str(list_backups(str(f))[-1]["id"])
        revert_edit(str(f), backup_id=backup_id)
        written.add(f.read_text())
        _apply(f, f.read_text(), f.read_text().strip() + "-edited\n")
        written.add(f.read_text())
    recoverable = {Path(str(b["path"])).read_text() for b in list_backups(str(f))}
    recoverable.add(f.read_text())
    assert written <= recoverable


def test_edit_lock_times_out_with_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diffchunk.errors import EditConflict
    from diffchunk.files.locking import file_lock

    f = tmp_path / "held.txt"
    f.write_text("x\n")
    with file_lock(backups.lock_dir(), str(f)):
        monkeypatch.setenv("DIFFCHUNK_LOCK_TIMEOUT", "0.2")
        with pytest.raises(EditConflict, match="lock"):
            edit_content(str(f), [{"search": "x", "replace": "y"}], preview=False)
    assert f.read_text() == "x\n"


def test_leftovers_of_interrupted_backups_are_cleaned(tmp_path: Path) -> None:
    f = tmp_path / "doc.txt"
    f.write_text("A\n")
    _apply(f, "A", "B")
    (info,) = list_backups(str(f))
    root = Path(backups.backup_root())
    stem = Path(str(info["path"])).name.rsplit(".", 1)[0]
    orphan = root / f"{stem}.20000101_000000_000000_00"
    orphan.write_text("half written")
    stray = root / f"{stem}.20000101_000000_000000_01.json.123.456.tmp"  # earlier versions'
    stray.write_text("{")
    hidden = root / f".{stem}.20000101_000000_000000_02.json.0a1b2c3d.tmp"  # replace_file's
    hidden.write_text("{")
    unrelated = root / "other.txt.0123456789ab.20000101_000000_000000_00"
    unrelated.write_text("someone else's")
    unrelated_temp = root / ".other.txt.0123456789ab.20000101_000000_000000_00.json.0a.tmp"
    unrelated_temp.write_text("{")
    assert len(list_backups(str(f))) == 1  # incomplete backups are never listed
    _apply(f, "B", "C")
    assert not orphan.exists() and not stray.exists() and not hidden.exists()
    assert unrelated.exists() and unrelated_temp.exists()
    assert len(list_backups(str(f))) == 2


def test_backup_metadata_is_written_by_the_one_replace_mechanism(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The metadata that lists a backup is written by fdio.replace_file (mode 0600); when
    that write fails, the edit is refused, the file unchanged, and no backup listed."""
    from diffchunk import fdio

    f = tmp_path / "meta.txt"
    f.write_text("A\n")
    written: list[tuple[str, int | None]] = []

    def recorded(target: str, data: bytes, *, mode: int | None = None) -> None:
        written.append((os.path.basename(target), mode))
        fdio.replace_file(target, data, mode=mode)

    monkeypatch.setattr(backups, "replace_file", recorded)
    _apply(f, "A", "B")
    (info,) = list_backups(str(f))
    assert written == [(os.path.basename(str(info["path"])) + ".json", 0o600)]
    assert os.stat(str(info["path"]) + ".json").st_mode & 0o777 == 0o600

    def full(target: str, data: bytes, *, mode: int | None = None) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(backups, "replace_file", full)
    with pytest.raises(FileToolError, match="Cannot write the backup metadata"):
        edit_content(str(f), [{"search": "B", "replace": "C"}], fuzzy=False, preview=False)
    assert f.read_text() == "B\n"
    assert len(list_backups(str(f))) == 1
    leftovers = sorted(p.name for p in Path(backups.backup_root()).iterdir() if p.is_file())
    assert len(leftovers) == 2, leftovers  # the first backup and its metadata


def test_ids_keep_increasing_when_the_clock_goes_back(tmp_path: Path) -> None:
    f = tmp_path / "clock.txt"
    f.write_text("n=0\n")
    _apply(f, "n=0", "n=1")
    (first,) = list_backups(str(f))
    # A backup dated in the future, as after the clock was set back.
    future = str(first["path"]).rsplit(".", 1)[0] + ".29991231_235959_999999_00"
    Path(future).write_text("n=?\n")
    Path(future + ".json").write_text("{}")
    for i in range(1, 4):
        _apply(f, f"n={i}", f"n={i + 1}")
    ids = [str(b["id"]) for b in list_backups(str(f))]
    assert len(ids) == 5 and len(set(ids)) == 5
    assert ids[0] > ids[1] > ids[2] > ids[3] == "29991231_235959_999999_00"
    assert [Path(str(b["path"])).read_text() for b in list_backups(str(f))][:3] == [
        "n=3\n",
        "n=2\n",
        "n=1\n",
    ]
