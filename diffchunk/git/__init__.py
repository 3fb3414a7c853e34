"""The git source: turn a repository range into a cached diff file and its attributes.

Core code only (no click, no mcp).  Entry points:

* :func:`diffchunk.git.source.load_git_range` -> :class:`~diffchunk.git.source.GitDiff`
* :class:`diffchunk.git.attributes.CheckAttrSource` (``git check-attr``)

Submodules are imported on first use, so that loading a plain diff file (which
only checks for a sidecar) does not pay for the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .attributes import CheckAttrSource
    from .source import GitDiff, load_git_range

__all__ = ["CheckAttrSource", "GitDiff", "load_git_range"]


def __getattr__(name: str) -> Any:
    if name == "CheckAttrSource":
        from .attributes import CheckAttrSource

        return CheckAttrSource
    if name in ("GitDiff", "load_git_range"):
        from . import source

        return getattr(source, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
