"""The review order of a diff's files (``order="review"``): what a reviewer reads first.

Files come in this order: implementation files, each test file right after
the source it exercises when the pairing is clear from their names (the test
names exactly one source file of the same change, by its stem:
``test_x.py``, ``x_test.go``, ``x.test.ts``, ``XTest.java``, ``x_spec.rb``...,
in a directory it may exercise: see :func:`near`),
then the other tests, then documentation, then configuration, and generated,
vendored and lock files last; by path within each group.

The order never breaks what applying the chunks one after the other needs:

- sections that share a path (a rename and the file created at its old
  path, a copy and a change of its source) keep their relative order, and so
  do a file and the sections below it when it replaces a directory (or a
  directory replaces it);
- in a stream of commits (``git log -p``, format-patch), the files of each
  commit are ordered among themselves and the commits keep their order, so
  each path's sections stay in order and each commit's message still comes
  before its files.

The chunker then moves copies and directory replacements as it does for the
diff's own order (:mod:`diffchunk.diff.chunker.order`).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence

from .generated_paths import LOCKFILES, generated_by_path, vendored_by_path
from .model import FileDiff

__all__ = ["category", "near", "review_order", "source_stem"]

CODE, TEST, DOCS, CONFIG, GENERATED = range(5)

_TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs", "testdata"})
# name -> stem: test_x.py, x_test.go, x_tests.py, x.test.ts, x.spec.js, XTest.java,
# XTests.cs, XSpec.scala, x_spec.rb
_TEST_NAMES = (
    re.compile(r"^tests?_(?P<stem>.+)\.[^.]+$"),
    re.compile(r"^(?P<stem>.+?)_(?:test|tests|spec)\.[^.]+$"),
    re.compile(r"^(?P<stem>.+?)\.(?:test|spec)\.[^.]+$"),
    re.compile(r"^(?P<stem>[A-Z]\w*?)(?:Test|Tests|Spec|IT)\.[^.]+$"),
)
_DOC_NAMES = re.compile(
    r"^(?:readme|changes|changelog|history|news|authors|contributors|contributing|license"
    r"|licence|copying|notice|code_of_conduct|security)(?:\.[^.]+)?$",
    re.I,
)
_DOC_EXTENSIONS = frozenset({".md", ".markdown", ".rst", ".adoc", ".txt", ".mdx", ".rdoc"})
_DOC_DIRS = frozenset({"doc", "docs", "documentation", "man"})
_CONFIG_NAMES = frozenset(
    {
        "makefile",
        "dockerfile",
        "containerfile",
        "setup.cfg",
        "setup.py",
        "tox.ini",
        "noxfile.py",
        "manifest.in",
        "codeowners",
        "pyproject.toml",
        "package.json",
        "cargo.toml",
        "go.mod",
        "gemfile",
        "justfile",
        "procfile",
    }
)
_CONFIG_EXTENSIONS = frozenset(
    {".toml", ".cfg", ".ini", ".yaml", ".yml", ".json", ".jsonc", ".conf", ".properties", ".cff"}
)
_CONFIG_DIRS = frozenset({".github", ".gitlab", ".circleci", ".devcontainer", ".vscode", "ci"})


def _extension(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


def source_stem(path: str) -> str | None:
    """The stem of the source a test file names (``test_util.py`` -> ``util``), or None
    when the path is not a test file."""
    name = path.rsplit("/", 1)[-1]
    for pattern in _TEST_NAMES:
        m = pattern.match(name)
        if m is not None:
            return m.group("stem").lower()
    if name == "conftest.py" or _TEST_DIRS & set(path.lower().split("/")[:-1]):
        return ""  # a test file that names no source
    return None


def category(path: str) -> int:
    """What a file is to a reviewer: code, test, docs, config or generated (see the
    module doc), from its path alone."""
    name = path.rsplit("/", 1)[-1]
    lower = name.lower()
    dirs = set(path.lower().split("/")[:-1])
    if lower in LOCKFILES or generated_by_path(path) or vendored_by_path(path):
        return GENERATED
    if source_stem(path) is not None:
        return TEST
    ext = _extension(name)
    if (lower.startswith("requirements") or "requirements" in dirs) and ext in (".txt", ".in"):
        return CONFIG
    if _DOC_NAMES.match(name) or ext in _DOC_EXTENSIONS or dirs & _DOC_DIRS:
        return DOCS
    if (
        lower in _CONFIG_NAMES
        or ext in _CONFIG_EXTENSIONS
        or dirs & _CONFIG_DIRS
        or (lower.startswith(".") and "/" not in path)
    ):
        return CONFIG
    return CODE


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    dot = name.find(".")
    return (name[:dot] if dot > 0 else name).lower()


# Directories that say "tests here" and nothing of what is tested (``t``: Perl's).
_NO_SUBJECT_DIRS = _TEST_DIRS | {"t"}


def near(test: str, source: str) -> bool:
    """Whether test file ``test`` may exercise ``source`` by where they are: the test's
    directories, but those that only say "tests", are none (``tests/test_x.py``) or
    share one with the source's (``tests/pkg/test_x.py`` and ``src/pkg/x.py``;
    ``pkg/x_test.go`` and ``pkg/x.go``).  ``test/dialect/mysql/test_compiler.py``
    does not exercise ``lib/ext/compiler.py``."""
    wanted = {d.lower() for d in test.split("/")[:-1]} - _NO_SUBJECT_DIRS
    return not wanted or bool(wanted & {d.lower() for d in source.split("/")[:-1]})


def _sort_keys(files: Sequence[FileDiff]) -> list[tuple[object, ...]]:
    """Each file's place in the review order (before the apply constraints)."""
    kinds = [category(fd.path) for fd in files]
    sources: dict[str, list[int]] = {}
    for i, fd in enumerate(files):
        if kinds[i] == CODE:
            sources.setdefault(_stem(fd.path), []).append(i)
    keys: list[tuple[object, ...]] = []
    for i, fd in enumerate(files):
        if kinds[i] == TEST:
            stem = source_stem(fd.path)
            found = (
                [j for j in sources.get(stem, []) if near(fd.path, files[j].path)] if stem else []
            )
            if len(found) == 1:
                keys.append((CODE, files[found[0]].path, 1, fd.path))
                continue
        keys.append((kinds[i], fd.path, 0, ""))
    return keys


