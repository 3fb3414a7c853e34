"""The properties every input must keep (:func:`check_input`).

A broken property raises :class:`PropertyFailure`; any other exception is a
bug found.  Every call is timed against :data:`TIME_LIMIT` (a hang or blow-up
guard; the atheris harness sets it for its instrumented process).
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from diffchunk.diff.buffer import DiffBuffer, map_file
from diffchunk.diff.chunker import chunk_files, render_chunk
from diffchunk.diff.context import reduce_context
from diffchunk.diff.filters import FilterResult, Prescreen, filter_files
from diffchunk.diff.formatter import FORMATS, format_chunk
from diffchunk.diff.gitattributes import GitattributesFile
from diffchunk.diff.lean import expand, render_lean
from diffchunk.diff.model import (
    Chunk,
    DiffKind,
    FileDiff,
    FileStatus,
    ParsedDiff,
    SegmentKind,
)
from diffchunk.diff.parser import StreamParser, parse_diff
from diffchunk.errors import InvalidArgument, NotADiffError
from tests.support.timing import Stopwatch

from .draws import Source, chance, pick
from .structural import Expected

TIME_LIMIT = 1.0  # seconds any single call may take: a hang/blow-up guard

T = TypeVar("T")


class PropertyFailure(AssertionError):
    """An input broke one of the properties."""


def require(ok: bool, message: str) -> None:
    if not ok:
        raise PropertyFailure(message)


def timed(name: str, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
    """``fn(*args, **kwargs)``, which must keep to :data:`TIME_LIMIT` (see
    ``tests/support/timing.py``: CPU time, and ten times that in wall-clock time)."""
    watch = Stopwatch()
    result = fn(*args, **kwargs)
    elapsed = watch.elapsed()
    require(elapsed.within(TIME_LIMIT), f"{name} took {elapsed}")
    return result


def check_lean(data: bytes) -> None:
    """The lean view of ``data`` expands back to ``data`` exactly."""
    view = timed("render_lean", render_lean, data)
    back = timed("expand", expand, view.text, view.originals)
    require(back == data, "the lean view does not expand back to its raw text")


def check_tiling(parsed: ParsedDiff, data: bytes) -> None:
    pos = 0
    for s in parsed.sections():
        require(s.start == pos, f"section {s!r} starts at {s.start}, expected {pos}")
        require(s.end >= s.start, f"section {s!r} ends before it starts")
        pos = s.end
    require(pos == len(data), f"sections end at {pos}, input has {len(data)} bytes")
    require(b"".join(parsed.raw(s) for s in parsed.sections()) == data, "round trip differs")
    for k, f in enumerate(parsed.files):
        require(f.index == k, f"file {k} has index {f.index}")
        require(f.start <= f.header_end <= f.end, f"file {k}: header_end outside the file")
        prev = f.header_end
        for h in f.hunks:
            require(prev <= h.start <= h.body_start <= h.end <= f.end, f"file {k}: hunk {h}")
            prev = h.end
    for c in parsed.commits:
        require(0 <= c.segment < len(parsed.segments), f"commit {c} has no segment")


# Every field of a file section but its hunks (compared by their spans below).
_FILE_FIELDS = tuple(f.name for f in dataclasses.fields(FileDiff) if f.name != "hunks")


def _shape(parsed: ParsedDiff) -> list[object]:
    files = [
        (
            *(getattr(f, name) for name in _FILE_FIELDS),
            [(h.start, h.body_start, h.end, h.old_count, h.new_count) for h in f.hunks],
        )
        for f in parsed.files
    ]
    segments = [(s.start, s.end, s.kind, s.note) for s in parsed.segments]
    commits = [(c.index, c.sha, c.subject, c.segment) for c in parsed.commits]
    return [files, segments, commits, list(parsed.warnings)]


def check_lazy_matches_exact(parsed: ParsedDiff, data: bytes) -> None:
    """The fast reading (hunks checked as a block, built later) equals the exact one."""
    exact = parse_diff(data, lazy=False)
    require(_shape(parsed) == _shape(exact), "the lazy parse differs from the exact parse")


def stream_parse(data: bytes, src: Source) -> tuple[ParsedDiff, Prescreen]:
    """``data`` parsed as it would arrive from git (random block sizes), with the
    filter's early verdicts made on the growing buffer as sections complete."""
    parser = StreamParser(min_step=pick(src, (1, 64, 4096, 1 << 20)))
    prescreen = Prescreen()
    pos = told = 0
    smallest = 1 if len(data) < 50_000 else 4096  # byte by byte only for small inputs
    while pos < len(data):
        step = max(smallest, pick(src, (1, 3, 17, 256, 4096, 1 << 18, src.integer(1, len(data)))))
        parser.feed(data[pos : pos + step])
        pos += step
        if parser.file_count > told:
            prescreen.add(parser.files_since(told), parser.buffer, table=parser.table)
            told = parser.file_count
    if data and chance(src, 25):
        # As a git range review ends: the parse refers to a mapping of the file.
        return parser.finish(_mapped(data)), prescreen
    return parser.finish(), prescreen


