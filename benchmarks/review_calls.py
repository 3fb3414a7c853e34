"""The calls of a reading in ``make bench-review``, counted the same way for plain git
and for diffchunk, and the check that every changed line of code was read.

A call is one command (plain git) or one tool call (diffchunk): its step, the
request as the reader writes it, and the answer as the reader receives it;
its size is the characters of both.  A *gap* is what a reader could not read
with its own tools: the step, what was missing, and the plain git calls that
read it instead (counted for that reader too, as it has to make them).

The check (:func:`unread_lines`) takes every changed line of code of the range
(added and removed lines of the code and test files, blank ones aside) and
looks for each in the answers, whitespace collapsed: a diff's line without its
``+``/``-``/`` `` marker, a lean ``~`` line's old and new text
(``[-old-]{+new+}``), any line of a JSON answer's strings.  A line cut by a
fold of long lines counts by its first 200 characters.  A line counts as read
wherever its text shows (the check does not tell two lines of the same text
apart), so it finds what no answer shows, not every place a fold hides.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from benchmarks.review_reading import RangeReading

PREFIX = 200
_OLD = re.compile(r"\[-(.*?)-\]")
_NEW = re.compile(r"\{\+(.*?)\+\}")


@dataclass
class Call:
    """One command or tool call: its step, request and answer."""

    step: str
    request: str
    answer: str
    error: bool = False

    @property
    def size(self) -> int:
        return len(self.request) + len(self.answer)


@dataclass
class Gap:
    """What a reader could not read with its tools, and how plain git read it."""

    step: str
    what: str
    instead: list[Call] = field(default_factory=list)


@dataclass
class Reading:
    """A reader's calls and gaps over one range."""

    reader: str
    calls: list[Call] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what it read otherwise than the others

    def steps(self) -> dict[str, tuple[int, int]]:
        """Per step: (calls, characters), gaps included, in the order first made."""
        out: dict[str, tuple[int, int]] = {}
        for call in self.calls + [c for g in self.gaps for c in g.instead]:
            n, size = out.get(call.step, (0, 0))
            out[call.step] = (n + 1, size + call.size)
        return out

    def total(self, with_gaps: bool = True) -> tuple[int, int]:
        calls = self.calls + ([c for g in self.gaps for c in g.instead] if with_gaps else [])
        return len(calls), sum(c.size for c in calls)


def normal(text: str) -> str:
    """A line as the check compares it: whitespace collapsed, cut to 200 characters."""
    return " ".join(text.split())[:PREFIX]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def answer_lines(answer: str) -> Iterator[str]:
    """Every line an answer shows, as :func:`normal` forms (several per line: as it is,
    without a diff marker, a lean word pair's old and new side)."""
    texts: Iterable[str] = [answer]
    if answer[:1] in "[{":
        try:
            texts = _strings(json.loads(answer))
        except ValueError:
            pass
    for text in texts:
        for line in text.split("\n"):
            yield normal(line)
            yield normal(line[1:])
            if line.startswith("~"):
                body = line[1:]
                yield normal(_NEW.sub("", _OLD.sub(r"\1", body)))
                yield normal(_OLD.sub("", _NEW.sub(r"\1", body)))


def seen_lines(calls: Iterable[Call]) -> set[str]:
    return {n for call in calls if not call.error for n in answer_lines(call.answer)}


def unread_lines(reading: RangeReading, seen: set[str]) -> dict[str, list[tuple[str, int]]]:
    """Per code file, its changed lines no answer showed: ("+" or "-", line number)."""
    out: dict[str, list[tuple[str, int]]] = {}
    for f in reading.files:
        if not f.is_code:
            continue
        missed = [("+", n) for n, text in f.added if text.strip() and normal(text) not in seen]
        missed += [("-", n) for n, text in f.removed if text.strip() and normal(text) not in seen]
        if missed:
            out[f.path] = missed
    return out


def code_line_count(reading: RangeReading) -> tuple[int, int]:
    """(added, removed) changed lines of code that are not blank."""
    added = sum(1 for f in reading.files if f.is_code for _, t in f.added if t.strip())
    removed = sum(1 for f in reading.files if f.is_code for _, t in f.removed if t.strip())
    return added, removed


def unread_definitions(reading: RangeReading, seen: set[str]) -> list[tuple[str, str, int]]:
    """The enclosing definitions some of whose lines no answer showed: (path, name,
    lines missing)."""
    out: list[tuple[str, str, int]] = []
    for f in reading.files:
        for d in f.enclosing:
            missing = sum(1 for t in f.text_of(d) if t.strip() and normal(t) not in seen)
            if missing:
                out.append((f.path, d.name, missing))
    return out
