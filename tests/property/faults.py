"""Fault runs for the file edits: SIGKILL mid-edit and concurrent writers.

    python -m tests.property.faults [--kills 100] [--size-mb 50] [--seed 1234]
                                    [--writers 2,8] [--edits 100] [--dir DIR]

``--kills N``: a child process edits a ~50 MB file over and over (flipping a
marker line between two known contents, A and B) and is killed with SIGKILL
at a random moment within the measured edit time.  After each kill the file
must be byte-identical to A or B, every backup the child reported must exist,
be listed and hold exactly the content it saved, and the next edit must
succeed (leftover temporary files may not get in its way).

``--writers P --edits E``: P processes each bump their own counter line E
times in one shared file: no update lost, the file intact, one distinct
complete backup per edit.

``--appends E``: another process appends numbered lines to the file while
E edits flip a marker line at its head: opening the file for each line (as
``echo >> file`` does), opening it and writing a moment later (a writer
that opened the file before the rename), keeping it open (a running
logger).  Every line written must be in the file or in the ``late_write``
side file an edit reported (lines written, found, reported, lost); with
the file kept open, the edits are refused and nothing is replaced.

Prints one line per check and ``N passed, N failed``; exits 1 on a failure.
The suite (``tests/test_faults.py``, ``tests/files/test_concurrency.py``)
runs the same code with fewer rounds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import random
import re
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.property.forks import Forks

REPO = Path(__file__).resolve().parents[2]
SEED = 1234
MARKER = "\nstate: {}\n"


def _other(state: str) -> str:
    return "B" if state == "A" else "A"


def make_contents(size: int) -> tuple[bytes, bytes]:
    """Two ~``size``-byte contents that differ only in their marker line."""
    line_count = max(size // 48, 2)
    body = b"".join(
        b"%08d payload payload payload payload payload\n" % i for i in range(line_count)
    )
    half = body.index(b"\n", len(body) // 2) + 1
    a = body[:half] + b"state: A\n" + body[half:]
    b = body[:half] + b"state: B\n" + body[half:]
    return a, b


def _flip(path: str, state: str) -> dict[str, object]:
    from diffchunk.files.edit import edit_content

    marker = MARKER.format(state)
    flipped = MARKER.format(_other(state))
    return edit_content(
        path, [{"search": marker, "replace": flipped}], fuzzy=False, preview=False
    ).to_dict()


def child(path: str, state: str) -> None:
    """Flip the marker forever; after each edit print the backup and what it saved."""
    from diffchunk.files import edit  # noqa: F401  (imported before "ready")

    print("ready", flush=True)
    while True:
        result = _flip(path, state)
        if not result["success"]:
            print(json.dumps({"error": result}), flush=True)
            sys.exit(1)
        print(json.dumps({"backup": result["backup_created"], "of": state}), flush=True)
        state = _other(state)


@dataclass
class Outcome:
    passed: int = 0
    failed: int = 0
    messages: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def check(self, ok: bool, message: str) -> None:
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            self.messages.append(message)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_sha(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(8 * 1024 * 1024):
            digest.update(block)
    return digest.hexdigest()


def _temps(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".diffchunk-" in p.name)


def _backup_orphans(root: Path) -> list[str]:
    """Backup data without metadata, or temporary pieces, in ``root``."""
    names = {p.name for p in root.iterdir() if p.is_file()}
    return sorted(
        name
        for name in names
        if name.endswith((".tmp", ".link"))
        or (not name.endswith(".json") and name + ".json" not in names)
    )


def sigkill_rounds(
    workdir: Path, kills: int, *, size: int = 50 * 1024 * 1024, seed: int = SEED
) -> Outcome:
    """Kill an editing child ``kills`` times; check the file and backups after each."""
    rng = random.Random(seed)
    outcome = Outcome()
    target_dir = workdir / "target"
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / "big.log"
    content_a, content_b = make_contents(size)
    shas = {"A": _sha(content_a), "B": _sha(content_b)}
    target.write_bytes(content_a)
    del content_a, content_b
    env = dict(os.environ)
    env["DIFFCHUNK_BACKUP_DIR"] = str(workdir / "backups")
    env["DIFFCHUNK_BACKUP_KEEP"] = "12"
    env["PYTHONPATH"] = str(REPO)
    saved_env = {k: os.environ.get(k) for k in ("DIFFCHUNK_BACKUP_DIR", "DIFFCHUNK_BACKUP_KEEP")}
    os.environ["DIFFCHUNK_BACKUP_DIR"] = env["DIFFCHUNK_BACKUP_DIR"]
    os.environ["DIFFCHUNK_BACKUP_KEEP"] = env["DIFFCHUNK_BACKUP_KEEP"]
    try:
        # Measure one edit in this process: the kill delays are drawn from it.
        started = time.perf_counter()
        first = _flip(str(target), "A")
        duration = time.perf_counter() - started
        outcome.check(bool(first["success"]), f"the calibration edit failed: {first}")
        state = "B"
        outcome.notes.append(f"one edit of {size / 1e6:.0f} MB takes {duration:.3f} s")
        killed_with_temp = 0
        seen: set[str] = set()
        with Forks(["tests.property.faults", "diffchunk.files.edit"], env, REPO) as forks:
            for round_no in range(1, kills + 1):
                reports = _kill_child(forks, target, state, rng, duration)
                if isinstance(reports, bytes):
                    outcome.check(False, f"round {round_no}: the child did not start: {reports!r}")
                    continue
                where = f"round {round_no} ({len(reports)} edit(s) before the kill)"
                outcome.check(
                    all("backup" in r for r in reports), f"{where}: the child failed: {reports}"
                )
                current = _file_sha(str(target))
                now = [name for name, sha in shas.items() if sha == current]
                outcome.check(
                    len(now) == 1, f"{where}: the file is neither the old nor the new content"
                )
                if len(now) != 1:
                    break
                expected_state = _other(str(reports[-1]["of"])) if reports else state
                if now[0] != expected_state:
                    # Killed after the rename of an edit it had not reported yet.
                    outcome.notes.append(f"{where}: killed after an unreported rename")
                _check_backups(target, reports, shas, seen, outcome, where)
                temps = _temps(target_dir)
                if temps:
                    killed_with_temp += 1
                state = _check_next_edit(workdir, target, now[0], shas, seen, outcome, where)
        outcome.notes.append(f"{killed_with_temp} of {kills} kills left a temporary file")
    finally:
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return outcome


def _kill_child(
    forks: Forks, target: Path, state: str, rng: random.Random, duration: float
) -> list[dict[str, object]] | bytes:
    """Start an editing child, SIGKILL it at a random moment within two edits
    (``duration`` each) after it is ready, and return what it reported; the line
    it gave instead of "ready" when it did not start."""
    pid, out = forks.start("tests.property.faults.child", str(target), state)
    with out:
        ready = out.readline()
        if ready.strip() != b"ready":
            os.kill(pid, signal.SIGKILL)
            return ready
        # Anywhere within the first two edits (and sometimes between them).
        time.sleep(rng.uniform(0.0, 2.0 * duration))
        os.kill(pid, signal.SIGKILL)
        # The pipe ends once the child is gone, its descriptors closed.
        return [json.loads(line) for line in out.read().splitlines() if line]


def _check_backups(
    target: Path,
    reports: list[dict[str, object]],
    shas: dict[str, str],
    seen: set[str],
    outcome: Outcome,
    where: str,
) -> None:
    """Every backup the child reported is listed and holds what it saved; backups
    listed but not ``seen`` or reported are complete too.  Adds the listed ones to ``seen``."""
    from diffchunk.files.backups import backups_for, read_metadata

    listed = {info.path: info for info in backups_for(os.path.realpath(target))}
    for report in reports:
        backup = str(report["backup"])
        info = listed.get(backup)
        ok = info is not None and os.path.exists(backup)
        outcome.check(ok, f"{where}: reported backup {backup} is not listed")
        if not ok or info is None:
            continue
        data_sha = _file_sha(backup)
        meta = read_metadata(info)
        outcome.check(
            data_sha == shas[str(report["of"])] and meta.get("sha256") == data_sha,
            f"{where}: backup {backup} does not hold the content it saved",
        )
    # Backups listed but never reported (killed between the metadata
    # and the print) must be complete too.
    reported = {str(r["backup"]) for r in reports}
    for path, info in listed.items():
        if path in seen or path in reported:
            continue
        data_sha = _file_sha(path)
        outcome.check(
            data_sha in shas.values() and read_metadata(info).get("sha256") == data_sha,
            f"{where}: unreported backup {path} is incomplete",
        )
    seen.update(listed)


def _check_next_edit(
    workdir: Path,
    target: Path,
    state: str,
    shas: dict[str, str],
    seen: set[str],
    outcome: Outcome,
    where: str,
) -> str:
    """The next edit must work whatever the kill left behind; returns the state after it."""
    after = _flip(str(target), state)
    outcome.check(bool(after["success"]), f"{where}: the next edit failed: {after}")
    if after["success"]:
        seen.add(str(after["backup_created"]))
        state = _other(state)
        outcome.check(
            _file_sha(str(target)) == shas[state],
            f"{where}: the edit after the kill wrote the wrong content",
        )
        outcome.check(
            not _temps(target.parent),
            f"{where}: temporary files left after the next edit: {_temps(target.parent)}",
        )
        orphans = _backup_orphans(workdir / "backups")
        outcome.check(not orphans, f"{where}: unlisted backup pieces left: {orphans}")
    return state


# ------------------------------------------------------------ concurrent writers


def counter_writer(path: str, me: int, edits: int, queue: multiprocessing.Queue[object]) -> None:
    """Increment line ``counter-<me>`` of ``path`` ``edits`` times; put ``(me, failures)``."""
    from diffchunk.files.edit import edit_content

    failures: list[str] = []
    for _ in range(edits):
        text = Path(path).read_text()
        found = re.search(rf"^counter-{me}: (\d+)$", text, re.MULTILINE)
        if found is None:
            failures.append(f"counter line {me} missing or corrupt")
            break
        value = int(found.group(1))
        result = edit_content(
            path,
            [{"search": f"counter-{me}: {value}\n", "replace": f"counter-{me}: {value + 1}\n"}],
            fuzzy=False,
            preview=False,
        ).to_dict()
        if not result["success"]:
            failures.append(str(result["results"]))
    queue.put((me, failures))


def concurrent_writers(workdir: Path, processes: int, edits: int) -> Outcome:
    """``processes`` writers x ``edits`` edits of one file; check nothing is lost."""
    from diffchunk.files.edit import list_backups

    outcome = Outcome()
    workdir.mkdir(parents=True, exist_ok=True)
    target = workdir / f"shared-{processes}.txt"
    target.write_text("".join(f"counter-{i}: 0\n" for i in range(processes)))
    saved = {k: os.environ.get(k) for k in ("DIFFCHUNK_BACKUP_DIR", "DIFFCHUNK_BACKUP_KEEP")}
    os.environ["DIFFCHUNK_BACKUP_DIR"] = str(workdir / f"backups-{processes}")
    os.environ["DIFFCHUNK_BACKUP_KEEP"] = str(processes * edits + 10)
    try:
        ctx = multiprocessing.get_context("fork")
        queue: multiprocessing.Queue[object] = ctx.Queue()
        workers = [
            ctx.Process(target=counter_writer, args=(str(target), i, edits, queue))
            for i in range(processes)
        ]
        started = time.perf_counter()
        for proc in workers:
            proc.start()
        reports = [queue.get(timeout=600) for _ in workers]
        for proc in workers:
            proc.join(timeout=60)
            outcome.check(proc.exitcode == 0, f"writer exited with {proc.exitcode}")
        elapsed = time.perf_counter() - started
        for report in reports:
            assert isinstance(report, tuple)
            me, failures = report
            outcome.check(not failures, f"writer {me}: {failures[:3]}")
        want = "".join(f"counter-{i}: {edits}\n" for i in range(processes))
        outcome.check(target.read_text() == want, "an update was lost or the file is corrupt")
        outcome.check(not _temps(workdir), f"temporary files left: {_temps(workdir)}")
        listed = list_backups(str(target))
        total = processes * edits
        ids = [str(b["id"]) for b in listed]
        outcome.check(len(ids) == total, f"{len(ids)} backups listed, {total} expected")
        outcome.check(len(set(ids)) == len(ids), "backup ids collide")
        contents: set[bytes] = set()
        for info in listed:
            data = Path(str(info["path"])).read_bytes()
            meta = json.loads(Path(str(info["path"]) + ".json").read_text())
            outcome.check(
                meta["sha256"] == _sha(data) and data.count(b"\n") == processes,
                f"backup {info['id']} is incomplete",
            )
            contents.add(data)
        outcome.check(len(contents) == total, "two backups hold the same state")
        outcome.notes.append(f"{processes} writers x {edits} edits: {total / elapsed:.0f} edits/s")
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return outcome


# ------------------------------------------------------------------- an appender

APPENDED = re.compile(rb"^append-(\d+)$", re.MULTILINE)
APPENDERS = {
    # kind: (seconds between open and write, seconds between lines)
    "per line": (0.0, 0.0005),  # echo line >> file
    "open, then write": (0.005, 0.001),  # a writer that opened before the rename
    "kept open": (0.0, 0.0005),  # a running logger
}


def appender(path: str, kind: str, stop: Any, queue: multiprocessing.Queue[object]) -> None:
    """Append ``append-N`` lines to ``path`` until ``stop`` is set, as ``kind`` says
    (:data:`APPENDERS`); put how many were written."""
    before_write, between = APPENDERS[kind]
    count = 0
    held = open(path, "ab", buffering=0) if kind == "kept open" else None  # noqa: SIM115
    try:
        while not stop.is_set():
            line = b"append-%d\n" % count
            if held is not None:
                held.write(line)
            else:
                with open(path, "ab", buffering=0) as fh:
                    time.sleep(before_write)
                    fh.write(line)
            count += 1
            time.sleep(between)
    finally:
        if held is not None:
            held.close()
    queue.put(count)


def appender_rounds(workdir: Path, edits: int, kind: str, *, held_wait: float = 0.2) -> Outcome:
    """``edits`` edits of a file another process appends to (``kind``: :data:`APPENDERS`;
    a file kept open is refused after ``held_wait`` seconds); see the module doc."""
    from diffchunk.errors import EditConflict
    from diffchunk.files import transaction

    outcome = Outcome()
    hold = kind == "kept open"
    workdir.mkdir(parents=True, exist_ok=True)
    slug = kind.replace(",", "").replace(" ", "-")
    target = workdir / f"appended-{slug}.log"
    target.write_bytes(b"log\nstate: A\n" + b"".join(b"line %d\n" % i for i in range(1000)))
    saved = {k: os.environ.get(k) for k in ("DIFFCHUNK_BACKUP_DIR", "DIFFCHUNK_BACKUP_KEEP")}
    os.environ["DIFFCHUNK_BACKUP_DIR"] = str(workdir / f"backups-{slug}")
    os.environ["DIFFCHUNK_BACKUP_KEEP"] = str(edits + 10)
    wait = transaction.WRITERS_WAIT
    if hold:
        transaction.WRITERS_WAIT = held_wait  # each refusal waits this long first
    ctx = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[object] = ctx.Queue()
    stop = ctx.Event()
    proc = ctx.Process(target=appender, args=(str(target), kind, stop, queue))
    late: list[bytes] = []
    written = 0
    refused: dict[str, int] = {}
    state = "A"
    try:
        proc.start()
        size = target.stat().st_size
        deadline = time.monotonic() + 60
        while target.stat().st_size == size and time.monotonic() < deadline:
            time.sleep(0.002)  # until the appender has written its first line
        for _ in range(edits):
            try:
                result = _flip(str(target), state)
            except EditConflict as exc:
                why = "held open" if "open for writing" in str(exc) else str(exc)[-70:]
                refused[why] = refused.get(why, 0) + 1
                continue
            outcome.check(bool(result["success"]), f"an edit failed: {result}")
            written += bool(result["written"])
            state = _other(state)
            kept = result.get("late_write")
            if isinstance(kept, dict):
                late.append(Path(kept["kept_in"]).read_bytes())
    finally:
        stop.set()
        count = queue.get(timeout=60)
        proc.join(timeout=60)
        transaction.WRITERS_WAIT = wait
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    assert isinstance(count, int)
    in_file = [int(n) for n in APPENDED.findall(target.read_bytes())]
    reported = [int(n) for data in late for n in APPENDED.findall(data)]
    seen = set(in_file) | set(reported)
    lost = count - len(seen & set(range(count)))
    reasons = ", ".join(f"{n} {why}" for why, n in refused.items())
    outcome.notes.append(
        f"{count} lines written, {len(in_file)} found in the file, {len(reported)} reported "
        f"in late_write side files, {lost} lost; {written} of {edits} edits written"
        + (f", refused: {reasons}" if reasons else "")
    )
    outcome.check(lost == 0, f"{lost} appended lines lost ({kind})")
    outcome.check(len(in_file) + len(reported) == len(seen), f"a line was kept twice ({kind})")
    outcome.check(not hold or written == 0, f"a file kept open for writing was replaced ({kind})")
    outcome.check(hold or written > 0, f"no edit got through an appender ({kind})")
    return outcome


# -------------------------------------------------------------------------- main


def report(name: str, outcome: Outcome) -> None:
    """Print ``outcome`` under ``name`` (the fault harnesses' one report)."""
    for note in outcome.notes:
        print(f"  {name}: {note}")
    for message in outcome.messages:
        print(f"  {name} FAILED: {message}")
    print(f"{name}: {outcome.passed} passed, {outcome.failed} failed", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.property.faults", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--size-mb", type=int, default=50)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--writers", default="2,8", help="comma-separated process counts")
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--appends", type=int, default=200, help="edits racing an appender")
    parser.add_argument("--dir", help="work directory (default: a temporary one)")
    args = parser.parse_args(argv)
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="diffchunk-faults-"))
    total = Outcome()
    runs: list[tuple[str, Outcome]] = []
    if args.kills > 0:
        started = time.perf_counter()
        outcome = sigkill_rounds(
            base / "kills", args.kills, size=args.size_mb * 1024 * 1024, seed=args.seed
        )
        outcome.notes.append(f"{args.kills} kills in {time.perf_counter() - started:.1f} s")
        runs.append((f"sigkill x{args.kills}", outcome))
        report(*runs[-1])
    for count in (int(n) for n in args.writers.split(",") if n.strip()):
        if args.edits <= 0:
            break
        outcome = concurrent_writers(base / "writers", count, args.edits)
        runs.append((f"writers {count}x{args.edits}", outcome))
        report(*runs[-1])
    for kind in APPENDERS if args.appends > 0 else ():
        edits = min(args.appends, 5) if kind == "kept open" else args.appends
        outcome = appender_rounds(base / "appends", edits, kind)
        runs.append((f"appender ({kind}) x{edits}", outcome))
        report(*runs[-1])
    for _, outcome in runs:
        total.passed += outcome.passed
        total.failed += outcome.failed
    print(f"{total.passed} passed, {total.failed} failed")
    return 1 if total.failed else 0


if __name__ == "__main__":
    sys.exit(main())
