"""Which file of a diff a query names: an exact path, case ignored, a renamed file's
old path, or a glob matching exactly one file; the error for none or several names
the closest paths.  A query longer than one path may be
(:data:`~diffchunk.diff.patterns.MAX_PATTERN_LENGTH`) that holds commas names no
one file: it is a list, each of its paths checked by the caller's
:class:`~diffchunk.diff.patterns.PathQuery`."""

from __future__ import annotations

from collections.abc import Iterable

from ...diff.patterns import MAX_PATTERN_LENGTH, PathPatterns
from ...diff.pipeline import Review
from ...diff.table import table_of
from ...errors import FileNotInDiff, InvalidArgument

MAX_CANDIDATES = 20
"""Paths an error names when a query matches several files of the diff."""

CLOSEST = 5
"""Paths an error names when a query matches no file of the diff, the closest
first: enough to spot a typo (twenty read as a list of the diff's files)."""


def _all_paths(review: Review) -> list[str]:
    return list(dict.fromkeys(table_of(review.parsed.files, review.parsed.data).paths()))


def _closest(query: str, paths: Iterable[str]) -> list[str]:
    pool = list(paths)
    if len(pool) <= CLOSEST:
        return pool
    try:
        from rapidfuzz import fuzz, process

        ranked = process.extract(query, pool, scorer=fuzz.WRatio, limit=CLOSEST)
        return [str(item[0]) for item in ranked]
    except ImportError:  # pragma: no cover - rapidfuzz is a dependency
        import difflib

        return difflib.get_close_matches(query, pool, n=CLOSEST, cutoff=0.0)


def match_file(review: Review, file_path: str) -> str:
    """The one path of the diff ``file_path`` names (see the module docstring)."""
    found = find_file(review, file_path)
    if found is None:
        query, paths = file_path.strip(), _all_paths(review)
        raise FileNotInDiff(
            f"No file of the diff matches {query!r}. "
            f"Closest paths: {', '.join(_closest(query, paths)) or '(the diff has no files)'}.",
            suggestion="Pass an exact path from list_chunks, or a glob such as '*name*'. A "
            "file the diff does not change: open_file_version reads it.",
            cli_suggestion="Pass an exact path as `diffchunk review` lists it, or a glob such "
            "as '*name*'. A file the diff does not change: `diffchunk show --path PATH` reads "
            "it.",
        )
    return found


def find_file(review: Review, file_path: str) -> str | None:
    """The one path of the diff ``file_path`` names; None when it names none (several,
    or an empty query, raise)."""
    if not isinstance(file_path, str) or not file_path.strip():
        raise InvalidArgument(
            "file_path is empty.",
            suggestion="Pass a path from list_chunks (e.g. 'src/main.py') or a glob "
            "matching exactly one file.",
            cli_suggestion="Pass a path as `diffchunk review` lists it (e.g. 'src/main.py') or "
            "a glob matching exactly one file.",
        )
    query = file_path.strip()
    files = table_of(review.parsed.files, review.parsed.data)
    if files.indices_of(query):  # a path as listed: no look at the others
        return query
    paths = _all_paths(review)
    renamed_from: dict[str, str] = {}
    for i in range(len(files)):
        old = files.old_path(i)
        if old:
            renamed_from[old] = files.path(i)
    one = len(query) <= MAX_PATTERN_LENGTH or "," not in query  # else a list of paths
    glob = PathPatterns([query], name="file_path") if one else None
    for candidates in (
        [p for p in paths if p == query],
        [p for p in paths if p.lower() == query.lower()],
        [renamed_from[query]] if query in renamed_from else [],
        [p for p in paths if glob is not None and glob.matches(p)],
    ):
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            shown = candidates[:MAX_CANDIDATES]
            more = (
                f" (and {len(candidates) - len(shown)} more)"
                if len(candidates) > len(shown)
                else ""
            )
            raise FileNotInDiff(
                f"{query!r} matches {len(candidates)} files of the diff: {', '.join(shown)}{more}.",
                suggestion="Pass one exact path, or a more specific glob.",
            )
    return None
