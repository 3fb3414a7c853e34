"""Randomness: one interface for :class:`random.Random` and for hypothesis draws.

Every generator and check of the harness draws through a :class:`Source`, so
that the suite can drive them with hypothesis (failures shrink) and the atheris
harness with the option bytes of its inputs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")


class Source(Protocol):
    def integer(self, lo: int, hi: int) -> int: ...

    def raw(self, lo: int, hi: int) -> bytes: ...


class RandomSource:
    """Draws from a :class:`random.Random`."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def raw(self, lo: int, hi: int) -> bytes:
        return self.rng.randbytes(self.rng.randint(lo, hi))


def pick(src: Source, items: Sequence[T]) -> T:
    return items[src.integer(0, len(items) - 1)]


def chance(src: Source, percent: int) -> bool:
    return src.integer(0, 99) < percent
