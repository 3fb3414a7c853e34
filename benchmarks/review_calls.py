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

A run lean leaves out as *moved unchanged* (``⋯ N lines (new A-B) moved
unchanged from old P:a-b``, and its removed side ``⋯ N lines (old a-b) moved
to P:L``) counts as read when the claim holds: the check reads both places
from git and credits their lines only when every line is the same
(:func:`moved_lines`); a claim that does not hold is reported.
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


def seen_lines(calls: Iterable[Call], reading: RangeReading | None = None) -> set[str]:
    """The lines the answers show; with ``reading``, the lines of the moves they name
    too (:func:`moved_lines`)."""
    calls = [call for call in calls if not call.error]
    seen = {n for call in calls for n in answer_lines(call.answer)}
    if reading is not None:
        seen |= moved_lines(reading, calls).texts
    return seen


_FILE_HEAD = re.compile(r"^## (?P<path>.+?)(?: \((?:[^()]|\([^()]*\))*\))?$")
_MOVED_HERE = re.compile(
    r"^⋯ (?P<n>\d+) lines \(new (?P<a>\d+)-(?P<b>\d+)\) moved unchanged from old "
    r"(?:lines (?P<x>\d+)-(?P<y>\d+)|(?P<path>.+):(?P<p>\d+)-(?P<q>\d+))$"
)
_MOVED_AWAY = re.compile(
    r"^⋯ (?P<n>\d+) lines \(old (?P<a>\d+)-(?P<b>\d+)\) moved to "
    r"(?:line (?P<x>\d+)|(?P<path>.+):(?P<p>\d+))$"
)


@dataclass
class Moved:
    """The lines of the moves the answers name, where the claim holds."""

    texts: set[str] = field(default_factory=set)  # as :func:`normal` forms
    lines: int = 0  # lines credited (each side of a move counted)
    chars: int = 0  # their characters
    wrong: list[str] = field(default_factory=list)  # claims that do not hold


def moved_lines(reading: RangeReading, calls: Iterable[Call]) -> Moved:
    """The lines of the moved-unchanged folds in the answers (see the module doc)."""
    from benchmarks.review_reading import git

    files = {f.path: f for f in reading.files}
    # each file by the path a fold names it by: its old one (True) or its new one
    by_name = {
        old: {(f.old_path or f.path) if old else f.path: f.path for f in files.values()}
        for old in (True, False)
    }
    texts: dict[tuple[str, str], list[str]] = {}
    out = Moved()

    def lines_of(rev: str, path: str) -> list[str]:
        if (rev, path) not in texts:
            try:
                texts[rev, path] = git(reading.repo, "show", f"{rev}:{path}").split("\n")
            except Exception as exc:  # the claim is then reported as not holding: say why
                out.wrong.append(f"git show {rev}:{path} failed: {exc}")
                texts[rev, path] = []
        return texts[rev, path]

    def named(short: str | None, here: str, old: bool) -> str | None:
        """The file a fold names (``old``: by its old path, as the new one is)."""
        if short is None:
            return here
        paths = by_name[old]
        found = [p for name, p in paths.items() if name == short or name.endswith("/" + short)]
        return found[0] if len(found) == 1 else None

    def old_path(path: str) -> str:
        f = files.get(path)
        return f.old_path or path if f is not None else path

    for call in calls:
        here = ""
        for line in call.answer.split("\n"):
            head = _FILE_HEAD.match(line)
            if head:
                here = head.group("path")
                continue
            for pattern, away in ((_MOVED_HERE, False), (_MOVED_AWAY, True)):
                m = pattern.match(line)
                if m is None or not here:
                    continue
                n, a = int(m["n"]), int(m["a"])
                other = named(m["path"], here, old=not away)
                at = int(m["x"] or m["p"])
                if other is None:
                    out.wrong.append(f"{here}: {line} (no such file)")
                    continue
                if away:  # old lines a.. of here are new lines at.. of other
                    old = lines_of(reading.base, old_path(here))[a - 1 : a - 1 + n]
                    new = lines_of(reading.head, other)[at - 1 : at - 1 + n]
                else:  # new lines a.. of here are old lines at.. of other
                    new = lines_of(reading.head, here)[a - 1 : a - 1 + n]
                    old = lines_of(reading.base, old_path(other))[at - 1 : at - 1 + n]
                if len(old) != n or old != new:
                    out.wrong.append(f"{here}: {line}")
                    continue
                out.texts.update(normal(t) for t in old)
                out.lines += n
                out.chars += sum(len(t) + 1 for t in old)
    return out


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
