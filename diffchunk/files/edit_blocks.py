"""The change blocks of an edit: ``[{"search", "replace", "fuzzy"?}, ...]``, checked.

A batch holds 1 to :data:`MAX_CHANGES` objects with a non-empty ``search``
string, a ``replace`` string (``""`` deletes) and optionally a boolean
``fuzzy`` (else the call's); no other keys.  Texts may come with CRLF line
breaks: they are read with ``\\n`` (the file's endings are applied when
the replacement is written, see :mod:`.locate`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidArgument

MAX_CHANGES = 500
"""Changes one edit call may hold: far above any batch written by hand, and a
bound on the work of one all-or-nothing call."""


_CHANGE_KEYS = {"search", "replace", "fuzzy"}


@dataclass(frozen=True, slots=True)
class Change:
    """One search/replace block, its texts with ``\\n`` line breaks."""

    index: int
    search: str
    replace: str
    fuzzy: bool


def parse_changes(changes: object, fuzzy: bool) -> list[Change]:
    """The changes of one call, checked; :class:`InvalidArgument` says what is wrong.

    ``fuzzy`` is the call's default for a change without its own ``"fuzzy"``.
    """
    if not isinstance(changes, list) or not changes:
        raise InvalidArgument(
            "changes must be a non-empty list of {search, replace} objects.",
            suggestion='Pass e.g. [{"search": "old text", "replace": "new text"}].',
        )
    if len(changes) > MAX_CHANGES:
        raise InvalidArgument(
            f"{len(changes)} changes in one call; at most {MAX_CHANGES} are accepted.",
            suggestion="Split the batch into several calls.",
        )
    out: list[Change] = []
    for index, change in enumerate(changes):
        if not isinstance(change, dict):
            raise InvalidArgument(
                f"Change {index} is not an object.",
                suggestion='Each change is {"search": "...", "replace": "..."}.',
            )
        unknown = sorted(set(change) - _CHANGE_KEYS)
        if unknown:
            raise InvalidArgument(
                f"Change {index} has unknown keys {unknown}.",
                suggestion='Use only "search", "replace" and optionally "fuzzy".',
            )
        search = change.get("search")
        replace = change.get("replace")
        if not isinstance(search, str) or not search:
            raise InvalidArgument(
                f'Change {index} needs a non-empty "search" text.',
                suggestion="Copy the exact text to replace (a few whole lines work best).",
            )
        if not isinstance(replace, str):
            raise InvalidArgument(
                f'Change {index} needs a "replace" text (use "" to delete).',
            )
        own = change.get("fuzzy", fuzzy)
        if not isinstance(own, bool):
            raise InvalidArgument(f'Change {index}: "fuzzy" must be true or false.')
        out.append(
            Change(index, _lf(search), _lf(replace), own),
        )
    return out


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


# ------------------------------------------------------------------ snapshot
