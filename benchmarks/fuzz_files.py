"""Randomised checks of the large-file tools' edit and search paths.

Each case builds a small text file (random words, spaces and tabs, LF or CRLF
line endings, an optional UTF-8 byte-order mark, UTF-8 or cp1252 with ``é``
and ``€``) and compares ``edit_content`` / ``search_content`` with plain
reference models written on the decoded text.  A *line* is what the tools
document: the text between two ``\\n`` (the ``\\r`` of a CRLF ending and the
byte-order mark are not part of it; a final line break ends the last line and
does not start a new one).

- exact edits (``fuzzy=False``): every search text is counted in the original
  content (LF-normalised, overlapping occurrences counted); a batch is applied
  only when each search text occurs exactly once, no two located spans
  overlap and every replacement can be encoded; the result is the original
  with the replacements, converted back to the file's line ending, BOM and
  encoding.  A refused batch leaves the bytes alone and makes no backup;
  ``preview=True`` never writes.
- exact search: matching line numbers (case-insensitive on request,
  complemented with ``invert``), their texts and ``count_only`` counts equal
  the model's, with the in-process scanner (whole and in 64-byte windows)
  and with the ``grep`` hand-off.
- regex search (``regex=True``): a line matches when Python's ``re.search``
  finds the pattern in that one decoded line (``re.IGNORECASE`` when
  case-insensitive); an invalid pattern is refused with ``InvalidArgument``.
  Patterns mix literals, ``\\x``/``\\u``/``\\N`` escapes, classes, anchors,
  lookarounds, groups, backreferences, alternation, quantifiers and inline
  flags (the tool documents plain Python ``re``).  Checked like exact search,
  in every scanner mode.
- fuzzy search (``fuzzy=True``): the documented rule is rapidfuzz's
  ``partial_ratio`` (the best alignment of the shorter text in the longer),
  case ignored for ASCII letters, at least 80 (75 for patterns of up to 6
  characters); a line containing the pattern scores 1.0 and is "exact".  The
  model computes the measure itself (bit-parallel LCS over every alignment).
  The tool prunes candidates (a line must hold one of several disjoint pieces
  of the pattern) and skips lines too short to reach the cutoff, so the check
  is one-sided: every reported line reaches the cutoff with the reported
  score, results come best first, counts agree, every line containing the
  pattern is reported, and so is every line holding the pattern within one
  edit (two edits for patterns of 15 characters or more) that scores enough.
- fuzzy edits (``fuzzy=True``, or per change): a search text found exactly
  once is an exact match, one found several times is refused, one not found
  is refused unless fuzzy matching is on for it; then whole lines are
  compared with blank runs collapsed and ends stripped, windows of the search
  text's line count and one more or fewer scored with the InDel ratio; the
  best window is used when it reaches ``DIFFCHUNK_FUZZY_THRESHOLD`` and no
  window that does not overlap it is nearly as close (distance below twice
  the best's, or below 0.01).  The replacement takes the window's lines (and
  its last line break when the search text ends with one), re-indented from
  the search text's first indentation to the window's.  Ties between
  overlapping best windows may go either way, and scores within 1e-9 of a
  bound either side of it.  Each change's reported line, match type and
  similarity must fit the placement; a refused batch leaves the file and the
  backups alone, an applied one makes one backup unless every replacement
  equals its target.  Checked in memory, streamed, and with the anchored
  search of big files, where a window may be missed (the edit may be
  refused) but an applied one must reach the threshold and be replaced as
  the model says.

Run ``python -m benchmarks.fuzz_files --cases N --seed S``; cases cycle
through the kinds (``--kinds`` picks some); it prints progress, the outcomes
seen per kind and a final ``N passed, N failed`` line.
"""

from __future__ import annotations

import argparse
import codecs
import itertools
import math
import os
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from diffchunk.errors import InvalidArgument
from diffchunk.files import access, fuzzy_block, grep, indent, reader, snapshot
from diffchunk.files.edit import edit_content, list_backups
from diffchunk.files.service import search_content

WORDS = ("foo", "bar", "Baz", "café", "€9", "x", "y", "É", "déjà", "aa", "AA")
CODE_WORDS = ("alpha", "return", "value", "total", "(x)", "=", "item", "count", "if:")
SEPARATORS = (" ", "\t", "  ", " \t")
HEADER = "# sample text for the fuzz model"
ABSENT = ("zzz", "qq", "ś", "✓")
REPLACEMENT_EXTRA = ("\n", "", "new", "ś", "✓", "é", "€", "\t")
TYPO_CHARS = "abfoxyzqAB9 \t-_éÉ€"
TYPO_ASCII = "abfoxyzqAB9 \t-_"


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


def random_piece(rng: random.Random, tf: TextFile) -> str:
    """A substring of one to three consecutive lines (with their breaks), or absent text."""
    text = tf.text
    if not text or rng.random() < 0.12:
        return rng.choice(ABSENT)
    lines = text.splitlines(keepends=True)
    first = rng.randrange(len(lines))
    last = min(len(lines), first + rng.choice((1, 1, 1, 2, 3)))
    block = "".join(lines[first:last])
    if rng.random() < 0.4:
        piece = block  # whole lines
    else:
        start = rng.randrange(len(block))
        end = rng.randint(start + 1, len(block))
        piece = block[start:end]
    return piece or rng.choice(ABSENT)


def random_replacement(rng: random.Random, tf: TextFile) -> str:
    parts = [rng.choice(WORDS + REPLACEMENT_EXTRA + SEPARATORS) for _ in range(rng.randint(0, 4))]
    if rng.random() < 0.15 and tf.text:
        parts.append(random_piece(rng, tf))
    return "".join(parts)


# ----------------------------------------------------------------- exact edits


@dataclass(frozen=True)
class EditCase:
    file: TextFile
    changes: tuple[tuple[str, str], ...]


def random_edit_case(rng: random.Random) -> EditCase:
    tf = random_file(rng)
    changes = []
    for _ in range(rng.randint(1, 4)):
        search = random_piece(rng, tf)
        replace = search if rng.random() < 0.05 else random_replacement(rng, tf)
        changes.append((search, replace))
    return EditCase(tf, tuple(changes))


def occurrences(text: str, needle: str) -> list[int]:
    """Every start of ``needle`` in ``text``, overlapping ones included."""
    found = []
    pos = text.find(needle)
    while pos >= 0:
        found.append(pos)
        pos = text.find(needle, pos + 1)
    return found


def expected_edit(case: EditCase) -> bytes | None:
    """The model: the new file bytes, or None when the batch must be refused."""
    tf = case.file
    text = tf.text
    spans = []
    for search, replace in case.changes:
        hits = occurrences(text, search)
        if len(hits) != 1:
            return None
        spans.append((hits[0], hits[0] + len(search), replace))
    spans.sort()
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        if start < end:
            return None
    out = []
    cursor = 0
    for start, end, replace in spans:
        out.append(text[cursor:start])
        out.append(replace)
        cursor = end
    out.append(text[cursor:])
    return encoded(tf, "".join(out))


