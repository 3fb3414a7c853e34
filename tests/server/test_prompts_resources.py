"""The prompts and resources of the MCP server, through the SDK's stdio client.

The prompts are listed with their arguments, render with them, and name only tools
the server has; the resource templates are listed, and reading one gives what the
tool it stands for gives on the review's diff file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mcp import types
from mcpkit import Caller, RunningServer
from recordkit import feature_repo

PROMPTS = {
    "review": {"target", "focus"},
    "review_since": {"target"},
    "address_findings": {"target"},
}


def _text(result: types.GetPromptResult) -> str:
    content = result.messages[0].content
    assert isinstance(content, types.TextContent)
    return content.text


def test_prompts_are_listed_and_name_only_real_tools(server: RunningServer) -> None:
    async def script(c: Caller) -> None:
        listed = await c.session.list_prompts()
        arguments = {p.name: {a.name for a in p.arguments or []} for p in listed.prompts}
        assert arguments == PROMPTS
        required = {
            p.name: {a.name for a in p.arguments or [] if a.required} for p in listed.prompts
        }
        assert required["review"] == {"target"}
        tools = {t.name for t in (await c.session.list_tools()).tools}
        for name, args in (
            ("review", {"target": "main..feature", "focus": "error handling"}),
            ("review_since", {"target": "main..feature"}),
            ("address_findings", {"target": "/tmp/changes.diff"}),
        ):
            text = _text(await c.session.get_prompt(name, args))
            assert args["target"] in text
            called = set(re.findall(r"\b([a-z_]+)\(", text))
            assert called, text
            assert called <= tools, called - tools
        focused = _text(await c.session.get_prompt("review", {"target": "x..y", "focus": "SQL"}))
        assert "Focus on: SQL" in focused
        plain = _text(await c.session.get_prompt("review", {"target": "x..y"}))
        assert "Focus on" not in plain
        since = _text(await c.session.get_prompt("review_since", {"target": "x..y"}))
        assert "since_review=true" in since

    server.run(script)


def test_resources_read_what_the_tools_give(server: RunningServer, tmp_path: Path) -> None:
    repo = feature_repo(tmp_path / "repo")

    async def script(c: Caller) -> None:
        templates = (await c.session.list_resource_templates()).resource_templates
        assert {t.uri_template for t in templates} >= {
            "diffchunk://reviews/{review_id}",
            "diffchunk://reviews/{review_id}/findings",
            "diffchunk://reviews/{review_id}/chunks/{chunk}",
            "diffchunk://reviews/{review_id}/files/{+path}",
        }
        loaded = await c.json(
            "load_git_diff", absolute_repo_path=str(repo), revision_range="main..feature"
        )
        path = loaded["file_path"]
        await c.json(
            "add_finding",
            absolute_file_path=path,
            file_path="src/a.py",
            line=10,
            message="Why ten?",
        )
        status = await c.json("review_status", absolute_file_path=path)
        rid = status["review"]["id"]

        async def read(uri: str) -> str:
            result = await c.session.read_resource(uri)
            block = result.contents[0]
            assert isinstance(block, types.TextResourceContents)
            return block.text

        via_resource = json.loads(await read(f"diffchunk://reviews/{rid}"))
        assert via_resource["review"] == status["review"]
        assert via_resource["totals"] == status["totals"]
        findings = json.loads(await read(f"diffchunk://reviews/{rid}/findings"))
        assert [f["message"] for f in findings["findings"]] == ["Why ten?"]
        chunk = await read(f"diffchunk://reviews/{rid}/chunks/1")
        assert chunk == await c.json(
            "get_chunk", absolute_file_path=path, chunk_number=1, include_context=False
        )
        file_diff = await read(f"diffchunk://reviews/{rid}/files/src/a.py")
        assert file_diff == await c.json(
            "get_file_diff", absolute_file_path=path, file_path="src/a.py"
        )
        assert "+a ten" in file_diff
        for bad in (f"diffchunk://reviews/{rid + 100}", f"diffchunk://reviews/{rid}/chunks/99"):
            with pytest.raises(Exception) as caught:
                await read(bad)
            assert "review" in str(caught.value).lower() or "chunk" in str(caught.value).lower()

    server.run(script)
