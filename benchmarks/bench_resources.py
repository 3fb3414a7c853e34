"""``make bench-resources``: peak memory and time of the resource cases of issue 23.

Usage::

    python -m benchmarks.bench_resources [--files N] [--lines N] [--case NAME ...]
                                         [--baseline DIR] [--workdir DIR]

Each case is a row of :data:`CASES`: a name, an *input* (made once in the work
directory by a function of :data:`INPUTS`, and kept there for the next run), a
*setup* (run first, not measured: the diff loaded, the record filled) and a
*call* (measured).  Each case runs in a fresh interpreter, so what it holds is
its own: printed are the call's wall-clock time and the process's peak
resident memory during the call (``VmHWM``, reset after the setup through
``/proc/self/clear_refs``; it includes what the setup left resident, the
loaded diff, as a server holds it), and the setup's time and peak.  A case
that fails prints the last line of its error and the run goes on.

The cases of a run share one state and cache directory (the review record,
the exports written), in the order of :data:`CASES`: the exports without
findings come before ``mark_reviewed`` and ``add_finding`` write theirs.

The calls are the MCP tools as the server runs them (``diffchunk.server``'s
functions, answers as JSON text; a large export is written to the cache).  To
compare with another diffchunk (before a change), unpack its package and name
it with ``--baseline``: every case then runs there too, printed side by side::

    git archive main diffchunk | tar -x -C /tmp/before
    python -m benchmarks.bench_resources --baseline /tmp/before

To add a case (a file tool on a 1 GB file without a line break, a snapshot of a
3 GB blob...): an input function in :data:`INPUTS` if it needs a new input,
and a :class:`Case` whose setup and call take the :class:`Run`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: Findings written before the cases "with findings" (the setup of add_finding).
FINDINGS = 1_000
FORMATS = ("markdown", "html", "sarif", "rdjson", "github", "json")


@dataclass
class Run:
    """What a case's setup and call work with: its input and what the setup found."""

    input: Path
    workdir: Path
    found: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    name: str
    input: str  # a key of INPUTS
    setup: Callable[[Run], None]
    call: Callable[[Run], object]


# ---------------------------------------------------------------------- inputs


def _million_files(workdir: Path, args: argparse.Namespace) -> Path:
    from tests.property.gen_diff import small_files

    path = workdir / f"small_files_{args.files}.diff"
    if not path.is_file():
        _write(path, small_files(args.files))
    return path


def _long_diff(workdir: Path, args: argparse.Namespace) -> Path:
    from tests.property.gen_diff import generate

    path = workdir / f"generated_{args.lines}.diff"
    if not path.is_file():
        _write(path, generate(args.lines))
    return path


def _write(path: Path, data: bytes) -> None:
    partial = path.with_suffix(".partial")
    partial.write_bytes(data)
    partial.replace(path)


#: Input name -> the function that makes it (once) and returns its path.
INPUTS: dict[str, Callable[[Path, argparse.Namespace], Path]] = {
    "files": _million_files,
    "lines": _long_diff,
}


# ----------------------------------------------------------------------- calls


def _load_diff() -> Callable[[str], Any]:
    """``load_diff`` of the diffchunk measured (a baseline may predate review's folders)."""
    try:
        from diffchunk.review.sessions.loading import load_diff
    except ImportError:
        from importlib import import_module

        load: Callable[[str], Any] = import_module("diffchunk.review.loading").load_diff
        return load
    return load_diff


def _load(run: Run) -> None:
    summary = _load_diff()(str(run.input))
    run.found.update(chunks=summary.chunks, files=summary.files)


def _nothing(run: Run) -> None:
    pass


def _load_call(run: Run) -> object:
    from diffchunk.server.app import to_json

    summary = _load_diff()(str(run.input))
    run.found.update(chunks=summary.chunks, files=summary.files)
    return to_json(summary.to_dict())


def _server(module: str, name: str) -> Callable[..., str]:
    from importlib import import_module

    tool: Callable[..., str] = getattr(import_module(f"diffchunk.server.{module}"), name)
    return tool


def _export(fmt: str) -> Callable[[Run], object]:
    def call(run: Run) -> object:
        return _server("export_tools", "export_review")(str(run.input), fmt, "all")

    return call


def _file_paths(run: Run) -> list[tuple[str, int]]:
    """Every 997th file of the diff with a hunk's first new line (read from its text: a
    sample, so that the benchmark itself holds little)."""
    if "paths" not in run.found:
        picked: list[tuple[str, int]] = []
        with run.input.open("rb") as fh:
            path, seen = None, 0
            for raw in fh:
                if raw.startswith(b"+++ b/"):
                    seen += 1
                    path = raw[6:].rstrip(b"\n").decode() if seen % 997 == 0 else None
                elif raw.startswith(b"@@ ") and path is not None:
                    new = raw.split(b" ")[2]  # +start,count
                    start, _, count = new[1:].partition(b",")
                    if count != b"0":
                        picked.append((path, int(start)))
                    path = None
        run.found["paths"] = picked
    paths: list[tuple[str, int]] = run.found["paths"]
    return paths


def _add_findings(run: Run) -> None:
    """The diff loaded, then :data:`FINDINGS` findings on its files' first new lines."""
    from diffchunk.review import record

    _load(run)
    paths = _file_paths(run)
    rng = random.Random(7)
    for i, (path, line) in enumerate(rng.sample(paths, min(FINDINGS, len(paths)))):
        record.add_finding(str(run.input), path, f"Finding {i}", line=line, end_line=line)


def _add_one(run: Run) -> object:
    path, line = _file_paths(run)[3]
    return _server("record_tools", "add_finding")(
        str(run.input), path, "One more finding", line, line
    )


