"""Allowed roots: the optional path policy of the MCP server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import MCPDeprecationWarning, types
from mcp.client import Client
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from pydantic import FileUrl

from diffchunk.errors import PathError
from diffchunk.paths import ROOTS_ENV, PathPolicy, check_allowed
from diffchunk.server import app, startup_policy
from diffchunk.server.app import configure_policy, root_path

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
DIFF_TEXT = (
    "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n"
)


@pytest.fixture(autouse=True)
def no_startup_policy(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(ROOTS_ENV, raising=False)
    configure_policy(None)
    yield
    configure_policy(None)


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """An allowed root with files, and a sibling directory outside it."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "sub" / "inside.txt").write_text("inside\n")
    (outside / "secret.txt").write_text("TOP SECRET\n")
    (root / "change.diff").write_text(DIFF_TEXT)
    (outside / "other.diff").write_text(DIFF_TEXT)
    return {"root": root, "outside": outside}


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def _calls(calls: list[tuple[str, dict[str, Any]]], **client: Any) -> list[Any]:
    async with Client(app, **client) as session:
        return [await session.call_tool(name, args) for name, args in calls]


def _run(calls: list[tuple[str, dict[str, Any]]], **client: Any) -> list[Any]:
    return anyio.run(lambda: _calls(calls, **client))


def _refused(result: types.CallToolResult, root: Path) -> str:
    assert result.is_error
    text = _text(result)
    assert "outside the allowed roots" in text
    assert os.path.realpath(root) in text
    assert "Ask the user to add its directory" in text
    assert "TOP SECRET" not in text
    return text


def test_policy_check_refuses_outside_and_allows_inside(tmp_path: Path) -> None:
    policy = PathPolicy.from_paths([str(tmp_path / "a"), str(tmp_path / "b")], ROOTS_ENV)
    assert policy.check(str(tmp_path / "a" / "x.txt")) == str(tmp_path / "a" / "x.txt")
    assert policy.check(str(tmp_path / "b")) == str(tmp_path / "b")
    with pytest.raises(PathError) as err:
        policy.check(str(tmp_path / "ab" / "x.txt"))  # a prefix, not a parent
    assert f"({tmp_path / 'a'}, {tmp_path / 'b'})" in str(err.value)
    assert ROOTS_ENV in str(err.value)
    check_allowed("/anything", ())  # no roots: no restriction


def test_file_tools_path_traversal(tree: dict[str, Path]) -> None:
    configure_policy(PathPolicy.from_paths([str(tree["root"])], "--allow-root"))
    escape = f"{tree['root']}/sub/../../outside/secret.txt"
    results = _run(
        [
            ("get_overview", {"absolute_file_path": escape}),
            ("read_content", {"absolute_file_path": escape}),
            ("search_content", {"absolute_file_path": escape, "pattern": "SECRET"}),
            (
                "edit_content",
                {
                    "absolute_file_path": escape,
                    "changes": [{"search": "TOP", "replace": "NO"}],
                    "preview": False,
                },
            ),
            ("revert_edit", {"absolute_file_path": escape}),
            ("read_content", {"absolute_file_path": f"{tree['root']}/sub/../sub/inside.txt"}),
        ]
    )
    for result in results[:5]:
        error = json.loads(_refused(result, tree["root"]))
        assert "--allow-root" in error["suggestion"]
    assert (tree["outside"] / "secret.txt").read_text() == "TOP SECRET\n"
    assert not results[5].is_error
    assert "inside" in json.loads(_text(results[5]))["content"]


