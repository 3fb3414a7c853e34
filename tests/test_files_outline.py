from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

import pytest

from diffchunk.files import outline as outline_mod
from diffchunk.files.languages import LANGUAGES, language_for_path, load_language
from diffchunk.files.outline import (
    OUTLINE_MAX_BYTES,
    OutlineItem,
    build_outline,
    count_items,
    describe_context,
    enclosing_item,
    enclosing_path,
    outline_for_file,
    outline_skip_reason,
)
from tests.support.test_data import typescript_bundle


def src(text: str) -> bytes:
    return textwrap.dedent(text).lstrip("\n").encode()


def flat(items: list[OutlineItem], depth: int = 0) -> list[tuple[int, str, str, int, int]]:
    out = []
    for item in items:
        out.append((depth, item.type, item.name, item.line_number, item.end_line))
        assert item.line_count == item.end_line - item.line_number + 1
        out.extend(flat(item.children, depth + 1))
    return out


def test_every_language_has_a_loadable_grammar() -> None:
    for language in LANGUAGES:
        assert load_language(language) is not None, language


def test_python_classes_methods_decorators_and_nesting() -> None:
    code = src(
        '''
        import os

        @decorator
        class Parser(Base):
            """Doc."""

            x = 1

            @property
            def name(self):
                def helper():
                    return 1
                return helper()

            async def run(self):
                pass


        def main():
            pass
        '''
    )
    assert flat(build_outline(code, "python")) == [
        (0, "class", "Parser", 3, 16),
        (1, "method", "name", 9, 13),
        (2, "function", "helper", 11, 12),
        (1, "method", "run", 15, 16),
        (0, "function", "main", 19, 20),
    ]


def test_python_nested_functions_stop_at_the_nesting_limit() -> None:
    code = src(
        """
        def a():
            def b():
                def c():
                    def d():
                        pass
        """
    )
    names = [name for _, _, name, _, _ in flat(build_outline(code, "python"))]
    assert names == ["a", "b", "c"]


def test_javascript_functions_classes_arrows_and_assignments() -> None:
    code = src(
        """
        class Widget extends Base {
          handler = () => {};
          constructor(a) {
            super(a);
          }
          static create() {
            return new Widget();
          }
        }

        function build(x) {
          const local = () => x;
          return local();
        }

        const arrow = async (a) => {
          return a;
        };
        Widget.prototype.legacy = function () {};
        function* gen() {}
        """
    )
    assert flat(build_outline(code, "javascript")) == [
        (0, "class", "Widget", 1, 9),
        (1, "method", "handler", 2, 2),
        (1, "method", "constructor", 3, 5),
        (1, "method", "create", 6, 8),
        (0, "function", "build", 11, 14),
        (0, "function", "arrow", 16, 18),
        (0, "function", "Widget.prototype.legacy", 19, 19),
        (0, "function", "gen", 20, 20),
    ]


def test_typescript_interfaces_enums_namespaces_and_abstract_classes() -> None:
    code = src(
        """
        export interface Shape {
          area(): number;
        }
        export enum Color { Red, Green }
        type Alias = { a: number };
        export abstract class Base<T> implements Shape {
          abstract area(): number;
          describe(): string {
            return "x";
          }
        }
        namespace Geometry {
          export function origin() {}
        }
        export const make = (n: number): Base<number> => {
          return null as any;
        };
        """
    )
    assert flat(build_outline(code, "typescript")) == [
        (0, "interface", "Shape", 1, 3),
        (1, "method", "area", 2, 2),
        (0, "enum", "Color", 4, 4),
        (0, "type", "Alias", 5, 5),
        (0, "class", "Base", 6, 11),
        (1, "method", "area", 7, 7),
        (1, "method", "describe", 8, 10),
        (0, "namespace", "Geometry", 12, 14),
        (1, "function", "origin", 13, 13),
        (0, "function", "make", 15, 17),
    ]


def test_tsx_components() -> None:
    code = src(
        """
        export function App() {
          return <div>hi</div>;
        }
        const Item = ({ x }: { x: number }) => <li>{x}</li>;
        """
    )
    assert flat(build_outline(code, "tsx")) == [
        (0, "function", "App", 1, 3),
        (0, "function", "Item", 4, 4),
    ]


def test_go_functions_methods_with_receivers_and_types() -> None:
    code = src(
        """
        package main

        type Server struct {
            addr string
        }

        type Handler interface {
            Serve() error
        }

        func (s *Server) Start(port int) error {
            return nil
        }

        func main() {
        }
        """
    )
    assert flat(build_outline(code, "go")) == [
        (0, "struct", "Server", 3, 5),
        (0, "interface", "Handler", 7, 9),
        (0, "method", "(*Server) Start", 11, 13),
        (0, "function", "main", 15, 16),
    ]


