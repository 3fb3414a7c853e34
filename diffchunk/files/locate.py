"""Locating the changes of an edit in the file: where each search text is, and its bytes.

Rules (the planning of ``edit_content``):

- Every search text is located in the *original* content (not in the text
  produced by earlier changes of the batch), all in one exact scan
  (:mod:`.scan`); changes must not overlap.
- An exact search text must occur exactly once; several occurrences are
  refused with their line numbers.  A search text holding ``\\n`` is also
  looked for with CRLF endings (``\\n`` -> ``\\r\\n``), so an LF search text
  matches a CRLF file; the two variants at one place are one occurrence.
- When it does not occur and fuzzy matching is on for the change, the most
  similar run of whole lines (:mod:`.fuzzy_block`) is used if it is similar
  enough, unambiguous and was found by a full scan (in files over
  ``FULL_FUZZY_LIMIT`` only areas near rare words were looked at: the place
  is shown, not used).  The replacement then replaces exactly those lines,
  re-indented to them (:mod:`.indent`).
- Replacement line endings follow the matched text: a CRLF match gets CRLF,
  an LF match LF, a match inside one line takes that line's ending (the
  file's dominant ending on an unterminated last line).  A replacement the
  file's encoding cannot hold is refused.

Each change gets a :class:`ChangeResult`; a located one also a
:class:`Located` span with its replacement bytes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ..limits import SUGGESTIONS
from . import fuzzy_block, scan
from .edit_blocks import Change
from .edit_snapshot import EditSnapshot
from .fuzzy_block import SimilarText
from .indent import MixedIndentation, reindent_replacement

SHOWN_OCCURRENCES = 20
"""Line numbers of a repeated search text listed in its error."""


@dataclass(frozen=True, slots=True)
class Located:
    """Where one change applies: bytes ``[start, end)`` become ``replacement``."""

    index: int
    start: int
    end: int
    replacement: bytes
    line: int
    last_line: int
    match_type: str
    similarity: float | None


@dataclass(frozen=True, slots=True)
class ChangeResult:
    """What became of one change (an entry of ``results`` of ``edit_content``)."""

    index: int
    success: bool
    line_number: int | None
    match_type: str | None
    similarity: float | None
    error: str | None
    similar_matches: tuple[SimilarText, ...] = ()

    @classmethod
    def of(
        cls,
        index: int,
        *,
        located: Located | None = None,
        error: str | None = None,
        similar: list[SimilarText] | None = None,
    ) -> ChangeResult:
        return cls(
            index=index,
            success=located is not None and error is None,
            line_number=located.line if located else None,
            match_type=located.match_type if located else None,
            similarity=located.similarity if located else None,
            error=error,
            similar_matches=tuple(similar or ()),
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "index": self.index,
            "success": self.success,
            "line_number": self.line_number,
            "match_type": self.match_type,
            "similarity": self.similarity,
            "error": self.error,
            "similar_matches": [item.to_dict() for item in self.similar_matches],
        }


def locate_changes(
    snap: EditSnapshot, changes: list[Change], threshold: float
) -> tuple[list[Located | None], list[ChangeResult]]:
    """Each change's span (None where it failed) and result, in the order given."""
    needle_sets = [_needles(change, snap.encoding) for change in changes]
    flat = [needle for needles in needle_sets for needle in needles]
    found = scan.scan(snap.source, flat, line_of=snap.known_lines())
    located: list[Located | None] = []
    results: list[ChangeResult] = []
    cursor = 0
    for change, needles in zip(changes, needle_sets, strict=True):
        per_needle = found[cursor : cursor + len(needles)]
        cursor += len(needles)
        occurrences = _merge_variants(per_needle, change.search.startswith("\n"))
        loc: Located | None = None
        error: str | None = None
        similar: list[SimilarText] = []
        try:
            if len(occurrences) == 1:
                start, line, k = occurrences[0]
                loc = _exact(snap, change, start, line, needles[k], k)
            elif len(occurrences) > 1:
                error = _duplicate_message(occurrences)
            else:
                loc, error, similar = _fuzzy(snap, change, threshold)
        except UnicodeEncodeError as exc:
            loc, error = None, snap.encoding_error(exc)
        kept = loc if error is None else None
        located.append(kept)
        results.append(ChangeResult.of(change.index, located=kept, error=error, similar=similar))
    _refuse_overlaps(located, results)
    return located, results


def _needles(change: Change, encoding: str) -> list[bytes]:
    try:
        plain = change.search.encode(encoding)
    except UnicodeEncodeError:
        return []
    variants = [plain]
    if "\n" in change.search:
        variants.append(change.search.replace("\n", "\r\n").encode(encoding))
    return variants


def _merge_variants(
    per_needle: list[list[scan.Occurrence]], leading_newline: bool
) -> list[tuple[int, int, int]]:
    """``(start, line, variant)`` of every occurrence, best variant per place.

    A search text starting with ``\\n`` also matches, as its LF variant, one
    byte into each match of its CRLF variant: that is the same place.
    """
    merged = {(occ.start, occ.line, k) for k, occs in enumerate(per_needle) for occ in occs}
    if leading_newline and len(per_needle) == 2:
        crlf_starts = {occ.start for occ in per_needle[1]}
        merged = {item for item in merged if not (item[2] == 0 and item[0] - 1 in crlf_starts)}
    return sorted(merged)


