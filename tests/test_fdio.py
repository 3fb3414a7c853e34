"""fdio.prune_newest_first: the one way a bounded directory drops what is beyond its bounds;
fdio.prune_files, over a flat directory of files; fdio.PendingFile, the one lifecycle of a
file that appears only once complete (snapshots and backups write through it)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from diffchunk.fdio import PendingFile, prune_files, prune_newest_first


def _prune(sizes: list[int], **bounds: object) -> list[str]:
    entries = [(size, f"e{i}") for i, size in enumerate(sizes)]  # e0 is the newest
    return prune_newest_first(entries, lambda entry: entry != "stuck", **bounds)  # type: ignore[arg-type]


def test_the_newest_stay_within_the_count_and_the_bytes() -> None:
    assert _prune([1, 1, 1, 1], max_count=2) == ["e2", "e3"]
    assert _prune([5, 5, 5], max_bytes=10) == ["e2"]
    assert _prune([5, 5, 5], max_bytes=10, used=5) == ["e1", "e2"]  # a write under way counts


def test_what_is_spared_counts_and_stays() -> None:
    assert _prune([1, 1, 1], max_count=1, spare=("e2",)) == ["e1"]
    assert _prune([1, 1, 1], max_count=1, spare=("e0",)) == ["e1", "e2"]


def test_the_least_newest_stay_whatever_their_size_and_stale_ones_go() -> None:
    assert _prune([50, 5], max_bytes=10) == ["e0"]
    assert _prune([50, 5], max_bytes=10, least=1) == ["e1"]
    assert _prune([1, 1, 1], stale=lambda entry: entry == "e0") == ["e0"]


def test_only_what_was_removed_no_longer_counts() -> None:
    entries = [(5, "stuck"), (5, "e1"), (5, "e2")]
    assert prune_newest_first(entries, lambda entry: entry != "stuck", max_bytes=5) == ["e1", "e2"]


def test_prune_files_keeps_the_newest_and_the_one_kept(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"f{i}.diff").write_bytes(b"x" * 10)
        os.utime(tmp_path / f"f{i}.diff", (1000 + i, 1000 + i))
    (tmp_path / ".f9.diff").write_bytes(b"a write under way")
    (tmp_path / "other.txt").write_bytes(b"not ours")
    removed = prune_files(tmp_path, tmp_path / "f0.diff", max_count=2, suffix=".diff")
    assert sorted(Path(p).name for p in removed) == ["f1.diff", "f2.diff"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".f9.diff",
        "f0.diff",
        "f3.diff",
        "f4.diff",
        "other.txt",
    ]
    prune_files(tmp_path, tmp_path / "f0.diff", max_bytes=5, stale=lambda p, t: True)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".f9.diff", "f0.diff"]


def test_a_pending_file_appears_only_when_committed(tmp_path: Path) -> None:
    pending = PendingFile.named(str(tmp_path), lambda: "tmp-1")
    os.write(pending.fd, b"whole")
    assert stat.S_IMODE(os.fstat(pending.fd).st_mode) == 0o600
    target = tmp_path / "done"
    assert pending.commit(str(target), mode=0o444) and target.read_bytes() == b"whole"
    assert stat.S_IMODE(target.stat().st_mode) == 0o444
    pending.discard()  # after a commit: nothing more
    assert sorted(p.name for p in tmp_path.iterdir()) == ["done"]
    again = PendingFile(str(tmp_path / "tmp-2"))
    os.write(again.fd, b"other")
    assert not again.commit(str(target), keep_existing=True)  # the same content is there
    assert target.read_bytes() == b"whole" and sorted(p.name for p in tmp_path.iterdir()) == [
        "done"
    ]
    stays = PendingFile(str(tmp_path / "reserved"))
    assert stays.commit() and (tmp_path / "reserved").exists()
    stays.discard()
    assert (tmp_path / "reserved").exists()


def test_a_pending_file_never_takes_a_name_and_a_failed_commit_leaves_nothing(
    tmp_path: Path,
) -> None:
    (tmp_path / "taken").write_bytes(b"theirs")
    with pytest.raises(FileExistsError):
        PendingFile(str(tmp_path / "taken"))
    with pytest.raises(FileExistsError, match="no free temporary name"):
        PendingFile.named(str(tmp_path), lambda: "taken")
    assert (tmp_path / "taken").read_bytes() == b"theirs"
    pending = PendingFile(str(tmp_path / "tmp"))
    with pytest.raises(OSError):
        pending.commit(str(tmp_path / "missing" / "target"))
    pending.discard()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_snapshots_and_backups_make_their_files_through_pending_file() -> None:
    """One lifecycle: neither writer creates a file of its own with O_EXCL any more."""
    import diffchunk.files.backups as backups
    import diffchunk.snapshots as snapshots

    for module in (backups, snapshots):
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
        assert "PendingFile" in source and "os.O_EXCL" not in source, module.__name__
