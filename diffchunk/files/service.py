"""The read-only file tools as plain functions: the entry point of the MCP server and CLI.

``get_overview`` (:mod:`.overview`), ``search_content``
(:mod:`.content_search`) and ``read_content`` (:mod:`.content_read`).  Each
checks its arguments, raises a :class:`~diffchunk.errors.DiffchunkError`
subclass whose message says what to do next, and returns a typed result
whose ``to_dict()`` is the tool's JSON; the shells
(``diffchunk.server.file_tools``, ``diffchunk.cli.file``) call that and
nothing else.

The writing tools, ``edit_content`` (:mod:`.edit`) and ``revert_edit``
(:mod:`.revert`), follow the same rules; the shells import them when an
edit is asked for, so a read-only call never loads the write path
(backups, hashing, JSON, difflib).
"""

from __future__ import annotations

from .content_read import READ_MODES, ReadResult, read_content
from .content_search import CountResult, SearchMatch, SearchResult, search_content
from .overview import LongLines, Overview, get_overview

__all__ = [
    "READ_MODES",
    "CountResult",
    "LongLines",
    "Overview",
    "ReadResult",
    "SearchMatch",
    "SearchResult",
    "get_overview",
    "read_content",
    "search_content",
]