def _duplicate_message(occurrences: list[tuple[int, int, int]]) -> str:
    count = len(occurrences)
    shown = ", ".join(str(line) for _, line, _ in occurrences[:SHOWN_OCCURRENCES])
    many = f"more than {scan.MAX_OCCURRENCES}" if count > scan.MAX_OCCURRENCES else str(count)
    more = " ..." if count > SHOWN_OCCURRENCES else ""
    return (
        f"The search text occurs {many} times (lines {shown}{more}); it must be unique. "
        "Add surrounding lines to the search text so that it matches one place only."
    )


def _exact(
    snap: EditSnapshot, change: Change, start: int, line: int, needle: bytes, variant: int
) -> Located:
    end = start + len(needle)
    if "\n" in change.search:
        newline = b"\r\n" if variant == 1 else b"\n"
    else:
        newline = snap.source.ending_at(start) or snap.newline
    return Located(
        index=change.index,
        start=start,
        end=end,
        replacement=snap.encode(change.replace, newline),
        line=line,
        last_line=line + change.search.count("\n"),
        match_type="exact",
        similarity=None,
    )


def _fuzzy(
    snap: EditSnapshot, change: Change, threshold: float
) -> tuple[Located | None, str | None, list[SimilarText]]:
    """The change placed on the closest block, or why not (with what was close)."""
    outcome = fuzzy_block.similar_block(
        snap.source, snap.encoding, change.search, threshold=threshold
    )
    similar = fuzzy_block.suggestions(outcome.ranked)
    if outcome.hints:
        similar = _merge_suggestions(list(outcome.hints), similar)
    if not change.fuzzy:
        return (
            None,
            "Search text not found (exact match; fuzzy matching is off for this change).",
            similar,
        )
    window = outcome.match
    if window is None:
        scored = (
            " The similar lines listed with it are scored on the part of each line that "
            "matches; the threshold and the best score above are of whole lines."
            if outcome.hints
            else ""
        )
        return None, f"Search text not found. {outcome.error}{scored}", similar
    if outcome.anchored:
        # Only areas around the search text's rarer words were scored: a
        # closer block elsewhere, or a second one as close, could be missed,
        # and an edit must not land in the wrong place on a guess.
        return (
            None,
            f"Search text not found exactly; the closest block found is at line {window.line} "
            f"(similarity {window.score:.2f}), but in files over "
            f"{fuzzy_block.FULL_FUZZY_LIMIT // (1024 * 1024)} MB fuzzy matching looks only near "
            "the search text's rarer words, so it is not applied. To change that block, "
            "search for its exact text (similar_matches shows it).",
            similar,
        )
    try:
        return _on_block(snap, change, window), None, []
    except MixedIndentation as mixed:
        return (
            None,
            f"The closest block (line {window.line}) is indented with "
            f"{mixed.file_kind}, the search text with {mixed.text_kind}: "
            "re-indenting the replacement would mix them. Write the search and "
            "replacement with the file's indentation.",
            similar,
        )


def _on_block(snap: EditSnapshot, change: Change, window: fuzzy_block.FuzzyWindow) -> Located:
    """The change's replacement for the matched lines ``window`` (re-indented to them)."""
    search_lines = change.search.split("\n")
    ends_with_newline = change.search.endswith("\n")
    if ends_with_newline:
        search_lines.pop()
    text = reindent_replacement(change.replace, search_lines, list(window.lines))
    end = window.after if ends_with_newline else window.end
    if ends_with_newline and window.after == window.end and text.endswith("\n"):
        text = text[:-1]  # the last line of the file has no line ending: add none
    newline = snap.source.read(window.end, window.after) or snap.newline
    if newline not in (b"\n", b"\r\n"):
        newline = snap.newline
    return Located(
        index=change.index,
        start=window.start,
        end=end,
        replacement=snap.encode(text, newline),
        line=window.line,
        last_line=window.line + window.count - 1,
        match_type="fuzzy",
        similarity=round(window.score, 3),
    )


def _merge_suggestions(first: list[SimilarText], second: list[SimilarText]) -> list[SimilarText]:
    """The :data:`SUGGESTIONS` most similar of both lists, one per line."""
    seen: set[int] = set()
    merged: list[SimilarText] = []
    for item in sorted(first + second, key=lambda s: -s.similarity):
        if item.line in seen:
            continue
        seen.add(item.line)
        merged.append(item)
    return merged[:SUGGESTIONS]


def _refuse_overlaps(located: list[Located | None], results: list[ChangeResult]) -> None:
    """Fail every change whose span overlaps another's (both are reported)."""
    spans = sorted(
        (loc for loc in located if loc is not None), key=lambda loc: (loc.start, loc.end)
    )
    bad: dict[int, int] = {}
    for before, after in itertools.pairwise(spans):
        if after.start < before.end or (after.start == before.start):
            bad.setdefault(before.index, after.index)
            bad.setdefault(after.index, before.index)
    by_index = {loc.index: loc for loc in spans}
    for position, loc in enumerate(located):
        if loc is None or loc.index not in bad:
            continue
        other = by_index[bad[loc.index]]
        results[position] = ChangeResult.of(
            loc.index,
            error=(
                f"This change (lines {loc.line}-{loc.last_line}) overlaps change "
                f"{other.index} (lines {other.line}-{other.last_line}). All search texts are "
                "located in the original content, so changes of one batch must not overlap: "
                "merge them into one change."
            ),
        )
        located[position] = None