def test_file_tools_symlink_escape(tree: dict[str, Path]) -> None:
    configure_policy(PathPolicy.from_paths([str(tree["root"])], "--allow-root"))
    out_link = tree["root"] / "escape.txt"
    out_link.symlink_to(tree["outside"] / "secret.txt")
    dir_link = tree["root"] / "outdir"
    dir_link.symlink_to(tree["outside"], target_is_directory=True)
    in_link = tree["outside"].parent / "root" / "alias.txt"
    in_link.symlink_to(tree["root"] / "sub" / "inside.txt")
    results = _run(
        [
            ("read_content", {"absolute_file_path": str(out_link)}),
            ("get_overview", {"absolute_file_path": str(dir_link / "secret.txt")}),
            (
                "edit_content",
                {
                    "absolute_file_path": str(out_link),
                    "changes": [{"search": "TOP", "replace": "NO"}],
                    "preview": False,
                },
            ),
            ("read_content", {"absolute_file_path": str(in_link)}),
        ]
    )
    for result in results[:3]:
        text = _refused(result, tree["root"])
        assert "resolves to" in text
    assert (tree["outside"] / "secret.txt").read_text() == "TOP SECRET\n"
    assert not results[3].is_error
    assert "inside" in json.loads(_text(results[3]))["content"]


def test_diff_tools_symlink_escape(tree: dict[str, Path]) -> None:
    configure_policy(PathPolicy.from_paths([str(tree["root"])], "--allow-root"))
    out_link = tree["root"] / "escape.diff"
    out_link.symlink_to(tree["outside"] / "other.diff")
    in_link = tree["root"] / "sub" / "alias.diff"
    in_link.symlink_to(tree["root"] / "change.diff")
    outside_attrs = tree["outside"] / ".gitattributes"
    outside_attrs.write_text("*.txt linguist-generated\n")
    results = _run(
        [
            ("load_diff", {"absolute_file_path": str(out_link)}),
            ("list_chunks", {"absolute_file_path": str(out_link)}),
            ("get_chunk", {"absolute_file_path": str(out_link), "chunk_number": 1}),
            ("get_file_diff", {"absolute_file_path": str(out_link), "file_path": "a.txt"}),
            ("find_chunks_for_files", {"absolute_file_path": str(out_link), "pattern": "*"}),
            (
                "load_diff",
                {
                    "absolute_file_path": str(tree["root"] / "change.diff"),
                    "gitattributes_path": str(outside_attrs),
                },
            ),
            ("load_git_diff", {"absolute_repo_path": str(tree["outside"])}),
            ("list_chunks", {"absolute_file_path": str(in_link)}),
        ]
    )
    for result in results[:7]:
        _refused(result, tree["root"])
    assert not results[7].is_error
    assert json.loads(_text(results[7]))["total_chunks"] == 1


