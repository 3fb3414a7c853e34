"""The long run: ``python -m tests.property.fuzz_diff --cases 100000`` (see the package doc)."""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from tests.property import fuzz_diff

from .checks import check_input
from .draws import RandomSource
from .git_cases import check_git_case, git_case
from .mutators import mutate
from .seeds import CRASH_DIR, load_seeds
from .structural import structural


def save_crash(data: bytes, error: str) -> Path:
    digest = hashlib.sha256(data).hexdigest()[:12]
    CRASH_DIR.mkdir(parents=True, exist_ok=True)
    path = CRASH_DIR / f"crash-{digest}.diff"
    path.write_bytes(data)
    (CRASH_DIR / f"crash-{digest}.txt").write_text(error)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tests.property.fuzz_diff", description=fuzz_diff.__doc__
    )
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--minutes", type=float, default=None, help="stop after this long")
    ap.add_argument("--git-every", type=int, default=50, help="one git case per this many")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    seeds = load_seeds()
    print(f"{len(seeds)} seed diffs; seed {args.seed}", flush=True)
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else None
    passed = failed = 0
    kinds: dict[str, int] = {}
    notes: dict[str, int] = {}  # mutated inputs: rejected, bad patterns, lenient hunks
    started = time.monotonic()
    last_report = started
    seen_errors: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="fuzz-diff-") as tmp:
        workdir = Path(tmp)
        for case in range(args.cases):
            if deadline is not None and time.monotonic() > deadline:
                break
            src = RandomSource(random.Random(f"{args.seed}:{case}"))
            kind = (
                "git"
                if args.git_every and case % args.git_every == 0
                else ("structural" if case % 3 == 1 else "mutated")
            )
            data = b""
            try:
                if kind == "git":
                    gcase = git_case(src)
                    try:
                        check_git_case(src, gcase, workdir)
                    finally:
                        data = gcase.diff
                elif kind == "structural":
                    data, exp = structural(src)
                    check_input(data, src, expected=exp)
                else:
                    data = mutate(src, seeds)
                    res = check_input(data, src)
                    notes["not a diff"] = notes.get("not a diff", 0) + res.not_a_diff
                    notes["bad patterns"] = notes.get("bad patterns", 0) + res.invalid_argument
                    notes["lenient parse"] = notes.get("lenient parse", 0) + bool(res.lenient)
                passed += 1
            except Exception as exc:
                failed += 1
                error = "".join(traceback.format_exception(exc))
                key = f"{type(exc).__name__}: {str(exc)[:80]}"
                path = save_crash(data, f"case {case} seed {args.seed} ({kind})\n{error}")
                if key not in seen_errors or not args.quiet:
                    print(f"FAIL case {case} ({kind}): {key} -> {path.name}", flush=True)
                seen_errors.add(key)
            kinds[kind] = kinds.get(kind, 0) + 1
            now = time.monotonic()
            if now - last_report >= 30:
                rate = (case + 1) / (now - started)
                print(
                    f"{case + 1} cases, {failed} failed, {rate:.0f}/s, {kinds}",
                    flush=True,
                )
                last_report = now
    elapsed = time.monotonic() - started
    print(f"{elapsed:.0f}s, cases by kind: {kinds}, distinct failures: {len(seen_errors)}")
    print(f"mutated inputs: {notes}")
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
