"""Messages in the command line's terms: nothing the CLI prints names an MCP parameter.

The engines and the application layer write their messages for the MCP tools;
the CLI prints them through :func:`diffchunk.cli.wording.cli_terms`.  Two
checks: every message literal of the lower layers (errors, suggestions,
warnings, notes: the string constants and f-strings of ``diffchunk/files``,
``review``, ``diff``, ``git`` and ``errors.py``, docstrings aside), put in
the CLI's terms, names no tool parameter as ``name=value`` nor any parameter
spelled with an underscore; and what real commands print on their errors and
hints names none either.
"""

from __future__ import annotations

import ast
import logging
import re
from pathlib import Path

import anyio
import package_source
import pytest
from click.testing import CliRunner
from recordkit import feature_repo

import diffchunk
from diffchunk.cli import main
from diffchunk.cli.wording import cli_terms

PACKAGE = Path(diffchunk.__file__).resolve().parent
LOWER = ["files", "review", "diff", "git", "errors.py"]


def _tool_parameters() -> set[str]:
    from diffchunk.server import app

    tools = anyio.run(app.list_tools)
    names: set[str] = set()
    for tool in tools:
        names.update(tool.input_schema.get("properties", {}))
    return names


PARAMETERS = _tool_parameters()
SPELLED = re.compile(
    r"(?<![\w./-])(" + "|".join(sorted(PARAMETERS, key=len, reverse=True)) + r")=[\w'\"]"
)
UNDERSCORED = re.compile(
    r"(?<![\w./-])("
    + "|".join(sorted((p for p in PARAMETERS if "_" in p), key=len, reverse=True))
    + r")(?![\w/-]|\.\w)"
)


def mcp_spellings(text: str) -> list[str]:
    return [m.group(0) for m in SPELLED.finditer(text)] + [
        m.group(0) for m in UNDERSCORED.finditer(text)
    ]


def _texts(tree: ast.AST) -> list[tuple[int, str]]:
    """The string literals of a module (f-strings with ``N`` for their fields), docstrings
    (and the reasons written under constants) and f-string pieces (seen whole in their
    f-string) left out."""
    docstrings = {  # a string standing as a statement: a docstring, or a constant's reason
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    pieces = {
        id(value)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for value in node.values
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(
                v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "N"
                for v in node.values
            )
            found.append((node.lineno, text))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and id(node) not in pieces
        ):
            found.append((node.lineno, node.value))
    return found


# Messages the CLI cannot meet: the parts of a chunk too large for one MCP answer (the
# CLI prints a chunk whole, unbounded).
MCP_ONLY = {"review/tools/chunk_text.py"}
# A check of a tool's argument no command passes (the CLI has no list_commits).
MCP_ONLY_MESSAGES = {("review/tools/commits.py", "include_body must be true or false, got N.")}
_SQL = re.compile(r"\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|WITH)\b")


def _is_message(text: str) -> bool:
    """A sentence for a person (a space, and more than a word or two), not SQL."""
    return len(text.split()) >= 3 and not _SQL.match(text)


def test_parameters_are_known() -> None:
    assert {"mode", "max_results", "count_only", "chunk_number", "offset"} <= PARAMETERS


def test_every_message_of_the_lower_layers_reads_in_cli_terms() -> None:
    left = []
    for part in LOWER:
        root = PACKAGE / part
        for path in [root] if root.is_file() else sorted(root.rglob("*.py")):
            if str(path.relative_to(PACKAGE)) in MCP_ONLY:
                continue
            for line, text in _texts(package_source.parse(package_source.source(path))):
                if not _is_message(text):
                    continue
                if (str(path.relative_to(PACKAGE)), text) in MCP_ONLY_MESSAGES:
                    continue
                wrong = mcp_spellings(cli_terms(text))
                if wrong:
                    left.append(f"{path.relative_to(PACKAGE)}:{line}: {wrong}: {text[:100]!r}")
    assert left == []


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return feature_repo(tmp_path / "repo")


def test_what_commands_print_names_no_mcp_parameter(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    big = tmp_path / "big.txt"
    big.write_text("".join(f"line {i} ERROR\n" for i in range(200)))
    runs = [
        ("file", "read", str(big), "--offset", "0"),
        ("file", "read", str(big), "--offset", "999"),
        ("file", "read", str(big), "--limit", "5"),
        ("file", "search", str(big), "ERROR", "--exact", "--max-results", "2"),
        ("file", "search", str(big), "ERROR", "--exact", "--max-results", "0"),
        ("file", "overview", str(big)),
        ("file", "revert", str(big)),
        ("file", "edit", str(big), "--search", "line 7 ERRORX", "--replace", "x"),
        ("review", "main..feature"),
        ("status", "main..feature"),
        ("mark", "main..feature", "--file", "nothing/**"),
        ("finding", "add", "main..feature", "--file", "src/a.py", "--line", "3", "--message", "m"),
        ("review", "main..feature", "--chunk", "99"),
        ("review", "main..feature", "--file", "*.py"),
        ("review", "main..feature", "--since-review"),
        ("next",),
        ("reviews",),
        ("search-code", "-e", "a", "main..feature", "--max-results", "1"),
        ("search-code", "-e", "a", "main..feature", "--max-results", "0"),
        ("search-code", "-e", "(", "--regex", "main..feature"),
        ("search-code", "-e", "a", "main..feature", "--offset", "999"),
        ("search-code", "-e", "a", "main..feature", "--files", "nothing/**"),
        ("refs", "-s", "a", "main..feature", "--max-results", "1"),
        ("refs", "-s", "", "main..feature"),
        ("show", "--path", "src/missing.py", "main..feature"),
        ("show", "--path", "src/big.py", "main..feature", "--side", "old"),
        ("symbols", "--path", "src/missing.py", "main..feature"),
        ("symbols", "--path", "src/a.py", "main..feature", "--offset", "999"),
    ]
    # In this process (a console script's start for each took 4 s in all): what each
    # prints, and the warnings it logs, which a command's process prints on stderr.
    monkeypatch.chdir(repo)
    caplog.set_level(logging.WARNING)
    for args in runs:
        caplog.clear()
        done = CliRunner().invoke(main, list(args), catch_exceptions=False)
        logged = "".join(f"{record.getMessage()}\n" for record in caplog.records)
        printed = done.stdout + done.stderr + logged
        # A line labelled as an MCP call, for an assistant, is one on purpose.
        shown = [line for line in printed.splitlines() if not _for_an_assistant(line)]
        assert mcp_spellings("\n".join(shown)) == [], (args, printed)


def _for_an_assistant(line: str) -> bool:
    return line.lstrip().startswith(("or over MCP:", "assistant:"))
