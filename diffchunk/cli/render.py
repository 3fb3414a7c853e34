"""How the CLI shows a diff and its overview to a person: the one rendering module of
``diffchunk review`` (a diff file or a range), ``diffchunk next`` and the pre-push hook.

Rules:

- It renders the typed results the application layer returns
  (:class:`~diffchunk.review.results.LoadSummary`,
  :class:`~diffchunk.review.results.RangeSummary`,
  :class:`~diffchunk.review.results.ChunkListing`, and the code commands'
  :class:`~diffchunk.review.tools.code_search.CodeSearch` and
  :class:`~diffchunk.review.tools.symbol_list.SymbolListing`); ``to_dict()`` is
  for ``--json`` alone.
- Colour comes from :func:`diffchunk.cli.terminal.paint` only; with colour off
  the text is the same bytes as before colour existed, and a raw chunk's
  bytes are exact (:func:`colour_diff` is applied only when colour is on).
- Word-level highlights in a diff: the removed and added lines of one change
  block are paired as the review page pairs them
  (:func:`diffchunk.review.export.highlight.pair_block`), and the words that differ
  in a pair are shown in reverse video.
- Hints name CLI commands and options (:func:`diffchunk.cli.targets.suggested_command`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..limits import SHORT_ID
from ..review.results import ChunkEntry, ChunkListing, FileDetail, LoadSummary, RangeSummary
from .output import names_cell, shell_word
from .targets import suggested_command
from .terminal import colour_on, paint
from .wording import cli_terms

if TYPE_CHECKING:
    from ..review.tools.code_search import CodeSearch
    from ..review.tools.symbol_list import SymbolListing

# --------------------------------------------------------------------------
# Overviews
# --------------------------------------------------------------------------


def file_label(detail: FileDetail) -> str:
    """A path with a short note for anything but a plain modification."""
    status = detail.status or "modified"
    notes = [status] if status not in ("modified", "binary") else []
    if detail.binary:
        notes.append("binary")
    elif detail.metadata_only:
        notes.append("metadata only")
    elif detail.binary_by_attributes:
        notes.append("-diff")
    return f"{detail.path} ({', '.join(notes)})" if notes else detail.path


def _files_cell(entry: ChunkEntry) -> str:
    if entry.parent_file:
        return f"{entry.parent_file} (part {entry.sub_chunk_index})"
    return names_cell([file_label(d) for d in entry.file_details])


def render_overview(
    summary: LoadSummary,
    listing: ChunkListing,
    shown_as: str,
    *,
    next_step: bool = True,
    target: Mapping[str, Any] | None = None,
) -> str:
    """The overview printed by ``diffchunk review`` (``next_step``: end with the command
    that reads chunk 1, on ``target``: the command's target parameters, whose options it
    repeats; default: the diff file ``shown_as``)."""
    chunks = listing.chunks
    lines = [
        paint(shown_as, "bold"),
        f"  {summary.files:,} files, {summary.total_lines:,} lines -> "
        f"{len(chunks)} chunk{'s' if len(chunks) != 1 else ''}, "
        f"~{listing.total_token_count:,} tokens",
    ]
    if summary.files_excluded:
        lines.append(f"  {summary.files_excluded} file(s) excluded (listed below)")
    for warning in summary.warnings:
        lines.append(f"  warning: {warning}")
    if chunks:
        lines.append("")
        lines.append(paint(f"{'chunk':>5}  {'lines':>6}  {'tokens':>7}  files", "bold"))
        for entry in chunks:
            lines.append(
                f"{entry.chunk:>5}  {entry.lines:>6,}  {entry.token_count:>7,}  "
                f"{_files_cell(entry)}"
            )
    lines.extend(_excluded_lines(listing))
    lines.append("")
    if chunks and next_step:
        read = suggested_command("review", target or {"target": shown_as}, "--chunk", "1")
        lines.append(paint(f"Next: {read} [--format annotated]", "hint"))
    return "\n".join(lines) + "\n"


def _excluded_lines(listing: ChunkListing) -> list[str]:
    excluded = listing.excluded
    if not excluded:
        return []
    lines = ["", paint("Excluded:", "bold")]
    width = min(max(len(e.path) for e in excluded), 60)
    for e in excluded:
        why = e.reason + (f" ({e.detail})" if e.detail else "")
        if e.commit:
            why += f"  [commit {e.commit[:SHORT_ID]}]"
        lines.append(f"  {e.path:<{width}}  {paint(why, 'excluded')}")
    return lines


def render_range_overview(
    summary: RangeSummary, listing: ChunkListing, target: Mapping[str, Any] | None = None
) -> str:
    """The overview of a range: what was compared, the chunks, and how to read them
    (``target``: the command's target parameters, which the hints repeat)."""
    path = summary.file_path
    base = (summary.base or "empty tree")[:SHORT_ID]
    head = (summary.head or ("index" if "index" in summary.range else "working tree"))[:SHORT_ID]
    reused = " (cached diff reused)" if summary.cached else ""
    limited = f" -- {' '.join(summary.paths)}" if summary.paths else ""
    title = f"{summary.range}{limited} in {summary.repo}: {base}..{head}{reused}"
    lines = [paint(title, "bold")]
    if summary.paths_note:
        lines.append(f"  {summary.paths_note}")
    lines.extend(since_lines(summary))
    lines.extend(overlap_lines(summary))
    body = render_overview(summary.summary, listing, path, next_step=False)  # said below
    lines.append(body.rstrip("\n"))
    from ..review.sessions.views import is_view_path, read_view

    if is_view_path(path):  # a view: these options, of the cached diff
        lines.append(f"View (these options): {path}")
        lines.append(f"Cached diff (default options): {read_view(path).diff}")
    else:
        lines.append(f"Cached diff: {path}")
    if listing.chunks:
        lines.append(paint(f"Read chunk N:  diffchunk review --chunk N {shell_word(path)}", "hint"))
        if target is not None:
            lines.append(
                paint(f"Next unreviewed chunk: {suggested_command('next', target)}", "hint")
            )
        lines.append(f'  or over MCP: get_chunk(absolute_file_path="{path}", chunk_number=N)')
    return "\n".join(lines) + "\n"


def overlap_lines(summary: RangeSummary) -> list[str]:
    """The earlier reviews a load's new review overlaps, and how to continue one."""
    if not summary.overlapping:
        return []
    lines = ["This load started a new review; earlier reviews of this repository overlap it:"]
    for o in summary.overlapping:
        lines.append(
            f"  review {o['id']}: {o['range']} ({o['reviewed']} files reviewed, "
            f"{o['open_findings']} open findings)"
        )
    first = summary.overlapping[0]["id"]
    lines.append(paint(f"  Continue one: diffchunk review RANGE --review {first}", "hint"))
    return lines


def since_lines(summary: RangeSummary) -> list[str]:
    """What changed since the last review, as ``diffchunk review RANGE`` prints it."""
    if summary.since_review is None:
        return [f"  {summary.since_note}"] if summary.since_note is not None else []
    from ..review.record.since import LISTED, SinceReview, gone_note

    since = summary.since_review
    assert isinstance(since, SinceReview)  # the record's, which a result only carries

    revision = since.revision
    shown = f"{(revision.base or 'empty tree')[:SHORT_ID]}..{(revision.head or '')[:SHORT_ID]}"
    lines = [f"Since the review of {shown} ({revision.loaded_at}): history {since.history}"]
    compared = since.comparison
    if compared is None:
        return [*lines, f"  {gone_note(revision)}"]
    lines.append(
        f"  {compared.unchanged} unchanged, {len(compared.changed)} changed, "
        f"{len(compared.new)} new, {len(compared.gone)} no longer changed"
    )
    lines.extend(f"  no longer changed: {path}" for path in compared.gone[:LISTED])
    if since.full_diff is not None:
        lines.extend(f"  interdiff: {path}" for path in since.interdiff[:LISTED])
        lines.append(f"  This diff holds only what changed since; the full diff: {since.full_diff}")
    return lines


# --------------------------------------------------------------------------
# Diffs
# --------------------------------------------------------------------------

_HEADER_PREFIXES = (
    "diff ",
    "index ",
    "--- ",
    "+++ ",
    "new file mode",
    "deleted file mode",
    "old mode",
    "new mode",
    "similarity index",
    "dissimilarity index",
    "rename from",
    "rename to",
    "copy from",
    "copy to",
    "Binary files",
    "===",
    "## ",
)


def colour_diff(text: str) -> str:
    """``text`` (a diff in any format) with git's colours and word-level highlights, when
    colour is on; else ``text`` as it is."""
    if not colour_on():
        return text
    lines = text.split("\n")
    out: list[str] = []
    in_hunk = False
    index = 0
    while index < len(lines):
        line = lines[index]
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if line.startswith("@@"):
            in_hunk = True
            out.append(paint(line, "hunk"))
        elif line.startswith(_HEADER_PREFIXES) and not (
            in_hunk and line[:1] in "+-" and not _file_header(line, following)
        ):
            in_hunk = False
            out.append(paint(line, "meta"))
        elif in_hunk and line.startswith("-"):
            end = _block_end(lines, index)
            out.extend(_change_block(lines[index:end]))
            index = end
            continue
        elif in_hunk and line.startswith("+"):
            out.append(paint(line, "added"))
        else:
            out.append(line)
        index += 1
    return "\n".join(out)


def _file_header(line: str, following: str) -> bool:
    """Whether ``---``/``+++`` inside a hunk is a file's header (as git writes it: a
    ``--- `` line followed by ``+++ ``) rather than a changed line that starts with
    dashes or pluses."""
    return line.startswith("--- ") and following.startswith("+++ ")


def _block_end(lines: Sequence[str], start: int) -> int:
    """The end of the run of removed lines at ``start`` and the added lines after it."""
    index = start
    while index < len(lines) and lines[index].startswith("-"):
        index += 1
    while index < len(lines) and lines[index].startswith("+"):
        index += 1
    return index


def _change_block(block: Sequence[str]) -> list[str]:
    """A block of removed then added lines, the words that differ in paired lines marked."""
    from ..review.export.highlight import pair_block, word_changes

    removed = [line[1:] for line in block if line.startswith("-")]
    added = [line[1:] for line in block if line.startswith("+")]
    marks_old: dict[int, list[tuple[int, int]]] = {}
    marks_new: dict[int, list[tuple[int, int]]] = {}
    for i, j in pair_block(removed, added):
        ranges = word_changes(removed[i], added[j])
        if ranges is not None:
            marks_old[i], marks_new[j] = ranges
    shown = [_marked("-", text, marks_old.get(i), "removed") for i, text in enumerate(removed)]
    shown += [_marked("+", text, marks_new.get(j), "added") for j, text in enumerate(added)]
    return shown


def _marked(sign: str, text: str, ranges: list[tuple[int, int]] | None, style: str) -> str:
    if not ranges:
        return paint(sign + text, style)
    pieces = [paint(sign, style)]
    at = 0
    for start, end in ranges:
        pieces.append(paint(text[at:start], style))
        pieces.append(paint(text[start:end], f"word_{style}"))
        at = end
    pieces.append(paint(text[at:], style))
    return "".join(pieces)


# --------------------------------------------------------------------------
# The code at a revision (search-code, refs, symbols)
# --------------------------------------------------------------------------


def render_code_hits(found: CodeSearch) -> str:
    """A ``search-code``/``refs`` page as grep prints it: ``path:line: text``, the
    definition a reference sits in and ``(in diff)`` after it, then the count and where
    to page on."""
    from ..review.tools.code_search import files_counted  # loaded with ``found``

    lines = []
    for hit in found.hits:
        text = "(binary file)" if hit.text is None else hit.text
        where = f"  [{hit.definition}]" if hit.definition is not None else ""
        mark = "  (in diff)" if hit.in_diff else ""
        lines.append(f"{hit.path}:{hit.line}: {text}{where}{mark}")
    summary = f"{found.total} line(s) in {files_counted(found.files_matched)}"
    summary += " " + found.where
    if found.next_offset is not None:
        summary += f"; {len(found.hits)} shown, more with --offset {found.next_offset}"
    lines.append("; ".join([summary, *found.left_apart()]))
    lines.extend(f"note: {cli_terms(note)}" for note in found.notes)
    return "\n".join(lines) + "\n"


def render_symbols(found: SymbolListing) -> str:
    """A ``symbols`` page: each definition's change, kind, name and lines, then where
    to page on."""
    lines = []
    for item in found.symbols:
        span = "-".join(str(n) for n in item.lines or ())
        lines.append(f"{item.change:9} {item.kind or '':9} {item.name} {span}".rstrip())
    if found.next_offset is not None:
        lines.append(f"{found.total} in all; more with --offset {found.next_offset}")
    return "".join(line + "\n" for line in lines)
