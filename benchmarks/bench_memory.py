"""Peak memory of every file tool on a 1 GB file with no line break.

    python -m benchmarks.bench_memory [--size-mb 1024] [--dir DIR]

Writes (once) a one-line file of minified JSON in a bench directory outside
the repository (``$TMPDIR/diffchunk-bench`` by default), then runs
``get_overview``, ``search_content`` (exact with and without grep, count,
regex, fuzzy), ``read_content`` (lines, head, tail, semantic, pattern),
``edit_content`` (preview, apply) and ``revert_edit`` on it in one fresh
process (:mod:`tests.property.file_memory`) and prints, for each, its time,
the growth of the process's peak resident size while it ran, and the peak of
the programs it started (grep is capped by ``GREP_ADDRESS_SPACE``).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from tests.property.file_memory import measure, write_one_line

MB = 1024 * 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--dir", help="bench directory (default $TMPDIR/diffchunk-bench)")
    args = parser.parse_args(argv)
    directory = Path(args.dir or Path(tempfile.gettempdir()) / "diffchunk-bench")
    directory.mkdir(parents=True, exist_ok=True)
    path = write_one_line(directory / f"one-line-{args.size_mb}M.json", args.size_mb * MB)
    env = {
        **os.environ,
        "DIFFCHUNK_BACKUP_DIR": str(directory / "backups"),
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
    }
    size = path.stat().st_size
    print(f"{path}: {size / MB:.0f} MB, no line break")
    print(f"{'operation':32} {'time':>9} {'peak growth':>12} {'children peak':>14}")
    worst = 0
    for row in measure(path, env):
        growth = int(str(row["peak_growth"]))
        worst = max(worst, growth)
        note = f"  ({row['error']})" if row["error"] else ""
        print(
            f"{row['operation']:32} {float(str(row['seconds'])):8.2f}s "
            f"{growth / MB:10.0f} MB {int(str(row['children_peak'])) / MB:12.0f} MB{note}"
        )
    print(f"largest peak growth: {worst / MB:.0f} MB for a {size / MB:.0f} MB line")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
