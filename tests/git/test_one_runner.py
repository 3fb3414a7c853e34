"""Nothing in the package starts git except ``diffchunk/git/runner.py``.

An AST scan of ``diffchunk/**/*.py`` finds every use of a function that
starts a process (``subprocess.Popen``/``run``/``call``/``check_call``/
``check_output``/..., ``os.system``, ``os.popen``, ``os.spawn*``,
``os.exec*``, ``os.posix_spawn*``, ``pty.spawn``, asyncio's
``create_subprocess_*``), however it is imported.  Outside the runner each
one fails the test unless its module is allowed to run one named program that
is not git, and the program it runs (argv[0]) is traced, within the module,
back to a string literal naming that program: a literal in the argument list,
or ``shutil.which("<literal>")``, through local names, loops, ``x[0]``,
``*x``, the returns of the module's functions and the arguments its own calls
pass to them.  Anything the trace cannot follow counts as unknown, and fails.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import package_source

import diffchunk

PACKAGE = Path(diffchunk.__file__).resolve().parent
RUNNER = "diffchunk/git/runner.py"

# (module, the one program it may start): commands that are not git.
ALLOWED = {
    ("diffchunk/files/access.py", "wc"),  # line counts of large files
    ("diffchunk/files/grep.py", "grep"),  # counts and first matches in large files
    ("diffchunk/cli/terminal.py", "sh"),  # the pager the user names, as git starts its own
}

STARTERS = {
    "subprocess": {
        "Popen",
        "run",
        "call",
        "check_call",
        "check_output",
        "getoutput",
        "getstatusoutput",
    },
    "os": {"system", "popen", "startfile"},
    "pty": {"spawn"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
}
OS_PREFIXES = ("spawn", "exec", "posix_spawn")


def _is_starter(module: str, name: str) -> bool:
    if module == "os" and name.startswith(OS_PREFIXES):
        return True
    return name in STARTERS.get(module, set())


@dataclass(frozen=True)
class Start:
    """A use of a process starter: where, which, and the program if it is a call."""

    module: str
    line: int
    starter: str
    programs: frozenset[str] | None  # None: argv[0] not traced to literals


class _Unknown(Exception):
    """The trace cannot tell which program this is."""


# How a name's value is followed: as an argument list, or as one value.
_Follow = Callable[[ast.expr, ast.AST, int], set[str]]


class _Module:
    """One module's AST, with what the program trace needs."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self.functions = {
            f.name: f
            for f in ast.walk(tree)
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        }

    def scope_of(self, node: ast.AST) -> ast.AST:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return node
        return self.tree

    def _own_nodes(self, scope: ast.AST) -> Iterator[ast.AST]:
        """The nodes of ``scope``, not those of functions nested in it."""
        pending = list(ast.iter_child_nodes(scope))
        while pending:
            node = pending.pop()
            yield node
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                pending.extend(ast.iter_child_nodes(node))

    def argv0(self, expr: ast.expr, scope: ast.AST, depth: int = 0) -> set[str]:
        """The literal programs an argument list ``expr`` may start with."""
        if depth > 20:
            raise _Unknown
        if isinstance(expr, (ast.List, ast.Tuple)) and expr.elts:
            first = expr.elts[0]
            if isinstance(first, ast.Starred):
                return self.argv0(first.value, scope, depth + 1)
            return self.value(first, scope, depth + 1)
        if isinstance(expr, ast.Name):
            return self._through_name(expr.id, scope, depth, self.argv0)
        if isinstance(expr, ast.Call):
            return self._returns(expr, scope, depth, self.argv0)
        raise _Unknown

    def value(self, expr: ast.expr, scope: ast.AST, depth: int = 0) -> set[str]:
        """The literal programs a single value ``expr`` may be."""
        if depth > 20:
            raise _Unknown
        if isinstance(expr, ast.Constant) and isinstance(expr.value, (str, bytes)):
            text = os.fsdecode(expr.value)
            return {os.path.basename(text)}
        if isinstance(expr, ast.Name):
            return self._through_name(expr.id, scope, depth, self.value)
        if (
            isinstance(expr, ast.Subscript)
            and isinstance(expr.slice, ast.Constant)
            and expr.slice.value == 0
        ):
            return self.argv0(expr.value, scope, depth + 1)
        if isinstance(expr, ast.Call):
            func = expr.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr == "which"
                and isinstance(func.value, ast.Name)
                and func.value.id == "shutil"
                and expr.args
            ):
                return self.value(expr.args[0], scope, depth + 1)
            return self._returns(expr, scope, depth, self.value)
        raise _Unknown

    def _through_name(self, name: str, scope: ast.AST, depth: int, follow: _Follow) -> set[str]:
        found: set[str] = set()
        bound = False
        for node in self._own_nodes(scope):
            if _changes_in_place(node, name):
                raise _Unknown
            assigned = _assigned(node, name)
            if assigned is not None:
                bound = True
                found |= follow(assigned, scope, depth + 1)
            elif (
                isinstance(node, ast.For)
                and isinstance(node.target, ast.Name)
                and node.target.id == name
            ):
                bound = True
                found |= self._elements(node.iter, scope, depth + 1, follow)
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [a.arg for a in (*scope.args.posonlyargs, *scope.args.args)]
            if name in params:
                bound = True
                found |= self._passed(scope, params.index(name), depth + 1, follow)
        if not bound:
            if scope is self.tree:
                raise _Unknown
            return self._through_name(name, self.tree, depth + 1, follow)
        return found

    def _elements(self, expr: ast.expr, scope: ast.AST, depth: int, follow: _Follow) -> set[str]:
        """What ``follow`` finds for each element of the iterable ``expr``."""
        if isinstance(expr, (ast.List, ast.Tuple)):
            found: set[str] = set()
            for element in expr.elts:
                found |= follow(element, scope, depth + 1)
            return found
        if isinstance(expr, ast.Name):
            return self._through_name(
                expr.id, scope, depth, lambda e, s, d: self._elements(e, s, d, follow)
            )
        raise _Unknown

    def _passed(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        index: int,
        depth: int,
        follow: _Follow,
    ) -> set[str]:
        """What the module's own calls of ``function`` pass as its ``index``-th argument."""
        found: set[str] = set()
        calls = [
            c
            for c in ast.walk(self.tree)
            if isinstance(c, ast.Call)
            and isinstance(c.func, ast.Name)
            and c.func.id == function.name
        ]
        if not calls:
            raise _Unknown
        for call in calls:
            if index >= len(call.args) or isinstance(call.args[index], ast.Starred):
                raise _Unknown
            found |= follow(call.args[index], self.scope_of(call), depth + 1)
        return found

    def _returns(self, call: ast.Call, scope: ast.AST, depth: int, follow: _Follow) -> set[str]:
        """What ``follow`` finds in the return values of the module function ``call`` calls."""
        if not isinstance(call.func, ast.Name) or call.func.id not in self.functions:
            raise _Unknown
        function = self.functions[call.func.id]
        found: set[str] = set()
        for node in self._own_nodes(function):
            if isinstance(node, ast.Return) and node.value is not None:
                if isinstance(node.value, ast.Constant) and node.value.value is None:
                    continue
                found |= follow(node.value, function, depth + 1)
        return found


