"""Property fuzzing of the diff engine: parse, filter, chunk, render, format, reduce.

Usage::

    python -m benchmarks.fuzz_diff --cases 100000 [--seed N] [--minutes M]
                                   [--git-every K] [--quiet]

Each case is one input, made by one of three generators:

- *mutated*: a real diff (``fixtures/``, ``fixtures/fuzz/``, the small files of
  ``../shared/corpus`` when present), or a line window of it, with a few random
  mutations: byte flips, line deletions/duplications/swaps, hunk header count
  changes, CRLF insertions, truncations, stripped context, diff-like lines
  inserted, two diffs spliced;
- *structural*: a well-formed diff written from a random model (git, plain
  unified, svn and ``git log -p`` styles; renames, copies, new/deleted files,
  mode changes, binary markers and payloads, no-newline markers, CRLF
  content, diff-like content lines), with the parse result it must give;
- *git* (every ``--git-every`` cases): a real repository built in a temporary
  directory from random contents and edits, diffed with ``git diff --binary``.

Properties checked on every input (see :func:`check_input`): only
``NotADiffError`` from the parser; every call under one second; sections tile
the input byte for byte; the fast parse (hunks checked as a block and built
on first use) reads exactly what the exact per-hunk parse reads; every file kept or excluded exactly once; chunk
counts and budgets; every chunk rendered and formatted in every mode;
``reduce_context`` output re-parses with the same files and change counts.
Structural inputs must parse to their model; git inputs must apply chunk by
chunk in order (also after context reduction), ending at the target tree.

A failing input is written to ``fixtures/fuzz/crash-<hash>.diff`` with its
traceback in ``crash-<hash>.txt`` (git ignores these names: once the bug is
fixed, keep the input as a seed under a name that says what it found).  The
last line printed is ``N passed, N failed``.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from diffchunk.diff.buffer import DiffBuffer, map_file
from diffchunk.diff.chunker import chunk_files, render_chunk
from diffchunk.diff.context import reduce_context
from diffchunk.diff.filters import FilterResult, Prescreen, filter_files
from diffchunk.diff.formatter import FORMATS, format_chunk
from diffchunk.diff.gitattributes import GitattributesFile
from diffchunk.diff.model import (
    Chunk,
    DiffKind,
    FileDiff,
    FileStatus,
    ParsedDiff,
    SegmentKind,
)
from diffchunk.diff.parser import StreamParser, parse_diff
from diffchunk.errors import InvalidArgument, NotADiffError

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
CRASH_DIR = FIXTURES / "fuzz"
CORPUS = ROOT.parent / "shared" / "corpus"
SMALL_CORPUS_BYTES = 1_000_000  # the corpus files used as seeds (not the 7 MB one)
TIME_LIMIT = 1.0  # seconds any single call may take: a hang/blow-up guard

T = TypeVar("T")


class PropertyFailure(AssertionError):
    """An input broke one of the properties."""


# --------------------------------------------------------------------------
# Randomness: one interface for random.Random and for hypothesis draws
# --------------------------------------------------------------------------


class Source(Protocol):
    def integer(self, lo: int, hi: int) -> int: ...

    def raw(self, lo: int, hi: int) -> bytes: ...


class RandomSource:
    """Draws from a :class:`random.Random`."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def raw(self, lo: int, hi: int) -> bytes:
        return self.rng.randbytes(self.rng.randint(lo, hi))


def pick(src: Source, items: Sequence[T]) -> T:
    return items[src.integer(0, len(items) - 1)]


def chance(src: Source, percent: int) -> bool:
    return src.integer(0, 99) < percent


# --------------------------------------------------------------------------
# Seeds
# --------------------------------------------------------------------------

_SEED_SUFFIXES = (".diff", ".patch", ".mbox", ".txt")


def load_seeds(*, corpus: bool = True, crashes: bool = True) -> list[bytes]:
    """Real diffs to mutate: the fixtures, earlier crashers, small corpus files.

    ``crashes=False`` leaves out ``fixtures/fuzz/crash-*`` files (unnamed
    failures of a run still being looked at), for a fixed seed set.
    """
    paths: list[Path] = []
    for folder in (FIXTURES, CRASH_DIR):
        if folder.is_dir():
            paths += sorted(p for p in folder.iterdir() if p.suffix in _SEED_SUFFIXES)
    if corpus and CORPUS.is_dir():
        paths += sorted(
            p
            for p in CORPUS.iterdir()
            if p.suffix in _SEED_SUFFIXES and p.stat().st_size <= SMALL_CORPUS_BYTES
        )
    seeds = []
    for p in paths:
        if p.parent == CRASH_DIR and (
            p.name.endswith(".txt") or (not crashes and p.name.startswith("crash-"))
        ):
            continue  # tracebacks of crashers, not diffs
        seeds.append(p.read_bytes())
    return seeds


def excerpt(src: Source, data: bytes, max_lines: int = 400) -> bytes:
    """``data`` itself when small, else a window of whole lines of it."""
    if len(data) <= 20_000 and chance(src, 70):
        return data
    lines = data.splitlines(keepends=True)
    if len(lines) <= max_lines:
        return data
    size = src.integer(10, max_lines)
    # start more often at a section header, so windows hold whole files
    start = src.integer(0, len(lines) - size)
    if chance(src, 60):
        for k in range(start, min(len(lines), start + 300)):
            if lines[k].startswith((b"diff ", b"commit ", b"From ")):
                start = k
                break
    return b"".join(lines[start : start + size])


# --------------------------------------------------------------------------
# Mutations of real diffs
# --------------------------------------------------------------------------

