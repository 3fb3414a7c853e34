"""What a review of a git range has to read, worked out once for both readers of
``make bench-review`` (plain git and diffchunk).

From ``git diff A..B -- FILE`` and Python's ``ast`` at both revisions:

- each changed file's **kind** by its name (code, tests, docs, config;
  lock files are generated and skipped by both readers), in review order:
  code first, then tests, docs and config;
- each file's **changed lines** (added lines with their new number, removed
  lines with their old one): the lines the check looks for in the answers;
- the **enclosing definitions** of a code file's changed lines (Python,
  tests aside: their diff is read as it is) at the new revision: the
  innermost function that holds each changed line, or for a line of a
  class's own body, the class's head (its first line to its first nested
  definition); a run of removed lines counts when the new lines on both
  sides of it are in the same one; blank lines do not count; each once,
  leaving out those the diff already shows whole (a function it adds);
- the **changed definitions** whose callers a reviewer looks up: the same
  ones, those the change adds whole aside, and those it removes (defined at
  the old revision, gone at the new one); dunder methods left out (their
  callers are the language's).

Everything here reads git through plain ``git`` commands, in a bare or
non-bare repository, without the user's or the system's git configuration;
nothing of it is counted as read (the readers count what they read
themselves).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import PurePosixPath

KINDS = ("code", "tests", "docs", "config")
#: Files both readers skip: what a reviewer does not read line by line.
LOCK_FILES = frozenset(
    {
        "uv.lock",
        "poetry.lock",
        "Cargo.lock",
        "Pipfile.lock",
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "composer.lock",
        "Gemfile.lock",
        "go.sum",
    }
)
CODE_SUFFIXES = frozenset(
    {".py", ".pyi", ".pyx", ".rs", ".c", ".h", ".cc", ".cpp", ".js", ".ts", ".go", ".java"}
)
DOC_SUFFIXES = frozenset({".md", ".rst", ".txt", ".adoc"})
DOC_NAMES = ("README", "CHANGES", "HISTORY", "LICENSE", "CONTRIBUTING", "AUTHORS")
TEST_DIRS = frozenset({"tests", "test", "testing"})
HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Definition:
    """A function or class of one revision of a file: its qualified name and lines."""

    path: str
    name: str  # qualified: "Parser.run"
    first: int  # its first line, decorators included
    last: int
    line: int  # the line of its "def" or "class"
    is_class: bool = False

    @property
    def short(self) -> str:
        return self.name.rsplit(".", 1)[-1]


@dataclass
class ChangedFile:
    """One file of the range: its kind, its changed lines and its definitions."""

    path: str
    kind: str
    old_path: str | None = None
    added: list[tuple[int, str]] = field(default_factory=list)  # (new line, text)
    removed: list[tuple[int, str]] = field(default_factory=list)  # (old line, text)
    shown_new: set[int] = field(default_factory=set)  # new lines the diff shows
    enclosing: list[Definition] = field(default_factory=list)
    changed_defs: list[Definition] = field(default_factory=list)
    new_lines: list[str] = field(default_factory=list)  # the new revision (Python files)

    def text_of(self, d: Definition) -> list[str]:
        """The lines of a definition of the new revision."""
        return self.new_lines[d.first - 1 : d.last]

    @property
    def is_code(self) -> bool:
        """A file of code, tests included (by its suffix): the check reads its lines."""
        return PurePosixPath(self.path).suffix in CODE_SUFFIXES


@dataclass
class RangeReading:
    """The range: its revisions and its files in review order (generated ones apart)."""

    repo: str
    rng: str  # as given: "8.4.2..8.5.0"
    base: str  # commit ids
    head: str
    files: list[ChangedFile]
    generated: list[str]

    @property
    def base_ref(self) -> str:
        return self.rng.split("..")[0]

    @property
    def head_ref(self) -> str:
        return self.rng.split("..")[1]


GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: str, *args: str) -> str:
    """A git command's output as text, as git prints it by default (no pager, no colour:
    the output is not a terminal)."""
    out = subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, env=GIT_ENV)
    return out.stdout.decode("utf-8", "replace")


def kind_of(path: str) -> str | None:
    """A file's kind by its name: "code", "tests", "docs", "config", or None (generated)."""
    p = PurePosixPath(path)
    if p.name in LOCK_FILES:
        return None
    if TEST_DIRS & set(p.parts[:-1]) or p.name.startswith("test_") or p.stem.endswith("_test"):
        return "tests"
    if p.name == "conftest.py":
        return "tests"
    if p.suffix in CODE_SUFFIXES:
        return "code"
    if p.name.startswith("requirements") or "requirements" in p.parts[:-1]:
        return "config"
    if p.suffix in DOC_SUFFIXES or p.parts[0] in ("docs", "doc") or p.name.startswith(DOC_NAMES):
        return "docs"
    return "config"


