"""The outline of a file version, as the read-only tools use it.

The outline (:mod:`.outline`) is built once per version and memoised on it
(``FileVersion.cache``); a file without a grammar, a binary file, or a
parser that fails gets none (the failure is logged: it must not break a
search or a read).  Search results name the symbol around a line
(:func:`describe`), ``read_content(mode="semantic")`` reads the innermost
one (:func:`enclosing`).
"""

from __future__ import annotations

import logging

from ..errors import DiffchunkError
from .access import FileVersion
from .outline import (
    OutlineItem,
    describe_context,
    enclosing_item,
    outline_for_file,
    outline_skip_reason,
)

logger = logging.getLogger(__name__)


def outline_of(version: FileVersion) -> list[OutlineItem]:
    """The version's outline (memoised on the version); ``[]`` without one."""
    cached = version.cache.get("outline")
    if cached is not None:
        return cached  # type: ignore[return-value]
    items: list[OutlineItem] = []
    if not version.is_binary:
        try:
            items = outline_for_file(version.realpath, version.fingerprint, version.data)
        except ImportError:  # no tree-sitter: no outline
            items = []
        except DiffchunkError:
            raise
        except Exception:  # a parser failure must not break search or read
            logger.warning("Outline failed for %s", version.realpath, exc_info=True)
            items = []
    version.cache["outline"] = items
    return items


def describe(outline: list[OutlineItem], line: int) -> str | None:
    """Where ``line`` sits (``inside method Parser.run()``), or None."""
    return describe_context(outline, line) if outline else None


def enclosing(outline: list[OutlineItem], line: int) -> OutlineItem | None:
    """The innermost symbol holding ``line``, or None."""
    return enclosing_item(outline, line) if outline else None


def skip_reason(version: FileVersion) -> str | None:
    """Why the version has no outline, when that is worth saying (not for a
    file type that has none)."""
    reason = outline_skip_reason(version.realpath, version.size)
    if reason == "no outline for this file type":
        return None
    return reason
