"""Benchmark the large-file tools against shell floors (and largefile 0.3.0).

    python -m benchmarks.bench_files [--size 100M|1G] [--dir DIR]
                                     [--largefile-python PATH]

Generates (once, deterministically) log files of 100 MB and 1 GB in a bench
directory outside the repository, fetches the TypeScript compiler's
``typescript.js`` from npm as a large real source file, then runs each
operation in a fresh subprocess and prints its wall time and peak RSS next to
the same operation done by ``grep``/``tail``/``sed``/``cp`` and, when a Python
with ``largefile==0.3.0`` is given, by largefile.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SEED = 20240115
LEVELS = ("DEBUG",) * 8 + ("INFO",) * 9 + ("WARN",) * 2 + ("ERROR",)
MESSAGES = (
    "request completed",
    "cache miss for key {k}",
    "connection pool exhausted, waiting for a free slot",
    "failed to receive heartbeat from peer node-{n}",
    "retrying upstream call after timeout",
    "user {n} logged in from 10.{a}.{b}.{c}",
    "scheduled job sync-{n} started",
    "payload validation failed: field 'amount' must be positive",
    "slow query detected on table orders ({n} ms)",
    "config reloaded without changes",
    "opened file handle for segment {k}",
    "garbage collection pause of {n} ms",
)
PATHS = ("/api/v1/items", "/api/v1/users", "/health", "/api/v2/orders", "/static/app.js")
SIZES = {"100M": 100 * 1024 * 1024, "1G": 1024 * 1024 * 1024}
MISSPELT = "recieve heartbeat"


def _block(rng: random.Random, lines: int) -> bytes:
    out = []
    for i in range(lines):
        level = rng.choice(LEVELS)
        msg = rng.choice(MESSAGES).format(
            k=f"{rng.getrandbits(32):08x}",
            n=rng.randrange(1, 5000),
            a=rng.randrange(256),
            b=rng.randrange(256),
            c=rng.randrange(256),
        )
        secs = i % 86400
        out.append(
            f"2024-01-15T{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}."
            f"{rng.randrange(1000):03d}Z [{level:<5}] worker-{rng.randrange(32):02d} "
            f"req={rng.getrandbits(48):012x} GET {rng.choice(PATHS)}/{rng.randrange(10**6)} "
            f"status={rng.choice((200, 200, 200, 201, 304, 404, 500))} "
            f"duration_ms={rng.randrange(2000)} msg={msg}\n"
        )
    return "".join(out).encode()


def generate_log(path: Path, size: int) -> None:
    """Write a deterministic log of about ``size`` bytes (whole lines) to ``path``."""
    rng = random.Random(SEED)
    block = _block(rng, 200_000)  # about 33 MB of distinct lines
    tmp = path.with_suffix(".tmp")
    written = 0
    day = 0
    with open(tmp, "wb") as fh:
        while written < size:
            day += 1
            piece = block.replace(
                b"2024-01-15", f"2024-{1 + day // 28:02d}-{1 + day % 28:02d}".encode()
            )
            if written + len(piece) > size:
                cut = piece.rfind(b"\n", 0, size - written) + 1
                fh.write(piece[:cut])
                break
            fh.write(piece)
            written += len(piece)
    os.replace(tmp, path)


# -- fixtures ------------------------------------------------------------------


def bench_dir(given: str | None) -> Path:
    base = Path(given) if given else Path(tempfile.gettempdir()) / "diffchunk-bench"
    base.mkdir(parents=True, exist_ok=True)
    return base


def ensure_log(directory: Path, size: str) -> Path:
    path = directory / f"log-{size}.log"
    if not path.exists() or path.stat().st_size < SIZES[size] - 4096:
        print(f"generating {path} ...", file=sys.stderr)
        generate_log(path, SIZES[size])
    return path


def ensure_typescript(directory: Path) -> Path | None:
    """``typescript.js`` (TypeScript 5, ~9 MB) from the npm registry, fetched once."""
    target = directory / "typescript.js"
    if target.exists():
        return target
    npm = shutil.which("npm")
    if npm is None:
        print("npm not found: skipping the outline benchmark", file=sys.stderr)
        return None
    done = subprocess.run(
        [npm, "pack", "typescript@5", "--silent"], cwd=directory, capture_output=True, text=True
    )
    if done.returncode != 0:
        print(f"npm pack failed: {done.stderr.strip()}", file=sys.stderr)
        return None
    tarball = directory / done.stdout.strip().splitlines()[-1]
    subprocess.run(
        ["tar", "-xzf", str(tarball), "package/lib/typescript.js"], cwd=directory, check=True
    )
    (directory / "package" / "lib" / "typescript.js").rename(target)
    shutil.rmtree(directory / "package", ignore_errors=True)
    return target


# -- measuring -------------------------------------------------------------------


def measured(
    cmd: list[str], *, timeout: float = 600, env: dict[str, str] | None = None
) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB, stdout) of one command.

    Peak RSS comes from GNU ``/usr/bin/time -f %M`` when present (``wait4``'s
    figure would include this process's memory, inherited at fork), else
    from ``wait4``.
    """
    timer = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None
    with tempfile.NamedTemporaryFile() as rss_file:
        wall, rss_mb, stdout = _measured(
            [timer, "-f", "%M", "-o", rss_file.name, *cmd] if timer else cmd, timeout, env
        )
        if timer:
            try:
                rss_mb = int(Path(rss_file.name).read_text().split()[-1]) / 1024
            except (ValueError, IndexError, OSError):
                pass
    return wall, rss_mb, stdout


