"""Attributes as git sees them, from ``git check-attr`` (one batched call).

For the working tree (``treeish=None``) git reads the checked-out
``.gitattributes`` files; with ``index=True`` the staged ones.  For a commit
(``treeish="<sha>"``) the attributes must be those *of that commit*: git 2.40
added ``check-attr --source`` for this, but older gits (2.39 is common) lack
it, so the commit's tree is read into a throw-away index
(``GIT_INDEX_FILE=<tmp> git read-tree <sha>``) and ``check-attr --cached``
answers from it.  Either way git itself applies its rules: nested
``.gitattributes`` files, ``[attr]`` macros, ``$GIT_DIR/info/attributes`` and
``core.attributesFile``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence

from ..diff.attributes import WANTED, Attributes, AttrValue
from .repo import Repo, discover
from .runner import split_z


class CheckAttrSource:
    """An :class:`~diffchunk.diff.attributes.AttributeSource` backed by ``git check-attr``."""

    def __init__(
        self,
        repo_root: str | Repo,
        treeish: str | None = None,
        *,
        index: bool = False,
        attributes: Sequence[str] = WANTED,
    ) -> None:
        self.repo = repo_root if isinstance(repo_root, Repo) else discover(repo_root)
        self.treeish = treeish
        self.index = index
        self.attributes = tuple(attributes)
        self.calls = 0  # git check-attr runs (one per lookup with paths)

    def lookup(self, paths: Sequence[str]) -> Mapping[str, Attributes]:
        unique = list(dict.fromkeys(p for p in paths if p))
        result: dict[str, dict[str, AttrValue]] = {p: {} for p in unique}
        if not unique:
            return result
        stdin = b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in unique)
        args = ["check-attr", "-z", "--stdin"]
        if self.treeish is not None or self.index:
            args.append("--cached")
        args += self.attributes
        self.calls += 1
        if self.treeish is None:
            out = self.repo.git.run(args, input=stdin, what="git check-attr").stdout
        else:
            out = self._in_commit(args, stdin)
        fields = split_z(out)
        for i in range(0, len(fields) - 2, 3):
            path = fields[i].decode("utf-8", "surrogateescape")
            attr = fields[i + 1].decode("utf-8", "surrogateescape")
            info = fields[i + 2].decode("utf-8", "surrogateescape")
            value = _value(info)
            if value is not None:
                result.setdefault(path, {})[attr] = value
        return result

    def _in_commit(self, args: list[str], stdin: bytes) -> bytes:
        assert self.treeish is not None
        tmp = tempfile.mkdtemp(prefix="diffchunk-attr-")
        try:
            env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
            # A full (not sparse) index: .gitattributes in every directory are read.
            self.repo.git.run(
                ["-c", "index.sparse=false", "read-tree", "--end-of-options", self.treeish],
                env_extra=env,
                what="git read-tree",
            )
            return self.repo.git.run(args, input=stdin, env_extra=env, what="git check-attr").stdout
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def _value(info: str) -> AttrValue | None:
    if info == "set":
        return True
    if info == "unset":
        return False
    if info == "unspecified":
        return None
    return info
