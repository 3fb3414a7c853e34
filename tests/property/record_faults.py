"""Fault runs for the review record: concurrent writers and SIGKILL during writes.

    python -m tests.property.record_faults [--writes 200] [--kills 50] [--files 200]
                                       [--seed 1234] [--dir DIR]

``--writes N``: the MCP server (``diffchunk-mcp`` over the SDK's stdio client)
and two CLI processes (each running ``diffchunk mark`` and ``diffchunk finding
add`` N times, in-process) write at the same moment into one record: N marks
and N findings each, on files of their own.  Afterwards every mark and every
finding is there, and no writer saw an error (no "database is locked").

``--kills K``: a child writes findings and marks in a loop, printing each
acknowledged write, and is killed with SIGKILL at a random moment; after each
kill the record passes ``PRAGMA integrity_check``, opens through the store,
and holds every acknowledged write.

Prints one line per check and ``N passed, N failed``; exits 1 on a failure.
The suite (``tests/review/record/test_faults.py``) runs the same code with fewer rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.property.faults import Outcome, report
from tests.property.forks import Forks

REPO = Path(__file__).resolve().parents[2]
SEED = 1234
CHILD = (sys.executable, "-m", "tests.property.record_faults")


def make_diff(path: Path, files: int) -> list[str]:
    """A diff changing ``files`` small files (one hunk each); returns their paths."""
    names = [f"pkg{i // 50}/mod_{i:04d}.py" for i in range(files)]
    parts = []
    for name in names:
        parts.append(
            f"diff --git a/{name} b/{name}\nindex 1111111..2222222 100644\n"
            f"--- a/{name}\n+++ b/{name}\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
        )
    path.write_text("".join(parts))
    return names


def _env(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["DIFFCHUNK_STATE_DIR"] = str(workdir / "state")
    env["PYTHONPATH"] = str(REPO)
    return env


def _db(workdir: Path) -> Path:
    return workdir / "state" / "reviews.sqlite3"


# ------------------------------------------------------------ concurrent writers


def _ready(go: str, tag: str) -> None:
    """Say this writer is warmed up (a file ``go.tag``), then wait for ``go`` (a minute
    at most): the writers start together, as soon as every one is ready."""
    Path(f"{go}.{tag}").touch()
    deadline = time.monotonic() + 60
    while not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.001)


def cli_writer(diff: str, names: list[str], tag: str, go: str) -> None:
    """Run ``diffchunk mark`` and ``diffchunk finding add`` once per name, in this process."""
    import contextlib
    import io

    from diffchunk.cli import main

    errors: list[str] = []
    latencies: list[float] = []
    _ready(go, tag)
    for i, name in enumerate(names):
        for argv in (
            ["mark", diff, "--file", name, "--json"],
            ["finding", "add", diff, "--file", name, "--line", "2", "--message", f"{tag} {i}"],
        ):
            began = time.perf_counter()
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    main.main(argv, prog_name="diffchunk", standalone_mode=False)
            except Exception as exc:
                errors.append(f"{' '.join(argv[:2])}: {exc}")
            latencies.append(time.perf_counter() - began)
    print(json.dumps({"errors": errors, "latencies": latencies}), flush=True)


async def _mcp_writer(
    diff: str, names: list[str], tag: str, go: str, others: list[str], env: dict[str, str]
) -> dict[str, Any]:
    """The MCP server's writes, started with the CLI writers ``others``: once they and
    the server are warmed up, this writer says ``go``."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.types import TextContent

    command = str(Path(sys.executable).with_name("diffchunk-mcp"))
    params = StdioServerParameters(command=command, args=[], env=env)
    errors: list[str] = []
    latencies: list[float] = []
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.call_tool("review_status", {"absolute_file_path": diff, "limit": 1})
            deadline = time.monotonic() + 60  # a writer that failed to start is reported
            while time.monotonic() < deadline and not all(
                os.path.exists(f"{go}.{other}") for other in others
            ):
                time.sleep(0.001)
            Path(go).touch()
            started = time.perf_counter()
            for i, name in enumerate(names):
                for tool, args in (
                    ("mark_reviewed", {"file_pattern": name}),
                    ("add_finding", {"file_path": name, "line": 2, "message": f"{tag} {i}"}),
                ):
                    began = time.perf_counter()
                    result = await session.call_tool(tool, {"absolute_file_path": diff, **args})
                    latencies.append(time.perf_counter() - began)
                    if result.is_error:
                        block = result.content[0]
                        text = block.text if isinstance(block, TextContent) else str(block)
                        errors.append(f"{tool}: {text}")
    return {"errors": errors, "latencies": latencies, "started": started}


