"""Display formats of a chunk's text: ``raw``, ``annotated``, ``compact`` and ``lean``.

Formats are applied when a chunk is shown; the stored text stays the raw diff.

``annotated`` writes, per file, a ``## File: 'path'`` line (with what
happened to the file: new, deleted, renamed, copied, mode, binary), then per
hunk the function context as ``@@ context @@``, a ``__new hunk__`` section of
context and added lines numbered as in the new file, and an ``__old hunk__``
section of context and removed lines when the hunk removes anything.
``compact`` keeps only the numbered new side of each hunk, with the number of
removed lines on its ``__new hunk__`` line.  Commit headers and messages in
the chunk are kept, once, before their files.  ``lean`` is every changed
line for the fewest characters, expandable back to ``raw`` (see
:mod:`diffchunk.diff.lean`).
"""

from __future__ import annotations

from diffchunk.diff.buffer import DiffData
from diffchunk.diff.model import FileDiff, FileStatus, Hunk, ParsedDiff, Segment, mode_change
from diffchunk.diff.options import FORMATS
from diffchunk.diff.parser import parse_diff
from diffchunk.errors import InvalidArgument, NotADiffError

__all__ = ["FORMATS", "format_chunk", "normalize_format"]


def normalize_format(mode: str) -> str:
    """``mode`` as one of :data:`FORMATS` (case and surrounding spaces ignored)."""
    value = mode.strip().lower() if isinstance(mode, str) else None
    if value not in FORMATS:
        raise InvalidArgument(
            f"Unknown format {mode!r}: valid formats are {', '.join(FORMATS)}.",
            suggestion="Use 'raw' for the diff text as is, 'annotated' for line numbers "
            "and old/new sections, 'compact' for the new side only, or 'lean' for every "
            "change in the fewest tokens.",
        )
    return value


def format_chunk(raw: bytes, mode: str, look_ahead: frozenset[int] = frozenset()) -> str:
    """The chunk text ``raw`` shown in ``mode`` (one of :data:`FORMATS`).

    ``look_ahead``: offsets in ``raw`` of lines a cut hunk borrowed as
    trailing context (``chunker.look_ahead_lines``): they get no new-file
    line number, since a later part may still change or remove them.
    """
    fmt = normalize_format(mode)
    if fmt == "lean":
        from diffchunk.diff.lean import render_lean  # on first use: most calls are raw

        return render_lean(raw).text
    text = raw.decode("utf-8", errors="replace")
    if fmt == "raw" or not raw.strip():
        return text
    try:
        parsed = parse_diff(raw)
    except NotADiffError:
        return text  # nothing to annotate: show it as it is
    out: list[str] = []
    for section in parsed.sections():
        if isinstance(section, Segment):
            _segment(parsed, section, out)
        else:
            _file(parsed, section, out, compact=fmt == "compact", look_ahead=look_ahead)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def _decode(data: DiffData) -> str:
    return data.decode("utf-8", errors="replace")


def _segment(parsed: ParsedDiff, seg: Segment, out: list[str]) -> None:
    text = _decode(parsed.raw(seg)).rstrip("\n")
    if text.strip():
        out.append(text)
        out.append("")


def _file_notes(fd: FileDiff) -> list[str]:
    notes: list[str] = []
    if fd.status is FileStatus.ADDED:
        notes.append("new file" + (f", mode {fd.new_mode}" if fd.new_mode else ""))
    elif fd.status is FileStatus.DELETED:
        notes.append("deleted")
    elif fd.status in (FileStatus.RENAMED, FileStatus.COPIED):
        verb = "renamed" if fd.status is FileStatus.RENAMED else "copied"
        note = f"{verb} from '{fd.old_path}'"
        if fd.similarity is not None:
            note += f", {fd.similarity}% similar"
        notes.append(note)
    modes = mode_change(fd)
    if modes is not None:
        notes.append(f"mode {modes[0]} -> {modes[1]}")
    if fd.is_submodule:
        notes.append("submodule")
    if fd.is_binary:
        notes.append("binary")
    if fd.malformed:
        notes.append(f"malformed: {fd.malformed}")
    return notes


def _file(
    parsed: ParsedDiff,
    fd: FileDiff,
    out: list[str],
    *,
    compact: bool,
    look_ahead: frozenset[int] = frozenset(),
) -> None:
    notes = _file_notes(fd)
    title = f"## File: '{fd.path}'"
    out.append(f"{title} ({'; '.join(notes)})" if notes else title)
    if fd.is_binary:
        out.append("[binary content not shown]")
    elif not fd.hunks:
        out.append("[no content changes]")
    for hunk in fd.hunks:
        out.append("")
        _hunk(parsed, hunk, out, compact=compact, look_ahead=look_ahead)
    out.append("")


def _hunk_lines(parsed: ParsedDiff, hunk: Hunk) -> list[tuple[int, str]]:
    """``(offset, text)`` of each line of the hunk's body."""
    body = parsed.data[hunk.body_start : hunk.end]
    raw_lines = body.split(b"\n")
    if body.endswith(b"\n"):
        raw_lines.pop()
    out = []
    at = hunk.body_start
    for raw in raw_lines:
        out.append((at, _decode(raw)))
        at += len(raw) + 1
    return out


_LOOK_AHEAD_NOTE = "(~ the file's next line, shown as context: a later part changes it)"


def _hunk(
    parsed: ParsedDiff,
    hunk: Hunk,
    out: list[str],
    *,
    compact: bool,
    look_ahead: frozenset[int] = frozenset(),
) -> None:
    width = max(1, len(hunk.parents))  # tag columns: one, or one per parent (combined)
    numbered = _hunk_lines(parsed, hunk)
    lines = [text for _, text in numbered]
    if hunk.section:
        out.append(f"@@ {hunk.section} @@")
    label = "__new hunk__"
    if compact and hunk.removed:
        label += f" ({hunk.removed} removed line{'s' if hunk.removed != 1 else ''})"
    out.append(label)
    number = hunk.new_start
    on_new = False  # whether the previous diff line is on the new side
    borrowed = False
    for at, line in numbered:
        if line.startswith("\\"):
            if on_new:
                out.append(line)
            continue
        tags = line[:width]
        on_new = "-" not in tags
        if on_new and at in look_ahead:
            out.append(f"~ {line}")
            borrowed = True
        elif on_new:
            out.append(f"{number} {line}")
            number += 1
    if borrowed:
        out.append(_LOOK_AHEAD_NOTE)
    if compact or not hunk.removed:
        return
    out.append("__old hunk__")
    on_old = False
    for line in lines:
        if line.startswith("\\"):
            if on_old:
                out.append(line)
            continue
        tags = line[:width]
        on_old = "-" in tags or not tags.strip()
        if on_old:
            out.append(line)
