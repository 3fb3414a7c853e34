"""Lines moved across a diff, in lean: every fold's claim holds against the diff's own
lines, every view expands back, and no crafted diff makes the search for moves stall."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_data import CORPUS, ROOT
from timing import Elapsed, Stopwatch

from diffchunk.diff.lean import Partners, expand, render_lean
from diffchunk.diff.lean.reading import FileItem, read_items
from diffchunk.diff.parser import parse_diff
from diffchunk.errors import NotADiffError

_HERE = re.compile(
    r"^⋯ (\d+) lines \(new (\d+)-(\d+)\) moved unchanged from old (?:lines |(.+):)(\d+)-(\d+)$"
)
_AWAY = re.compile(
    r"^⋯ (\d+) lines \(old (\d+)-(\d+)\) moved to (?:line |(.+):)(\d+)(, re-indented)?$"
)


def _diffs() -> list[Path]:
    fixtures = sorted(p for p in (ROOT / "fixtures").iterdir() if p.is_file())
    corpus = sorted(CORPUS.iterdir()) if CORPUS.is_dir() else []
    return fixtures + [p for p in corpus if p.suffix in (".diff", ".txt", ".mbox")]


Sides = dict[str, dict[int, str]]


def _sides(files: list[FileItem]) -> tuple[Sides, Sides]:
    """Each file's removed lines by old path and old number, added lines by path and new
    number (their text after the ``-``/``+``, a CR kept)."""
    removed: Sides = {}
    added: Sides = {}
    for item in files:
        old = item.fd.old_path or item.path
        for hunk in item.hunks:
            for part in hunk.body:
                for line in part if isinstance(part, list) else part.lines:
                    if line.kind == "-":
                        removed.setdefault(old, {}).setdefault(line.old, line.text[1:])
                    elif line.kind == "+":
                        added.setdefault(item.path, {}).setdefault(line.new, line.text[1:])
    return removed, added


def _one(paths: dict[str, dict[int, str]], name: str) -> dict[int, str]:
    """The lines of the path a view names (by its path or its shortest ending)."""
    found = [p for p in paths if p == name or p.endswith("/" + name)]
    assert len(found) == 1, (name, found[:3])
    return paths[found[0]]


def check_moves(raw: bytes) -> int:
    """Each file's lean view with the diff as partners expands back, and every move it
    names holds: a run moved unchanged is the same lines, byte for byte, at both places;
    a run moved away is at the place named (its text, a CR aside, and
    whitespace aside when re-indented).  Answers how many claims were checked."""
    try:
        items = read_items(parse_diff(raw))
    except NotADiffError:
        return 0
    files = [item for item in items if isinstance(item, FileItem)]
    removed, added = _sides(files)
    partners = Partners(raw)
    claims = 0
    for item in files:
        own = raw[item.fd.start : item.fd.end]
        view = render_lean(own, partners=partners)
        assert expand(view.text, view.originals) == own, item.path
        was = item.fd.old_path or item.path
        for line in view.text.split("\n"):
            here = _HERE.match(line)
            away = _AWAY.match(line)
            if here:
                n, a, b, other, c, d = here.groups()
                new = [added[item.path].get(k) for k in range(int(a), int(b) + 1)]
                old = _one(removed, other) if other else removed[was]
                assert len(new) == int(n) == int(d) - int(c) + 1, line
                assert new == [old.get(k) for k in range(int(c), int(d) + 1)], line
                claims += 1
            elif away:
                n, a, b, other, at, reindented = away.groups()
                old_run = [removed[was].get(k) for k in range(int(a), int(b) + 1)]
                to = _one(added, other) if other else added[item.path]
                new_run = [to.get(k) for k in range(int(at), int(at) + int(n))]
                assert None not in old_run and None not in new_run, line
                # the added side is shown: moved lines may differ in indentation (said)
                # and in their line ending (a CR)
                strip = str.strip if reindented else (lambda s: s.removesuffix("\r"))
                assert [strip(s) for s in old_run] == [strip(s) for s in new_run], line
                claims += 1
            else:
                assert "moved unchanged" not in line or not line.startswith("⋯"), line
    return claims


@pytest.mark.parametrize("path", _diffs(), ids=lambda p: p.name)
def test_every_move_a_file_view_names_holds_and_the_view_expands_back(path: Path) -> None:
    raw = path.read_bytes()
    if len(raw) > 2_000_000:
        pytest.skip("read by the benchmarks: a view of each of its files takes too long here")
    check_moves(raw)


def _file(path: str, removed: list[bytes], added: list[bytes], eol: bytes = b"\n") -> bytes:
    head = f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
    hunk = f"@@ -1,{len(removed)} +1,{len(added)} @@\n"
    lines = [b"-" + t + eol for t in removed] + [b"+" + t + b"\n" for t in added]
    return head.encode() + hunk.encode() + b"".join(lines)


_RUN = [
    f"    value_{i} = compute_something_long(argument_{i}, other_{i})".encode() for i in range(8)
]


def test_a_run_whose_line_endings_changed_is_shown_not_named_unchanged() -> None:
    """CRLF lines that come back as LF lines moved, but not unchanged: their added side
    is shown (a fold naming both places would say the bytes are the same)."""
    raw = _file("a.py", _RUN, [], eol=b"\r\n") + _file("b.py", [], _RUN)
    assert check_moves(raw) == 1
    view = render_lean(raw, partners=Partners(raw))
    assert "moved unchanged" not in view.text
    assert "⋯ 8 lines below moved from old a.py:1" in view.text
    assert "+    value_3 = compute_something_long(argument_3, other_3)" in view.text
    exact = _file("a.py", _RUN, []) + _file("b.py", [], _RUN)
    assert "⋯ 8 lines (new 1-8) moved unchanged from old a.py:1-8" in render_lean(exact).text


def _timed(raw: bytes, view: bytes) -> Elapsed:
    partners = Partners(raw)
    watch = Stopwatch()
    lean = render_lean(view, partners=partners)
    took = watch.elapsed()
    assert expand(lean.text, lean.originals) == view
    return took


def test_lines_alike_in_a_crafted_diff_do_not_stall_the_search_for_moves() -> None:
    """Runs that match long but hold too few characters to be a move (a short line,
    then hundreds of blank lines, over and over) were compared again from each place:
    a diff of 80 kB took 10 s.  The search's work is bounded by the lines it looks in."""
    padded: list[bytes] = []
    for _ in range(70):
        padded += [b"x"] + [b""] * 600
    raw = _file("a.py", padded, []) + _file("b.py", [], padded)
    took = _timed(raw, raw)
    assert took.within(2.0), took
    # a run of short lines alike, one short of a move, again and again
    short = ([b"x"] * 79 + [b"y"]) * 500
    raw = _file("a.py", short, []) + _file("b.py", [], [b"x"] * len(short))
    took = _timed(raw, raw)
    assert took.within(2.0), took
    # long lines of spaces between two letters: a run of them never holds the characters
    # of a move, and each compare cost the line's length (3 MB: 4.5 s)
    spaced = [b"a" + b" " * 38_000 + b"b"] * 38
    raw = _file("a.py", [b"q", *spaced], []) + _file("b.py", [], [b"r", *spaced])
    took = _timed(raw, raw)
    assert took.within(2.0), took


def test_a_small_view_beside_a_large_partner_costs_what_the_view_costs() -> None:
    """A file sharing a few lines with a large block elsewhere in the diff: its view
    looks up its own lines in that block, it does not index the whole block again."""
    shared = [b"def shared_helper(argument):", b"    return argument.value", b"    pass_it"]
    big = _file("big.py", shared + [b"removed line %d of it" % i for i in range(120_000)], [])
    small = _file("small.py", [], shared)
    raw = big + small
    partners = Partners(raw)
    watch = Stopwatch()
    for _ in range(200):
        render_lean(small, partners=partners)
    took = watch.elapsed()
    # 0.155 s of CPU a view when the whole block was indexed again, 0.02 s when its
    # removed lines were all walked for the view's three, under 1 ms now (a glob's
    # answer of 680 such files took 11 s): room for a loaded machine, none for the
    # old ways
    assert took.within(0.8), took
