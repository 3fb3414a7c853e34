"""list_chunks names the definitions each file's change touches: from the outlines of
both revisions when the repository is known, else from the hunks' function context."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from gitrepo import commit, git_bytes, init_repo
from symbolkit import symbol_texts

from diffchunk.diff.options import LoadOptions
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools
from diffchunk.review.tools.symbols import MAX_LISTED, SKELETON_ABOVE, listed_name


def _fn(name: str, tag: str = "", indent: str = "") -> str:
    return f"{indent}def {name}(x):\n{indent}    y = x{tag}\n{indent}    return y\n\n"


OLD = {
    "svc.py": _fn("keep")
    + _fn("edit")
    + _fn("gone")
    + "class Box:\n"
    + _fn("size", indent="    ")
    + _fn("open", indent="    "),
    "many.py": "".join(_fn(f"f{i}") for i in range(12)),
    "notes.txt": "plain\ntext\n",
}
NEW = {
    "svc.py": _fn("keep")
    + _fn("edit", " + 1")
    + _fn("fresh")
    + "class Box:\n"
    + _fn("size", indent="    ")
    + _fn("open", " * 2", indent="    ")
    + "class Lid:\n"
    + _fn("close", indent="    "),
    "many.py": "".join(_fn(f"f{i}", " - 1") for i in range(12)),
    "notes.txt": "plain\ntext, edited\n",
}


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    commit(repo, OLD)
    commit(repo, NEW, "two")
    return repo


def _details(file_path: str, store: SessionStore, **kw: Any) -> dict[str, dict[str, Any]]:
    listing = diff_tools.list_chunks(file_path, store=store, **kw).to_dict()
    return {d["path"]: d for c in listing["chunks"] for d in c["file_details"]}


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_symbols_from_both_revisions_of_a_range(repo: Path) -> None:
    store = SessionStore()
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=store).file_path
    details = _details(diff, store)
    svc = details["svc.py"]
    assert "symbols_from" not in svc  # the outline: the rule, not said
    new, old = NEW["svc.py"], OLD["svc.py"]

    def span(text: str, first: str, last: str) -> str:
        return f"{_line(text, first)}-{_line(text, last) + 2}"

    assert symbol_texts(svc["symbols"]) == [
        f"edit (function, modified, {span(new, 'def edit', 'def edit')})",
        f"fresh (function, added, {span(new, 'def fresh', 'def fresh')})",
        f"Box.open (method, modified, {span(new, 'def open', 'def open')})",
        f"Lid (class, added, {span(new, 'class Lid', 'def close')})",
        f"gone (function, removed, old {span(old, 'def gone', 'def gone')})",
    ]
    many = details["many.py"]
    assert (
        len(symbol_texts(many["symbols"])) == MAX_LISTED and many["symbols_more"] == 12 - MAX_LISTED
    )
    assert [s.split(" ")[0] for s in symbol_texts(many["symbols"])] == [
        f"f{i}" for i in range(MAX_LISTED)
    ]
    assert "symbols" not in details["notes.txt"]  # no grammar, no function context


def test_symbols_from_the_hunks_of_a_diff_file(repo: Path, tmp_path: Path) -> None:
    text = git_bytes(repo, "diff", "-U1", "HEAD~1", "HEAD", "--", "many.py")
    diff = tmp_path / "change.diff"
    diff.write_bytes(text)
    # git's function context after each @@, once each, in order
    contexts = list(dict.fromkeys(re.findall(r"^@@ [^@]+ @@ (.+)$", text.decode(), re.M)))
    assert len(contexts) > MAX_LISTED
    many = _details(str(diff), SessionStore())["many.py"]
    assert many["symbols_from"] == "hunks"
    assert symbol_texts(many["symbols"]) == contexts[:MAX_LISTED]
    assert many["symbols_more"] == len(contexts) - MAX_LISTED


def test_symbols_are_computed_for_the_page_asked_and_per_part(repo: Path) -> None:
    store = SessionStore()
    loaded = load_git_diff(
        str(repo), "HEAD~1..HEAD", options=LoadOptions(max_chunk_lines=20), store=store
    )
    session = store.get(loaded.file_path)
    first = diff_tools.list_chunks(loaded.file_path, limit=1, store=store).to_dict()
    page_files = {p.file_index for p in session.review.chunks[0].parts}
    assert set(session.cache["symbols"]) == page_files  # only this page's files
    whole = diff_tools.list_chunks(loaded.file_path, store=store).to_dict()
    parts = [c for c in whole["chunks"] if c.get("parent_file") == "many.py"]
    assert len(parts) >= 2 and first["chunks"][0] == whole["chunks"][0]
    # Each part of the cut file lists the definitions its own lines touch.
    names = [
        [s.split(" ")[0] for s in symbol_texts(c["file_details"][0]["symbols"])] for c in parts
    ]
    assert names == [[f"f{i}", f"f{i + 1}"] for i in range(0, 12, 2)]


# A method holding two nested functions of one name (one per branch), as in
# SQLAlchemy's MySQLDialect._correct_for_mysql_bugs_88718_96365 (rel_2_0_35..36).
NESTED = """\
class Dialect:
    def fix_case(self, rows):
        if self.casing:

            def lower(s):
                return s.lower()

        else:

            def lower(s):
                return s