def _mapped(data: bytes) -> DiffBuffer:
    """``data`` in an unnamed temporary file, mapped."""
    with tempfile.TemporaryFile() as fh:
        fh.write(data)
        fh.flush()
        buffer = map_file(fh.fileno(), len(data), "")
    buffer.trim_step = 4096  # the inputs are small: many trims all the same
    return buffer


def check_stream_matches(parsed: ParsedDiff, streamed: ParsedDiff) -> None:
    """Parsing while the diff arrives gives what parsing it whole gives."""
    require(streamed.data == parsed.data, "the streamed parse holds other data")
    require(_shape(streamed) == _shape(parsed), "the streamed parse differs from parse_diff")


def _verdicts(result: FilterResult) -> list[object]:
    return [
        [f.index for f in result.kept],
        [(e.file_index, e.reason, e.detail) for e in result.excluded],
        sorted(result.binary_by_attributes),
        result.files_excluded_by_pattern,
    ]


def _lines_of(text: bytes) -> int:
    return text.count(b"\n") + (1 if text and not text.endswith(b"\n") else 0)


def _patterns(src: Source, files: Sequence[FileDiff]) -> str | None:
    if not files or chance(src, 40):
        return None
    items: list[str] = []
    for _ in range(src.integer(1, 4)):
        path = pick(src, files).path
        name = path.rsplit("/", 1)[-1]
        ext = name.rsplit(".", 1)[-1] if "." in name else name
        item = pick(
            src,
            (
                path,
                name,
                f"*.{ext}",
                f"**/{name}",
                path.split("/", 1)[0] + "/",
                path.upper(),
                f"!{name}",
                f"{path[: max(1, len(path) // 2)]}*",
                "[",
                "",
                "**/**/**/*a*a*a*a*b",
            ),
        )
        items.append(item)
    if chance(src, 2):
        items.append("x" * 1100)  # longer than a pattern may be: InvalidArgument
    return ",".join(items)


def _attributes(src: Source, files: Sequence[FileDiff]) -> GitattributesFile | None:
    if not files or chance(src, 70):
        return None
    rules = []
    for _ in range(src.integer(1, 3)):
        name = pick(src, files).path.rsplit("/", 1)[-1].replace(" ", "?").replace("\t", "?")
        attr = pick(src, ("linguist-generated", "-diff", "binary", "linguist-vendored=false"))
        rules.append(f"{name} {attr}")
    return GitattributesFile("\n".join(rules) + "\n")


@dataclass
class CaseResult:
    parsed: bool = False
    files: int = 0
    chunks: int = 0
    not_a_diff: bool = False
    invalid_argument: int = 0
    lenient: list[str] = field(default_factory=list)


def check_chunks(
    parsed: ParsedDiff, kept: Sequence[FileDiff], chunks: Sequence[Chunk], budget: tuple[int, int]
) -> list[bytes]:
    max_lines, max_tokens = budget
    texts: list[bytes] = []
    order: list[int] = []
    parts_seen: dict[int, list[int | None]] = {}
    for number, chunk in enumerate(chunks, start=1):
        text = timed("render_chunk", render_chunk, parsed, chunk)
        texts.append(text)
        require(chunk.number == number, f"chunk {number} is numbered {chunk.number}")
        require(chunk.char_count == len(text), f"chunk {number}: char_count")
        require(chunk.line_count == _lines_of(text), f"chunk {number}: line_count")
        require(sum(p.lines for p in chunk.parts) == chunk.line_count, f"chunk {number}: lines")
        within = chunk.line_count <= max_lines and len(text) <= max_tokens * 4
        require(within or chunk.oversized, f"chunk {number} over budget, not flagged")
        if chunk.parent_file is not None:
            require(len(chunk.parts) == 1, f"chunk {number}: split part shares its chunk")
            require(chunk.sub_chunk_index == chunk.parts[0].part, f"chunk {number}: part no.")
        for part in chunk.parts:
            if not order or order[-1] != part.file_index:
                order.append(part.file_index)
            parts_seen.setdefault(part.file_index, []).append(part.part)
        for mode in FORMATS:
            out = timed(f"format_chunk[{mode}]", format_chunk, text, mode)
            require(isinstance(out, str), "format_chunk returned a non-string")
        check_lean(text)
    want = [f.index for f in kept]
    # each file once, its parts together; only copies move (before their source's change)
    require(sorted(order) == want, f"chunks hold files {order[:20]}, expected {want[:20]}")
    copies = {f.index for f in kept if f.status is FileStatus.COPIED}
    require(
        [i for i in order if i not in copies] == [i for i in want if i not in copies],
        f"chunks reorder files {order[:20]}",
    )
    by_index = {f.index: f for f in kept}
    for index, parts in parts_seen.items():
        if parts == [None]:
            fd = by_index[index]
            pieces = [
                p
                for c in chunks
                for part in c.parts
                if part.file_index == index
                for p in part.pieces
            ]
            require((fd.start, fd.end) in pieces, f"file {index}: whole part lost its span")
        else:
            n = len(parts)
            require(parts == list(range(1, n + 1)), f"file {index}: parts {parts}")
    return texts