_SHA = b"0123456789abcdef0123456789abcdef01234567"
INTERESTING_LINES: tuple[bytes, ...] = (
    b"\\ No newline at end of file\n",
    b"diff --git a/x b/x\n",
    b'diff --git "a/t\\tb" "b/t\\tb"\n',
    b"diff --git a/sp ace b/sp ace\n",
    b"diff --cc m.txt\n",
    b"diff -r 1a2b3c4d5e6f x\n",
    b"--- a/x\n",
    b"+++ b/x\n",
    b"--- /dev/null\n",
    b"+++ /dev/null\n",
    b"@@ -1 +1 @@\n",
    b"@@ -0,0 +1,2 @@ f()\n",
    b"@@ -5,0 +6 @@\n",
    b"@@ -999999999999999999,1 +1 @@\n",
    b"@@@ -1,2 -1,2 +1,2 @@@\n",
    b"@@ -1,3 +1,3 @@",
    b"GIT binary patch\n",
    b"literal 0\n",
    b"delta 12\n",
    b"HcmV?d00001\n",
    b"Binary files a/x and b/x differ\n",
    b"new file mode 100644\n",
    b"deleted file mode 100755\n",
    b"old mode 100644\n",
    b"new mode 160000\n",
    b"similarity index 100%\n",
    b"rename from a\n",
    b"rename to b\n",
    b"copy from a\n",
    b"copy to b\n",
    b"index 0000000..e69de29\n",
    b"index 1234567..89abcde 100644\n",
    b"commit " + _SHA + b"\n",
    b"From " + _SHA + b" Mon Sep 17 00:00:00 2001\n",
    b"Subject: [PATCH 1/2] x\n",
    b"---\n",
    b"-- \n",
    b"Index: x\n",
    b"===================================================================\n",
    b"\n",
    b"\r\n",
    b" \n",
    b"+\n",
    b"-\n",
    b"\x1b[31m-red\x1b[m\n",
)
_BYTES = b'\n\r @+-\\\t\x00\xff\xc3"ad0123,/'


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _flip(src: Source, data: bytes) -> bytes:
    if not data:
        return bytes([pick(src, _BYTES)])
    k = src.integer(0, len(data) - 1)
    b = pick(src, _BYTES) if chance(src, 70) else src.integer(0, 255)
    return data[:k] + bytes([b]) + data[k + 1 :]


def _delete_lines(src: Source, data: bytes) -> bytes:
    lines = _lines(data)
    if not lines:
        return data
    k = src.integer(0, len(lines) - 1)
    n = src.integer(1, 3)
    del lines[k : k + n]
    return b"".join(lines)


def _duplicate_lines(src: Source, data: bytes) -> bytes:
    lines = _lines(data)
    if not lines:
        return data
    k = src.integer(0, len(lines) - 1)
    n = src.integer(1, 4)
    block = lines[k : k + n]
    if block and not block[-1].endswith(b"\n"):
        block[-1] += b"\n"
    lines[k:k] = block
    return b"".join(lines)


def _swap_lines(src: Source, data: bytes) -> bytes:
    lines = _lines(data)
    if len(lines) < 2:
        return data
    i, j = src.integer(0, len(lines) - 1), src.integer(0, len(lines) - 1)
    if not lines[-1].endswith(b"\n"):
        lines[-1] += b"\n"
    lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def _header_counts(src: Source, data: bytes) -> bytes:
    lines = _lines(data)
    heads = [k for k, line in enumerate(lines) if line.startswith(b"@@")]
    if not heads:
        return data
    k = pick(src, heads)
    line = lines[k]
    digits = [i for i in range(len(line)) if 48 <= line[i] <= 57]
    if not digits:
        return data
    i = pick(src, digits)
    j = i
    while j < len(line) and 48 <= line[j] <= 57:
        j += 1
    while i > 0 and 48 <= line[i - 1] <= 57:
        i -= 1
    value = int(line[i:j])
    new = pick(
        src,
        (value + 1, max(0, value - 1), 0, 1, value * 2 + 7, 10**18 - 1, 2**63, value + 1000),
    )
    text = str(new).encode()
    if chance(src, 15):
        text = b""  # a missing number
    lines[k] = line[:i] + text + line[j:]
    if chance(src, 15):  # drop a ",count"
        lines[k] = lines[k].replace(b",", b"", 1)
    return b"".join(lines)


def _crlf(src: Source, data: bytes) -> bytes:
    if chance(src, 20):
        return data.replace(b"\n", b"\r\n")
    lines = _lines(data)
    if not lines:
        return b"\r\n"
    for _ in range(src.integer(1, 4)):
        k = src.integer(0, len(lines) - 1)
        if lines[k].endswith(b"\n") and not lines[k].endswith(b"\r\n"):
            lines[k] = lines[k][:-1] + b"\r\n"
    return b"".join(lines)


def _truncate(src: Source, data: bytes) -> bytes:
    if not data:
        return data
    return data[: src.integer(0, len(data))]


def _strip_context(src: Source, data: bytes) -> bytes:
    lines = _lines(data)
    ctx = [k for k, line in enumerate(lines) if line.startswith(b" ")]
    for _ in range(min(len(ctx), src.integer(1, 5))):
        k = pick(src, ctx)
        lines[k] = lines[k][1:]
    return b"".join(lines)


def _insert_line(src: Source, data: bytes) -> bytes:
    lines = _lines(data)
    k = src.integer(0, len(lines))
    if k and not lines[k - 1].endswith(b"\n"):
        lines[k - 1] += b"\n"
    lines.insert(k, pick(src, INTERESTING_LINES))
    return b"".join(lines)


def _retag_line(src: Source, data: bytes) -> bytes:
    lines = _lines(data)
    if not lines:
        return data
    k = src.integer(0, len(lines) - 1)
    lines[k] = bytes([pick(src, b" +-\\@d")]) + lines[k][1:]
    return b"".join(lines)


def _drop_final_newline(src: Source, data: bytes) -> bytes:
    return data[:-1] if data.endswith(b"\n") else data + b"\n"


def _random_bytes(src: Source, data: bytes) -> bytes:
    k = src.integer(0, len(data))
    return data[:k] + src.raw(0, 16) + data[k:]


Mutation = Callable[[Source, bytes], bytes]
MUTATIONS: tuple[Mutation, ...] = (
    _flip,
    _delete_lines,
    _duplicate_lines,
    _swap_lines,
    _header_counts,
    _header_counts,
    _crlf,
    _truncate,
    _strip_context,
    _insert_line,
    _insert_line,
    _retag_line,
    _drop_final_newline,
    _random_bytes,
)


def splice(src: Source, a: bytes, b: bytes) -> bytes:
    """A prefix of ``a`` and a suffix of ``b`` (at line starts, mostly)."""
    i, j = src.integer(0, len(a)), src.integer(0, len(b))
    if chance(src, 70):
        i = a.find(b"\n", i) + 1 or len(a)
        j = b.find(b"\n", j) + 1 or len(b)
    return a[:i] + b[j:]


def mutate(src: Source, seeds: Sequence[bytes]) -> bytes:
    data = excerpt(src, pick(src, seeds))
    if chance(src, 15) and len(seeds) > 1:
        data = splice(src, data, excerpt(src, pick(src, seeds)))
    for _ in range(src.integer(0 if chance(src, 10) else 1, 4)):
        data = pick(src, MUTATIONS)(src, data)
    return data


