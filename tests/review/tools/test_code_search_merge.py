"""search_code reads the object store's files and the work tree's in one path order
(:func:`diffchunk.review.tools.code_search._merged`): the same order as before on lists
of any length, in one pass (half a million work-tree files took 19 s here when each
path was taken from the front of a list, where one pass takes 0.3 s)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence
from types import SimpleNamespace

import pytest

from diffchunk.git.trees import TreeFile
from diffchunk.review.tools import code_search

MERGE_BOUND_SECONDS = 10.0
"""Far more than a linear merge of a million paths takes (0.3 s here): only a merge
that hangs (one quadratic in the work tree's files) passes it."""


def _merge(stored: list[str], local: list[str], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What _merged yields, as ``stored:PATH`` / ``local:PATH`` (git stands in: its blobs
    are the stored files' own paths, read in order)."""

    def blobs(repo: object, files: Sequence[TreeFile]) -> Iterator[tuple[TreeFile, bytes]]:
        return ((f, b"stored") for f in files)

    monkeypatch.setattr(code_search, "read_tree_blobs", blobs)
    tree = SimpleNamespace(repo=None, local_content=lambda path: b"local")
    files = [TreeFile(p, "100644", "0" * 40, 1) for p in stored]
    merged = code_search._merged(files, local, tree)
    return [f"{data.decode()}:{path}" for path, data in merged]


def _expected(stored: list[str], local: list[str]) -> list[str]:
    """The order git grep lists: by path, a stored file before the work tree's file of
    the same path."""
    tagged = [(p, 0) for p in stored] + [(p, 1) for p in local]
    return [f"{'stored' if k == 0 else 'local'}:{p}" for p, k in sorted(tagged)]


@pytest.mark.parametrize("seed", range(5))
def test_the_merge_keeps_git_greps_order(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    names = [f"{rng.choice('abc')}/{rng.choice('xyz')}{rng.randrange(50)}.py" for _ in range(400)]
    stored = sorted(set(names[:250]))
    local = sorted(set(names[150:]))  # some paths both stored and in the work tree
    assert _merge(stored, local, monkeypatch) == _expected(stored, local)
    assert _merge([], local, monkeypatch) == _expected([], local)
    assert _merge(stored, [], monkeypatch) == _expected(stored, [])


def test_half_a_million_work_tree_files_merge_in_one_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    count = 500_000
    local = [f"src/mod{i:07d}.py" for i in range(0, 2 * count, 2)]
    stored = [f"src/mod{i:07d}.py" for i in range(1, 2 * count, 2)]
    started = time.monotonic()
    merged = _merge(stored, local, monkeypatch)
    assert time.monotonic() - started < MERGE_BOUND_SECONDS
    assert merged[:3] == [
        "local:src/mod0000000.py",
        "stored:src/mod0000001.py",
        "local:src/mod0000002.py",
    ]
    assert len(merged) == 2 * count and merged[-1] == "stored:src/mod0999999.py"
