"""Deterministic generator of large, valid git diffs.

Used by the load runs and their tests (``tests/property/load_mcp``,
``tests/server/test_load.py``) and by ``benchmarks/bench_diff.py``.
``python -m tests.property.gen_diff OUT --lines 1000000`` writes a diff of about
that many lines (about 33 bytes a line) made of many files with several hunks
each: modifications, additions, deletions and renames, with consistent
``@@`` counts.  The same seed always gives the same bytes.

:func:`small_files` writes the other shape of a large diff: very many files of a
few lines each (``--files N``), as a mass rename or a generated tree gives.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

_WORDS = (
    *("alpha", "beta", "gamma", "delta", "value", "result", "index", "count"),
    *("items", "total", "buffer", "config", "session", "handler", "request"),
    *("response", "cache", "token", "parser", "chunk"),
)


def _code_line(rng: random.Random) -> bytes:
    kind = rng.random()
    a, b = rng.choice(_WORDS), rng.choice(_WORDS)
    if kind < 0.15:
        return b""
    if kind < 0.45:
        return f"        {a}_{rng.randrange(100)} = {b}.{a}({rng.randrange(1000)})".encode()
    if kind < 0.7:
        return f"        if {a} > {rng.randrange(50)}: return {b}".encode()
    return f"    # {a} {b} {rng.choice(_WORDS)} {rng.randrange(10**6)}".encode()


def _hunk(rng: random.Random, old_start: int, new_start: int, out: list[bytes]) -> tuple[int, int]:
    body: list[bytes] = []
    old = new = 0
    for _ in range(rng.randrange(3, 6)):
        line = _code_line(rng)
        body.append(b" " + line)
        old += 1
        new += 1
    for _ in range(rng.randrange(1, 4)):
        for _ in range(rng.randrange(0, 4)):
            body.append(b"-" + _code_line(rng))
            old += 1
        for _ in range(rng.randrange(1, 6)):
            body.append(b"+" + _code_line(rng))
            new += 1
        for _ in range(rng.randrange(1, 4)):
            body.append(b" " + _code_line(rng))
            old += 1
            new += 1
    out.append(f"@@ -{old_start},{old} +{new_start},{new} @@ def f{old_start}():".encode())
    out.extend(body)
    return old, new


def generate(target_lines: int, seed: int = 20261121) -> bytes:
    rng = random.Random(seed)
    out: list[bytes] = []
    n = 0
    while len(out) < target_lines:
        path = f"src/pkg_{n // 50}/module_{n}.py"
        kind = rng.random()
        if kind < 0.05:
            size = rng.randrange(20, 400)
            out.append(f"diff --git a/{path} b/{path}".encode())
            out.append(b"new file mode 100644")
            out.append(b"index 0000000..1111111")
            out.append(b"--- /dev/null")
            out.append(f"+++ b/{path}".encode())
            out.append(f"@@ -0,0 +1,{size} @@".encode())
            out.extend(b"+" + _code_line(rng) for _ in range(size))
        elif kind < 0.08:
            size = rng.randrange(10, 200)
            out.append(f"diff --git a/{path} b/{path}".encode())
            out.append(b"deleted file mode 100644")
            out.append(b"index 2222222..0000000")
            out.append(f"--- a/{path}".encode())
            out.append(b"+++ /dev/null")
            out.append(f"@@ -1,{size} +0,0 @@".encode())
            out.extend(b"-" + _code_line(rng) for _ in range(size))
        else:
            old_path = path if kind < 0.95 else f"src/old/module_{n}.py"
            out.append(f"diff --git a/{old_path} b/{path}".encode())
            if old_path != path:
                out.append(b"similarity index 87%")
                out.append(f"rename from {old_path}".encode())
                out.append(f"rename to {path}".encode())
            out.append(b"index 3333333..4444444 100644")
            out.append(f"--- a/{old_path}".encode())
            out.append(f"+++ b/{path}".encode())
            old_line, delta = 1, 0
            for _ in range(rng.randrange(1, 12)):
                old_line += rng.randrange(5, 60)
                used_old, used_new = _hunk(rng, old_line, old_line + delta, out)
                old_line += used_old
                delta += used_new - used_old
        n += 1
    return b"\n".join(out) + b"\n"


def small_files(count: int, seed: int = 20261121) -> bytes:
    """A diff of ``count`` small files: each a one-hunk change of a few lines (one in ten
    added, one in twenty deleted), about 230 bytes a file, in paths of 1,000 files a
    directory."""
    rng = random.Random(seed)
    out: list[bytes] = []
    for n in range(count):
        path = f"tree/d{n // 1000:04d}/file_{n:07d}.py"
        kind = rng.random()
        if kind < 0.1:
            lines = [b"+" + _code_line(rng) for _ in range(rng.randrange(1, 4))]
            out.append(
                b"diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1111111\n"
                b"--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n"
                % (path.encode(), path.encode(), path.encode(), len(lines))
            )
        elif kind < 0.15:
            lines = [b"-" + _code_line(rng) for _ in range(rng.randrange(1, 4))]
            out.append(
                b"diff --git a/%s b/%s\ndeleted file mode 100644\nindex 2222222..0000000\n"
                b"--- a/%s\n+++ /dev/null\n@@ -1,%d +0,0 @@\n"
                % (path.encode(), path.encode(), path.encode(), len(lines))
            )
        else:
            start = rng.randrange(1, 200)
            lines = [b" " + _code_line(rng), b"-" + _code_line(rng), b"+" + _code_line(rng)]
            lines.append(b" " + _code_line(rng))
            out.append(
                b"diff --git a/%s b/%s\nindex 3333333..4444444 100644\n--- a/%s\n+++ b/%s\n"
                b"@@ -%d,3 +%d,3 @@\n" % (*(path.encode(),) * 4, start, start)
            )
        out.append(b"\n".join(lines) + b"\n")
    return b"".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tests.property.gen_diff", description=__doc__.splitlines()[0]
    )
    parser.add_argument("out", type=Path)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, help="write small_files(N) instead")
    parser.add_argument("--seed", type=int, default=20261121)
    args = parser.parse_args()
    if args.files:
        data = small_files(args.files, args.seed)
    else:
        data = generate(args.lines, args.seed)
    args.out.write_bytes(data)
    lines = data.count(b"\n")
    print(f"wrote {args.out}: {lines} lines, {len(data) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
