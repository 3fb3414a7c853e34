"""``make bench-export``: every export format of a large review, timed.

A review of a generated 1M-line diff (``tests/property/gen_diff.py``) with 2,000
findings (every severity, both sides, ranges, whole-file findings,
suggestions, Markdown in messages) is rendered in each format; the HTML page
gets every file's diff text, so it holds all million lines.  Prints, per
format, the best wall-clock and CPU time of ``--repeat`` runs (the CPU time
is what the machine's other work cannot inflate) and the output's size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Callable

from diffchunk.review.export import FORMATS, render
from tests.property.gen_diff import generate
from tests.support.export_docs import DocumentBuilder, git_source

SEVERITIES = ("blocker", "major", "minor", "nit", "question")
_MESSAGES = (
    "This loses the `{name}` result when the cache is cold; keep the old branch.",
    "**Why** compare against {n}? A named constant would say what it means.",
    "Nit: `{name}` reads better as a keyword argument.",
    "Does this still hold when `items` is empty (see {n})?",
    "Use `{name}.get()` here & handle <None> explicitly.",
)


def build_review(lines: int, findings: int, seed: int = 7) -> DocumentBuilder:
    """A review of a ``lines``-line generated diff with ``findings`` findings on its hunks."""
    rng = random.Random(seed)
    builder = DocumentBuilder(generate(lines), source=git_source("1" * 40, "2" * 40))
    states = ("reviewed", "seen", "unseen", "changed")
    paths = list(builder.files)
    for path in paths:
        builder.state(path, rng.choice(states))
    with_hunks = [p for p in paths if builder.files[p].entry["hunks"]]
    for i in range(findings):
        path = rng.choice(with_hunks)
        severity = SEVERITIES[i % len(SEVERITIES)]
        message = rng.choice(_MESSAGES).format(name=f"value_{i}", n=i)
        if i % 20 == 0:
            builder.finding(path, severity, message)
            continue
        hunk = rng.choice(builder.files[path].entry["hunks"])
        side = "old" if i % 5 == 0 and hunk["old_count"] else "new"
        start, count = (
            (hunk["new_start"], hunk["new_count"])
            if side == "new"
            else (hunk["old_start"], hunk["old_count"])
        )
        if count == 0:  # an added or deleted file has lines on one side only
            side = "old" if side == "new" else "new"
            start, count = hunk[f"{side}_start"], hunk[f"{side}_count"]
        first = start + rng.randrange(count)
        last = min(start + count - 1, first + rng.randrange(3))
        suggestion = (
            "        value = compute(value)\n" * (last - first + 1)
            if side == "new" and i % 7 == 0
            else None
        )
        builder.finding(
            path, severity, message, side=side, line=first, end_line=last, suggestion=suggestion
        )
    return builder


def _best(fn: Callable[[], str], repeat: int) -> tuple[float, float, int]:
    """The best wall-clock and CPU seconds of ``repeat`` runs, and the output's size in bytes."""
    wall = cpu = float("inf")
    size = 0
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
        size = len(out.encode("utf-8"))
    return wall, cpu, size


def _line(name: str, wall: float, cpu: float, size: int) -> str:
    return f"{name:<30} {wall:7.2f} s {cpu:7.2f} s {size / 1e6:8.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--findings", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    start = time.perf_counter()
    builder = build_review(args.lines, args.findings)
    document = builder.document("all")
    diffs = builder.diffs()
    diff_lines = sum(t.count("\n") for t in diffs.values())
    print(
        f"review: {diff_lines:,} diff lines, {len(document['files']):,} files, "
        f"{len(document['findings']):,} findings (built in {time.perf_counter() - start:.1f} s, not timed)"
    )
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    print(f"{'format':<30} {'wall':>9} {'CPU':>9} {'output':>11}")
    wire = json.dumps(document)
    print(
        _line(
            "(document: json.loads)",
            *_best(lambda: json.loads(wire) and "", args.repeat)[:2],
            len(wire),
        )
    )
    for fmt in FORMATS:
        print(_line(fmt, *_best(lambda fmt=fmt: render(document, fmt, diffs), args.repeat)))
    print(
        _line("html without the diff text", *_best(lambda: render(document, "html"), args.repeat))
    )


if __name__ == "__main__":
    main()
