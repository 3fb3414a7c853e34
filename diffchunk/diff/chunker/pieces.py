"""Chunk text as pieces, and the budget a chunk is measured against.

A piece is a span ``(start, end)`` of the diff buffer or literal bytes (see
:data:`~diffchunk.diff.model.Piece`); a chunk's text is its pieces joined,
each piece that does not end in a newline getting one when text follows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from diffchunk.diff.buffer import DiffData
from diffchunk.diff.model import BYTES_PER_TOKEN, Piece
from diffchunk.errors import InvalidArgument

from ...limits import RESPONSE_TOKENS

TARGET_FRACTION = 0.8
"""The share of the budget a chunk aims at: the rest leaves room for a file
that does not quite fit, so most files are not cut (the spec: aim at 80%)."""

DEFAULT_MAX_TOKENS = RESPONSE_TOKENS
"""A chunk fits one tool answer: answers stay under about 20k tokens."""


__all__ = [
    "DEFAULT_MAX_TOKENS",
    "TARGET_FRACTION",
    "Budget",
    "piece_lines",
    "render_pieces",
    "span_lines",
    "text_size",
]


_NL = 0x0A  # the byte b'\n' (diff syntax, not a bound)


@dataclass(frozen=True, slots=True)
class Budget:
    max_lines: int
    max_bytes: int
    target_lines: int
    target_bytes: int

    @classmethod
    def of(cls, max_lines: int, max_tokens: int) -> Budget:
        if isinstance(max_lines, bool) or not isinstance(max_lines, int) or max_lines < 1:
            raise InvalidArgument(
                f"max_lines must be a positive integer, got {max_lines!r}.",
                suggestion="Pass a chunk size such as 1000 lines.",
            )
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise InvalidArgument(
                f"max_tokens must be a positive integer, got {max_tokens!r}.",
                suggestion="Pass a token budget such as 20000.",
            )
        max_bytes = max_tokens * BYTES_PER_TOKEN
        return cls(
            max_lines=max_lines,
            max_bytes=max_bytes,
            target_lines=max(1, int(max_lines * TARGET_FRACTION)),
            target_bytes=max(1, int(max_bytes * TARGET_FRACTION)),
        )


def span_lines(data: DiffData, start: int, end: int) -> int:
    """Lines in ``data[start:end]`` (an unterminated last line counts)."""
    if end <= start:
        return 0
    n = data.count(b"\n", start, end)
    if data[end - 1] != _NL:
        n += 1
    return n


def piece_lines(data: DiffData, piece: Piece) -> int:
    if isinstance(piece, bytes):
        n = piece.count(b"\n")
        return n + 1 if piece and piece[-1] != _NL else n
    return span_lines(data, piece[0], piece[1])


def render_pieces(
    data: DiffData, pieces: Sequence[Piece], starts: list[int] | None = None
) -> list[bytes]:
    """Bytes of ``pieces``; a piece not ending in a newline gets one when text follows.

    ``starts`` receives where each piece begins in the joined text.
    """
    out: list[bytes] = []
    last = len(pieces) - 1
    at = 0
    for k, piece in enumerate(pieces):
        text = piece if isinstance(piece, bytes) else data[piece[0] : piece[1]]
        if starts is not None:
            starts.append(at)
            at += len(text) + (k < last and bool(text) and text[-1] != _NL)
        out.append(text)
        if k < last and text and text[-1] != _NL:
            out.append(b"\n")
    return out


def text_size(data: DiffData, pieces: Sequence[Piece]) -> int:
    size = 0
    last = len(pieces) - 1
    for k, piece in enumerate(pieces):
        if isinstance(piece, bytes):
            size += len(piece)
            ends_nl = not piece or piece[-1] == _NL
        else:
            size += piece[1] - piece[0]
            ends_nl = piece[1] <= piece[0] or data[piece[1] - 1] == _NL
        if k < last and not ends_nl:
            size += 1
    return size
