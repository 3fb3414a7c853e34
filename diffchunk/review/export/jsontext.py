"""JSON text of the exports: indented at the top, one entry per line below.

``json.dumps(..., indent=2)`` runs Python's pure-Python encoder, several times
slower than its C encoder on a large review.  The JSON exports are written by
:func:`dumps` instead: the first ``depth`` levels of objects and arrays are
indented, and each value below them is one compact line written by the C
encoder; for the document, that is one file or one finding per line, which
also keeps the text easy to diff.  Non-ASCII characters are written as is.
"""

from __future__ import annotations

import json
from typing import Any

_compact = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


def dumps(value: Any, depth: int) -> str:
    """``value`` as JSON text, indented ``depth`` levels deep, ending in a newline."""
    out: list[str] = []
    _write(value, depth, "", out)
    out.append("\n")
    return "".join(out)


def _write(value: Any, depth: int, indent: str, out: list[str]) -> None:
    if depth <= 0 or not isinstance(value, dict | list) or not value:
        out.append(_compact(value))
        return
    inner = indent + "  "
    if isinstance(value, dict):
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            out.append(("\n" if i == 0 else ",\n") + inner + _compact(str(key)) + ": ")
            _write(item, depth - 1, inner, out)
        out.append("\n" + indent + "}")
        return
    out.append("[")
    for i, item in enumerate(value):
        out.append(("\n" if i == 0 else ",\n") + inner)
        _write(item, depth - 1, inner, out)
    out.append("\n" + indent + "]")