def _measured(
    cmd: list[str], timeout: float, env: dict[str, str] | None
) -> tuple[float, float, str]:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                return float("inf"), 0.0, "timeout"
            time.sleep(0.001)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    rss_mb = usage.ru_maxrss / 1024
    if proc.returncode != 0:
        last = (stderr.strip().splitlines() or ["failed"])[-1]
        return float("nan"), rss_mb, f"error: {last}"
    return wall, rss_mb, stdout


OURS = r"""
import json, os, sys, time
op, path, arg = sys.argv[1], sys.argv[2], sys.argv[3]
from diffchunk.files import content_read, content_search
out = {}
if op == "count":
    t = time.perf_counter()
    r = content_search.search_content(path, arg, fuzzy=False, count_only=True)
    out = {"seconds": time.perf_counter() - t, "result": r.count}
elif op == "tail":
    t = time.perf_counter()
    r = content_read.read_content(path, mode="tail", limit=int(arg))
    out = {"seconds": time.perf_counter() - t, "result": r.lines_returned}
elif op == "read_end":
    line = int(arg)
    t = time.perf_counter()
    r = content_read.read_content(path, offset=line, limit=1)
    first = time.perf_counter() - t
    t = time.perf_counter()
    r2 = content_read.read_content(path, offset=line - 5, limit=1)
    out = {"seconds": first, "second": time.perf_counter() - t, "result": r.content[:40]}
elif op == "edit":
    from diffchunk.files.edit import edit_content
    search, replace = json.loads(arg)
    t = time.perf_counter()
    r = edit_content(path, [{"search": search, "replace": replace, "fuzzy": False}], preview=False)
    out = {"seconds": time.perf_counter() - t, "result": r.success}
elif op == "fuzzy":
    t = time.perf_counter()
    r = content_search.search_content(path, arg, fuzzy=True, max_results=20)
    out = {"seconds": time.perf_counter() - t, "result": r.total_matches}
elif op == "outline":
    from diffchunk.files.outline import build_outline, count_items
    source = open(path, "rb").read()
    t = time.perf_counter()
    items = build_outline(source, arg)
    out = {"seconds": time.perf_counter() - t, "result": count_items(items)}
print(json.dumps(out))
"""

