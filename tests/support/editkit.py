"""Helpers of the edit tests (``tests/test_files_edit_*.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from diffchunk.files.edit import edit_content


def write_utf8(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def edit_file(path: Path, changes: list[dict[str, object]], **kw: Any) -> dict[str, Any]:
    return edit_content(str(path), changes, **kw).to_dict()
