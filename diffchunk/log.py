"""Loggers for modules that ``diffchunk review RANGE`` loads before it starts git.

``logging`` takes a few milliseconds to load, and those modules would load it
before ``git diff`` starts.  :class:`LazyLogger` loads it only when a record
could be shown: a warning (or worse) always, a debug or info record once
something has loaded ``logging`` (until then nothing can have configured a
handler or a level, so such a record would be dropped anyway).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging


class LazyLogger:
    """``logging.getLogger(name)``, loaded when first needed (see the module doc)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    # stacklevel=2: a record names the caller's file and line, not this one's.
    def debug(self, msg: str, *args: object) -> None:
        if "logging" in sys.modules:
            self._logger().debug(msg, *args, stacklevel=2)

    def info(self, msg: str, *args: object) -> None:
        if "logging" in sys.modules:
            self._logger().info(msg, *args, stacklevel=2)

    def warning(self, msg: str, *args: object) -> None:
        self._logger().warning(msg, *args, stacklevel=2)

    def _logger(self) -> logging.Logger:
        import logging

        return logging.getLogger(self.name)
