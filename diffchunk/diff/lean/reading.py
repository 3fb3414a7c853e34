"""A chunk's text read for the lean view: sections, hunks, and the change blocks of hunks.

The lean renderer needs, for every two-way hunk, its lines by kind and side
numbers, grouped as the reader sees them: runs of context lines and *change
blocks* (the lines between two context runs).  Everything is read from one
:class:`~diffchunk.diff.model.ParsedDiff` of the chunk's raw bytes; a line is
a :class:`Line` holding its bytes (``\\n`` included) and its text.

Sections that are not read this way stay whole (:class:`Verbatim`): text
between files (commit messages, trailers), malformed file sections, and
files with a combined diff's hunks (:class:`PlainFile`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from diffchunk.diff.buffer import DiffData
from diffchunk.diff.model import DiffKind, FileDiff, ParsedDiff, Segment, SegmentKind

from .summaries import shown_path

__all__ = [
    "Block",
    "FileItem",
    "HunkItem",
    "Item",
    "Line",
    "PlainFile",
    "Verbatim",
    "change_blocks",
    "read_items",
    "split_lines",
]


@dataclass(slots=True)
class Line:
    """One line of a hunk: its kind (``" "``, ``"+"``, ``"-"`` or ``"\\\\"``), bytes and text."""

    kind: str
    raw: bytes  # the line as in the chunk, its "\n" included (none on a last unterminated line)
    text: str  # the line decoded (U+FFFD for bytes that are not UTF-8), without its "\n"
    old: int  # old-side number of the line (of the next old line, for an added line)
    new: int  # new-side number of the line (of the next new line, for a removed line)
    _key: str | None = field(default=None, repr=False, compare=False)

    @property
    def key(self) -> str:
        """The text a moved line is matched by: :attr:`content` without the whitespace
        around it (kept once made: a diff's lines are matched against many views)."""
        if self._key is None:
            self._key = self.content.strip()
        return self._key

    @property
    def exact(self) -> bool:
        """Whether ``text`` plus a newline gives ``raw`` back exactly."""
        return (self.text + "\n").encode("utf-8") == self.raw

    @property
    def content(self) -> str:
        """The text after the kind column, a CR ending a CRLF line left out."""
        body = self.text[1:]
        return body[:-1] if body.endswith("\r") else body


@dataclass(slots=True)
class Block:
    """A change block: the lines of a hunk between two runs of context lines."""

    lines: list[Line]
    file: FileItem
    hunk: HunkItem
    ordered: bool = True  # removed lines first, then added ones, and no "\" line
    # Kept once made (a block is made whole and never changed): a diff's blocks are
    # partners of many views (:class:`~.partners.Partners`).
    _removed: list[Line] | None = field(default=None, repr=False, compare=False)
    _added: list[Line] | None = field(default=None, repr=False, compare=False)
    _removed_at: dict[str, list[int]] | None = field(default=None, repr=False, compare=False)

    @property
    def removed(self) -> list[Line]:
        if self._removed is None:
            self._removed = [ln for ln in self.lines if ln.kind == "-"]
        return self._removed

    @property
    def added(self) -> list[Line]:
        if self._added is None:
            self._added = [ln for ln in self.lines if ln.kind == "+"]
        return self._added

    def removed_at(self, most: int) -> dict[str, list[int]]:
        """Where each text (:attr:`Line.key`) is among the removed lines: their indexes,
        the first ``most`` of them (``most`` is the same for every call)."""
        if self._removed_at is None:
            at: dict[str, list[int]] = {}
            for i, line in enumerate(self.removed):
                if line.key:
                    places = at.setdefault(line.key, [])
                    if len(places) < most:
                        places.append(i)
            self._removed_at = at
        return self._removed_at

    @property
    def raw(self) -> bytes:
        return b"".join(ln.raw for ln in self.lines)


@dataclass(slots=True)
class HunkItem:
    """A two-way hunk: its ``@@`` line and a body of context runs and change blocks."""

    header: bytes  # the "@@ ... @@ section" line, its "\n" included
    section: str  # the function context after the closing "@@"
    body: list[list[Line] | Block] = field(default_factory=list)  # context runs (lists), blocks


@dataclass(slots=True)
class FileItem:
    """A file section read hunk by hunk (or a header with a binary payload, or nothing)."""

    fd: FileDiff
    header: bytes  # header lines, up to the first hunk or the binary payload
    hunks: list[HunkItem] = field(default_factory=list)
    payload: bytes = b""  # a ``GIT binary patch`` and what follows it in the section

    @property
    def path(self) -> str:
        return self.fd.path


@dataclass(slots=True)
class PlainFile:
    """A file section whose hunks are shown as they are (a combined diff's)."""

    fd: FileDiff
    header: bytes
    hunks: list[tuple[bytes, str, int, list[Line]]]  # (@@@ line, section, new start, lines)


@dataclass(slots=True)
class Verbatim:
    """Bytes shown line by line as they are: a commit's header and message, other text
    between files, or a malformed file section."""

    raw: bytes
    kind: str  # "commit", "text", "malformed" or "file" (a malformed file section)
    note: str = ""  # the commit's sha, or why it is malformed, or the file's path


Item = FileItem | PlainFile | Verbatim


def split_lines(raw: bytes) -> list[bytes]:
    """The lines of ``raw``, each with its ``\\n`` (the last may have none)."""
    lines = raw.split(b"\n")
    last = lines.pop()
    out = [line + b"\n" for line in lines]
    if last:
        out.append(last)
    return out


def _decode(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace")
    return text[:-1] if text.endswith("\n") else text


def read_items(parsed: ParsedDiff) -> list[Item]:
    """The sections of ``parsed`` as items, in order (their raw bytes tile the input)."""
    items: list[Item] = []
    data = parsed.data
    for section in parsed.sections():
        if isinstance(section, Segment):
            raw = bytes(data[section.start : section.end])
            if raw:
                items.append(_segment(parsed, section, raw))
        elif section.malformed:
            note = f"{shown_path(section.path)}: {section.malformed}"
            items.append(Verbatim(bytes(parsed.raw(section)), "file", note))
        elif section.kind is DiffKind.COMBINED:
            items.append(_plain_file(data, section))
        else:
            items.append(_file(data, section))
    return items


def change_blocks(items: Sequence[Item], skip: Collection[str] = ()) -> list[Block]:
    """The change blocks of ``items``' two-way files, in order (those of the paths in
    ``skip`` left out)."""
    return [
        part
        for item in items
        if isinstance(item, FileItem) and item.path not in skip
        for hunk in item.hunks
        for part in hunk.body
        if isinstance(part, Block)
    ]


def _segment(parsed: ParsedDiff, seg: Segment, raw: bytes) -> Verbatim:
    if seg.kind is SegmentKind.COMMIT:
        sha = ""
        if seg.commit is not None and 0 <= seg.commit < len(parsed.commits):
            sha = parsed.commits[seg.commit].sha or ""
        return Verbatim(raw, "commit", sha)
    if seg.kind is SegmentKind.MALFORMED:
        return Verbatim(raw, "malformed", seg.note or "")
    return Verbatim(raw, "text")


def _hunk_spans(data: DiffData, fd: FileDiff) -> list[tuple[int, int, int, str]]:
    """``(start, body start, end, section)`` of each hunk of ``fd``."""
    return [(h.start, h.body_start, h.end, h.section) for h in fd.hunks]


def _file(data: DiffData, fd: FileDiff) -> FileItem:
    spans = _hunk_spans(data, fd)
    head_end = spans[0][0] if spans else fd.header_end
    item = FileItem(fd, bytes(data[fd.start : head_end]))
    if not spans:
        item.header = bytes(data[fd.start : fd.header_end])
        item.payload = bytes(data[fd.header_end : fd.end])
        return item
    hunks = list(fd.hunks)
    for (start, body_start, end, section), hunk in zip(spans, hunks, strict=True):
        lines = split_lines(bytes(data[body_start:end]))
        item.hunks.append(
            _hunk(
                item, bytes(data[start:body_start]), section, lines, hunk.old_start, hunk.new_start
            )
        )
    last_end = spans[-1][2]
    if last_end < fd.end:  # bytes after the last hunk (none in a section the parser read)
        item.payload = bytes(data[last_end : fd.end])
    return item


def _hunk(
    item: FileItem, header: bytes, section: str, raws: list[bytes], old: int, new: int
) -> HunkItem:
    """Read a two-way hunk body into context runs and change blocks."""
    hunk = HunkItem(header, section)
    # A side with no lines names the line before the change: the next one is one on.
    if hunk_starts_empty(header, old_side=True):
        old += 1
    if hunk_starts_empty(header, old_side=False):
        new += 1
    context: list[Line] = []
    block: list[Line] = []
    for raw in raws:
        kind = chr(raw[0]) if raw[:1] in (b"+", b"-", b"\\", b" ") else " "
        line = Line(kind, raw, _decode(raw), old, new)
        if kind == " ":
            if block:
                hunk.body.append(_block(block, item, hunk))
                block = []
            context.append(line)
            old += 1
            new += 1
            continue
        if kind == "\\" and not block:
            context.append(line)  # after a context line: part of the context
            continue
        if context:
            hunk.body.append(context)
            context = []
        block.append(line)
        if kind == "+":
            new += 1
        elif kind == "-":
            old += 1
    if block:
        hunk.body.append(_block(block, item, hunk))
    if context:
        hunk.body.append(context)
    return hunk


def hunk_starts_empty(header: bytes, *, old_side: bool) -> bool:
    """Whether one side of a ``@@`` header has no lines (``-0,0`` or ``+12,0``): its start
    then names the line *before* the change."""
    try:
        ranges = header.split(b"@@")[1].split()
        part = ranges[0] if old_side else ranges[1]
    except IndexError:
        return False
    return part.endswith(b",0")


def _block(lines: list[Line], item: FileItem, hunk: HunkItem) -> Block:
    kinds = "".join(ln.kind for ln in lines)
    ordered = "\\" not in kinds and "+-" not in kinds
    return Block(lines, item, hunk, ordered)


def _plain_file(data: DiffData, fd: FileDiff) -> PlainFile:
    hunks = list(fd.hunks)
    head_end = hunks[0].start if hunks else fd.end
    out: list[tuple[bytes, str, int, list[Line]]] = []
    for i, h in enumerate(hunks):
        # the last hunk takes whatever follows it in the section (nothing, when read)
        end = fd.end if i == len(hunks) - 1 else h.end
        lines = [
            Line(chr(raw[0]), raw, _decode(raw), 0, 0)
            for raw in split_lines(bytes(data[h.body_start : end]))
        ]
        out.append((bytes(data[h.start : h.body_start]), h.section, h.new_start, lines))
    return PlainFile(fd, bytes(data[fd.start : head_end]), out)
