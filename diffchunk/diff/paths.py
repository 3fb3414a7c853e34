"""Path tokens of diff headers: git's C-style quoting, prefixes, decoding.

git writes a path in double quotes when it holds a control character, ``"``,
``\\`` or (with ``core.quotePath``, the default) a byte >= 0x80, using C
escapes and three-digit octal for the rest: ``"a/caf\\303\\251.md"``.

Paths are bytes until they reach the model, where they become ``str`` decoded
as UTF-8 (see :func:`decode_path`).  A name that is not valid UTF-8 shows each
byte that is not part of a UTF-8 character as git's three-digit octal escape
(``caf\\351.txt`` for Latin-1 ``café.txt``), and a backslash of any name is
doubled, so two names stay two paths, and none breaks JSON or a terminal.  The
exact bytes stay available in ``FileDiff.old_token``/``new_token``.
"""

from __future__ import annotations

import codecs

_UNESCAPE = {
    ord("a"): 0x07,
    ord("b"): 0x08,
    ord("t"): 0x09,
    ord("n"): 0x0A,
    ord("v"): 0x0B,
    ord("f"): 0x0C,
    ord("r"): 0x0D,
    ord('"'): 0x22,
    ord("\\"): 0x5C,
}
_ESCAPE = {value: b"\\" + bytes([key]) for key, value in _UNESCAPE.items()}
_OCTAL = frozenset(b"01234567")


def is_quoted(token: bytes) -> bool:
    return len(token) >= 2 and token[:1] == b'"' and token[-1:] == b'"'


def unquote_git_path(token: bytes) -> bytes:
    """Undo git's C-style quoting; a token without quotes is returned as is.

    Octal escapes give raw bytes (``\\303\\251`` is the UTF-8 of ``é``).  An
    unknown escape keeps its backslash, a dangling one is kept as written.
    """
    if not is_quoted(token):
        return token
    body = token[1:-1]
    if b"\\" not in body:
        return body
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != 0x5C or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in _OCTAL:
            j = i + 1
            while j < n and j < i + 4 and body[j] in _OCTAL:
                j += 1
            out.append(int(body[i + 1 : j], 8) & 0xFF)
            i = j
        elif e in _UNESCAPE:
            out.append(_UNESCAPE[e])
            i += 2
        else:
            out += body[i : i + 2]
            i += 2
    return bytes(out)


def quote_git_path(path: bytes) -> bytes:
    """Quote a path the way git does (``core.quotePath=true``), or return it as is."""
    if not any(b < 0x20 or b >= 0x7F or b in (0x22, 0x5C) for b in path):
        return path
    out = bytearray(b'"')
    for b in path:
        if b in _ESCAPE:
            out += _ESCAPE[b]
        elif b < 0x20 or b >= 0x7F:
            out += b"\\%03o" % b
        else:
            out.append(b)
    out.append(0x22)
    return bytes(out)


def split_quoted(text: bytes) -> tuple[bytes, bytes] | None:
    """Split ``"quoted token" rest`` after the closing quote: ``(token, rest)``.

    Returns None when ``text`` does not start with a complete quoted token.
    """
    if not text.startswith(b'"'):
        return None
    i, n = 1, len(text)
    while i < n:
        c = text[i]
        if c == 0x5C:
            i += 2
            continue
        if c == 0x22:
            return text[: i + 1], text[i + 1 :]
        i += 1
    return None


def decode_path(raw: bytes) -> str:
    """Bytes of an unquoted path to the ``str`` the model stores.

    Valid UTF-8 without a backslash is decoded as it is.  Otherwise every
    ``\\`` becomes ``\\\\`` and every byte outside a UTF-8 character becomes
    ``\\ooo`` (as git writes both in a quoted path), so no two names give one
    path (with U+FFFD in their place, ``caf\\350.txt`` and ``caf\\351.txt``
    were one); :func:`encode_path` gives the bytes back.
    """
    if b"\\" not in raw:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return raw.replace(b"\\", b"\\\\").decode("utf-8", errors=_OCTAL_ERRORS)


def _octal_escapes(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeDecodeError)
    bad = error.object[error.start : error.end]
    return "".join(f"\\{b:03o}" for b in bad), error.end


_OCTAL_ERRORS = "diffchunk-path-octal"
codecs.register_error(_OCTAL_ERRORS, _octal_escapes)


def is_escaped_path(path: str) -> bool:
    """Whether ``path`` holds :func:`decode_path`'s escapes (then its name on disk is
    :func:`encode_path` of it, not ``path`` itself)."""
    return "\\" in path


def encode_path(path: str) -> bytes:
    """The name :func:`decode_path` made ``path`` of: its escapes are git's, so
    they are undone as in a quoted path (:func:`unquote_git_path`)."""
    raw = path.encode("utf-8", "surrogatepass")
    return unquote_git_path(b'"' + raw + b'"') if b"\\" in raw else raw


def strip_prefix(path: bytes, prefix: bytes) -> bytes:
    """``path`` without ``prefix`` when it starts with it."""
    if prefix and path.startswith(prefix):
        return path[len(prefix) :]
    return path


def split_prefixes(old: bytes, new: bytes) -> tuple[bytes, bytes, bytes] | None:
    """Split two unquoted header paths of one file into ``(old_prefix, new_prefix, path)``.

    The path is the longest common tail that starts at a ``/`` boundary on both
    sides: ``a/x/y`` and ``b/x/y`` give ``(b"a/", b"b/", b"x/y")``; two equal
    paths (``--no-prefix``) give empty prefixes.  None when no tail is shared.
    """
    if old == new:
        return b"", b"", old
    start = 0
    while True:
        tail = old[start:]
        if tail and new.endswith(tail):
            cut = len(new) - len(tail)
            if cut == 0 or new[cut - 1] == 0x2F:
                return old[:start], new[:cut], tail
        slash = old.find(b"/", start)
        if slash < 0:
            return None
        start = slash + 1


def first_component(path: bytes) -> bytes:
    """``dir1/`` of ``dir1/sub/x`` (with the slash), or b"" for a bare name."""
    slash = path.find(b"/")
    return path[: slash + 1] if slash > 0 else b""