LARGEFILE = r"""
import json, sys, time
op, path, arg = sys.argv[1], sys.argv[2], sys.argv[3]
from src import tools
t = time.perf_counter()
if op == "count":
    r = tools.search_content(path, arg, fuzzy=False, count_only=True)
    res = r.get("count", r.get("error"))
elif op == "tail":
    r = tools.read_content(path, mode="tail", limit=int(arg))
    res = r.get("lines_returned", r.get("error"))
elif op == "read_end":
    r = tools.read_content(path, offset=int(arg), limit=1)
    first = time.perf_counter() - t
    t = time.perf_counter()
    tools.read_content(path, offset=int(arg) - 5, limit=1)
    print(json.dumps({"seconds": first, "second": time.perf_counter() - t, "result": str(r)[:40]}))
    sys.exit(0)
elif op == "edit":
    search, replace = json.loads(arg)
    r = tools.edit_content(path, [{"search": search, "replace": replace, "fuzzy": False}], preview=False)
    res = r.get("success", r.get("error"))
elif op == "fuzzy":
    r = tools.search_content(path, arg, fuzzy=True, max_results=20)
    res = r.get("total_matches", r.get("error"))
elif op == "outline":
    r = tools.get_overview(path)
    res = len(r.get("outline", []))
print(json.dumps({"seconds": time.perf_counter() - t, "result": res}))
"""


def ours(op: str, path: Path, arg: str, env: dict[str, str]) -> dict[str, object]:
    _wall, rss, out = measured([sys.executable, "-c", OURS, op, str(path), arg], env=env)
    return _parse(out, rss)


def theirs(
    python: str, op: str, path: Path, arg: str, env: dict[str, str], timeout: float
) -> dict[str, object]:
    _wall, rss, out = measured(
        [python, "-c", LARGEFILE, op, str(path), arg], env=env, timeout=timeout
    )
    return _parse(out, rss)


def _parse(out: str, rss: float) -> dict[str, object]:
    try:
        data: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"seconds": None, "rss": rss, "note": out.strip()[:80]}
    data["rss"] = rss
    return data


def floor(cmd: list[str], repeat: int = 3) -> dict[str, object]:
    best: tuple[float, float, str] | None = None
    for _ in range(repeat):
        got = measured(cmd)
        if best is None or got[0] < best[0]:
            best = got
    assert best is not None
    return {"seconds": best[0], "rss": best[1], "result": best[2].strip()[:40]}


def best_ours(op: str, path: Path, arg: str, env: dict[str, str], repeat: int) -> dict[str, object]:
    """The fastest of ``repeat`` runs of one of our operations."""
    runs = [ours(op, path, arg, env) for _ in range(repeat)]
    timed = [r for r in runs if isinstance(r.get("seconds"), float)]
    if not timed:
        return runs[0]
    return min(timed, key=lambda r: float(r["seconds"]))  # type: ignore[arg-type]


