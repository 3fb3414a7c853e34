"""The long runs: ``python -m tests.property.load_mcp`` (see the package doc)."""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import anyio

from diffchunk.review.sessions.store import SessionStore
from tests.property import load_mcp
from tests.property.gen_diff import generate

from .clients import latency_table, run_clients
from .memory import memory_run
from .references import Op, diff_ops, log_ops, write_log

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT.parent / "shared" / "corpus"
CORPUS_DIFF = CORPUS / "sqlalchemy_rel_1_4_0..rel_1_4_54.diff"


def build_workload(
    workdir: Path, *, big_lines: int, log_lines: int, samples: int, corpus: Path | None
) -> tuple[list[Op], list[Op]]:
    """(mixed ops, warm-up ops): references computed here, in-process."""
    rng = random.Random(20261121)
    store = SessionStore(max_sessions=8, max_bytes=1 << 32)
    diffs: list[Path] = []
    if corpus is not None and corpus.is_file():
        diffs.append(corpus)
    big = workdir / "big.diff"
    big.write_bytes(generate(big_lines, seed=5))
    diffs.append(big)
    log = workdir / "app.log"
    write_log(log, log_lines)
    ops: list[Op] = []
    warm: list[Op] = []
    for diff in diffs:
        diff_side = diff_ops(str(diff), store, rng, samples)
        ops.extend(diff_side)
        warm.append(diff_side[0])
    file_side = log_ops(str(log), log_lines, rng, samples)
    ops.extend(file_side)
    warm.append(file_side[0])
    return ops, warm


def _main_load(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="diffchunk-load-") as tmp:
        workdir = Path(tmp)
        started = time.perf_counter()
        ops, warm = build_workload(
            workdir,
            big_lines=args.big_lines,
            log_lines=args.log_lines,
            samples=args.samples,
            corpus=None if args.no_corpus else CORPUS_DIFF,
        )
        print(f"references: {len(ops)} calls computed in {time.perf_counter() - started:.1f}s")
        outcome = anyio.run(
            lambda: run_clients(
                ops,
                clients=args.clients,
                seconds=args.seconds,
                warm=warm,
                deadlock_timeout=args.seconds + args.grace,
            )
        )
    print(latency_table(outcome))
    print(f"requests in flight at once on the session: up to {outcome.max_in_flight}")
    for failure in outcome.failures:
        print("FAIL", failure)
    print(f"{outcome.passed} passed, {outcome.failed} failed")
    return 1 if outcome.failed else 0


def _main_memory(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    if args.max_sessions is not None:
        env["DIFFCHUNK_MAX_SESSIONS"] = str(args.max_sessions)
    if args.max_session_mb is not None:
        env["DIFFCHUNK_MAX_SESSION_BYTES"] = str(args.max_session_mb << 20)
    with tempfile.TemporaryDirectory(prefix="diffchunk-mem-") as tmp:
        started = time.perf_counter()
        run = anyio.run(
            lambda: memory_run(
                args.diffs, Path(tmp), min_lines=args.min_lines, max_lines=args.max_lines, env=env
            )
        )
    mib = [r / 1024 for r in run.rss_kib]
    print(
        f"{args.diffs} diffs, {sum(run.sizes) / 2**20:.0f} MiB in all "
        f"({min(run.sizes) / 2**20:.1f}..{max(run.sizes) / 2**20:.1f} MiB each), "
        f"{time.perf_counter() - started:.1f}s"
    )
    print("RSS MiB after each load:", " ".join(f"{m:.0f}" for m in mib[1:]))
    print(f"RSS MiB: start {mib[0]:.0f}, max {max(mib):.0f}, end {mib[-1]:.0f}")
    tail = mib[len(mib) // 2 :]
    print(f"RSS MiB over the second half of the loads: {min(tail):.0f}..{max(tail):.0f}")
    print(
        f"live sessions: {run.live_sessions}, their diff bytes: {run.session_bytes / 2**20:.1f} MiB"
    )
    for failure in run.failures:
        print("FAIL", failure)
    print(f"{args.diffs - len(run.failures)} passed, {len(run.failures)} failed")
    return 1 if run.failures else 0


def main() -> None:
    # get_chunk records what it returns in the review record: not in the user's.
    os.environ.setdefault("DIFFCHUNK_STATE_DIR", tempfile.mkdtemp(prefix="diffchunk-state-"))
    parser = argparse.ArgumentParser(
        prog="python -m tests.property.load_mcp",
        description=(load_mcp.__doc__ or "").splitlines()[0],
    )
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--grace", type=float, default=240.0, help="deadlock timeout beyond --seconds"
    )
    parser.add_argument("--big-lines", type=int, default=1_000_000)
    parser.add_argument("--log-lines", type=int, default=500_000)
    parser.add_argument("--samples", type=int, default=40, help="calls sampled per tool and input")
    parser.add_argument("--no-corpus", action="store_true")
    parser.add_argument("--memory", action="store_true", help="run the memory check instead")
    parser.add_argument("--diffs", type=int, default=50)
    parser.add_argument("--min-lines", type=int, default=160_000)
    parser.add_argument("--max-lines", type=int, default=320_000)
    parser.add_argument("--max-sessions", type=int, default=None)
    parser.add_argument("--max-session-mb", type=int, default=None)
    args = parser.parse_args()
    sys.exit(_main_memory(args) if args.memory else _main_load(args))


if __name__ == "__main__":
    main()
