"""Write the lean view of a chunk's raw text (the format is described in the package doc)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate

from diffchunk.diff.model import FileStatus
from diffchunk.diff.parser import parse_diff
from diffchunk.errors import NotADiffError

from . import markers as mk
from .blocks import BlockWriter, write_line
from .matching import find_moves, find_repeats
from .partners import Partners
from .reading import (
    Block,
    FileItem,
    HunkItem,
    Item,
    Line,
    PlainFile,
    Verbatim,
    change_blocks,
    read_items,
    split_lines,
)
from .summaries import (
    binary_summary,
    commit_head,
    definitions,
    file_head,
    names_text,
    section_text,
    section_within,
)
from .view import LeanView, ViewWriter

SHOWN_CONTEXT_CHARS = 12
"""An unchanged line between two changes of a hunk is shown (not folded) when
it is at most this long: a "⋯ N" line would cost about as much."""


__all__ = ["render_lean"]


_SIGNATURE = re.compile(rb"(?:\s*\n)*-- \r?\n[^\n]*\n?\s*\Z")
_HEADER_END = re.compile(rb"\n\r?\n")
_MESSAGE_END = re.compile(rb"^---\r?\n", re.MULTILINE)
_SUBJECT = re.compile(rb"^Subject: ?([^\n]*(?:\n[ \t][^\n]*)*)", re.M)
_FILES_CHANGED = re.compile(rb"\d+ files? changed")
_PATCH_TAG = re.compile(r"^\[[^\]]*PATCH[^\]]*\]\s*", re.I)


def render_lean(
    raw: bytes,
    *,
    keep_context: bool = False,
    context_spans: Sequence[tuple[int, int]] | None = None,
    partners: Partners | None = None,
) -> LeanView:
    """The lean view of ``raw`` (a chunk's text, a file's diff): see the package doc.

    ``keep_context``: the unchanged lines are shown, not folded, and a run of
    removed lines folds only when it starts with a definition (whole definitions
    removed): for a diff whose context is what the reader asked for (each hunk
    widened to the definitions around it), read once with its changes.
    ``context_spans``: with ``keep_context``, only the unchanged lines within these
    new-side spans (first, last) are kept, those of the definitions the hunks were
    widened to; git's context lines outside them are left out as lean leaves them.
    ``partners``: the whole diff (:class:`~.partners.Partners`), whose other files'
    blocks are looked in for lines moved to or from the view; they are not shown."""
    out = ViewWriter()
    if not raw:
        return out.finish()
    try:
        items: list[Item] = read_items(parse_diff(raw))
    except NotADiffError:
        items = [Verbatim(raw, "text")]
    blocks = change_blocks(items)
    shown = len(blocks)
    others = partners.around(blocks) if partners is not None else []
    moves = find_moves([*blocks, *others], shown)
    moved = {m.src for m in moves} | {m.dst for m in moves}
    writer = BlockWriter(
        out,
        [*blocks, *others],
        moves,
        find_repeats(blocks, moved),
        keep_context=keep_context,
        shown=shown,
    )
    number = {id(block): b for b, block in enumerate(blocks)}
    kept = _Kept(keep_context, context_spans)
    for item in items:
        if isinstance(item, FileItem):
            _file(out, item, writer, number, kept)
        elif isinstance(item, PlainFile):
            _plain_file(out, item)
        else:
            _verbatim(out, item)
    return out.finish()


def _deleted_whole(item: FileItem) -> bool:
    """A deleted file whose every line is removed (no payload): one line says it all."""
    return (
        item.fd.status is FileStatus.DELETED
        and bool(item.hunks)
        and not item.payload
        and all(
            isinstance(part, Block) and not part.added
            for hunk in item.hunks
            for part in hunk.body
            if isinstance(part, Block)
        )
    )


class _Kept:
    """Which unchanged lines a view shows: none (lean's own rule: only short runs
    between two changes), all of them, or those within some new-side spans."""

    def __init__(self, keep: bool, spans: Sequence[tuple[int, int]] | None) -> None:
        self.any = keep
        ordered = sorted(spans) if keep and spans is not None else None
        self._all = ordered is None
        self._firsts = [first for first, _ in ordered or ()]
        # the furthest end of the spans starting at or before each one (spans may nest)
        self._reach = list(accumulate((last for _, last in ordered or ()), max))

    def __call__(self, line: Line) -> bool:
        if not self.any:
            return False
        if self._all:
            return True
        at = bisect_right(self._firsts, line.new)
        return at > 0 and self._reach[at - 1] >= line.new


def _file(
    out: ViewWriter,
    item: FileItem,
    writer: BlockWriter,
    number: dict[int, int],
    kept: _Kept,
) -> None:
    fd = item.fd
    if _deleted_whole(item) and not writer.moved_any(number[id(b)] for b in _file_blocks(item)):
        removed = [line for hunk in item.hunks for part in _blocks(hunk) for line in part.removed]
        names = names_text(definitions((line.content for line in removed), fd.path))
        raw = item.header + b"".join(_hunk_raw(h) for h in item.hunks) + item.payload
        out.fold(mk.FILE + file_head(fd, 0, len(removed), names), raw, mk.REMOVED)
        return
    hunks = item.hunks
    # A new file's one hunk starts at line 1 with nothing before it: its "@@"
    # line says nothing the file's head does not.
    # Nor does a deleted file's, which starts at line 1 and leaves nothing after it.
    new_file = (
        fd.status in (FileStatus.ADDED, FileStatus.DELETED)
        and len(hunks) == 1
        and hunks[0].header.startswith(b"@@ -0,0 +1" if fd.status is FileStatus.ADDED else b"@@ -1")
        and all(isinstance(part, Block) for part in hunks[0].body)
    )
    header = item.header + (hunks[0].header if new_file else b"")
    out.fold(mk.FILE + file_head(fd, fd.added, fd.removed), header, mk.HEADERS)
    previous = None  # the section of the hunk before
    for hunk in hunks:
        parts = hunk.body
        if not new_file:
            lead = parts[0] if parts and isinstance(parts[0], list) else []
            if lead:
                parts = parts[1:]
            # the lead's lines from the first kept one on are shown, those before hidden
            cut = next((n for n, line in enumerate(lead) if kept(line)), len(lead))
            nearer = section_within([line.content for line in lead[:cut]], fd.path)
            section = section_text(hunk.section if nearer is None else nearer, fd.path)
            _hunk_head(out, hunk, lead[:cut], lead[cut:], section, section == previous)
            previous = section
            for line in lead[cut:]:
                write_line(out, line)
        for k, part in enumerate(parts):
            if isinstance(part, Block):
                writer.write(number[id(part)])
            elif k == len(parts) - 1:  # the trail: shown up to its last kept line
                end = max((n + 1 for n, line in enumerate(part) if kept(line)), default=0)
                for line in part[:end]:
                    write_line(out, line)
                out.hide(b"".join(ln.raw for ln in part[end:]), mk.CONTEXT)
            else:
                _interior(out, part, kept)
    if item.payload:
        _payload(out, item)


def _hunk_head(
    out: ViewWriter,
    hunk: HunkItem,
    hidden: list[Line],
    shown: list[Line],
    section: str,
    ditto: bool,
) -> None:
    """``@@ N section``: N is the new-side number of the hunk's first shown line (its
    first change, or the first of the unchanged lines ``shown`` before it; it stands
    for those ``hidden`` before them); a section that is the previous hunk's is a
    ditto mark."""
    start = next(
        (ln.new for part in hunk.body for ln in _lines(part) if ln.kind != " "),
        hidden[0].new if hidden else 1,
    )
    if shown:
        start = shown[0].new
    section = mk.DITTO if ditto and section else section
    text = mk.HUNK + str(start) + (f" {section}" if section else "")
    out.fold(text, hunk.header, mk.HEADERS, context=b"".join(ln.raw for ln in hidden))


def _file_blocks(item: FileItem) -> list[Block]:
    return [part for hunk in item.hunks for part in _blocks(hunk)]


def _blocks(hunk: HunkItem) -> list[Block]:
    return [part for part in hunk.body if isinstance(part, Block)]


def _lines(part: list[Line] | Block) -> list[Line]:
    return part if isinstance(part, list) else part.lines


def _hunk_raw(hunk: HunkItem) -> bytes:
    return hunk.header + b"".join(ln.raw for part in hunk.body for ln in _lines(part))


def _interior(out: ViewWriter, lines: list[Line], kept: _Kept) -> None:
    """Unchanged lines between two changes: the kept ones shown, each run of the others
    as :func:`_interior_context` writes it."""
    n = 0
    while n < len(lines):
        keep = kept(lines[n])
        end = n
        while end < len(lines) and kept(lines[end]) == keep:
            end += 1
        if keep:
            for line in lines[n:end]:
                write_line(out, line)
        else:
            _interior_context(out, lines[n:end])
        n = end


def _interior_context(out: ViewWriter, lines: list[Line]) -> None:
    """Unchanged lines between two changes: shown when shorter than their fold line."""
    raw = b"".join(ln.raw for ln in lines)
    fold = f"{mk.FOLD}{len(lines)}"
    if len(raw) <= len(fold) + 1 or sum(len(ln.text) for ln in lines) <= SHOWN_CONTEXT_CHARS:
        for line in lines:
            write_line(out, line)
        return
    out.fold(fold, raw, mk.CONTEXT)


def _payload(out: ViewWriter, item: FileItem) -> None:
    payload = item.payload
    if payload.lstrip().startswith(b"GIT binary patch"):
        text = f"{mk.FOLD}GIT binary patch of {len(payload):,} bytes left out: "
        text += binary_summary(payload, item.header)
        out.fold(text, payload, mk.BINARY)
        return
    for raw in split_lines(payload):
        write_line(out, _text_line(raw), mk.TEXT)


def _text_line(raw: bytes) -> Line:
    text = raw.decode("utf-8", errors="replace")
    return Line(" ", raw, text[:-1] if text.endswith("\n") else text, 0, 0)


def _plain_file(out: ViewWriter, item: PlainFile) -> None:
    fd = item.fd
    out.fold(mk.FILE + file_head(fd, fd.added, fd.removed, "merge"), item.header, mk.HEADERS)
    for header, section, start, lines in item.hunks:
        section = section_text(section, fd.path)
        out.fold(mk.HUNK + str(start) + (f" {section}" if section else ""), header, mk.HEADERS)
        for line in lines:
            write_line(out, line)


def _verbatim(out: ViewWriter, item: Verbatim) -> None:
    raw = item.raw
    if item.kind == "commit":
        _commit(out, item)
        return
    if item.kind == "text" and (not raw.strip() or _SIGNATURE.fullmatch(raw)):
        out.hide(raw, mk.COMMITS)  # blank lines, a mail signature: nothing to read
        return
    lines = split_lines(raw)
    what = {"text": "text outside the files", "malformed": "malformed", "file": "malformed file"}
    head = what.get(item.kind, item.kind) + (f": {item.note}" if item.note else "")
    out.fold(
        f"{mk.FILE}{head} ({len(lines)} line{'s' if len(lines) != 1 else ''})", b"", mk.COMMITS
    )
    for line in lines:
        write_line(out, _text_line(line), mk.TEXT)


def _commit(out: ViewWriter, item: Verbatim) -> None:
    """A commit: its header lines in one line, its message as it is, a mail's diffstat
    folded (the files' heads give their counts)."""
    raw = item.raw
    blank = _HEADER_END.search(raw)  # a mail saved with CRLF lines too
    head = raw if blank is None else raw[: blank.end()]
    rest = b"" if blank is None else raw[blank.end() :]
    subject = None
    stat = b""
    if raw.startswith(b"From "):
        m = _SUBJECT.search(head)
        if m is not None:
            text = b" ".join(part.strip() for part in m.group(1).split(b"\n"))
            subject = _PATCH_TAG.sub("", text.decode("utf-8", "replace"), count=1).strip()
        # git am reads the message up to the first "---" line
        separator = _MESSAGE_END.search(rest)
        if separator is not None:
            rest, stat = rest[: separator.start()], rest[separator.start() :]
    out.fold(mk.FILE + commit_head(head, item.note, subject), head, mk.COMMITS)
    lines = split_lines(rest)
    last = len(lines)
    while last and not lines[last - 1].strip():
        last -= 1
    for line in lines[:last]:
        write_line(out, _text_line(line), mk.TEXT)
    out.hide(b"".join(lines[last:]), mk.COMMITS)
    if stat:
        m = _FILES_CHANGED.search(stat)
        what = f"diffstat ({m.group(0).decode()})" if m else "diffstat"
        out.fold(f"{mk.FOLD}{what}", stat, mk.COMMITS)
