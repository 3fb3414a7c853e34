"""The command line renders the typed results the application returns: a result's
``to_dict()`` (the MCP tools' JSON) is called only to print ``--json``.

Checked on the source of every module of ``diffchunk/cli``: each ``.to_dict()``
call sits inside the argument of an ``echo_json(...)`` call, or in a function
whose name says it builds the JSON (``_json_*``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import diffchunk.cli

CLI = Path(diffchunk.cli.__file__).parent


def _outside_the_json_path(tree: ast.AST) -> list[int]:
    found: list[int] = []

    def visit(node: ast.AST, allowed: bool) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            allowed = allowed or node.name.startswith("_json")
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "echo_json":
                allowed = True
            if isinstance(func, ast.Attribute) and func.attr == "to_dict" and not allowed:
                found.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, allowed)

    visit(tree, False)
    return found


def test_the_command_line_calls_to_dict_only_to_print_json() -> None:
    offenders = {
        path.name: lines
        for path in sorted(CLI.glob("*.py"))
        if (lines := _outside_the_json_path(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert offenders == {}


def test_the_check_finds_a_rendering_from_a_dictionary() -> None:
    source = "def show(r):\n    data = r.to_dict()\n    echo_json(r.to_dict())\n"
    assert _outside_the_json_path(ast.parse(source)) == [2]
