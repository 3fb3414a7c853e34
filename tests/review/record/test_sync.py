"""One review record for two reviewers on two clones, through a bare remote: concurrent
writes synced in both orders, twice, leave equal and complete records; logs a hostile
remote holds are refused; export and import round trip; the pre-push hook syncs.

Each reviewer is a record and a cache of their own (DIFFCHUNK_STATE_DIR) and a name
(DIFFCHUNK_REVIEWER), as on two machines; git is real, the remote a local bare repository.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gitrepo import git, run_git, write_files
from incrementalkit import five_files
from recordkit import run_cli

from diffchunk.errors import GitError, RecordLogRefused
from diffchunk.git.repo import discover
from diffchunk.review import record as core
from diffchunk.review.incremental.load import load_git_diff
from diffchunk.review.push_hook import install
from diffchunk.review.record import exchange, oplog
from diffchunk.review.record.store import default_record
from diffchunk.review.record.sync import sync

REVIEWERS = ("ada", "bob")


def _build_team(path: Path) -> Path:
    """``path/origin`` (five_files), its bare clone ``remote.git`` and a clone of that for
    each reviewer, with ``feature`` checked out and ``main`` beside it."""
    origin = five_files(path / "origin")
    remote = path / "remote.git"
    run_git(path, "clone", "-q", "--bare", str(origin), str(remote))
    for name in REVIEWERS:
        clone = path / name
        run_git(path, "clone", "-q", str(remote), str(clone))
        git(clone, "checkout", "-q", "feature")
        git(clone, "branch", "-q", "main", "origin/main")
    return path


_TEAM: list[Path] = []  # the team built once in this process, copied for each test


@pytest.fixture
def team(tmp_path: Path) -> dict[str, Path]:
    """A bare remote of five_files and two clones of it, each with main and feature: the
    process's team copied (a tenth of the git commands that build one), each clone's
    ``origin`` pointed at the copy's own remote."""
    if not _TEAM or not _TEAM[0].is_dir():
        _TEAM[:] = [_build_team(Path(tempfile.mkdtemp(prefix="sync-team-")))]
    shutil.copytree(_TEAM[0], tmp_path, symlinks=True, dirs_exist_ok=True)
    remote = tmp_path / "remote.git"
    clones = {name: tmp_path / name for name in REVIEWERS}
    for clone in clones.values():
        git(clone, "remote", "set-url", "origin", str(remote))
        git(clone, "update-index", "-q", "--refresh")
    return {"remote": remote, **clones}


@contextlib.contextmanager
def reviewer(name: str, tmp_path: Path) -> Iterator[None]:
    """Act as ``name``: their record, cache and name."""
    saved = {
        k: os.environ.get(k)
        for k in ("DIFFCHUNK_STATE_DIR", "DIFFCHUNK_CACHE_DIR", "DIFFCHUNK_REVIEWER")
    }
    os.environ["DIFFCHUNK_STATE_DIR"] = str(tmp_path / f"state-{name}")
    os.environ["DIFFCHUNK_CACHE_DIR"] = str(tmp_path / f"cache-{name}")
    os.environ["DIFFCHUNK_REVIEWER"] = name
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _load(clone: Path) -> str:
    return load_git_diff(str(clone), "main..feature").file_path


def state(clone: Path) -> dict[str, Any]:
    """What a record holds of the review of main..feature, by uid (not by local id)."""
    review = core.review_status(_load(clone)).review.id

    def read(conn: Any) -> dict[str, Any]:
        findings = {}
        for row in conn.execute("SELECT * FROM findings WHERE review_id = ?", (review,)):
            thread = [
                (c["author"], c["body"], c["status"])
                for c in conn.execute(
                    "SELECT * FROM finding_comments WHERE finding_id = ? "
                    "ORDER BY clock, coalesce(uid, ''), id",
                    (row["id"],),
                )
            ]
            findings[row["uid"]] = (
                row["file_path"],
                row["line"],
                row["status"],
                row["severity"],
                row["message"],
                row["author"],
                thread,
            )
        marks = sorted(
            tuple(r)
            for r in conn.execute(
                "SELECT path, scope, change_id, author FROM marks WHERE review_id = ? "
                "AND kind = 'reviewed'",
                (review,),
            )
        )
        return {"findings": findings, "marks": marks}

    return default_record().read(read)