def test_git_diff_cache_stays_readable(
    tree: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    repo = tree["root"] / "repo"
    repo.mkdir()
    run = lambda *a: subprocess.run([*GIT, *a], cwd=repo, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    (repo / "a.txt").write_text("one\n")
    run("add", "-A")
    run("commit", "-q", "-m", "one")
    (repo / "a.txt").write_text("two\n")
    configure_policy(PathPolicy.from_paths([str(tree["root"])], "--allow-root"))

    async def go() -> list[Any]:
        async with Client(app) as session:
            loaded = await session.call_tool("load_git_diff", {"absolute_repo_path": str(repo)})
            assert not loaded.is_error, _text(loaded)
            cached = json.loads(_text(loaded))["file_path"]
            assert not cached.startswith(str(tree["root"]))
            chunks = await session.call_tool("list_chunks", {"absolute_file_path": cached})
            written = await session.call_tool(
                "edit_content",
                {"absolute_file_path": cached, "changes": [{"search": "two", "replace": "x"}]},
            )
            return [chunks, written]

    chunks, written = anyio.run(go)
    assert not chunks.is_error, _text(chunks)
    _refused(written, tree["root"])  # the cache is readable, not writable


def test_policy_from_env(tree: dict[str, Path], tmp_path: Path) -> None:
    env = {ROOTS_ENV: f"{tree['root']}{os.pathsep}{tmp_path / 'missing'}"}
    policy = PathPolicy.from_env(env)
    assert policy is not None
    assert policy.roots == (str(tree["root"]), str(tmp_path / "missing"))
    assert PathPolicy.from_env({ROOTS_ENV: ""}) is None
    assert PathPolicy.from_env({}) is None
    with pytest.raises(PathError, match="absolute"):
        PathPolicy.from_env({ROOTS_ENV: "relative/dir"})
    # The server reads it at startup, and --allow-root wins over it.
    os.environ[ROOTS_ENV] = str(tree["root"])
    try:
        assert startup_policy() == PathPolicy((str(tree["root"]),), ROOTS_ENV)
        flagged = startup_policy([str(tree["outside"])])
        assert flagged == PathPolicy((str(tree["outside"]),), "--allow-root")
        configure_policy(startup_policy())
    finally:
        del os.environ[ROOTS_ENV]
    (outside,) = _run([("read_content", {"absolute_file_path": str(tree["outside"] / "x")})])
    assert ROOTS_ENV in json.loads(_refused(outside, tree["root"]))["suggestion"]


def _server_command(name: str = "diffchunk-mcp") -> str:
    script = Path(sys.executable).with_name(name)
    if script.exists():
        return str(script)
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (pip install -e .)")
    return found


@pytest.mark.parametrize("command", [["diffchunk-mcp"], ["diffchunk", "mcp"]])
def test_policy_from_cli_flag(tree: dict[str, Path], command: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k != ROOTS_ENV}
    # The flag wins over the environment and over the client's roots.
    env[ROOTS_ENV] = str(tree["outside"])
    params = StdioServerParameters(
        command=_server_command(command[0]),
        args=[*command[1:], "--allow-root", str(tree["root"])],
        env=env,
    )

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=FileUrl(tree["outside"].as_uri()))])

    async def go() -> list[Any]:
        with open(tree["root"].parent / "server.log", "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write, list_roots_callback=list_roots) as session,
            ):
                await session.initialize()
                return [
                    await session.call_tool(
                        "read_content",
                        {"absolute_file_path": str(tree["outside"] / "secret.txt")},
                    ),
                    await session.call_tool(
                        "list_chunks", {"absolute_file_path": str(tree["outside"] / "other.diff")}
                    ),
                    await session.call_tool(
                        "list_chunks", {"absolute_file_path": str(tree["root"] / "change.diff")}
                    ),
                ]

    file_result, diff_result, allowed = anyio.run(go)
    error = json.loads(_refused(file_result, tree["root"]))
    assert "--allow-root" in error["suggestion"]
    assert "--allow-root" in _refused(diff_result, tree["root"])
    assert not allowed.is_error, _text(allowed)


def test_cli_flag_rejects_bad_environment(tree: dict[str, Path]) -> None:
    env = {k: v for k, v in os.environ.items() if k != ROOTS_ENV}
    env[ROOTS_ENV] = "not/absolute"
    done = subprocess.run([_server_command()], env=env, input=b"", capture_output=True, timeout=20)
    assert done.returncode == 2
    assert ROOTS_ENV in done.stderr.decode()


def test_policy_from_client_roots(tree: dict[str, Path]) -> None:
    roots = [
        types.Root(uri=FileUrl(tree["root"].as_uri()), name="project"),
        types.Root(uri=FileUrl("file://fileserver/share")),  # another host's path: ignored
    ]
    asked: list[int] = []

    async def list_roots(context: Any) -> types.ListRootsResult:
        asked.append(1)
        return types.ListRootsResult(roots=roots)

    env = {k: v for k, v in os.environ.items() if k != ROOTS_ENV}
    params = StdioServerParameters(command=_server_command(), args=[], env=env)

    async def go() -> list[Any]:
        with open(tree["root"].parent / "server.log", "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write, list_roots_callback=list_roots) as session,
            ):
                await session.initialize()
                return await calls(session)

    async def calls(session: ClientSession) -> list[Any]:
        secret = {"absolute_file_path": str(tree["outside"] / "secret.txt")}
        inside = {"absolute_file_path": str(tree["root"] / "sub" / "inside.txt")}
        out = [
            await session.call_tool("read_content", secret),
            await session.call_tool("read_content", inside),
        ]
        # The client adds the other directory and says so: the server asks again.
        roots.append(types.Root(uri=FileUrl(tree["outside"].as_uri())))
        with pytest.warns(MCPDeprecationWarning):
            await session.send_roots_list_changed()
        with anyio.move_on_after(10):
            while (result := await session.call_tool("read_content", secret)).is_error:
                await anyio.sleep(0.05)
        out.append(result)
        return out

    refused, allowed, after_change = anyio.run(go)
    assert "client's roots" in json.loads(_refused(refused, tree["root"]))["suggestion"]
    assert not allowed.is_error, _text(allowed)
    assert len(asked) == 2  # cached between calls, refreshed after list_changed
    assert not after_change.is_error, _text(after_change)
    assert "TOP SECRET" in json.loads(_text(after_change))["content"]


