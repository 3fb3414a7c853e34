"""From diff bytes to a review: parse -> (reduce context) -> filter -> chunk.

:func:`build_review` is the one entry point the sessions, the CLI and the
benchmarks call.  It knows nothing about files on disk except the optional
``.gitattributes`` file named in :class:`LoadOptions`.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType

from ..errors import ChunkNotFound
from .attributes import AttributeSource
from .buffer import DiffData, release
from .chunk_parts import FileChunks
from .chunker import chunk_files, look_ahead_lines, render_chunk
from .context import reduce_context
from .filters import Prescreen, filter_files
from .model import Chunk, Excluded, FileDiff, ParsedDiff
from .options import LoadOptions, Progress
from .parser import parse_diff
from .table import FileView, table_of

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ReviewStats:
    total_files: int  # file sections in the diff (kept + excluded)
    total_lines: int  # lines of the loaded diff text (after context reduction)
    chunks_count: int
    files_excluded: int


@dataclass(frozen=True, slots=True)
class Review:
    """A chunked diff, ready to serve.

    Its per-file parts are compact (see :mod:`diffchunk.diff.table` and
    :mod:`diffchunk.diff.chunk_parts`): ``kept`` and ``excluded`` are
    sequences over the parse's table, each chunk's ``parts`` a range of one
    part store, and ``file_to_chunks`` a :class:`~diffchunk.diff.chunk_parts.FileChunks`.
    """

    parsed: ParsedDiff
    kept: Sequence[FileDiff]
    excluded: Sequence[Excluded]
    chunks: tuple[Chunk, ...]
    stats: ReviewStats
    options: LoadOptions
    # path -> 1-based numbers of the chunks holding (a part of) that file
    file_to_chunks: Mapping[str, tuple[int, ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    # Kept files that the attributes mark ``-diff``/``binary`` (git would show
    # them as binary); their text stays in the chunks as the diff has it.
    binary_by_attributes: frozenset[str] = frozenset()

    def chunk(self, number: int) -> Chunk:
        """The chunk ``number`` (1-based); ChunkNotFound names the valid range."""
        if isinstance(number, bool) or not isinstance(number, int):
            raise ChunkNotFound(f"chunk_number must be an integer, got {number!r}.")
        total = len(self.chunks)
        if 1 <= number <= total:
            return self.chunks[number - 1]
        if total == 0:
            raise ChunkNotFound(
                f"This diff has no chunks, so chunk {number} does not exist. {self.why_empty()}"
            )
        raise ChunkNotFound(
            f"Chunk {number} does not exist; this diff has {total} "
            f"chunk{'s' if total != 1 else ''}, numbered 1..{total}.",
            suggestion="Call list_chunks to see what each chunk holds.",
            cli_suggestion="`diffchunk review` of the same diff or range, with the same "
            "options, lists what each chunk holds.",
        )

    def chunk_bytes(self, number: int) -> bytes:
        """The exact text of chunk ``number`` (a valid patch on its own)."""
        return render_chunk(self.parsed, self.chunk(number))

    def look_ahead(self, number: int) -> frozenset[int]:
        """Offsets in :meth:`chunk_bytes` of lines borrowed as context by cut hunks."""
        return look_ahead_lines(self.parsed, self.chunk(number))

    def why_empty(self) -> str:
        """A sentence explaining why no chunk exists (for error messages)."""
        if not self.parsed.files:
            return "The diff contains no file changes."
        reasons: dict[str, int] = {}
        for ex in self.excluded:
            key = ex.reason.value + (f" ({ex.detail})" if ex.detail else "")
            reasons[key] = reasons.get(key, 0) + 1
        listed = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items(), key=lambda i: -i[1]))
        return (
            f"All {len(self.parsed.files)} files were excluded: {listed}. "
            "Load again with skip_trivial=false, skip_generated=false, or other "
            "include/exclude patterns to review them, or use get_file_diff for one file."
        )


def _count_lines(data: DiffData) -> int:
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _total_lines(parsed: ParsedDiff) -> int:
    """Lines of ``parsed.data``, from the line counts the parser already made.

    Sections tile the buffer and every one but the last ends after a ``\\n``,
    so their line counts add up to the buffer's.
    """
    data = parsed.data
    files = table_of(parsed.files, data)
    total = 0
    for i in range(len(files)):
        count = files.line_count(i)
        if count is None:
            return _count_lines(data)
        total += count
    for seg in parsed.segments:
        if seg.end > seg.start:
            total += data.count(b"\n", seg.start, seg.end) + (data[seg.end - 1] != 0x0A)
    return total


def _load_attributes(options: LoadOptions) -> AttributeSource | None:
    if options.gitattributes_path is None:
        return None
    from .gitattributes import load_gitattributes

    source: AttributeSource = load_gitattributes(options.gitattributes_path)
    return source


def build_review(
    data: DiffData,
    options: LoadOptions,
    attributes: AttributeSource | None = None,
    progress: Progress | None = None,
    parsed: ParsedDiff | None = None,
    prescreen: Prescreen | None = None,
) -> Review:
    """Parse, filter and chunk ``data``.

    ``attributes`` overrides the ``.gitattributes`` file named in ``options``.
    ``progress(stage, fraction)`` is called a handful of times (fraction in 0..1).
    ``parsed``: ``parse_diff(data)``, already made (e.g. while the diff was
    generated); it is used instead of parsing ``data`` again.
    ``prescreen``: filter verdicts already made for files of ``parsed``.
    """
    if parsed is not None and parsed.data is not data and parsed.data != data:
        raise ValueError("build_review: parsed is not the parse of data")

    try:
        with gc_paused():
            return _build_review(data, options, attributes, progress, parsed, prescreen)
    finally:
        release(data)  # a mapped diff's pages go back once it is built


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cycle collector off meanwhile (as it was afterwards).

    A parse or a build makes tens of thousands of long-lived objects and no
    garbage cycles: collecting while it runs only costs time (about 3% of a load).
    """
    collect = gc.isenabled()
    if collect:
        gc.disable()
    try:
        yield
    finally:
        if collect:
            gc.enable()


