"""diffchunk.limits is the one table of limits: no module keeps a number of its own.

A module-level constant whose value is a number (``X = 5``, ``X = 4 << 20``,
``X = max(100, ...)``) outside ``diffchunk/limits.py`` fails here unless it is
in :data:`NOT_LIMITS` (numbers that are not limits, each with why).  A new
limit belongs in the table, with its reason.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import diffchunk
from diffchunk import limits

PACKAGE = Path(diffchunk.__file__).parent
TABLE = PACKAGE / "limits.py"
CONSTANT = re.compile(r"_?[A-Z][A-Z0-9_]*")
WORD = re.compile(r"\w+")

# Module-level numbers that are not limits: (module path, name) -> why.
NOT_LIMITS: dict[tuple[str, str], str] = {
    # Byte values of diff syntax: what a line starts with, not a bound.
    ("diff/chunker/cuts.py", "_NL"): "the byte b'\\n'",
    ("diff/chunker/cuts.py", "_SPACE"): "the byte b' '",
    ("diff/chunker/cuts.py", "_PLUS"): "the byte b'+'",
    ("diff/chunker/cuts.py", "_MINUS"): "the byte b'-'",
    ("diff/chunker/cuts.py", "_BACKSLASH"): "the byte b'\\\\'",
    ("diff/chunker/pieces.py", "_NL"): "the byte b'\\n'",
    ("git/config.py", "_NL"): "the byte b'\\n'",
    ("git/config.py", "_CR"): "the byte b'\\r'",
    # Format versions: identifiers of what was written, not bounds.
    ("git/diffwrite.py", "DIFF_OPTIONS_VERSION"): "version of the git diff options",
    ("review/export/document.py", "FORMAT_VERSION"): "version of the export document",
    ("review/record/document.py", "FORMAT_VERSION"): "version of the record document",
    ("review/record/oplog.py", "FORMAT_VERSION"): "version of the review log",
    ("review/incremental/since_diff.py", "SINCE_FORMAT_VERSION"): "version of a since diff",
    # Markers: a value that says "none", not a bound.
    ("review/record/file_lines.py", "OUTSIDE"): "the offset of lines in no hunk",
    # Display widths of the CLI and the demo: how output looks, not what it may hold.
    ("cli/output.py", "FILES_COLUMN"): "width of a table column of file names",
    ("demo.py", "SHOWN_LINES"): "lines of a chunk the demo prints",
    ("demo.py", "WIDTH"): "width of the demo's rules",
}


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements run at import: the module's, and those inside its if/try/with blocks."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                yield from _module_statements(getattr(stmt, block, []))
            for handler in getattr(stmt, "handlers", []):
                yield from _module_statements(handler.body)


_NUMERIC_CALLS = frozenset({"int", "float", "max", "min", "round", "abs"})


def is_number(node: ast.expr) -> bool:
    """Whether ``node`` computes a number from literal numbers: ``5``, ``-1``,
    ``4 << 20``, ``2 * 1024**3``, ``max(100, int(x or 1000))``.  Tables
    (tuples, dicts, ``range(5)``, ``bytes(...)``) are not numbers."""
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float, complex)
    if isinstance(node, ast.UnaryOp):
        return is_number(node.operand)
    if isinstance(node, ast.BinOp):
        sides = (node.left, node.right)
        return any(is_number(s) for s in sides) and all(
            is_number(s) or isinstance(s, (ast.Name, ast.Attribute)) for s in sides
        )
    if isinstance(node, ast.BoolOp):
        return any(is_number(v) for v in node.values)
    if isinstance(node, ast.IfExp):
        return is_number(node.body) or is_number(node.orelse)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in _NUMERIC_CALLS and any(is_number(a) for a in node.args)
    return False


def numeric_constants(source: str) -> list[tuple[str, int]]:
    """(name, line) of the module-level constants of ``source`` whose value is a number."""
    found = []
    for stmt in _module_statements(ast.parse(source).body):
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
                pairs = list(zip(target.elts, value.elts, strict=False))  # A, B = 1, 2
            else:
                pairs = [(target, value)]
            for name, part in pairs:
                if isinstance(name, ast.Name) and CONSTANT.fullmatch(name.id) and is_number(part):
                    found.append((name.id, stmt.lineno))
    return found


@functools.cache
def _package_constants() -> dict[tuple[str, str], int]:
    """The numeric constants of every module but the table (parsed once: two tests read it)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == TABLE:
            continue
        rel = path.relative_to(PACKAGE).as_posix()
        for name, line in numeric_constants(path.read_text(encoding="utf-8")):
            found[(rel, name)] = line
    return found


def test_no_module_keeps_a_limit_of_its_own() -> None:
    found = dict(_package_constants())
    new = sorted(key for key in found if key not in NOT_LIMITS)
    assert not new, "numbers outside diffchunk/limits.py (add them to the table, with why): " + (
        ", ".join(f"diffchunk/{rel}:{found[(rel, name)]} {name}" for rel, name in new)
    )


def test_the_allow_lists_name_only_constants_that_exist() -> None:
    found = dict(_package_constants())
    stale = sorted(NOT_LIMITS.keys() - found.keys())
    assert not stale, f"allow-listed but gone (remove them from the list): {stale}"


def test_the_scan_sees_every_way_a_number_is_written() -> None:
    source = (
        "A = 5\n_B: int = 4 << 20\nC = max(100, int(x or 1000))\nD = 0.5\n"
        "if x:\n    E = 1\nlowercase = 3\nF = G\nH = 'text'\nI = True\n"
        "J = range(5)\nK = {'a': 1}\nL = bytes(range(9)) + bytes(range(3))\nM = -G\n"
        "K[1] = 2\nN, O = 1, 2\nP, Q = 3 * 4, 5\n"
    )
    assert [name for name, _ in numeric_constants(source)] == [
        "A",
        "_B",
        "C",
        "D",
        "E",
        "N",
        "O",
        "P",
        "Q",
    ]


def test_the_table_imports_nothing_of_the_package() -> None:
    tree = ast.parse(TABLE.read_text(encoding="utf-8"))
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert [ast.unparse(n) for n in imports] == ["from __future__ import annotations"]


def test_every_limit_is_followed_by_its_reason() -> None:
    body = ast.parse(TABLE.read_text(encoding="utf-8")).body
    unexplained = []
    for stmt, following in zip(body, [*body[1:], None], strict=True):
        if not isinstance(stmt, ast.Assign):
            continue
        name = ast.unparse(stmt.targets[0])
        reason = (
            following.value.value
            if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
            else None
        )
        if not isinstance(reason, str) or len(reason.split()) < 3:
            unexplained.append(name)
    assert not unexplained, f"limits without a reason after them: {unexplained}"


def test_every_limit_is_used() -> None:
    sources = "\n".join(
        path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py") if path != TABLE
    )
    table = TABLE.read_text(encoding="utf-8")
    names = [name for name in vars(limits) if CONSTANT.fullmatch(name)]
    # The words of the sources, and those after an "=" on a line of the table (used to
    # define another limit): a name is used when it is one of them, as \bNAME\b finds.
    used = set(WORD.findall(sources))
    used.update(WORD.findall("\n".join(line.partition("=")[2] for line in table.splitlines())))
    unused = [name for name in names if name not in used]
    assert not unused, f"limits no module uses: {unused}"
    assert len(names) > 200