def lenient_hunks(parsed: ParsedDiff) -> list[str]:
    """Hunks the parser accepted although their lines disagree with their header.

    Counted the way ``git apply`` counts: a ``\\`` line is a marker for the
    line before it (never the first line of a body), an empty line is a
    context line whose space was stripped.  Context reduction re-heads hunks
    from their real lines, so its output can only match for consistent hunks.
    """
    data = parsed.data
    found: list[str] = []
    for f in parsed.files:
        if f.malformed is not None or f.kind is DiffKind.COMBINED:
            continue
        for h in f.hunks:
            old = new = 0
            previous = False
            ok = True
            for line in data[h.body_start : h.end].split(b"\n"):
                tag = line[:1]
                if tag == b"\\":
                    ok = ok and previous
                    previous = False
                    continue
                previous = True
                if tag in (b" ", b""):
                    old += 1
                    new += 1
                elif tag == b"-":
                    old += 1
                elif tag == b"+":
                    new += 1
                else:
                    ok = False
            if data[h.end - 1 : h.end] == b"\n":
                old, new = old - 1, new - 1  # the split's empty last item
            if not ok or (old, new) != (h.old_count, h.new_count):
                found.append(f"{f.path}: hunk at {h.start} (header {h.old_count}/{h.new_count})")
    return found


def _numbers_below(parsed: ParsedDiff, limit: int) -> bool:
    return all(
        h.old_start + h.old_count < limit and h.new_start + h.new_count < limit
        for f in parsed.files
        for h in f.hunks
    )


def _change_counts(parsed: ParsedDiff) -> list[tuple[int, int]]:
    return [(f.added, f.removed) for f in parsed.files]


def _shown(name: str | None) -> str | None:
    return None if name is None else name.replace("\\", "\\\\")


def check_expected(parsed: ParsedDiff, exp: Expected) -> None:
    got = [
        (f.status, f.added, f.removed, len(f.hunks), f.is_binary, f.malformed) for f in parsed.files
    ]
    want = [(e.status, e.added, e.removed, e.hunks, e.binary, None) for e in exp.files]
    require(got == want, f"structural diff parsed as {got}, expected {want}")
    if exp.style in ("git", "log"):
        paths = [(f.old_path, f.new_path) for f in parsed.files]
        # a backslash is shown doubled (paths.decode_path), so no name reads as an escape
        wpaths = [(_shown(e.old_path), _shown(e.new_path)) for e in exp.files]
        require(paths == wpaths, f"paths {paths}, expected {wpaths}")
    require(len(parsed.commits) == exp.commits, f"{len(parsed.commits)} commits")
    bad = [s for s in parsed.segments if s.kind is SegmentKind.MALFORMED]
    require(not bad, f"malformed segments in a well-formed diff: {bad}")
    require(
        all(h.added + h.removed > 0 or h.old_count for f in parsed.files for h in f.hunks),
        "empty hunk",
    )


def check_input(
    data: bytes, src: Source, *, expected: Expected | None = None, well_formed: bool = False
) -> CaseResult:
    """Every property on one input; raises :class:`PropertyFailure` (or the bug).

    The steps run in a fixed order, and so do their draws from ``src``: a
    saved input (an atheris input's option bytes) replays only while it stays.
    """
    result = CaseResult()
    for mode in FORMATS:
        timed(f"format_chunk[{mode}] on the input", format_chunk, data, mode)
    check_lean(data)
    try:
        parsed = timed("parse_diff", parse_diff, data)
    except NotADiffError:
        require(bool(data), "empty input raised NotADiffError")
        result.not_a_diff = True
        return result
    result.parsed = True
    result.files = len(parsed.files)
    check_tiling(parsed, data)
    check_lazy_matches_exact(parsed, data)
    if expected is not None:
        check_expected(parsed, expected)
        well_formed = True
    if well_formed:
        require(all(f.malformed is None for f in parsed.files), "malformed file")
    options, fr, kept = _check_filters(parsed, src, result)
    _check_chunking(parsed, kept, src, result)
    _check_reduction(parsed, data, src, result, well_formed=well_formed)
    # streaming (last, so that the draws above stay where saved inputs expect them)
    _check_streaming(parsed, data, src, options, fr)
    return result


