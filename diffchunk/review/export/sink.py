"""Text written in pieces: :class:`TextSink`.

Every export renderer appends its text to a sink a piece at a time (``append``,
``extend`` or ``+=``, as to a list of strings); the sink hands what it holds to
its destination (a file, the cache entry, an answer) each time it holds
:data:`EXPORT_FLUSH_CHARS` characters, and the rest at
:meth:`TextSink.flush`.  So an export of any size is never one string in
memory: a renderer holds what one file or one finding needs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["TextSink", "collect"]

EXPORT_FLUSH_CHARS = 1 << 20
"""Characters an export holds before it writes them to its destination: a few
megabytes of text at most, whatever the size of the review (a million files'
HTML is gigabytes)."""


class TextSink:
    """Pieces of text on their way to ``write`` (called with joined pieces)."""

    __slots__ = ("_held", "_parts", "_write", "characters", "flush_at")

    def __init__(self, write: Callable[[str], object], flush_at: int = EXPORT_FLUSH_CHARS) -> None:
        self._write = write
        self._parts: list[str] = []
        self._held = 0
        self.flush_at = flush_at
        self.characters = 0  # handed to the destination so far

    def append(self, text: str) -> None:
        self._parts.append(text)
        self._held += len(text)
        if self._held >= self.flush_at:
            self.flush()

    def extend(self, texts: Iterable[str]) -> None:
        for text in texts:
            self.append(text)

    def __iadd__(self, texts: Iterable[str]) -> TextSink:
        self.extend(texts)
        return self

    def flush(self) -> None:
        """Hand what is held to the destination."""
        if self._held:
            text = "".join(self._parts)
            self._parts.clear()
            self._held = 0
            self.characters += len(text)
            self._write(text)


def collect(render: Callable[[TextSink], None]) -> str:
    """The whole text ``render`` writes to a sink (for a caller that wants a string)."""
    parts: list[str] = []
    sink = TextSink(parts.append)
    render(sink)
    sink.flush()
    return "".join(parts)
