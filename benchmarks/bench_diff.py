"""Benchmark: load a large diff, then list and fetch chunks.

Usage::

    python -m benchmarks.bench_diff [--diff FILE ...] [--lines N]
                                    [--baseline-python PATH] [--calls N]

Inputs: the 194k-line corpus diff (when ``../shared/corpus`` is present), a
generated ~1M-line diff (``tests/property/gen_diff.py``, deterministic), and any
``--diff`` given.  Each measurement runs in a fresh interpreter so that peak
RSS (``VmHWM``, or ``ru_maxrss`` where there is no ``/proc``) belongs to that
run alone.

When a Python with ``diffchunk==0.2.0`` is given (``--baseline-python``, or
found at ``$DIFFCHUNK_BASELINE_PYTHON``), the same work runs there too and the
ratios are printed side by side.  Set one up with::

    python3 -m venv /tmp/dc020 && /tmp/dc020/bin/pip install diffchunk==0.2.0
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.property.gen_diff import generate

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"

# Runs inside the measured interpreter.  ``IMPL`` selects the API to call.
_DRIVER = r"""
import json, resource, statistics, sys, time
impl, path, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
def peak_rss_kb():
    # VmHWM belongs to this program image alone; ru_maxrss survives exec, so
    # it would report the benchmark's own peak when that one was larger.
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rss0 = peak_rss_kb()
if impl == "ours":
    from diffchunk.review.tools import diff_tools as t
    load = lambda: t.load_diff(path).to_dict()
    listing = lambda: t.list_chunks(path)  # typed: the JSON is the shell's
    chunk = lambda n: t.get_chunk(path, n, include_context=False)
else:
    from src.tools import DiffChunkTools
    tools = DiffChunkTools()
    load = lambda: tools.load_diff(path)
    listing = lambda: tools.list_chunks(path)
    chunk = lambda n: tools.get_chunk(path, n, include_context=False)
t0 = time.perf_counter()
summary = load()
load_s = time.perf_counter() - t0
n_chunks = summary["chunks"]
def per_call(fn):
    times = []
    for i in range(calls):
        t = time.perf_counter(); fn(i); times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000, max(times) * 1000
list_med, list_max = per_call(lambda i: listing())
step = max(1, n_chunks // max(1, calls))
get_med, get_max = per_call(lambda i: chunk(1 + (i * step) % max(1, n_chunks)))
rss = peak_rss_kb()
bare_med = None
if impl == "ours":
    # get_chunk writes each chunk's files as seen in the review record the first
    # time: the same calls on other chunks with that write left out.
    t.record_seen = lambda *a, **k: None
    bare_med, _ = per_call(lambda i: chunk(1 + (i * step + 1) % max(1, n_chunks)))
print(json.dumps({
    "load_s": load_s, "chunks": n_chunks, "files": summary["files"],
    "list_ms": list_med, "list_max_ms": list_max,
    "get_ms": get_med, "get_max_ms": get_max, "get_bare_ms": bare_med,
    "peak_rss_mb": rss / 1024, "import_rss_mb": rss0 / 1024,
}))
"""


def _run(python: str, impl: str, path: Path, calls: int) -> dict[str, float] | None:
    env = dict(os.environ)
    if impl == "ours":
        env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [python, "-c", _DRIVER, impl, str(path), str(calls)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),
        timeout=1800,
    )
    if proc.returncode != 0:
        print(f"  [{impl}] failed: {proc.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _inputs(args: argparse.Namespace, workdir: Path) -> list[Path]:
    paths = [Path(p).resolve() for p in args.diff]
    corpus = CORPUS / "sqlalchemy_rel_1_4_0..rel_1_4_54.diff"
    if not args.diff and corpus.is_file():
        paths.append(corpus)
    if not args.diff:
        generated = workdir / f"generated_{args.lines}.diff"
        if not generated.is_file():
            generated.write_bytes(generate(args.lines))
        paths.append(generated)
    return paths


def _fmt(ours: float, base: float | None, unit: str, better_low: bool = True) -> str:
    if base is None:
        return f"{ours:10.2f} {unit:<3}"
    ratio = base / ours if ours else float("inf")
    return f"{ours:10.2f} {unit:<3} vs {base:10.2f} {unit:<3} ({ratio:5.1f}x)"


def main() -> None:
    parser = argparse.ArgumentParser(description="diffchunk diff benchmark")
    parser.add_argument("--diff", action="append", default=[], help="a diff file to measure")
    parser.add_argument("--lines", type=int, default=1_000_000, help="size of the generated diff")
    parser.add_argument("--calls", type=int, default=20, help="calls per per-call measurement")
    parser.add_argument(
        "--baseline-python",
        default=os.environ.get("DIFFCHUNK_BASELINE_PYTHON"),
        help="a python with diffchunk==0.2.0 installed, to compare against",
    )
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "dcbench"))
    args = parser.parse_args()
    workdir = Path(args.workdir)
    # get_chunk records what it returns in the review record: not in the user's.
    os.environ.setdefault("DIFFCHUNK_STATE_DIR", str(workdir / "state"))
    workdir.mkdir(parents=True, exist_ok=True)

    for path in _inputs(args, workdir):
        size_mb = path.stat().st_size / 1e6
        with path.open("rb") as fh:
            n_lines = sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 20), b""))
        print(f"\n{path.name}: {n_lines:,} lines, {size_mb:.1f} MB")
        ours = _run(sys.executable, "ours", path, args.calls)
        base = (
            _run(args.baseline_python, "0.2.0", path, args.calls) if args.baseline_python else None
        )
        if ours is None:
            continue
        label = "diffchunk (this)  vs 0.2.0 (ratio: how many times better)" if base else "diffchunk"
        print(f"  {label}")
        print(f"  chunks/files      {ours['chunks']:.0f}/{ours['files']:.0f}", end="")
        print(f"   vs {base['chunks']:.0f}/{base['files']:.0f}" if base else "")
        rows = [
            ("load", "load_s", "s"),
            ("peak RSS", "peak_rss_mb", "MB"),
            ("list_chunks", "list_ms", "ms"),
            ("get_chunk", "get_ms", "ms"),
        ]
        for title, key, unit in rows:
            print(f"  {title:<17} {_fmt(ours[key], base[key] if base else None, unit)}")
        if ours.get("get_bare_ms") is not None:
            print(f"  {'  no record write':<17} {_fmt(ours['get_bare_ms'], None, 'ms')}")
        print(
            f"  (per-call figures are medians of {args.calls} calls; "
            f"max list {ours['list_max_ms']:.2f} ms, max get {ours['get_max_ms']:.2f} ms; "
            f"RSS after imports {ours['import_rss_mb']:.0f} MB)"
        )


if __name__ == "__main__":
    main()