# --------------------------------------------------------------------------
# Well-formed diffs written from a random model
# --------------------------------------------------------------------------

CONTENT: tuple[bytes, ...] = (
    b"",
    b"x",
    b"foo bar",
    b"    return value",
    b"\tindented",
    b"trailing  ",
    b"diff --git a/q b/q",
    b"-- a/q",
    b"++ b/q",
    b"--- a/q",
    b"+++ b/q",
    b"@@ -1 +1 @@",
    b"-",
    b"+",
    b"\\ No newline at end of file",
    b"commit " + _SHA,
    b"From " + _SHA + b" Mon Sep 17 00:00:00 2001",
    b"Index: foo",
    b"====",
    b"Binary files a/x and b/x differ",
    b"GIT binary patch",
    b"literal 0",
    b"\xc3\xa9 \xc3\xbc",
    b"\x00nul",
    b"\x0cform feed",
    b"\xe2\x80\xa8sep",
    b"\xff\xfe",
)
PATH_PARTS = (
    "src",
    "lib",
    "docs",
    "a",
    "b",
    "my dir",
    "\u00e9t\u00e9",
    "vendor",
    "node_modules",
    "dist",
    "tab\there",
    'q"uote',
    "back\\slash",
)
FILE_NAMES = (
    "main.py",
    "README.md",
    "x.txt",
    "package-lock.json",
    "app.min.js",
    "Makefile",
    "data.bin",
    "notes",
    "a b.c",
    "\u00fc.rs",
    "[x].txt",
    "C.PY",
    "a,b.txt",
)
_ESCAPES = {7: b"\\a", 8: b"\\b", 9: b"\\t", 10: b"\\n", 11: b"\\v", 12: b"\\f", 13: b"\\r"}


def git_quote(path: bytes) -> bytes:
    """A path as git writes it with core.quotePath on."""
    if not any(c < 0x20 or c >= 0x7F or c in (0x22, 0x5C) for c in path):
        return path
    out = bytearray(b'"')
    for c in path:
        if c in _ESCAPES:
            out += _ESCAPES[c]
        elif c in (0x22, 0x5C):
            out += b"\\" + bytes([c])
        elif c < 0x20 or c >= 0x7F:
            out += b"\\%03o" % c
        else:
            out.append(c)
    out.append(0x22)
    return bytes(out)


def _random_path(src: Source, taken: set[str]) -> str:
    while True:
        parts = [pick(src, PATH_PARTS) for _ in range(src.integer(0, 2))]
        path = "/".join([*parts, pick(src, FILE_NAMES)])
        if path not in taken:
            taken.add(path)
            return path
        if src.integer(0, 3) == 0:
            path = f"{path}.{len(taken)}"
            if path not in taken:
                taken.add(path)
                return path


def _content_line(src: Source, crlf: bool) -> bytes:
    line = pick(src, CONTENT) if chance(src, 60) else b"line %d" % src.integer(0, 99)
    return line + (b"\r" if crlf or chance(src, 3) else b"") + b"\n"


@dataclass
class ExpectedFile:
    status: FileStatus
    old_path: str | None
    new_path: str | None
    added: int = 0
    removed: int = 0
    hunks: int = 0
    binary: bool = False


@dataclass
class Expected:
    """What a structural diff must parse to."""

    files: list[ExpectedFile] = field(default_factory=list)
    commits: int = 0
    style: str = "git"


def _hunks(
    src: Source, kind: str, crlf: bool, exp: ExpectedFile, *, plain: bool = False
) -> list[bytes]:
    """Hunk lines of one file; fills the added/removed/hunk counts of ``exp``."""
    out: list[bytes] = []
    if kind in ("add", "delete"):
        n = src.integer(1, 12)
        tag = b"+" if kind == "add" else b"-"
        body = [tag + _content_line(src, crlf) for _ in range(n)]
        if chance(src, 30):
            body.append(b"\\ No newline at end of file\n")
        head = b"@@ -0,0 +1%s @@\n" if kind == "add" else b"@@ -1%s +0,0 @@\n"
        out.append(head % (b"" if n == 1 else b",%d" % n))
        out += body
        exp.hunks = 1
        if kind == "add":
            exp.added = n
        else:
            exp.removed = n
        return out
    old_line = 0
    delta = 0
    count = src.integer(1, 4)
    for h in range(count):
        ops: list[tuple[bytes, bytes]] = []
        for _ in range(src.integer(0, 3)):
            ops.append((b" ", _content_line(src, crlf)))
        for _ in range(src.integer(1, 3)):
            for _ in range(src.integer(0, 4)):
                ops.append((b"-", _content_line(src, crlf)))
            for _ in range(src.integer(0, 4)):
                ops.append((b"+", _content_line(src, crlf)))
            for _ in range(src.integer(0, 3)):
                ops.append((b" ", _content_line(src, crlf)))
        if not ops:
            ops.append((b" ", b"only context\n"))
        old_count = sum(1 for t, _ in ops if t != b"+")
        new_count = sum(1 for t, _ in ops if t != b"-")
        old_line += src.integer(0 if h == 0 else 1, 30)
        old_start = old_line + 1 if old_count else old_line
        new_start = old_line + delta + 1 if new_count else old_line + delta
        section = b"" if chance(src, 50) else b" def f%d():" % h
        if plain:
            section = b""
        out.append(
            b"@@ -%s +%s @@%s\n"
            % (
                _num(old_start, old_count),
                _num(new_start, new_count),
                section,
            )
        )
        last = h == count - 1
        for k, (tag, text) in enumerate(ops):
            out.append(tag + text)
            if last and k == len(ops) - 1 and chance(src, 25):
                out.append(b"\\ No newline at end of file\n")
        old_line += old_count
        delta += new_count - old_count
        exp.added += new_count - sum(1 for t, _ in ops if t == b" ")
        exp.removed += old_count - sum(1 for t, _ in ops if t == b" ")
    exp.hunks = count
    return out


def _num(start: int, count: int) -> bytes:
    return b"%d" % start if count == 1 else b"%d,%d" % (start, count)


def _tokens(old: str, new: str) -> tuple[bytes, bytes]:
    a = git_quote(b"a/" + old.encode())
    b = git_quote(b"b/" + new.encode())
    return a, b


