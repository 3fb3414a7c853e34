"""Colours and word marks for diff lines shown to a person: the review page's and the
HTML export's (here, below both, as the layers of :mod:`diffchunk.review` ask).

A line is shown as :class:`Span` pieces: its text cut where its syntax token or
its word-level change starts or ends.  Rules:

- **Syntax** (Pygments): the lexer is chosen by the file's name (none known:
  no colours).  The lines of one side of a hunk are lexed together (context
  and removed lines for the old side, context and added lines for the new),
  so a construct that spans lines (a docstring, a block comment) is coloured
  across them.  A span's ``token`` is Pygments' short class name (``k``,
  ``nf``, ``s2``...; ``""`` for plain text), so :func:`style_css` colours it.
  A line longer than :data:`HIGHLIGHT_LINE_CHARS` is left plain, and so are
  the lines after the first :data:`HIGHLIGHT_PAGE_CHARS` characters of one
  call.
- **Words**: the removed and added lines of one change block are paired in
  order, a removed line with the first following added line that shares at
  least :data:`WORD_PAIR_SIMILARITY` of its words (a block of more than
  :data:`WORD_PAIR_COMPARISONS` comparisons pairs the i-th with the i-th); a
  pair's differing words are ``changed``.  Lines that share less are
  different lines, shown without word marks.
- **Text** is kept as it is, but control characters other than tab: they are
  shown as their Unicode control pictures (a CR is ``␍``), as the HTML export
  shows them; :func:`visible` does it.

This module decides nothing about HTML: a page builds its elements from the
spans (as text, never as markup).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

HIGHLIGHT_LINE_CHARS = 2_000
"""Lines longer than this are shown without syntax colours or word marks: a
minified line of a megabyte would take the lexer seconds for colours nobody
reads."""

HIGHLIGHT_PAGE_CHARS = 100_000
"""Characters the lexer colours for one answer of the page: Pygments lexes
Python at about 100,000 characters a second here (``make bench-web``), so an
answer waits at most about a second for its colours; the lines after them in
that answer are shown plain."""

WORD_PAIR_COMPARISONS = 10_000
"""Removed x added lines of one change block compared to pair them for word
marks; a larger block pairs its lines in order (the i-th with the i-th)."""

WORD_PAIR_SIMILARITY = 0.5
"""Share of their words two lines must have in common to be shown as a pair
with word marks: below it they are different lines, shown whole."""


_CONTROL = {c: 0x2400 + c for c in range(32) if c != 9}
_CONTROL[127] = 0x2421
_HAS_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f]")
_WORD = re.compile(r"\w+|\s+|[^\w\s]")


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of a line: its text, its syntax class (``""``: plain) and whether it is a
    word that differs from the line it is paired with."""

    text: str
    token: str = ""
    changed: bool = False


def visible(text: str) -> str:
    """``text`` with control characters other than tab as their control pictures."""
    return text.translate(_CONTROL) if _HAS_CONTROL.search(text) else text


# --------------------------------------------------------------------------
# Syntax
# --------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _class_for_name(name: str) -> Any:
    from pygments.lexers import find_lexer_class_for_filename

    return find_lexer_class_for_filename(name)


@functools.lru_cache(maxsize=256)
def _lexer_of_class(cls: Any) -> Any:
    """One lexer of each class, made when first asked for (making the first of a class
    compiles its patterns)."""
    return cls(stripnl=False, ensurenl=False, stripall=False)


@functools.lru_cache(maxsize=1)
def _name_patterns() -> tuple[frozenset[str], re.Pattern[str] | None]:
    """Pygments' file name patterns (its own lexers' and its plugins'): the suffixes of
    the ``*.suffix`` ones, and one regex of all the others."""
    import fnmatch

    from pygments.lexers._mapping import LEXERS
    from pygments.plugin import find_plugin_lexers

    globs = [g for _, _, _, names, _ in LEXERS.values() for g in names]
    globs += [g for cls in find_plugin_lexers() for g in cls.filenames]
    suffixes = {g[1:] for g in globs if g.startswith("*.") and not _GLOB_CHARS.search(g[2:])}
    others = [fnmatch.translate(g) for g in globs if g[1:] not in suffixes or g[0] != "*"]
    return frozenset(suffixes), re.compile("|".join(others)) if others else None


_GLOB_CHARS = re.compile(r"[*?\[]")