def test_rust_impls_traits_structs_and_modules() -> None:
    code = src(
        """
        mod util {
            pub fn helper() {}
        }

        pub struct Point {
            x: i32,
        }

        pub trait Shape {
            fn area(&self) -> f64;
        }

        impl fmt::Display for Point {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                Ok(())
            }
        }

        impl Point {
            pub fn new() -> Self {
                Point { x: 0 }
            }
        }

        enum Kind { A, B }

        fn main() {}
        """
    )
    assert flat(build_outline(code, "rust")) == [
        (0, "module", "util", 1, 3),
        (1, "function", "helper", 2, 2),
        (0, "struct", "Point", 5, 7),
        (0, "trait", "Shape", 9, 11),
        (1, "method", "area", 10, 10),
        (0, "impl", "impl fmt::Display for Point", 13, 17),
        (1, "method", "fmt", 14, 16),
        (0, "impl", "impl Point", 19, 23),
        (1, "method", "new", 20, 22),
        (0, "enum", "Kind", 25, 25),
        (0, "function", "main", 27, 27),
    ]


def test_java_classes_constructors_methods_and_nested_types() -> None:
    code = src(
        """
        package demo;

        @Entity
        public class Account {
            private int id;

            public Account(int id) {
                this.id = id;
            }

            public int getId() {
                return id;
            }

            static class Builder {
                Account build() { return null; }
            }
        }

        interface Repository {
            Account find(int id);
        }

        enum Status { OPEN, CLOSED }
        """
    )
    assert flat(build_outline(code, "java")) == [
        (0, "class", "Account", 3, 18),
        (1, "constructor", "Account", 7, 9),
        (1, "method", "getId", 11, 13),
        (1, "class", "Builder", 15, 17),
        (2, "method", "build", 16, 16),
        (0, "interface", "Repository", 20, 22),
        (1, "method", "find", 21, 21),
        (0, "enum", "Status", 24, 24),
    ]


def test_c_functions_through_pointer_declarators_and_structs() -> None:
    code = src(
        """
        #include <stdio.h>

        struct point {
            int x;
        };

        typedef struct {
            int y;
        } Pair;

        static int
        add(int a, int b)
        {
            return a + b;
        }

        char **names(void) {
            return 0;
        }
        """
    )
    assert flat(build_outline(code, "c")) == [
        (0, "struct", "point", 3, 5),
        (0, "struct", "Pair", 7, 9),
        (0, "function", "add", 11, 15),
        (0, "function", "names", 17, 19),
    ]


def test_cpp_namespaces_classes_methods_and_qualified_functions() -> None:
    code = src(
        """
        namespace geo {
        class Shape {
         public:
          virtual ~Shape() {}
          double area() const { return 0; }
        };

        double Shape::perimeter() const {
          return 1;
        }

        template <typename T>
        T twice(T v) { return v + v; }
        }  // namespace geo

        int &ref(int &a) { return a; }
        """
    )
    assert flat(build_outline(code, "cpp")) == [
        (0, "namespace", "geo", 1, 14),
        (1, "class", "Shape", 2, 6),
        (2, "method", "~Shape", 4, 4),
        (2, "method", "area", 5, 5),
        (1, "function", "Shape::perimeter", 8, 10),
        (1, "function", "twice", 13, 13),
        (0, "function", "ref", 16, 16),
    ]


def test_csharp_namespaces_classes_and_members() -> None:
    code = src(
        """
        namespace Shop.Orders
        {
            public class Order
            {
                public Order() { }

                public decimal Total(int n)
                {
                    return n;
                }

                ~Order() { }
            }

            public interface IRepo
            {
                Order Get(int id);
            }

            public record Line(int Qty);
        }
        """
    )
    assert flat(build_outline(code, "csharp")) == [
        (0, "namespace", "Shop.Orders", 1, 21),
        (1, "class", "Order", 3, 13),
        (2, "constructor", "Order", 5, 5),
        (2, "method", "Total", 7, 10),
        (2, "method", "~Order", 12, 12),
        (1, "interface", "IRepo", 15, 18),
        (2, "method", "Get", 17, 17),
        (1, "record", "Line", 20, 20),
    ]


def test_ruby_modules_classes_and_methods() -> None:
    code = src(
        """
        module Billing
          class Invoice < Base
            def total
              42
            end

            def self.build
              new
            end
          end

          def helper; end
        end

        def main
        end
        """
    )
    assert flat(build_outline(code, "ruby")) == [
        (0, "module", "Billing", 1, 13),
        (1, "class", "Invoice", 2, 10),
        (2, "method", "total", 3, 5),
        (2, "method", "self.build", 7, 9),
        (1, "method", "helper", 12, 12),
        (0, "function", "main", 15, 16),
    ]


