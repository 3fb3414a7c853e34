"""What a tree-wide search reads and finds: the files of one side of a range
(:class:`SearchTree`) and one matching line (:class:`CodeHit`).

Shared by ``search_code`` (:mod:`.code_search`) and the definitions that
``find_references`` gives its hits (:mod:`.references`); holds no content: a
work-tree file is read from its snapshot when searched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...git.repo import Repo
from ...git.trees import TreeFile


@dataclass(frozen=True, slots=True)
class CodeHit:
    """One matching line of the tree."""

    path: str
    line: int
    text: str | None  # None: a binary file's line
    in_diff: bool  # the line is an added (new side) or removed (old side) line of the diff
    definition: str | None = None  # find_references: the definition the line sits in

    def to_dict(self) -> dict[str, Any]:
        hit: dict[str, Any] = {"path": self.path, "line": self.line}
        if self.text is None:
            hit["binary"] = True
        else:
            hit["text"] = self.text
        if self.definition is not None:
            hit["in"] = self.definition
        if self.in_diff:
            hit["in_diff"] = True
        return hit


@dataclass(frozen=True, slots=True)
class SearchTree:
    """The files of one side: in the object store (``files``), and the work tree's
    versions of the diff's files (``local``: path to the read-only snapshot that
    ``open_file_version`` wrote, read when searched, so a session holds no content)."""

    repo: Repo
    treeish: str | None
    files: list[TreeFile]
    local: dict[str, str]
    revision: str | None

    def local_content(self, path: str) -> bytes:
        with open(self.local[path], "rb") as handle:
            return handle.read()
