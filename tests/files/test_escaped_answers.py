"""read_content and search_content answers stay within one response as the JSON text
sent: quotes, backslashes and line breaks take two characters there, so content cut at
80,000 characters answered more (a Python file read with limit=100000: 83,272; content
this escape-heavy, about 100,000).  The answer still says it was cut and where to go on;
a search stopped by the answer's size says so, not "raise max_results"."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from mcpkit import Caller, RunningServer

from diffchunk.files import content_read
from diffchunk.files.access import clear_cache
from diffchunk.files.answer_size import escaped_size, fitting_head, fitting_tail
from diffchunk.files.content_read import read_content
from diffchunk.files.content_search import search_content
from diffchunk.limits import CHARS_PER_TOKEN, RESPONSE_TOKENS

LIMIT = RESPONSE_TOKENS * CHARS_PER_TOKEN


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_cache()


def _sent(result: Any) -> str:
    """The answer as the MCP tool sends it (server.app.to_json of the result)."""
    return json.dumps(result.to_dict(), ensure_ascii=False, separators=(",", ":"))


def _line(i: int) -> str:
    """A line of escaping-heavy Python: regexes, quoted strings, Windows paths."""
    return (
        f'    PATTERN_{i} = re.compile(r"\\"(?:[^\\"\\\\]|\\\\.)*\\"")  '
        f'# "{i}" in C:\\\\data\\\\{i}\\\\"file".txt\t"x"'
    )


@pytest.fixture(scope="module")
def escaped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 4,000-line Python file: a class of one 1,500-line method, then escaped lines."""
    lines = ["import re", "", "class Table:", "    def rows(self):", "        return ["]
    lines += [f"            {_line(i).strip()!r}," for i in range(1500)]
    lines += ["        ]", ""]
    lines += [_line(i) for i in range(1500, 1500 + 4000 - len(lines))]
    path = tmp_path_factory.mktemp("escaped") / "escaped.py"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _file_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


@pytest.mark.parametrize("mode", ["lines", "head", "semantic"])
def test_a_read_cut_to_fit_says_where_to_read_on(escaped: Path, mode: str) -> None:
    offset = 5 if mode == "semantic" else 1
    result = read_content(str(escaped), offset=offset, limit=100_000, mode=mode)
    text = _sent(result)
    assert LIMIT - 2_000 < len(text) <= LIMIT  # full, not over (escapes counted)
    assert len(result.content) < LIMIT * 0.9  # the escapes take the rest
    assert result.truncated and result.end_line is not None
    also = "" if mode == "lines" else " and mode='lines'"
    assert result.warnings[-1].endswith(f"read on with offset={result.end_line + 1}{also}.")
    lines = _file_lines(escaped)
    assert result.content == "\n".join(lines[result.start_line - 1 : result.end_line])  # type: ignore[operator]


def test_reading_on_from_where_a_read_stopped_reads_the_whole_file(escaped: Path) -> None:
    lines = _file_lines(escaped)
    read: list[str] = []
    offset = 1
    while True:
        result = read_content(str(escaped), offset=offset, limit=100_000)
        assert len(_sent(result)) <= LIMIT
        read += result.content.split("\n")
        if not result.truncated:
            break
        offset = int(result.warnings[-1].rsplit("offset=", 1)[1].rstrip("."))
    assert read == lines


def test_a_tail_cut_to_fit_still_ends_at_the_last_line(escaped: Path) -> None:
    result = read_content(str(escaped), limit=100_000, mode="tail")
    assert LIMIT - 2_000 < len(_sent(result)) <= LIMIT
    lines = _file_lines(escaped)
    assert result.end_line == len(lines) and result.truncated is True  # fewer lines than asked
    assert result.content == "\n".join(lines[result.start_line - 1 :])  # type: ignore[operator]
    assert f"before line {result.start_line} are left out" in result.warnings[-1]


@pytest.mark.parametrize("mode", ["lines", "tail"])
def test_a_line_larger_than_the_room_is_cut_inside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    path = tmp_path / "quotes.txt"
    path.write_text('"' * 900 + "\n" + '"' * 900 + "\n")
    monkeypatch.setattr(content_read, "READ_MAX_CONTENT_CHARS", 1_500)
    result = read_content(str(path), limit=2, mode=mode)
    assert len(_sent(result)) <= 1_500
    assert result.lines_returned == 1 and 300 < len(result.content) < 750
    assert set(result.content) == {'"'}


