"""``get_chunk``: one chunk's text, in the format asked for, with a short banner.

The text of a chunk is a valid patch on its own (``raw``), or a view of it
(:mod:`diffchunk.diff.formatter`).  The banner's token figure is that of the
text that follows it.  A chunk too large for one response (a single
oversized line or unit) comes in parts when raw (:mod:`..answers`);
in another format it is shortened line by line and then cut at a line
boundary, and the banner says so and how to get the whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ...diff.formatter import format_chunk, normalize_format
from ...diff.model import Chunk
from ...diff.pipeline import Review
from ...errors import ChunkNotFound, InvalidArgument
from ..answers import CHARS_PER_TOKEN, RESPONSE_TOKENS, part_spans, shortened
from ..sessions.loading import session, store_of
from ..sessions.store import Session, SessionStore
from ..sessions.views import describe, other_views
from .lean_partners import partners

BANNER_FILES = 20
"""File names the banner of a chunk lists (the rest are counted): a chunk of
many small files would otherwise open with a page of names."""


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
        cli_suggestion = " ".join(
            part for part in (exc.cli_suggestion or exc.suggestion, back) if part
        )
        raise ChunkNotFound(
            f"{exc.message} (read from {read})",
            suggestion=suggestion,
            cli_suggestion=cli_suggestion,
        ) from None


def _chunk_banner(review: Review, chunk: Chunk, fmt: str, text: str) -> list[str]:
    files = chunk.files
    shown = ", ".join(files[:BANNER_FILES])
    if len(files) > BANNER_FILES:
        shown += f" (+{len(files) - BANNER_FILES} more)"
    tokens = len(text) // CHARS_PER_TOKEN
    if fmt == "lean":  # its "##" lines name the files
        lines = [
            f"=== Chunk {chunk.number} of {len(review.chunks)} | lean | ~{tokens:,} tokens "
            f"(raw ~{chunk.token_count:,}) ==="
        ]
    else:
        lines = [f"=== Chunk {chunk.number} of {len(review.chunks)} ===", f"Files: {shown}"]
    if chunk.parent_file is not None:
        part = next((p for p in chunk.parts if p.path == chunk.parent_file), None)
        of = f" of {part.parts}" if part is not None and part.parts else ""
        lines.append(f"Part {chunk.sub_chunk_index}{of} of {chunk.parent_file} (split file)")
    if fmt != "lean":
        lines.append(f"Lines: {chunk.line_count} | Tokens: ~{tokens} | Format: {fmt}")
    return lines


def _check_part(part: int | None, parts: int, fmt: str, chunk_number: int) -> int:
    """The 1-based part asked for (1 when none is), or InvalidArgument."""
    if part is None:
        return 1
    if isinstance(part, bool) or not isinstance(part, int) or not 1 <= part <= parts:
        if parts == 1:
            why = (
                "only the raw text of a chunk larger than one answer comes in parts"
                if fmt != "raw"
                else f"chunk {chunk_number} fits one answer"
            )
            raise InvalidArgument(
                f"part={part!r} does not exist: {why}.", suggestion="Leave part unset."
            )
        raise InvalidArgument(
            f"part={part!r} does not exist: chunk {chunk_number}'s raw text comes in {parts} "
            "parts.",
            suggestion=f"Pass a part between 1 and {parts}.",
        )
    return part


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
    """One chunk's diff text, optionally formatted and with a short banner.

    No answer holds more than about :data:`RESPONSE_TOKENS` tokens: a raw text
    larger than that comes in parts (``part``, 1-based) that concatenate to
    it exactly; the other formats are shortened and cut, and the banner says
    so.  ``bounded=False`` (the CLI, which writes to a terminal or a file)
    gives the whole text in one piece.
    """
    fmt = normalize_format(format)
    loaded = session(absolute_file_path, store)
    review = loaded.review
    with which_view(loaded, store):
        chunk = review.chunk(chunk_number)
    raw = review.chunk_bytes(chunk_number)
    spans = part_spans(raw) if fmt == "raw" and bounded else [(0, len(raw))]
    number = _check_part(part, len(spans), fmt, chunk_number)
    legend = ""
    if fmt == "raw":
        start, end = spans[number - 1]
        text = raw[start:end].decode("utf-8", errors="replace")
    elif fmt == "lean":
        from ...diff.lean import render_lean  # on first use: most calls are raw

        view = render_lean(raw, partners=partners(loaded))
        text, legend = view.text, view.legend()
    else:
        text = format_chunk(raw, fmt, review.look_ahead(chunk_number))
    if len(spans) > 1 and not include_context and part is None:
        raise InvalidArgument(
            f"Chunk {chunk_number}'s raw text is {len(raw):,} bytes (~{len(raw) // CHARS_PER_TOKEN:,}"
            f" tokens), more than one answer holds: it comes in {len(spans)} parts.",
            suggestion=f"Pass part=1 to {len(spans)} (the parts concatenate to the exact text), "
            'or format="lean", which cuts long lines and binary data.',
        )
    notes: list[str] = []
    if bounded and len(text) > RESPONSE_TOKENS * CHARS_PER_TOKEN:
        if not include_context:
            raise InvalidArgument(
                f"Chunk {chunk_number} in format {fmt!r} is {len(text):,} characters, more than "
                "one answer holds.",
                suggestion="Pass include_context=true for a shortened text that says what it "
                "leaves out, or format='raw' with part=1, 2... for the exact text.",
            )
        text, notes = shortened(text)
    if not include_context:
        return text
    banner = _chunk_banner(review, chunk, fmt, text)
    if legend:
        banner.append(legend)
    if len(spans) > 1:
        banner.append(_part_note(number, len(spans), len(raw)))
    if fmt == "raw" and not _is_utf8(raw):
        banner.append(
            "Note: this chunk holds text that is not UTF-8 (shown with U+FFFD in its place), "
            "so this text is not the exact patch; `diffchunk review --chunk "
            f"{chunk_number} {absolute_file_path}` writes the exact bytes."
        )
    return "\n".join(banner + notes) + "\n\n" + text


def _part_note(number: int, parts: int, size: int) -> str:
    after = f"part={number + 1} goes on" if number < parts else "this is the last part"
    return (
        f"Raw text part {number} of {parts} (the chunk is ~{size // CHARS_PER_TOKEN:,} tokens in "
        f'all; the parts concatenate to it exactly): {after}. format="lean" shows the whole '
        "chunk with long lines and binary data cut."
    )


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
