"""The command line of the atheris harness (``python -m tests.property.fuzz_atheris``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.property import fuzz_atheris
from tests.property.fuzz_diff import checks

from .child import run_child
from .driver import ROOT, run
from .inputs import MAX_LEN, OPTION_BYTES, describe, split_input
from .minimize import minimize, replay

DEFAULT_CRASH_DIR = ROOT / "bench-out" / "fuzz-atheris" / "crashes"


def _replay_command(paths: Sequence[Path]) -> int:
    failed = 0
    for path in paths:
        key, seconds, error = replay(path)
        if key is None:
            print(f"ok {path} ({seconds:.3f}s; {describe(path.read_bytes())})")
        else:
            failed += 1
            print(f"FAIL {path} ({seconds:.3f}s): {key}")
            print(error)
    return 1 if failed else 0


def _minimize_command(path: Path, out: Path | None) -> int:
    data = path.read_bytes()
    key, _, _ = replay(path)
    if key is None:
        print(f"{path} does not fail: nothing to minimize")
        return 1
    small = minimize(data, key)
    target = out or path.with_name(path.name + ".min")
    target.write_bytes(small)
    options, diff = split_input(small)
    print(f"{key}\n{len(data)} -> {len(small)} bytes: {target}")
    print(f"option bytes: {options.hex()}")
    print("diff text:")
    sys.stdout.write(diff.decode("utf-8", errors="backslashreplace"))
    print()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tests.property.fuzz_atheris",
        description=fuzz_atheris.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--runs", type=int, default=100_000, help="executions (0: no limit)")
    ap.add_argument("--seconds", type=int, default=0, help="stop after this long (0: no limit)")
    ap.add_argument("--crash-dir", default=str(DEFAULT_CRASH_DIR), help="failing inputs go here")
    ap.add_argument("--corpus-dir", help="keep the corpus here (default: a temporary directory)")
    ap.add_argument("--max-len", type=int, default=MAX_LEN, help="bytes per input")
    ap.add_argument("--time-limit", type=float, default=checks.TIME_LIMIT, help="seconds per input")
    ap.add_argument(
        "--slack", type=float, default=3.0, help="time-limit factor in the instrumented process"
    )
    ap.add_argument("--hang-timeout", type=int, default=30, help="libFuzzer -timeout (seconds)")
    ap.add_argument("--seed", type=int, default=1, help="libFuzzer -seed")
    ap.add_argument("--keep", type=int, default=3, help="inputs saved per distinct failure")
    ap.add_argument("--stop-on-crash", action="store_true", help="end at the first failure")
    ap.add_argument("--no-shared-corpus", action="store_true", help="seed from fixtures only")
    ap.add_argument(
        "--libfuzzer",
        action="append",
        default=[],
        help="an extra libFuzzer flag, e.g. -len_control=0",
    )
    ap.add_argument("--report-every", type=float, default=60.0, help="seconds between status lines")
    ap.add_argument("--verbose", action="store_true", help="show every libFuzzer line")
    ap.add_argument("--replay", nargs="+", type=Path, metavar="FILE", help="check saved inputs")
    ap.add_argument("--minimize", type=Path, metavar="FILE", help="shrink a failing input")
    ap.add_argument("--out", type=Path, help="where --minimize writes (default FILE.min)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--dict", help=argparse.SUPPRESS)
    ap.add_argument("--failure-log", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.max_len <= OPTION_BYTES:
        ap.error(f"--max-len must be over {OPTION_BYTES}")
    if not (args.replay or args.minimize or args.child or args.runs or args.seconds):
        ap.error("give --runs or --seconds (or both)")
    previous, checks.TIME_LIMIT = checks.TIME_LIMIT, args.time_limit
    try:
        if args.replay:
            return _replay_command(args.replay)
        if args.minimize:
            return _minimize_command(args.minimize, args.out)
        if args.child:
            return run_child(args)
        return run(args)
    finally:
        checks.TIME_LIMIT = previous