def _side(token: bytes) -> bytes:
    """A ``---``/``+++`` path token; git adds a tab after a name with a space."""
    return token + (b"\t" if b" " in token and not token.startswith(b'"') else b"")


def _git_file(src: Source, taken: set[str]) -> tuple[list[bytes], ExpectedFile]:
    kind = pick(src, ("modify", "modify", "modify", "add", "delete", "rename", "copy", "mode"))
    crlf = chance(src, 15)
    path = _random_path(src, taken)
    old = path
    if kind in ("rename", "copy"):
        old = _random_path(src, taken)
    status = {
        "add": FileStatus.ADDED,
        "delete": FileStatus.DELETED,
        "rename": FileStatus.RENAMED,
        "copy": FileStatus.COPIED,
    }.get(kind, FileStatus.MODIFIED)
    exp = ExpectedFile(
        status,
        None if kind == "add" else old,
        None if kind == "delete" else path,
    )
    a_tok, b_tok = _tokens(old, path)
    lines = [b"diff --git %s %s\n" % (a_tok, b_tok)]
    mode = pick(src, (b"100644", b"100755"))
    if kind == "add":
        lines.append(b"new file mode %s\n" % mode)
    elif kind == "delete":
        lines.append(b"deleted file mode %s\n" % mode)
    elif kind in ("rename", "copy"):
        lines.append(b"similarity index %d%%\n" % src.integer(50, 100))
        lines.append(b"%s from %s\n" % (kind.encode(), git_quote(old.encode())))
        lines.append(b"%s to %s\n" % (kind.encode(), git_quote(path.encode())))
    elif kind == "mode":
        lines.append(b"old mode 100644\nnew mode 100755\n")
    content = pick(src, ("text", "text", "text", "none", "binary", "patch"))
    if kind == "modify" and content == "none":
        content = "text"
    if content == "none":
        if kind in ("add", "delete") and chance(src, 50):
            lines.append(
                b"index 0000000..e69de29\n" if kind == "add" else b"index e69de29..0000000\n"
            )
        return lines, exp
    idx_mode = b" 100644" if kind in ("modify", "rename", "copy") else b""
    lines.append(b"index 1234567..89abcde%s\n" % idx_mode)
    if content in ("binary", "patch"):
        exp.binary = True
        if content == "binary":
            a = b"/dev/null" if kind == "add" else a_tok
            b = b"/dev/null" if kind == "delete" else b_tok
            lines.append(b"Binary files %s and %s differ\n" % (a, b))
        else:
            lines.append(b"GIT binary patch\n")
            for _ in range(2):
                lines.append(pick(src, (b"literal %d\n", b"delta %d\n")) % src.integer(0, 99))
                for _ in range(src.integer(1, 3)):
                    lines.append(b"zcmV?d0000" + b"1" * src.integer(1, 40) + b"\n")
                lines.append(b"\n")
        return lines, exp
    minus = b"/dev/null" if kind == "add" else _side(a_tok)
    plus = b"/dev/null" if kind == "delete" else _side(b_tok)
    lines.append(b"--- %s\n+++ %s\n" % (minus, plus))
    lines += _hunks(src, kind, crlf, exp)
    return lines, exp


def _plain_file(src: Source, taken: set[str], style: str) -> tuple[list[bytes], ExpectedFile]:
    path = _random_path(src, taken).replace(" ", "_").replace("\t", "_").replace('"', "_")
    path = path.replace("\\", "_")
    exp = ExpectedFile(FileStatus.MODIFIED, path, path)
    lines: list[bytes] = []
    name = path.encode()
    if style == "svn":
        lines.append(b"Index: %s\n%s\n" % (name, b"=" * 67))
        lines.append(b"--- %s\t(revision 1)\n+++ %s\t(working copy)\n" % (name, name))
    else:
        stamp = b"\t2024-01-01 00:00:00.000000000 +0000"
        lines.append(b"--- a/%s%s\n+++ b/%s%s\n" % (name, stamp, name, stamp))
    lines += _hunks(src, "modify", chance(src, 10), exp, plain=True)
    return lines, exp


def structural(src: Source) -> tuple[bytes, Expected]:
    """A well-formed diff and what it must parse to."""
    style = pick(src, ("git", "git", "git", "log", "unified", "svn"))
    exp = Expected(style=style)
    taken: set[str] = set()
    out: list[bytes] = []
    commits = src.integer(1, 3) if style == "log" else 1
    for c in range(commits):
        if style == "log":
            sha = hashlib.sha1(b"%d" % c).hexdigest().encode()
            if c:
                out.append(b"\n")
            out.append(
                b"commit %s\nAuthor: t <t@t>\nDate:   Mon Jan 1 00:00:00 2024 +0000\n\n"
                b"    subject %d\n\n" % (sha, c)
            )
            exp.commits += 1
        for _ in range(src.integer(0 if style == "log" else 1, 4)):
            if style in ("git", "log"):
                lines, fexp = _git_file(src, taken)
            else:
                lines, fexp = _plain_file(src, taken, style)
            out += lines
            exp.files.append(fexp)
    data = b"".join(out)
    if chance(src, 10) and exp.files and exp.files[-1].hunks and data.endswith(b"\n"):
        data = data[:-1]  # no final newline on the last hunk line
    return data, exp


def _shown(name: str | None) -> str | None:
    return None if name is None else name.replace("\\", "\\\\")


def check_expected(parsed: ParsedDiff, exp: Expected) -> None:
    got = [
        (f.status, f.added, f.removed, len(f.hunks), f.is_binary, f.malformed) for f in parsed.files
    ]
    want = [(e.status, e.added, e.removed, e.hunks, e.binary, None) for e in exp.files]
    _require(got == want, f"structural diff parsed as {got}, expected {want}")
    if exp.style in ("git", "log"):
        paths = [(f.old_path, f.new_path) for f in parsed.files]
        # a backslash is shown doubled (paths.decode_path), so no name reads as an escape
        wpaths = [(_shown(e.old_path), _shown(e.new_path)) for e in exp.files]
        _require(paths == wpaths, f"paths {paths}, expected {wpaths}")
    _require(len(parsed.commits) == exp.commits, f"{len(parsed.commits)} commits")
    bad = [s for s in parsed.segments if s.kind is SegmentKind.MALFORMED]
    _require(not bad, f"malformed segments in a well-formed diff: {bad}")
    _require(
        all(h.added + h.removed > 0 or h.old_count for f in parsed.files for h in f.hunks),
        "empty hunk",
    )


