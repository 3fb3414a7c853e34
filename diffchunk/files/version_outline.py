"""The outline of a file version, as the read-only tools use it.

The outline (:mod:`.outline`) is built once per version and memoised on it
(``FileVersion.cache``); a file without a grammar, a binary file, or a
parser that fails gets none (the failure is logged: it must not break a
search or a read).  Search results name the symbol around a line
(:func:`describe`), ``read_content(mode="semantic")`` reads the innermost
one (:func:`enclosing`); :func:`outline_cut` says what the outline's bounds
left out of it, if anything.

The outline modules (queries, skeletons, their compiled patterns) are
imported on first use, as they were before: a read by line number or a tail
never loads them.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..errors import DiffchunkError
from .access import FileVersion

if TYPE_CHECKING:
    from .outline_item import OutlineItem

logger = logging.getLogger(__name__)


def outline_of(version: FileVersion) -> list[OutlineItem]:
    """The version's outline (memoised on the version); ``[]`` without one."""
    cached = version.cache.get("outline")
    if cached is not None:
        return cached  # type: ignore[return-value]
    items: list[OutlineItem] = []
    cut: list[str] = []
    if not version.is_binary:
        try:
            from .outline import outline_for_file

            items = outline_for_file(version.realpath, version.fingerprint, version.data, cut=cut)
        except ImportError:  # no tree-sitter: no outline
            items = []
        except DiffchunkError:
            raise
        except Exception:  # a parser failure must not break search or read
            logger.warning("Outline failed for %s", version.realpath, exc_info=True)
            items = []
    version.cache["outline_cut"] = "; ".join(cut) or None
    version.cache["outline"] = items
    return items


def outline_cut(version: FileVersion) -> str | None:
    """What the bounds of the version's outline left out (None: nothing)."""
    outline_of(version)
    cut = version.cache.get("outline_cut")
    return cut if isinstance(cut, str) else None


def describe(outline: list[OutlineItem], line: int) -> str | None:
    """Where ``line`` sits (``inside method Parser.run()``), or None."""
    if not outline:
        return None
    from .outline_item import describe_context

    return describe_context(outline, line)


def enclosing(outline: list[OutlineItem], line: int) -> OutlineItem | None:
    """The innermost symbol holding ``line``, or None."""
    if not outline:
        return None
    from .outline_item import enclosing_item

    return enclosing_item(outline, line)


def skip_reason(version: FileVersion) -> str | None:
    """Why the version has no outline, when that is worth saying (not for a
    file type that has none)."""
    from .outline import outline_skip_reason

    reason = outline_skip_reason(version.realpath, version.size)
    if reason == "no outline for this file type":
        return None
    return reason
