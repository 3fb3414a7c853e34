"""Randomised checks of the large-file tools' edit and search paths.

Each case builds a small text file (random words, spaces and tabs, LF or CRLF
line endings, an optional UTF-8 byte-order mark, UTF-8 or cp1252 with ``é``
and ``€``) and compares ``edit_content`` / ``search_content`` with a plain
reference model written on decoded text:

- edits (exact, ``fuzzy=False``): every search text is counted in the original
  content (LF-normalised, overlapping occurrences counted); a batch is applied
  only when each search text occurs exactly once, no two located spans
  overlap and every replacement can be encoded; the result is the original
  with the replacements, converted back to the file's line ending, BOM and
  encoding.  A refused batch leaves the bytes alone and makes no backup;
  ``preview=True`` never writes.
- search (exact): matching line numbers (case-insensitive on request,
  complemented with ``invert``) and ``count_only`` counts equal the model's,
  with the in-process scanner and with the ``grep`` hand-off.

Run ``python -m benchmarks.fuzz_files --cases N --seed S``; it prints progress
and a final ``N passed, N failed`` line.
"""

from __future__ import annotations

import argparse
import codecs
import itertools
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from diffchunk.files import access, matching
from diffchunk.files import search as search_module
from diffchunk.files.edit import edit_content, list_backups
from diffchunk.files.service import search_content

WORDS = ("foo", "bar", "Baz", "café", "€9", "x", "y", "É", "déjà", "aa", "AA")
SEPARATORS = (" ", "\t", "  ", " \t")
HEADER = "# sample text for the fuzz model"
ABSENT = ("zzz", "qq", "ś", "✓")
REPLACEMENT_EXTRA = ("\n", "", "new", "ś", "✓", "é", "€", "\t")


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


def random_file(rng: random.Random) -> TextFile:
    encoding = rng.choice(("utf-8", "cp1252"))
    count = rng.randint(0, 10)
    # Legacy encodings are recognised from mostly-ASCII text with isolated accents
    # (diffchunk.files.encoding); a tiny cp1252 file of mostly accented bytes is
    # ambiguous, so cp1252 files always start with an ASCII line.
    lines = [HEADER] if encoding == "cp1252" or rng.random() < 0.9 else []
    for _ in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randint(0, 5))]
        pieces: list[str] = []
        for word in words:
            pieces.append(word)
            pieces.append(rng.choice(SEPARATORS))
        if pieces and rng.random() < 0.6:
            pieces.pop()
        if rng.random() < 0.2:
            pieces.insert(0, rng.choice(SEPARATORS))
        lines.append("".join(pieces))
    return TextFile(
        lines=tuple(lines),
        final_newline=rng.random() < 0.8,
        newline=rng.choice(("\n", "\r\n")),
        encoding=encoding,
        bom=encoding == "utf-8" and rng.random() < 0.3,
    )


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
    new_text = "".join(out).replace("\n", tf.effective_newline())
    try:
        raw = new_text.encode(tf.effective_encoding())
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
def edit_mode(*, stream: bool) -> Iterator[None]:
    """With ``stream``, edits read the file by ``pread`` in 64-byte windows."""
    saved = matching.IN_MEMORY_LIMIT, matching._WINDOW
    try:
        if stream:
            matching.IN_MEMORY_LIMIT, matching._WINDOW = 0, 64
        yield
    finally:
        matching.IN_MEMORY_LIMIT, matching._WINDOW = saved


def _check_edit(case: EditCase, path: Path) -> None:
    original = case.file.to_bytes()
    path.write_bytes(original)
    check_detection(case.file, path)
    changes = [{"search": s, "replace": r} for s, r in case.changes]
    want = expected_edit(case)
    before = len(list_backups(str(path)))
    preview = edit_content(str(path), changes, fuzzy=False, preview=True)
    assert path.read_bytes() == original, "preview changed the file"
    assert preview["success"] == (want is not None), (
        f"preview success={preview['success']}, model expects {want is not None}: {preview}"
    )
    result = edit_content(str(path), changes, fuzzy=False, preview=False)
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
    lines = case.file.text.split("\n")
    if lines[-1] == "":
        lines.pop()  # after a final line break (or an empty file) there is no line
    out = []
    for number, line in enumerate(lines, 1):
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
    saved_min = search_module.GREP_MIN_BYTES
    saved_env = os.environ.get("DIFFCHUNK_NO_GREP")
    windows = access.FileVersion.windows
    saved_defaults = windows.__defaults__
    try:
        if mode == "smallwin":
            windows.__defaults__ = (None, None, 64)
        if mode in ("grep", "nogrep"):
            search_module.GREP_MIN_BYTES = 0
        if mode == "nogrep":
            os.environ["DIFFCHUNK_NO_GREP"] = "1"
        else:
            os.environ.pop("DIFFCHUNK_NO_GREP", None)
        yield
    finally:
        windows.__defaults__ = saved_defaults
        search_module.GREP_MIN_BYTES = saved_min
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
    for mode in SEARCH_MODES:
        with search_mode(mode):
            for case_sensitive in (True, False):
                for invert in (False, True):
                    access.clear_cache()
                    want = expected_lines(case, case_sensitive=case_sensitive, invert=invert)
                    where = f"mode={mode} case_sensitive={case_sensitive} invert={invert}"
                    found = search_content(
                        str(path),
                        case.pattern,
                        max_results=500,
                        context_lines=0,
                        fuzzy=False,
                        case_sensitive=case_sensitive,
                        invert=invert,
                    )
                    got = [item["line_number"] for item in found["results"]]
                    assert got == want, f"{where}: lines {got}, model {want}"
                    assert found["total_matches"] == len(want), (
                        f"{where}: total {found['total_matches']}, model {len(want)}"
                    )
                    counted = search_content(
                        str(path),
                        case.pattern,
                        fuzzy=False,
                        case_sensitive=case_sensitive,
                        invert=invert,
                        count_only=True,
                    )
                    assert counted["count"] == len(want), (
                        f"{where}: count {counted['count']}, model {len(want)}"
                    )


def run(cases: int, seed: int, *, progress_every: int = 500) -> tuple[int, int]:
    """Run ``cases`` edit cases and as many search cases; return (passed, failed)."""
    passed = failed = 0
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-files-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        for number in range(cases):
            if number % 500 == 0:
                # Backups of every file share one flat directory; start a new one
                # now and then so that listing it stays cheap.
                old = os.environ.get("DIFFCHUNK_BACKUP_DIR")
                os.environ["DIFFCHUNK_BACKUP_DIR"] = os.path.join(tmp, f"backups-{number}")
                if old and old.startswith(tmp):
                    shutil.rmtree(old, ignore_errors=True)
            rng = random.Random(f"{seed}:{number}")
            kind = "edit" if number % 2 == 0 else "search"
            try:
                if kind == "edit":
                    check_edit(random_edit_case(rng), work)
                else:
                    check_search(random_search_case(rng), work)
                passed += 1
            except Exception as exc:
                failed += 1
                if failed <= 10:
                    print(f"case {number} ({kind}, seed {seed}) failed: {exc!r}")
                    if not isinstance(exc, AssertionError):
                        traceback.print_exc()
            if (number + 1) % progress_every == 0:
                elapsed = time.monotonic() - began
                print(f"{number + 1}/{cases} cases, {failed} failed, {elapsed:.1f}s", flush=True)
    return passed, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--progress-every", type=int, default=500)
    args = parser.parse_args(argv)
    passed, failed = run(args.cases, args.seed, progress_every=max(1, args.progress_every))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