def _ops(clone: Path) -> list[str]:
    lines = exchange.export_log(str(clone)).decode().splitlines()[1:]
    return sorted(lines)


def test_two_reviewers_writing_at_once_and_syncing_in_both_orders_twice_agree(
    team: dict[str, Path], tmp_path: Path
) -> None:
    ada, bob = team["ada"], team["bob"]
    with reviewer("ada", tmp_path):
        a = _load(ada)
        core.mark_reviewed(a, file_pattern="f1.py")
        core.mark_reviewed(a, file_pattern="f2.py")
        shared = core.add_finding(a, "f1.py", "f1 ten is off by one", line=10).finding.id
        core.add_finding(a, "f3.py", "f3 ten needs a test", line=10, severity="minor")
    with reviewer("bob", tmp_path):
        b = _load(bob)
        core.mark_reviewed(b, file_pattern="f2.py")
        core.mark_reviewed(b, file_pattern="f4.py")
        mine = core.add_finding(b, "f4.py", "f4 ten leaks a handle", line=10).finding.id
        core.update_finding(b, mine, comment="Seen in production too.")
    # Round one: ada, bob, ada.
    for name, clone in (("ada", ada), ("bob", bob), ("ada", ada)):
        with reviewer(name, tmp_path):
            assert sync(str(clone)).refused == ()
    with reviewer("ada", tmp_path):
        first_ada = state(ada)
    with reviewer("bob", tmp_path):
        first_bob = state(bob)
    assert first_ada == first_bob
    assert len(first_ada["findings"]) == 3
    assert {m[3] for m in first_ada["marks"]} == {"ada", "bob"} and len(first_ada["marks"]) == 4
    # Round two: both change the same finding at once, and more; then bob, ada, bob.
    with reviewer("ada", tmp_path):
        a = _load(ada)
        core.update_finding(a, shared, status="dismissed", comment="Intended.")
        core.mark_reviewed(a, file_pattern="f2.py", reviewed=False)  # both marks taken back
        theirs = core.list_findings(a, author="bob").findings[0].id
        core.update_finding(a, theirs, severity="blocker")
    with reviewer("bob", tmp_path):
        b = _load(bob)
        same = next(f.id for f in core.list_findings(b).findings if f.file_path == "f1.py")
        core.update_finding(b, same, status="resolved", comment="Fixed in f1.")
        core.mark_reviewed(b, file_pattern="f5.py")
    for name, clone in (("bob", bob), ("ada", ada), ("bob", bob)):
        with reviewer(name, tmp_path):
            sync(str(clone))
    with reviewer("ada", tmp_path):
        final_ada, ops_ada = state(ada), _ops(ada)
        assert sync(str(ada)).applied.new == 0  # idempotent
        assert state(ada) == final_ada
    with reviewer("bob", tmp_path):
        final_bob, ops_bob = state(bob), _ops(bob)
    assert ops_ada == ops_bob
    assert final_ada == final_bob
    # Complete: every write is there, and the concurrent status changes resolve by
    # (clock, id), the same on both.
    by_file = {f[0]: f for f in final_ada["findings"].values()}
    assert by_file["f4.py"][3] == "blocker"
    assert [t[1] for t in by_file["f1.py"][6]] == sorted(
        ["Intended.", "Fixed in f1."],
        key=lambda body: _clock_of_comment(ops_ada, body),
    )
    updates = [json.loads(line) for line in ops_ada if '"op":"update"' in line]
    f1_uid = next(u for u, f in final_ada["findings"].items() if f[0] == "f1.py")
    statuses = [u for u in updates if u["finding"] == f1_uid and "status" in u]
    winner = max(statuses, key=lambda u: (u["clock"], u["id"]))
    assert by_file["f1.py"][2] == winner["status"]
    assert {(m[0], m[3]) for m in final_ada["marks"] if m[1] == "file"} == {
        ("f1.py", "ada"),
        ("f4.py", "bob"),
        ("f5.py", "bob"),
    }


def _clock_of_comment(lines: list[str], body: str) -> tuple[int, str]:
    for line in lines:
        op = json.loads(line)
        if op["op"] == "comment" and op["body"] == body:
            return op["clock"], op["id"]
    raise AssertionError(body)


