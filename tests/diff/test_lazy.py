"""The diff's column tables are sequences as a tuple of their items is.

A real diff (a git repository's, with a file the filter leaves out) is built
into a review; its file table, kept files, excluded files and each chunk's
parts are :class:`~diffchunk.diff.lazy.LazySequence` s that index, slice,
compare and hash as the tuple of the same items does.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from gitrepo import commit, git_bytes, init_repo

from diffchunk.diff.lazy import LazySequence
from diffchunk.diff.pipeline import LoadOptions, Review, build_review


@pytest.fixture
def review(tmp_path: Path) -> Review:
    repo = init_repo(tmp_path / "repo")
    lines = "".join(f"line {i}\n" for i in range(40))
    commit(repo, {"a.py": lines, "b.py": lines, "package-lock.json": "{}\n"}, "one")
    changed = lines.replace("line 5\n", "five\n").replace("line 30\n", "thirty\n")
    commit(
        repo,
        {"a.py": changed, "b.py": changed, "c.py": "new\n", "package-lock.json": "{ }\n"},
        "two",
    )
    data = git_bytes(repo, "diff", "HEAD~1", "HEAD")
    return build_review(data, LoadOptions(max_chunk_lines=20))


def _as_a_tuple(items: Sequence[Any], what: str) -> None:
    assert isinstance(items, LazySequence)
    built = tuple(items)
    n = len(built)
    assert n >= 1
    assert [items[k] for k in range(n)] == list(built)
    assert [items[-k] for k in range(1, n + 1)] == [built[-k] for k in range(1, n + 1)]
    assert items[1:] == list(built[1:]) and items[::-1] == list(built[::-1])
    assert items == built and items == list(built) and hash(items) == hash(built)
    assert items != built[:-1] and items != "x"
    for index in (n, -n - 1):
        with pytest.raises(IndexError, match=f"^{what} out of range$"):
            items[index]


def test_the_tables_of_a_review_are_sequences_as_tuples_are(review: Review) -> None:
    _as_a_tuple(review.parsed.files, "file index")
    _as_a_tuple(review.kept, "kept file")
    _as_a_tuple(review.excluded, "excluded file")
    assert [e.path for e in review.excluded] == ["package-lock.json"]
    assert len(review.chunks) > 1
    for chunk in review.chunks:
        _as_a_tuple(chunk.parts, "chunk part")