def concurrent_writers(workdir: Path, writes: int) -> Outcome:
    """The MCP server and two CLI processes, ``writes`` marks and findings each, at once."""
    import anyio

    from diffchunk.review.record.store import RecordStore

    outcome = Outcome()
    workdir.mkdir(parents=True, exist_ok=True)
    diff = workdir / "many.diff"
    names = make_diff(diff, 3 * writes)
    env = _env(workdir)
    go = str(workdir / "go")  # said once every writer is started and warmed up
    shares = {"cli-1": names[:writes], "cli-2": names[writes : 2 * writes]}
    for said in (go, *(f"{go}.{tag}" for tag in shares)):  # a run before in this directory
        Path(said).unlink(missing_ok=True)
    children = {}
    for tag, share in shares.items():
        listed = workdir / f"{tag}.json"
        listed.write_text(json.dumps(share))
        children[tag] = subprocess.Popen(
            [*CHILD, "--cli-writer", str(diff), str(listed), tag, go],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(REPO),
            env=env,
            text=True,
        )
    mcp = anyio.run(_mcp_writer, str(diff), names[2 * writes :], "mcp", go, list(shares), env)
    results = {"mcp": mcp}
    for tag, proc in children.items():
        out, err = proc.communicate(timeout=600)
        outcome.check(proc.returncode == 0, f"{tag} exited {proc.returncode}: {err[-2000:]}")
        results[tag] = json.loads(out.splitlines()[-1]) if out.strip() else {"errors": [err]}
    elapsed = time.perf_counter() - mcp["started"]
    for tag, result in results.items():
        errors = result["errors"]
        outcome.check(not errors, f"{tag}: {len(errors)} error(s), e.g. {errors[:3]}")
        locked = [e for e in errors if "locked" in e]
        outcome.check(not locked, f"{tag}: 'database is locked' surfaced: {locked[:3]}")
        lat = sorted(result.get("latencies", [])) or [0.0]
        outcome.notes.append(
            f"{tag}: {len(lat)} writes, median {lat[len(lat) // 2] * 1000:.1f} ms, "
            f"max {lat[-1] * 1000:.0f} ms"
        )
    store = RecordStore(str(_db(workdir)))
    marked = store.read(
        lambda c: {
            r[0] for r in c.execute("SELECT path FROM marks WHERE kind = 'reviewed'").fetchall()
        }
    )
    messages = store.read(lambda c: [r[0] for r in c.execute("SELECT message FROM findings")])
    outcome.check(marked == set(names), f"marks: {len(marked)} of {len(names)} present")
    expected = {f"{tag} {i}" for tag in ("cli-1", "cli-2", "mcp") for i in range(writes)}
    outcome.check(
        sorted(messages) == sorted(expected),
        f"findings: {len(set(messages) & expected)} of {len(expected)} present, "
        f"{len(messages)} rows",
    )
    outcome.notes.append(f"{6 * writes} writes by 3 processes in {elapsed:.1f} s")
    return outcome


# ---------------------------------------------------------------- SIGKILL


def kill_child(diff: str, names: list[str], tag: str) -> None:
    """Write findings and marks forever; print each one once it is committed."""
    from diffchunk.review import record

    record.review_status(diff, limit=1)
    print("ready", flush=True)
    i = 0
    while True:
        name = names[i % len(names)]
        found = record.add_finding(diff, name, f"{tag} {i}", line=2).finding
        print(json.dumps({"finding": found.id, "message": f"{tag} {i}"}), flush=True)
        record.mark_reviewed(diff, file_pattern=name)
        print(json.dumps({"mark": name}), flush=True)
        i += 1