def test_the_cuts_are_the_longest_that_fit() -> None:
    rng = random.Random(7)
    for _ in range(3_000):
        text = "".join(rng.choice('ab"\\\n\t\x01é') for _ in range(rng.randint(0, 40)))
        room = rng.randint(0, 60)
        head, tail = fitting_head(text, room), fitting_tail(text, room)
        assert escaped_size(text[:head]) <= room and escaped_size(text[tail:]) <= room
        breaks = [i for i, c in enumerate(text) if c == "\n"]
        if head < len(text):  # the last line break that fits, else inside the first line
            fit = [i for i in breaks if escaped_size(text[:i]) <= room]
            first = breaks[0] if breaks else len(text)
            assert head == max(fit) if fit else head < first
        if tail > 0:  # the first line start that fits, else inside the last line
            fit = [i + 1 for i in breaks if escaped_size(text[i + 1 :]) <= room]
            last = breaks[-1] + 1 if breaks else 0
            assert tail == min(fit) if fit else tail > last


def test_a_search_full_of_quotes_stops_within_the_bound(escaped: Path) -> None:
    result = search_content(str(escaped), "PATTERN", fuzzy=False, max_results=500, context_lines=50)
    assert len(_sent(result)) <= LIMIT
    assert result.total_matches == 4000 - 7 and 1 < len(result.results) < 500
    (note,) = result.warnings
    assert "stopped at about" in note and "raise max_results" not in note
    assert f"showing {len(result.results)} of {result.total_matches}" in note
    # Stopped by max_results: then raising it shows more.
    few = search_content(str(escaped), "PATTERN", fuzzy=False, max_results=5)
    assert "raise max_results" in few.warnings[-1] and len(few.results) == 5


def test_a_long_pattern_is_echoed_short(tmp_path: Path) -> None:
    """A pattern the size of a file does not take the answer's room: its start is repeated
    with its length."""
    line = "x" * 30_000
    target = tmp_path / "one_line.txt"
    target.write_text(f"before\n{line}\nafter\n")
    result = search_content(str(target), line, fuzzy=False)
    sent = _sent(result)
    assert len(sent) <= LIMIT and result.total_matches == 1
    assert json.loads(sent)["pattern"] == "x" * 500 + "… (30,000 characters)"
    counted = search_content(str(target), line, fuzzy=False, count_only=True)
    assert json.loads(_sent(counted))["pattern"].endswith("(30,000 characters)")


def test_one_result_whose_context_exceeds_an_answer(tmp_path: Path) -> None:
    path = tmp_path / "walls.txt"
    wall = ['"' * 490 + f" {i}" for i in range(50)]
    path.write_text("\n".join([*wall, "needle here", *wall]) + "\n")
    result = search_content(str(path), "needle", fuzzy=False, context_lines=50)
    assert len(_sent(result)) <= LIMIT
    (match,) = result.results
    assert match.line_number == 51 and match.match == "needle here"
    assert 10 < len(match.context_before) < 50 and 10 < len(match.context_after) < 50
    assert match.context_after[0] == wall[0] and match.context_before[-1] == wall[-1]
    assert any("context of line 51 is cut" in w for w in result.warnings)


def test_the_bound_over_mcp(escaped: Path, server: RunningServer) -> None:
    texts: dict[str, str] = {}

    async def script(c: Caller) -> None:
        for name, tool, args in (
            ("read", "read_content", {"limit": 100_000}),
            ("tail", "read_content", {"limit": 100_000, "mode": "tail"}),
            (
                "search",
                "search_content",
                {"pattern": '"', "fuzzy": False, "max_results": 500, "context_lines": 50},
            ),
        ):
            result = await c.raw(tool, absolute_file_path=str(escaped), **args)
            assert not result.is_error
            texts[name] = result.content[0].text  # type: ignore[union-attr]

    server.run(script)
    assert all(LIMIT / 2 < len(t) <= LIMIT for t in texts.values()), {
        k: len(t) for k, t in texts.items()
    }
    read = json.loads(texts["read"])
    assert read["truncated"] and f"offset={read['end_line'] + 1}" in read["warnings"][-1]
    assert "raise max_results" not in texts["search"]