def encoded(tf: TextFile, new_text: str) -> bytes | None:
    """``new_text`` (LF) stored like ``tf``; None when its encoding cannot hold it."""
    try:
        raw = new_text.replace("\n", tf.effective_newline()).encode(tf.effective_encoding())
    except UnicodeEncodeError:
        return None
    return (b"\xef\xbb\xbf" if tf.bom else b"") + raw


def check_edit(case: EditCase, directory: Path) -> None:
    """Raise AssertionError when ``edit_content`` disagrees with the model.

    Each case edits a new path (backups are kept per path, and pruned), once
    in memory and once streamed in tiny windows as a huge file would be.
    """
    for stream in (False, True):
        with tempfile.TemporaryDirectory(dir=directory) as fresh, edit_mode(stream=stream):
            try:
                _check_edit(case, Path(fresh) / "sample.txt")
            except AssertionError as exc:
                raise AssertionError(f"{'streamed' if stream else 'in memory'}: {exc}") from None


@contextmanager
def edit_mode(*, stream: bool, anchored: bool = False) -> Iterator[None]:
    """With ``stream``, edits read the file by ``pread`` in 64-byte windows; with
    ``anchored``, fuzzy matching looks only near the search text's words, as it
    does in files over ``fuzzy_block.FULL_FUZZY_LIMIT``."""
    saved = snapshot.IN_MEMORY_LIMIT, reader.BLOCK, fuzzy_block.FULL_FUZZY_LIMIT
    try:
        if stream:
            snapshot.IN_MEMORY_LIMIT, reader.BLOCK = 0, 64
        if anchored:
            fuzzy_block.FULL_FUZZY_LIMIT = 0
        yield
    finally:
        snapshot.IN_MEMORY_LIMIT, reader.BLOCK, fuzzy_block.FULL_FUZZY_LIMIT = saved


def _check_edit(case: EditCase, path: Path) -> None:
    original = case.file.to_bytes()
    path.write_bytes(original)
    check_detection(case.file, path)
    changes = [{"search": s, "replace": r} for s, r in case.changes]
    want = expected_edit(case)
    before = len(list_backups(str(path)))
    preview = edit_content(str(path), changes, fuzzy=False, preview=True).to_dict()
    assert path.read_bytes() == original, "preview changed the file"
    assert preview["success"] == (want is not None), (
        f"preview success={preview['success']}, model expects {want is not None}: {preview}"
    )
    result = edit_content(str(path), changes, fuzzy=False, preview=False).to_dict()
    after = len(list_backups(str(path)))
    actual = path.read_bytes()
    if want is None:
        assert not result["success"], f"edit accepted, model refuses: {result}"
        assert actual == original, "refused edit changed the file"
        assert after == before, "refused edit made a backup"
        return
    assert result["success"], f"edit refused, model accepts: {result}"
    assert actual == want, f"bytes differ:\n got  {actual!r}\n want {want!r}"
    if want == original:
        assert after == before, "edit that changes nothing made a backup"
    else:
        assert after == before + 1, f"expected one new backup, {after - before} made"


# ---------------------------------------------------------------- exact search


@dataclass(frozen=True)
class SearchCase:
    file: TextFile
    pattern: str


def random_search_case(rng: random.Random) -> SearchCase:
    tf = random_file(rng)
    roll = rng.random()
    if roll < 0.15 or not tf.lines:
        pattern = rng.choice((*ABSENT, "é", "É", "€", "aA", "\t"))
    else:
        line = rng.choice([line for line in tf.lines if line] or [HEADER])
        start = rng.randrange(len(line)) if line else 0
        pattern = line[start : rng.randint(start + 1, len(line))] if line else "x"
        if roll > 0.7:
            pattern = pattern.swapcase()
    return SearchCase(tf, pattern or "x")


def expected_lines(case: SearchCase, *, case_sensitive: bool, invert: bool) -> list[int]:
    """1-based numbers of matching lines (like ``grep -n``; a final line break ends a line)."""
    pattern = case.pattern
    out = []
    for number, line in enumerate(model_lines(case.file), 1):
        if case_sensitive:
            hit = pattern in line
        else:
            hit = pattern.lower() in line.lower()
        if hit != invert:
            out.append(number)
    return out


@contextmanager
def search_mode(mode: str) -> Iterator[None]:
    """``python`` (in-process scan), ``smallwin`` (the same in 64-byte line-aligned
    windows), ``grep`` (hand-off forced) or ``nogrep`` (hand-off threshold passed
    but disabled by DIFFCHUNK_NO_GREP)."""
    saved_min = grep.GREP_MIN_BYTES
    saved_env = os.environ.get("DIFFCHUNK_NO_GREP")
    windows = access.FileVersion.windows
    saved_defaults = windows.__defaults__
    try:
        if mode == "smallwin":
            windows.__defaults__ = (None, None, 64)
        if mode in ("grep", "nogrep"):
            grep.GREP_MIN_BYTES = 0
        if mode == "nogrep":
            os.environ["DIFFCHUNK_NO_GREP"] = "1"
        else:
            os.environ.pop("DIFFCHUNK_NO_GREP", None)
        yield
    finally:
        windows.__defaults__ = saved_defaults
        grep.GREP_MIN_BYTES = saved_min
        if saved_env is None:
            os.environ.pop("DIFFCHUNK_NO_GREP", None)
        else:
            os.environ["DIFFCHUNK_NO_GREP"] = saved_env


SEARCH_MODES = ("python", "smallwin", "grep", "nogrep")


def check_search(case: SearchCase, directory: Path) -> None:
    """Raise AssertionError when exact ``search_content`` disagrees with the model."""
    path = directory / "search.txt"
    path.write_bytes(case.file.to_bytes())
    check_detection(case.file, path)
    lines = model_lines(case.file)
    for mode in SEARCH_MODES:
        with search_mode(mode):
            for case_sensitive in (True, False):
                for invert in (False, True):
                    want = expected_lines(case, case_sensitive=case_sensitive, invert=invert)
                    where = f"mode={mode} case_sensitive={case_sensitive} invert={invert}"
                    _compare_lines(
                        path, case.pattern, lines, want, where,
                        regex=False, case_sensitive=case_sensitive, invert=invert,
                    )  # fmt: skip