def test_root_uris() -> None:
    assert root_path("file:///home/me/my%20project") == "/home/me/my project"
    assert root_path("file://localhost/srv") == "/srv"
    assert root_path("file://otherhost/srv") is None
    assert root_path("https://example.com/x") is None


def test_no_policy_by_default(tree: dict[str, Path]) -> None:
    assert startup_policy() is None
    target = tree["outside"] / "secret.txt"
    results = _run(
        [
            ("read_content", {"absolute_file_path": str(target)}),
            ("list_chunks", {"absolute_file_path": str(tree["outside"] / "other.diff")}),
        ]
    )
    assert not results[0].is_error, _text(results[0])
    assert "TOP SECRET" in json.loads(_text(results[0]))["content"]
    assert not results[1].is_error, _text(results[1])

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[])

    # A client that declares roots but lists none restricts nothing either.
    (empty,) = _run(
        [("read_content", {"absolute_file_path": str(target)})], list_roots_callback=list_roots
    )
    assert not empty.is_error, _text(empty)


def test_policy_from_client_roots_without_back_channel(tree: dict[str, Path]) -> None:
    # The in-process client speaks 2026-07-28: the roots are asked through an
    # input-required result, which the client answers before the call retries.
    asked: list[int] = []

    async def list_roots(context: Any) -> types.ListRootsResult:
        asked.append(1)
        return types.ListRootsResult(roots=[types.Root(uri=FileUrl(tree["root"].as_uri()))])

    refused, allowed, no_path = _run(
        [
            ("list_chunks", {"absolute_file_path": str(tree["outside"] / "other.diff")}),
            ("list_chunks", {"absolute_file_path": str(tree["root"] / "change.diff")}),
            ("get_current_overview", {}),
        ],
        list_roots_callback=list_roots,
    )
    assert "client's roots" in _refused(refused, tree["root"])
    assert not allowed.is_error, _text(allowed)
    assert not no_path.is_error
    assert len(asked) == 2  # once per call that names a path


def test_cli_file_commands_symlink_escape(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With DIFFCHUNK_ALLOWED_ROOTS set, `diffchunk file` refuses paths that resolve outside."""
    from click.testing import CliRunner

    from diffchunk.cli import main

    root = tmp_path / "root"
    root.mkdir()
    inside = root / "notes.txt"
    inside.write_text("hello\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret\n")
    (root / "escape.txt").symlink_to(outside)
    monkeypatch.setenv(ROOTS_ENV, str(root))
    runner = CliRunner()
    ok = runner.invoke(main, ["file", "read", str(inside)])
    assert ok.exit_code == 0 and "hello" in ok.output
    for target in (root / "escape.txt", root / ".." / "secret.txt"):
        for args in (["read"], ["overview"], ["search", "--exact"]):
            argv = [
                "file",
                *args[:1],
                str(target),
                *(["secret", *args[1:]] if args[0] == "search" else []),
            ]
            refused = runner.invoke(main, argv)
            assert refused.exit_code == 1, (argv, refused.output)
            assert "outside the allowed roots" in refused.output
    edit = runner.invoke(
        main,
        [
            "file",
            "edit",
            str(root / "escape.txt"),
            "--search",
            "secret",
            "--replace",
            "x",
            "--apply",
        ],
    )
    assert edit.exit_code == 1 and outside.read_text() == "secret\n"
