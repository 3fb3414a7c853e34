"""Pages of a listing: the ``offset``/``limit`` a paged tool takes, checked once."""

from __future__ import annotations

from ..errors import InvalidArgument


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