# --------------------------------------------------------------------------
# The properties
# --------------------------------------------------------------------------


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise PropertyFailure(message)


def timed(name: str, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    elapsed = time.perf_counter() - start
    _require(elapsed < TIME_LIMIT, f"{name} took {elapsed:.3f}s")
    return result


def check_tiling(parsed: ParsedDiff, data: bytes) -> None:
    pos = 0
    for s in parsed.sections():
        _require(s.start == pos, f"section {s!r} starts at {s.start}, expected {pos}")
        _require(s.end >= s.start, f"section {s!r} ends before it starts")
        pos = s.end
    _require(pos == len(data), f"sections end at {pos}, input has {len(data)} bytes")
    _require(b"".join(parsed.raw(s) for s in parsed.sections()) == data, "round trip differs")
    for k, f in enumerate(parsed.files):
        _require(f.index == k, f"file {k} has index {f.index}")
        _require(f.start <= f.header_end <= f.end, f"file {k}: header_end outside the file")
        prev = f.header_end
        for h in f.hunks:
            _require(prev <= h.start <= h.body_start <= h.end <= f.end, f"file {k}: hunk {h}")
            prev = h.end
    for c in parsed.commits:
        _require(0 <= c.segment < len(parsed.segments), f"commit {c} has no segment")


# Every field of a file section but its hunks (compared by their spans below).
_FILE_FIELDS = tuple(f.name for f in dataclasses.fields(FileDiff) if f.name != "hunks")


def _shape(parsed: ParsedDiff) -> list[object]:
    files = [
        (
            *(getattr(f, name) for name in _FILE_FIELDS),
            [(h.start, h.body_start, h.end, h.old_count, h.new_count) for h in f.hunks],
        )
        for f in parsed.files
    ]
    segments = [(s.start, s.end, s.kind, s.note) for s in parsed.segments]
    commits = [(c.index, c.sha, c.subject, c.segment) for c in parsed.commits]
    return [files, segments, commits, list(parsed.warnings)]


def check_lazy_matches_exact(parsed: ParsedDiff, data: bytes) -> None:
    """The fast reading (hunks checked as a block, built later) equals the exact one."""
    exact = parse_diff(data, lazy=False)
    _require(_shape(parsed) == _shape(exact), "the lazy parse differs from the exact parse")


def stream_parse(data: bytes, src: Source) -> tuple[ParsedDiff, Prescreen]:
    """``data`` parsed as it would arrive from git (random block sizes), with the
    filter's early verdicts made on the growing buffer as sections complete."""
    parser = StreamParser(min_step=pick(src, (1, 64, 4096, 1 << 20)))
    prescreen = Prescreen()
    pos = told = 0
    smallest = 1 if len(data) < 50_000 else 4096  # byte by byte only for small inputs
    while pos < len(data):
        step = max(smallest, pick(src, (1, 3, 17, 256, 4096, 1 << 18, src.integer(1, len(data)))))
        parser.feed(data[pos : pos + step])
        pos += step
        if parser.file_count > told:
            prescreen.add(parser.files_since(told), parser.buffer)
            told = parser.file_count
    if data and chance(src, 25):
        # As a git range review ends: the parse refers to a mapping of the file.
        return parser.finish(_mapped(data)), prescreen
    return parser.finish(), prescreen


def _mapped(data: bytes) -> DiffBuffer:
    """``data`` in an unnamed temporary file, mapped."""
    with tempfile.TemporaryFile() as fh:
        fh.write(data)
        fh.flush()
        buffer = map_file(fh.fileno(), len(data), "")
    buffer.trim_step = 4096  # the inputs are small: many trims all the same
    return buffer


def check_stream_matches(parsed: ParsedDiff, streamed: ParsedDiff) -> None:
    """Parsing while the diff arrives gives what parsing it whole gives."""
    _require(streamed.data == parsed.data, "the streamed parse holds other data")
    _require(_shape(streamed) == _shape(parsed), "the streamed parse differs from parse_diff")


def _verdicts(result: FilterResult) -> list[object]:
    return [
        [f.index for f in result.kept],
        [(e.file_index, e.reason, e.detail) for e in result.excluded],
        sorted(result.binary_by_attributes),
        result.files_excluded_by_pattern,
    ]


def _lines_of(text: bytes) -> int:
    return text.count(b"\n") + (1 if text and not text.endswith(b"\n") else 0)


def _patterns(src: Source, files: Sequence[FileDiff]) -> str | None:
    if not files or chance(src, 40):
        return None
    items: list[str] = []
    for _ in range(src.integer(1, 4)):
        path = pick(src, files).path
        name = path.rsplit("/", 1)[-1]
        ext = name.rsplit(".", 1)[-1] if "." in name else name
        item = pick(
            src,
            (
                path,
                name,
                f"*.{ext}",
                f"**/{name}",
                path.split("/", 1)[0] + "/",
                path.upper(),
                f"!{name}",
                f"{path[: max(1, len(path) // 2)]}*",
                "[",
                "",
                "**/**/**/*a*a*a*a*b",
            ),
        )
        items.append(item)
    if chance(src, 2):
        items.append("x" * 1100)  # longer than a pattern may be: InvalidArgument
    return ",".join(items)


def _attributes(src: Source, files: Sequence[FileDiff]) -> GitattributesFile | None:
    if not files or chance(src, 70):
        return None
    rules = []
    for _ in range(src.integer(1, 3)):
        name = pick(src, files).path.rsplit("/", 1)[-1].replace(" ", "?").replace("\t", "?")
        attr = pick(src, ("linguist-generated", "-diff", "binary", "linguist-vendored=false"))
        rules.append(f"{name} {attr}")
    return GitattributesFile("\n".join(rules) + "\n")


@dataclass
class CaseResult:
    parsed: bool = False
    files: int = 0
    chunks: int = 0
    not_a_diff: bool = False
    invalid_argument: int = 0
    lenient: list[str] = field(default_factory=list)


def check_chunks(
    parsed: ParsedDiff, kept: Sequence[FileDiff], chunks: Sequence[Chunk], budget: tuple[int, int]
) -> list[bytes]:
    max_lines, max_tokens = budget
    texts: list[bytes] = []
    order: list[int] = []
    parts_seen: dict[int, list[int | None]] = {}
    for number, chunk in enumerate(chunks, start=1):
        text = timed("render_chunk", render_chunk, parsed, chunk)
        texts.append(text)
        _require(chunk.number == number, f"chunk {number} is numbered {chunk.number}")
        _require(chunk.char_count == len(text), f"chunk {number}: char_count")
        _require(chunk.line_count == _lines_of(text), f"chunk {number}: line_count")
        _require(sum(p.lines for p in chunk.parts) == chunk.line_count, f"chunk {number}: lines")
        within = chunk.line_count <= max_lines and len(text) <= max_tokens * 4
        _require(within or chunk.oversized, f"chunk {number} over budget, not flagged")
        if chunk.parent_file is not None:
            _require(len(chunk.parts) == 1, f"chunk {number}: split part shares its chunk")
            _require(chunk.sub_chunk_index == chunk.parts[0].part, f"chunk {number}: part no.")
        for part in chunk.parts:
            if not order or order[-1] != part.file_index:
                order.append(part.file_index)
            parts_seen.setdefault(part.file_index, []).append(part.part)
        for mode in FORMATS:
            out = timed(f"format_chunk[{mode}]", format_chunk, text, mode)
            _require(isinstance(out, str), "format_chunk returned a non-string")
    want = [f.index for f in kept]
    # each file once, its parts together; only copies move (before their source's change)
    _require(sorted(order) == want, f"chunks hold files {order[:20]}, expected {want[:20]}")
    copies = {f.index for f in kept if f.status is FileStatus.COPIED}
    _require(
        [i for i in order if i not in copies] == [i for i in want if i not in copies],
        f"chunks reorder files {order[:20]}",
    )
    by_index = {f.index: f for f in kept}
    for index, parts in parts_seen.items():
        if parts == [None]:
            fd = by_index[index]
            pieces = [
                p
                for c in chunks
                for part in c.parts
                if part.file_index == index
                for p in part.pieces
            ]
            _require((fd.start, fd.end) in pieces, f"file {index}: whole part lost its span")
        else:
            n = len(parts)
            _require(parts == list(range(1, n + 1)), f"file {index}: parts {parts}")
    return texts


def lenient_hunks(parsed: ParsedDiff) -> list[str]:
    """Hunks the parser accepted although their lines disagree with their header.

    Counted the way ``git apply`` counts: a ``\\`` line is a marker for the
    line before it (never the first line of a body), an empty line is a
    context line whose space was stripped.  Context reduction re-heads hunks
    from their real lines, so its output can only match for consistent hunks.
    """
    data = parsed.data
    found: list[str] = []
    for f in parsed.files:
        if f.malformed is not None or f.kind is DiffKind.COMBINED:
            continue
        for h in f.hunks:
            old = new = 0
            previous = False
            ok = True
            for line in data[h.body_start : h.end].split(b"\n"):
                tag = line[:1]
                if tag == b"\\":
                    ok = ok and previous
                    previous = False
                    continue
                previous = True
                if tag in (b" ", b""):
                    old += 1
                    new += 1
                elif tag == b"-":
                    old += 1
                elif tag == b"+":
                    new += 1
                else:
                    ok = False
            if data[h.end - 1 : h.end] == b"\n":
                old, new = old - 1, new - 1  # the split's empty last item
            if not ok or (old, new) != (h.old_count, h.new_count):
                found.append(f"{f.path}: hunk at {h.start} (header {h.old_count}/{h.new_count})")
    return found


def _numbers_below(parsed: ParsedDiff, limit: int) -> bool:
    return all(
        h.old_start + h.old_count < limit and h.new_start + h.new_count < limit
        for f in parsed.files
        for h in f.hunks
    )


def _change_counts(parsed: ParsedDiff) -> list[tuple[int, int]]:
    return [(f.added, f.removed) for f in parsed.files]


def check_input(
    data: bytes, src: Source, *, expected: Expected | None = None, well_formed: bool = False
) -> CaseResult:
    """Every property on one input; raises :class:`PropertyFailure` (or the bug)."""
    result = CaseResult()
    for mode in FORMATS:
        timed(f"format_chunk[{mode}] on the input", format_chunk, data, mode)
    try:
        parsed = timed("parse_diff", parse_diff, data)
    except NotADiffError:
        _require(bool(data), "empty input raised NotADiffError")
        result.not_a_diff = True
        return result
    result.parsed = True
    result.files = len(parsed.files)
    check_tiling(parsed, data)
    check_lazy_matches_exact(parsed, data)
    if expected is not None:
        check_expected(parsed, expected)
        well_formed = True
    if well_formed:
        _require(all(f.malformed is None for f in parsed.files), "malformed file")

    # filters: every file exactly once
    options = {
        "skip_trivial": chance(src, 50),
        "skip_generated": chance(src, 50),
        "include_patterns": _patterns(src, parsed.files),
        "exclude_patterns": _patterns(src, parsed.files),
        "attributes": _attributes(src, parsed.files),
    }
    fr: FilterResult | None = None
    try:
        fr = timed("filter_files", filter_files, parsed, **options)  # type: ignore[arg-type]
        kept = list(fr.kept)
        seen = sorted([f.index for f in fr.kept] + [e.file_index for e in fr.excluded])
        _require(seen == list(range(len(parsed.files))), f"files kept/excluded: {seen}")
        _require([f.index for f in kept] == sorted(f.index for f in kept), "kept out of order")
    except InvalidArgument:
        result.invalid_argument += 1
        kept = list(parsed.files)

    # chunks: budgets, counts, every kept file once, in order
    files = kept if chance(src, 60) else list(parsed.files)
    max_lines = pick(src, (1, 2, 3, 5, 8, 13, 30, 80, 200, 1000))
    max_tokens = pick(src, (1, 10, 40, 200, 1000, 20_000))
    chunks = timed(
        "chunk_files", chunk_files, parsed, files, max_lines=max_lines, max_tokens=max_tokens
    )
    result.chunks = len(chunks)
    texts = check_chunks(parsed, files, chunks, (max_lines, max_tokens))
    result.lenient = lenient_hunks(parsed)
    if not result.lenient and all(f.malformed is None for f in files):
        # chunks of sound file sections are sound and hold every change once
        added = removed = 0
        for k, text in enumerate(texts, start=1):
            again = parse_diff(text)
            bad = [f.malformed for f in again.files if f.malformed]
            _require(not bad, f"chunk {k} re-parses with malformed files: {bad}")
            _require(not lenient_hunks(again), f"chunk {k}: hunk lines disagree with headers")
            added += sum(f.added for f in again.files)
            removed += sum(f.removed for f in again.files)
        want = (sum(f.added for f in files), sum(f.removed for f in files))
        _require((added, removed) == want, f"chunks hold {added}+/{removed}-, files {want}")

    # context reduction: re-parses to the same files and change counts
    n = pick(src, (0, 0, 1, 2, 3, 5))
    reduced = timed("reduce_context", reduce_context, parsed, n)
    _require(not (well_formed and result.lenient), f"inconsistent hunks {result.lenient}")
    if parsed.files and not result.lenient:
        again = timed("parse_diff(reduced)", parse_diff, reduced)
        check_tiling(again, reduced)
        _require(len(again.files) == len(parsed.files), "reduced diff has other files")
        _require(
            _change_counts(again) == _change_counts(parsed),
            f"reduced counts {_change_counts(again)} != {_change_counts(parsed)}",
        )
        if well_formed:
            _require(all(f.malformed is None for f in again.files), "reduced file malformed")
        # reducing in two steps (m >= n, then n) is reducing once (for line
        # numbers a header can hold: past 10**18 hunks are kept as written)
        m = n + pick(src, (0, 0, 1, 4))
        if _numbers_below(parsed, 10**17):
            wider = parse_diff(reduce_context(parsed, m)) if m != n else again
            twice = timed("reduce_context(again)", reduce_context, wider, n)
            _require(twice == reduced, f"reduce_context({m}) then ({n}) differs from ({n})")
    if not result.lenient:
        full = timed("reduce_context(all)", reduce_context, parsed, 10**6)
        _require(full == data, "reduce_context with a huge count changed the diff")

    # streaming (last, so that the draws above stay where saved inputs expect them)
    streamed, prescreen = timed("stream_parse", stream_parse, data, src)
    check_stream_matches(parsed, streamed)
    if fr is not None:
        early = timed(
            "filter_files(prescreen)",
            filter_files,
            streamed,
            prescreen=prescreen,
            **options,  # type: ignore[arg-type]
        )
        _require(_verdicts(early) == _verdicts(fr), "the prescreened filter decides otherwise")
    return result


# --------------------------------------------------------------------------
# Real git repositories
# --------------------------------------------------------------------------

_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(
    repo: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> bytes:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "core.autocrlf=false", *args],
        input=stdin,
        env={**_ENV, **(env or {})},
        capture_output=True,
        check=False,
    )
    if done.returncode:
        raise PropertyFailure(
            f"git {' '.join(args)} failed: {done.stderr.decode(errors='replace').strip()}"
        )
    return done.stdout


