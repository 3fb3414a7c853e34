"""What every conversation reads first: the tool list and the server's instructions,
measured as ``make bench-tokens`` measures them, through the installed server and the
SDK's stdio client: both checks only read the list, so they share the module's server."""

from __future__ import annotations

import json
from typing import Any

from mcp import types
from mcpkit import Caller, RunningServer

#: Every conversation reads the tool list and the server's instructions before any
#: work (issue 29: at most 14,000 characters, however many tools are added; 13,023
#: today, the bound a little above so that what is added is weighed).
TOOL_LIST_BUDGET = 13_300


def _listed_size(tools: list[types.Tool], instructions: str | None) -> int:
    """The tool list as ``make bench-tokens`` measures it: each tool's name, description
    and input schema as JSON, plus the instructions."""
    fields = {"name", "description", "input_schema"}
    listed = [t.model_dump(by_alias=True, exclude_none=True, include=fields) for t in tools]
    return sum(len(json.dumps(t, ensure_ascii=False)) for t in listed) + len(instructions or "")


def test_the_tool_list_and_instructions_fit_their_budget(server: RunningServer) -> None:
    seen: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        seen["tools"] = (await c.session.list_tools()).tools
        init = c.session.initialize_result
        seen["instructions"] = init.instructions if init is not None else None

    server.run(script)
    size = _listed_size(seen["tools"], seen["instructions"])
    assert size <= TOOL_LIST_BUDGET, f"{size:,} characters for {len(seen['tools'])} tools"
    # The instructions lead along the cheap path: the load's plan, code in lean with its
    # definitions whole, then the rest.
    assert 'context="symbol"' in seen["instructions"] and "load_git_diff" in seen["instructions"]


def test_the_schemas_leave_out_the_defaults_an_absent_value_means(
    server: RunningServer,
) -> None:
    """A flag's false, a page's 0 and an optional value's null go without saying; a
    default that says something stays."""
    seen: dict[str, Any] = {}

    async def script(c: Caller) -> None:
        seen["tools"] = {t.name: t for t in (await c.session.list_tools()).tools}

    server.run(script)
    defaults = [
        (name, param, spec["default"])
        for name, tool in seen["tools"].items()
        for param, spec in tool.input_schema["properties"].items()
        if "default" in spec
    ]
    assert not [d for d in defaults if d[2] is None or d[2] is False or d[2] == 0], defaults
    props = seen["tools"]["get_chunk"].input_schema["properties"]
    assert props["format"]["default"] == "raw" and props["include_context"]["default"] is True
    assert props["part"]["type"] == ["integer", "null"]
    assert "default" not in seen["tools"]["list_chunks"].input_schema["properties"]["offset"]
    assert seen["tools"]["read_content"].input_schema["properties"]["offset"]["default"] == 1
    # An object's other keys are allowed without saying so (JSON Schema's default).
    changes = seen["tools"]["edit_content"].input_schema["properties"]["changes"]
    assert changes == {"items": {"type": "object"}, "type": "array"}
