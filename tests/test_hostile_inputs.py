"""Hostile input to every MCP tool, through the SDK's in-process client.

A generated matrix: for every tool and every parameter, values of the wrong
type (taken from the tool's own input schema), plus hand-picked hostile values
(paths to FIFOs, devices, loops, sparse 2 GB files; huge and negative numbers;
invalid and catastrophic regexes; globs of pathological size; malformed edit
batches).  Each call must answer within a time bound, as an ``isError`` result
whose text names the problem (or as a valid result when the input is
legitimately valid), and the server must keep serving afterwards.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from diffchunk.files.edit import edit_content
from diffchunk.server import app

TIME_LIMIT = 2.0
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

# --------------------------------------------------------------------------
# The hostile file system (built once per module)
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


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    root = tmp_path_factory.mktemp("hostile")
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
    *RECORD_TOOLS,
)
FILE_TOOLS = ("get_overview", "search_content", "read_content", "edit_content", "revert_edit")


def _types(prop: dict[str, Any]) -> set[str]:
    if "type" in prop:  # one type, or a list of them (an optional value: [T, "null"])
        kinds = prop["type"]
        return set(kinds) if isinstance(kinds, list) else {kinds}
    return {str(p.get("type")) for p in prop.get("anyOf", [])}


def _valid_args(tool: str) -> dict[str, Any]:
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


def _generated_type_cases() -> list[Case]:
    cases: list[Case] = []
    for tool in TOOLS:
        schema = SCHEMAS[tool]
        required = set(schema.get("required", []))
        for name, prop in schema.get("properties", {}).items():
            kinds = _types(prop)
            nullable = "null" in kinds
            for kind in kinds - {"null"}:
                for label, value in WRONG_TYPES.get(kind, []):
                    args = _valid_args(tool)
                    args[name] = value
                    cases.append(Case(f"{tool}-{name}-{label}", tool, args, ERR, (name,)))
            if not nullable:
                args = _valid_args(tool)
                args[name] = None
                cases.append(Case(f"{tool}-{name}-None", tool, args, ERR, (name,)))
            if name in required:
                args = _valid_args(tool)
                del args[name]
                cases.append(Case(f"{tool}-{name}-missing", tool, args, ERR, (name,)))
        args = _valid_args(tool)
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


def _path_cases() -> list[Case]:
    cases: list[Case] = []
    needles: tuple[str, ...]
    for tool in TOOLS:
        props = SCHEMAS[tool].get("properties", {})
        for name in props:
            if name not in ("absolute_file_path", "gitattributes_path", "absolute_repo_path"):
                continue
            for label, value, diff_needle, file_needle in HOSTILE_PATHS:
                args = _valid_args(tool)
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


BIG_GLOB = "**/" + "a*" * 50_000  # ~100 KB
MANY_GLOBS = ",".join(f"dir{i}/*.py" for i in range(10_000))
LONG_A = "a" * 5000 + "b"


def _value_cases() -> list[Case]:
    d = {"absolute_file_path": "{diff}"}
    s = {"absolute_file_path": "{source}"}
    c: list[Case] = []

    def add(id_: str, tool: str, args: dict[str, Any], expect: str, *needles: str) -> None:
        c.append(Case(id_, tool, args, expect, needles))

    # get_chunk
    for n in (-1, 0, 3, 10**18, 2**70):
        add(f"get_chunk-number-{n}", "get_chunk", {**d, "chunk_number": n}, ERR, "chunk")
    for fmt in ("", "xml", "RAW ", "raw\x00"):
        add(
            f"get_chunk-format-{fmt!r}",
            "get_chunk",
            {**d, "chunk_number": 1, "format": fmt},
            ANY,
            "format",
        )
    # load_diff
    for n in (0, -5, 10**12):
        add(
            f"load_diff-max_chunk_lines-{n}",
            "load_diff",
            {**d, "max_chunk_lines": n},
            ERR,
            "max_chunk_lines",
        )
    add("load_diff-context_lines--1", "load_diff", {**d, "context_lines": -1}, ERR, "context_lines")
    add(
        "load_diff-context_lines-1e9",
        "load_diff",
        {**d, "context_lines": 10**9},
        ANY,
        "context_lines",
    )
    for key in ("include_patterns", "exclude_patterns"):
        for label, value in (
            ("big", BIG_GLOB),
            ("many", MANY_GLOBS),
            ("blank", "  "),
            ("commas", ",,,"),
            ("bracket", "["),
        ):
            add(f"load_diff-{key}-{label}", "load_diff", {**d, key: value}, ANY, "pattern")
    # list_chunks
    for off in (-1, 10**18):
        add(f"list_chunks-offset-{off}", "list_chunks", {**d, "offset": off}, ERR, "offset")
    for lim in (0, -1):
        add(f"list_chunks-limit-{lim}", "list_chunks", {**d, "limit": lim}, ERR, "limit")
    add("list_chunks-limit-1e18", "list_chunks", {**d, "limit": 10**18}, OK)
    # find_chunks_for_files
    for label, value in (
        ("empty", ""),
        ("blank", " "),
        ("big", BIG_GLOB),
        ("many", MANY_GLOBS),
        ("bracket", "["),
        ("nul", "a\x00b"),
        ("traversal", "../../*"),
    ):
        expect = ERR if label in ("empty", "blank") else ANY
        add(
            f"find_chunks_for_files-pattern-{label}",
            "find_chunks_for_files",
            {**d, "pattern": value},
            expect,
            "pattern",
        )
    # get_file_diff
    for label, value, expect in (
        ("empty", "", ERR),
        ("star_several", "*", ERR),
        ("path_traversal", "../../../../etc/passwd", ERR),
        ("big", BIG_GLOB, ERR),
        ("many", MANY_GLOBS, ANY),
        ("nul", "src/app.py\x00", ERR),
    ):
        add(
            f"get_file_diff-file_path-{label}",
            "get_file_diff",
            {**d, "file_path": value},
            expect,
            "file_path|matches|no file|empty",
        )
    # open_file_version (the diff's blob ids 1111111/2222222 are in no repository)
    o = {**d, "absolute_repo_path": "{repo}"}
    for label, extra, needle in (
        ("side", {"file_path": "src/app.py", "side": "left"}, "side"),
        ("side-nul", {"file_path": "src/app.py", "side": "new\x00"}, "side"),
        ("file-traversal", {"file_path": "../../etc/passwd"}, "no file"),
        ("file-glob-several", {"file_path": "*.nothing"}, "no file"),
        ("blob-missing", {"file_path": "src/app.py"}, "not in"),
        ("no-repository", {"file_path": "src/app.py", "absolute_repo_path": None}, "repository"),
    ):
        add(f"open_file_version-{label}", "open_file_version", {**o, **extra}, ERR, needle)
    # search_diff
    for label, extra, expect, needle in (
        ("pattern-empty", {"pattern": ""}, ERR, "empty"),
        ("pattern-newline", {"pattern": "a\nb"}, ERR, "line break"),
        ("pattern-huge", {"pattern": "x" * 100_000}, ERR, "longer"),
        ("regex-invalid", {"pattern": "(", "regex": True}, ERR, "regular expression"),
        ("regex-backtracking", {"pattern": "(a|a)*$", "regex": True}, ANY, "stopped"),
        ("side", {"side": "left"}, ERR, "side"),
        ("max_results-0", {"max_results": 0}, ERR, "max_results"),
        ("max_results-huge", {"max_results": 10**9}, ERR, "max_results"),
        ("offset-negative", {"offset": -1}, ERR, "offset"),
        ("offset-huge", {"offset": 10**18}, OK, ""),
        ("file_pattern-big", {"file_pattern": BIG_GLOB}, ANY, "pattern"),
        ("file_pattern-bracket", {"file_pattern": "["}, ANY, "pattern"),
    ):
        args = {**d, "pattern": "return", **extra}
        add(f"search_diff-{label}", "search_diff", args, expect, needle)
    # list_commits (the diff is a plain diff: it holds no commits)
    for label, extra, needle in (
        ("plain-diff", {}, "holds no commits"),
        ("file-traversal", {"file_path": "../../etc/passwd"}, "no file"),
        ("limit-0", {"limit": 0}, "limit"),
        ("limit-huge", {"limit": 10**9}, "limit"),
        ("offset-negative", {"offset": -1}, "offset"),
    ):
        add(f"list_commits-{label}", "list_commits", {**d, **extra}, ERR, needle)
    # load_git_diff
    r = {"absolute_repo_path": "{repo}"}
    for label, value in (
        ("empty", ""),
        ("option_output", "--output=/tmp/pwned"),
        ("option_O", "-O/tmp/pwned"),
        ("dash", "-"),
        ("triple", "a..b..c"),
        ("nul", "HEAD\x00"),
        ("unknown", "no-such-branch"),
        ("huge", "x" * 100_000),
        ("newline", "HEAD\n--output=/tmp/pwned"),
    ):
        expect = ANY if label == "empty" else ERR
        add(
            f"load_git_diff-revision_range-{label}",
            "load_git_diff",
            {**r, "revision_range": value},
            expect,
            "range|revision|option|refused|unknown|empty",
        )
    for n in (0, -5, 10**12):
        add(
            f"load_git_diff-max_chunk_lines-{n}",
            "load_git_diff",
            {**r, "max_chunk_lines": n},
            ERR,
            "max_chunk_lines",
        )
    add(
        "load_git_diff-context_lines--1",
        "load_git_diff",
        {**r, "context_lines": -1},
        ERR,
        "context_lines",
    )
    for label, value, needle in (
        ("traversal", ["../outside"], "leads out"),
        ("absolute-outside", ["/etc"], "outside the repository"),
        ("empty", [""], "empty"),
        ("nul", ["a\x00b"], "NUL"),
        ("option", ["--output=/tmp/pwned"], ""),
        ("magic", [":(top)*"], ""),
        ("many", [f"p{i}" for i in range(5000)], "at most"),
    ):
        expect = ANY if label in ("option", "magic") else ERR
        add(f"load_git_diff-paths-{label}", "load_git_diff", {**r, "paths": value}, expect, needle)
    add(
        "load_git_diff-include-big",
        "load_git_diff",
        {**r, "include_patterns": BIG_GLOB},
        ANY,
        "pattern",
    )
    # the review record
    f = {**d, "file_path": "src/app.py", "message": "m"}
    for label, extra, needle in (
        ("line-0", {"line": 0}, "line"),
        ("line-negative", {"line": -3}, "line"),
        ("line-huge", {"line": 10**18}, "hunk"),
        ("end-before-line", {"line": 2, "end_line": 1}, "end_line"),
        ("end-without-line", {"end_line": 2}, "end_line"),
        ("side", {"line": 2, "side": "left"}, "side"),
        ("severity", {"severity": "catastrophic"}, "severity"),
        ("message-blank", {"message": "  "}, "message"),
        ("message-huge", {"message": "x" * 10**6}, "message"),
        ("suggestion-old", {"line": 2, "side": "old", "suggestion": "x"}, "suggestion"),
        ("file-glob-several", {"file_path": "*"}, "matches"),
        ("file-traversal", {"file_path": "../../etc/passwd"}, "no file"),
    ):
        add(f"add_finding-{label}", "add_finding", {**f, **extra}, ERR, needle)
    for label, extra in (
        ("both", {"chunk_number": 1, "file_pattern": "*"}),
        ("neither", {"chunk_number": None}),
    ):
        add(f"mark_reviewed-{label}", "mark_reviewed", {**d, **extra}, ERR, "exactly one")
    add("mark_reviewed-chunk-0", "mark_reviewed", {**d, "chunk_number": 0}, ERR, "chunk")
    add(
        "mark_reviewed-pattern-big",
        "mark_reviewed",
        {**d, "file_pattern": BIG_GLOB},
        ANY,
        "pattern|matches",
    )
    for label, extra, needle in (
        ("missing", {"finding_id": 10**12, "status": "resolved"}, "no finding"),
        ("nothing", {"finding_id": 1}, "nothing to change"),
        ("status", {"finding_id": 1, "status": "fixed"}, "status"),
    ):
        add(f"update_finding-{label}", "update_finding", {**d, **extra}, ERR, needle)
    for label, extra, needle in (
        ("status", {"status": "closed"}, "status"),
        ("severity", {"severity": "major,huge"}, "severity"),
        ("offset", {"offset": 10**18}, "offset"),
        ("limit", {"limit": 0}, "limit"),
    ):
        add(f"list_findings-{label}", "list_findings", {**d, **extra}, ERR, needle)
    add("review_status-offset", "review_status", {**d, "offset": -1}, ERR, "offset")
    add("review_status-limit", "review_status", {**d, "limit": 10**18}, OK)
    # search_content
    add("search_content-pattern-empty", "search_content", {**s, "pattern": ""}, ERR, "empty")
    add(
        "search_content-pattern-newline",
        "search_content",
        {**s, "pattern": "a\nb"},
        ERR,
        "line break",
    )
    add(
        "search_content-regex-invalid",
        "search_content",
        {**s, "pattern": "(", "regex": True, "fuzzy": False},
        ERR,
        "regex|regular expression",
    )
    add(
        "search_content-regex-fuzzy",
        "search_content",
        {**s, "pattern": "a", "regex": True},
        ERR,
        "fuzzy",
    )
    for label, pattern in (
        ("nested", "(a+)+$"),
        ("alternation", "(a|a)*$"),
        ("nested_star", "(a*)*b$"),
    ):
        for count in (False, True):
            add(
                f"search_content-catastrophic-{label}-count{count}",
                "search_content",
                {**s, "pattern": pattern, "regex": True, "fuzzy": False, "count_only": count},
                ANY,
                "time|too long|budget|catastroph|backtrack",
            )
    for n in (0, -1):
        add(
            f"search_content-max_results-{n}",
            "search_content",
            {**s, "max_results": n},
            ERR,
            "max_results",
        )
    add(
        "search_content-max_results-1e9",
        "search_content",
        {**s, "pattern": "line", "fuzzy": False, "max_results": 10**9},
        OK,
    )
    add(
        "search_content-context_lines--1",
        "search_content",
        {**s, "context_lines": -1},
        ERR,
        "context_lines",
    )
    add(
        "search_content-context_lines-1e9",
        "search_content",
        {**s, "pattern": "line 5", "fuzzy": False, "context_lines": 10**9},
        OK,
    )
    add(
        "search_content-fuzzy-huge-pattern",
        "search_content",
        {**s, "pattern": "x" * 100_000},
        ANY,
        "pattern|long",
    )
    add(
        "search_content-fuzzy-long-a",
        "search_content",
        {**s, "pattern": LONG_A},
        ANY,
        "pattern|long",
    )
    add(
        "search_content-invert-everything",
        "search_content",
        {**s, "pattern": "zzz", "invert": True, "fuzzy": False, "max_results": 10**9},
        OK,
    )
    # read_content
    for off in (-1, 0):
        add(f"read_content-offset-{off}", "read_content", {**s, "offset": off}, ERR, "offset")
    add(
        "read_content-offset-1e18",
        "read_content",
        {**s, "offset": 10**18},
        ERR,
        "past the end|offset",
    )
    for lim in (0, -1):
        add(f"read_content-limit-{lim}", "read_content", {**s, "limit": lim}, ERR, "limit")
    for mode in ("head", "tail", "lines", "semantic"):
        add(
            f"read_content-limit-1e9-{mode}",
            "read_content",
            {**s, "limit": 10**9, "mode": mode},
            OK,
        )
    for mode in ("", "bogus", "HEAD"):
        add(f"read_content-mode-{mode!r}", "read_content", {**s, "mode": mode}, ERR, "mode")
    add("read_content-pattern-newline", "read_content", {**s, "pattern": "a\nb"}, ERR, "line break")
    add(
        "read_content-pattern-huge",
        "read_content",
        {**s, "pattern": "q" * 100_000},
        ANY,
        "pattern|not found|long",
    )
    # edit_content
    good = {"search": "value = 2", "replace": "value = 3"}
    for label, changes, needle in (
        ("empty_list", [], "non-empty|empty"),
        ("list_of_int", [1], "not an object|changes.0"),
        ("list_of_str", ["abc"], "not an object|changes.0"),
        ("missing_search", [{"replace": "x"}], "search"),
        ("missing_replace", [{"search": "value = 2"}], "replace"),
        ("replace_int", [{"search": "value = 2", "replace": 1}], "replace"),
        ("search_empty", [{"search": "", "replace": "x"}], "search"),
        ("unknown_key", [{**good, "bogus": 1}], "unknown"),
        ("fuzzy_str", [{**good, "fuzzy": "yes"}], "fuzzy"),
        ("ten_thousand", [good] * 10_000, "at most"),
        ("not_found", [{"search": "zzz_no_such_text", "replace": "x"}], "not found|no match"),
        ("huge_search", [{"search": "q" * 100_000, "replace": "x"}], "not found|no match|long"),
        ("nul_search", [{"search": "\x00", "replace": "x"}], "not found|no match|NUL"),
    ):
        add(f"edit_content-changes-{label}", "edit_content", {**s, "changes": changes}, ANY, needle)
    # revert_edit
    for label, value in (
        ("empty", ""),
        ("path_traversal", "../../../../etc/passwd"),
        ("dotdot", ".."),
        ("glob", "*"),
        ("absolute", "/etc/passwd"),
        ("nul", "x\x00y"),
        ("huge", "9" * 100_000),
    ):
        # An empty id means "the newest backup", like leaving it out.
        add(
            f"revert_edit-backup_id-{label}",
            "revert_edit",
            {"absolute_file_path": "{edited}", "backup_id": value},
            OK if label == "empty" else ERR,
            "no backup",
        )
    return c


CASES = _generated_type_cases() + _path_cases() + _value_cases()


# --------------------------------------------------------------------------
# Runner
# --------------------------------------------------------------------------


def _fill(value: Any, paths: dict[str, str]) -> Any:
    if isinstance(value, str) and "{" in value and len(value) < 300:
        try:
            return value.format(**paths)
        except (KeyError, IndexError, ValueError):
            return value
    if isinstance(value, dict):
        return {k: _fill(v, paths) for k, v in value.items()}
    if isinstance(value, list) and len(value) < 100:
        return [_fill(v, paths) for v in value]
    return value


def _text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


GENERIC = re.compile(r"^Error executing tool \w+:?\s*$")


async def _call(client: Any, tool: str, args: dict[str, Any]) -> tuple[Any, float]:
    start = time.monotonic()
    result = await client.call_tool(tool, args)
    return result, time.monotonic() - start


async def _run_case(case: Case, paths: dict[str, str]) -> tuple[Any, float, Any]:
    args = _fill(case.args, paths)
    async with Client(app) as client:
        result, elapsed = await _call(client, case.tool, args)
        healthy = await client.call_tool("list_chunks", {"absolute_file_path": paths["diff"]})
    return result, elapsed, healthy


def _check(case: Case, result: types.CallToolResult, elapsed: float, healthy: Any) -> None:
    text = _text(result)
    assert elapsed < TIME_LIMIT, f"{case.id}: took {elapsed:.2f}s"
    assert not healthy.is_error, f"server stopped serving after {case.id}: {_text(healthy)}"
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


def test_matrix_covers_every_tool_and_parameter() -> None:
    assert set(TOOLS) == EXPECTED_TOOLS
    covered = {(c.tool, name) for c in CASES for name in c.args}
    for tool in TOOLS:
        for name in SCHEMAS[tool].get("properties", {}):
            assert (tool, name) in covered, f"{tool}.{name} has no hostile case"
    assert len(CASES) > 300


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_mcp_call(case: Case, env: dict[str, str]) -> None:
    if "nonroot" in case.needs and IS_ROOT:
        pytest.skip("running as root: permission bits do not stop reads")
    result, elapsed, healthy = anyio.run(_run_case, case, env)
    _check(case, result, elapsed, healthy)


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
    assert "TOP SECRET" not in _text(result)


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
    assert not overview.is_error, _text(overview)
    assert json.loads(_text(overview))["line_count"] > 0
    assert edit.is_error and "special file" in _text(edit)


def test_non_utf8_real_path_gives_a_sendable_reply(env: dict[str, str]) -> None:
    async def go() -> list[Any]:
        async with Client(app) as client:
            return [
                await client.call_tool("load_diff", {"absolute_file_path": env["nonutf8_link"]}),
                await client.call_tool("revert_edit", {"absolute_file_path": env["nonutf8_link"]}),
                await client.call_tool("get_current_overview", {}),
            ]

    for result in anyio.run(go):
        text = _text(result)
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
    assert "No file of the diff matches" in _text(result)


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
    assert not result.is_error, _text(result)
    assert link.is_symlink()
    assert real.read_text() == "x = 2\n"


def test_fifo_is_refused_without_blocking_over_every_path_tool(env: dict[str, str]) -> None:
    async def go() -> list[tuple[str, Any, float]]:
        out = []
        async with Client(app) as client:
            for tool in TOOLS:
                if "absolute_file_path" not in SCHEMAS[tool].get("properties", {}):
                    continue
                args = _fill(_valid_args(tool), env)
                args["absolute_file_path"] = env["fifo"]
                with anyio.fail_after(5):
                    result, elapsed = await _call(client, tool, args)
                out.append((tool, result, elapsed))
        return out

    for tool, result, elapsed in anyio.run(go):
        assert result.is_error, tool
        assert re.search("FIFO|pipe", _text(result)), (tool, _text(result))
        assert elapsed < TIME_LIMIT


def test_sparse_2gb_file_is_not_read_whole(env: dict[str, str]) -> None:
    async def go() -> dict[str, Any]:
        async with Client(app) as client:
            out = {}
            for tool, args in (
                ("load_diff", {"absolute_file_path": env["sparse"]}),
                ("get_overview", {"absolute_file_path": env["sparse"]}),
                ("search_content", {"absolute_file_path": env["sparse"], "pattern": "x"}),
            ):
                out[tool] = await _call(client, tool, args)
            return out

    out = anyio.run(go)
    load, elapsed = out["load_diff"]
    assert load.is_error and elapsed < TIME_LIMIT
    assert re.search("not look like a diff|too large", _text(load))
    overview, elapsed = out["get_overview"]
    assert not overview.is_error and elapsed < TIME_LIMIT
    assert json.loads(_text(overview))["is_binary"] is True
    search, elapsed = out["search_content"]
    assert search.is_error and "binary" in _text(search) and elapsed < TIME_LIMIT


# --------------------------------------------------------------------------
# The installed stdio server: a few hostile calls, then a healthy one
# --------------------------------------------------------------------------


def _server_command() -> str:
    script = Path(sys.executable).with_name("diffchunk-mcp")
    if script.exists():
        return str(script)
    found = shutil.which("diffchunk-mcp")
    if found is None:
        pytest.skip("diffchunk-mcp is not installed (pip install -e .)")
    return found


STDIO_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("get_chunk", {"absolute_file_path": "{fifo}", "chunk_number": 1}, "FIFO|pipe"),
    ("get_chunk", {"absolute_file_path": "{diff}", "chunk_number": True}, "chunk_number"),
    ("get_chunk", {"absolute_file_path": "{diff}", "chunk_number": "x"}, "chunk_number"),
    ("load_diff", {"absolute_file_path": "{sparse}"}, "not look like a diff"),
    ("read_content", {"absolute_file_path": "/dev/zero"}, "device"),
    (
        "search_content",
        {"absolute_file_path": "{source}", "pattern": "(a+)+$", "regex": True, "fuzzy": False},
        "timed out",
    ),
    ("edit_content", {"absolute_file_path": "{source}", "changes": "nope"}, "changes"),
    ("list_chunks", {"absolute_file_path": "{diff}", "limit": 0}, "limit"),
    # Replies that carry a real path which is not UTF-8 (the link's target).
    ("revert_edit", {"absolute_file_path": "{nonutf8_link}"}, "no backups"),
    ("load_diff", {"absolute_file_path": "{nonutf8_link}"}, ""),
]


async def _stdio_session(paths: dict[str, str]) -> list[tuple[Any, float, Any]]:
    params = StdioServerParameters(
        command=_server_command(),
        args=[],
        env={"DIFFCHUNK_STATE_DIR": os.environ["DIFFCHUNK_STATE_DIR"]},
    )
    out = []
    with open(Path(paths["root"]) / "stdio-server.log", "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for tool, args, _ in STDIO_CASES:
                # A reply the server cannot encode never comes: fail, do not hang.
                with anyio.fail_after(10):
                    result, elapsed = await _call(session, tool, _fill(args, paths))
                    healthy = await session.call_tool(
                        "list_chunks", {"absolute_file_path": paths["diff"]}
                    )
                out.append((result, elapsed, healthy))
    return out


def test_stdio_server_survives_hostile_calls(env: dict[str, str]) -> None:
    outcomes = anyio.run(_stdio_session, env)
    for (tool, _, needle), (result, elapsed, healthy) in zip(STDIO_CASES, outcomes, strict=True):
        text = _text(result)
        if needle:
            assert result.is_error, (tool, text)
            assert re.search(needle, text, re.IGNORECASE), (tool, text)
        else:
            assert not result.is_error, (tool, text)
        assert elapsed < TIME_LIMIT + 0.5, (tool, elapsed)
        assert not healthy.is_error, _text(healthy)


# --------------------------------------------------------------------------
# Huge limits on a larger file: bounded work and bounded replies
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def many_lines(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("many") / "many.txt"
    path.write_bytes(b"abcdefgh xyz\n" * 400_000)
    return str(path)


async def _calls(calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[Any, float]]:
    async with Client(app) as client:
        return [await _call(client, tool, args) for tool, args in calls]


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
        assert elapsed < limit, (_text(result)[:200], elapsed)
        assert len(_text(result)) < 120_000
    read = json.loads(_text(outcomes[0][0]))
    assert read["truncated"] is True and read["start_line"] == 1
    search = json.loads(_text(outcomes[3][0]))
    assert search["total_matches"] == 400_000
    assert any("stopped at about" in w for w in search["warnings"])
    assert outcomes[4][0].is_error and "not found" in _text(outcomes[4][0])


def test_fuzzy_pattern_longer_than_every_line_matches_nothing(many_lines: str) -> None:
    """A 240-character pattern is not 80% similar to a 12-character line inside it."""
    outcomes = anyio.run(
        _calls,
        [("search_content", {"absolute_file_path": many_lines, "pattern": "abcdefgh xyz" * 20})],
    )
    result, _ = outcomes[0]
    assert json.loads(_text(result))["total_matches"] == 0


def test_fuzzy_search_stops_at_its_time_budget(
    many_lines: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diffchunk.files import fuzzy
    from diffchunk.files import service as service_module

    monkeypatch.setattr(fuzzy, "FUZZY_TIME_BUDGET", 0.05)
    start = time.monotonic()
    found = service_module.search_content(many_lines, "abcdefgh xyy").to_dict()
    assert time.monotonic() - start < TIME_LIMIT
    assert any("Fuzzy search stopped" in w for w in found["warnings"])


def test_edit_with_huge_search_text_on_a_large_file_is_bounded(many_lines: str) -> None:
    f: dict[str, Any] = {"absolute_file_path": many_lines}
    calls: list[tuple[str, dict[str, Any]]] = [
        ("edit_content", {**f, "changes": [{"search": "z" * 2_000_000, "replace": "x"}]}),
        ("edit_content", {**f, "changes": [{"search": "z" * 20_000, "replace": "x"}]}),
    ]
    (huge, huge_time), (long, long_time) = anyio.run(_calls, calls)
    assert huge_time < TIME_LIMIT and long_time < TIME_LIMIT
    assert "too long for fuzzy matching" in _text(huge)
    assert json.loads(_text(long))["success"] is False
