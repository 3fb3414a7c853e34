"""Hostile calls to every MCP tool: what ``tests/test_hostile_inputs_*.py`` share.

:func:`hostile_files` builds the hostile file system (FIFOs, devices, loops,
sparse 2 GB files, unreadable and non-UTF-8 paths).  The cases come from the
tools' own input schemas (values of the wrong type, hostile paths for every
path parameter; the hand-picked values are in ``hostile_values``), and
:func:`check_answer` says whether an answer is the one a case expects.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, types
from timing import Elapsed, Stopwatch

from diffchunk.files.edit import edit_content
from diffchunk.server import app

TIME_LIMIT = 2.0
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]

# --------------------------------------------------------------------------
# The hostile file system
# --------------------------------------------------------------------------

DIFF_TEXT = "".join(
    [
        "diff --git a/src/app.py b/src/app.py\n",
        "index 1111111..2222222 100644\n",
        "--- a/src/app.py\n",
        "+++ b/src/app.py\n",
        "@@ -1,3 +1,3 @@\n",
        " def main():\n",
        "-    return 1\n",
        "+    return 2\n",
        " # end\n",
        "diff --git a/docs/readme.md b/docs/readme.md\n",
        "index 3333333..4444444 100644\n",
        "--- a/docs/readme.md\n",
        "+++ b/docs/readme.md\n",
        "@@ -1 +1 @@\n",
        "-old\n",
        "+new\n",
    ]
)

SOURCE_TEXT = (
    "def alpha():\n    return 1\n\n\ndef beta():\n    value = 2\n    return value\n"
    + "a" * 5000
    + "b\n"
    + "".join(f"line {i}\n" for i in range(200))
)


def moves_diff(runs: int = 40) -> str:
    """A diff crafted against lean's search for moved lines, under the size up to which
    moves are looked for across files: files whose removed lines other files add,
    - runs of lines alike that match long and hold too few characters to be a move (a
      short line, then hundreds of blank ones, over and over: a.py, b.py);
    - long lines of spaces between two letters, never enough characters for a move,
      each compare costing the line's length (c.py, d.py);
    - one large removed block that 600 small files each add three lines of (big.py,
      s/*.py): a glob's answer holds them all."""
    padded = ["x", *[""] * 600] * runs
    spaced = ["a" + " " * 38_000 + "b"] * 38
    shared = ["def shared_helper(argument):", "    return argument.value", "    pass_it"]
    big = shared + [f"removed line {i} of it" for i in range(30_000)]

    def section(path: str, sign: str, lines: list[str]) -> str:
        old, new = (f"a/{path}", "/dev/null") if sign == "-" else ("/dev/null", f"b/{path}")
        counts = f"-1,{len(lines)} +0,0" if sign == "-" else f"-0,0 +1,{len(lines)}"
        body = "".join(f"{sign}{line}\n" for line in lines)
        return f"diff --git a/{path} b/{path}\n--- {old}\n+++ {new}\n@@ {counts} @@\n{body}"

    return "".join(
        [
            section("a.py", "-", padded),
            section("b.py", "+", padded),
            section("c.py", "-", ["q", *spaced]),
            section("d.py", "+", ["r", *spaced]),
            section("big.py", "-", big),
            *(section(f"s/{n:03d}.py", "+", shared) for n in range(600)),
        ]
    )


@contextmanager
def hostile_files(root: Path) -> Iterator[dict[str, str]]:
    """The hostile file system under ``root``: its paths by name, for ``{name}`` placeholders."""
    backups = root / "backups"
    old_backup_dir = os.environ.get("DIFFCHUNK_BACKUP_DIR")
    os.environ["DIFFCHUNK_BACKUP_DIR"] = str(backups)
    paths: dict[str, str] = {}

    diff = root / "change.diff"
    diff.write_text(DIFF_TEXT)
    paths["diff"] = str(diff)
    source = root / "source.py"
    source.write_text(SOURCE_TEXT)
    paths["source"] = str(source)
    attrs = root / "gitattributes"
    attrs.write_text("*.md linguist-documentation\n")
    paths["attrs"] = str(attrs)
    directory = root / "adir"
    directory.mkdir()
    paths["dir"] = str(directory)
    fifo = root / "fifo"
    os.mkfifo(fifo)
    paths["fifo"] = str(fifo)
    loop = root / "loop"
    loop.symlink_to(loop)
    paths["loop"] = str(loop)
    unreadable = root / "unreadable.diff"
    unreadable.write_text(DIFF_TEXT)
    unreadable.chmod(0)
    paths["unreadable"] = str(unreadable)
    binary = root / "blob.bin"
    binary.write_bytes(bytes(range(256)) * 64)
    paths["binary"] = str(binary)
    sparse = root / "sparse.img"
    with open(sparse, "wb") as fh:
        fh.truncate(2 * 1024**3)
    paths["sparse"] = str(sparse)
    edited = root / "edited.py"
    edited.write_text("x = 1\n")
    done = edit_content(
        str(edited), [{"search": "x = 1", "replace": "x = 2"}], preview=False
    ).to_dict()
    assert done["success"] and done["backup_created"]
    paths["edited"] = str(edited)
    # A diff whose real name is not UTF-8, reached through a plain-named link.
    raw_name = os.fsencode(str(root)) + b"/bad-\xff-name.diff"
    with open(raw_name, "wb") as fh:
        fh.write(DIFF_TEXT.encode())
    os.symlink(raw_name, os.fsencode(str(root / "plain-link.diff")))
    paths["nonutf8_link"] = str(root / "plain-link.diff")
    paths["missing"] = str(root / "no-such-file.diff")
    moves = root / "moves.diff"
    moves.write_text(moves_diff())
    paths["moves_diff"] = str(moves)
    paths["root"] = str(root)

    repo = root / "repo"
    repo.mkdir()
    run = lambda *a: subprocess.run([*GIT, *a], cwd=repo, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    (repo / "a.txt").write_text("one\n")
    run("add", "-A")
    run("commit", "-q", "-m", "one")
    (repo / "a.txt").write_text("two\n")
    paths["repo"] = str(repo)
    try:
        yield paths
    finally:
        unreadable.chmod(0o644)
        if old_backup_dir is None:
            os.environ.pop("DIFFCHUNK_BACKUP_DIR", None)
        else:
            os.environ["DIFFCHUNK_BACKUP_DIR"] = old_backup_dir


# --------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------

OK = "ok"  # a valid (non-error) result is required
ERR = "error"  # an isError result is required
ANY = "any"  # either; an error must still name the problem


@dataclass(frozen=True)
class Case:
    id: str
    tool: str
    args: dict[str, Any]
    expect: str
    needles: tuple[str, ...] = ()  # regexes; an error's text must match one of them
    needs: tuple[str, ...] = field(default=())  # "nonroot"


def _schemas() -> dict[str, dict[str, Any]]:
    tools = anyio.run(app.list_tools)
    return {t.name: t.input_schema for t in tools}


SCHEMAS = _schemas()
TOOLS = sorted(SCHEMAS)
EXPECTED_TOOLS = {
    "load_diff",
    "list_chunks",
    "get_chunk",
    "find_chunks_for_files",
    "get_file_diff",
    "get_current_overview",
    "load_git_diff",
    "get_overview",
    "search_content",
    "read_content",
    "edit_content",
    "revert_edit",
    "mark_reviewed",
    "add_finding",
    "update_finding",
    "list_findings",
    "review_status",
    "export_review",
    "open_file_version",
    "search_diff",
    "list_commits",
    "search_code",
    "find_references",
    "list_symbols",
}
RECORD_TOOLS = (
    "mark_reviewed",
    "add_finding",
    "update_finding",
    "list_findings",
    "review_status",
    "export_review",
)
DIFF_TOOLS = (
    "load_diff",
    "list_chunks",
    "get_chunk",
    "find_chunks_for_files",
    "get_file_diff",
    "open_file_version",
    "search_diff",
    "list_commits",
    "search_code",
    "find_references",
    "list_symbols",
    *RECORD_TOOLS,
)
FILE_TOOLS = ("get_overview", "search_content", "read_content", "edit_content", "revert_edit")


def _types(prop: dict[str, Any]) -> set[str]:
    if "type" in prop:  # one type, or a list of them (an optional value: [T, "null"])
        kinds = prop["type"]
        return set(kinds) if isinstance(kinds, list) else {kinds}
    return {str(p.get("type")) for p in prop.get("anyOf", [])}


def valid_args(tool: str) -> dict[str, Any]:
    """Minimal valid arguments of a tool (placeholders filled in at run time)."""
    base: dict[str, dict[str, Any]] = {
        "load_diff": {"absolute_file_path": "{diff}"},
        "list_chunks": {"absolute_file_path": "{diff}"},
        "get_chunk": {"absolute_file_path": "{diff}", "chunk_number": 1},
        "find_chunks_for_files": {"absolute_file_path": "{diff}", "pattern": "*.py"},
        "get_file_diff": {"absolute_file_path": "{diff}", "file_path": "src/app.py"},
        "get_current_overview": {},
        "load_git_diff": {"absolute_repo_path": "{repo}"},
        "get_overview": {"absolute_file_path": "{source}"},
        "search_content": {"absolute_file_path": "{source}", "pattern": "beta"},
        "read_content": {"absolute_file_path": "{source}"},
        "edit_content": {
            "absolute_file_path": "{source}",
            "changes": [{"search": "value = 2", "replace": "value = 3"}],
        },
        "revert_edit": {"absolute_file_path": "{source}"},
        "mark_reviewed": {"absolute_file_path": "{diff}", "chunk_number": 1},
        "add_finding": {
            "absolute_file_path": "{diff}",
            "file_path": "src/app.py",
            "message": "m",
            "line": 2,
        },
        "update_finding": {"absolute_file_path": "{diff}", "finding_id": 1, "status": "open"},
        "list_findings": {"absolute_file_path": "{diff}"},
        "review_status": {"absolute_file_path": "{diff}"},
        "export_review": {"absolute_file_path": "{diff}"},
        "open_file_version": {
            "absolute_file_path": "{diff}",
            "file_path": "src/app.py",
            "absolute_repo_path": "{repo}",
        },
        "search_diff": {"absolute_file_path": "{diff}", "pattern": "return"},
        "list_commits": {"absolute_file_path": "{diff}"},
        "search_code": {"absolute_file_path": "{diff}", "pattern": "return"},
        "find_references": {"absolute_file_path": "{diff}", "symbol": "main"},
        "list_symbols": {"absolute_file_path": "{diff}", "file_path": "src/app.py"},
    }
    return dict(base[tool])


WRONG_TYPES: dict[str, list[tuple[str, Any]]] = {
    "integer": [
        ("str", "abc"),
        ("list", [1]),
        ("dict", {"n": 1}),
        ("float", 1.5),
        ("bool", True),
    ],
    "boolean": [("str", "maybe"), ("list", [True]), ("dict", {}), ("int2", 2)],
    "string": [("int", 123), ("list", ["x"]), ("dict", {"a": "b"}), ("bool", False)],
    "array": [("str", "abc"), ("dict", {"search": "a", "replace": "b"}), ("int", 5)],
}


def generated_type_cases() -> list[Case]:
    cases: list[Case] = []
    for tool in TOOLS:
        schema = SCHEMAS[tool]
        required = set(schema.get("required", []))
        for name, prop in schema.get("properties", {}).items():
            kinds = _types(prop)
            nullable = "null" in kinds
            for kind in kinds - {"null"}:
                for label, value in WRONG_TYPES.get(kind, []):
                    args = valid_args(tool)
                    args[name] = value
                    cases.append(Case(f"{tool}-{name}-{label}", tool, args, ERR, (name,)))
            if not nullable:
                args = valid_args(tool)
                args[name] = None
                cases.append(Case(f"{tool}-{name}-None", tool, args, ERR, (name,)))
            if name in required:
                args = valid_args(tool)
                del args[name]
                cases.append(Case(f"{tool}-{name}-missing", tool, args, ERR, (name,)))
        args = valid_args(tool)
        args["no_such_parameter"] = 1
        cases.append(Case(f"{tool}-unknown-parameter", tool, args, ANY, ("no_such_parameter",)))
    return cases


# Paths: (label, value, needle for diff tools, needle for file tools)
HOSTILE_PATHS: list[tuple[str, str, str, str]] = [
    ("empty", "", "empty", "empty"),
    ("blank", "   ", "empty", "empty"),
    ("relative", "relative/change.diff", "relative", "relative"),
    ("tilde_home", "~", "directory", "directory"),
    ("tilde_nouser", "~nouser_zz9q/x.diff", "no user|unknown user", "no user|unknown user"),
    ("nul", "/tmp/a\x00b.diff", "NUL", "NUL"),
    ("missing", "{missing}", "does not exist", "does not exist"),
    ("directory", "{dir}", "directory", "directory"),
    ("fifo", "{fifo}", "FIFO|pipe", "FIFO|pipe"),
    ("dev_zero", "/dev/zero", "device", "device"),
    ("symlink_loop", "{loop}", "loop", "loop"),
    ("unreadable", "{unreadable}", "permission", "permission"),
    ("binary", "{binary}", "not look like a diff|not a diff", "binary"),
    ("sparse_2gb", "{sparse}", "not look like a diff|not a diff|too large", "binary"),
    ("proc_status", "/proc/self/status", "not look like a diff|not a diff", ""),
    ("proc_mem", "/proc/self/mem", "cannot be read|not look like a diff|not a diff", ""),
    ("path_traversal", "{root}/adir/../../../../../../etc/shadow-nope", "does not exist", ""),
]


def path_cases() -> list[Case]:
    cases: list[Case] = []
    needles: tuple[str, ...]
    for tool in TOOLS:
        props = SCHEMAS[tool].get("properties", {})
        for name in props:
            if name not in ("absolute_file_path", "gitattributes_path", "absolute_repo_path"):
                continue
            for label, value, diff_needle, file_needle in HOSTILE_PATHS:
                args = valid_args(tool)
                args[name] = value
                needs = ("nonroot",) if label == "unreadable" else ()
                if name == "gitattributes_path" and label in ("empty", "blank"):
                    expect, needles = OK, ()  # blank means "no attributes file"
                elif name == "gitattributes_path":
                    # Any readable file is an attributes file (maybe with no rules).
                    expect = ANY if label in ("binary", "sparse_2gb", "proc_status") else ERR
                    needles = (diff_needle, "attributes", "too large", "binary")
                elif name == "absolute_repo_path":
                    expect = ERR
                    needles = (
                        diff_needle,
                        "not a git|not a directory|repository|does not exist|directory",
                    )
                elif tool in DIFF_TOOLS:
                    expect, needles = ERR, (diff_needle,)
                elif label in ("proc_status", "proc_mem"):
                    # Size-0 special files: an empty file, or an error naming the problem.
                    expect, needles = ANY, ("cannot be read|empty|special|not found|no backup",)
                elif label == "binary" or label == "sparse_2gb":
                    if tool == "get_overview":
                        expect, needles = OK, ()
                    elif tool == "revert_edit":
                        expect, needles = ERR, ("binary|no backup",)
                    else:
                        expect, needles = ERR, (file_needle,)
                else:
                    expect, needles = ERR, (file_needle,)
                cases.append(Case(f"{tool}-{name}-{label}", tool, args, expect, needles, needs))
    return cases


# --------------------------------------------------------------------------
# Runner
# --------------------------------------------------------------------------


def fill_paths(value: Any, paths: dict[str, str]) -> Any:
    if isinstance(value, str) and "{" in value and len(value) < 300:
        try:
            return value.format(**paths)
        except (KeyError, IndexError, ValueError):
            return value
    if isinstance(value, dict):
        return {k: fill_paths(v, paths) for k, v in value.items()}
    if isinstance(value, list) and len(value) < 100:
        return [fill_paths(v, paths) for v in value]
    return value


def reply_text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


GENERIC = re.compile(r"^Error executing tool \w+:?\s*$")


async def timed_call(client: Any, tool: str, args: dict[str, Any]) -> tuple[Any, Elapsed]:
    watch = Stopwatch()
    result = await client.call_tool(tool, args)
    return result, watch.elapsed()


async def run_case(client: Any, case: Case, paths: dict[str, str]) -> tuple[Any, Elapsed, Any]:
    """``case`` called in ``client``'s session, then a plain call in the same session:
    the answer, its time, and whether the server still serves after it."""
    args = fill_paths(case.args, paths)
    result, elapsed = await timed_call(client, case.tool, args)
    healthy = await client.call_tool("list_chunks", {"absolute_file_path": paths["diff"]})
    return result, elapsed, healthy


@contextmanager
def in_process_client() -> Iterator[tuple[BlockingPortal, Any]]:
    """One in-process client session with the server (``Client(app)``), kept open in an
    event loop of its own thread for several calls (``portal.call``): a session for each
    call took 12 ms of CPU where the call and the check after it take 4."""
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(app)) as client,
    ):
        yield portal, client


def check_answer(case: Case, result: types.CallToolResult, elapsed: Elapsed, healthy: Any) -> None:
    text = reply_text(result)
    assert elapsed.within(TIME_LIMIT), f"{case.id}: took {elapsed}"
    assert not healthy.is_error, f"server stopped serving after {case.id}: {reply_text(healthy)}"
    if case.expect == OK:
        assert not result.is_error, f"{case.id}: expected a result, got error {text!r}"
        return
    if case.expect == ERR:
        assert result.is_error, f"{case.id}: expected an error, got {text[:300]!r}"
    if result.is_error:
        assert not GENERIC.match(text.strip()), f"{case.id}: generic error {text!r}"
        assert "Traceback" not in text
        needles = [n for n in case.needles if n]
        if needles:
            assert any(re.search(n, text, re.IGNORECASE) for n in needles), (
                f"{case.id}: the error does not name the problem ({needles}): {text[:400]!r}"
            )
