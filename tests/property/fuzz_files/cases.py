"""The random cases: exact edit batches, exact search patterns, fuzzy patterns and fuzzy edit batches.

(Regex patterns are made in :mod:`.regex_cases`.)
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from .textfile import (
    ABSENT,
    CODE_WORDS,
    HEADER,
    INDENTS,
    REPLACEMENT_EXTRA,
    SEPARATORS,
    WORDS,
    TextFile,
    model_lines,
    random_code_file,
    random_file,
    typo,
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


@dataclass(frozen=True)
class FuzzySearchCase:
    file: TextFile
    pattern: str


def random_fuzzy_search_case(rng: random.Random) -> FuzzySearchCase:
    return fuzzy_search_case_for(rng, random_file(rng))


def fuzzy_search_case_for(rng: random.Random, tf: TextFile) -> FuzzySearchCase:
    """A fuzzy pattern for ``tf``."""
    return FuzzySearchCase(tf, random_fuzzy_pattern(rng, tf))


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
        pattern = typo(rng, pattern)
    if rng.random() < 0.25:
        pattern = pattern.swapcase()
    if rng.random() < 0.1:
        pattern = rng.choice(SEPARATORS) + pattern + rng.choice(("", " ", "   "))
    return pattern if pattern else "x"


@dataclass(frozen=True)
class FuzzyEditCase:
    file: TextFile
    changes: tuple[tuple[str, str, bool | None], ...]  # search, replace, own "fuzzy" key
    threshold: float | None  # DIFFCHUNK_FUZZY_THRESHOLD, None for the default
    fuzzy: bool = True  # the call's flag (a change's own key overrides it)


def random_fuzzy_edit_case(rng: random.Random) -> FuzzyEditCase:
    return fuzzy_edit_case_for(rng, random_code_file(rng))


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
        lines[i] = typo(rng, lines[i])
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
