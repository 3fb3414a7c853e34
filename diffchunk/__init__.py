"""diffchunk: a git-aware review assistant for large diffs and large files."""

from __future__ import annotations

__version__ = "0.3.0.dev0"