def changed_lines(diff: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]], set[int]]:
    """(added lines as (new number, text), removed lines as (old number, text), the new
    lines the diff shows) of one file's ``git diff``."""
    added: list[tuple[int, str]] = []
    removed: list[tuple[int, str]] = []
    shown: set[int] = set()
    old = new = 0
    in_hunk = False
    for line in diff.split("\n"):
        m = HUNK.match(line)
        if m is not None:
            old, new = int(m.group(1)), int(m.group(2))
            in_hunk = True
        elif not in_hunk or not line or line[0] not in " +-":
            continue
        elif line[0] == "+":
            added.append((new, line[1:]))
            shown.add(new)
            new += 1
        elif line[0] == "-":
            removed.append((old, line[1:]))
            old += 1
        else:
            shown.add(new)
            old += 1
            new += 1
    return added, removed, shown


def definitions(path: str, source: str) -> list[Definition]:
    """Every function and class of a Python source, nested ones included (none when it
    does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found: list[Definition] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, DEFINITIONS):
                name = f"{prefix}{child.name}"
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                last = child.end_lineno or child.lineno
                is_class = isinstance(child, ast.ClassDef)
                found.append(Definition(path, name, first, last, child.lineno, is_class))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def innermost(defs: list[Definition], line: int) -> Definition | None:
    """The smallest definition holding ``line``."""
    holding = [d for d in defs if d.first <= line <= d.last]
    return min(holding, key=lambda d: d.last - d.first) if holding else None


def reading_span(defs: list[Definition], line: int) -> Definition | None:
    """What a reviewer reads around a changed line: the innermost function holding it;
    in a class's body outside its methods, the class's head (its first line to the
    line before its first nested definition) when the line is there, else nothing (a
    line between two methods: the diff's context shows them)."""
    d = innermost(defs, line)
    if d is None or not d.is_class:
        return d
    nested = [n.first for n in defs if n.first > d.first and n.last <= d.last]
    end = min(nested) - 1 if nested else d.last
    return Definition(d.path, d.name, d.first, end, d.line, True) if line <= end else None


def _removal_runs(diff: str) -> list[tuple[int, int]]:
    """For each run of removed lines that are not all blank: the new lines just before
    and just after it."""
    runs: list[tuple[int, int]] = []
    new = 0
    run: list[str] | None = None
    for line in diff.split("\n"):
        m = HUNK.match(line)
        if m is not None:
            new, run = int(m.group(2)), None
            continue
        if not line or line[0] not in " +-" or new == 0:
            continue
        if line[0] == "-":
            if run is None:
                run = []
                runs.append((new - 1, new))
            run.append(line[1:])
            continue
        if run is not None and not any(text.strip() for text in run):
            runs.pop()
        run = None
        new += 1
    if run is not None and not any(text.strip() for text in run):
        runs.pop()
    return runs


def _holding(cf: ChangedFile, diff: str, new_defs: list[Definition]) -> list[Definition]:
    """The reading spans (:func:`reading_span`) at the new revision that hold a changed
    line that is not blank, each once."""
    held: dict[Definition, None] = {}
    for line, text in cf.added:
        d = reading_span(new_defs, line) if text.strip() else None
        if d is not None:
            held[d] = None
    for before, after in _removal_runs(diff):
        d = reading_span(new_defs, before)
        if d is not None and d.first <= after <= d.last:
            held[d] = None
    return list(held)


def _changed_defs(
    cf: ChangedFile, holding: list[Definition], old_defs: list[Definition], new: set[str]
) -> list[Definition]:
    """The definitions whose callers a reviewer checks: modified (not added whole) and
    removed ones (not those inside a removed one), dunder methods left out."""
    added = {n for n, _ in cf.added}
    removed = {n for n, _ in cf.removed}
    modified = [d for d in holding if not set(range(d.first, d.last + 1)) <= added]
    gone = [
        d
        for d in old_defs
        if d.name not in new and any(n in removed for n in range(d.first, d.last + 1))
    ]
    gone = [d for d in gone if not any(d.name.startswith(g.name + ".") for g in gone)]
    return [d for d in modified + gone if not d.short.startswith("__")]


def read_file(repo: str, base: str, head: str, path: str, old_path: str | None) -> ChangedFile:
    """One file of the range: its kind, changed lines and (Python) definitions."""
    kind = kind_of(path)
    assert kind is not None, path
    cf = ChangedFile(path, kind, old_path)
    diff = git(
        repo, "diff", f"{base}..{head}", "--", *dict.fromkeys(filter(None, (old_path, path)))
    )
    cf.added, cf.removed, cf.shown_new = changed_lines(diff)
    if kind != "code" or PurePosixPath(path).suffix not in (".py", ".pyi"):
        return cf
    new_src = _show(repo, head, path)
    cf.new_lines = new_src.split("\n")
    new_defs = definitions(path, new_src)
    old_defs = definitions(old_path or path, _show(repo, base, old_path or path))
    holding = _holding(cf, diff, new_defs)
    shown = cf.shown_new
    cf.enclosing = [d for d in holding if not set(range(d.first, d.last + 1)) <= shown]
    cf.changed_defs = _changed_defs(cf, holding, old_defs, {d.name for d in new_defs})
    return cf


def _show(repo: str, rev: str, path: str) -> str:
    try:
        return git(repo, "show", f"{rev}:{path}")
    except subprocess.CalledProcessError:
        return ""  # added or deleted on that side


def read_range(repo: str, rng: str) -> RangeReading:
    """The range's files in review order, their changed lines and definitions (``rng``:
    ``A..B``)."""
    if rng.count("..") != 1 or "..." in rng:
        raise ValueError(f"{rng!r}: give a range as A..B")
    base_name, head_name = rng.split("..")
    base = git(repo, "rev-parse", "--verify", f"{base_name}^{{commit}}").strip()
    head = git(repo, "rev-parse", "--verify", f"{head_name}^{{commit}}").strip()
    files: list[ChangedFile] = []
    generated: list[str] = []
    for status, paths in _name_status(repo, base, head):
        path = paths[-1]
        if kind_of(path) is None:
            generated.append(path)
            continue
        old_path = paths[0] if status.startswith(("R", "C")) else None
        files.append(read_file(repo, base, head, path, old_path))
    files.sort(key=lambda f: KINDS.index(f.kind))
    return RangeReading(repo, rng, base, head, files, generated)


def _name_status(repo: str, base: str, head: str) -> list[tuple[str, list[str]]]:
    fields = git(repo, "diff", "--name-status", "-z", f"{base}..{head}").split("\0")
    out: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(fields) - 1:
        status = fields[i]
        count = 2 if status.startswith(("R", "C")) else 1
        out.append((status, fields[i + 1 : i + 1 + count]))
        i += 1 + count
    return out
