"""Encoding and binary detection from a sample of a file's bytes.

Detection runs once per file version on a bounded sample, in this order:

1. a byte-order mark (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE);
2. magic numbers of common binary formats, and NUL bytes in the first 8 KB;
3. UTF-16 without a BOM (NUL bytes on every other position);
4. strict UTF-8 over the sample (a multibyte character cut at a sample
   boundary is not an error);
5. charset-normalizer for legacy single-byte encodings (cp1252, latin-1...).

Encodings are reported as the Python codec of the *body*: the bytes after the
BOM. ``utf-8`` covers plain ASCII.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from ..limits import BINARY_SNIFF_BYTES, ENCODING_SAMPLE_BYTES

UTF16_PROBE_BYTES = 4096
"""Bytes looked at for UTF-16 without a byte-order mark..."""

UTF16_NUL_SHARE = 0.4
"""...which it is when more than this share of the bytes at one parity are
NUL (ASCII text in UTF-16 has one NUL in two bytes)..."""

UTF16_STRAY_NUL_SHARE = 0.02
"""...and fewer than this share at the other."""

BINARY_CONTROL_SHARE = 0.1
"""A sample whose share of control bytes (other than tab, newline, CR, FF, ESC,
BS) is above this is binary data, not text in a legacy encoding."""

CHARSET_SAMPLE_BYTES = ENCODING_SAMPLE_BYTES
"""Bytes handed to the encoding detector (charset-normalizer) for text that is
not UTF-8: what the file tools sample anyway; the detector's time grows with
its input."""


_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# (offset, magic, hint, strong).  A "weak" magic is plain ASCII that a text
# file could also start with; it only counts when the sample is not text.
_MAGIC: tuple[tuple[int, bytes, str, bool], ...] = (
    (0, b"\x89PNG\r\n\x1a\n", "image", True),
    (0, b"\xff\xd8\xff", "image", True),
    (0, b"GIF87a", "image", False),
    (0, b"GIF89a", "image", False),
    (0, b"II*\x00", "image", True),
    (0, b"MM\x00*", "image", True),
    (0, b"\x00\x00\x01\x00", "image", True),
    (0, b"%PDF-", "pdf", False),
    (0, b"PK\x03\x04", "compressed", True),
    (0, b"PK\x05\x06", "compressed", True),
    (0, b"\x1f\x8b", "compressed", True),
    (0, b"BZh", "compressed", False),
    (0, b"\xfd7zXZ\x00", "compressed", True),
    (0, b"\x28\xb5\x2f\xfd", "compressed", True),
    (0, b"7z\xbc\xaf\x27\x1c", "compressed", True),
    (0, b"Rar!\x1a\x07", "compressed", True),
    (0, b"\x04\x22\x4d\x18", "compressed", True),
    (257, b"ustar", "archive", False),
    (0, b"\x7fELF", "executable", True),
    (0, b"MZ", "executable", False),
    (0, b"\xfe\xed\xfa\xce", "executable", True),
    (0, b"\xfe\xed\xfa\xcf", "executable", True),
    (0, b"\xce\xfa\xed\xfe", "executable", True),
    (0, b"\xcf\xfa\xed\xfe", "executable", True),
    (0, b"\xca\xfe\xba\xbe", "executable", True),
    (0, b"\x00asm", "executable", True),
    (0, b"SQLite format 3\x00", "database", True),
    (0, b"ID3", "audio", False),
    (0, b"OggS", "audio", False),
    (0, b"fLaC", "audio", False),
    (4, b"ftyp", "video", False),
    (0, b"\x1aE\xdf\xa3", "video", True),
)


@dataclass(frozen=True, slots=True)
class Detection:
    """What a sample says about a file."""

    encoding: str | None
    """Python codec of the body (after the BOM); ``None`` for binary files."""
    bom: bytes
    is_binary: bool
    binary_hint: str | None


def magic_hint(head: bytes) -> tuple[str | None, bool]:
    """``(hint, strong)`` for a known binary signature at the start of ``head``."""
    for offset, magic, hint, strong in _MAGIC:
        if head[offset : offset + len(magic)] == magic:
            return hint, strong
    return None, False


def _valid_utf8(sample: bytes, *, truncated: bool) -> bool:
    """Strict UTF-8 check; an incomplete final character is fine when ``truncated``."""
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    try:
        decoder.decode(sample, final=not truncated)
    except UnicodeDecodeError:
        return False
    return True


def _looks_utf16_without_bom(sample: bytes) -> str | None:
    """``utf-16-le``/``-be`` when NULs sit on one parity of positions only."""
    probe = sample[:UTF16_PROBE_BYTES]
    if len(probe) < 8:
        return None
    even = probe[0::2]
    odd = probe[1::2]
    even_nul = even.count(0) / len(even)
    odd_nul = odd.count(0) / len(odd)
    if odd_nul > UTF16_NUL_SHARE and even_nul < UTF16_STRAY_NUL_SHARE:
        candidate = "utf-16-le"
    elif even_nul > UTF16_NUL_SHARE and odd_nul < UTF16_STRAY_NUL_SHARE:
        candidate = "utf-16-be"
    else:
        return None
    usable = probe[: len(probe) - len(probe) % 2]
    try:
        usable.decode(candidate)
    except UnicodeDecodeError:
        return None
    return candidate


def _control_ratio(sample: bytes) -> float:
    """Share of C0 control bytes other than tab/newline/CR/FF/ESC/BS."""
    if not sample:
        return 0.0
    text_controls = b"\t\n\r\x0c\x1b\x08"
    controls = bytes(b for b in range(32) if b not in text_controls) + b"\x7f"
    stripped = sample.translate(None, controls)
    return (len(sample) - len(stripped)) / len(sample)


def _mostly_western(sample: bytes) -> bool:
    """Few, isolated non-ASCII bytes among ASCII letters: Western European text.

    Cyrillic, Greek and similar single-byte texts have runs of high bytes;
    Western texts (English, French, German...) an accent here and there.
    """
    try:
        sample.decode("cp1252")
    except UnicodeDecodeError:
        return False
    high = len(sample) - len(sample.translate(None, _HIGH_BYTES))
    letters = len(sample) - len(sample.translate(None, _ASCII_LETTERS))
    in_runs = sum(len(run) for run in _HIGH_RUN.findall(sample))
    return 0 < high < letters and in_runs * 4 < high


_ASCII_LETTERS = bytes(range(65, 91)) + bytes(range(97, 123))
_HIGH_BYTES = bytes(range(128, 256))
_HIGH_RUN = re.compile(rb"[\x80-\xff]{3,}")


def _legacy_encoding(sample: bytes) -> str:
    """Best single-byte (or legacy multibyte) codec for non-UTF-8 text."""
    if _mostly_western(sample):
        return "cp1252"
    guess: str | None = None
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(sample[:CHARSET_SAMPLE_BYTES]).best()
        if best is not None:
            guess = best.encoding
    except Exception:  # pragma: no cover - detector failures fall back below
        guess = None
    if guess:
        try:
            name = codecs.lookup(guess).name
        except LookupError:
            name = ""
        # ASCII-compatible legacy codecs only: they keep b"\n" a line break.
        if name and not name.startswith(("utf-16", "utf-32", "utf_16", "utf_32")):
            return name
    # cp1252 leaves five bytes undefined; latin-1 decodes every byte.
    if any(b in sample for b in (0x81, 0x8D, 0x8F, 0x90, 0x9D)):
        return "latin-1"
    return "cp1252"


def detect_encoding(sample: bytes, *, truncated: bool = True) -> tuple[str | None, bytes]:
    """``(encoding, bom)`` of a text sample; ``encoding`` is ``None`` for binary data.

    ``truncated`` says the sample stops before the end of the file, so a
    multibyte character cut at its end is not an encoding error.
    """
    found = sniff(sample, truncated=truncated)
    return found.encoding, found.bom


def sniff(sample: bytes, *, truncated: bool = True) -> Detection:
    """Classify a sample: encoding and BOM, or binary with a hint."""
    for bom, codec in _BOMS:
        if sample.startswith(bom):
            return Detection(codec, bom, False, None)
    hint, strong = magic_hint(sample)
    if hint is not None and strong:
        return Detection(None, b"", True, hint)
    head = sample[:BINARY_SNIFF_BYTES]
    if b"\x00" in head:
        utf16 = _looks_utf16_without_bom(sample)
        if utf16 is not None and hint is None:
            return Detection(utf16, b"", False, None)
        return Detection(None, b"", True, hint or "data")
    if _valid_utf8(sample, truncated=truncated):
        return Detection("utf-8", b"", False, None)
    if hint is not None:
        return Detection(None, b"", True, hint)
    if _control_ratio(head) > BINARY_CONTROL_SHARE:
        return Detection(None, b"", True, "data")
    legacy = _legacy_encoding(sample)
    if legacy in _WESTERN and _mostly_utf8(sample):
        return Detection("utf-8", b"", False, None)
    return Detection(legacy, b"", False, None)


# Code pages a UTF-8 file with a stray byte is mistaken for.
_WESTERN = frozenset({"cp1252", "latin-1"})


def _mostly_utf8(sample: bytes) -> bool:
    """UTF-8 text with a few stray bytes (a Latin-1 byte pasted into it, a cut
    character): read as UTF-8 (the stray bytes show as U+FFFD and are kept as
    they are), not as a Western code page that garbles every other character.
    Western text seldom holds a valid multibyte UTF-8 sequence (East Asian
    double-byte text often does: it is never taken for UTF-8 here)."""
    text = sample.decode("utf-8", errors="replace")
    stray = text.count("\ufffd")
    multibyte = sum(1 for ch in text if ch > "\x7f") - stray
    return multibyte >= 2 and stray <= multibyte


def is_utf16_or_32(encoding: str | None) -> bool:
    """Encodings whose bytes cannot be searched with an ASCII byte pattern."""
    return bool(encoding) and encoding.replace("_", "-").startswith(("utf-16", "utf-32"))  # type: ignore[union-attr]


def display_name(encoding: str | None, bom: bytes) -> str | None:
    """Encoding as shown to users: ``utf-8-sig`` for UTF-8 with a BOM."""
    if encoding is None:
        return None
    if encoding == "utf-8" and bom:
        return "utf-8-sig"
    return encoding