def test_php_classes_interfaces_traits_and_functions() -> None:
    code = src(
        """
        <?php
        namespace App\\Models;

        interface HasName
        {
            public function name(): string;
        }

        trait Greets
        {
            public function greet() { return "hi"; }
        }

        class User implements HasName
        {
            public function __construct() {}

            public function name(): string
            {
                return "u";
            }
        }

        function helper($x) { return $x; }
        """
    )
    assert flat(build_outline(code, "php")) == [
        (0, "namespace", "App\\Models", 2, 2),
        (0, "interface", "HasName", 4, 7),
        (1, "method", "name", 6, 6),
        (0, "trait", "Greets", 9, 12),
        (1, "method", "greet", 11, 11),
        (0, "class", "User", 14, 22),
        (1, "method", "__construct", 16, 16),
        (1, "method", "name", 18, 21),
        (0, "function", "helper", 24, 24),
    ]


def test_markdown_headings_nest_by_level_and_skip_code_fences() -> None:
    code = src(
        """
        # Guide

        Intro.

        ## Install ##

        ```sh
        # not a heading
        pip install x
        ```

        Usage
        -----

        ### Options

        Top Again
        =========
        text
        """
    )
    result = build_outline(code, "markdown")
    assert flat(result) == [
        (0, "heading", "Guide", 1, 16),
        (1, "heading", "Install", 5, 11),
        (1, "heading", "Usage", 12, 16),
        (2, "heading", "Options", 15, 16),
        (0, "heading", "Top Again", 17, 19),
    ]
    assert [item.level for item in result] == [1, 1]
    assert result[0].to_dict()["children"][1]["level"] == 2


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


def _big_js(functions: int) -> bytes:
    parts = ["var lib = {}; ((module) => {\n"]
    for i in range(functions):
        parts.append(
            f"function fn{i}(a, b) {{\n"
            f"  const local{i} = () => a + b;\n"
            f"  if (a > b) {{\n    return local{i}();\n  }}\n"
            f"  return [\n    a,\n    b,\n  ];\n}}\n"
        )
    parts.append(
        "var Service = class {\n  constructor() {\n    this.x = 1;\n  }\n"
        "  start() {\n    return 1;\n  }\n};\n"
    )
    parts.append("})(lib);\n")
    return "".join(parts).encode()


def test_large_brace_file_uses_a_skeleton_with_correct_lines() -> None:
    code = _big_js(12_000)
    assert len(code) > outline_mod.SKELETON_MIN_BYTES
    result = build_outline(code, "javascript")
    flat_items = flat(result)
    functions = [item for item in flat_items if item[1] == "function"]
    assert len(functions) == 12_000
    # Ten lines per function, the first on line 2.
    assert functions[0] == (0, "function", "fn0", 2, 11)
    assert functions[-1][2:] == ("fn11999", 2 + 10 * 11_999, 11 + 10 * 11_999)
    service = [item for item in flat_items if item[2] in {"Service", "constructor", "start"}]
    start = 2 + 10 * 12_000
    assert service == [
        (0, "class", "Service", start, start + 7),
        (1, "method", "constructor", start + 1, start + 3),
        (1, "method", "start", start + 4, start + 6),
    ]


def test_large_python_file_uses_a_skeleton_with_correct_lines() -> None:
    body = (
        "".join(f"def f{i}(x):\n    y = x + {i}\n    return y\n\n\n" for i in range(30_000))
        + "class Tail:\n    def m(self):\n        return 1\n"
    )
    code = body.encode()
    assert len(code) > outline_mod.SKELETON_MIN_BYTES
    result = flat(build_outline(code, "python"))
    assert len(result) == 30_002
    assert result[0] == (0, "function", "f0", 1, 3)
    assert result[-2] == (0, "class", "Tail", 150_001, 150_003)
    assert result[-1] == (1, "method", "m", 150_002, 150_003)


def test_typescript_bundle_outline_timing_is_reported() -> None:
    # Not a timed assertion: prints the numbers for the record.
    data = typescript_bundle().read_bytes()
    started = time.perf_counter()
    result = build_outline(data, "javascript")
    elapsed = time.perf_counter() - started
    print(
        f"\ntypescript.js {len(data) / 1e6:.1f} MB: outline {elapsed:.3f}s, "
        f"{len(result)} top-level items, {count_items(result)} in all",
        file=sys.stderr,
    )
    names = {item.name for item in result}
    assert {"createScanner", "createTypeChecker", "createProgram"} <= names


