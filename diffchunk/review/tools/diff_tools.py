"""The diff tools as plain functions: the MCP server and the CLI both call these.

Every function takes the diff file's absolute path and loads it on first use
(default options), so a caller never has to call :func:`load_diff` first.
Results are typed (:mod:`diffchunk.review.results`; the shells call
``to_dict()``) or text; failures raise :class:`~diffchunk.errors.DiffchunkError`
subclasses whose message says what to do next.

The tools live in one module each: :mod:`~diffchunk.review.sessions.loading`
(``load_diff``), :mod:`~diffchunk.review.tools.listing` (``list_chunks``),
:mod:`~diffchunk.review.tools.chunk_text` (``get_chunk``) and
:mod:`~diffchunk.review.tools.file_diffs` (``find_chunks_for_files``,
``get_file_diff``); this module gathers them.
"""

from __future__ import annotations

from typing import Any

from ..results import CurrentOverview, LoadedDiff
from ..sessions.loading import load_diff, store_of
from ..sessions.loading import session as loaded_session
from ..sessions.store import Session, SessionStore
from . import chunk_text, file_diffs
from .chunk_text import get_chunk_bytes
from .file_diffs import (
    ChunkFiles,
    FileDiffText,
    FoundChunks,
    file_diff_text,
    find_chunks_for_files,
    find_chunks_page,
    find_chunks_with_files,
    get_file_diff_bytes,
)
from .listing import CHARS_PER_TOKEN, PAGE_TOKENS, RESPONSE_TOKENS, list_chunks, list_excluded

__all__ = [
    "CHARS_PER_TOKEN",
    "PAGE_TOKENS",
    "RESPONSE_TOKENS",
    "ChunkFiles",
    "FileDiffText",
    "FoundChunks",
    "file_diff_text",
    "find_chunks_for_files",
    "find_chunks_page",
    "find_chunks_with_files",
    "get_chunk",
    "get_chunk_bytes",
    "get_current_overview",
    "get_file_diff",
    "get_file_diff_bytes",
    "list_chunks",
    "list_excluded",
    "load_diff",
    "loaded_session",
]


def get_chunk(
    absolute_file_path: str,
    chunk_number: int,
    include_context: bool = True,
    format: str = "raw",
    part: int | None = None,
    *,
    store: SessionStore | None = None,
    bounded: bool = True,
) -> str:
    """One chunk's text (:func:`diffchunk.review.tools.chunk_text.get_chunk`); the review
    record notes its files as seen."""
    text = chunk_text.get_chunk(
        absolute_file_path,
        chunk_number,
        include_context,
        format,
        part,
        store=store,
        bounded=bounded,
    )
    _record_seen(absolute_file_path, store, chunk_number=chunk_number)
    return text


def get_file_diff(
    absolute_file_path: str,
    file_path: str,
    format: str = "raw",
    *,
    store: SessionStore | None = None,
    context: str = "hunks",
) -> str:
    """One file's whole diff (:func:`diffchunk.review.tools.file_diffs.get_file_diff`; with
    ``context="symbol"`` each hunk widened to the definition around it); the review
    record notes the file as seen."""
    text, shown = file_diffs.get_files_diff(
        absolute_file_path, file_path, format, store=store, context=context
    )
    for path in shown:
        _record_seen(absolute_file_path, store, file_path=path)
    return text


def _record_seen(
    absolute_file_path: str,
    store: SessionStore | None,
    *,
    chunk_number: int | None = None,
    file_path: str | None = None,
) -> None:
    """Record as seen what a tool just returned, in the session it just read (a lookup
    without the checks the tool has made)."""
    loaded = store_of(store).peek(absolute_file_path)
    if loaded is not None:
        record_seen(loaded, chunk_number=chunk_number, file_path=file_path)


def record_seen(session: Session, **shown: Any) -> None:
    """:func:`diffchunk.review.record.side_writes.record_seen` (imported on first use: a
    command that serves no chunk does not load the record and SQLite)."""
    from ..record.side_writes import record_seen as record

    record(session, **shown)


def get_current_overview(*, store: SessionStore | None = None) -> CurrentOverview:
    """Every loaded diff with its counts and load options."""
    loaded = []
    for session in store_of(store).sessions():
        review = session.review
        stats = review.stats
        loaded.append(
            LoadedDiff(
                file_path=session.handle,
                chunks=stats.chunks_count,
                files=stats.total_files,
                total_lines=stats.total_lines,
                files_excluded=stats.files_excluded,
                total_token_count=sum(c.token_count for c in review.chunks),
                options=review.options,
                view_of=session.path if session.view is not None else None,
            )
        )
    return CurrentOverview(tuple(loaded))