def _compare_lines(
    path: Path,
    pattern: str,
    lines: list[str],
    want: list[int],
    where: str,
    **options: bool,
) -> None:
    """Exact or regex ``search_content`` (and its count) must list exactly ``want``."""
    access.clear_cache()
    try:
        found = search_content(
            str(path), pattern, max_results=500, context_lines=0, fuzzy=False, **options
        ).to_dict()
        counted = search_content(
            str(path), pattern, fuzzy=False, count_only=True, **options
        ).to_dict()
    except Exception as exc:
        raise AssertionError(f"{where}: raised {exc!r}") from None
    got = [item["line_number"] for item in found["results"]]
    assert got == want, f"{where}: lines {got}, model {want}"
    assert found["total_matches"] == len(want), (
        f"{where}: total {found['total_matches']}, model {len(want)}"
    )
    shown = [item["match"] for item in found["results"]]
    assert shown == [lines[n - 1] for n in want], f"{where}: texts {shown}"
    assert counted["count"] == len(want), f"{where}: count {counted['count']}, model {len(want)}"


# ---------------------------------------------------------------- regex search


@dataclass(frozen=True)
class RegexCase:
    file: TextFile
    pattern: str


REGEX_LITERALS = ("a", "b", "o", "f", "r", "z", "x", "y", "9", "A", "B", "é", "É", "€", "à", " ")
REGEX_ESCAPES = (r"\t", r"\.", r"\x20", r"\(", r"\u00e9", r"\xe9", r"\xc9", r"\N{EURO SIGN}")
REGEX_CLASSES: tuple[str, ...] = (".", r"\w", r"\d", r"\S", "[ab]", "[a-z]", "[A-Z]", "[éÉ]")
REGEX_CLASSES += (r"[\w€]", "[0-9]", "[ (]", r"[\t ]", "[à-é]")
REGEX_ASSERTIONS = ("^", "$", r"\b", r"\B")
# What a line-by-line search and a search over several lines at once can see
# differently: line breaks, the "\r" of CRLF, the ends of the text.
REGEX_ACROSS = (r"\s", r"\W", r"\D", "[^ab]", r"[^\w]", "[^a-zé ]", r"[\s\S]", r"\n", r"\r")
REGEX_ACROSS_ASSERTIONS: tuple[str, ...] = (
    r"\A",
    r"\Z",
    "(?=a)",
    "(?!a)",
    "(?<=a)",
    "(?<!a)",
    r"(?!\s)",
)
REGEX_ACROSS_ASSERTIONS += (r"(?<=\s)", "(?<![a-z])", r"(?<=o\n)")
REGEX_FLAGS = ("(?i)", "(?a)", "(?m)", "(?ia)")
REGEX_INVALID = ("(", "[a", "a{2,1}", "*a", "a\\", "(?<=a+)b", r"\p{L}", "a)", r"\8", "(?P<1>a)")
REGEX_BOUNDED = ("?", "??", "{1,2}", "{2}", "{0,2}", "{1,2}?")
REGEX_UNBOUNDED = ("*", "+", "*?", "+?", "{1,}")


def random_regex_case(rng: random.Random) -> RegexCase:
    return regex_case_for(rng, random_file(rng))


def regex_case_for(rng: random.Random, tf: TextFile) -> RegexCase:
    """A pattern for ``tf``."""
    return RegexCase(tf, random_regex(rng, tf))