_BY_SUFFIXES: dict[tuple[str, ...], Any] = {}  # a few hundred at most: Pygments' suffixes


def lexer_class_for(path: str) -> Any:
    """The class of Pygments lexer a file's name chooses (None when none is known).

    Pygments chooses by the patterns a name matches, trying each of its hundreds;
    a name that matches only ``*.suffix`` patterns gets the class of the first name
    seen with the same suffixes, so a diff of a million files asks Pygments once
    per kind of name, not once per file (other names are asked by name)."""
    name = os.path.basename(path.rstrip("/"))
    suffixes, others = _name_patterns()
    if others is not None and others.match(name):
        return _class_for_name(name)
    matched = tuple(name[i:] for i, c in enumerate(name) if c == "." and name[i:] in suffixes)
    if matched not in _BY_SUFFIXES:
        _BY_SUFFIXES[matched] = _class_for_name(name)
    return _BY_SUFFIXES[matched]


def lexer_for(path: str) -> Any:
    """The Pygments lexer of a file by its name (None when none is known): one of the
    class :func:`lexer_class_for` chooses, shared by every file it is chosen for."""
    cls = lexer_class_for(path)
    return None if cls is None else _lexer_of_class(cls)


@functools.lru_cache(maxsize=512)
def _token_class(ttype: Any) -> str:
    from pygments.token import STANDARD_TYPES

    while ttype not in STANDARD_TYPES and ttype.parent is not None:
        ttype = ttype.parent
    css = STANDARD_TYPES.get(ttype, "")
    return "" if css == "w" else css  # whitespace: plain (merged with the text beside it)


def tokens_of_lines(lexer: Any, texts: Sequence[str]) -> list[list[tuple[str, str]]]:
    """Each line of ``texts`` (no line ends, control characters made visible) as
    ``(text, class)`` tokens, lexed together; plain when there is no lexer."""
    plain = [[(t, "")] if t else [] for t in texts]
    if lexer is None or not texts:
        return plain
    out: list[list[tuple[str, str]]] = [[] for _ in texts]
    line = 0
    for ttype, value in lexer.get_tokens("\n".join(texts)):
        css = _token_class(ttype)
        pieces = value.split("\n")
        for k, piece in enumerate(pieces):
            if k:
                line += 1
            if piece and line < len(out):
                row = out[line]
                if row and row[-1][1] == css:
                    row[-1] = (row[-1][0] + piece, css)
                else:
                    row.append((piece, css))
    if any("".join(p for p, _ in row) != text for row, text in zip(out, texts, strict=True)):
        return plain  # a lexer that changed the text (it should not): no colours
    return out


@functools.lru_cache(maxsize=4)
def style_css(scope: str = ".hl", style: str = "default") -> str:
    """The CSS that colours the token classes under ``scope`` (Pygments' own style
    definitions), for a page's style sheet."""
    from pygments.formatters import HtmlFormatter

    css: str = HtmlFormatter(style=style).get_style_defs(scope)
    return css


# --------------------------------------------------------------------------
# Words
# --------------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def word_changes(
    old: str, new: str, *, similarity: float = WORD_PAIR_SIMILARITY
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]] | None:
    """The character ranges where ``old`` and ``new`` differ, word by word: ``(ranges of
    old, ranges of new)``; None when they share less than ``similarity`` of their words
    (different lines) or are too long to compare."""
    if old == new or len(old) > HIGHLIGHT_LINE_CHARS or len(new) > HIGHLIGHT_LINE_CHARS:
        return None
    a, b = _words(old), _words(new)
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < similarity or matcher.quick_ratio() < similarity:
        return None
    if matcher.ratio() < similarity:
        return None
    old_at = [0]
    for w in a:
        old_at.append(old_at[-1] + len(w))
    new_at = [0]
    for w in b:
        new_at.append(new_at[-1] + len(w))
    old_ranges: list[tuple[int, int]] = []
    new_ranges: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            old_ranges.append((old_at[i1], old_at[i2]))
        if j2 > j1:
            new_ranges.append((new_at[j1], new_at[j2]))
    return old_ranges, new_ranges


