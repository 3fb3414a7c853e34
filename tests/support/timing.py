"""Bounds on how long a call takes that hold on a busy machine.

The suite runs on every core (pytest-xdist), beside the servers, CLIs and git
processes its tests start, so a wall-clock bound of a second measures the machine as
much as the code.  A bound that proves a call does not blow up (quadratic work, a
whole scan of a huge input) is taken on the CPU time this process spends
(:func:`time.process_time`, every thread of it), which other processes do not
inflate; the wall-clock time is bounded too, generously (:data:`HANG_FACTOR` times
the CPU bound), so a call that waits without working (a lock, a pipe) is still
caught.  Figures of speed come from the benchmarks, never from here.
"""

from __future__ import annotations

import time
from typing import NamedTuple

# A call may wait this many times its CPU bound in wall-clock time: other work on
# the machine slows it, but a wait that never ends (or one of a lock's timeout) fails.
HANG_FACTOR = 10


class Elapsed(NamedTuple):
    """The CPU seconds of this process and the wall-clock seconds a call took."""

    cpu: float
    wall: float

    def within(self, seconds: float) -> bool:
        """Whether the call kept to ``seconds`` of CPU (and :data:`HANG_FACTOR` times
        that in wall-clock time)."""
        return self.cpu < seconds and self.wall < seconds * HANG_FACTOR

    def __str__(self) -> str:
        return f"{self.cpu:.2f}s CPU, {self.wall:.2f}s wall"


class Stopwatch:
    """Started when made; :meth:`elapsed` reads both clocks."""

    def __init__(self) -> None:
        self._cpu = time.process_time()
        self._wall = time.monotonic()

    def elapsed(self) -> Elapsed:
        return Elapsed(time.process_time() - self._cpu, time.monotonic() - self._wall)
