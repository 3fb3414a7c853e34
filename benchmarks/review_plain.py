"""Plain git's reading of a range in ``make bench-review``: the commands a reviewer with
a shell types for the reading :mod:`benchmarks.review_reading` works out, and
what each prints.

In this order, each command counted as typed (in the repository, without
``-C``) and its output as git prints it (no colour, no pager):

1. ``git log --format='%h %s%n%b' A..B``: every commit's subject and body;
2. ``git diff --stat A..B``: the overview;
3. ``git diff A..B -- FILE`` for each file in review order (code, tests, docs,
   config; lock files skipped; a rename with both its paths);
4. ``git show B:FILE | sed -n 'F,Lp'`` for each enclosing definition the diff
   does not show whole;
5. ``git grep -n -w NAME B -- '*.py' | head -n 30`` for each changed
   definition's name (each name once): its callers, at most 30 lines, as a
   reviewer reads a grep.
"""

from __future__ import annotations

import shlex
import subprocess

from benchmarks.review_calls import Call, Reading
from benchmarks.review_reading import ChangedFile, Definition, RangeReading, git

GREP_LINES = 30
LOG_FORMAT = "%h %s%n%b"


def log_call(r: RangeReading, step: str = "log") -> Call:
    """The commits' subjects and bodies."""
    out = git(r.repo, "log", f"--format={LOG_FORMAT}", r.rng)
    return Call(step, f"git log --format={shlex.quote(LOG_FORMAT)} {r.rng}", out)


def stat_call(r: RangeReading) -> Call:
    return Call("overview", f"git diff --stat {r.rng}", git(r.repo, "diff", "--stat", r.rng))


def diff_call(r: RangeReading, f: ChangedFile) -> Call:
    paths = list(dict.fromkeys(p for p in (f.old_path, f.path) if p))
    out = git(r.repo, "diff", r.rng, "--", *paths)
    return Call(f"diffs: {f.kind}", f"git diff {r.rng} -- {shlex.join(paths)}", out)


def definition_call(r: RangeReading, f: ChangedFile, d: Definition) -> Call:
    text = "".join(line + "\n" for line in f.text_of(d))
    spec = shlex.quote(f"{r.head_ref}:{f.path}")
    return Call("definitions", f"git show {spec} | sed -n '{d.first},{d.last}p'", text)


def caller_call(r: RangeReading, name: str) -> Call:
    """The first lines of ``git grep -n -w NAME B -- '*.py'``."""
    try:
        out = git(r.repo, "grep", "-n", "-w", name, r.head_ref, "--", "*.py")
    except subprocess.CalledProcessError:
        out = ""  # no match
    shown = "".join(line + "\n" for line in out.splitlines()[:GREP_LINES])
    request = f"git grep -n -w {name} {r.head_ref} -- '*.py' | head -n {GREP_LINES}"
    return Call("callers", request, shown)


def caller_names(r: RangeReading) -> list[str]:
    """The changed definitions' names, each once, in review order."""
    return list(dict.fromkeys(d.short for f in r.files for d in f.changed_defs))


def read_plain(r: RangeReading) -> Reading:
    reading = Reading("plain git")
    reading.calls.append(log_call(r))
    reading.calls.append(stat_call(r))
    reading.calls += [diff_call(r, f) for f in r.files]
    reading.calls += [definition_call(r, f, d) for f in r.files for d in f.enclosing]
    reading.calls += [caller_call(r, name) for name in caller_names(r)]
    return reading
