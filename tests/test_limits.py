"""Every module-level number has a name and its reason; only numbers several modules share
live in diffchunk/limits.py, imported by their own names.

A module-level constant whose value is a number (``X = 5``, ``X = 4 << 20``,
``X = max(100, ...)``) needs its reason beside it: a docstring after it, or a
comment on its line or the line above.  A number in diffchunk/limits.py is used by
more than one module (else it belongs beside its one user), is imported without
``as``, and the short id's length is never written as a literal.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import package_source

import diffchunk
from diffchunk import limits

PACKAGE = Path(diffchunk.__file__).parent
TABLE = PACKAGE / "limits.py"
CONSTANT = re.compile(r"_?[A-Z][A-Z0-9_]*")
WORD = re.compile(r"\w+")


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
    for stmt in _module_statements(package_source.parse(source).body):
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
        for name, line in numeric_constants(package_source.source(path)):
            found[(rel, name)] = line
    return found


def _reasons(path: Path) -> dict[str, bool]:
    """Each numeric constant of ``path`` (by name): whether its reason is beside it."""
    source = package_source.source(path)
    lines = source.splitlines()
    body = list(_module_statements(package_source.parse(source).body))
    found = {}
    for name, line in numeric_constants(source):
        stmt = next(s for s in body if s.lineno == line)
        after = body[body.index(stmt) + 1] if body.index(stmt) + 1 < len(body) else None
        doc = (
            isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
            and len(after.value.value.split()) >= 3
        )
        own_line = "#" in lines[stmt.end_lineno - 1]
        k = line - 2  # a comment above a run of constants explains the run
        while k >= 0 and re.match(r"_?[A-Z][A-Z0-9_]* = ", lines[k]):
            k -= 1
        above = k >= 0 and lines[k].lstrip().startswith("#")
        found[name] = doc or own_line or above
    return found


def test_every_module_level_number_has_a_name_and_a_reason() -> None:
    unexplained = [
        f"diffchunk/{path.relative_to(PACKAGE).as_posix()}: {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, explained in _reasons(path).items()
        if not explained
    ]
    assert not unexplained, (
        "a number without its reason (a docstring after it, or a comment): "
        + ", ".join(unexplained)
    )


def _limits_imports() -> Iterator[tuple[str, ast.ImportFrom]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(package_source.parse(package_source.source(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "limits":
                yield rel, node


def test_shared_numbers_are_imported_by_their_own_names() -> None:
    renamed = [
        f"diffchunk/{rel}: {alias.name} as {alias.asname}"
        for rel, node in _limits_imports()
        for alias in node.names
        if alias.asname and alias.asname != alias.name
    ]
    assert not renamed, f"one value, one name: {renamed}"


def test_every_shared_number_is_shared() -> None:
    users: dict[str, set[str]] = {}
    for rel, node in _limits_imports():
        for alias in node.names:
            users.setdefault(alias.name, set()).add(rel)
    names = [name for name in vars(limits) if CONSTANT.fullmatch(name)]
    alone = sorted(
        f"{name} ({', '.join(sorted(users.get(name, ())))})"
        for name in names
        if len(users.get(name, ())) < 2
    )
    assert not alone, f"numbers of one module or none (move them beside their user): {alone}"


def test_no_module_writes_the_short_id_as_a_literal() -> None:
    written = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(package_source.parse(package_source.source(path))):
            bound = node.upper if isinstance(node, ast.Slice) else None
            if isinstance(bound, ast.Constant) and bound.value == limits.SHORT_ID:
                written.append(f"diffchunk/{path.relative_to(PACKAGE).as_posix()}:{node.lineno}")
    assert not written, f"[:{limits.SHORT_ID}] is [:SHORT_ID] (diffchunk.limits): {written}"


def test_no_module_shadows_a_shared_number() -> None:
    shared = {name for name in vars(limits) if CONSTANT.fullmatch(name)}
    shadows = sorted(
        f"diffchunk/{rel} {name}" for rel, name in _package_constants() if name in shared
    )
    assert not shadows, f"a shared number defined again: {shadows}"


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