def pair_block(removed: Sequence[str], added: Sequence[str]) -> list[tuple[int, int]]:
    """Pairs ``(removed index, added index)`` of one change block, in order (see the
    module doc)."""
    if not removed or not added:
        return []
    if len(removed) * len(added) > WORD_PAIR_COMPARISONS:
        return list(zip(range(len(removed)), range(len(added)), strict=False))
    pairs: list[tuple[int, int]] = []
    start = 0
    for i, old in enumerate(removed):
        for j in range(start, len(added)):
            if word_changes(old, added[j]) is not None or old == added[j]:
                pairs.append((i, j))
                start = j + 1
                break
    return pairs


# --------------------------------------------------------------------------
# Lines
# --------------------------------------------------------------------------


def split_spans(
    tokens: Sequence[tuple[str, str]], changed: Sequence[tuple[int, int]]
) -> list[Span]:
    """``tokens`` of one line cut where the ``changed`` ranges (sorted, apart) start and
    end, each piece marked."""
    if not changed:
        return [Span(text, css) for text, css in tokens]
    spans: list[Span] = []
    at = 0
    k = 0
    for text, css in tokens:
        end = at + len(text)
        pos = at
        while pos < end:
            while k < len(changed) and changed[k][1] <= pos:
                k += 1
            if k < len(changed) and changed[k][0] <= pos:
                stop, mark = min(end, changed[k][1]), True
            else:
                stop = min(end, changed[k][0]) if k < len(changed) else end
                mark = False
            piece = text[pos - at : stop - at]
            if spans and spans[-1].token == css and spans[-1].changed == mark:
                spans[-1] = Span(spans[-1].text + piece, css, mark)
            else:
                spans.append(Span(piece, css, mark))
            pos = stop
        at = end
    return spans


@dataclass(frozen=True, slots=True)
class DiffLine:
    """A line of a hunk's body: ``kind`` ``" "`` (both sides), ``"+"``, ``"-"``, or
    anything else (a note, an unnumbered line: shown plain), and its text without
    the marker and line end (control characters made visible)."""

    kind: str
    text: str


class Budget:
    """Characters the lexer may still colour in one answer (see the module doc)."""

    def __init__(self, chars: int = HIGHLIGHT_PAGE_CHARS) -> None:
        self.left = chars

    def take(self, texts: Sequence[str]) -> bool:
        size = sum(len(t) for t in texts)
        if size > self.left:
            self.left = 0
            return False
        self.left -= size
        return True


def _side(lexer: Any, lines: Sequence[DiffLine], kinds: str, budget: Budget) -> dict[int, Any]:
    """Tokens of the lines of ``kinds`` (one side of a hunk), by index in ``lines``."""
    picked = [
        i for i, d in enumerate(lines) if d.kind in kinds and len(d.text) <= HIGHLIGHT_LINE_CHARS
    ]
    texts = [lines[i].text for i in picked]
    use = lexer if lexer is not None and budget.take(texts) else None
    return dict(zip(picked, tokens_of_lines(use, texts), strict=True))


def _blocks(lines: Sequence[DiffLine]) -> Iterator[tuple[list[int], list[int]]]:
    """Each change block of a hunk: the indexes of its removed lines, then its added ones."""
    i = 0
    while i < len(lines):
        removed: list[int] = []
        added: list[int] = []
        while i < len(lines) and lines[i].kind == "-":
            removed.append(i)
            i += 1
        while i < len(lines) and lines[i].kind in ("+", "\\"):
            if lines[i].kind == "+":
                added.append(i)
            i += 1
        if removed or added:
            yield removed, added
        else:
            i += 1


def highlight_hunk(
    lexer: Any, lines: Sequence[DiffLine], budget: Budget | None = None
) -> list[list[Span]]:
    """Each line of a hunk's body as spans: colours per side, word marks per pair."""
    budget = budget if budget is not None else Budget()
    old = _side(lexer, lines, " -", budget)
    new = _side(lexer, lines, "+", budget)
    changed: dict[int, list[tuple[int, int]]] = {}
    for removed, added in _blocks(lines):
        texts_r = [lines[i].text for i in removed]
        texts_a = [lines[j].text for j in added]
        for r, a in pair_block(texts_r, texts_a):
            found = word_changes(texts_r[r], texts_a[a])
            if found is not None:
                changed[removed[r]], changed[added[a]] = found
    out = []
    for i, line in enumerate(lines):
        tokens = old.get(i) or new.get(i)
        if tokens is None:
            tokens = [(line.text, "")] if line.text else []
        out.append(split_spans(tokens, changed.get(i, ())))
    return out
