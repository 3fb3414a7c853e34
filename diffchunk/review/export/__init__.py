"""Exports of a review: its export document rendered into the formats other tools read.

:func:`render` is the one entry point (``export_review`` over MCP and
``diffchunk export`` call it): it checks the export document (see
:mod:`.document` for every key) and renders it as

- ``markdown``: a summary and the findings by file, to paste into a pull
  request or a chat (:mod:`.markdown`);
- ``html``: one self-contained page with each file's diff and the findings
  under their lines (:mod:`.html`);
- ``sarif``: SARIF 2.1.0 for code scanning and SARIF viewers (:mod:`.sarif`);
- ``rdjson``: reviewdog's diagnostic format, for its review reporters
  (:mod:`.rdjson`);
- ``github``: the body of GitHub's create-review call (:mod:`.github`);
- ``json``: the export document itself.

Every renderer is a pure function of the document (and, for ``html``, of the
files' diff text): no I/O, no clock, the same input gives the same text.  Each
writes its text to a :class:`~.sink.TextSink` a piece at a time
(:func:`render_to`), so an export is written to its destination as it is
made; :func:`render` collects it into a string.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...errors import InvalidArgument
from . import jsontext
from .document import FORMAT, FORMAT_VERSION, ReviewExport, load_document
from .github import render_github, write_github
from .html import DIFF_TEXTS, render_html, write_html
from .markdown import render_markdown, write_markdown
from .rdjson import render_rdjson, write_rdjson
from .sarif import render_sarif, write_sarif
from .sink import TextSink, collect

__all__ = [
    "DIFF_TEXTS",
    "FORMAT",
    "FORMATS",
    "FORMAT_VERSION",
    "ReviewExport",
    "load_document",
    "normalize_format",
    "render",
    "render_github",
    "render_html",
    "render_json",
    "render_markdown",
    "render_rdjson",
    "render_sarif",
    "render_to",
]

#: The export formats, in the order the tools document them.
FORMATS = ("markdown", "html", "sarif", "rdjson", "github", "json")

#: The file name extension that suits each format (for ``--out`` defaults and downloads).
EXTENSIONS = {
    "markdown": ".md",
    "html": ".html",
    "sarif": ".sarif",
    "rdjson": ".rdjson",
    "github": ".json",
    "json": ".json",
}


def render_json(document: Mapping[str, Any]) -> str:
    """The export document itself, checked, as indented JSON."""
    return collect(lambda out: write_json(document, out))


def write_json(document: Mapping[str, Any], out: TextSink) -> None:
    """:func:`render_json`, written to ``out`` a file and a finding at a time."""
    load_document(document)
    jsontext.write(document, 2, out)


_WRITERS: dict[str, Callable[[Mapping[str, Any], TextSink], None]] = {
    "markdown": write_markdown,
    "sarif": write_sarif,
    "rdjson": write_rdjson,
    "github": write_github,
    "json": write_json,
}


def normalize_format(fmt: str) -> str:
    """``fmt`` as one of :data:`FORMATS` (case and surrounding spaces ignored)."""
    value = fmt.strip().lower() if isinstance(fmt, str) else None
    if value not in FORMATS:
        raise InvalidArgument(
            f"Unknown export format {fmt!r}: valid formats are {', '.join(FORMATS)}.",
            suggestion="Use 'markdown' for a pull request or chat, 'html' for a page to read, "
            "'sarif' or 'rdjson' for code scanning and reviewdog, 'github' for a pull request "
            "review, 'json' for the complete record.",
        )
    return value


def render(
    document: Mapping[str, Any],
    format: str,
    diffs: Mapping[str, str] | None = None,
    *,
    diff_text: str = "all",
) -> str:
    """The review ``document`` rendered as ``format`` (one of :data:`FORMATS`).

    ``diffs`` (path -> that file's raw diff text) and ``diff_text`` (``all``, or
    ``findings``: only the diffs of files with findings) are used by ``html`` only.
    Raises :class:`~diffchunk.errors.InvalidArgument` for an unknown format and
    :class:`~diffchunk.errors.ExportDocumentError` for a document that is not a
    review export of a version this diffchunk reads.
    """
    return collect(lambda out: render_to(document, format, out, diffs, diff_text=diff_text))


def render_to(
    document: Mapping[str, Any],
    format: str,
    out: TextSink,
    diffs: Mapping[str, str] | None = None,
    *,
    diff_text: str = "all",
) -> None:
    """:func:`render`, written to ``out`` as it is made (flush ``out`` after)."""
    fmt = normalize_format(format)
    if fmt == "html":
        write_html(document, out, diffs, diff_text=diff_text)
    else:
        _WRITERS[fmt](document, out)