def _assigned(node: ast.AST, name: str) -> ast.expr | None:
    """The value ``node`` assigns to ``name`` (``name = v`` or ``name: T = v``), if it does."""
    if isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == name for t in node.targets
    ):
        return node.value
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.value if node.target.id == name else None
    return None


def _changes_in_place(node: ast.AST, name: str) -> bool:
    """Whether ``node`` may change the first item of the list ``name`` (``name[i] = v``,
    ``name += v``, ``name.insert(...)``...): the trace does not follow those."""
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Subscript) and _names(target.value, name):
                return True
            if isinstance(node, ast.AugAssign) and _names(target, name):
                return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        method = node.func.attr
        return _names(node.func.value, name) and method in ("insert", "reverse", "sort")
    return False


def _names(expr: ast.expr, name: str) -> bool:
    return isinstance(expr, ast.Name) and expr.id == name


def _annotations(tree: ast.Module) -> set[ast.AST]:
    """Nodes inside type annotations (never evaluated: ``from __future__ import annotations``)."""
    roots: list[ast.AST | None] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.AnnAssign, ast.arg)):
            roots.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            roots.append(node.returns)
    return {inner for root in roots if root is not None for inner in ast.walk(root)}


def process_starts(source: str, module: str) -> list[Start]:
    """Every use of a process starter in ``source`` (the module named ``module``)."""
    tree = package_source.parse(source)
    info = _Module(tree)
    modules: dict[str, str] = {}  # local name -> the module it is
    starts: list[Start] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if alias.asname is None:
                    modules[top] = top
                else:
                    modules[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            for alias in node.names:
                if _is_starter(node.module, alias.name):
                    starts.append(Start(module, node.lineno, f"{node.module}.{alias.name}", None))
                elif node.module == "asyncio" and alias.name == "subprocess":
                    modules[alias.asname or alias.name] = "asyncio"
    in_annotation = _annotations(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            continue
        owner = modules.get(node.value.id)
        if owner is None or not _is_starter(owner, node.attr) or node in in_annotation:
            continue
        call = info.parents.get(node)
        programs: frozenset[str] | None = None
        if isinstance(call, ast.Call) and call.func is node:
            argv = call.args[0] if call.args else None
            for keyword in call.keywords:
                if keyword.arg == "args":
                    argv = keyword.value
            if argv is not None:
                try:
                    programs = frozenset(info.argv0(argv, info.scope_of(call)))
                except _Unknown:
                    programs = None
        starts.append(Start(module, node.lineno, f"{owner}.{node.attr}", programs))
    return sorted(starts, key=lambda start: start.line)


def _violations(starts: list[Start]) -> list[str]:
    problems = []
    for start in starts:
        if start.module == RUNNER:
            continue
        allowed = {program for module, program in ALLOWED if module == start.module}
        programs = start.programs or frozenset()
        if allowed and start.programs and programs <= allowed and "git" not in programs:
            continue
        shown = ", ".join(sorted(programs)) if start.programs else "not traced to a literal"
        problems.append(
            f"{start.module}:{start.line}: {start.starter} starts a process outside {RUNNER} "
            f"(program: {shown}); start git through diffchunk.git.runner.GitCommand"
        )
    return problems


def _package_starts() -> list[Start]:
    starts = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = "diffchunk/" + path.relative_to(PACKAGE).as_posix()
        starts += process_starts(package_source.source(path), module)
    return starts


def test_only_the_runner_starts_git() -> None:
    starts = _package_starts()
    assert _violations(starts) == []
    # The allow-list is exact: each entry still starts its program, and nothing else.
    used = {
        (start.module, program)
        for start in starts
        if start.module != RUNNER
        for program in start.programs or ()
    }
    assert used == ALLOWED
    assert any(start.module == RUNNER for start in starts)


def _check(source: str, module: str = "diffchunk/files/grep.py") -> list[str]:
    return _violations(process_starts(source, module))


def test_the_scan_finds_git_started_any_way() -> None:
    found = [
        "import subprocess\nsubprocess.run(['git', 'status'])\n",
        "import subprocess as sp\nsp.Popen(['git'])\n",
        "from subprocess import check_output\ncheck_output(['ls'])\n",
        "import os\nos.system('git status')\n",
        "import os\nos.execvp('git', ['git'])\n",
        "import os\nos.posix_spawnp('git', ['git'], {})\n",
        "import pty\npty.spawn(['git'])\n",
        "import asyncio\nasyncio.create_subprocess_exec('git')\n",
        "import subprocess\nstart = subprocess.Popen\nstart(['grep'])\n",
        "import subprocess\ndef f(cmd):\n    subprocess.run(cmd)\n",
        # The allowed program, but git too.
        "import shutil, subprocess\n"
        "def f(tool):\n    subprocess.run([shutil.which(tool), '-c'])\n"
        "f('grep')\nf('git')\n",
        "import shutil, subprocess\nsubprocess.run([shutil.which('git')])\n",
        "import subprocess\ncmd = ['grep']\ncmd[0] = 'git'\nsubprocess.run(cmd)\n",
        "import subprocess\ncmd = ['-c']\ncmd.insert(0, 'git')\nsubprocess.run(cmd)\n",
    ]
    for source in found:
        problems = _check(source)
        assert len(problems) == 1, source
        assert problems[0].startswith("diffchunk/files/grep.py:"), problems
    # Elsewhere than an allowed module, even the allowed program fails.
    assert _check("import subprocess\nsubprocess.run(['grep'])\n", "diffchunk/files/line_reads.py")


def test_the_scan_follows_the_program_back_to_its_literal() -> None:
    traced = (
        "import shutil, subprocess\n"
        "from typing import IO\n"
        "def _path():\n    return shutil.which('grep')\n"
        "def _command(x):\n"
        "    if x:\n        return None\n"
        "    grep = _path()\n"
        "    cmd: list[str] = [grep, '-F']\n"
        "    return [*cmd, '-e', x]\n"
        "def _run(commands):\n"
        "    procs: list[subprocess.Popen[bytes]] = []\n"
        "    for cmd in commands:\n"
        "        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE))\n"
        "def count(x):\n"
        "    cmd = _command(x)\n"
        "    _run([[cmd[0], '-c', *cmd[1:]]])\n"
    )
    starts = process_starts(traced, "diffchunk/files/grep.py")
    assert [(s.starter, s.programs) for s in starts] == [("subprocess.Popen", frozenset({"grep"}))]
    assert _violations(starts) == []
