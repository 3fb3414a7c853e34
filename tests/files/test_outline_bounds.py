"""No file makes an outline run away: hostile nestings are outlined in bounded time, and
every answer that shows an outline says what its bounds left out.

The hostile files are generated here (megabytes, not committed).  The reproducers run
``get_overview`` in a process of its own with a deadline: tree-sitter holds the
interpreter for a whole parse or query, so a thread of this one could not stop it, and
one of them killed the process that parsed it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gitrepo import commit, init_repo

from diffchunk.files import outline
from diffchunk.files.outline import build_outline, count_items
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools

DEADLINE = 90.0
"""Seconds a hostile outline may take in its own process: a few on this code."""


def nested_functions_js(count: int) -> str:
    """``count`` functions, each inside the one before (3.2 MB for 150,000)."""
    return "".join(f"function f{i}(){{\n" for i in range(count)) + "}\n" * count


def nested_functions_py(count: int, body: str = "pass") -> str:
    """``count`` Python functions each one space deeper than the one before."""
    lines = "".join(" " * i + f"def f{i}():\n" + " " * (i + 1) + f"{body}\n" for i in range(count))
    return lines


def nested_classes_java(count: int) -> str:
    return "".join(f"class C{i} {{\n" for i in range(count)) + "}\n" * count


OVERVIEW = """
    import json, sys
    from diffchunk.files.overview import get_overview
    answer = get_overview(sys.argv[1]).to_dict()
    print(json.dumps({key: answer.get(key) for key in ("outline_total", "outline_cut")}))
"""


def _overview(tmp_path: Path, name: str, text: str) -> dict[str, Any]:
    """``get_overview`` of a file holding ``text``, in a fresh process with a deadline.

    The server runs its tools on worker threads: so does this, for the outline to
    take the path the server's does.
    """
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    script = tmp_path / "overview.py"
    code = textwrap.dedent(OVERVIEW).replace(
        "answer = get_overview(sys.argv[1]).to_dict()",
        "import threading\n"
        "box = {}\n"
        "worker = threading.Thread(target=lambda: box.update(a=get_overview(sys.argv[1])))\n"
        "worker.start(); worker.join()\n"
        "answer = box['a'].to_dict()",
    )
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "DIFFCHUNK_CACHE_DIR": str(tmp_path / "cache")}
    try:
        done = subprocess.run(
            [sys.executable, str(script), str(path)],
            capture_output=True,
            text=True,
            timeout=DEADLINE,
            env=env,
            cwd=tmp_path,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"get_overview of {name} did not finish in {DEADLINE:g} s")
    assert done.returncode == 0, f"exit status {done.returncode}: {done.stderr[-2000:]}"
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_150000_nested_functions_are_outlined_in_bounded_time(tmp_path: Path) -> None:
    # 104 s in tree-sitter's query cursor before, every other call waiting.
    answer = _overview(tmp_path, "nested.js", nested_functions_js(150_000))
    # The outermost three: deeper functions are closures (MAX_FUNCTION_NESTING).
    assert answer == {"outline_total": 3, "outline_cut": None}


def test_deeply_indented_python_functions_are_outlined_in_bounded_time(tmp_path: Path) -> None:
    # The skeleton searched each body's end again for every function around it: 86 s.
    answer = _overview(tmp_path, "nested.py", nested_functions_py(2_400))
    assert answer["outline_total"] == 3
    assert answer["outline_cut"] == (
        "lines indented 256 characters or 32 tabs deep are left out (from line 512)"
    )


def test_a_string_deep_in_python_indentation_does_not_kill_the_process(tmp_path: Path) -> None:
    # tree-sitter-python's scanner overflowed its saved state: the process died (SIGSEGV).
    answer = _overview(tmp_path, "strings.py", nested_functions_py(600, body='"""doc"""'))
    assert answer["outline_total"] == 3
    assert "left out (from line 512)" in answer["outline_cut"]


def test_classes_nested_too_deep_are_left_out_and_the_answer_says_so(tmp_path: Path) -> None:
    # Every walk of the outline recursed past Python's limit: get_overview failed.
    answer = _overview(tmp_path, "Nested.java", nested_classes_java(150_000))
    assert answer == {
        "outline_total": outline.OUTLINE_MAX_DEPTH,
        "outline_cut": f"definitions nested more than {outline.OUTLINE_MAX_DEPTH} deep are left out "
        f"(from line {outline.OUTLINE_MAX_DEPTH + 1})",
    }


def _in_thread(work: Callable[[], Any]) -> Any:
    box: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: box.update(result=work()))
    worker.start()
    worker.join()
    return box["result"]


def test_past_its_time_budget_an_outline_says_where_it_stopped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(3000)).encode()
    cut: list[str] = []
    monkeypatch.setattr(outline, "TIME_BUDGET", 0.0)
    assert _in_thread(lambda: build_outline(source, "python", cut=cut)) == []
    assert cut == ["the parse took over 0 s: no outline"]
    # A budget that lets the parse through but not the queries: the outline stops where
    # the queries got to (here, before the first slice).
    monkeypatch.setattr(outline, "TIME_BUDGET", 30.0)
    real_matches = outline._matches
    monkeypatch.setattr(
        outline,
        "_matches",
        lambda query, root, text, deadline, found: real_matches(query, root, text, 0.0, found),
    )
    cut.clear()
    assert _in_thread(lambda: build_outline(source, "python", cut=cut)) == []
    assert cut == ["listing the definitions took over 30 s: the outline stops at line 1"]


def test_the_bounds_keep_every_definition_of_ordinary_code() -> None:
    source = "".join(
        f"class C{i}:\n    def m(self):\n        def inner():\n            pass\n\n"
        for i in range(2000)
    ).encode()
    cut: list[str] = []
    found = _in_thread(lambda: build_outline(source, "python", cut=cut))
    assert cut == [] and count_items(found) == 6000


def _nested_classes_py(depth: int, tag: str) -> str:
    lines = [" " * i + f"class C{i}:\n" for i in range(depth)]
    return "".join(lines) + " " * depth + f"def leaf(self):\n{' ' * (depth + 1)}return {tag}\n"


def test_a_cut_outline_is_not_compared_and_the_answers_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
    repo = init_repo(tmp_path / "repo")
    depth = outline.OUTLINE_MAX_DEPTH + 4
    commit(repo, {"deep.py": _nested_classes_py(depth, "1"), "flat.py": "def f():\n    return 1\n"})
    commit(repo, {"deep.py": _nested_classes_py(depth, "2"), "flat.py": "def f():\n    return 2\n"})
    store = SessionStore()
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=store).file_path
    listing = diff_tools.list_chunks(diff, store=store).to_dict()
    details = {d["path"]: d for c in listing["chunks"] for d in c["file_details"]}
    # The listing's symbols come from the hunks where an outline was cut.
    assert details["deep.py"]["symbols_from"] == "hunks"
    assert "symbols_from" not in details["flat.py"]  # from the outline
    widened = diff_tools.get_file_diff(diff, "deep.py", context="symbol", store=store)
    assert (
        f"the outline of deep.py is cut (definitions nested more than {outline.OUTLINE_MAX_DEPTH} deep "
        f"are left out (from line {outline.OUTLINE_MAX_DEPTH + 1})): hunks there are as they are"
    ) in widened
