"""A lean view: its text, the originals of its folds, and what each kind of fold saved.

:class:`ViewWriter` writes a view line by line and keeps the rule that makes
it expandable: every raw byte of the chunk is either on a shown line
(literally) or in ``originals`` under the index of the lean line that
stands for it.  Raw bytes with no line of their own (the context after a
hunk's last change, a mail signature) are *pending* until the next line,
which then stands for them too; bytes still pending at the end are kept
under the index one past the last line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from . import markers as mk

__all__ = ["FoldStats", "LeanView", "ViewWriter", "literal_bytes"]


def literal_bytes(line: str) -> bytes:
    """The raw bytes a shown line stands for when it has no original of its own."""
    if line.startswith(mk.TEXT):
        line = line[len(mk.TEXT) :]
    return (line + "\n").encode("utf-8")


@dataclass(frozen=True, slots=True)
class FoldStats:
    """One kind of fold in a view: how many, the raw bytes they stand for, and the
    characters of the lean lines that stand for them."""

    count: int
    raw: int
    shown: int

    @property
    def saved(self) -> int:
        return self.raw - self.shown


@dataclass(frozen=True, slots=True)
class LeanView:
    """The lean text of a chunk and the raw bytes it leaves out.

    ``originals[n]``: the raw bytes lean line ``n`` (0-based) stands for, when
    they are not its own text (see :func:`diffchunk.diff.lean.expand`);
    ``originals[len(lines)]``: raw bytes after the last line.  ``stats``:
    per kind of fold (:data:`~diffchunk.diff.lean.markers.KINDS`).
    """

    text: str
    originals: Mapping[int, bytes]
    stats: Mapping[str, FoldStats] = field(default_factory=dict)

    def legend(self) -> str:
        """One line saying how to read the markers this view uses."""
        return mk.legend(set(self.stats))


class ViewWriter:
    """Writes a :class:`LeanView` line by line (see the module doc)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.originals: dict[int, bytes] = {}
        self._pending: list[bytes] = []
        self._stats: dict[str, list[int]] = {}

    def _count(self, kind: str, raw: int, shown: int, folds: int = 1) -> None:
        entry = self._stats.get(kind)
        if entry is None:
            entry = self._stats[kind] = [0, 0, 0]
        entry[0] += folds
        entry[1] += raw
        entry[2] += shown

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def hide(self, raw: bytes, kind: str) -> None:
        """Leave ``raw`` out; the next line stands for it."""
        if raw:
            self._pending.append(raw)
            self._count(kind, len(raw), 0, folds=0)

    def fold(self, text: str, raw: bytes, kind: str, context: bytes = b"") -> None:
        """A line ``text`` standing for ``raw`` (after whatever is pending), and then for
        the unchanged lines ``context``."""
        self._pending.append(raw)
        self._pending.append(context)
        self.originals[len(self.lines)] = b"".join(self._pending)
        self._pending.clear()
        self._count(kind, len(raw), len(text) + 1)
        if context:
            self._count(mk.CONTEXT, len(context), 0, folds=0)
        self.lines.append(text)

    def literal(self, text: str, raw: bytes) -> None:
        """A shown line: ``text``, which reads back as ``raw`` (else it keeps ``raw``)."""
        if self._pending or literal_bytes(text) != raw:
            self.originals[len(self.lines)] = b"".join(self._pending) + raw
            self._pending.clear()
        self.lines.append(text)

    def pair(self, text: str, raw: int) -> None:
        """A word-level pair line (it reads back by itself: nothing may be pending)."""
        assert not self._pending, "a pair line cannot stand for other bytes"
        self._count(mk.WORDS, raw, len(text) + 1)
        self.lines.append(text)

    def count(self, kind: str, shown: int) -> None:
        """Count ``shown`` characters of shown lines against ``kind`` (a fold's cost)."""
        self._count(kind, 0, shown, folds=0)

    def finish(self) -> LeanView:
        if self._pending:
            self.originals[len(self.lines)] = b"".join(self._pending)
            self._pending.clear()
        text = "".join(line + "\n" for line in self.lines)
        stats = {k: FoldStats(*v) for k, v in self._stats.items()}
        return LeanView(text, dict(self.originals), stats)
