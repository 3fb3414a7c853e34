"""A finding's long texts as a tool's answer shows them: a head, a tail, and what was cut.

The record keeps a finding's texts whole (``lines``, the text it points at,
may be a whole new file; ``suggestion`` up to 200,000 characters) and the
exports carry them whole.  An answer (``add_finding``, ``list_findings``,
``update_finding``, and the CLI's twins) shows a text longer than
:data:`HEAD_LINES` + :data:`TAIL_LINES` lines or :data:`MAX_CHARS` characters
as its first lines, a marker line saying how much there is, and its last
lines, with a ``*_cut`` count beside it (:class:`Cut`): an answer stays
bounded whatever was written.
"""

from __future__ import annotations

from dataclasses import dataclass

HEAD_LINES = 20
"""First lines of a finding's long lines or suggestion shown in an answer: enough
to check that it points where it was meant to."""

TAIL_LINES = 5
"""Last lines shown with CLIP_HEAD_LINES: where the finding's lines end."""

MAX_CHARS = 4_000
"""Characters of a clipped text in an answer: a finding of 100,000 lines answered
1.19 MB before clipping; a page holds about twenty clipped findings."""

_HEAD_CHARS = 3_000
"""Of CLIP_MAX_CHARS, the characters for the head; the rest for the tail."""


@dataclass(frozen=True, slots=True)
class Cut:
    """How long a text shown cut is, in all."""

    lines: int
    characters: int

    def to_dict(self) -> dict[str, int]:
        return {"lines": self.lines, "characters": self.characters}


def clip(text: str | None, max_chars: int = MAX_CHARS) -> tuple[str | None, Cut | None]:
    """``text`` as an answer shows it, and what was cut (None: shown whole)."""
    if text is None or (len(text) <= max_chars and text.count("\n") <= HEAD_LINES + TAIL_LINES):
        return text, None
    lines = text.splitlines(keepends=True)
    head_chars = max_chars * _HEAD_CHARS // MAX_CHARS
    head = "".join(lines[:HEAD_LINES])[:head_chars]
    tail_lines = lines[max(HEAD_LINES, len(lines) - TAIL_LINES) :]
    tail = "".join(tail_lines)[-(max_chars - head_chars) :] if tail_lines else ""
    if head and not head.endswith("\n"):
        head += "\n"
    marker = (
        f"[… {len(lines):,} lines, {len(text):,} characters in all: the record keeps them "
        "whole, export_review shows them …]\n"
    )
    return head + marker + tail, Cut(len(lines), len(text))
