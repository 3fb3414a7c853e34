"""``make bench-record-export``: a review recorded in a real record, exported, timed.

``bench_export`` renders a document built in memory; this goes the whole way a
user's export goes: a diff file on disk loaded through the session store,
findings written with ``add_finding`` into a real SQLite record (its own
state and cache directories, in a temporary directory), then
``list_findings(limit=10)``, ``review_status`` and ``export_review`` in each
format, as the MCP tools and the CLI call them.  Two reviews:

- ``hunk``: one added file of ``--hunk-lines`` lines (one hunk) with
  ``--findings`` findings spread over it, ranges of up to three lines and
  suggestions among them (every finding lies in the same long hunk);
- ``generated``: the generated ``--lines``-line diff of ``tests/property/gen_diff.py``
  (thousands of files, small hunks) with ``--findings`` findings on random
  hunk lines, both sides, ranges, whole-file findings and suggestions.

Printed per review: the first load, the writes of the findings (total and per
finding), then the best wall-clock and CPU time of ``--repeat`` runs of each
read, and each export's size.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.property.gen_diff import generate

SEVERITIES = ("blocker", "major", "minor", "nit", "question")
FORMATS = ("markdown", "html", "sarif", "rdjson", "github", "json")


def hunk_diff(lines: int) -> bytes:
    """One added file of ``lines`` lines, one hunk."""
    head = (
        "diff --git a/big.py b/big.py\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/big.py\n@@ -0,0 +1,{lines} @@\n"
    )
    body = "".join(f"+    value_{i} = compute({i})\n" for i in range(1, lines + 1))
    return (head + body).encode()


def _add(path: str, i: int, file_path: str, **where: Any) -> None:
    from diffchunk.review import record

    suggestion = None
    if where.get("side", "new") == "new" and "line" in where and i % 7 == 0:
        suggestion = "    value = compute(value)\n" * (where["end_line"] - where["line"] + 1)
    record.add_finding(
        path,
        file_path,
        f"Finding {i}: does `value_{i}` hold when the cache is cold?",
        severity=SEVERITIES[i % len(SEVERITIES)],
        suggestion=suggestion,
        **where,
    )


def add_on_hunk(path: str, lines: int, findings: int) -> None:
    """Findings spread over the one hunk of :func:`hunk_diff`."""
    for i in range(findings):
        first = 1 + i * lines // findings
        _add(path, i, "big.py", line=first, end_line=min(lines, first + i % 3))


def add_on_hunks(path: str, findings: int, seed: int = 7) -> None:
    """Findings on random hunk lines of the loaded diff's files (as ``bench_export``)."""
    from diffchunk.review import record

    rng = random.Random(seed)
    files = [
        f
        for f in record.export_document(path).to_dict()["files"]
        if f["hunks"] and f["state"] != "excluded"
    ]
    for i in range(findings):
        file = rng.choice(files)
        if i % 20 == 0:
            _add(path, i, file["path"])
            continue
        hunk = rng.choice(file["hunks"])
        side = "old" if i % 5 == 0 and hunk["old_count"] else "new"
        if hunk[f"{side}_count"] == 0:
            side = "old" if side == "new" else "new"
        start, count = hunk[f"{side}_start"], hunk[f"{side}_count"]
        first = start + rng.randrange(count)
        last = min(start + count - 1, first + rng.randrange(3))
        _add(path, i, file["path"], line=first, end_line=last, side=side)


def _best(fn: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    wall = cpu = float("inf")
    out: object = None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu, out


def _line(name: str, wall: float, cpu: float, extra: str = "") -> str:
    return f"  {name:<28} {wall:8.2f} s {cpu:8.2f} s  {extra}"


def run(name: str, data: bytes, add: Callable[[str], None], repeat: int, root: Path) -> None:
    from diffchunk.review import record
    from diffchunk.review.tools.exporting import export_review

    os.environ["DIFFCHUNK_STATE_DIR"] = str(root / name / "state")
    os.environ["DIFFCHUNK_CACHE_DIR"] = str(root / name / "cache")
    diff = root / name / f"{name}.diff"
    diff.parent.mkdir(parents=True)
    diff.write_bytes(data)
    path = str(diff)
    lines = data.count(b"\n")
    print(f"{name}: {lines:,} diff lines, {len(data) / 1e6:.1f} MB")
    print(f"  {'':<28} {'wall':>10} {'CPU':>10}")
    wall, cpu, _ = _best(lambda: record.review_status(path), 1)
    print(_line("load + review_status", wall, cpu))
    wall, cpu, _ = _best(lambda: add(path), 1)
    count = record.list_findings(path, status="all").total
    print(_line(f"add_finding x {count:,}", wall, cpu, f"{wall / max(count, 1) * 1e3:.1f} ms each"))
    wall, cpu, _ = _best(lambda: record.list_findings(path, limit=10), repeat)
    print(_line("list_findings(limit=10)", wall, cpu))
    wall, cpu, _ = _best(lambda: record.review_status(path), repeat)
    print(_line("review_status", wall, cpu))
    for fmt in FORMATS:
        wall, cpu, out = _best(lambda fmt=fmt: export_review(path, fmt, "all"), repeat)
        size = len(getattr(out, "text", "").encode("utf-8"))
        print(_line(f"export_review {fmt}", wall, cpu, f"{size / 1e6:.1f} MB"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=("hunk", "generated", "all"), default="all")
    parser.add_argument("--findings", type=int, default=2_000)
    parser.add_argument("--hunk-lines", type=int, default=20_000)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="bench-record-export-") as tmp:
        root = Path(tmp)
        if args.case in ("hunk", "all"):
            run(
                "hunk",
                hunk_diff(args.hunk_lines),
                lambda p: add_on_hunk(p, args.hunk_lines, args.findings),
                args.repeat,
                root,
            )
        if args.case in ("generated", "all"):
            run(
                "generated",
                generate(args.lines),
                lambda p: add_on_hunks(p, args.findings),
                args.repeat,
                root,
            )


if __name__ == "__main__":
    main()