def _fmt(entry: dict[str, object] | None, key: str = "seconds") -> str:
    if not entry:
        return "-"
    value = entry.get(key)
    if not isinstance(value, (int, float)):
        return str(entry.get("note", "n/a"))[:30]
    if value == float("inf"):
        return "timeout"
    text = f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"
    rss = entry.get("rss")
    if key == "seconds" and isinstance(rss, float) and rss:
        text += f" / {rss:.0f} MB"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--size", action="append", choices=sorted(SIZES), help="100M and/or 1G (default 100M)"
    )
    parser.add_argument("--dir", help="bench directory (default $TMPDIR/diffchunk-bench)")
    parser.add_argument("--largefile-python", help="python of a virtualenv with largefile==0.3.0")
    parser.add_argument("--largefile-timeout", type=float, default=300.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    sizes = args.size or ["100M"]
    directory = bench_dir(args.dir)
    env = {
        **os.environ,
        "DIFFCHUNK_BACKUP_DIR": str(directory / "backups"),
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
    }
    lf_env = {**os.environ, "HOME": str(directory / "largefile-home")}
    rows: list[tuple[str, str, str, str, str]] = []
    typescript = ensure_typescript(directory)
    for size in sizes:
        log = ensure_log(directory, size)
        subprocess.run(
            ["cat", str(log)], stdout=subprocess.DEVNULL, check=True
        )  # warm the page cache
        total = int(
            subprocess.run(["wc", "-l", str(log)], capture_output=True, text=True).stdout.split()[0]
        )
        near_end = total - 10
        lf = args.largefile_python
        big = size == "1G"

        pure = {**env, "DIFFCHUNK_NO_GREP": "1"}
        count = best_ours("count", log, "ERROR", env, args.repeat)
        count_py = best_ours("count", log, "ERROR", pure, args.repeat)
        grep = floor(["grep", "-c", "ERROR", str(log)], args.repeat)
        lfc = theirs(lf, "count", log, "ERROR", lf_env, args.largefile_timeout) if lf else None
        rows.append(
            (
                f"count ERROR {size}",
                _fmt(count),
                f"grep -c {_fmt(grep)}",
                _fmt(lfc),
                f"{count.get('result')} vs {grep.get('result')}",
            )
        )
        rows.append((f"  same, pure Python (NO_GREP) {size}", _fmt(count_py), "", "", ""))

        tail = best_ours("tail", log, "1000", env, args.repeat)
        tail_floor = floor(["tail", "-n", "1000", str(log)], args.repeat)
        lft = theirs(lf, "tail", log, "1000", lf_env, args.largefile_timeout) if lf else None
        rows.append((f"tail 1000 {size}", _fmt(tail), f"tail -n {_fmt(tail_floor)}", _fmt(lft), ""))

        read_end = best_ours("read_end", log, str(near_end), env, args.repeat)
        read_end_py = best_ours("read_end", log, str(near_end), pure, args.repeat)
        sed = floor(["sed", "-n", f"{near_end}p", str(log)], args.repeat)
        lfr = (
            theirs(lf, "read_end", log, str(near_end), lf_env, args.largefile_timeout)
            if lf
            else None
        )
        rows.append(
            (
                f"read line {near_end} {size} (1st)",
                _fmt(read_end),
                f"sed -n {_fmt(sed)}",
                _fmt(lfr),
                "",
            )
        )
        rows.append(
            (f"read near end {size} (2nd)", _fmt(read_end, "second"), "", _fmt(lfr, "second"), "")
        )
        rows.append(
            (
                f"  same, pure Python (NO_GREP) {size} 1st/2nd",
                f"{_fmt(read_end_py)} / {_fmt(read_end_py, 'second')}",
                "",
                "",
                "",
            )
        )

        work = directory / f"edit-{size}.log"
        line = subprocess.run(
            ["sed", "-n", f"{near_end}p", str(log)], capture_output=True, text=True
        ).stdout.rstrip("\n")
        change = json.dumps([line, line.replace("msg=", "msg=EDITED ")])
        results = []
        for _ in range(args.repeat if not big else 2):
            shutil.copyfile(log, work)
            results.append(ours("edit", work, change, env))
            shutil.rmtree(directory / "backups", ignore_errors=True)
        timed = [r for r in results if isinstance(r.get("seconds"), float)]
        edit = min(timed, key=lambda r: float(r["seconds"])) if timed else results[0]  # type: ignore[arg-type]
        cp_sed_runs = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            subprocess.run(["cp", str(log), str(work)], check=True)
            subprocess.run(["sed", "-i", f"{near_end}s/msg=/msg=EDITED /", str(work)], check=True)
            cp_sed_runs.append(time.perf_counter() - started)
        lfe = None
        if lf and not big:
            shutil.copyfile(log, work)
            lfe = theirs(lf, "edit", work, change, lf_env, args.largefile_timeout)
        rows.append(
            (
                f"edit 1 line near end {size}",
                _fmt(edit),
                f"cp+sed -i {_fmt({'seconds': min(cp_sed_runs)})}",
                _fmt(lfe),
                str(edit.get("result")),
            )
        )
        work.unlink(missing_ok=True)

        if not big:
            fz = best_ours("fuzzy", log, MISSPELT, env, args.repeat)
            lff = theirs(lf, "fuzzy", log, MISSPELT, lf_env, args.largefile_timeout) if lf else None
            rows.append(
                (f"fuzzy '{MISSPELT}' {size}", _fmt(fz), "", _fmt(lff), f"{fz.get('result')} lines")
            )

    if typescript is not None:
        outline = best_ours("outline", typescript, "javascript", env, args.repeat)
        lfo = (
            theirs(args.largefile_python, "outline", typescript, "", lf_env, args.largefile_timeout)
            if args.largefile_python
            else None
        )
        rows.append(
            (
                "outline typescript.js (9 MB)",
                _fmt(outline),
                "",
                _fmt(lfo),
                f"{outline.get('result')} items",
            )
        )

    head = ("operation", "diffchunk (time / peak RSS)", "floor", "largefile 0.3.0", "check")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(5)]
    for row in [head, *rows]:
        print("  ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(row)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
