"""Peak memory of each file tool on a file with no line break, measured in a process of its own.

A one-line file (minified JSON, a needle in the middle) is the worst case of
the file tools' memory: every window, match, preview and read meets the one
line.  :func:`measure` runs each operation of :data:`OPERATIONS` in one fresh
Python, one after the other, and for each reports its seconds and its *peak
growth*: the process's peak resident size while it ran (``VmHWM``, reset
before it through ``/proc/self/clear_refs``) less its resident size before
it, and the peak of the programs it started (grep, wc: ``RUSAGE_CHILDREN``,
the largest so far).  The file tools' caches are cleared between operations.

Used by ``tests/files/test_memory.py`` (64 MB, a bound on each growth) and
``benchmarks/bench_memory.py`` (``make bench-memory``: 1 GB, the figures).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

NEEDLE = "NEEDLE_xyz"
UNIT = b'{"id":12345,"name":"alpha beta gamma","tags":["x","y"],"value":3.14159},'

OPERATIONS: dict[str, str] = {
    "get_overview": "overview.get_overview(path)",
    "search_content exact": "content_search.search_content(path, NEEDLE, fuzzy=False)",
    "search_content exact, no grep": "no_grep(lambda: content_search.search_content(path, NEEDLE, fuzzy=False))",
    "search_content count_only": "content_search.search_content(path, NEEDLE, fuzzy=False, count_only=True)",
    "search_content regex": r"content_search.search_content(path, 'NEEDLE_\\w+', regex=True, fuzzy=False)",
    "search_content fuzzy": "content_search.search_content(path, 'NEEDLE_xyy')",
    "read_content lines": "content_read.read_content(path, 1, 100)",
    "read_content head": "content_read.read_content(path, 1, 100, mode='head')",
    "read_content tail": "content_read.read_content(path, 1, 100, mode='tail')",
    "read_content semantic": "content_read.read_content(path, 1, 100, mode='semantic')",
    "read_content pattern": "content_read.read_content(path, pattern=NEEDLE)",
    "edit_content preview": "edit.edit_content(path, [{'search': NEEDLE, 'replace': 'NEEDLE_abc'}])",
    "edit_content preview, fuzzy": (
        "edit.edit_content(path, [{'search': 'NEEDLE_xyy', 'replace': 'NEEDLE_abc'}])"
    ),
    "edit_content apply": (
        "edit.edit_content(path, [{'search': NEEDLE, 'replace': 'NEEDLE_abc'}], preview=False)"
    ),
    "revert_edit": "edit.revert_edit(path)",
}
"""Each file tool's call on ``path`` (in this order: the edit is applied, then reverted)."""

PROBE = r"""
import json, os, resource, sys, time
from diffchunk.files import access, content_read, content_search, edit, overview
path, NEEDLE = sys.argv[1], sys.argv[2]
operations = json.loads(sys.argv[3])

def no_grep(call):
    os.environ["DIFFCHUNK_NO_GREP"] = "1"
    try:
        return call()
    finally:
        del os.environ["DIFFCHUNK_NO_GREP"]

def status(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0

for name, code in operations.items():
    access.clear_cache()
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # the peak resident size starts again from the current one
    before = status("VmRSS")
    started = time.perf_counter()
    try:
        result = eval(code)
        error = None if result is None or result.to_dict() else "empty"
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"[:200]
    print(json.dumps({
        "operation": name,
        "seconds": time.perf_counter() - started,
        "peak_growth": status("VmHWM") - before,
        "children_peak": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024,
        "error": error,
    }), flush=True)
"""


def write_one_line(path: Path, size: int) -> Path:
    """Write (once) about ``size`` bytes of minified JSON with no line break, the
    needle in the middle."""
    if path.exists() and abs(path.stat().st_size - size) < len(UNIT) * 2:
        return path
    units = size // len(UNIT)
    block = UNIT * 8192
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        for half, after in (
            (units // 2, b'"' + NEEDLE.encode() + b'",'),
            (units - units // 2, b""),
        ):
            whole, rest = divmod(half, 8192)
            for _ in range(whole):
                fh.write(block)
            fh.write(UNIT * rest + after)
    os.replace(tmp, path)
    return path


def measure(
    path: Path, env: dict[str, str], operations: dict[str, str] | None = None
) -> list[dict[str, object]]:
    """Each operation's figures (see the module doc), run on ``path`` in one fresh process."""
    chosen = OPERATIONS if operations is None else operations
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(path), NEEDLE, json.dumps(chosen)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if len(rows) != len(chosen):
        raise RuntimeError(f"the probe stopped ({done.returncode}): {done.stderr[-2000:]}")
    return rows