def test_large_allman_style_file_keeps_class_bodies_in_the_skeleton() -> None:
    parts = ["namespace Big\n{\n"]
    for i in range(6_000):
        parts.append(
            f"    public class C{i}\n    {{\n"
            f"        public int M{i}(int a)\n        {{\n"
            f"            var list = new List<int>\n            {{\n                a,\n            }};\n"
            f"            return a;\n        }}\n    }}\n"
        )
    parts.append("}\n")
    code = "".join(parts).encode()
    assert len(code) > outline_mod.SKELETON_MIN_BYTES
    result = build_outline(code, "csharp")
    assert [(i.type, i.name) for i in result] == [("namespace", "Big")]
    classes = result[0].children
    assert len(classes) == 6_000
    last = classes[-1]
    start = 3 + 11 * 5_999  # eleven lines per class, the first on line 3
    assert (last.name, last.line_number, last.end_line) == ("C5999", start, start + 10)
    assert [(m.type, m.name, m.line_number, m.end_line) for m in last.children] == [
        ("method", "M5999", start + 2, start + 9)
    ]


def test_large_ruby_file_elides_method_bodies_but_keeps_their_lines() -> None:
    parts = ["module Huge\n"]
    for i in range(25_000):
        parts.append(f"  def m{i}(a)\n    b = a * 2\n    b + {i}\n  end\n\n")
    parts.append("end\n")
    code = "".join(parts).encode()
    assert len(code) > outline_mod.SKELETON_MIN_BYTES
    result = build_outline(code, "ruby")
    assert [(i.type, i.name) for i in result] == [("module", "Huge")]
    methods = result[0].children
    assert len(methods) == 25_000
    last = methods[-1]
    assert (last.type, last.name, last.line_number, last.end_line) == (
        "method",
        "m24999",
        2 + 5 * 24_999,
        5 + 5 * 24_999,
    )


MARKDOWN_SAMPLE = """\
---
title: front matter is not a heading
---

Release Notes
=============

2.1.0 (2024-05-29)
------------------

- item
---

# Install

```sh
# a comment, not a heading
```

~~~
## still code
~~~

## Usage ##

    # indented code, not a heading

1. first
2. second

Closing words
-------------
### Deep
"""


def test_large_markdown_scanner_agrees_with_tree_sitter(monkeypatch: pytest.MonkeyPatch) -> None:
    code = MARKDOWN_SAMPLE.encode()
    parsed = flat(build_outline(code, "markdown"))
    assert [name for _, _, name, _, _ in parsed] == [
        "Release Notes",
        "2.1.0 (2024-05-29)",
        "Install",
        "Usage",
        "Closing words",
        "Deep",
    ]
    monkeypatch.setattr(outline_mod, "SKELETON_MIN_BYTES", 0)  # force the scanner
    assert flat(build_outline(code, "markdown")) == parsed


def test_large_markdown_file_is_outlined_quickly_and_nested() -> None:
    chapter = "# Chapter {0}\n\nText *here*.\n\n## Part {0}.1\n\n```\n# code {0}\n```\n\n"
    code = "".join(chapter.format(i) for i in range(16_000)).encode()
    assert len(code) > outline_mod.SKELETON_MIN_BYTES
    result = build_outline(code, "markdown")
    assert len(result) == 16_000
    last = result[-1]
    assert (last.name, last.level, last.line_number) == ("Chapter 15999", 1, 1 + 10 * 15_999)
    assert [(c.name, c.level, c.line_number) for c in last.children] == [
        ("Part 15999.1", 2, 5 + 10 * 15_999)
    ]


def test_skeleton_keeps_a_body_whose_string_has_lines_at_column_zero(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Big Python files are outlined from a skeleton whose def bodies are
    # elided by indentation: a line of a triple-quoted string at column 0
    # looked like the body's end, and tricky() came out two lines long.
    tricky = (
        'def tricky():\n    # strip the """ quotes\n    sql = """\nSELECT *\nFROM t\n"""\n'
        "    if sql:\n        return sql\n    return None\n\n\ndef after():\n    return 1\n"
        "\n\ndef joined():\n    return 1 + \\\n2\n"
    )
    filler = "".join(f"def f{i}(a):\n    return a * {i}\n\n" for i in range(50))
    code = (filler + tricky + filler.replace("def f", "def g")).encode()
    monkeypatch.setattr(outline_mod, "SKELETON_MIN_BYTES", 100)
    skeleton = {
        i.name: (i.line_number, i.end_line)
        for i in outline_mod.iter_items(outline_mod.build_outline(code, "python"))
    }
    monkeypatch.setattr(outline_mod, "SKELETON_MIN_BYTES", 1 << 40)
    full = {
        i.name: (i.line_number, i.end_line)
        for i in outline_mod.iter_items(outline_mod.build_outline(code, "python"))
    }
    assert skeleton["tricky"] == full["tricky"]
    assert full["tricky"][1] - full["tricky"][0] == 8
    assert skeleton == full