def sigkill_rounds(workdir: Path, kills: int, files: int = 200, *, seed: int = SEED) -> Outcome:
    """Kill a writing child ``kills`` times; after each, the record holds every
    acknowledged write and opens cleanly."""
    from diffchunk.review.record.store import RecordStore, applied_migrations

    rng = random.Random(seed)
    outcome = Outcome()
    workdir.mkdir(parents=True, exist_ok=True)
    diff = workdir / "many.diff"
    names = make_diff(diff, files)
    env = _env(workdir)
    acked_findings: dict[int, str] = {}
    acked_marks: set[str] = set()
    writes = 0
    with Forks(["tests.property.record_faults", "diffchunk.review.record"], env, REPO) as forks:
        for round_no in range(1, kills + 1):
            tag = f"round-{round_no}"
            pid, out = forks.start("tests.property.record_faults.kill_child", str(diff), names, tag)
            with out:
                ready = out.readline()
                if ready.strip() != b"ready":
                    os.kill(pid, signal.SIGKILL)
                    outcome.check(False, f"round {round_no}: the child did not start: {ready!r}")
                    continue
                time.sleep(rng.uniform(0.0, 0.15))
                os.kill(pid, signal.SIGKILL)
                lines = out.read().splitlines()  # to its end: the child is gone
            for line in lines:
                try:
                    item = json.loads(line)
                except ValueError:
                    continue  # the last line, cut by the kill
                writes += 1
                if "finding" in item:
                    acked_findings[int(item["finding"])] = str(item["message"])
                else:
                    acked_marks.add(str(item["mark"]))
            where = f"round {round_no}"
            check = sqlite3.connect(_db(workdir))
            try:
                integrity = check.execute("PRAGMA integrity_check").fetchone()[0]
            finally:
                check.close()
            outcome.check(integrity == "ok", f"{where}: integrity_check says {integrity}")
            store = RecordStore(str(_db(workdir)))
            outcome.check(
                bool(store.read(applied_migrations)), f"{where}: the record does not open"
            )
            held = store.read(
                lambda c: dict(c.execute("SELECT id, message FROM findings").fetchall())
            )
            lost = {i: m for i, m in acked_findings.items() if held.get(i) != m}
            outcome.check(not lost, f"{where}: acknowledged findings lost: {sorted(lost)[:5]}")
            marked = store.read(
                lambda c: {
                    r[0] for r in c.execute("SELECT path FROM marks WHERE kind = 'reviewed'")
                }
            )
            outcome.check(
                acked_marks <= marked,
                f"{where}: acknowledged marks lost: {sorted(acked_marks - marked)[:5]}",
            )
    outcome.check(writes > 0, "no write was acknowledged before any of the kills")
    outcome.notes.append(
        f"{kills} kills, {writes} acknowledged writes ({len(acked_findings)} findings, "
        f"{len(acked_marks)} files marked)"
    )
    return outcome


# -------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli-writer", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--dir", help="work directory (default: a temporary one)")
    args = parser.parse_args(argv)
    if args.cli_writer:
        diff, listed, tag, go = args.cli_writer
        cli_writer(diff, json.loads(Path(listed).read_text()), tag, go)
        return 0
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="diffchunk-record-"))
    runs: list[tuple[str, Outcome]] = []
    if args.writes > 0:
        runs.append((f"writers 3x{args.writes}", concurrent_writers(base / "writers", args.writes)))
        report(*runs[-1])
    if args.kills > 0:
        started = time.perf_counter()
        outcome = sigkill_rounds(base / "kills", args.kills, args.files, seed=args.seed)
        outcome.notes.append(f"{args.kills} kills in {time.perf_counter() - started:.1f} s")
        runs.append((f"sigkill x{args.kills}", outcome))
        report(*runs[-1])
    passed = sum(o.passed for _, o in runs)
    failed = sum(o.failed for _, o in runs)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
