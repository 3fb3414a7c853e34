"""Sequences whose items are built when they are asked for: :class:`LazySequence`.

The diff's tables keep their items in columns (a diff's file sections, the
files a filter left out, a chunk's parts, a review's kept files) and build a
frozen item when it is asked for.  Each is a ``Sequence`` of those items, and
the ``Sequence`` protocol is written here once: a subclass says how long it is
and how to build item ``k`` (:meth:`LazySequence._build`), and may iterate
faster than one ``_build`` per position.

Rules:

- Item ``k`` is ``_build(k)`` for ``0 <= k < len``; a negative index counts from
  the end, as a tuple's; any other index is an ``IndexError`` naming what is
  out of range (:attr:`LazySequence.ITEM`).  ``_build`` is called only with a
  position in range.
- A slice is a list of the items it selects, each built.
- A lazy sequence equals any sequence (not a ``str`` or ``bytes``) of equal items
  in the same order, as a tuple of them would, and hashes as that tuple.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import ClassVar, TypeVar, overload

__all__ = ["LazySequence"]

T = TypeVar("T")


class LazySequence(Sequence[T]):
    """A ``Sequence`` built item by item (see the module doc)."""

    __slots__ = ()

    ITEM: ClassVar[str] = "item"
    """What an item is, for the ``IndexError`` of an index out of range."""

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def _build(self, k: int) -> T:
        """Item ``k``, ``0 <= k < len(self)``."""

    @overload
    def __getitem__(self, k: int) -> T: ...

    @overload
    def __getitem__(self, k: slice) -> list[T]: ...

    def __getitem__(self, k: int | slice) -> T | list[T]:
        n = len(self)
        if isinstance(k, slice):
            return [self._build(j) for j in range(*k.indices(n))]
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError(f"{self.ITEM} out of range")
        return self._build(k)

    def __iter__(self) -> Iterator[T]:
        return map(self._build, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))  # as the tuple of the same items, which it equals
