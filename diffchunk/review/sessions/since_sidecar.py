"""What a since-review diff is, recorded beside it: ``<diff>.since.json``.

A since-review diff (:mod:`diffchunk.review.incremental`) is a cache entry
like a range's diff, but its text is not ``git diff`` of one range: it holds,
per file, what changed since the review.  Its companion file says what it is,
so that any process that loads it knows:

- ``review``: the review's id when it was written (informative: the review
  record's handle of the file is what the tools follow);
- ``from`` / ``to``: the reviewed revision and the revision now, each
  ``{"revision_id", "base", "head"}``;
- ``files``: per path of the diff, ``{"change_id", "section"}``: the change id
  of the file's whole change in the range now (marks and findings made on
  the since-review diff are made on that change, so they hold in the full
  review), and what its section shows: ``plain`` (``git diff`` of the file as
  reviewed and as now), ``interdiff`` (the change as reviewed vs the change
  now) or ``new`` (the file's whole change: it is new since the review);
- ``no_longer_changed``: paths the reviewed revision changed and the range no
  longer does.

Written atomically (a temporary file renamed into place); a file that is not
such a record, or names another diff, reads as None.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...fdio import replace_file

FORMAT = "diffchunk-since-review/1"
SUFFIX = ".since.json"
SECTIONS = ("plain", "interdiff", "new")


def since_path(diff_path: str) -> str:
    return diff_path + SUFFIX


@dataclass(frozen=True, slots=True)
class SinceFile:
    change_id: str  # of the file's whole change in the range now
    section: str  # plain | interdiff | new


@dataclass(frozen=True, slots=True)
class SinceRecord:
    """What a since-review diff holds (see the module doc)."""

    review_id: int
    from_revision: Mapping[str, Any]
    to_revision: Mapping[str, Any]
    files: Mapping[str, SinceFile]
    no_longer_changed: tuple[str, ...] = ()

    def to_json(self, diff_name: str) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "diff": diff_name,
            "review": self.review_id,
            "from": dict(self.from_revision),
            "to": dict(self.to_revision),
            "files": {
                path: {"change_id": f.change_id, "section": f.section}
                for path, f in self.files.items()
            },
            "no_longer_changed": list(self.no_longer_changed),
        }


def write_since(diff_path: str, record: SinceRecord) -> None:
    """Write (atomically) the companion record of the since-review diff ``diff_path``."""
    # ASCII: a path that is not UTF-8 (surrogate escapes) survives as \\udcXX.
    text = json.dumps(record.to_json(os.path.basename(diff_path)), separators=(",", ":"))
    replace_file(since_path(diff_path), text.encode("ascii"), mode=0o600)


def _files(value: object) -> dict[str, SinceFile] | None:
    if not isinstance(value, dict):
        return None
    files = {}
    for path, entry in value.items():
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("change_id"), str)
            or entry.get("section") not in SECTIONS
        ):
            return None
        files[str(path)] = SinceFile(entry["change_id"], entry["section"])
    return files


def read_since(diff_path: str) -> SinceRecord | None:
    """The companion record of ``diff_path``; None when there is none (any other diff)
    or it is not one of ours."""
    try:
        with open(since_path(diff_path), encoding="utf-8") as fh:
            payload = json.load(fh)
    except (OSError, ValueError):
        return None
    if (
        not isinstance(payload, dict)
        or payload.get("format") != FORMAT
        or payload.get("diff") != os.path.basename(diff_path)
    ):
        return None
    files = _files(payload.get("files"))
    gone = payload.get("no_longer_changed")
    if files is None or not isinstance(gone, list):
        return None
    start, end, review = payload.get("from"), payload.get("to"), payload.get("review")
    if not isinstance(review, int) or isinstance(review, bool):
        return None
    return SinceRecord(
        review_id=review,
        from_revision=start if isinstance(start, dict) else {},
        to_revision=end if isinstance(end, dict) else {},
        files=files,
        no_longer_changed=tuple(str(p) for p in gone),
    )
