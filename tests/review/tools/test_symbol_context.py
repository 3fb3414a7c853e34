"""get_file_diff(context="symbol"): hunks widened to the definition around them, still a patch."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gitrepo import commit, git, git_bytes, init_repo, run_git

from diffchunk.diff.options import LoadOptions
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools

HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def _function(name: str, body: int, tag: str = "") -> str:
    lines = [f"def {name}(x):\n"]
    lines += [f"    y{i} = x + {i}{tag}\n" for i in range(body)]
    lines.append("    return x\n\n\n")
    return "".join(lines)


def _methods(names: str) -> str:
    return "".join(f"    def {n}(self):\n        return {n!r}\n\n" for n in names.split())


CLASS = (
    'class Shape:\n    """A shape."""\n\n    sides = 0\n\n'
    + _methods("area perimeter")
    + "    kind = 'plain'\n\n"
    + _methods("scale rotate")
)


def _big_class(methods: int) -> str:
    out = ["class Big:\n", "    a = 1\n"]
    for m in range(methods):
        out.append(f"    def m{m}(self):\n        return {m}\n\n")
    return "".join(out)


OLD = {
    "mod.py": _function("alpha", 30) + _function("beta", 30) + _function("gamma", 4),
    "big.py": _big_class(200),
    "notes.txt": "".join(f"note {i}\n" for i in range(60)),
    "tail.py": _function("last", 12).rstrip("\n"),
    "gone.py": _function("old", 5),
    "shape.py": CLASS,
}


def _new() -> dict[str, str]:
    mod = OLD["mod.py"]
    mod = mod.replace("y15 = x + 15\n", "y15 = x + 150\n", 1)  # alpha, mid-body
    mod = mod.replace("y2 = x + 2\n    y3", "y2 = x + 20\n    y3", 1)  # alpha, near its top
    mod = mod.replace(
        "    y28 = x + 28\n    y29 = x + 29\n    return x\n\n\ndef beta",
        "    y28 = x + 28\n    return x\n\n\ndef beta",
    )
    gamma = _function("gamma", 4)
    mod = mod.replace(gamma, gamma.replace("y1 = x + 1", "y1 = x - 1"))
    big = OLD["big.py"].replace("    a = 1\n", "    a = 2\n")
    notes = OLD["notes.txt"].replace("note 30\n", "note thirty\n")
    tail = OLD["tail.py"].replace("y6 = x + 6", "y6 = x * 6")
    shape = CLASS.replace('"""A shape."""', '"""A plane shape."""').replace("'plain'", "'flat'")
    return {"mod.py": mod, "big.py": big, "notes.txt": notes, "tail.py": tail, "shape.py": shape}


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    commit(repo, OLD)
    (repo / "gone.py").unlink()
    commit(repo, _new(), "two")
    return repo


def _applies(repo: Path, patch: str, path: str, tmp_path: Path) -> None:
    """``patch`` applies to the old revision and gives the new file exactly."""
    work = tmp_path / f"apply-{path}"
    run_git(tmp_path, "clone", "-q", str(repo), str(work))
    git(work, "checkout", "-q", "HEAD~1")
    (tmp_path / "p.diff").write_text(patch)
    git(work, "apply", "--check", str(tmp_path / "p.diff"))
    git(work, "apply", str(tmp_path / "p.diff"))
    assert (work / path).read_bytes() == git_bytes(repo, "show", f"HEAD:{path}")


def _hunks(text: str) -> list[tuple[int, int, int, int]]:
    return [(int(a), int(b or 1), int(c), int(d or 1)) for a, b, c, d in HEADER.findall(text)]


def test_hunks_widen_to_their_functions_and_merge(repo: Path, tmp_path: Path) -> None:
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=SessionStore()).file_path
    plain = diff_tools.get_file_diff(diff, "mod.py")
    assert diff_tools.get_file_diff(diff, "mod.py", context="hunks") == plain
    widened = diff_tools.get_file_diff(diff, "mod.py", context="symbol")
    # alpha's three hunks become one covering alpha whole with the hunks' own context
    # (new lines 1-33, one fewer than in the old); gamma's covers gamma (68-73) and its
    # context line before.
    assert len(_hunks(plain)) == 4
    assert _hunks(widened) == [(1, 34, 1, 33), (68, 7, 67, 7)]
    assert widened.count("\n def alpha(x):\n") == 1 and " def gamma(x):\n" in widened
    assert "\n def beta(x):" not in widened  # beta is unchanged: not shown
    assert "@@ -1,34 +1,33 @@\n" in widened  # a hunk that starts earlier names nothing
    _applies(repo, widened, "mod.py", tmp_path)


def test_a_definition_too_long_and_files_without_outline_keep_their_hunks(
    repo: Path, tmp_path: Path
) -> None:
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=SessionStore()).file_path
    big = diff_tools.get_file_diff(diff, "big.py", context="symbol")
    # A 600-line class: its own head (lines 1-2) lies within the hunk already.
    assert _hunks(big) == _hunks(diff_tools.get_file_diff(diff, "big.py"))
    # Widened to nothing more, lean shows the class's own lines around the change (its
    # head), where the plain lean view leaves git's context lines out.
    lean = diff_tools.get_file_diff(diff, "big.py", format="lean", context="symbol")
    plain = diff_tools.get_file_diff(diff, "big.py", format="lean")
    # (the class line git's context held and lean leaves out names the hunk)
    assert plain.endswith("\n## big.py (+1 -1)\n@@ 2 class Big:\n-    a = 1\n+    a = 2\n"), plain
    assert lean.endswith("\n## big.py (+1 -1)\n@@ 1\n class Big:\n-    a = 1\n+    a = 2\n"), lean
    notes = diff_tools.get_file_diff(diff, "notes.txt", context="symbol")
    assert notes.startswith("=== notes.txt has no outline")
    assert notes.endswith(diff_tools.get_file_diff(diff, "notes.txt"))
    gone = diff_tools.get_file_diff(diff, "gone.py", context="symbol")
    assert gone.startswith("=== gone.py is deleted")
    tail = diff_tools.get_file_diff(diff, "tail.py", context="symbol")
    assert _hunks(tail) == [(1, 14, 1, 14)] and tail.endswith("\\ No newline at end of file\n")
    _applies(repo, tail, "tail.py", tmp_path)


def test_a_view_with_less_context_and_the_working_tree(repo: Path, tmp_path: Path) -> None:
    store = SessionStore()
    view = load_git_diff(
        str(repo), "HEAD~1..HEAD", options=LoadOptions(context_lines=0), store=store
    ).file_path
    widened = diff_tools.get_file_diff(view, "mod.py", context="symbol", store=store)
    # No context lines of their own: exactly alpha (new 1-31) and gamma (new 68-73).
    assert _hunks(widened) == [(1, 32, 1, 31), (69, 6, 68, 6)]
    _applies(repo, widened, "mod.py", tmp_path)
    (repo / "tail.py").write_text(_function("last", 12).replace("y9 =", "z9 ="))
    worktree = load_git_diff(str(repo), store=store).file_path
    edited = diff_tools.get_file_diff(worktree, "tail.py", context="symbol", store=store)
    assert " def last(x):\n" in edited and "+    z9 = x + 9\n" in edited


def test_a_diff_file_without_its_repository_is_served_as_it_is(repo: Path, tmp_path: Path) -> None:
    diff = tmp_path / "change.diff"
    diff.write_bytes(git_bytes(repo, "diff", "HEAD~1", "HEAD"))
    store = SessionStore()
    text = diff_tools.get_file_diff(str(diff), "mod.py", context="symbol", store=store)
    assert text.startswith("=== the new revision of mod.py cannot be read")
    # Once its repository is known (open_file_version with absolute_repo_path), it is used.
    from diffchunk.review.tools.file_versions import open_file_version

    open_file_version(str(diff), "mod.py", absolute_repo_path=str(repo), store=store)
    widened = diff_tools.get_file_diff(str(diff), "mod.py", context="symbol", store=store)
    assert _hunks(widened) == [(1, 34, 1, 33), (68, 7, 67, 7)]


def test_a_class_shows_its_own_lines_around_a_change_not_its_methods(
    repo: Path, tmp_path: Path
) -> None:
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=SessionStore()).file_path
    store = SessionStore()
    view = load_git_diff(
        str(repo), "HEAD~1..HEAD", options=LoadOptions(context_lines=0), store=store
    ).file_path
    widened = diff_tools.get_file_diff(view, "shape.py", context="symbol", store=store)
    # The docstring's change: the class's head, to its first method (lines 1-5); the
    # attribute's between two methods: the lines between them (11-13); no method.
    assert _hunks(widened) == [(1, 5, 1, 5), (11, 3, 11, 3)], widened
    assert "def area" not in widened and "def scale" not in widened
    _applies(repo, widened, "shape.py", tmp_path)
    lean = diff_tools.get_file_diff(diff, "shape.py", format="lean", context="symbol")
    assert "rotate" not in lean, lean


def test_lean_shows_the_definitions_lines_and_not_gits_context_outside_them(
    repo: Path,
) -> None:
    """In lean, a widened hunk shows its definition's unchanged lines and leaves git's
    context lines around the definition out, as lean does; a class's changed docstring
    shows the class's head even where git's context already covered it."""
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=SessionStore()).file_path
    mod = diff_tools.get_file_diff(diff, "mod.py", format="lean", context="symbol")
    body = mod.split("\n\n", 1)[1]
    # gamma (new 68-73) is shown from its def line: the blank line before it (git's
    # context, widened with it) is not
    gamma = body[body.index("def gamma") - 30 :]
    assert "@@ 68 def beta(x):\n def gamma(x):\n" in gamma, gamma
    assert body.count(" def alpha(x):") == 1 and "y15 = x + 150" in body
    shape = diff_tools.get_file_diff(diff, "shape.py", format="lean", context="symbol")
    assert "@@ 1\n class Shape:\n~" in shape, shape
    assert "    def area(self):" not in shape