{query}
        return [lower(r) for r in rows], query

    def other(self):
        return 1
"""
OLD_QUERY = '        query = """\n            select name from columns\n        """'
NEW_QUERY = '        query = "select name from columns where name in :names"\n        query += ";"'


def _symbols_of(tmp_path: Path, old: dict[str, str], new: dict[str, str]) -> dict[str, Any]:
    repo = init_repo(tmp_path / "nested")
    commit(repo, old)
    commit(repo, new, "two")
    store = SessionStore()
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=store).file_path
    return _details(diff, store)


def _filler(size: int) -> str:
    """Top-level functions of at least ``size`` characters in all."""
    one = _fn("helper_0000")
    return "".join(_fn(f"helper_{i:04}") for i in range(size // len(one) + 1))


def test_a_changed_method_of_a_large_file_is_named_not_its_nested_functions(
    tmp_path: Path,
) -> None:
    # Above SYMBOLS_SKELETON_ABOVE a file is outlined from a skeleton, which keeps a
    # def body holding a triple-quoted string (the old fix_case) and elides the
    # others (the new one): the nested lowers were only in the old outline, so
    # both were listed as removed ("Dialect.lower", the method left out of the
    # name) and the method that changed was not listed.
    filler = _filler(SKELETON_ABOVE)
    old = filler + NESTED.format(query=OLD_QUERY)
    new = filler + NESTED.format(query=NEW_QUERY)
    assert len(old) > SKELETON_ABOVE and len(new) > SKELETON_ABOVE
    details = _symbols_of(tmp_path, {"dialect.py": old}, {"dialect.py": new})["dialect.py"]
    first, last = _line(new, "def fix_case"), _line(new, "return [lower(r)")
    assert "symbols_from" not in details  # from the outline
    assert symbol_texts(details["symbols"]) == [
        f"Dialect.fix_case (method, modified, {first}-{last})"
    ]


def test_nested_functions_of_one_name_are_told_apart_by_their_qualified_names(
    tmp_path: Path,
) -> None:
    # A small file is outlined whole: the second lower changes, the first does not.
    old = NESTED.format(query=OLD_QUERY)
    new = old.replace("                return s\n", "                return s.strip()\n")
    details = _symbols_of(tmp_path, {"dialect.py": old}, {"dialect.py": new})["dialect.py"]
    second = _line(new, "return s.strip()") - 1
    assert symbol_texts(details["symbols"]) == [
        f"Dialect.fix_case.lower (function, modified, {second}-{second + 1})"
    ]


OVERLOADS = [
    "@overload\ndef parse(x: int) -> int: ...\n",
    "@overload\ndef parse(x: str) -> str: ...\n",
    "def parse(x):\n    return x\n",
]


def test_definitions_of_one_name_in_one_scope_are_matched_by_position(tmp_path: Path) -> None:
    # Matched in order, the overload put first would be the old first one
    # "modified" and the implementation "added".
    header = "from typing import overload\n\n"
    old = header + "".join(OVERLOADS)
    new = header + "@overload\ndef parse(x: bytes) -> bytes: ...\n" + "".join(OVERLOADS)
    fewer = header + OVERLOADS[0] + OVERLOADS[2]
    details = _symbols_of(
        tmp_path, {"added.py": old, "removed.py": old}, {"added.py": new, "removed.py": fewer}
    )
    assert symbol_texts(details["added.py"]["symbols"]) == ["parse (function, added, 3-4)"]
    # The entry as the issue names it: name, kind, change and line range.
    assert details["added.py"]["symbols"] == [
        {"name": "parse", "kind": "function", "change": "added", "lines": [3, 4]}
    ]
    # The middle one is gone: its own old lines, not the implementation's.
    assert symbol_texts(details["removed.py"]["symbols"]) == ["parse (function, removed, old 5-6)"]


def test_long_qualified_names_keep_their_own_name_and_outermost_one() -> None:
    assert listed_name(["C", "m", "f"], 20) == "C.m.f"
    parts = ["Outer" * 3, "middle_one", "inner_two", "name"]  # 40 characters joined
    assert listed_name(parts, 39) == "OuterOuterOuter.….inner_two.name"
    assert listed_name(parts, 25) == "OuterOuterOuter.….name"
    assert listed_name(parts, 16) == "….inner_two.name"
    assert listed_name(parts, 8) == "….name"
    assert listed_name(["x" * 30], 10) == "x" * 9 + "…"
    assert listed_name(["Outer", "y" * 30], 10) == "y" * 9 + "…"
    assert all(len(listed_name(parts, n)) <= n for n in range(2, 45))
