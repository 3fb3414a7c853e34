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
