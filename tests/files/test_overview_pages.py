"""get_overview reaches every definition: the outline in pages, and symbol queries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from diffchunk.cli import main as cli
from diffchunk.errors import InvalidArgument
from diffchunk.files.access import clear_cache
from diffchunk.files.outline import build_outline, describe_context
from diffchunk.files.overview import OUTLINE_PAGE_ITEMS, get_overview
from tests.support.test_data import typescript_bundle


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_cache()


def _nodes(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for item in items:
        out.append(item)
        out.extend(_nodes(item["children"]))
    return out


def _module(tmp_path: Path, classes: int, methods: int) -> Path:
    """A Python module of ``classes`` classes of ``methods`` methods, then a function."""
    parts = []
    for c in range(classes):
        parts.append(f"class C{c}:\n")
        parts.extend(f"    def m{c}_{m}(self):\n        return {m}\n\n" for m in range(methods))
    parts.append("def last_one():\n    return 0\n")
    path = tmp_path / "big.py"
    path.write_text("".join(parts))
    return path


def test_a_small_outline_is_one_page_without_a_next(tmp_path: Path) -> None:
    path = _module(tmp_path, 2, 3)
    overview = get_overview(str(path)).to_dict()
    assert overview["outline_total"] == 2 + 6 + 1 == len(_nodes(overview["outline"]))
    assert "outline_next_offset" not in overview and "symbols" not in overview
    assert [m["name"] for m in overview["outline"][0]["children"]] == ["m0_0", "m0_1", "m0_2"]


def test_pages_reach_every_definition_with_classes_keeping_their_members(tmp_path: Path) -> None:
    # 150 classes x 6 methods + a function: 1,051 items, three pages of 400.
    path = _module(tmp_path, 150, 6)
    seen: list[dict[str, Any]] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        overview = get_overview(str(path), outline_offset=offset).to_dict()
        assert overview["outline_total"] == 1051
        nodes = _nodes(overview["outline"])
        assert len(nodes) == min(OUTLINE_PAGE_ITEMS, 1051 - offset)
        seen.extend(nodes)
        offset = overview.get("outline_next_offset")
        pages += 1
    assert pages == 3
    names = [n["name"] for n in seen]
    assert len(names) == len(set(names)) == 1051 and names[-1] == "last_one"
    # 400 = 57 classes of 7 items + C57: the page says that C57's 6 methods come
    # next; the second page opens inside C57 and names it.
    first = get_overview(str(path)).to_dict()
    c57 = first["outline"][-1]
    assert (c57["name"], len(c57["children"]), c57["children_omitted"]) == ("C57", 0, 6)
    second = get_overview(str(path), outline_offset=400).to_dict()
    assert second["outline"][0]["name"] == "m57_0" and second["outline"][0]["parent"] == "C57"
    assert any("outline_offset=400" in w for w in first["warnings"])


def test_symbol_queries_find_definitions_at_any_depth(tmp_path: Path) -> None:
    path = _module(tmp_path, 150, 6)
    found = get_overview(str(path), symbol="m149_5").to_dict()
    assert found["outline"] == [] and found["symbols_total"] == 1
    [method] = found["symbols"]
    assert (method["qualified_name"], method["type"], method["parent"]) == (
        "C149.m149_5",
        "method",
        "C149",
    )
    lines = path.read_text().splitlines()
    assert lines[method["line_number"] - 1].strip() == "def m149_5(self):"
    assert method["end_line"] == method["line_number"] + 1
    assert get_overview(str(path), symbol="C3.*").to_dict()["symbols_total"] == 6
    assert get_overview(str(path), symbol="C14?").to_dict()["symbols_total"] == 10
    ignored = get_overview(str(path), symbol="LAST_ONE").to_dict()
    assert [s["name"] for s in ignored["symbols"]] == ["last_one"]
    assert any("case ignored" in w for w in ignored["warnings"])
    many = get_overview(str(path), symbol="m*").to_dict()
    assert many["symbols_total"] == 900 and len(many["symbols"]) == 200
    assert get_overview(str(path), symbol="nothing").to_dict()["symbols"] == []


def test_an_offset_past_the_outline_is_refused(tmp_path: Path) -> None:
    path = _module(tmp_path, 1, 1)
    with pytest.raises(InvalidArgument, match="past the end: the outline has 3 items"):
        get_overview(str(path), outline_offset=3)


def test_typescript_bundle_every_definition_is_reachable() -> None:
    bundle = str(typescript_bundle())
    overview = get_overview(bundle).to_dict()
    assert overview["line_count"] > 200_000 and overview["outline_total"] > 9_000
    assert overview["outline_next_offset"] == OUTLINE_PAGE_ITEMS
    found = get_overview(bundle, symbol="createProgram").to_dict()
    [program] = found["symbols"]
    with open(bundle, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    assert "function createProgram(" in lines[program["line_number"] - 1]
    assert program["end_line"] - program["line_number"] > 500
    last_page = overview["outline_total"] // OUTLINE_PAGE_ITEMS * OUTLINE_PAGE_ITEMS
    tail = get_overview(bundle, outline_offset=last_page).to_dict()
    assert "outline_next_offset" not in tail
    assert _nodes(tail["outline"])[-1]["line_number"] > 0.9 * overview["line_count"]


def test_cli_overview_pages_and_queries(tmp_path: Path) -> None:
    path = _module(tmp_path, 150, 6)
    result = CliRunner().invoke(cli, ["file", "overview", str(path), "--symbol", "C7.m7_2"])
    assert result.exit_code == 0, result.output
    assert "method C7.m7_2  (lines" in result.output
    paged = CliRunner().invoke(
        cli, ["file", "overview", str(path), "--outline-offset", "1000", "--json"]
    )
    assert paged.exit_code == 0, paged.output
    data = json.loads(paged.output)
    assert [n["name"] for n in _nodes(data["outline"])][-1] == "last_one"


NESTED = """\
class Dialect:
    def fix_case(self, rows):
        if self.casing:

            def lower(s):
                return s.lower()

        else:

            def lower(s):
                return s

        return [lower(r) for r in rows]

    def other(self):
        def lower(s):
            return s

        return lower
"""


def test_qualified_names_hold_every_enclosing_definition(tmp_path: Path) -> None:
    # The method used to be left out ("Dialect.lower" three times).
    path = tmp_path / "dialect.py"
    path.write_text(NESTED)
    found = get_overview(str(path), symbol="*lower*").to_dict()["symbols"]
    assert [(s["qualified_name"], s["parent"], s["line_number"]) for s in found] == [
        ("Dialect.fix_case.lower", "fix_case", 5),
        ("Dialect.fix_case.lower", "fix_case", 10),
        ("Dialect.other.lower", "other", 16),
    ]

    def query(symbol: str) -> list[str]:
        found = get_overview(str(path), symbol=symbol).to_dict()["symbols"]
        return [s.get("qualified_name", s["name"]) for s in found]

    assert len(query("lower")) == 3  # by the short name
    assert query("Dialect.fix_case.lower") == ["Dialect.fix_case.lower"] * 2
    assert query("*.other.*") == ["Dialect.other.lower"]
    assert query("Dialect.*") == [
        "Dialect.fix_case",
        "Dialect.fix_case.lower",
        "Dialect.fix_case.lower",
        "Dialect.other",
        "Dialect.other.lower",
    ]
    assert query("Dialect.lower") == []
    outline = build_outline(path.read_bytes(), "python")
    assert describe_context(outline, 11) == "inside function Dialect.fix_case.lower()"
    assert describe_context(outline, 13) == "inside method Dialect.fix_case()"
