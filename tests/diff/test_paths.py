"""Git path quoting and prefix helpers of diff headers."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from diffchunk.diff.paths import (
    decode_path,
    encode_path,
    first_component,
    is_escaped_path,
    quote_git_path,
    split_prefixes,
    split_quoted,
    strip_prefix,
    unquote_git_path,
)


def test_unquote_octal_and_c_escapes() -> None:
    assert unquote_git_path(b'"a/caf\\303\\251.md"') == "a/café.md".encode()
    assert (
        unquote_git_path(b'"tab\\there\\nnl \\"q\\" back\\\\slash"')
        == b'tab\there\nnl "q" back\\slash'
    )
    assert unquote_git_path(b"plain/name with spaces") == b"plain/name with spaces"
    assert unquote_git_path(b'"odd\\q"') == b"odd\\q"  # unknown escape kept
    assert unquote_git_path(b'"dangling\\"') == b"dangling\\"  # a dangling backslash is kept


def test_quote_matches_what_git_writes(tmp_path: Path) -> None:
    names = ["café.md", 'say "hi".txt', "back\\slash", "tab\there", "plain name.txt"]
    for name in names:
        (tmp_path / name).write_text("x\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    out = subprocess.run(
        ["git", "-c", "core.quotePath=true", "diff", "--cached", "--name-only"],
        cwd=tmp_path,
        capture_output=True,
        check=True,
    ).stdout
    written = out.split(b"\n")[:-1]
    ours = sorted(quote_git_path(name.encode()) for name in names)
    assert sorted(written) == ours
    assert sorted(unquote_git_path(w) for w in written) == sorted(n.encode() for n in names)


@given(st.binary(max_size=40))
def test_quote_then_unquote_gives_the_bytes_back(path: bytes) -> None:
    assert unquote_git_path(quote_git_path(path)) == path


def test_split_quoted_token() -> None:
    assert split_quoted(b'"a/x y" "b/x y"') == (b'"a/x y"', b' "b/x y"')
    assert split_quoted(b'"a\\"b" rest') == (b'"a\\"b"', b" rest")
    assert split_quoted(b'"never closed') is None
    assert split_quoted(b"unquoted") is None


def test_split_prefixes_finds_the_shared_path() -> None:
    assert split_prefixes(b"a/x/y", b"b/x/y") == (b"a/", b"b/", b"x/y")
    assert split_prefixes(b"i/a/b", b"w/a/b") == (b"i/", b"w/", b"a/b")
    assert split_prefixes(b"same/path", b"same/path") == (b"", b"", b"same/path")
    assert split_prefixes(b"dir1/sub dir/f", b"dir2/sub dir/f") == (
        b"dir1/",
        b"dir2/",
        b"sub dir/f",
    )
    assert split_prefixes(b"old.txt", b"new.txt") is None
    assert split_prefixes(b"a/xfile", b"b/file") is None


def test_prefix_helpers_and_decoding() -> None:
    assert strip_prefix(b"a/x", b"a/") == b"x"
    assert strip_prefix(b"x", b"a/") == b"x"
    assert first_component(b"dir1/sub/x") == b"dir1/"
    assert first_component(b"bare") == b""
    assert decode_path("café".encode()) == "café"
    assert decode_path(b"bad\xff") == "bad\\377"
    assert decode_path(b"a\\b") == "a\\\\b"  # a backslash is doubled in any name


def test_names_that_are_not_utf8_stay_apart() -> None:
    # Latin-1 names that differ in one byte each: once both were "caf\ufffd.txt"
    assert decode_path(b"caf\xe8.txt") == "caf\\350.txt"
    assert decode_path(b"caf\xe9.txt") == "caf\\351.txt"
    # a UTF-8 character next to a bad byte stays a character
    assert decode_path("é".encode() + b"\xff") == "é\\377"
    # an encoded surrogate is not UTF-8 either: escaped, never a lone surrogate
    assert decode_path(b"x\xed\xa0\x80") == "x\\355\\240\\200"
    # a backslash of such a name is doubled, so an escape cannot be forged by one
    assert decode_path(b"\\351\xe9") == "\\\\351\\351"
    assert decode_path(b"\\351\xe9") != decode_path(b"\xe9\xe9")
    assert is_escaped_path(decode_path(b"caf\xe9")) and not is_escaped_path("café")
    # a valid name that reads like an escape stays apart from the escaped one
    assert decode_path(b"caf\\351.txt") == "caf\\\\351.txt" != decode_path(b"caf\xe9.txt")
    assert encode_path("caf\\351.txt") == b"caf\xe9.txt"
    assert encode_path("café") == "café".encode() and encode_path("a\\") == b"a\\"


@given(st.binary(max_size=40) | st.text(max_size=20).map(str.encode))
def test_decoded_paths_give_their_bytes_back(raw: bytes) -> None:
    shown = decode_path(raw)
    assert encode_path(shown) == raw  # so no two names are shown alike
    # shown as its bytes exactly when it has no escape (and never a lone surrogate)
    assert is_escaped_path(shown) == (shown.encode("utf-8") != raw)
