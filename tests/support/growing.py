"""A file that grows while a tool reads it: a writer appending before a call runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def appending_first(path: Path, data: bytes, call: Callable[..., Any]) -> Callable[..., Any]:
    """``call``, preceded each time by appending ``data`` to ``path``."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with open(path, "ab") as fh:
            fh.write(data)
        return call(*args, **kwargs)

    return wrapper
