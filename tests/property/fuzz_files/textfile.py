"""The generated files: their vocabulary, how they are stored, their lines as the tools number them."""

from __future__ import annotations

import codecs
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from diffchunk.files import access

WORDS = ("foo", "bar", "Baz", "café", "€9", "x", "y", "É", "déjà", "aa", "AA")
CODE_WORDS = ("alpha", "return", "value", "total", "(x)", "=", "item", "count", "if:")
SEPARATORS = (" ", "\t", "  ", " \t")
HEADER = "# sample text for the fuzz model"
ABSENT = ("zzz", "qq", "ś", "✓")
REPLACEMENT_EXTRA = ("\n", "", "new", "ś", "✓", "é", "€", "\t")
TYPO_CHARS = "abfoxyzqAB9 \t-_éÉ€"
TYPO_ASCII = "abfoxyzqAB9 \t-_"
INDENTS = ("", " ", "  ", "    ", "\t", "\t ")


@dataclass(frozen=True)
class TextFile:
    """A generated file: its logical lines and how they are stored."""

    lines: tuple[str, ...]
    final_newline: bool
    newline: str
    encoding: str  # "utf-8" or "cp1252"
    bom: bool

    @property
    def text(self) -> str:
        """Content with ``\\n`` line ends (no BOM)."""
        body = "\n".join(self.lines)
        return body + "\n" if self.final_newline and self.lines else body

    def to_bytes(self) -> bytes:
        raw = self.text.replace("\n", self.newline).encode(self.encoding)
        return (b"\xef\xbb\xbf" if self.bom else b"") + raw

    def effective_encoding(self) -> str:
        """What the file can be told apart as: pure ASCII reads as UTF-8."""
        return "utf-8" if self.text.isascii() else self.encoding

    def effective_newline(self) -> str:
        """Line ending replacements get: a file without any line break reads as LF."""
        return self.newline if "\n" in self.text else "\n"


def _text_file(rng: random.Random, lines: list[str], encoding: str) -> TextFile:
    """``lines`` as a file: a final newline, LF or CRLF and a BOM drawn at random."""
    return TextFile(
        lines=tuple(lines),
        final_newline=rng.random() < 0.8,
        newline=rng.choice(("\n", "\r\n")),
        encoding=encoding,
        bom=encoding == "utf-8" and rng.random() < 0.3,
    )


def random_file(
    rng: random.Random, words: Sequence[str] = WORDS, *, max_lines: int = 10
) -> TextFile:
    encoding = rng.choice(("utf-8", "cp1252"))
    count = rng.randint(0, max_lines)
    # Legacy encodings are recognised from mostly-ASCII text with isolated accents
    # (diffchunk.files.encoding); a tiny cp1252 file of mostly accented bytes is
    # ambiguous, so cp1252 files always start with an ASCII line.
    lines = [HEADER] if encoding == "cp1252" or rng.random() < 0.9 else []
    for _ in range(count):
        chosen = [rng.choice(words) for _ in range(rng.randint(0, 5))]
        pieces: list[str] = []
        for word in chosen:
            pieces.append(word)
            pieces.append(rng.choice(SEPARATORS))
        if pieces and rng.random() < 0.6:
            pieces.pop()
        if rng.random() < 0.2:
            pieces.insert(0, rng.choice(SEPARATORS))
        lines.append("".join(pieces))
    return _text_file(rng, lines, encoding)


def random_code_file(rng: random.Random) -> TextFile:
    """Indented lines of words, some repeated or nearly repeated elsewhere."""
    encoding = rng.choice(("utf-8", "cp1252"))
    lines = [HEADER] if encoding == "cp1252" or rng.random() < 0.7 else []
    for _ in range(rng.randint(0, 9)):
        if lines and rng.random() < 0.15:
            copy = rng.choice(lines)
            # ASCII typos only in cp1252: accented letters side by side make
            # the encoding ambiguous (see random_file).
            chars = TYPO_CHARS if encoding == "utf-8" else TYPO_ASCII
            lines.append(typo(rng, copy, chars) if rng.random() < 0.5 else copy)
            continue
        words = [rng.choice(WORDS + CODE_WORDS) for _ in range(rng.randint(0, 6))]
        line = rng.choice(INDENTS) + "".join(word + rng.choice(SEPARATORS) for word in words)
        lines.append(line.rstrip(" \t") if rng.random() < 0.7 else line)
    return _text_file(rng, lines, encoding)


def typo(rng: random.Random, text: str, chars: str = TYPO_CHARS) -> str:
    """``text`` with one character substituted, deleted or inserted (never a line break)."""
    spots = [i for i, c in enumerate(text) if c != "\n"]
    kind = rng.choice(("sub", "del", "ins")) if spots else "ins"
    if kind == "ins":
        at = rng.randint(0, len(text))
        return text[:at] + rng.choice(chars) + text[at:]
    at = rng.choice(spots)
    if kind == "del":
        return text[:at] + text[at + 1 :]
    return text[:at] + rng.choice(chars) + text[at + 1 :]


def model_lines(tf: TextFile) -> list[str]:
    """The file's lines as the tools number them (without line endings)."""
    lines = tf.text.split("\n")
    if lines[-1] == "":
        lines.pop()  # after a final line break (or an empty file) there is no line
    return lines


def check_detection(tf: TextFile, path: Path) -> None:
    """The file tools must read the file in the encoding it was written in."""
    access.clear_cache()
    found = access.open_version(str(path)).encoding or ""
    want = tf.effective_encoding()
    assert codecs.lookup(found).name == codecs.lookup(want).name, (
        f"encoding detected as {found!r}, written as {want!r}"
    )
