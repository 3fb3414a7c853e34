"""Where file attributes come from (``.gitattributes`` semantics).

A source answers, for a batch of paths, the attributes git would give each
path.  Values follow ``git check-attr``: ``True`` for *set*, ``False`` for
*unset* (``-attr``), a string for ``attr=value``; an *unspecified* attribute is
simply absent from the mapping.

Two implementations exist: one that asks ``git check-attr`` inside a
repository (``diffchunk.git.attributes``), and one that evaluates a single
``.gitattributes`` file given alongside a diff file
(``diffchunk.diff.gitattributes``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

AttrValue = bool | str
Attributes = Mapping[str, AttrValue]

# The attributes diffchunk reads.
WANTED = ("linguist-generated", "linguist-vendored", "diff", "binary")


class AttributeSource(Protocol):
    def lookup(self, paths: Sequence[str]) -> Mapping[str, Attributes]:
        """Attributes for each path (only the names in ``WANTED`` matter)."""
        ...


def is_truthy(value: AttrValue | None) -> bool | None:
    """``True``/``False`` for a set/unset or true/false-valued attribute, else None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in ("true", "1", "yes", "set"):
        return True
    if lowered in ("false", "0", "no", "unset"):
        return False
    return None
