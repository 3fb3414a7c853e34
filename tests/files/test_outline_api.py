"""Around the outlines: grammars and language detection, recovery from syntax errors,
skip reasons, the items around a line, serialisation and the per-file cache."""

from __future__ import annotations

from pathlib import Path

import pytest
from outlinekit import flat, src

from diffchunk.files import outline as outline_mod
from diffchunk.files.languages import LANGUAGES, language_for_path, load_language
from diffchunk.files.outline import (
    OUTLINE_MAX_BYTES,
    OutlineItem,
    build_outline,
    describe_context,
    enclosing_item,
    enclosing_path,
    outline_for_file,
    outline_skip_reason,
)


def test_every_language_has_a_loadable_grammar() -> None:
    for language in LANGUAGES:
        assert load_language(language) is not None, language


def test_syntax_errors_still_outline_the_recoverable_parts() -> None:
    code = src(
        """
        def good():
            return 1

        def broken(:
            pass

        class Fine:
            def ok(self):
                return 2
        """
    )
    names = {(kind, name) for _, kind, name, _, _ in flat(build_outline(code, "python"))}
    assert {("function", "good"), ("class", "Fine"), ("method", "ok")} <= names

    js = src(
        """
        function first() { return 1; }
        function second( { oops
        class Later { m() {} }
        """
    )
    js_names = {name for _, _, name, _, _ in flat(build_outline(js, "javascript"))}
    assert "first" in js_names


def test_unknown_language_and_extension_give_nothing() -> None:
    assert language_for_path("/tmp/notes.txt") is None
    assert language_for_path("/tmp/data.bin") is None
    assert build_outline(b"def f(): pass\n", "cobol") == []
    assert outline_skip_reason("/tmp/notes.txt", 10) == "no outline for this file type"


def test_language_detection_by_extension_name_and_shebang() -> None:
    assert language_for_path("/a/b/c.py") == "python"
    assert language_for_path("/a/App.TSX") == "tsx"
    assert language_for_path("/a/x.mjs") == "javascript"
    assert language_for_path("/a/x.hpp") == "cpp"
    assert language_for_path("/a/x.cs") == "csharp"
    assert language_for_path("/a/README.md") == "markdown"
    assert language_for_path("/a/Rakefile") == "ruby"
    assert language_for_path("/a/tool", b"#!/usr/bin/env python3\nprint(1)\n") == "python"
    assert language_for_path("/a/tool", b"#!/usr/bin/node\n") == "javascript"
    assert language_for_path("/a/tool", b"#!/bin/sh\n") is None


def test_too_large_files_are_skipped_with_a_reason() -> None:
    assert outline_skip_reason("/x/big.py", OUTLINE_MAX_BYTES + 1) is not None
    assert "too large" in (outline_skip_reason("/x/big.py", OUTLINE_MAX_BYTES + 1) or "")
    assert outline_skip_reason("/x/small.py", 100) is None


def test_missing_grammar_degrades_to_no_outline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outline_mod, "load_language", lambda language: None)
    assert build_outline(b"def f():\n    pass\n", "python") == []


def test_enclosing_item_path_and_context() -> None:
    code = src(
        """
        class Runner:
            def run(self):
                x = 1
                return x

            def stop(self):
                pass

        def free():
            y = 2
        """
    )
    result = build_outline(code, "python")
    assert enclosing_item(result, 3) is not None
    assert enclosing_item(result, 3).name == "run"  # type: ignore[union-attr]
    assert [i.name for i in enclosing_path(result, 4)] == ["Runner", "run"]
    assert describe_context(result, 4) == "inside method Runner.run()"
    assert describe_context(result, 5) == "inside class Runner"
    assert describe_context(result, 10) == "inside function free()"
    assert describe_context(result, 8) is None
    assert enclosing_item(result, 100) is None


def test_describe_context_for_rust_impl_go_method_and_markdown() -> None:
    rust = build_outline(
        src("impl Point {\n    fn new() -> Self {\n        todo!()\n    }\n}\n"), "rust"
    )
    assert describe_context(rust, 3) == "inside method Point.new()"
    go = build_outline(src("package m\nfunc (s *S) Run() {\n\tx := 1\n}\n"), "go")
    assert describe_context(go, 3) == "inside method (*S) Run()"
    md = build_outline(src("# A\n\n## B\n\ntext\n"), "markdown")
    assert describe_context(md, 5) == 'in section "A > B"'


def test_to_dict_is_recursive_and_json_ready() -> None:
    result = build_outline(src("class A:\n    def m(self):\n        pass\n"), "python")
    data = result[0].to_dict()
    assert data == {
        "name": "A",
        "type": "class",
        "line_number": 1,
        "end_line": 3,
        "line_count": 3,
        "changes": None,
        "children": [
            {
                "name": "m",
                "type": "method",
                "line_number": 2,
                "end_line": 3,
                "line_count": 2,
                "changes": None,
                "children": [],
            }
        ],
    }


def test_outline_for_file_caches_by_fingerprint_and_returns_copies() -> None:
    outline_mod.clear_cache()
    code = b"def a():\n    pass\n"
    first = outline_for_file("/virtual/cached.py", (1, 2), code)
    first[0].changes = "modified"
    first.append(OutlineItem("junk", "function", 9, 9, 1, []))
    again = outline_for_file("/virtual/cached.py", (1, 2), code)
    assert [(i.name, i.changes) for i in again] == [("a", None)]
    # Same fingerprint: the cached parse is reused even if bytes differ.
    stale = outline_for_file("/virtual/cached.py", (1, 2), b"def b():\n    pass\n")
    assert [i.name for i in stale] == ["a"]
    fresh = outline_for_file("/virtual/cached.py", (1, 3), b"def b():\n    pass\n")
    assert [i.name for i in fresh] == ["b"]
    assert outline_for_file("/virtual/notes.txt", (1, 1), b"hello") == []


def test_outline_for_file_accepts_memoryview_and_mmap(tmp_path: Path) -> None:
    import mmap

    path = tmp_path / "m.go"
    path.write_bytes(b"package m\n\nfunc A() {}\n")
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        result = outline_for_file(str(path), ("mm",), mm)
    assert [i.name for i in result] == ["A"]
    view = outline_for_file(str(path), ("mv",), memoryview(path.read_bytes()))
    assert [i.name for i in view] == ["A"]
