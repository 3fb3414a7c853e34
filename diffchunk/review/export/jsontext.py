"""JSON text of the exports: indented at the top, one entry per line below.

``json.dumps(..., indent=2)`` runs Python's pure-Python encoder, several times
slower than its C encoder on a large review.  The JSON exports are written by
:func:`write` instead: the first ``depth`` levels of objects and arrays are
indented, and each value below them is one compact line written by the C
encoder; for the document, that is one file or one finding per line, which
also keeps the text easy to diff.  Non-ASCII characters are written as is.
An array may be any sequence (the document's files are built one at a time
as they are written), and the text goes to a sink a line at a time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .sink import TextSink, collect

_compact = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


def dumps(value: Any, depth: int) -> str:
    """``value`` as JSON text, indented ``depth`` levels deep, ending in a newline."""
    return collect(lambda out: write(value, depth, out))


def write(value: Any, depth: int, out: TextSink) -> None:
    """:func:`dumps` of ``value``, written to ``out``."""
    _write(value, depth, "", out)
    out.append("\n")


def _array(value: object) -> bool:
    """A list, or a sequence made for the export (a tuple is written compact, as a value)."""
    return isinstance(value, list) or (
        isinstance(value, Sequence) and not isinstance(value, tuple | str | bytes | bytearray)
    )


def _write(value: Any, depth: int, indent: str, out: TextSink) -> None:
    array = _array(value)
    if depth <= 0 or not (isinstance(value, dict) or array) or not value:
        out.append(_compact(list(value) if array and not isinstance(value, list) else value))
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
