"""The review record: what was read, what was reviewed, what was found.

A review remembers itself in an SQLite file shared by the MCP server, the CLI
and the pre-push hook (:mod:`.store`, schema in :mod:`.migrations`):

- **which review** a diff file belongs to (:mod:`.identity`): a git range
  (repository + range as given; the range review's cache file is the handle
  the tools receive) or a diff file (its real path); each load is a revision;
- **what was read and reviewed** (:mod:`.coverage`): ``seen`` and ``reviewed``
  marks keyed by each file's change id (:mod:`.changes`), never by chunk
  number, so they survive reloading with other options and moves of the
  change within its file; a file edited after its mark is ``changed``;
- **what was found** (:mod:`.findings`): comments anchored to a file, a side
  and lines inside the diff's hunks, checked when they are written;
- **the export document** (:mod:`.document`), the input of every
  export format.

The tools as plain functions are in :mod:`.service` and :mod:`.findings`;
the shells are :mod:`diffchunk.server.record_tools` and
:mod:`diffchunk.cli.record`.  Everything the record reads from a loaded diff
goes through :mod:`.changes`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .document import ExportDocument, export_document
    from .findings import add_finding, list_findings, update_finding
    from .service import mark_reviewed, review_status
    from .side_writes import record_range_load, record_seen

# The tools, by the module that holds each: loaded when first asked for, so
# that a module of the record (``changes``, ``identity``...) loads without them.
_HOMES = {
    "ExportDocument": "document",
    "export_document": "document",
    "add_finding": "findings",
    "list_findings": "findings",
    "update_finding": "findings",
    "mark_reviewed": "service",
    "record_range_load": "side_writes",
    "record_seen": "side_writes",
    "review_status": "service",
}

__all__ = [
    "ExportDocument",
    "add_finding",
    "export_document",
    "list_findings",
    "mark_reviewed",
    "record_range_load",
    "record_seen",
    "review_status",
    "update_finding",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{home}", __name__), name)