def test_a_glob_mark_is_logged_one_operation_a_file_and_taken_back_on_every_clone(
    team: dict[str, Path], tmp_path: Path
) -> None:
    # A glob's marks are written in bulk: their operations too, one a file, each its clock.
    with reviewer("ada", tmp_path):
        a = _load(team["ada"])
        core.mark_reviewed(a, file_pattern="**")
        core.mark_reviewed(a, file_pattern="**")  # nothing new: nothing logged again
        reviewed = core.review_status(a).totals.reviewed
        ops = [json.loads(line) for line in _ops(team["ada"]) if '"op":"mark"' in line]
        assert reviewed >= 3 and len(ops) == reviewed
        assert len({op["path"] for op in ops}) == reviewed
        assert len({op["clock"] for op in ops}) == reviewed
        assert {(op["author"], op["on"], op["scope"]) for op in ops} == {("ada", True, "file")}
        sync(str(team["ada"]))
    with reviewer("bob", tmp_path):
        b = _load(team["bob"])
        sync(str(team["bob"]))
        assert core.review_status(b).totals.reviewed == reviewed
        core.mark_reviewed(b, file_pattern="**", reviewed=False)  # ada's marks taken back
        assert core.review_status(b).totals.reviewed == 0
        sync(str(team["bob"]))
    with reviewer("ada", tmp_path):
        sync(str(team["ada"]))
        assert state(team["ada"])["marks"] == []
        assert core.review_status(_load(team["ada"])).totals.reviewed == 0


def test_review_status_after_a_sync_gives_both_reviewers(
    team: dict[str, Path], tmp_path: Path
) -> None:
    with reviewer("ada", tmp_path):
        core.mark_reviewed(_load(team["ada"]), file_pattern="f1.py")
        sync(str(team["ada"]))
    with reviewer("bob", tmp_path):
        b = _load(team["bob"])
        core.mark_reviewed(b, file_pattern="f2.py")
        sync(str(team["bob"]))
        status = core.review_status(b).to_dict()
    assert status["reviewers"] == {
        "ada": {"reviewed": 1, "findings": 0},
        "bob": {"reviewed": 1, "findings": 0},
    }
    assert status["totals"]["reviewed"] == 2


def test_a_clone_that_never_loaded_the_range_gets_the_review_and_its_findings_anchor(
    team: dict[str, Path], tmp_path: Path
) -> None:
    with reviewer("ada", tmp_path):
        core.add_finding(_load(team["ada"]), "f2.py", "f2 ten is wrong", line=10)
        sync(str(team["ada"]))
    with reviewer("bob", tmp_path):
        sync(str(team["bob"]))  # before any load here
        found = core.list_findings(_load(team["bob"])).to_dict()["findings"]
    assert [(f["file_path"], f["line"], f["chunk"], f["author"]) for f in found] == [
        ("f2.py", 10, 1, "ada")
    ]


# --------------------------------------------------------------------------
# A hostile remote
# --------------------------------------------------------------------------


