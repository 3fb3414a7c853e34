"""fdio.prune_newest_first: the one way a bounded directory drops what is beyond its bounds."""

from __future__ import annotations

from diffchunk.fdio import prune_newest_first


def _prune(sizes: list[int], **bounds: object) -> list[str]:
    entries = [(size, f"e{i}") for i, size in enumerate(sizes)]  # e0 is the newest
    return prune_newest_first(entries, lambda entry: entry != "stuck", **bounds)  # type: ignore[arg-type]


def test_the_newest_stay_within_the_count_and_the_bytes() -> None:
    assert _prune([1, 1, 1, 1], max_count=2) == ["e2", "e3"]
    assert _prune([5, 5, 5], max_bytes=10) == ["e2"]
    assert _prune([5, 5, 5], max_bytes=10, used=5) == ["e1", "e2"]  # a write under way counts


def test_what_is_spared_counts_and_stays() -> None:
    assert _prune([1, 1, 1], max_count=1, spare=("e2",)) == ["e1"]
    assert _prune([1, 1, 1], max_count=1, spare=("e0",)) == ["e1", "e2"]


def test_the_least_newest_stay_whatever_their_size_and_stale_ones_go() -> None:
    assert _prune([50, 5], max_bytes=10) == ["e0"]
    assert _prune([50, 5], max_bytes=10, least=1) == ["e1"]
    assert _prune([1, 1, 1], stale=lambda entry: entry == "e0") == ["e0"]


def test_only_what_was_removed_no_longer_counts() -> None:
    entries = [(5, "stuck"), (5, "e1"), (5, "e2")]
    assert prune_newest_first(entries, lambda entry: entry != "stuck", max_bytes=5) == ["e1", "e2"]
