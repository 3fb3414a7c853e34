"""Checks of the record tools' arguments: each returns the value as the record keeps it,
or raises :class:`~diffchunk.errors.InvalidArgument` saying what is wrong."""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InvalidArgument


def choice(name: str, value: object, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value.strip().lower() not in allowed:
        raise InvalidArgument(
            f"{name} must be one of {', '.join(allowed)}; got {value!r}.",
        )
    return value.strip().lower()


def positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgument(f"{name} must be a line number (1 or more), got {value!r}.")
    return value


def text(name: str, value: object, limit: int, *, empty_ok: bool = False) -> str:
    if not isinstance(value, str) or (not empty_ok and not value.strip()):
        raise InvalidArgument(f"{name} must be non-empty text.")
    if len(value) > limit:
        raise InvalidArgument(
            f"{name} is {len(value):,} characters long; at most {limit:,} are kept.",
            suggestion="Shorten it, or split the finding.",
        )
    return storable(value)


def storable(text: str) -> str:
    """``text`` as the record stores it: UTF-8.  What is not (a byte of a command line
    that is not UTF-8, which Python keeps as a surrogate ``\\udce9``; a lone surrogate
    from JSON) is kept as a visible escape: ``\\xe9``, ``\\ud800``."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    return "".join(
        (f"\\x{ord(c) - 0xDC00:02x}" if "\udc80" <= c <= "\udcff" else f"\\u{ord(c):04x}")
        if "\ud800" <= c <= "\udfff"
        else c
        for c in text
    )
