"""Where a generated diff's attributes come from, recorded beside the diff.

A diff written by the git source is filtered with the repository's attributes
(``git check-attr``), not with heuristics alone.  So that *any* later load of
that file — another tool call, a new MCP server process, ``diffchunk review
--chunk N <cached diff>`` — cuts the same chunks, the git source writes a small
JSON sidecar ``<diff>.gitattrs.json`` naming the repository and the tree the
attributes come from.  The first load asks git and records the answers in the
sidecar (every path asked about, with or without attributes); later loads
read them back and ask git only about paths not recorded yet.

:func:`attributes_for_diff` is what the session store calls for every diff it
loads (a single ``stat`` when there is no sidecar).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ...diff.attributes import WANTED, Attributes, AttributeSource, AttrValue
from ...errors import DiffchunkError
from ...fdio import replace_file
from ...log import LazyLogger

logger = LazyLogger(__name__)  # see diffchunk.log

FORMAT = "diffchunk-git-attributes/1"
SUFFIX = ".gitattrs.json"


def sidecar_path(diff_path: str) -> str:
    return diff_path + SUFFIX


def write_sidecar(
    diff_path: str,
    *,
    repo: str,
    treeish: str | None,
    index: bool,
    attributes: Mapping[str, Attributes] | None = None,
    attribute_files: Mapping[str, str] | None = None,
    range_record: Mapping[str, Any] | None = None,
) -> None:
    """Write (atomically) the sidecar of ``diff_path`` with the ``attributes`` known so far
    and the stat of the nested attribute files when the diff was written.

    ``range_record``: ``{"base": old commit or None, "paths": [...]}``, what
    the range holds (:func:`range_of`); a sidecar written before it was
    recorded has none."""
    payload: dict[str, Any] = {
        "format": FORMAT,
        "diff": os.path.basename(diff_path),
        "repo": repo,
        "treeish": treeish,
        "index": index,
    }
    if range_record is not None:
        payload["range"] = dict(range_record)
    if attributes is not None:
        payload["attributes"] = {p: dict(a) for p, a in attributes.items()}
    if attribute_files is not None:
        payload["attribute_files"] = dict(attribute_files)
    import json

    # dumps, not dump: only the one-shot encoder is the fast (C) one.  ASCII:
    # a path that is not UTF-8 (held with surrogate escapes) survives as
    # \udcXX escapes, read back as the same string.
    text = json.dumps(payload, separators=(",", ":"))
    replace_file(sidecar_path(diff_path), text.encode("ascii"), mode=0o600, durable=False)


def _read(diff_path: str) -> dict[str, Any] | None:
    import json

    try:
        with open(sidecar_path(diff_path), encoding="utf-8") as fh:
            payload = json.load(fh)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        logger.warning("Ignoring unreadable attributes sidecar of %s: %s", diff_path, exc)
        return None
    if (
        not isinstance(payload, dict)
        or payload.get("format") != FORMAT
        or payload.get("diff") != os.path.basename(diff_path)
        or not isinstance(payload.get("repo"), str)
    ):
        return None
    return payload


def drop_stale(diff_path: str) -> None:
    """Remove a cached diff that is no longer current, and then its sidecar: if
    writing it anew fails, nothing stale is left to be taken for current."""
    for path in (diff_path, sidecar_path(diff_path)):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def recorded_attribute_files(diff_path: str) -> dict[str, str] | None:
    """``{directory: stat key}`` of the nested ``.gitattributes`` files as they were
    when the diff was written; None if not recorded (or unreadable)."""
    payload = _read(diff_path)
    recorded = payload.get("attribute_files") if payload is not None else None
    if not isinstance(recorded, dict):
        return None
    return {str(k): str(v) for k, v in recorded.items()}


class SidecarAttributes:
    """Answers from the sidecar's record; asks ``git check-attr`` only for paths not in it.

    New answers are added to the record, so the next load of the same diff
    (even with other include/exclude patterns) runs no git at all.
    """

    def __init__(
        self,
        diff_path: str,
        repo: str,
        treeish: str | None,
        index: bool,
        recorded: Mapping[str, Mapping[str, AttrValue]] | None = None,
        source: AttributeSource | None = None,
        attribute_files: Mapping[str, str] | None = None,
    ) -> None:
        self.diff_path = diff_path
        # What answers paths not recorded yet (default: git check-attr in ``repo``).
        self.source = source
        self.repo = repo
        self.treeish = treeish
        self.index = index
        self.recorded: dict[str, dict[str, AttrValue]] = {
            p: dict(a) for p, a in (recorded or {}).items()
        }
        self.git_lookups = 0
        self.attribute_files = attribute_files  # kept in the sidecar when it is rewritten
        self._files_written = False  # attribute_files are in the sidecar
        self.range: dict[str, Any] | None = None  # base and paths, kept when rewritten

    def lookup(self, paths: Sequence[str]) -> Mapping[str, Attributes]:
        missing = list(dict.fromkeys(p for p in paths if p not in self.recorded))
        if missing:
            self._ask_git(missing)
        return {p: dict(self.recorded.get(p, {})) for p in paths}

    def _ask_git(self, paths: list[str]) -> None:
        from ...git.attributes import CheckAttrSource

        self.git_lookups += 1
        try:
            if self.source is not None:
                found = self.source.lookup(paths)
            else:
                found = CheckAttrSource(
                    self.repo, self.treeish, attributes=WANTED, index=self.index
                ).lookup(paths)
        except DiffchunkError as exc:
            # The repository moved or vanished: heuristics only for these paths.
            logger.warning("Cannot read attributes from %s: %s", self.repo, exc)
            return
        for path in paths:
            self.recorded[path] = dict(found.get(path, {}))
        self._write()

    def record_files(self) -> None:
        """Write ``attribute_files`` to the sidecar if no lookup did (a diff without
        that record is written anew when reused, see ``attributes_changed_since``)."""
        if self.attribute_files is not None and not self._files_written:
            self._write()

    def rewrite(self) -> None:
        """Write the sidecar again with what this object holds."""
        self._write()

    def _write(self) -> None:
        try:
            write_sidecar(
                self.diff_path,
                repo=self.repo,
                treeish=self.treeish,
                index=self.index,
                attributes=self.recorded,
                attribute_files=self.attribute_files,
                range_record=self.range,
            )
            self._files_written = self.attribute_files is not None
        except OSError as exc:
            logger.debug("Cannot record attributes beside %s: %s", self.diff_path, exc)


def attributes_for_diff(
    diff_path: str,
    source: AttributeSource | None = None,
    attribute_files: Mapping[str, str] | None = None,
) -> AttributeSource | None:
    """The attribute source recorded for a generated diff, or ``None`` for other files.

    ``source`` answers the paths the sidecar does not record yet (default: a
    ``git check-attr`` run in the recorded repository).  ``attribute_files``:
    the nested attribute files as git diff found them, recorded with the
    attributes (a new diff's; else the sidecar's record is kept).
    """
    payload = _read(diff_path)
    if payload is None:
        return None
    recorded = payload.get("attributes")
    treeish = payload.get("treeish")
    files = attribute_files if attribute_files is not None else payload.get("attribute_files")
    found = SidecarAttributes(
        diff_path,
        payload["repo"],
        treeish if isinstance(treeish, str) else None,
        bool(payload.get("index")),
        recorded if isinstance(recorded, dict) else None,
        source,
        files if isinstance(files, dict) else None,
    )
    recorded_range = payload.get("range")
    found.range = recorded_range if isinstance(recorded_range, dict) else None
    return found


class RecordedRange(NamedTuple):
    """What a generated diff shows, as its sidecar records it.

    ``head`` is None for the working tree or the index (``staged`` says
    which); ``base`` is None when the old side is the empty tree or the
    sidecar predates its record (``has_base`` says which).
    """

    repo: str
    base: str | None
    head: str | None
    staged: bool
    paths: tuple[str, ...]
    has_base: bool


def range_of(diff_path: str) -> RecordedRange | None:
    """The repository and range a generated diff shows; None for any other diff file."""
    payload = _read(diff_path)
    if payload is None:
        return None
    treeish, recorded = payload.get("treeish"), payload.get("range")
    record = recorded if isinstance(recorded, dict) else {}
    base, paths = record.get("base"), record.get("paths")
    return RecordedRange(
        repo=payload["repo"],
        base=base if isinstance(base, str) else None,
        head=treeish if isinstance(treeish, str) else None,
        staged=bool(payload.get("index")),
        paths=tuple(p for p in paths if isinstance(p, str)) if isinstance(paths, list) else (),
        has_base=isinstance(recorded, dict),
    )


def record_range(diff_path: str, base: str | None, paths: Sequence[str]) -> None:
    """Add what the range holds to a sidecar written before it was recorded (its
    attributes kept); nothing when the diff has no sidecar."""
    attributes = attributes_for_diff(diff_path)
    if isinstance(attributes, SidecarAttributes) and attributes.range is None:
        attributes.range = {"base": base, "paths": list(paths)}
        attributes.rewrite()
