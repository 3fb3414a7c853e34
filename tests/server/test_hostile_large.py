"""Huge limits on a larger file, through the SDK's in-process client: bounded work
and bounded replies (see ``tests/server/test_hostile_calls.py`` for the other hostile input)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from hostile_mcp import TIME_LIMIT, reply_text, timed_call
from mcp import Client
from timing import Stopwatch

from diffchunk.server import app


@pytest.fixture(scope="module")
def many_lines(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("many") / "many.txt"
    path.write_bytes(b"abcdefgh xyz\n" * 400_000)
    return str(path)


async def _calls(calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[Any, float]]:
    async with Client(app) as client:
        return [await timed_call(client, tool, args) for tool, args in calls]


def test_huge_limits_on_a_large_file_stay_bounded(many_lines: str) -> None:
    f: dict[str, Any] = {"absolute_file_path": many_lines}
    calls: list[tuple[str, dict[str, Any]]] = [
        ("read_content", {**f, "limit": 10**9}),
        ("read_content", {**f, "limit": 10**9, "mode": "tail"}),
        ("read_content", {**f, "limit": 10**9, "mode": "head"}),
        (
            "search_content",
            {
                **f,
                "pattern": "xyz",
                "fuzzy": False,
                "max_results": 10**9,
                "context_lines": 10**9,
            },
        ),
        ("read_content", {**f, "pattern": "q" * 5000}),
    ]
    outcomes = anyio.run(_calls, calls)
    for (result, elapsed), limit in zip(outcomes, (1.0, 1.0, 1.0, 1.0, 2.0), strict=True):
        assert elapsed.within(limit), (reply_text(result)[:200], str(elapsed))
        assert len(reply_text(result)) <= 80_000  # one answer, escapes included
    read = json.loads(reply_text(outcomes[0][0]))
    assert read["truncated"] is True and read["start_line"] == 1
    search = json.loads(reply_text(outcomes[3][0]))
    assert search["total_matches"] == 400_000
    assert any("stopped at about" in w for w in search["warnings"])
    assert not any("raise max_results" in w for w in search["warnings"])  # not the limit
    assert outcomes[4][0].is_error and "not found" in reply_text(outcomes[4][0])


def test_fuzzy_pattern_longer_than_every_line_matches_nothing(many_lines: str) -> None:
    """A 240-character pattern is not 80% similar to a 12-character line inside it."""
    outcomes = anyio.run(
        _calls,
        [("search_content", {"absolute_file_path": many_lines, "pattern": "abcdefgh xyz" * 20})],
    )
    result, _ = outcomes[0]
    assert json.loads(reply_text(result))["total_matches"] == 0


def test_fuzzy_search_stops_at_its_time_budget(
    many_lines: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diffchunk.files import content_search, fuzzy

    monkeypatch.setattr(fuzzy, "FUZZY_TIME_BUDGET", 0.05)
    watch = Stopwatch()
    found = content_search.search_content(many_lines, "abcdefgh xyy").to_dict()
    assert watch.elapsed().within(TIME_LIMIT)
    assert any("Fuzzy search stopped" in w for w in found["warnings"])


def test_edit_with_huge_search_text_on_a_large_file_is_bounded(many_lines: str) -> None:
    f: dict[str, Any] = {"absolute_file_path": many_lines}
    calls: list[tuple[str, dict[str, Any]]] = [
        ("edit_content", {**f, "changes": [{"search": "z" * 2_000_000, "replace": "x"}]}),
        ("edit_content", {**f, "changes": [{"search": "z" * 20_000, "replace": "x"}]}),
    ]
    (huge, huge_time), (long, long_time) = anyio.run(_calls, calls)
    assert huge_time.within(TIME_LIMIT) and long_time.within(TIME_LIMIT)
    assert "too long for fuzzy matching" in reply_text(huge)
    assert json.loads(reply_text(long))["success"] is False