_REPO_NAMES = (
    "a.txt",
    "b.py",
    "dir/c.md",
    "dir/sub/d.txt",
    "e f.txt",
    "g.bin",
    "h.json",
    "\u00fc/t\tab.txt",
    'q"uote.md',
)


def _text(src: Source, max_lines: int) -> bytes:
    crlf = chance(src, 10)
    lines = [_content_line(src, crlf) for _ in range(src.integer(0, max_lines))]
    data = b"".join(lines)
    if data and chance(src, 15):
        data = data[:-1]
    return data


def _edit(src: Source, data: bytes) -> bytes:
    if chance(src, 10):
        return data + b"\n" if not data.endswith(b"\n") else data[:-1]
    lines = data.splitlines(keepends=True)
    for _ in range(src.integer(1, 6 + len(lines) // 20)):
        k = src.integer(0, len(lines))
        op = src.integer(0, 2)
        if op == 0:
            del lines[k : k + src.integer(1, 5)]
        else:
            new = [_content_line(src, False) for _ in range(src.integer(1, 6))]
            lines[k : k + (1 if op == 1 else 0)] = new
    for k in range(len(lines) - 1):
        if not lines[k].endswith(b"\n"):
            lines[k] += b"\n"
    out = b"".join(lines)
    if out and chance(src, 10):
        out = out.rstrip(b"\n")
    return out


@dataclass
class GitCase:
    base: dict[str, bytes]
    target: dict[str, bytes]
    modes: dict[str, bool]  # executable in target
    diff_args: tuple[str, ...]
    command: str = "diff"  # or "log" (git log -p) or "format-patch" (--stdout)
    middle: dict[str, bytes] | None = None  # a commit between base and target
    middle_modes: dict[str, bool] = field(default_factory=dict)
    strip: int = 1  # git apply -p
    diff: bytes = b""  # git's output, once made


def git_case(src: Source) -> GitCase:
    base: dict[str, bytes] = {}
    for name in _REPO_NAMES:
        if chance(src, 55):
            if name.endswith(".bin"):
                base[name] = src.raw(0, 60) + b"\x00" + src.raw(0, 60)
            else:
                base[name] = _text(src, pick(src, (5, 30, 120, 400)))
    target = dict(base)
    modes: dict[str, bool] = {}
    for name in list(base):
        action = pick(src, ("edit", "edit", "edit", "keep", "delete", "rename", "chmod"))
        if action == "edit":
            if name.endswith(".bin"):
                target[name] = base[name][::-1] + src.raw(0, 8)
            else:
                target[name] = _edit(src, base[name])
        elif action == "delete":
            del target[name]
        elif action == "rename":
            if chance(src, 70):
                del target[name]  # else a copy (found with -C)
            new = name + ".moved"
            target[new] = _edit(src, base[name]) if chance(src, 50) else base[name]
        elif action == "chmod":
            modes[name] = True
            if chance(src, 50) and not name.endswith(".bin"):
                target[name] = _edit(src, base[name])
    for name in _REPO_NAMES:
        if name not in base and chance(src, 25):
            target[name] = _text(src, pick(src, (5, 40, 300))) if chance(src, 85) else b""
    args = ["--binary"]
    unified = pick(src, (None, None, None, 0, 1, 5, 12, 30))
    if unified is not None:
        args.append(f"-U{unified}")
    if chance(src, 20):
        args.append("-C")
        if chance(src, 40):
            args.append("--find-copies-harder")
    strip = 1
    if chance(src, 10):
        args.append("--no-prefix")
        strip = 0
    elif chance(src, 10):
        args += ["--src-prefix=i/", "--dst-prefix=w/"]
    command = pick(src, ("diff", "diff", "diff", "log", "format-patch"))
    middle: dict[str, bytes] | None = None
    middle_modes: dict[str, bool] = {}
    if command != "diff":
        middle = {}
        for name in sorted(set(base) | set(target)):
            if name in base and not name.endswith(".bin") and chance(src, 30):
                middle[name] = _edit(src, base[name])  # changed, then changed again
                continue
            side = target if chance(src, 50) else base
            if name in side:
                middle[name] = side[name]
                if side is target and modes.get(name):
                    middle_modes[name] = True
    return GitCase(base, target, modes, tuple(args), command, middle, middle_modes, strip)


def _write_tree(repo: Path, files: dict[str, bytes], modes: dict[str, bool]) -> None:
    for p in list(repo.iterdir()):
        if p.name != ".git":
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink()
    for name, content in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        if modes.get(name):
            path.chmod(0o755)


def _apply_in_order(
    repo: Path, index: Path, texts: Sequence[bytes], zero: bool, what: str, strip: int = 1
) -> None:
    """Apply ``texts`` one after the other to the base tree; must end at the target tree."""
    env = {"GIT_INDEX_FILE": str(index)}
    git(repo, "read-tree", "base", env=env)
    extra = ["--unidiff-zero"] if zero else []
    if strip != 1:
        extra.append(f"-p{strip}")
    for k, text in enumerate(texts, start=1):
        # git apply checks the whole patch before it changes anything (like --check)
        try:
            git(repo, "apply", "--cached", *extra, "-", stdin=text, env=env)
        except PropertyFailure as exc:
            raise PropertyFailure(f"{what}: chunk {k} of {len(texts)} does not apply: {exc}")
    tree = git(repo, "write-tree", env=env).strip()
    want = git(repo, "rev-parse", "target^{tree}").strip()
    _require(tree == want, f"{what}: applying every chunk does not give the target tree")


def check_git_case(src: Source, case: GitCase, workdir: Path) -> bytes | None:
    """Build the repository, diff it and check every property plus apply-in-order.

    Returns the diff text (None when the two trees are equal).
    """
    repo = workdir / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    _write_tree(repo, case.base, {})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "base")
    git(repo, "tag", "base")
    if case.middle is not None:
        _write_tree(repo, case.middle, case.middle_modes)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--allow-empty", "-m", "middle\n\nwith a body")
    _write_tree(repo, case.target, case.modes)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "target")
    git(repo, "tag", "target")
    if case.command == "log":
        command = ["log", "-p", "--reverse", *case.diff_args, "base..target"]
    elif case.command == "format-patch":
        command = ["format-patch", "--stdout", *case.diff_args, "base..target"]
    else:
        command = ["diff", *case.diff_args, "base", "target"]
    data = case.diff = git(repo, *command)
    if not data:
        return None
    check_input(data, src, well_formed=True)
    parsed = parse_diff(data)
    zero = "-U0" in case.diff_args
    index = workdir / "index"
    context = pick(src, (None, 0, 1, 3))
    opts = {"strip": case.strip}
    if context is not None:
        reduced = reduce_context(parsed, context)
        if case.command == "diff":  # a stream is only applied commit by commit
            _apply_in_order(repo, index, [reduced], zero or context == 0, "reduced diff", **opts)
        parsed = parse_diff(reduced)
        zero = zero or context == 0
    max_lines = src.integer(3, 80)
    max_tokens = pick(src, (20_000, 20_000, 200, 60))
    chunks = chunk_files(parsed, parsed.files, max_lines=max_lines, max_tokens=max_tokens)
    texts = [render_chunk(parsed, c) for c in chunks]
    what = (
        f"{case.command} chunks (max_lines={max_lines}, max_tokens={max_tokens}, context={context})"
    )
    _apply_in_order(repo, index, texts, zero, what, **opts)
    return data


