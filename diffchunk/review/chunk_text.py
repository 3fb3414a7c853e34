"""``get_chunk``: one chunk's text, in the format asked for, with a short banner.

The text of a chunk is a valid patch on its own (``raw``), or a view of it
(:mod:`diffchunk.diff.formatter`).  A chunk too large for one response (a
single oversized line or unit) is shortened line by line and then cut at a
line boundary, and the banner says so and how to get the whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..diff.formatter import format_chunk, normalize_format
from ..diff.model import Chunk
from ..diff.pipeline import Review
from ..errors import ChunkNotFound
from .listing import CHARS_PER_TOKEN, RESPONSE_TOKENS
from .loading import session, store_of
from .sessions import Session, SessionStore
from .views import describe, other_views

# Lines longer than this are shortened in get_chunk output of an oversized chunk.
LONG_LINE_CHARS = 2_000
# How many file names a banner lists.
BANNER_FILES = 20


def get_chunk_bytes(
    absolute_file_path: str, chunk_number: int, *, store: SessionStore | None = None
) -> bytes:
    """The exact text of one chunk (a valid patch on its own)."""
    loaded = session(absolute_file_path, store)
    with which_view(loaded, store):
        return loaded.review.chunk_bytes(chunk_number)


@contextmanager
def which_view(loaded: Session, store: SessionStore | None) -> Iterator[None]:
    """A chunk number this view lacks is explained: the view read (the diff's own
    default view, or a view handle and its options) and the other views of the diff
    loaded here, so the caller can go back to one without loading anything."""
    try:
        yield
    except ChunkNotFound as exc:
        if loaded.view is None and len(store_of(store).sessions()) < 2:
            raise
        others = [
            (s.handle, s.options, len(s.review.chunks))
            for s in store_of(store).sessions()
            if s.path == loaded.path
        ]
        if loaded.view is not None:
            read = f"the view {loaded.view} of {loaded.path} ({describe(loaded.options)})"
            back = f"The diff's own path {loaded.path} serves its default view"
        else:
            read = f"{loaded.path} with {describe(loaded.options)}"
            back = ""
        listed = other_views(others, loaded.handle)
        if listed:
            more = f"Other views of this diff loaded here: {listed}."
            back = f"{back}; {more}" if back else more
        elif back:
            back += "."
        suggestion = " ".join(part for part in (exc.suggestion, back) if part)
        raise ChunkNotFound(f"{exc.message} (read from {read})", suggestion=suggestion) from None


def _shorten_long_lines(text: str, limit: int) -> tuple[str, int]:
    out: list[str] = []
    shortened = 0
    for line in text.splitlines(keepends=True):
        if len(line) > limit:
            shortened += 1
            body = line.rstrip("\r\n")
            ending = line[len(body) :]
            line = f"{body[:limit]} … [{len(body) - limit} more characters]{ending}"
        out.append(line)
    return "".join(out), shortened


def _chunk_banner(review: Review, chunk: Chunk, fmt: str) -> list[str]:
    files = chunk.files
    shown = ", ".join(files[:BANNER_FILES])
    if len(files) > BANNER_FILES:
        shown += f" (+{len(files) - BANNER_FILES} more)"
    lines = [
        f"=== Chunk {chunk.number} of {len(review.chunks)} ===",
        f"Files: {shown}",
    ]
    if chunk.parent_file is not None:
        part = next((p for p in chunk.parts if p.path == chunk.parent_file), None)
        of = f" of {part.parts}" if part is not None and part.parts else ""
        lines.append(f"Part {chunk.sub_chunk_index}{of} of {chunk.parent_file} (split file)")
    lines.append(f"Lines: {chunk.line_count} | Tokens: ~{chunk.token_count} | Format: {fmt}")
    return lines


def get_chunk(
    absolute_file_path: str,
    chunk_number: int,
    include_context: bool = True,
    format: str = "raw",
    *,
    store: SessionStore | None = None,
) -> str:
    """One chunk's diff text, optionally formatted and with a short banner."""
    fmt = normalize_format(format)
    loaded = session(absolute_file_path, store)
    review = loaded.review
    with which_view(loaded, store):
        chunk = review.chunk(chunk_number)
    raw = review.chunk_bytes(chunk_number)
    text = format_chunk(raw, fmt, review.look_ahead(chunk_number))
    if not include_context:
        return text
    banner = _chunk_banner(review, chunk, fmt)
    if fmt == "raw" and not _is_utf8(raw):
        banner.append(
            "Note: this chunk holds text that is not UTF-8 (shown with U+FFFD in its place), "
            "so this text is not the exact patch; `diffchunk review --chunk "
            f"{chunk_number} {absolute_file_path}` writes the exact bytes."
        )
    if len(text) > RESPONSE_TOKENS * CHARS_PER_TOKEN:
        # An oversized chunk (one unit too big to cut), or a format that
        # adds to the text (annotated shows context lines twice).
        text, shortened = _shorten_long_lines(text, LONG_LINE_CHARS)
        if shortened:
            banner.append(
                f"Note: {shortened} very long line(s) shortened to {LONG_LINE_CHARS} characters; "
                "use include_context=false (or the CLI's --chunk) for the exact text."
            )
        text, left_out = fit_response(text)
        if left_out:
            banner.append(
                f"Note: cut after {text.count(chr(10))} lines to fit one response; {left_out} "
                "more line(s) follow. include_context=false (or the CLI's --chunk) returns "
                "the whole chunk; a smaller max_chunk_lines makes chunks that fit."
            )
    return "\n".join(banner) + "\n\n" + text


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def fit_response(text: str) -> tuple[str, int]:
    """``text`` up to its last line that fits one response, and how many lines are left out."""
    limit = RESPONSE_TOKENS * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text, 0
    cut = text.rfind("\n", 0, limit) + 1 or limit
    rest = text[cut:]
    return text[:cut], rest.count("\n") + (not rest.endswith("\n"))
