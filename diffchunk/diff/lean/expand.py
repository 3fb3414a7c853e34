"""A lean view expanded back to the raw text it shows: :func:`expand`.

The text is read line by line, by its first characters (see
:mod:`~diffchunk.diff.lean.markers`): a line with an original stands for
that original; a word-level pair (``~``) stands for its removed and its added
line, and the shown lines of its change block are put back in the raw order
(every removed line, then every added line); any other line stands for its
own text and a newline (``| `` lines without their prefix).  What
``originals`` holds after the last line ends the text.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import markers as mk
from .view import literal_bytes
from .words import sides

__all__ = ["expand"]

_BLOCK = ("-", "+", mk.PAIR)
_FOLDS = (mk.FILE, mk.HUNK, mk.FOLD, mk.CUT)


def expand(text: str, originals: Mapping[int, bytes]) -> bytes:
    """The raw bytes of the lean ``text`` with the ``originals`` it leaves out.

    Raises ValueError when the text is not a lean view these originals belong
    to (a fold line without its original, a pair line that does not read).
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out: list[bytes] = []
    n = 0
    plain = 0  # lines before this one hold no pair line in their run (read once)
    while n < len(lines):
        line = lines[n]
        if n >= plain and line.startswith(_BLOCK):
            end = n
            while end < len(lines) and lines[end].startswith(_BLOCK):
                end += 1
            if any(lines[k].startswith(mk.PAIR) for k in range(n, end)):
                out.append(_pairs(lines, n, end, originals))
                n = end
                continue
            plain = end
        if n in originals:
            out.append(originals[n])
        elif line.startswith(_FOLDS):
            raise ValueError(f"line {n + 1} is a fold without its original: {line[:60]!r}")
        else:
            out.append(literal_bytes(line))
        n += 1
    out.append(originals.get(len(lines), b""))
    return b"".join(out)


def _pairs(lines: list[str], start: int, end: int, originals: Mapping[int, bytes]) -> bytes:
    """A change block with word-level pairs, put back in raw order."""
    removed: list[bytes] = []
    added: list[bytes] = []
    for n in range(start, end):
        line = lines[n]
        if line.startswith(mk.PAIR):
            old, new = sides(line[len(mk.PAIR) :])
            removed.append(("-" + old + "\n").encode("utf-8"))
            added.append(("+" + new + "\n").encode("utf-8"))
            continue
        raw = originals[n] if n in originals else literal_bytes(line)
        (removed if line.startswith("-") else added).append(raw)
    return b"".join(removed) + b"".join(added)