# --------------------------------------------------------------------------
# The long-running command
# --------------------------------------------------------------------------


def save_crash(data: bytes, error: str) -> Path:
    digest = hashlib.sha256(data).hexdigest()[:12]
    CRASH_DIR.mkdir(parents=True, exist_ok=True)
    path = CRASH_DIR / f"crash-{digest}.diff"
    path.write_bytes(data)
    (CRASH_DIR / f"crash-{digest}.txt").write_text(error)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.fuzz_diff", description=__doc__)
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--minutes", type=float, default=None, help="stop after this long")
    ap.add_argument("--git-every", type=int, default=50, help="one git case per this many")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    seeds = load_seeds()
    print(f"{len(seeds)} seed diffs; seed {args.seed}", flush=True)
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else None
    passed = failed = 0
    kinds: dict[str, int] = {}
    notes: dict[str, int] = {}  # mutated inputs: rejected, bad patterns, lenient hunks
    started = time.monotonic()
    last_report = started
    seen_errors: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="fuzz-diff-") as tmp:
        workdir = Path(tmp)
        for case in range(args.cases):
            if deadline is not None and time.monotonic() > deadline:
                break
            src = RandomSource(random.Random(f"{args.seed}:{case}"))
            kind = (
                "git"
                if args.git_every and case % args.git_every == 0
                else ("structural" if case % 3 == 1 else "mutated")
            )
            data = b""
            try:
                if kind == "git":
                    gcase = git_case(src)
                    try:
                        check_git_case(src, gcase, workdir)
                    finally:
                        data = gcase.diff
                elif kind == "structural":
                    data, exp = structural(src)
                    check_input(data, src, expected=exp)
                else:
                    data = mutate(src, seeds)
                    res = check_input(data, src)
                    notes["not a diff"] = notes.get("not a diff", 0) + res.not_a_diff
                    notes["bad patterns"] = notes.get("bad patterns", 0) + res.invalid_argument
                    notes["lenient parse"] = notes.get("lenient parse", 0) + bool(res.lenient)
                passed += 1
            except Exception as exc:
                failed += 1
                error = "".join(traceback.format_exception(exc))
                key = f"{type(exc).__name__}: {str(exc)[:80]}"
                path = save_crash(data, f"case {case} seed {args.seed} ({kind})\n{error}")
                if key not in seen_errors or not args.quiet:
                    print(f"FAIL case {case} ({kind}): {key} -> {path.name}", flush=True)
                seen_errors.add(key)
            kinds[kind] = kinds.get(kind, 0) + 1
            now = time.monotonic()
            if now - last_report >= 30:
                rate = (case + 1) / (now - started)
                print(
                    f"{case + 1} cases, {failed} failed, {rate:.0f}/s, {kinds}",
                    flush=True,
                )
                last_report = now
    elapsed = time.monotonic() - started
    print(f"{elapsed:.0f}s, cases by kind: {kinds}, distinct failures: {len(seen_errors)}")
    print(f"mutated inputs: {notes}")
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
