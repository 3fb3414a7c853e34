"""The file tools as plain functions: the one entry point of the MCP server and the CLI.

``get_overview`` (:mod:`.overview`), ``search_content``
(:mod:`.content_search`), ``read_content`` (:mod:`.content_read`),
``edit_content`` (:mod:`.edit`) and ``revert_edit`` (:mod:`.revert`).  Each
checks its arguments, raises a :class:`~diffchunk.errors.DiffchunkError`
subclass whose message says what to do next, and returns its result in the
shape of the tool reference.  The shells (``diffchunk.server.file_tools``,
``diffchunk.cli.file``) only call these.
"""

from __future__ import annotations

from .content_read import READ_MODES, read_content
from .content_search import search_content
from .edit import edit_content
from .overview import get_overview
from .revert import revert_edit

__all__ = [
    "READ_MODES",
    "edit_content",
    "get_overview",
    "read_content",
    "revert_edit",
    "search_content",
]
