"""A word in a comment or a string's text is prose, a word in code (an f-string's or a
template's interpolation included) is not; in doubt, a line is code."""

from __future__ import annotations

import time

import pytest

from diffchunk.files import prose
from diffchunk.files.prose import prose_lines


def _later() -> float:
    return time.monotonic() + 30


def _lines(source: str, word: str) -> tuple[set[int], set[int]]:
    """The lines holding ``word``, and those marked ``# prose`` (or ``// prose``)."""
    holding = {n for n, line in enumerate(source.split("\n"), 1) if word in line}
    marked = {n for n, line in enumerate(source.split("\n"), 1) if line.endswith("prose")}
    return holding, marked


PYTHON = '''def run(invoke):  # code
    """Call :meth:`invoke` first."""  # prose
    menu = "invoke"  # prose
    r = rb"invoke"  # prose
    t = f"{invoke()} now"  # code
    u = f"invoke {x}"  # prose
    v = "invoke" + invoke  # code
    # invoke it  # prose
    return self.invoke  # code
'''

SOURCES = {
    "python": PYTHON,
    "javascript": (
        "invoke(a); // code\n"
        "const s = 'invoke'; // prose\n"
        "const t = `x ${invoke()} y`; // code\n"
        "/* invoke */ // prose\n"
    ),
    "go": (
        "package m\n"
        "// invoke // prose\n"
        'func f() { s := "invoke" } // prose\n'
        "func g() { invoke() } // code\n"
    ),
    "rust": (
        "/// the invoke doc // prose\n"
        'fn f() { let s = "invoke"; } // prose\n'
        "fn g() { invoke(); } // code\n"
    ),
}


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_a_word_only_in_comments_and_strings_is_prose(language: str) -> None:
    source = SOURCES[language]
    holding, marked = _lines(source, "invoke")
    found = prose_lines(("t", language), source.encode(), language, "invoke", holding, _later())
    assert found == marked, language


def _prose(source: bytes, language: str, lines: list[int], deadline: float) -> set[int]:
    return prose_lines(source, source, language, "invoke", lines, deadline)  # keyed by itself


def test_in_doubt_a_line_is_code() -> None:
    # No grammar; a line where the word is not found; a parse past its deadline.
    assert _prose(b"# invoke\n", "nothing", [1], _later()) == set()
    assert _prose(b"# invoke\nx = 1\n", "python", [2, 9], _later()) == set()
    assert _prose(b"# invoke!\n", "python", [1], time.monotonic() - 1) == set()
    # Python indented too deep for its grammar is not parsed (its parse would crash).
    deep = b"# invoke\n" + b" " * 300 + b"x = 'invoke'\n"
    assert _prose(deep, "python", [1, 2], _later()) == set()
    # A word inside a longer one is no occurrence: the line's only word is in code.
    assert _prose(b"invoke()  # invoker\n", "python", [1], _later()) == set()


def test_a_file_is_parsed_once_for_every_name(monkeypatch: pytest.MonkeyPatch) -> None:
    source = b"x = invoke()  # invoke\ny = 'other'  # other\n"
    assert _prose(source, "python", [1, 2], _later()) == set()  # line 1: a call
    parsed = []
    monkeypatch.setattr(prose, "syntax_tree", lambda *args: parsed.append(args))
    found = prose_lines(source, source, "python", "other", [2], time.monotonic() - 1)
    assert found == {2} and not parsed  # its spans kept: no parse, past any deadline


CODE_STRINGS = {
    "python": (
        "from __future__ import annotations\n"
        '__all__ = ["invoke", "other"]  # code\n'
        '__all__ += ("invoke",)  # code\n'
        'def run(a: "invoke", b: list["invoke"]) -> "invoke":  # code\n'
        '    x: "invoke" = 1  # code\n'
        '    names = ["invoke"]  # prose\n'
    ),
    "rust": (
        "fn f(\n"
        "    invoke: u8,\n"
        ") {\n"
        '    println!("{invoke}"); // code\n'
        '    println!("{invoke:>8}"); // code\n'
        '    println!("invoke {}", 1); // prose\n'
        "}\n"
    ),
}


@pytest.mark.parametrize("language", sorted(CODE_STRINGS))
def test_strings_a_reader_changes_with_the_name_are_code(language: str) -> None:
    # A Python annotation (a forward reference "invoke" is read by type checkers),
    # the names __all__ lists, and a Rust format string's inline argument all name
    # the definition: renaming it changes them.
    source = CODE_STRINGS[language]
    holding, marked = _lines(source, "invoke")
    found = prose_lines(("c", language), source.encode(), language, "invoke", holding, _later())
    assert found == marked, language


def test_deep_nesting_is_bounded() -> None:
    # A string nested deeper than the query's start depth stays code; one near the
    # top is prose.
    deep = b'x = ["invoke",\n' + b"[" * 600 + b'\n"invoke"\n' + b"]" * 601 + b";\n"
    assert _prose(deep, "javascript", [1, 3], _later()) == {1}
    # 130,000 nested arrays held the query cursor 207 s (every thread waiting); the
    # bound makes it about a second.  A generous bound proves it does not hang.
    nested = b"x = " + b'["invoke",' * 130_000 + b"]" * 130_000 + b";\ninvoke();\n"
    started = time.monotonic()
    assert _prose(nested, "javascript", [1, 2], time.monotonic() + 60) <= {1}
    assert time.monotonic() - started < 60


def test_the_files_kept_are_bounded_those_without_prose_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A file without comments or strings weighs one: such files were kept without bound.
    monkeypatch.setattr(prose, "SPANS_KEPT", 5)
    monkeypatch.setattr(prose, "_spans", type(prose._spans)())
    monkeypatch.setattr(prose, "_held", 0, raising=False)
    for k in range(20):
        source = f"invoke({k})\n".encode()
        assert _prose(source, "python", [1], _later()) == set()
    assert len(prose._spans) <= 5
    _prose(b"x = 'a'  # b\n" * 10, "python", [1], _later())  # 20 spans: kept alone
    assert len(prose._spans) == 1


def test_what_the_grammar_could_not_parse_is_code() -> None:
    # A Ruby string nested 300 interpolations deep parses as an ERROR holding a
    # "comment" from its first "#{" on: the call inside it was called prose.  The
    # ERROR is the whole file here, so its comment is code too (in doubt).
    nested = b"x = " + b'"a#{' * 300 + b"invoke" + b'}"' * 300 + b"\n# invoke\n"
    assert _prose(nested, "ruby", [1, 2], _later()) == set()
    assert _prose(b'x = "a#{"b#{invoke}"}"\n# invoke\n', "ruby", [1, 2], _later()) == {2}
