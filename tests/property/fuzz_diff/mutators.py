"""Mutations of real diffs: the *mutated* inputs of the harness."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .draws import Source, chance, pick
from .seeds import excerpt

SHA = b"0123456789abcdef0123456789abcdef01234567"
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
    b"commit " + SHA + b"\n",
    b"From " + SHA + b" Mon Sep 17 00:00:00 2001\n",
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
