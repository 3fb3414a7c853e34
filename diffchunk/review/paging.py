"""Pages of a listing: the ``offset``/``limit`` a paged tool takes, checked once, and
the one way a page is filled to fit a response.

:func:`fill_page` is what ``list_chunks``, ``review_status`` and
``list_findings`` page with: entries in order while their JSON text fits the
budget, and always at least one entry, shortened by the listing's own
``shorten`` when it alone is larger than a response (a chunk of thousands of
files; a finding's long texts), so no page is ever empty and none unbounded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..errors import InvalidArgument

SEPARATOR_CHARS = 2
"""What a page costs per entry besides the entry's own JSON text: ``, `` between
entries of indented answers (1 in compact JSON, which callers pass)."""


T = TypeVar("T")


def check_page(offset: object, limit: object, total: int, what: str) -> None:
    """Refuse an ``offset``/``limit`` pair that names no page of ``total`` ``what``."""
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise InvalidArgument(
            f"offset must be a non-negative integer, got {offset!r}.",
            suggestion="Use 0 for the first page, then the next_offset of the previous page.",
        )
    if offset > total:
        raise InvalidArgument(
            f"offset={offset} is past the end: there are {total} {what}.",
            suggestion=f"Use an offset between 0 and {max(total - 1, 0)}.",
        )
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InvalidArgument(
            f"limit must be a positive integer, got {limit!r}.",
            suggestion=f"Leave it unset to get as many {what} as fit in one response.",
        )


def check_search(
    side: str, sides: tuple[str, ...], max_results: int, most: int, offset: int
) -> None:
    """A search's request: ``side`` one of ``sides``, ``max_results`` from 1 to ``most``
    (a page), ``offset`` from 0; the shared check of search_diff and search_code."""
    if side not in sides:
        raise InvalidArgument(f"side must be one of {', '.join(sides)}, got {side!r}.")
    for name, value, low in (("max_results", max_results, 1), ("offset", offset, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InvalidArgument(f"{name} must be an integer of at least {low}, got {value!r}.")
    if max_results > most:
        raise InvalidArgument(
            f"max_results={max_results} is more than a page holds ({most}).",
            suggestion="Page with offset=next_offset instead.",
        )


def fill_page(
    sized: Callable[[int], tuple[T, int]],
    start: int,
    end: int,
    budget: int | None,
    *,
    used: int = 0,
    shorten: Callable[[T, int, int], tuple[T, int]] | None = None,
    separator: int = SEPARATOR_CHARS,
) -> tuple[list[T], int]:
    """The entries ``start..end-1`` that fit in ``budget`` characters, and where the page
    stopped (the next page's offset; ``end`` when all fit).

    ``sized(i)`` gives entry ``i`` and the length of its JSON text; ``used``
    characters of the budget are taken already (the rest of the response), and
    each entry costs ``separator`` characters more.  The first entry is always
    taken: shortened by ``shorten(entry, size, room)`` when it alone exceeds the
    room left.  ``budget`` None: every entry.
    """
    page: list[T] = []
    stop = start
    while stop < end:
        entry, size = sized(stop)
        if budget is not None and used + size + separator > budget:
            if page:
                break
            if shorten is not None:
                entry, size = shorten(entry, size, budget - used - separator)
        page.append(entry)
        used += size + separator
        stop += 1
    return page, stop
