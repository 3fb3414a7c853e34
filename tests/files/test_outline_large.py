"""Large files: outlined from a skeleton, with the lines of a full parse (the real
typescript.js bundle is fetched by ``make test-data``)."""

from __future__ import annotations

import sys
import time

import pytest
from outlinekit import flat, src

from diffchunk.files import outline as outline_mod
from diffchunk.files.outline import build_outline, count_items
from tests.support.test_data import typescript_bundle


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


def test_a_skeleton_says_which_lines_it_elided_and_in_which_item() -> None:
    code = src(
        '''
        def plain(x):
            y = x
            return y


        class Box:
            def kept(self):
                """A docstring: the body is kept."""

                def inner():
                    return 1

                return inner

            def elided(self):
                def inner():
                    return 2

                return inner
        '''
    )
    full = build_outline(code, "python")
    assert [c.name for c in full[1].children[1].children] == ["inner"]
    items = {
        i.name: i for i in outline_mod.iter_items(build_outline(code, "python", skeleton_above=0))
    }
    assert items["plain"].elided == ((2, 3),)
    assert items["kept"].elided == () and [c.name for c in items["kept"].children] == ["inner"]
    assert items["elided"].elided == ((16, 19),) and items["elided"].children == []
    assert items["Box"].elided == ()
    # Kept by copies (outlines are cached and handed out as copies), not in the JSON.
    assert items["elided"].copy().elided == ((16, 19),)
    assert "elided" not in items["elided"].to_dict()
    js = build_outline(
        src(
            """
            class Service {
              start() {
                const a = 1;
                return a;
              }
            }
            """
        ),
        "javascript",
        skeleton_above=0,
    )
    assert js[0].elided == () and js[0].children[0].elided == ((3, 4),)
