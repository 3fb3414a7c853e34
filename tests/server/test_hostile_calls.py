"""Hostile input to every MCP tool, through the SDK's in-process client.

A generated matrix: for every tool and every parameter, values of the wrong
type (taken from the tool's own input schema), plus hand-picked hostile values
(paths to FIFOs, devices, loops, sparse 2 GB files; huge and negative numbers;
invalid and catastrophic regexes; globs of pathological size; malformed edit
batches).  Each call must answer within a time bound, as an ``isError`` result
whose text names the problem (or as a valid result when the input is
legitimately valid), and the server must keep serving afterwards.  Then named
cases on the hostile file system, and the installed stdio server under a few
hostile calls.  The cases and the runner are in ``hostile_mcp`` and
``hostile_values``; huge limits on a large file are in
``tests/server/test_hostile_large.py``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.from_thread import BlockingPortal
from hostile_mcp import (
    EXPECTED_TOOLS,
    SCHEMAS,
    TIME_LIMIT,
    TOOLS,
    Case,
    check_answer,
    fill_paths,
    generated_type_cases,
    hostile_files,
    in_process_client,
    path_cases,
    reply_text,
    run_case,
    timed_call,
    valid_args,
)
from hostile_values import value_cases
from mcp import Client
from mcpkit import Caller, RunningServer

from diffchunk.server import app


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    with hostile_files(tmp_path_factory.mktemp("hostile")) as paths:
        yield paths


@pytest.fixture(scope="module")
def session() -> Iterator[tuple[BlockingPortal, Any]]:
    """The module's in-process client session: every case of the matrix is called in it,
    each followed by a plain call that shows the server still serves."""
    with in_process_client() as opened:
        yield opened


CASES = generated_type_cases() + path_cases() + value_cases()


def test_matrix_covers_every_tool_and_parameter() -> None:
    assert set(TOOLS) == EXPECTED_TOOLS
    covered = {(c.tool, name) for c in CASES for name in c.args}
    for tool in TOOLS:
        for name in SCHEMAS[tool].get("properties", {}):
            assert (tool, name) in covered, f"{tool}.{name} has no hostile case"
    assert len(CASES) > 300


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=c.id, marks=[pytest.mark.permissions] if "nonroot" in c.needs else [])
        for c in CASES
    ],
)
def test_hostile_mcp_call(
    case: Case, env: dict[str, str], session: tuple[BlockingPortal, Any]
) -> None:
    portal, client = session
    result, elapsed, healthy = portal.call(run_case, client, case, env)
    check_answer(case, result, elapsed, healthy)


def test_revert_edit_backup_id_path_traversal_reads_nothing(env: dict[str, str]) -> None:
    secret = Path(env["root"]) / "secret.txt"
    secret.write_text("TOP SECRET\n")
    target = Path(env["root"]) / "victim.txt"
    target.write_text("hello\n")

    async def go() -> Any:
        async with Client(app) as client:
            return await client.call_tool(
                "revert_edit",
                {"absolute_file_path": str(target), "backup_id": f"../../../..{secret}"},
            )

    result = anyio.run(go)
    assert result.is_error
    assert target.read_text() == "hello\n"
    assert "TOP SECRET" not in reply_text(result)


def test_proc_pseudo_file_is_read_not_reported_empty() -> None:
    async def go() -> tuple[Any, Any]:
        async with Client(app) as client:
            overview = await client.call_tool(
                "get_overview", {"absolute_file_path": "/proc/self/status"}
            )
            edit = await client.call_tool(
                "edit_content",
                {
                    "absolute_file_path": "/proc/self/status",
                    "changes": [{"search": "Name:", "replace": "Nope:"}],
                },
            )
            return overview, edit

    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc on this system")
    overview, edit = anyio.run(go)
    assert not overview.is_error, reply_text(overview)
    assert json.loads(reply_text(overview))["line_count"] > 0
    assert edit.is_error and "special file" in reply_text(edit)


def test_non_utf8_real_path_gives_a_sendable_reply(env: dict[str, str]) -> None:
    async def go() -> list[Any]:
        async with Client(app) as client:
            return [
                await client.call_tool("load_diff", {"absolute_file_path": env["nonutf8_link"]}),
                await client.call_tool("revert_edit", {"absolute_file_path": env["nonutf8_link"]}),
                await client.call_tool("get_current_overview", {}),
            ]

    for result in anyio.run(go):
        text = reply_text(result)
        text.encode("utf-8")  # an unpaired surrogate here would make the reply unsendable
        assert "\\udcff" in text, text  # the odd byte stays visible, escaped


def test_get_file_diff_path_traversal_never_reads_the_disk(env: dict[str, str]) -> None:
    async def go() -> Any:
        async with Client(app) as client:
            return await client.call_tool(
                "get_file_diff",
                {"absolute_file_path": env["diff"], "file_path": "../../../../../etc/hostname"},
            )

    result = anyio.run(go)
    assert result.is_error
    assert "No file of the diff matches" in reply_text(result)


def test_edit_content_through_symlink_keeps_the_link(env: dict[str, str]) -> None:
    real = Path(env["root"]) / "real_target.py"
    real.write_text("x = 1\n")
    link = Path(env["root"]) / "link_to_target.py"
    link.symlink_to(real)

    async def go() -> Any:
        async with Client(app) as client:
            return await client.call_tool(
                "edit_content",
                {
                    "absolute_file_path": str(link),
                    "changes": [{"search": "x = 1", "replace": "x = 2"}],
                    "preview": False,
                },
            )

    result = anyio.run(go)
    assert not result.is_error, reply_text(result)
    assert link.is_symlink()
    assert real.read_text() == "x = 2\n"


def test_fifo_is_refused_without_blocking_over_every_path_tool(env: dict[str, str]) -> None:
    async def go() -> list[tuple[str, Any, float]]:
        out = []
        async with Client(app) as client:
            for tool in TOOLS:
                if "absolute_file_path" not in SCHEMAS[tool].get("properties", {}):
                    continue
                args = fill_paths(valid_args(tool), env)
                args["absolute_file_path"] = env["fifo"]
                with anyio.fail_after(5):
                    result, elapsed = await timed_call(client, tool, args)
                out.append((tool, result, elapsed))
        return out

    for tool, result, elapsed in anyio.run(go):
        assert result.is_error, tool
        assert re.search("FIFO|pipe", reply_text(result)), (tool, reply_text(result))
        assert elapsed.within(TIME_LIMIT)


def test_sparse_2gb_file_is_not_read_whole(env: dict[str, str]) -> None:
    async def go() -> dict[str, Any]:
        async with Client(app) as client:
            out = {}
            for tool, args in (
                ("load_diff", {"absolute_file_path": env["sparse"]}),
                ("get_overview", {"absolute_file_path": env["sparse"]}),
                ("search_content", {"absolute_file_path": env["sparse"], "pattern": "x"}),
            ):
                out[tool] = await timed_call(client, tool, args)
            return out

    out = anyio.run(go)
    load, elapsed = out["load_diff"]
    assert load.is_error and elapsed.within(TIME_LIMIT)
    assert re.search("not look like a diff|too large", reply_text(load))
    overview, elapsed = out["get_overview"]
    assert not overview.is_error and elapsed.within(TIME_LIMIT)
    assert json.loads(reply_text(overview))["is_binary"] is True
    search, elapsed = out["search_content"]
    assert search.is_error and "binary" in reply_text(search) and elapsed.within(TIME_LIMIT)


# --------------------------------------------------------------------------
# The installed stdio server (the worker's): a few hostile calls, then a healthy one
# --------------------------------------------------------------------------


STDIO_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("get_chunk", {"absolute_file_path": "{fifo}", "chunk_number": 1}, "FIFO|pipe"),
    ("get_chunk", {"absolute_file_path": "{diff}", "chunk_number": True}, "chunk_number"),
    ("get_chunk", {"absolute_file_path": "{diff}", "chunk_number": "x"}, "chunk_number"),
    ("load_diff", {"absolute_file_path": "{sparse}"}, "not look like a diff"),
    ("read_content", {"absolute_file_path": "/dev/zero"}, "device"),
    # A pattern that backtracks in Python's re: answered at once (RE2, linear time).
    (
        "search_content",
        {"absolute_file_path": "{source}", "pattern": "(a+)+$", "regex": True, "fuzzy": False},
        "",
    ),
    ("edit_content", {"absolute_file_path": "{source}", "changes": "nope"}, "changes"),
    ("list_chunks", {"absolute_file_path": "{diff}", "limit": 0}, "limit"),
    # Replies that carry a real path which is not UTF-8 (the link's target).
    ("revert_edit", {"absolute_file_path": "{nonutf8_link}"}, "no backups"),
    ("load_diff", {"absolute_file_path": "{nonutf8_link}"}, ""),
]


def test_stdio_server_survives_hostile_calls(server: RunningServer, env: dict[str, str]) -> None:
    outcomes: list[tuple[Any, Any, Any]] = []

    async def script(c: Caller) -> None:
        for tool, args, _ in STDIO_CASES:
            # A reply the server cannot encode never comes: fail, do not hang.
            with anyio.fail_after(10):
                result, elapsed = await timed_call(c.session, tool, fill_paths(args, env))
                healthy = await c.session.call_tool(
                    "list_chunks", {"absolute_file_path": env["diff"]}
                )
            outcomes.append((result, elapsed, healthy))

    server.run(script)
    for (tool, _, needle), (result, elapsed, healthy) in zip(STDIO_CASES, outcomes, strict=True):
        text = reply_text(result)
        if needle:
            assert result.is_error, (tool, text)
            assert re.search(needle, text, re.IGNORECASE), (tool, text)
        else:
            assert not result.is_error, (tool, text)
        assert elapsed.within(TIME_LIMIT + 0.5), (tool, str(elapsed))
        assert not healthy.is_error, reply_text(healthy)
