"""The package's own sources, read and parsed once per process.

Several tests scan every module of ``diffchunk/`` (the settings it reads, its numbers,
the programs it starts, the words of its messages); a parse of the whole package costs
about 1.5 s of CPU, and they made ten.  :func:`source` and :func:`parse` keep what
they gave: a tree is shared by every caller, so a test walks it and never changes it.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import diffchunk

PACKAGE = Path(diffchunk.__file__).resolve().parent


@functools.cache
def package_files() -> tuple[Path, ...]:
    """Every module of the package, in order."""
    return tuple(sorted(PACKAGE.rglob("*.py")))


@functools.cache
def source(path: Path) -> str:
    """The text of a module."""
    return path.read_text(encoding="utf-8")


@functools.cache
def parse(text: str) -> ast.Module:
    """The tree of a module's text (shared: walk it, do not change it)."""
    return ast.parse(text)