class _RegexBuilder:
    """Builds one random pattern (a fresh builder per pattern).

    Most patterns start from a piece of a line with some characters written
    another way (a class, ``.``, an escape) so that they match somewhere;
    the rest are random units.
    """

    def __init__(self, rng: random.Random, tf: TextFile) -> None:
        self.rng = rng
        self.lines = [line for line in model_lines(tf) if line]
        self.unbounded = 1  # at most one unbounded quantifier: no catastrophic backtracking
        self.groups = 0
        self.closed = 0

    def pattern(self) -> str:
        rng = self.rng
        body = self.branch()
        if rng.random() < 0.15:
            body = f"{body}|{self.branch()}"
        if rng.random() < 0.12:
            body = rng.choice(REGEX_FLAGS) + body
        elif rng.random() < 0.05:
            body = "(?s)" + body
        return body

    def branch(self) -> str:
        if self.lines and self.rng.random() < 0.65:
            return self.from_line()
        return self.sequence(self.rng.randint(1, 3))

    def from_line(self) -> str:
        rng = self.rng
        line = rng.choice(self.lines)
        start = rng.randrange(len(line))
        end = min(len(line), start + rng.randint(1, 10))
        parts = []
        if start == 0 and rng.random() < 0.4:
            parts.append(r"\A" if rng.random() < 0.3 else "^")
        for char in line[start:end]:
            roll = rng.random()
            if roll < 0.55:
                atom = re.escape(char.swapcase() if rng.random() < 0.1 else char)
            elif roll < 0.72:
                atom = self.class_of(char)
            elif roll < 0.8:
                atom = "."
            elif roll < 0.9:
                atom = _escape_of(rng, char)
            else:
                parts.append(self.unit())
                continue
            parts.append(self.quantified(atom))
        if end == len(line) and rng.random() < 0.4:
            parts.append(r"\Z" if rng.random() < 0.3 else "$")
        return "".join(parts)

    def class_of(self, char: str) -> str:
        """A class (or category) holding ``char``."""
        if char.isdigit():
            pool: tuple[str, ...] = (r"\d", r"\w", "[0-9]", r"\S")
        elif char.isalpha():
            pool = (r"\w", r"\S", "[^\\W\\d]", "[a-zA-Zéà-ÿ]")
        elif char in " \t":
            pool = (r"\s", r"\W", r"[^\w]", "[\t ]")
        else:
            pool = (r"\W", r"\S", r"[^\w\s]")
        return self.rng.choice(pool)

    def sequence(self, count: int) -> str:
        return "".join(self.unit() for _ in range(count))

    def quantified(self, atom: str) -> str:
        rng = self.rng
        if rng.random() >= 0.3:
            return atom
        if self.unbounded and rng.random() < 0.5:
            self.unbounded -= 1
            return atom + rng.choice(REGEX_UNBOUNDED)
        return atom + rng.choice(REGEX_BOUNDED)

    def unit(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.25:
            return self.quantified(rng.choice(REGEX_LITERALS))
        if roll < 0.33:
            return self.quantified(rng.choice(REGEX_ESCAPES))
        if roll < 0.6:
            return self.quantified(rng.choice(REGEX_CLASSES + REGEX_ACROSS))
        if roll < 0.75:
            return rng.choice(REGEX_ASSERTIONS + REGEX_ACROSS_ASSERTIONS)
        if roll < 0.92 and self.groups < 3:
            capturing = rng.random() < 0.6
            self.groups += capturing
            inner = self.sequence(rng.randint(1, 2))
            if rng.random() < 0.3:
                inner = f"{inner}|{self.sequence(1)}"
            if capturing:
                self.closed = self.groups
            group = f"({inner})" if capturing else f"(?:{inner})"
            return group + (rng.choice(REGEX_BOUNDED) if rng.random() < 0.3 else "")
        if self.closed:
            return f"\\{rng.randint(1, self.closed)}"
        return self.quantified(rng.choice(REGEX_LITERALS))


def _escape_of(rng: random.Random, char: str) -> str:
    """``char`` written as a ``\\x``, ``\\u`` or ``\\N{...}`` escape."""
    code = ord(char)
    forms = [f"\\u{code:04x}"]
    if code < 256:
        forms.append(f"\\x{code:02x}")
    if not char.isascii():
        forms.append("\\N{" + unicodedata.name(char) + "}")
    return rng.choice(forms)


def random_regex(rng: random.Random, tf: TextFile) -> str:
    """A random Python regex over ``tf``'s alphabet (sometimes an invalid one)."""
    if rng.random() < 0.04:
        return rng.choice(REGEX_INVALID)
    return _RegexBuilder(rng, tf).pattern()


def regex_lines(pattern: str, lines: list[str], *, case_sensitive: bool) -> list[int] | None:
    """1-based numbers of the lines ``re.search`` finds ``pattern`` in; None if invalid."""
    flags = re.MULTILINE | (0 if case_sensitive else re.IGNORECASE)
    try:
        compiled = re.compile(pattern, flags)
    except re.error:
        return None
    return [n for n, line in enumerate(lines, 1) if compiled.search(line) is not None]


def check_regex_search(case: RegexCase, directory: Path) -> str:
    """Raise AssertionError when regex ``search_content`` disagrees with ``re`` per line."""
    path = directory / "regex.txt"
    path.write_bytes(case.file.to_bytes())
    check_detection(case.file, path)
    lines = model_lines(case.file)
    tag = ""
    for mode in SEARCH_MODES:
        with search_mode(mode):
            for case_sensitive in (True, False):
                hits = regex_lines(case.pattern, lines, case_sensitive=case_sensitive)
                if hits is None:
                    _expect_invalid(path, case.pattern, f"mode={mode}", case_sensitive)
                    tag = "invalid pattern"
                    break
                if case_sensitive:
                    tag = _share(len(hits), len(lines))
                for invert in (False, True):
                    want = [n for n in range(1, len(lines) + 1) if (n in hits) != invert]
                    where = f"mode={mode} case_sensitive={case_sensitive} invert={invert}"
                    _compare_lines(
                        path, case.pattern, lines, want, where,
                        regex=True, case_sensitive=case_sensitive, invert=invert,
                    )  # fmt: skip
    return tag


def _share(hits: int, lines: int) -> str:
    if not hits:
        return "no line matches"
    return "every line matches" if hits == lines else "some lines match"


def _expect_invalid(path: Path, pattern: str, where: str, case_sensitive: bool) -> None:
    for count_only in (False, True):
        access.clear_cache()
        try:
            search_content(
                str(path),
                pattern,
                fuzzy=False,
                regex=True,
                case_sensitive=case_sensitive,
                count_only=count_only,
            )
        except InvalidArgument:
            continue
        except Exception as exc:
            raise AssertionError(f"{where}: invalid pattern raised {exc!r}") from None
        raise AssertionError(f"{where}: invalid pattern {pattern!r} accepted")


# -------------------------------------------------------- similarity measures
#
# Written from the documented definitions, not from the tool's code: the InDel
# ratio of two texts is 2 * LCS / (len(a) + len(b)) (1 for two empty texts);
# partial_ratio is the best ratio of the shorter text against every alignment
# in the longer one (each window of its length, and the shorter prefixes and
# suffixes of the longer text at its ends), tried both ways for equal lengths.


def _masks(text: str) -> dict[str, int]:
    masks: dict[str, int] = {}
    for i, char in enumerate(text):
        masks[char] = masks.get(char, 0) | (1 << i)
    return masks


def _lcs_with(masks: dict[str, int], size: int, other: str) -> int:
    """LCS length of the text behind ``masks`` (``size`` characters) and ``other``.

    Bit-parallel: bit i of ``row`` is 0 where the LCS grew at position i.
    """
    full = (1 << size) - 1
    row = full
    for char in other:
        hit = row & masks.get(char, 0)
        row = ((row + hit) | (row - hit)) & full
    return size - bin(row).count("1")


def lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence of ``a`` and ``b``."""
    if len(a) < len(b):
        a, b = b, a
    return _lcs_with(_masks(b), len(b), a) if b else 0


def indel_ratio(a: str, b: str) -> Fraction:
    """Normalised InDel similarity, 0..1."""
    total = len(a) + len(b)
    return Fraction(2 * lcs_length(a, b), total) if total else Fraction(1)


def _aligned(short: str, long: str) -> Fraction:
    m, n = len(short), len(long)
    masks = _masks(short)
    windows = [long[i : i + m] for i in range(n - m + 1)]
    windows += [long[:k] for k in range(1, m)] + [long[n - k :] for k in range(1, m)]
    best_lcs, best_len = 0, 1
    for window in windows:
        common = _lcs_with(masks, m, window)
        # Compare 2*common/(m+len) fractions without building them.
        if common * (m + best_len) > best_lcs * (m + len(window)):
            best_lcs, best_len = common, len(window)
    return Fraction(2 * best_lcs, m + best_len)


def partial_ratio(a: str, b: str) -> Fraction:
    """Similarity of the best alignment of the shorter text in the longer, 0..1."""
    if not a and not b:
        return Fraction(1)
    if not a or not b:
        return Fraction(0)
    if len(a) > len(b):
        a, b = b, a
    best = _aligned(a, b)
    if len(a) == len(b) and best < 1:
        best = max(best, _aligned(b, a))
    return best


def substring_distance(pattern: str, text: str) -> int:
    """Fewest edits (Levenshtein) turning ``pattern`` into some substring of ``text``."""
    column = list(range(len(pattern) + 1))
    best = column[-1]
    for char in text:
        diagonal, column[0] = column[0], 0
        for i, want in enumerate(pattern, 1):
            above = column[i]
            column[i] = min(above + 1, column[i - 1] + 1, diagonal + (want != char))
            diagonal = above
        best = min(best, column[-1])
    return best


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_fold(text: str) -> str:
    return text.translate(_ASCII_LOWER)


EPSILON = Fraction(1, 10**9)
"""Scores this close to a bound may fall either side of it in floating point."""


def at_least(value: Fraction, bound: Fraction) -> bool | None:
    """``value >= bound``, or None when too close to call."""
    if value >= bound + EPSILON:
        return True
    if value < bound - EPSILON:
        return False
    return None


# ---------------------------------------------------------------- fuzzy search


@dataclass(frozen=True)
class FuzzySearchCase:
    file: TextFile
    pattern: str


def random_fuzzy_search_case(rng: random.Random) -> FuzzySearchCase:
    return fuzzy_search_case_for(rng, random_file(rng))


def fuzzy_search_case_for(rng: random.Random, tf: TextFile) -> FuzzySearchCase:
    """A fuzzy pattern for ``tf``."""
    return FuzzySearchCase(tf, random_fuzzy_pattern(rng, tf))


def _typo(rng: random.Random, text: str, chars: str = TYPO_CHARS) -> str:
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


def random_fuzzy_pattern(rng: random.Random, tf: TextFile) -> str:
    """A one-line pattern: part of a line with a few typos, case changes or blanks."""
    lines = [line for line in model_lines(tf) if line.strip()]
    roll = rng.random()
    if not lines or roll < 0.08:
        return rng.choice((*ABSENT, "é", "É", "€", "\t", " ", "foo bar", "café déjà", "x      y"))
    line = rng.choice(lines)
    length = rng.choice((2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 40))
    start = rng.randrange(max(1, len(line) - length + 1))
    pattern = line[start : start + length]
    for _ in range(rng.choice((0, 0, 1, 1, 1, 2, 3))):
        pattern = _typo(rng, pattern)
    if rng.random() < 0.25:
        pattern = pattern.swapcase()
    if rng.random() < 0.1:
        pattern = rng.choice(SEPARATORS) + pattern + rng.choice(("", " ", "   "))
    return pattern if pattern else "x"


FUZZY_CUTOFF = Fraction(80, 100)
FUZZY_SHORT_CUTOFF = Fraction(75, 100)
FUZZY_SHORT_PATTERN = 6
"""The documented cutoffs of fuzzy search (``diffchunk.files.search``): 80, or 75
for patterns of up to 6 characters (blanks around them not counted)."""


@dataclass(frozen=True)
class FuzzyLine:
    score: Fraction  # partial_ratio, 0..1
    contains: bool  # holds the pattern (case ignored)
    must_find: bool  # the documented prefilter cannot drop it


@dataclass(frozen=True)
class FuzzyModel:
    cutoff: Fraction
    lines: tuple[FuzzyLine, ...]


def fuzzy_search_model(pattern: str, lines: list[str]) -> FuzzyModel:
    # Case is ignored: str.lower on both sides, ASCII letters alone for an
    # ASCII pattern (which scores every line the same; see fuzzy_search).
    fold = ascii_fold if pattern.isascii() else str.lower
    needle = fold(pattern)
    core = needle.strip()
    cutoff = FUZZY_SHORT_CUTOFF if len(core) <= FUZZY_SHORT_PATTERN else FUZZY_CUTOFF
    # Lines too short to reach the cutoff with the whole pattern are skipped
    # (n pattern characters need n * c / (2 - c) of them); the prefilter keeps
    # lines holding one of the pattern's pieces, so a line within one edit of
    # the pattern (two for 15 characters and more) is always a candidate.
    shortest = math.floor(len(core) * cutoff / (2 - cutoff))
    edits = 0 if len(core) < 4 else 1 if len(core) < 15 else 2
    out = []
    for line in lines:
        folded = fold(line)
        contains = needle in folded
        score = Fraction(1) if contains else partial_ratio(needle, folded)
        near = (
            edits > 0
            and at_least(score, cutoff) is True
            and len(folded.rstrip()) >= shortest
            and substring_distance(core, folded) <= edits
        )
        out.append(FuzzyLine(score, contains, contains or near))
    return FuzzyModel(cutoff, tuple(out))


FUZZY_SEARCH_MODES = ("python", "smallwin")


def check_fuzzy_search(case: FuzzySearchCase, directory: Path) -> str:
    """Raise AssertionError when fuzzy ``search_content`` breaks the documented rule."""
    path = directory / "fuzzy.txt"
    path.write_bytes(case.file.to_bytes())
    check_detection(case.file, path)
    lines = model_lines(case.file)
    model = fuzzy_search_model(case.pattern, lines)
    tag = ""
    for mode in FUZZY_SEARCH_MODES:
        with search_mode(mode):
            for case_sensitive in (True, False):
                where = f"mode={mode} case_sensitive={case_sensitive}"
                tag = _check_fuzzy_found(path, case.pattern, lines, model, where, case_sensitive)
            # fuzzy is ignored with invert: an exact inverted search.
            access.clear_cache()
            want = expected_lines(
                SearchCase(case.file, case.pattern), case_sensitive=True, invert=True
            )
            found = search_content(
                str(path), case.pattern, max_results=500, context_lines=0, invert=True
            ).to_dict()
            got = [item["line_number"] for item in found["results"]]
            assert got == want, f"mode={mode} invert: lines {got}, model {want}"
    return tag


def _check_fuzzy_found(
    path: Path,
    pattern: str,
    lines: list[str],
    model: FuzzyModel,
    where: str,
    case_sensitive: bool,
) -> str:
    access.clear_cache()
    try:
        found = search_content(
            str(path), pattern, max_results=500, context_lines=0, case_sensitive=case_sensitive
        ).to_dict()
        counted = search_content(str(path), pattern, count_only=True).to_dict()
    except Exception as exc:
        raise AssertionError(f"{where}: raised {exc!r}") from None
    results = found["results"]
    reported = []
    for item in results:
        number = item["line_number"]
        assert 1 <= number <= len(lines), f"{where}: line {number} of {len(lines)}"
        verdict = model.lines[number - 1]
        score = item["similarity_score"]
        assert at_least(verdict.score, model.cutoff) is not False, (
            f"{where}: line {number} {lines[number - 1]!r} reported with {score}, "
            f"model score {float(verdict.score):.4f} < cutoff {float(model.cutoff)}"
        )
        assert abs(score - float(verdict.score)) <= 0.00005 + 1e-9, (
            f"{where}: line {number} {lines[number - 1]!r} scored {score}, "
            f"model {float(verdict.score):.5f}"
        )
        assert (item["match_type"] == "exact") == (verdict.score == 1), (
            f"{where}: line {number} typed {item['match_type']} with model score "
            f"{float(verdict.score):.4f}"
        )
        assert item["match"] == lines[number - 1], f"{where}: line {number} shown {item['match']!r}"
        reported.append(number)
    order = [(-model.lines[n - 1].score, n) for n in reported]
    assert order == sorted(order), f"{where}: results not best first: {reported}"
    assert len(set(reported)) == len(reported), f"{where}: a line reported twice: {reported}"
    assert found["total_matches"] == len(reported), (
        f"{where}: total {found['total_matches']}, {len(reported)} results"
    )
    assert counted["count"] == len(reported), f"{where}: count {counted['count']}"
    missed = [n for n, v in enumerate(model.lines, 1) if v.must_find and n not in reported]
    assert not missed, (
        f"{where}: missed lines {missed} "
        + ", ".join(f"{lines[n - 1]!r} ({float(model.lines[n - 1].score):.3f})" for n in missed)
        + f"; reported {reported}"
    )
    if not reported:
        return "nothing found"
    types = {item["match_type"] for item in results}
    return "fuzzy lines found" if "fuzzy" in types else "only exact lines found"


# ------------------------------------------------------------------ fuzzy edits


FUZZY_EDIT_THRESHOLD = Fraction(85, 100)
"""Default of ``DIFFCHUNK_FUZZY_THRESHOLD`` (README, Configuration)."""


@dataclass(frozen=True)
class FuzzyEditCase:
    file: TextFile
    changes: tuple[tuple[str, str, bool | None], ...]  # search, replace, own "fuzzy" key
    threshold: float | None  # DIFFCHUNK_FUZZY_THRESHOLD, None for the default
    fuzzy: bool = True  # the call's flag (a change's own key overrides it)


INDENTS = ("", " ", "  ", "    ", "\t", "\t ")


def random_fuzzy_edit_case(rng: random.Random) -> FuzzyEditCase:
    return fuzzy_edit_case_for(rng, random_code_file(rng))


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
            lines.append(_typo(rng, copy, chars) if rng.random() < 0.5 else copy)
            continue
        words = [rng.choice(WORDS + CODE_WORDS) for _ in range(rng.randint(0, 6))]
        line = rng.choice(INDENTS) + "".join(word + rng.choice(SEPARATORS) for word in words)
        lines.append(line.rstrip(" \t") if rng.random() < 0.7 else line)
    return _text_file(rng, lines, encoding)


def fuzzy_edit_case_for(rng: random.Random, tf: TextFile) -> FuzzyEditCase:
    changes = []
    taken: set[int] = set()
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        search = random_fuzzy_search_text(rng, tf, taken)
        roll = rng.random()
        if roll < 0.05:
            replacement = search
        elif roll < 0.45:
            replacement = random_block(rng)
        else:
            replacement = random_replacement(rng, tf)
        own = rng.choice((None,) * 17 + (True, True, False))
        changes.append((search, replacement, own))
    threshold = None if rng.random() < 0.6 else rng.choice((0.6, 0.75, 0.9, 0.95, 1.0))
    return FuzzyEditCase(tf, tuple(changes), threshold, fuzzy=rng.random() < 0.85)


def random_block(rng: random.Random) -> str:
    """Some indented lines of words."""
    lines = [
        rng.choice(INDENTS)
        + " ".join(rng.choice(WORDS + CODE_WORDS) for _ in range(rng.randint(0, 3)))
        for _ in range(rng.randint(1, 3))
    ]
    text = "\n".join(lines)
    return text + "\n" if rng.random() < 0.5 else text


_MUTATIONS: tuple[str, ...] = ("typo",) * 6 + ("blanks",) * 4 + ("indent",) * 4 + ("case",) * 2
_MUTATIONS += ("drop", "drop", "word", "word", "line", "trail", "trail")


def _mutate(rng: random.Random, lines: list[str]) -> list[str]:
    """One change a person copying these lines by memory might make."""
    lines = list(lines)
    i = rng.randrange(len(lines))
    kind = rng.choice(_MUTATIONS)
    if kind == "typo":
        lines[i] = _typo(rng, lines[i])
    elif kind == "blanks":
        lines[i] = re.sub(r"[ \t]+", lambda _: rng.choice(SEPARATORS), lines[i])
    elif kind == "indent":
        extra = rng.choice(INDENTS[1:])
        if rng.random() < 0.5:
            lines = [extra + line for line in lines]
        else:
            lines = [line.lstrip(" \t") for line in lines]
    elif kind == "case" and lines[i]:
        at = rng.randrange(len(lines[i]))
        lines[i] = lines[i][:at] + lines[i][at].swapcase() + lines[i][at + 1 :]
    elif kind == "drop" and len(lines) > 1:
        del lines[i]
    elif kind == "word":
        lines[i] += " " + rng.choice(WORDS + CODE_WORDS)
    elif kind == "line":
        lines.insert(i, " ".join(rng.choice(WORDS + CODE_WORDS) for _ in range(rng.randint(1, 3))))
    else:
        lines[i] += rng.choice((" ", "\t", "  "))
    return lines


def random_fuzzy_search_text(
    rng: random.Random, tf: TextFile, taken: set[int] | None = None
) -> str:
    """Whole lines copied with a few mistakes; sometimes exact text, or absent text.

    Lines in ``taken`` are mostly left to other changes of the batch (and the
    lines used are added to it)."""
    lines = model_lines(tf)
    roll = rng.random()
    if not lines or roll < 0.08:
        return rng.choice((*ABSENT, "foo bar\nbaz", " \t\n", "return value", "alpha\n"))
    if roll < 0.2:
        return random_piece(rng, tf)
    taken = set() if taken is None else taken
    free = [i for i in range(len(lines)) if i not in taken]
    first = rng.choice(free) if free and rng.random() < 0.8 else rng.randrange(len(lines))
    count = rng.choice((1, 1, 2, 2, 3))
    taken.update(range(first, first + count))
    block = lines[first : first + count]
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        block = _mutate(rng, block)
    text = "\n".join(block)
    if rng.random() < 0.5:
        text += "\n"
    return text if text else "x"


@dataclass(frozen=True)
class Placed:
    """Where the model puts one change: the LF text span it replaces, and with what."""

    start: int
    end: int
    text: str
    line: int  # 1-based first line
    match_type: str
    similarity: Fraction | None


@dataclass(frozen=True)
class Window:
    first: int  # 0-based first line
    count: int
    score: Fraction

    def overlaps(self, other: Window) -> bool:
        return self.first < other.first + other.count and other.first < self.first + self.count


_BLANK_RUN = re.compile(r"[ \t\r\x0b\x0c]+")


def normalise_line(line: str) -> str:
    """A line as fuzzy edits compare it: blank runs made one space, ends stripped."""
    return _BLANK_RUN.sub(" ", line.replace("\ufeff", "")).strip(" ")


def _search_lines(search: str) -> list[str]:
    lines = search.split("\n")
    if search.endswith("\n"):
        lines.pop()
    return lines


def fuzzy_windows(lines: list[str], search: str) -> list[Window] | None:
    """Every window of the search text's line count and one more or fewer, scored;
    None when the search text is only blanks."""
    wanted = [normalise_line(line) for line in _search_lines(search)]
    if not any(wanted):
        return None
    target = "\n".join(wanted)
    normal = [normalise_line(line) for line in lines]
    n = len(wanted)
    windows = []
    for count in (n - 1, n, n + 1):
        if count < 1:
            continue
        for first in range(len(lines) - count + 1):
            score = indel_ratio("\n".join(normal[first : first + count]), target)
            windows.append(Window(first, count, score))
    return windows


def _indent(lines: Sequence[str]) -> str | None:
    """Leading whitespace of the first non-blank line; None when all are blank."""
    for line in lines:
        if line.strip():
            return line[: len(line) - len(line.lstrip())]
    return None


def _mixing_refused(source: str, target: str, given: list[str], shifted: list[str]) -> bool:
    """The tool refuses a re-indent from tabs to spaces (or back) into a file whose
    indentation is of one kind when it leaves a line indented with both, unless
    that line was so as given."""

    def both(line: str) -> bool:
        lead = line[: len(line) - len(line.lstrip(" \t"))]
        return bool(line.strip()) and "\t" in lead and " " in lead

    if ("\t" in source) == ("\t" in target) or ("\t" in target and " " in target):
        return False
    return any(both(new) and not both(old) for old, new in zip(given, shifted, strict=True))


def _line_starts(lines: list[str]) -> list[int]:
    return list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))


def place_window(
    tf: TextFile, lines: list[str], search: str, replacement: str, window: Window
) -> Placed | None:
    """The span and text a fuzzy change replaces ``window`` with (None: refused)."""
    text = replacement
    source = _indent(_search_lines(search))
    target = _indent(lines[window.first : window.first + window.count])
    if source is not None and target is not None and source != target:
        # The shift rule itself is pinned by test_fuzzy_edit_ignores_blank_runs_and_reindents;
        # here the model only has to apply it where the tool should.
        given = text.split("\n")
        shifted = indent.reindent(given, source, target)
        if _mixing_refused(source, target, given, shifted):
            return None
        text = "\n".join(shifted)
    starts = _line_starts(lines)
    last = window.first + window.count - 1
    start = starts[window.first]
    end = starts[last] + len(lines[last])
    if search.endswith("\n"):
        if end < len(tf.text):
            end += 1  # the last line's line break goes too
        elif text.endswith("\n"):
            text = text[:-1]  # the file's last line has none: add none
    return Placed(start, end, text, window.first + 1, "fuzzy", window.score)


NEAR_EQUAL = Fraction(1, 100)
"""Distances below this count as equal (a third of ``AMBIGUITY_MARGIN``, 0.03,
documented with ``diffchunk.files.fuzzy_block.is_ambiguous``)."""


def _rival(best: Fraction, other: Fraction, threshold: Fraction) -> bool | None:
    """Is ``other`` nearly as close as ``best``? None when too close to call."""
    reaches = at_least(other, threshold)
    closer = at_least(max(2 * (1 - best), NEAR_EQUAL), 1 - other)  # 1 - other < bound
    if reaches is False or closer is False:
        return False
    return True if reaches and closer else None


def change_outcomes(
    tf: TextFile,
    lines: list[str],
    change: tuple[str, str, bool | None],
    threshold: Fraction,
    *,
    fuzzy: bool,
    anchored: bool,
) -> list[Placed | None]:
    """What the tool may do with one change: place it (one of these), or refuse (None)."""
    search, replacement, own = change
    hits = occurrences(tf.text, search)
    if len(hits) == 1:
        line = bisect_right(_line_starts(lines), hits[0]) if lines else 1
        return [Placed(hits[0], hits[0] + len(search), replacement, line, "exact", None)]
    if hits or not (fuzzy if own is None else own):
        return [None]
    windows = fuzzy_windows(lines, search)
    if not windows:
        return [None]
    if anchored:
        # Only windows near the search text's words are looked at: any window
        # that reaches the threshold may be the one used, or none.
        return [None] + [
            place_window(tf, lines, search, replacement, w)
            for w in windows
            if at_least(w.score, threshold) is not False
        ]
    best = max(w.score for w in windows)
    outcomes: list[Placed | None] = []
    reaches = at_least(best, threshold)
    if reaches is not True:
        outcomes.append(None)
    if reaches is False:
        return outcomes
    for chosen in (w for w in windows if w.score == best):
        rivals = [_rival(best, w.score, threshold) for w in windows if not w.overlaps(chosen)]
        if any(rivals):
            outcomes.append(None)
            continue
        if None in rivals:
            outcomes.append(None)
        outcomes.append(place_window(tf, lines, search, replacement, chosen))
    return list(dict.fromkeys(outcomes))


def _overlap(a: Placed, b: Placed) -> bool:
    first, second = sorted((a, b), key=lambda p: (p.start, p.end))
    return second.start < first.end or second.start == first.start


def batch_bytes(tf: TextFile, placed: Sequence[Placed]) -> bytes | None:
    """The new file for these placements; None when they overlap or cannot be encoded."""
    ordered = sorted(placed, key=lambda p: (p.start, p.end))
    if any(_overlap(a, b) for a, b in itertools.pairwise(ordered)):
        return None
    text = tf.text
    out = []
    cursor = 0
    for p in ordered:
        out.append(text[cursor : p.start])
        out.append(p.text)
        cursor = p.end
    out.append(text[cursor:])
    return encoded(tf, "".join(out))


def may_refuse(tf: TextFile, outcomes: list[list[Placed | None]]) -> bool:
    """Whether some allowed choice of placements makes the batch fail."""
    if any(None in options for options in outcomes):
        return True
    if any(encoded(tf, p.text) is None for options in outcomes for p in options if p):
        return True
    return any(
        _overlap(a, b)
        for i, j in itertools.combinations(range(len(outcomes)), 2)
        for a in outcomes[i]
        for b in outcomes[j]
        if a and b
    )


def _reported_as(placed: Placed, result: dict[str, object]) -> bool:
    if result.get("match_type") != placed.match_type or result.get("line_number") != placed.line:
        return False
    similarity = result.get("similarity")
    if placed.similarity is None:
        return similarity is None
    return (
        isinstance(similarity, float)
        and abs(similarity - float(placed.similarity)) <= 0.0005 + 1e-9
    )


FUZZY_EDIT_MODES = ("memory", "stream", "anchored")
_MAX_COMBINATIONS = 4096


@contextmanager
def fuzzy_threshold(value: float | None) -> Iterator[None]:
    saved = os.environ.get("DIFFCHUNK_FUZZY_THRESHOLD")
    try:
        if value is None:
            os.environ.pop("DIFFCHUNK_FUZZY_THRESHOLD", None)
        else:
            os.environ["DIFFCHUNK_FUZZY_THRESHOLD"] = repr(value)
        yield
    finally:
        if saved is None:
            os.environ.pop("DIFFCHUNK_FUZZY_THRESHOLD", None)
        else:
            os.environ["DIFFCHUNK_FUZZY_THRESHOLD"] = saved


def check_fuzzy_edit(case: FuzzyEditCase, directory: Path) -> str:
    """Raise AssertionError when a fuzzy ``edit_content`` breaks the documented rule."""
    tf = case.file
    lines = model_lines(tf)
    threshold = Fraction(str(case.threshold)) if case.threshold else FUZZY_EDIT_THRESHOLD
    outcomes = {
        anchored: [
            change_outcomes(tf, lines, change, threshold, fuzzy=case.fuzzy, anchored=anchored)
            for change in case.changes
        ]
        for anchored in (False, True)
    }
    tag = ""
    with fuzzy_threshold(case.threshold):
        for mode in FUZZY_EDIT_MODES:
            anchored = mode == "anchored"
            with (
                tempfile.TemporaryDirectory(dir=directory) as fresh,
                edit_mode(stream=mode != "memory", anchored=anchored),
            ):
                try:
                    outcome = _check_fuzzy_edit(
                        case, Path(fresh) / "sample.txt", outcomes[anchored]
                    )
                except AssertionError as exc:
                    raise AssertionError(f"{mode}: {exc}") from None
                tag = tag or outcome
    return tag


def _check_fuzzy_edit(case: FuzzyEditCase, path: Path, outcomes: list[list[Placed | None]]) -> str:
    tf = case.file
    original = tf.to_bytes()
    path.write_bytes(original)
    check_detection(tf, path)
    changes: list[dict[str, object]] = []
    for search, replacement, own in case.changes:
        change: dict[str, object] = {"search": search, "replace": replacement}
        if own is not None:
            change["fuzzy"] = own
        changes.append(change)
    before = len(list_backups(str(path)))
    preview = edit_content(str(path), changes, fuzzy=case.fuzzy, preview=True).to_dict()
    assert path.read_bytes() == original, "preview changed the file"
    result = edit_content(str(path), changes, fuzzy=case.fuzzy, preview=False).to_dict()
    after = len(list_backups(str(path)))
    actual = path.read_bytes()
    assert preview["results"] == result["results"], (
        f"preview and edit differ: {preview['results']} / {result['results']}"
    )
    if not result["success"]:
        assert may_refuse(tf, outcomes), (
            f"edit refused, model places every change: {_describe(outcomes)}; "
            f"tool: {result['results']}"
        )
        assert actual == original, "refused edit changed the file"
        assert after == before, "refused edit made a backup"
        return "refused"
    choices = []
    for index, (options, reported) in enumerate(zip(outcomes, result["results"], strict=True)):
        fitting = [p for p in options if p is not None and _reported_as(p, reported)]
        assert fitting, (
            f"change {index} placed at line {reported['line_number']} "
            f"({reported['match_type']}, similarity {reported['similarity']}), "
            f"model: {_describe([options])}"
        )
        choices.append(fitting)
    want: bytes | None = None
    for count, combination in enumerate(itertools.product(*choices)):
        if count >= _MAX_COMBINATIONS:
            raise AssertionError("too many placements to compare")
        candidate = batch_bytes(tf, combination)
        want = want or candidate
        if candidate == actual:
            writes = any(p.text != tf.text[p.start : p.end] for p in combination)
            if writes:
                assert after == before + 1, f"expected one new backup, {after - before} made"
            else:
                assert after == before and actual == original, "edit changing nothing wrote"
            kinds = {p.match_type for p in combination}
            return "applied, with fuzzy matches" if "fuzzy" in kinds else "applied, exact only"
    raise AssertionError(f"bytes differ:\n got  {actual!r}\n want {want!r}")


def _describe(outcomes: list[list[Placed | None]]) -> str:
    parts = []
    for options in outcomes:
        shown = [
            "refuse"
            if p is None
            else f"{p.match_type}@{p.line}"
            + (f"~{float(p.similarity):.3f}" if p.similarity is not None else "")
            for p in options[:6]
        ]
        parts.append("|".join(shown) + (" ..." if len(options) > 6 else ""))
    return "; ".join(parts)


# ----------------------------------------------------------------------- runner


KINDS = ("exact-edit", "exact-search", "regex-search", "fuzzy-search", "fuzzy-edit")


def run_case(kind: str, rng: random.Random, work: Path) -> str:
    """Run one case of ``kind``; return a word on its outcome (raise on disagreement)."""
    if kind == "exact-edit":
        check_edit(random_edit_case(rng), work)
        return ""
    if kind == "exact-search":
        check_search(random_search_case(rng), work)
        return ""
    if kind == "regex-search":
        return check_regex_search(random_regex_case(rng), work)
    if kind == "fuzzy-search":
        return check_fuzzy_search(random_fuzzy_search_case(rng), work)
    if kind == "fuzzy-edit":
        return check_fuzzy_edit(random_fuzzy_edit_case(rng), work)
    raise ValueError(f"unknown kind {kind!r}")


def run(
    cases: int,
    seed: int,
    *,
    progress_every: int = 500,
    kinds: Sequence[str] = KINDS,
    start: int = 0,
    report: Callable[[str], None] = print,
) -> tuple[int, int]:
    """Run ``cases`` cases, cycling through ``kinds``; return (passed, failed)."""
    passed = failed = 0
    per_kind: dict[str, Counter[str]] = {kind: Counter() for kind in kinds}
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-files-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        for done, number in enumerate(range(start, start + cases)):
            if done % 500 == 0:
                # Backups of every file share one flat directory; start a new one
                # now and then so that listing it stays cheap.
                old = os.environ.get("DIFFCHUNK_BACKUP_DIR")
                os.environ["DIFFCHUNK_BACKUP_DIR"] = os.path.join(tmp, f"backups-{number}")
                if old and old.startswith(tmp):
                    shutil.rmtree(old, ignore_errors=True)
            rng = random.Random(f"{seed}:{number}")
            kind = kinds[number % len(kinds)]
            try:
                outcome = run_case(kind, rng, work)
                per_kind[kind][outcome or "passed"] += 1
                passed += 1
            except Exception as exc:
                failed += 1
                per_kind[kind]["FAILED"] += 1
                if failed <= 10:
                    report(f"case {number} ({kind}, seed {seed}) failed: {exc!r}")
                    if not isinstance(exc, AssertionError):
                        traceback.print_exc()
            if (done + 1) % progress_every == 0:
                elapsed = time.monotonic() - began
                report(f"{done + 1}/{cases} cases, {failed} failed, {elapsed:.1f}s")
    for kind, seen in per_kind.items():
        total = sum(seen.values())
        shown = ", ".join(f"{what} {count}" for what, count in seen.most_common())
        report(f"{kind}: {total} cases ({shown})")
    report(f"wall time {time.monotonic() - began:.1f}s")
    return passed, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="number of the first case")
    parser.add_argument("--progress-every", type=int, default=500)
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help=f"comma-separated kinds to cycle through (default: {','.join(KINDS)})",
    )
    args = parser.parse_args(argv)
    kinds = tuple(k for k in args.kinds.split(",") if k)
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        parser.error(f"unknown kinds {unknown}; choose from {', '.join(KINDS)}")
    passed, failed = run(
        args.cases,
        args.seed,
        progress_every=max(1, args.progress_every),
        kinds=kinds,
        start=args.start,
    )
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