def _touches(files: Sequence[FileDiff]) -> list[set[str]]:
    """The paths each section reads or writes, with the paths of the other sections
    that are directories above them (a file replacing a directory, and back)."""
    own = [{p for p in (fd.old_path, fd.new_path) if p is not None} for fd in files]
    every = set().union(*own) if own else set()
    out: list[set[str]] = []
    for paths in own:
        touched = set(paths)
        for path in paths:
            at = path.rfind("/")
            while at > 0:
                path = path[:at]
                if path in every:
                    touched.add(path)
                at = path.rfind("/")
        out.append(touched)
    return out


def _order_commit(files: Sequence[FileDiff]) -> list[FileDiff]:
    """One commit's files in review order, the apply constraints kept (module doc)."""
    keys = _sort_keys(files)
    after: dict[int, list[int]] = {}
    waiting = [0] * len(files)
    last: dict[str, int] = {}
    for i, paths in enumerate(_touches(files)):
        for path in paths:
            before = last.get(path)
            if before is not None:
                after.setdefault(before, []).append(i)
                waiting[i] += 1
            last[path] = i
    ready = [(keys[i], i) for i in range(len(files)) if not waiting[i]]
    heapq.heapify(ready)
    out: list[FileDiff] = []
    while ready:
        _, i = heapq.heappop(ready)
        out.append(files[i])
        for j in after.get(i, ()):
            waiting[j] -= 1
            if not waiting[j]:
                heapq.heappush(ready, (keys[j], j))
    return out


def review_order(files: Sequence[FileDiff]) -> list[FileDiff]:
    """``files`` (a diff's kept sections, in diff order) in review order (module doc)."""
    out: list[FileDiff] = []
    start = 0
    for i in range(1, len(files) + 1):
        if i == len(files) or files[i].commit != files[start].commit:
            out.extend(_order_commit(files[start:i]))
            start = i
    return out
