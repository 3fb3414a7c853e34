"""The long run: ``python -m tests.property.fuzz_files --cases N --seed S`` (see the package doc)."""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.property import fuzz_files

from .cases import (
    random_edit_case,
    random_fuzzy_edit_case,
    random_fuzzy_search_case,
    random_search_case,
)
from .edit_checks import check_edit, check_fuzzy_edit
from .regex_cases import random_regex_case
from .search_checks import check_fuzzy_search, check_regex_search, check_search

KINDS = ("exact-edit", "exact-search", "regex-search", "fuzzy-search", "fuzzy-edit")


def run_case(kind: str, rng: random.Random, work: Path) -> str:
    """Run one case of ``kind``; return a word on its outcome (raise on disagreement)."""
    if kind == "exact-edit":
        check_edit(random_edit_case(rng), work)
        return ""
    if kind == "exact-search":
        check_search(random_search_case(rng), work)
        return ""
    if kind == "regex-search":
        return check_regex_search(random_regex_case(rng), work)
    if kind == "fuzzy-search":
        return check_fuzzy_search(random_fuzzy_search_case(rng), work)
    if kind == "fuzzy-edit":
        return check_fuzzy_edit(random_fuzzy_edit_case(rng), work)
    raise ValueError(f"unknown kind {kind!r}")


def run(
    cases: int,
    seed: int,
    *,
    progress_every: int = 500,
    kinds: Sequence[str] = KINDS,
    start: int = 0,
    report: Callable[[str], None] = print,
) -> tuple[int, int]:
    """Run ``cases`` cases, cycling through ``kinds``; return (passed, failed)."""
    passed = failed = 0
    per_kind: dict[str, Counter[str]] = {kind: Counter() for kind in kinds}
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-files-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        for done, number in enumerate(range(start, start + cases)):
            if done % 500 == 0:
                # Backups of every file share one flat directory; start a new one
                # now and then so that listing it stays cheap.
                old = os.environ.get("DIFFCHUNK_BACKUP_DIR")
                os.environ["DIFFCHUNK_BACKUP_DIR"] = os.path.join(tmp, f"backups-{number}")
                if old and old.startswith(tmp):
                    shutil.rmtree(old, ignore_errors=True)
            rng = random.Random(f"{seed}:{number}")
            kind = kinds[number % len(kinds)]
            try:
                outcome = run_case(kind, rng, work)
                per_kind[kind][outcome or "passed"] += 1
                passed += 1
            except Exception as exc:
                failed += 1
                per_kind[kind]["FAILED"] += 1
                if failed <= 10:
                    report(f"case {number} ({kind}, seed {seed}) failed: {exc!r}")
                    if not isinstance(exc, AssertionError):
                        traceback.print_exc()
            if (done + 1) % progress_every == 0:
                elapsed = time.monotonic() - began
                report(f"{done + 1}/{cases} cases, {failed} failed, {elapsed:.1f}s")
    for kind, seen in per_kind.items():
        total = sum(seen.values())
        shown = ", ".join(f"{what} {count}" for what, count in seen.most_common())
        report(f"{kind}: {total} cases ({shown})")
    report(f"wall time {time.monotonic() - began:.1f}s")
    return passed, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.property.fuzz_files",
        description=fuzz_files.__doc__.splitlines()[0] if fuzz_files.__doc__ else None,
    )
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="number of the first case")
    parser.add_argument("--progress-every", type=int, default=500)
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help=f"comma-separated kinds to cycle through (default: {','.join(KINDS)})",
    )
    args = parser.parse_args(argv)
    kinds = tuple(k for k in args.kinds.split(",") if k)
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        parser.error(f"unknown kinds {unknown}; choose from {', '.join(KINDS)}")
    passed, failed = run(
        args.cases,
        args.seed,
        progress_every=max(1, args.progress_every),
        kinds=kinds,
        start=args.start,
    )
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