def _build_review(
    data: DiffData,
    options: LoadOptions,
    attributes: AttributeSource | None,
    progress: Progress | None,
    parsed: ParsedDiff | None = None,
    prescreen: Prescreen | None = None,
) -> Review:
    def report(stage: str, fraction: float) -> None:
        if progress is not None:
            progress(stage, fraction)

    if parsed is None:
        report("parsing", 0.05)
        parsed = parse_diff(data)
    if options.context_lines is not None and parsed.files:
        report("reducing context", 0.35)
        parsed = parse_diff(reduce_context(parsed, options.context_lines))
        prescreen = None  # its verdicts are of the sections before
    if attributes is None:
        attributes = _load_attributes(options)
    report("filtering", 0.55)
    result = filter_files(
        parsed,
        skip_trivial=options.skip_trivial,
        skip_generated=options.skip_generated,
        include_patterns=options.include_patterns,
        exclude_patterns=options.exclude_patterns,
        attributes=attributes,
        prescreen=prescreen,
    )
    report("chunking", 0.75)
    kept: Sequence[FileDiff] = result.kept
    if options.order == "review":
        from .review_order import review_order  # only for this order: nothing at import

        kept = review_order(kept)
        if not isinstance(kept, FileView):
            kept = FileView(table_of(parsed.files, parsed.data), (fd.index for fd in kept))
    chunks = chunk_files(parsed, kept, max_lines=options.max_chunk_lines)
    stats = ReviewStats(
        total_files=len(parsed.files),
        total_lines=_total_lines(parsed),
        chunks_count=len(chunks),
        files_excluded=len(result.excluded),
    )
    report("done", 1.0)
    return Review(
        parsed=parsed,
        kept=kept,
        excluded=result.excluded,
        chunks=chunks,
        stats=stats,
        options=options,
        file_to_chunks=FileChunks(table_of(parsed.files, parsed.data), chunks),
        binary_by_attributes=result.binary_by_attributes,
    )
