"""The seed corpus and the libFuzzer dictionary."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from tests.property.fuzz_diff import seeds as diff_seeds
from tests.property.fuzz_diff.mutators import INTERESTING_LINES

from .inputs import MAX_LEN, OPTION_BYTES

WINDOWS_PER_FILE = 8  # seed windows taken from each corpus file
_DICT_ENTRY_MAX = 64  # libFuzzer refuses longer dictionary entries
_SECTION_START = re.compile(rb"(?m)^(?:diff |commit [0-9a-f]|From [0-9a-f]{40} |Index: )")


def windows(data: bytes, room: int, count: int) -> list[bytes]:
    """Up to ``count`` slices of ``data`` of at most ``room`` bytes, in whole lines,
    each starting at a section header (the first at the start of ``data``)."""
    if len(data) <= room:
        return [data]
    starts = [0, *(m.start() for m in _SECTION_START.finditer(data))]
    if len(starts) > count:
        step = len(starts) / count
        starts = [starts[int(k * step)] for k in range(count)]
    out: list[bytes] = []
    for start in starts:
        piece = data[start : start + room]
        cut = piece.rfind(b"\n") + 1
        piece = piece[:cut] if cut else piece
        if piece and piece not in out:
            out.append(piece)
    return out


def _corpus_files() -> list[Path]:
    if not diff_seeds.CORPUS.is_dir():
        return []
    return sorted(
        p
        for p in diff_seeds.CORPUS.iterdir()
        if p.is_file() and p.suffix in diff_seeds.SEED_SUFFIXES
    )


def _with_options(diff: bytes, variant: int) -> bytes:
    return hashlib.sha256(b"%d:" % variant + diff).digest()[:OPTION_BYTES] + diff


def seed_inputs(max_len: int = MAX_LEN, *, corpus: bool = True) -> list[bytes]:
    """The seed corpus: each fixture with two sets of option bytes, and windows of
    the shared corpus files (when present and ``corpus``), at most ``max_len`` bytes."""
    room = max_len - OPTION_BYTES
    if room <= 0:
        raise ValueError(f"max_len must be over {OPTION_BYTES} bytes")
    out: list[bytes] = []
    for diff in diff_seeds.load_seeds(corpus=False, crashes=False):
        for piece in windows(diff, room, WINDOWS_PER_FILE):
            out += [_with_options(piece, 0), _with_options(piece, 1)]
    if corpus:
        for path in _corpus_files():
            for piece in windows(path.read_bytes(), room, WINDOWS_PER_FILE):
                out.append(_with_options(piece, 0))
    return list(dict.fromkeys(out))


def dictionary_entry(token: bytes) -> str:
    """``token`` as a libFuzzer dictionary line."""
    chars = []
    for b in token:
        if b in (0x22, 0x5C):
            chars.append("\\" + chr(b))
        elif 0x20 <= b < 0x7F:
            chars.append(chr(b))
        else:
            chars.append(f"\\x{b:02X}")
    return '"' + "".join(chars) + '"'


def dictionary_tokens() -> list[bytes]:
    tokens: list[bytes] = []
    for line in INTERESTING_LINES:
        for token in (line, line.rstrip(b"\r\n")):
            if 0 < len(token) <= _DICT_ENTRY_MAX and token not in tokens:
                tokens.append(token)
    return tokens


def write_dictionary(path: Path) -> int:
    tokens = dictionary_tokens()
    path.write_text("".join(dictionary_entry(t) + "\n" for t in tokens), encoding="ascii")
    return len(tokens)
