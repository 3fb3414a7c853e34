"""Benchmark: reviewing a git range vs running ``git diff`` alone.

Usage::

    python -m benchmarks.bench_git [--repo PATH] [--range A..B] [--runs N]

Without ``--repo`` a repository with thousands of files and a long history is
generated once (deterministically, with ``git fast-import``) under
``bench-out/git-repo`` and reused by later runs; its default range spans most
of the history (``bench-a..bench-b``).

Measured (median of ``--runs``, each in a fresh process where it says CLI;
the three CLI-level measurements run round by round, interleaved, so that a
shared host's drift shifts them alike):

* ``git diff A B > /dev/null`` — the floor;
* ``diffchunk review A..B --json > /dev/null``, cold (empty diff cache):
  git diff into the cache + parse + filter + chunk + JSON;
* the same again, warm: the cached diff is reused and ``git diff`` must not run;
* in-process ``load_git_diff`` cold and warm (no interpreter start-up), and the
  number of ``git diff`` runs on the warm path (must be 0).

The CLI runs as installed: from a throw-away virtualenv that reaches this
checkout and the development environment's packages through a plain ``.pth``
file, with the package's bytecode compiled, as ``pip install`` leaves it.  (The
editable install of the development environment adds an import hook that
loads ``pathlib`` and more at every start, about 10 ms that users do not pay.)
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_REPO = ROOT / "bench-out" / "git-repo"
FILES = 4000
COMMITS = 400
RANGE_FROM = 40
TARGET = 1.3

_CLI = "from diffchunk.console import main; main()"


def _line(path: str, i: int, version: int) -> str:
    return f"    value_{i} = compute({i}, {version})  # {path} line {i}\n"


def build_repo(path: Path, files: int = FILES, commits: int = COMMITS) -> None:
    """A deterministic repository: ``files`` files, ``commits`` commits, tags bench-a/bench-b."""
    rng = random.Random(20261121)
    tmp = path.with_name(path.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp)], check=True)
    contents: dict[str, list[str]] = {}
    names = [f"pkg{i % 80:02d}/mod{i // 80:03d}/file_{i:05d}.py" for i in range(files)]
    out: list[bytes] = []

    def put(p: str) -> None:
        data = "".join(contents[p]).encode()
        out.append(f"M 100644 inline {p}\ndata {len(data)}\n".encode() + data + b"\n")

    when = 1_700_000_000
    for n in range(1, commits + 1):
        out.append(b"commit refs/heads/main\n")
        out.append(
            f"mark :{n}\ncommitter Bench <bench@example.com> {when + n * 60} +0000\n".encode()
        )
        message = f"commit {n}\n".encode()
        out.append(f"data {len(message)}\n".encode() + message)
        if n > 1:
            out.append(f"from :{n - 1}\n".encode())
        if n == 1:
            for p in names:
                contents[p] = [_line(p, i, 0) for i in range(rng.randint(20, 120))]
                put(p)
        else:
            for p in rng.sample(names, 40):
                lines = contents[p]
                for _ in range(3):
                    at = rng.randrange(len(lines))
                    lines[at] = _line(p, at, n)
                if rng.random() < 0.3:
                    lines.insert(rng.randrange(len(lines)), _line(p, len(lines), n))
                put(p)
            new = f"pkg{n % 80:02d}/added/new_{n:04d}.py"
            contents[new] = [_line(new, i, n) for i in range(rng.randint(10, 60))]
            names.append(new)
            put(new)
            if n % 10 == 0:
                gone = names.pop(rng.randrange(len(names)))
                contents.pop(gone)
                out.append(f"D {gone}\n".encode())
        out.append(b"\n")
        if n == RANGE_FROM:
            out.append(f"reset refs/tags/bench-a\nfrom :{n}\n\n".encode())
    out.append(f"reset refs/tags/bench-b\nfrom :{commits}\n\n".encode())
    subprocess.run(
        ["git", "-C", str(tmp), "fast-import", "--quiet"], input=b"".join(out), check=True
    )
    subprocess.run(["git", "-C", str(tmp), "checkout", "-q", "main"], check=True)
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _measure(fn: Callable[[], None]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (this process and its children) of one ``fn()``."""
    cpu = _cpu()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start, _cpu() - cpu


def _interleaved(
    tasks: list[tuple[Callable[[], None], Callable[[], None] | None]], runs: int
) -> list[list[tuple[float, float]]]:
    """``runs`` rounds, each running every ``(fn, before)`` once in order.

    Round by round, so that a machine that gets slower or faster meanwhile
    (a shared host) shifts every task alike; returns each task's samples.
    """
    samples: list[list[tuple[float, float]]] = [[] for _ in tasks]
    for _ in range(runs):
        for i, (fn, before) in enumerate(tasks):
            if before is not None:
                before()
            samples[i].append(_measure(fn))
    return samples