def _check_filters(
    parsed: ParsedDiff, src: Source, result: CaseResult
) -> tuple[dict[str, object], FilterResult | None, list[FileDiff]]:
    """Filters: every file exactly once.  Returns the options drawn, the result
    (None for bad patterns) and the files kept."""
    options: dict[str, object] = {
        "skip_trivial": chance(src, 50),
        "skip_generated": chance(src, 50),
        "include_patterns": _patterns(src, parsed.files),
        "exclude_patterns": _patterns(src, parsed.files),
        "attributes": _attributes(src, parsed.files),
    }
    fr: FilterResult | None = None
    try:
        fr = timed("filter_files", filter_files, parsed, **options)
        kept = list(fr.kept)
        seen = sorted([f.index for f in fr.kept] + [e.file_index for e in fr.excluded])
        require(seen == list(range(len(parsed.files))), f"files kept/excluded: {seen}")
        require([f.index for f in kept] == sorted(f.index for f in kept), "kept out of order")
    except InvalidArgument:
        result.invalid_argument += 1
        kept = list(parsed.files)
    return options, fr, kept


def _check_chunking(
    parsed: ParsedDiff, kept: list[FileDiff], src: Source, result: CaseResult
) -> None:
    """Chunks: budgets, counts, every kept file once, in order."""
    files = kept if chance(src, 60) else list(parsed.files)
    max_lines = pick(src, (1, 2, 3, 5, 8, 13, 30, 80, 200, 1000))
    max_tokens = pick(src, (1, 10, 40, 200, 1000, 20_000))
    chunks = timed(
        "chunk_files", chunk_files, parsed, files, max_lines=max_lines, max_tokens=max_tokens
    )
    result.chunks = len(chunks)
    texts = check_chunks(parsed, files, chunks, (max_lines, max_tokens))
    result.lenient = lenient_hunks(parsed)
    if not result.lenient and all(f.malformed is None for f in files):
        # chunks of sound file sections are sound and hold every change once
        added = removed = 0
        for k, text in enumerate(texts, start=1):
            again = parse_diff(text)
            bad = [f.malformed for f in again.files if f.malformed]
            require(not bad, f"chunk {k} re-parses with malformed files: {bad}")
            require(not lenient_hunks(again), f"chunk {k}: hunk lines disagree with headers")
            added += sum(f.added for f in again.files)
            removed += sum(f.removed for f in again.files)
        want = (sum(f.added for f in files), sum(f.removed for f in files))
        require((added, removed) == want, f"chunks hold {added}+/{removed}-, files {want}")


def _check_reduction(
    parsed: ParsedDiff, data: bytes, src: Source, result: CaseResult, *, well_formed: bool
) -> None:
    """Context reduction: re-parses to the same files and change counts."""
    n = pick(src, (0, 0, 1, 2, 3, 5))
    reduced = timed("reduce_context", reduce_context, parsed, n)
    require(not (well_formed and result.lenient), f"inconsistent hunks {result.lenient}")
    if parsed.files and not result.lenient:
        again = timed("parse_diff(reduced)", parse_diff, reduced)
        check_tiling(again, reduced)
        require(len(again.files) == len(parsed.files), "reduced diff has other files")
        require(
            _change_counts(again) == _change_counts(parsed),
            f"reduced counts {_change_counts(again)} != {_change_counts(parsed)}",
        )
        if well_formed:
            require(all(f.malformed is None for f in again.files), "reduced file malformed")
        # reducing in two steps (m >= n, then n) is reducing once (for line
        # numbers a header can hold: past 10**18 hunks are kept as written)
        m = n + pick(src, (0, 0, 1, 4))
        if _numbers_below(parsed, 10**17):
            wider = parse_diff(reduce_context(parsed, m)) if m != n else again
            twice = timed("reduce_context(again)", reduce_context, wider, n)
            require(twice == reduced, f"reduce_context({m}) then ({n}) differs from ({n})")
    if not result.lenient:
        full = timed("reduce_context(all)", reduce_context, parsed, 10**6)
        require(full == data, "reduce_context with a huge count changed the diff")


def _check_streaming(
    parsed: ParsedDiff,
    data: bytes,
    src: Source,
    options: dict[str, object],
    fr: FilterResult | None,
) -> None:
    """Streaming: the same parse, and the prescreened filter decides as the full one."""
    streamed, prescreen = timed("stream_parse", stream_parse, data, src)
    check_stream_matches(parsed, streamed)
    if fr is not None:
        early = timed(
            "filter_files(prescreen)",
            filter_files,
            streamed,
            prescreen=prescreen,
            **options,
        )
        require(_verdicts(early) == _verdicts(fr), "the prescreened filter decides otherwise")
