"""Outlines of the scripting languages (Python, JavaScript, TypeScript and TSX, Ruby,
PHP) and of Markdown headings."""

from __future__ import annotations

from outlinekit import flat, src

from diffchunk.files.outline import build_outline


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
