"""``list_symbols``: every definition a file's change touches, paged.

A listing names at most a few per file (``symbols_more`` counts the rest);
this pages them all, in the order the listing gives them, with the same
entries (:mod:`diffchunk.review.symbols`: ``name``, ``kind``, ``change``,
``lines``, from the outlines of both revisions, or the hunks' function
context for a diff file), :data:`PAGE` a page from ``offset``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...errors import InvalidArgument
from ..sessions.file_match import match_file
from ..sessions.loading import session
from ..sessions.store import SessionStore
from .symbols import SymbolChange, compute, merged

PAGE = 50
"""Changed symbols of one file in a list_symbols page."""


@dataclass(frozen=True, slots=True)
class SymbolListing:
    """One page of a file's changed definitions."""

    file_path: str
    symbols: tuple[SymbolChange, ...]
    total: int
    source: str  # "outline" or "hunks"
    next_offset: int | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "file_path": self.file_path,
            "symbols": [s.to_json() for s in self.symbols],
            "total": self.total,
            "symbols_from": self.source,
        }
        if self.next_offset is not None:
            result["next_offset"] = self.next_offset
        return result


def list_symbols(
    absolute_file_path: str,
    file_path: str,
    offset: int = 0,
    *,
    store: SessionStore | None = None,
) -> SymbolListing:
    """The definitions the change of ``file_path`` touches, from ``offset``."""
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidArgument(f"offset must be an integer of at least 0, got {offset!r}.")
    loaded = session(absolute_file_path, store)
    path = match_file(loaded.review, file_path)
    indexes = [i for i, fd in enumerate(loaded.review.parsed.files) if fd.path == path]
    found = merged(list(compute(loaded, indexes).values()))
    page = found.items[offset : offset + PAGE]
    following = offset + len(page)
    return SymbolListing(
        path,
        page,
        len(found.items),
        found.source,
        following if following < len(found.items) else None,
    )