def _plant(team: dict[str, Path], name: str, content: bytes) -> None:
    """Push a log ``content`` under refs/diffchunk/log/NAME to the remote, as anyone could."""
    ada = team["ada"]
    blob = (
        subprocess.run(
            ["git", "-C", str(ada), "hash-object", "-w", "--stdin"],
            input=content,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    tree = (
        subprocess.run(
            ["git", "-C", str(ada), "mktree"],
            input=f"100644 blob {blob}\tops.jsonl\n".encode(),
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    commit = git(ada, "commit-tree", tree, "-m", "x")
    git(ada, "push", "-q", str(team["remote"]), f"+{commit}:refs/diffchunk/log/{name}")


HEADER = b'{"format":"diffchunk-record","repository":"x","version":1}\n'
BASE_OP: dict[str, Any] = {
    "v": 1,
    "id": "a" * 32,
    "clock": 1,
    "review": "b" * 32,
    "author": "eve",
    "at": "",
}


# Logs anyone could push, and why each is refused.
HOSTILE_LOGS: list[tuple[bytes, str]] = [
    (b"not json at all\n", "line 1 is not JSON"),
    (b'{"format": "other"}\n', "first line is not a diffchunk-record header"),
    (HEADER + b"{nope\n", "line 2 is not JSON"),
    (
        HEADER
        + json.dumps(
            {
                **BASE_OP,
                "op": "mark",
                "path": "../../etc/passwd",
                "scope": "file",
                "change_id": "c",
                "on": True,
            }
        ).encode(),
        "is not a path inside the repository",
    ),
    (HEADER + json.dumps({**BASE_OP, "op": "drop_table"}).encode(), "unknown operation"),
    (
        HEADER
        + json.dumps(
            {**BASE_OP, "op": "update", "finding": "c" * 32, "status": "open", "clock": -4}
        ).encode(),
        "clock -4",
    ),
    (b"\xff\xfe" + HEADER, "not UTF-8"),
    # the largest clock a record takes, less one: its reader's next operation would be
    # past it, and every sync and export of the reader refused from then on
    (
        HEADER
        + json.dumps(
            {**BASE_OP, "op": "update", "finding": "c" * 32, "status": "open", "clock": 2**53 - 1}
        ).encode(),
        "clock 9007199254740991 is beyond any honest one",
    ),
]


def test_a_hostile_log_is_refused_whole_and_the_others_applied(
    team: dict[str, Path], tmp_path: Path
) -> None:
    """Every hostile log at once, each under a name of its own: each is refused with its
    reason, and bob's log beside them is applied (one sync, where a sync for each log
    proved the same seven times over)."""
    with reviewer("bob", tmp_path):
        core.add_finding(_load(team["bob"]), "f4.py", "f4 ten leaks", line=10)
        sync(str(team["bob"]))
    names = [f"{k:x}" * 32 for k in range(len(HOSTILE_LOGS))]
    for name, (content, _) in zip(names, HOSTILE_LOGS, strict=True):
        _plant(team, name, content)
    with reviewer("ada", tmp_path):
        result = sync(str(team["ada"]))
        assert len(result.refused) == len(HOSTILE_LOGS), result.refused
        for name, (_, why) in zip(names, HOSTILE_LOGS, strict=True):
            said = [r for r in result.refused if f"refs/diffchunk/log/{name}" in r]
            assert len(said) == 1 and why in said[0], (why, result.refused)
        assert core.list_findings(_load(team["ada"])).total == 1  # bob's, applied
        cli = run_cli("sync", cwd=team["ada"])
    assert cli.returncode == 1 and "Refused:" in cli.stderr


def test_a_log_too_large_or_badly_named_is_refused_unread(
    team: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diffchunk.review.record import sync as sync_module

    _plant(team, "f" * 32, HEADER + b"x" * 5000)
    _plant(team, "not-hex", HEADER)
    monkeypatch.setattr(sync_module, "SYNC_LOG_MAX_BYTES", 4096)
    with reviewer("ada", tmp_path):
        refused = sync(str(team["ada"])).refused
    assert len(refused) == 2
    assert any("5,0" in r and "at most 4,096" in r for r in refused), refused
    assert any("its name is not one diffchunk gives" in r for r in refused), refused


def test_a_log_whose_ops_file_is_a_tree_is_refused_and_the_others_applied(
    team: dict[str, Path], tmp_path: Path
) -> None:
    with reviewer("bob", tmp_path):
        core.add_finding(_load(team["bob"]), "f4.py", "f4 ten leaks", line=10)
        sync(str(team["bob"]))
    ada = team["ada"]
    inner = git(ada, "rev-parse", "HEAD^{tree}")
    tree = (
        subprocess.run(
            ["git", "-C", str(ada), "mktree"],
            input=f"040000 tree {inner}\tops.jsonl\n".encode(),
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    commit = git(ada, "commit-tree", tree, "-m", "x")
    git(ada, "push", "-q", str(team["remote"]), f"{commit}:refs/diffchunk/log/{'e' * 32}")
    with reviewer("ada", tmp_path):
        refused = sync(str(ada)).refused
        assert len(refused) == 1 and "holds no ops.jsonl" in refused[0], refused
        assert core.list_findings(_load(ada)).total == 1  # bob's, applied


def test_a_message_with_a_unicode_line_separator_syncs(
    team: dict[str, Path], tmp_path: Path
) -> None:
    """JSON keeps U+2028, U+2029 and U+0085 raw in a string: a log splits at newlines only."""
    message = "first\u2028second\u2029third\x85fourth\x1cfifth"
    with reviewer("bob", tmp_path):
        core.add_finding(_load(team["bob"]), "f4.py", message, line=10)
        sync(str(team["bob"]))
    with reviewer("ada", tmp_path):
        assert sync(str(team["ada"])).refused == ()
        found = core.list_findings(_load(team["ada"])).findings
        assert [f.message for f in found] == [message]


def _review_log(k: int) -> bytes:
    op = {**BASE_OP, "id": f"{k:x}" * 32, "review": f"{k:x}" * 32, "op": "review"}
    return HEADER + json.dumps({**op, "range": "main..feature", "keys": []}).encode() + b"\n"


@pytest.mark.parametrize("limit", ["SYNC_LOGS_MAX", "SYNC_READ_MAX_BYTES"])
def test_logs_beyond_one_syncs_share_are_read_by_the_next_sync(
    team: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: str
) -> None:
    from diffchunk.review.record import sync as sync_module

    for k in (1, 2):
        _plant(team, f"{k:x}" * 32, _review_log(k))
    monkeypatch.setattr(sync_module, limit, 1 if limit == "SYNC_LOGS_MAX" else 300)
    with reviewer("ada", tmp_path):
        first = sync(str(team["ada"]))
        assert first.logs == 1 and len(first.refused) == 1, first
        assert "1 more review logs were left for the next sync" in first.refused[0]
        second = sync(str(team["ada"]))
        assert (second.logs, second.applied.new, second.refused) == (1, 1, ())
        assert sync(str(team["ada"])).logs == 0


def test_a_refused_log_is_read_again_only_when_it_moves(
    team: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused logs that do not move leave each sync's share of logs to the others: two
    invalid logs filling a share of two kept the valid one after them out for good."""
    from diffchunk.review.record import sync as sync_module

    for k in (1, 2):
        _plant(team, f"{k:x}" * 32, b"not json at all\n")
    _plant(team, "3" * 32, _review_log(3))
    monkeypatch.setattr(sync_module, "SYNC_LOGS_MAX", 2)
    with reviewer("ada", tmp_path):
        first = sync(str(team["ada"]))
        assert first.logs == 0 and len(first.refused) == 3, first.refused
        assert "1 more review logs were left for the next sync" in first.refused[2]
        second = sync(str(team["ada"]))
        assert (second.logs, second.applied.new) == (1, 1), second
        assert len(second.refused) == 1, second.refused
        assert second.refused[0].startswith("2 review logs refused at earlier syncs"), second
        assert "line 1 is not JSON" in second.refused[0]
        _plant(team, "1" * 32, _review_log(1))  # the refused log moves: it is read again
        third = sync(str(team["ada"]))
        assert (third.logs, third.applied.new) == (1, 1), third
        assert len(third.refused) == 1 and "refs/diffchunk/log/" + "2" * 32 in third.refused[0]
        assert "Refused at an earlier sync" in third.refused[0]


def test_many_badly_named_logs_are_refused_in_one_line_without_a_git_each(
    team: dict[str, Path], tmp_path: Path
) -> None:
    for name in ("not-hex", "x/y", "zz"):
        _plant(team, name, _review_log(1))
    _plant(team, "1" * 32, _review_log(1))
    with reviewer("ada", tmp_path):
        result = sync(str(team["ada"]))
    assert result.logs == 1 and len(result.refused) == 1, result.refused
    assert "(and 2 more) was refused: its name is not one" in result.refused[0]


def test_a_remote_sending_more_than_the_fetch_bound_is_stopped_and_nothing_kept(
    team: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log of 3 MiB that does not compress, under a bound of 1 MiB: the fetch is stopped
    at the bound (the kernel's file size limit on git's pack), refused in words, and
    leaves nothing in the sync repository; once the ref is gone, sync works."""
    from diffchunk.git.transport import sync_git_dir
    from diffchunk.review.record import sync as sync_module

    bound = 1 << 20
    _plant(team, "e" * 32, os.urandom(3 * bound))
    monkeypatch.setattr(sync_module, "SYNC_FETCH_MAX_BYTES", bound)
    with reviewer("ada", tmp_path):
        with pytest.raises(GitError, match="the remote sent more than 1,048,576 bytes") as info:
            sync(str(team["ada"]))
        assert "git push REMOTE --delete REF" in str(info.value)
        packs = Path(sync_git_dir(discover(str(team["ada"])).common_dir)) / "objects" / "pack"
        kept = {p.name: p.stat().st_size for p in packs.iterdir()} if packs.exists() else {}
        assert sum(kept.values()) < bound and not any(n.startswith("tmp") for n in kept), kept
        git(team["remote"], "update-ref", "-d", "refs/diffchunk/log/" + "e" * 32)
        assert sync(str(team["ada"])).refused == ()


def test_a_sync_while_another_fetches_is_refused_and_leaves_its_pack_alone(
    team: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another sync's fetch under way (its lock held, its pack half-written): a sync whose
    fetch fails removed every partial pack, that one's too, and said the remote sent too
    much for its size; it is refused before its fetch, and the next one works."""
    import fcntl

    from diffchunk.git.transport import FETCH_LOCK, sync_git_dir
    from diffchunk.review.record import sync as sync_module

    bound = 1 << 20
    _plant(team, "e" * 32, os.urandom(3 * bound))
    monkeypatch.setattr(sync_module, "SYNC_FETCH_MAX_BYTES", bound)
    with reviewer("ada", tmp_path):
        git_dir = Path(sync_git_dir(discover(str(team["ada"])).common_dir))
        with pytest.raises(GitError):
            sync(str(team["ada"]))  # makes the sync repository; refused: the log is too large
        other = git_dir / "objects" / "pack" / "tmp_pack_other"
        other.write_bytes(b"P" * (2 * bound))  # another fetch's pack, under way
        with open(git_dir / FETCH_LOCK, "a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            with pytest.raises(GitError, match="another sync of this repository is fetching"):
                sync(str(team["ada"]))
            assert other.stat().st_size == 2 * bound
        other.unlink()
        git(team["remote"], "update-ref", "-d", "refs/diffchunk/log/" + "e" * 32)
        assert sync(str(team["ada"])).refused == ()


def test_sync_runs_no_program_the_repositorys_config_or_hooks_name(
    team: dict[str, Path], tmp_path: Path
) -> None:
    """Sync's git runs in diffchunk's own repository: the reviewed one's transport keys,
    URL rewrites and hooks are never read, and an ``ext::`` remote is git's to refuse."""
    marks = tmp_path / "marks"
    marks.mkdir()
    ada = team["ada"]
    program = {
        "remote.origin.uploadpack": f"touch {marks}/uploadpack; git-upload-pack",
        "remote.origin.receivepack": f"touch {marks}/receivepack; git-receive-pack",
        "core.sshCommand": f"touch {marks}/ssh",
        "core.askPass": f"touch {marks}/askpass",
        "credential.helper": f"!touch {marks}/credential",
        f"url.ext::sh -c touch% {marks}/insteadof.insteadOf": str(team["remote"]),
        "remote.evil.url": f"ext::sh -c touch% {marks}/ext",
    }
    for key, value in program.items():
        git(ada, "config", key, value)
    hook = ada / ".git" / "hooks" / "pre-push"
    hook.write_text(f"#!/bin/sh\ntouch {marks}/pre-push\n")
    hook.chmod(0o755)
    with reviewer("ada", tmp_path):
        core.add_finding(_load(ada), "f4.py", "f4 ten leaks", line=10)
        assert sync(str(ada)).published == 2  # the review and its finding
        with pytest.raises(GitError, match="not allowed"):
            sync(str(ada), "evil")
    assert sorted(p.name for p in marks.iterdir()) == []
    assert "refs/diffchunk/log/" in git(team["remote"], "for-each-ref", "refs/diffchunk")


def test_parse_bounds_the_log_before_reading_it() -> None:
    with pytest.raises(RecordLogRefused, match="at most"):
        oplog.parse(b"x" * (oplog.SYNC_LOG_MAX_BYTES + 1), "t")


# --------------------------------------------------------------------------
# Export and import
# --------------------------------------------------------------------------


def test_record_export_and_import_round_trip(team: dict[str, Path], tmp_path: Path) -> None:
    log = tmp_path / "review-log.jsonl"
    with reviewer("ada", tmp_path):
        a = _load(team["ada"])
        core.mark_reviewed(a, file_pattern="f1.py")
        found = core.add_finding(a, "f3.py", "f3 ten", line=10).finding.id
        core.update_finding(a, found, status="dismissed", comment="no")
        done = run_cli("record", "export", "--out", str(log), cwd=team["ada"])
        assert done.returncode == 0, done.stderr
        before = state(team["ada"])
        again = run_cli("record", "import", str(log), cwd=team["ada"])
        assert "0 new" in again.stdout, again.stdout  # its own log changes nothing
    header = json.loads(log.read_text().splitlines()[0])
    # A local remote is no public name: the directory names the repository.
    assert header == {"format": "diffchunk-record", "repository": "ada", "version": 1}
    assert str(tmp_path) not in log.read_text()  # local paths stay local
    with reviewer("bob", tmp_path):
        imported = run_cli("record", "import", str(log), cwd=team["bob"])
        assert imported.returncode == 0, imported.stderr
        assert state(team["bob"]) == before
        assert "0 new" in run_cli("record", "import", str(log), cwd=team["bob"]).stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(HEADER + b"[1]\n")
    refused = run_cli("record", "import", str(bad), cwd=team["bob"])
    assert refused.returncode == 1 and "is a JSON object" in refused.stderr


# --------------------------------------------------------------------------
# The pre-push hook
# --------------------------------------------------------------------------


def test_the_pre_push_hook_syncs_when_asked(team: dict[str, Path], tmp_path: Path) -> None:
    import diffchunk

    ada = team["ada"]
    env = {
        "PYTHONPATH": str(Path(diffchunk.__file__).resolve().parents[1]),
        "DIFFCHUNK_STATE_DIR": str(tmp_path / "state-ada"),
        "DIFFCHUNK_CACHE_DIR": str(tmp_path / "cache-ada"),
        "DIFFCHUNK_REVIEWER": "ada",
    }
    with reviewer("ada", tmp_path):
        core.add_finding(_load(ada), "f1.py", "f1 ten", line=10)
        install(discover(str(ada)), python=sys.executable)
    write_files(ada, {"f5.py": "changed\n"})
    git(ada, "commit", "-qam", "more")
    pushed = run_git(ada, "push", "origin", "feature", env=env, check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert "review record synced" not in pushed.stdout + pushed.stderr  # not asked
    git(ada, "config", "diffchunk.sync", "true")
    write_files(ada, {"f5.py": "changed again\n"})
    git(ada, "commit", "-qam", "more")
    pushed = run_git(ada, "push", "origin", "feature", env=env, check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert "review record synced with origin" in pushed.stdout + pushed.stderr
    refs = git(team["remote"], "for-each-ref", "--format=%(refname)", "refs/diffchunk/")
    assert refs.startswith("refs/diffchunk/log/")
    with reviewer("bob", tmp_path):
        sync(str(team["bob"]))
        messages = [f.message for f in core.list_findings(_load(team["bob"])).findings]
    assert messages == ["f1 ten"]


def test_the_command_line_does_not_say_a_second_sync_published_anything(
    team: dict[str, Path], tmp_path: Path
) -> None:
    """Syncing again changes nothing: its line says what the remote holds, not that the
    whole log was published once more."""
    with reviewer("ada", tmp_path):
        core.add_finding(_load(team["ada"]), "f4.py", "f4 ten leaks", line=10)
        first = run_cli("sync", cwd=team["ada"])
        again = run_cli("sync", cwd=team["ada"])
    assert first.returncode == 0 and again.returncode == 0, again.stderr
    assert "0 new operation(s) applied" in again.stdout
    assert "published" not in again.stdout and "your log there holds" in again.stdout


def test_the_housekeeping_a_fetch_starts_runs_without_the_fetch_bound(
    team: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two logs of 600 KiB each under a bound of 1 MiB a fetch: each fetch fits, but the
    repack git's housekeeping makes of both after the second (the sync repository at its
    pack limit) does not.  Run by the fetch, it ran under the fetch's file size limit: it
    was killed at the bound every time and left its temporary pack behind.  It runs after
    the fetch, unbounded: one pack, nothing left over."""
    from diffchunk.git.transport import sync_git_dir
    from diffchunk.review.record import sync as sync_module

    bound = 1 << 20
    monkeypatch.setattr(sync_module, "SYNC_FETCH_MAX_BYTES", bound)
    with reviewer("ada", tmp_path):
        _plant(team, "a" * 32, os.urandom(600 << 10))
        sync(str(team["ada"]))
        git_dir = Path(sync_git_dir(discover(str(team["ada"])).common_dir))
        # At its pack limit, and housekeeping in the foreground (git detaches it
        # otherwise: the leftovers then come later, not at all in this test).
        git(git_dir, "config", "gc.autoPackLimit", "1")
        git(git_dir, "config", "gc.autoDetach", "false")
        _plant(team, "b" * 32, os.urandom(600 << 10))
        sync(str(team["ada"]))
        packs = git_dir / "objects" / "pack"
        names = sorted(p.name for p in packs.iterdir())
        assert not [n for n in names if "tmp" in n], names
        assert len([n for n in names if n.endswith(".pack")]) == 1, names