def _medians(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def _median(
    fn: Callable[[], None], runs: int, before: Callable[[], None] | None = None
) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of ``fn`` over ``runs`` runs."""
    return _medians(_interleaved([(fn, before)], runs)[0])


def _installed_python(where: Path) -> str:
    """A virtualenv at ``where`` laid out like a regular install of this checkout.

    Its site-packages holds one plain ``.pth`` file naming the checkout and
    this interpreter's site-packages (whose own ``.pth`` files, the editable
    install's import hook among them, are then not run).
    """
    import site
    import venv

    venv.EnvBuilder(with_pip=False, symlinks=True).create(where)
    python = where / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    paths = [str(ROOT), *site.getsitepackages()]
    Path(purelib, "diffchunk-bench.pth").write_text("\n".join(paths) + "\n")
    return str(python)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, help="an existing repository to measure")
    parser.add_argument("--range", dest="revision_range", help="A..B (default bench-a..bench-b)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)

    repo: Path = args.repo or DEFAULT_REPO
    if args.repo is None and not (repo / ".git").exists():
        print(f"building {repo} ({FILES} files, {COMMITS} commits)...", file=sys.stderr)
        started = time.perf_counter()
        build_repo(repo)
        print(f"  built in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    revision_range = args.revision_range or "bench-a..bench-b"
    if "..." in revision_range or ".." not in revision_range:
        parser.error("--range must be a two-dot range A..B")
    left, right = revision_range.split("..", 1)

    # An installed package carries its bytecode (pip compiles it at install):
    # compile the working tree's modules likewise, so that no CLI run below
    # compiles a module whose .pyc is stale or missing (never refreshed under
    # PYTHONDONTWRITEBYTECODE) and start-up is measured as users meet it.
    compileall.compile_dir(str(ROOT / "diffchunk"), quiet=1)
    cache = Path(tempfile.mkdtemp(prefix="diffchunk-bench-cache-"))
    installed = _installed_python(Path(tempfile.mkdtemp(prefix="diffchunk-bench-venv-")))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["DIFFCHUNK_CACHE_DIR"] = str(cache)

    def clear_cache() -> None:  # diffs, and diffchunk's git directory of the repository (git/)
        for entry in cache.iterdir():
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()

    with open(os.devnull, "wb") as null:

        def plain_git() -> None:
            subprocess.run(["git", "-C", str(repo), "diff", left, right], stdout=null, check=True)

        def cli() -> None:
            subprocess.run(
                [
                    installed,
                    "-c",
                    _CLI,
                    "review",
                    "--repo",
                    str(repo),
                    revision_range,
                    "--json",
                ],
                stdout=null,
                env=env,
                check=True,
            )

        plain_git()  # warm the page cache
        size = int(
            subprocess.run(
                f"git -C '{repo}' diff {left} {right} | wc -c", shell=True, capture_output=True
            ).stdout
        )
        git_runs, cold_runs, warm_runs = _interleaved(
            [(plain_git, None), (cli, clear_cache), (cli, None)], args.runs
        )
        git_s, cli_cold, cli_warm = _medians(git_runs), _medians(cold_runs), _medians(warm_runs)
        # The cold review against the git diff of the same round.
        round_ratios = [c[0] / g[0] for c, g in zip(cold_runs, git_runs, strict=True)]

    # In-process: no interpreter start-up, and a count of git diff runs.
    os.environ["DIFFCHUNK_CACHE_DIR"] = str(cache)
    from diffchunk.git.runner import GitCommand, GitStream
    from diffchunk.review.ranges.load import load_git_diff
    from diffchunk.review.sessions.store import SessionStore

    diff_runs = [0]
    real_start_into = GitCommand.start_into

    def counting_start_into(self: GitCommand, *a: object, **kw: object) -> GitStream:
        diff_runs[0] += 1
        return real_start_into(self, *a, **kw)  # type: ignore[arg-type]

    # Every git diff starts here.
    GitCommand.start_into = counting_start_into  # type: ignore[method-assign]
    summary: dict[str, object] = {}

    def in_process() -> None:
        loaded = load_git_diff(str(repo.resolve()), revision_range, store=SessionStore())
        summary.update(loaded.to_dict())

    proc_cold = _median(in_process, args.runs, before=clear_cache)
    diff_runs[0] = 0
    proc_warm = _median(in_process, args.runs)
    warm_diff_runs = diff_runs[0]
    shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(Path(installed).parents[1], ignore_errors=True)

    print(f"repository: {repo}  range: {revision_range}")
    print(
        f"diff: {size / 1e6:.1f} MB, {summary.get('files')} files, "
        f"{summary.get('total_lines')} lines -> {summary.get('chunks')} chunks "
        f"({summary.get('files_excluded')} excluded)"
    )
    print(f"median of {args.runs} rounds (wall clock; CPU = user+sys incl. child processes):")
    rows = [
        ("git diff A B > /dev/null", git_s),
        ("diffchunk review A..B --json (CLI, cold cache)", cli_cold),
        ("diffchunk review A..B --json (CLI, warm cache)", cli_warm),
        ("load_git_diff in-process, cold cache", proc_cold),
        ("load_git_diff in-process, warm cache", proc_warm),
    ]
    for label, (wall, cpu) in rows:
        print(
            f"  {label:<48} {wall * 1000:7.0f} ms {wall / git_s[0]:5.2f}x"
            f"   cpu {cpu * 1000:7.0f} ms {cpu / git_s[1]:5.2f}x"
        )
    print(f"  git diff runs on the warm path: {warm_diff_runs} (must be 0)")
    print(
        "  cold CLI review / git diff of the same round: median "
        f"{statistics.median(round_ratios):.2f}x (range {min(round_ratios):.2f}-"
        f"{max(round_ratios):.2f}x)"
    )
    for name, (wall, cpu) in (("cold", cli_cold), ("warm", cli_warm)):
        by_wall = "meets" if wall <= TARGET * git_s[0] else "misses"
        by_cpu = "meets" if cpu <= TARGET * git_s[1] else "misses"
        print(
            f"target: {name} CLI review <= {TARGET}x git diff alone: "
            f"wall {by_wall} it, cpu {by_cpu} it"
        )
    return 0 if warm_diff_runs == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