def _cases() -> list[Case]:
    get = _server
    cases = [
        Case("load_diff", "files", _nothing, _load_call),
        Case(
            "list_chunks", "files", _load, lambda r: get("diff_tools", "list_chunks")(str(r.input))
        ),
        Case(
            "get_chunk",
            "files",
            _load,
            lambda r: get("diff_tools", "get_chunk")(str(r.input), r.found["chunks"] // 2),
        ),
        Case(
            "find_chunks_for_files",
            "files",
            _load,
            lambda r: get("diff_tools", "find_chunks_for_files")(str(r.input), "tree/d0500/**"),
        ),
    ]
    cases += [Case(f"export_review {f}", "files", _load, _export(f)) for f in FORMATS]
    cases += [
        Case(
            "mark_reviewed('**')",
            "files",
            _load,
            lambda r: get("record_tools", "mark_reviewed")(str(r.input), file_pattern="**"),
        ),
        Case(
            "review_status",
            "files",
            _load,
            lambda r: get("record_tools", "review_status")(str(r.input)),
        ),
        Case("add_finding", "files", _add_findings, _add_one),
        Case(
            "list_findings",
            "files",
            _load,
            lambda r: get("record_tools", "list_findings")(str(r.input)),
        ),
    ]
    cases += [Case(f"export_review {f} +findings", "files", _load, _export(f)) for f in FORMATS]
    cases.append(Case("3.76M-line diff: export_review html", "lines", _load, _export("html")))
    return cases


#: The rows, in the order they run (they share the record of one run).
CASES: list[Case] = _cases()


# ------------------------------------------------------------ the measured run


def _status_kb(key: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def measure(name: str, input_path: str, workdir: str) -> dict[str, Any]:
    """Run case ``name`` in this interpreter (a fresh one): its setup, then its call."""
    case = next(c for c in CASES if c.name == name)
    run = Run(Path(input_path), Path(workdir))
    for module in ("diff_tools", "record_tools", "export_tools"):  # the server's, as it runs
        _server(module, "__name__")
    imports_kb = _status_kb("VmHWM")
    start = time.perf_counter()
    case.setup(run)
    setup_s = time.perf_counter() - start
    setup_kb = _status_kb("VmHWM")
    reset = _reset_peak()
    start, cpu = time.perf_counter(), time.process_time()
    answer = case.call(run)
    call_s, call_cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "setup_s": setup_s,
        "setup_mb": setup_kb / 1024,
        "call_s": call_s,
        "call_cpu": call_cpu,
        "call_mb": _status_kb("VmHWM") / 1024 if reset else None,
        "process_mb": max(setup_kb, _status_kb("VmHWM")) / 1024,
        "imports_mb": imports_kb / 1024,
        "answer_chars": len(answer) if isinstance(answer, str) else None,
    }


def _child(case: Case, path: Path, workdir: Path, package: str | None) -> dict[str, Any] | str:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package, str(ROOT)) if p)
    env["DIFFCHUNK_STATE_DIR"] = str(workdir / "state")
    env["DIFFCHUNK_CACHE_DIR"] = str(workdir / "cache")
    proc = subprocess.run(
        # By its path: a baseline tree's own benchmarks package would shadow this one.
        [sys.executable, str(Path(__file__).resolve()), "--measure", case.name, str(path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(workdir),
        timeout=3600,
    )
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        return lines[-1] if lines else f"exit {proc.returncode}"
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _cell(result: dict[str, Any] | str | None) -> str:
    if result is None:
        return ""
    if isinstance(result, str):
        return f"failed: {result[:60]}"
    peak = result["call_mb"] if result["call_mb"] is not None else result["process_mb"]
    return f"{result['call_s']:7.2f} s ({result['call_cpu']:6.2f}) {peak:6.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--files", type=int, default=1_000_000, help="files of the small-files diff"
    )
    parser.add_argument("--lines", type=int, default=3_760_000, help="lines of the long diff")
    parser.add_argument("--case", action="append", default=[], help="run only these cases")
    parser.add_argument("--baseline", help="a directory holding another diffchunk package")
    parser.add_argument("--baseline-only", action="store_true", help="run the baseline alone")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "dcresources"))
    parser.add_argument("--measure", nargs=2, metavar=("CASE", "INPUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure[0], args.measure[1], os.getcwd())))
        return
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    cases = [c for c in CASES if not args.case or c.name in args.case]
    inputs = {name: INPUTS[name](workdir, args) for name in {c.input for c in cases}}
    for name, path in sorted(inputs.items()):
        print(f"input {name}: {path.name}, {path.stat().st_size / 1e6:.0f} MB")
    versions = [("this", None)] + ([("baseline", args.baseline)] if args.baseline else [])
    if args.baseline_only:
        versions = versions[1:]
    for label, _ in versions:  # each version a record and cache of its own
        run_dir = workdir / label
        if run_dir.exists():
            subprocess.run(["rm", "-rf", str(run_dir)], check=True)
        run_dir.mkdir()
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    print("each cell: the call's time (its CPU time) and the peak resident memory while it ran")
    header = f"{'case':<40} {'this':>28}"
    if args.baseline:
        header += f" {'baseline':>28}"
    print(header + "   setup (this)")
    for case in cases:
        results = {
            label: _child(case, inputs[case.input], workdir / label, package)
            for label, package in versions
        }
        ours = results.get("this")
        setup = (
            f"   {ours['setup_s']:.1f} s, {ours['setup_mb']:.0f} MB"
            if isinstance(ours, dict)
            else ""
        )
        line = f"{case.name:<40} {_cell(ours):>28}"
        if args.baseline:
            line += f" {_cell(results['baseline']):>28}"
        print(line + setup, flush=True)


if __name__ == "__main__":
    main()
