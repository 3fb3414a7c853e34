"""Well-formed diffs written from a random model: the *structural* inputs.

Each comes with the parse result it must give (:class:`Expected`), checked by
:func:`tests.property.fuzz_diff.checks.check_expected`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from diffchunk.diff.model import FileStatus

from .draws import Source, chance, pick
from .mutators import SHA

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
    b"commit " + SHA,
    b"From " + SHA + b" Mon Sep 17 00:00:00 2001",
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


def content_line(src: Source, crlf: bool) -> bytes:
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
        body = [tag + content_line(src, crlf) for _ in range(n)]
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
            ops.append((b" ", content_line(src, crlf)))
        for _ in range(src.integer(1, 3)):
            for _ in range(src.integer(0, 4)):
                ops.append((b"-", content_line(src, crlf)))
            for _ in range(src.integer(0, 4)):
                ops.append((b"+", content_line(src, crlf)))
            for _ in range(src.integer(0, 3)):
                ops.append((b" ", content_line(src, crlf)))
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
