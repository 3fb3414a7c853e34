"""The lean format: every added line visible, each fold saying what it stands for, and the
whole view expanding back to the raw text byte for byte."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitrepo import commit, git, init_repo
from test_data import CORPUS, ROOT

from diffchunk.diff.chunker import chunk_files, render_chunk
from diffchunk.diff.lean import LeanView, Partners, expand, render_lean
from diffchunk.diff.lean.words import sides
from diffchunk.diff.parser import parse_diff
from diffchunk.errors import NotADiffError
from tests.property.gen_diff import generate

FIXTURES = ROOT / "fixtures"


def _fixtures() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file())


def _corpus() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if p.suffix in (".diff", ".txt", ".mbox"))


def visible_added(text: str) -> tuple[set[str], list[str]]:
    """What a reader sees of the new side: the added lines shown (``+`` lines and the new
    side of ``~`` pairs), and the shown heads of cut lines."""
    lines = text.split("\n")
    seen: set[str] = set()
    heads: list[str] = []
    for n, line in enumerate(lines):
        if line.startswith("~"):
            seen.add(sides(line[1:])[1])
        elif line.startswith("+"):
            if n + 1 < len(lines) and lines[n + 1].startswith("↳ "):
                heads.append(line[1:])
            else:
                seen.add(line[1:])
    return seen, heads


def added_lines(raw: bytes, sign: str = "+") -> Iterator[str]:
    """The added lines of every two-way hunk of ``raw`` (without their ``+``), or the
    lines of another ``sign``."""
    try:
        parsed = parse_diff(raw)
    except NotADiffError:
        return
    for fd in parsed.files:
        if fd.malformed or (fd.hunks and fd.hunks[0].parents):
            continue
        for hunk in fd.hunks:
            body = parsed.data[hunk.body_start : hunk.end].decode("utf-8", "replace")
            for line in body.split("\n"):
                if line.startswith(sign):
                    yield line[1:]


def removed_lines(raw: bytes) -> Iterator[str]:
    return added_lines(raw, "-")


_MOVED_HERE = re.compile(r"^⋯ \d+ lines \(new \d+-\d+\) moved unchanged from old ", re.M)


def moved_unchanged(view: LeanView) -> list[str]:
    """The added lines a view leaves out as moved unchanged: its folds that say so."""
    lines = view.text.split("\n")
    out: list[str] = []
    for n, text in enumerate(lines):
        if _MOVED_HERE.match(text):
            raw = view.originals[n].decode("utf-8", "replace")
            out += [line[1:] for line in raw.split("\n") if line.startswith("+")]
    return out


def check_view(raw: bytes) -> LeanView:
    """The lean view of ``raw`` expands back to it, and shows every added line, but
    those it names as moved unchanged: each of them is a removed line of ``raw``."""
    view = render_lean(raw)
    assert expand(view.text, view.originals) == raw
    seen, heads = visible_added(view.text)
    moved = moved_unchanged(view)
    removed = set(removed_lines(raw)) if moved else set()
    assert all(line in removed for line in moved)
    for line in added_lines(raw):
        shown = line in seen or any(line.startswith(h) for h in heads)
        assert shown or line in moved, line[:80]
    return view


@pytest.mark.parametrize("path", _fixtures(), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_expands_back_and_shows_its_added_lines(path: Path) -> None:
    check_view(path.read_bytes())


@pytest.mark.parametrize("path", _corpus() or [None], ids=lambda p: p.name if p else "absent")
def test_every_corpus_diff_expands_back_chunk_by_chunk(path: Path | None) -> None:
    if path is None:
        pytest.skip("the corpus (../shared/corpus) is not available")
    raw = path.read_bytes()
    parsed = parse_diff(raw)
    chunks = chunk_files(parsed, parsed.files)
    for chunk in chunks if len(raw) < 2_000_000 else chunks[::7]:
        check_view(render_chunk(parsed, chunk))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_diffs_expand_back(seed: int) -> None:
    check_view(generate(3_000, seed=seed))


def test_a_name_with_a_line_break_is_quoted_and_expands_back() -> None:
    """A file name holding a line break (git quotes it in its headers) is quoted in the
    lean lines too: unquoted, it split the file's line and the view no longer expanded."""
    raw = (
        b'diff --git "a/x\\ny.py" "b/x\\ny.py"\n'
        b"index 1111111..2222222 100644\n"
        b'--- "a/x\\ny.py"\n+++ "b/x\\ny.py"\n'
        b"@@ -1,3 +1,3 @@\n a\n-b\n+c\n d\n"
    )
    view = check_view(raw)
    assert '## "x\\ny.py" (+1 -1)' in view.text


def test_the_originals_are_needed_and_a_broken_view_is_refused() -> None:
    raw = generate(400)
    view = render_lean(raw)
    assert len(view.text) < len(raw) * 0.8
    assert view.originals  # the folds need them: without them expansion is refused
    with pytest.raises(ValueError, match="fold without its original"):
        expand(view.text, {})
    with pytest.raises(ValueError, match="not closed"):
        expand("~a [-b\n", {})


def _diff(repo: Path, before: dict[str, str], after: dict[str, str]) -> bytes:
    commit(repo, before, "before")
    git(repo, "tag", "-f", "before")
    for name, text in after.items():
        path = repo / name
        if text is None:
            path.unlink()
    commit(repo, {k: v for k, v in after.items() if v is not None}, "after")
    out = git_raw(repo, "diff", "before", "HEAD")
    return out


def git_raw(repo: Path, *args: str) -> bytes:
    import subprocess

    from gitrepo import git_environment

    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, check=True, env=git_environment()
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    init_repo(path)
    return path


def _body(n: int, word: str = "line") -> str:
    return "".join(f"{word} {i} of the file, with some words in it\n" for i in range(n))


def test_a_changed_word_is_one_pair_line(repo: Path) -> None:
    before = "def f(a):\n" + _body(10) + "    return compute(a, timeout=5)\n" + _body(10, "tail")
    after = before.replace("timeout=5", "deadline=5")
    view = check_view(_diff(repo, {"m.py": before}, {"m.py": after}))
    assert "~    return compute(a, [-timeout-]{+deadline+}=5)" in view.text
    assert "## m.py (+1 -1)" in view.text
    # The changed line is line 12 of the new file; git's section, a line that defines
    # nothing in a Python file, is not repeated.
    assert "\n@@ 12\n" in view.text
    assert "line 3 of the file" not in view.text  # context lines are left out


def test_a_deleted_function_is_one_line_with_its_name_and_range(repo: Path) -> None:
    keep = _body(5)
    steps = "".join(f"    x += compute_the_next_value(x, step={i}, scale=1.5)\n" for i in range(20))
    gone = "def helper(x):\n" + steps + "    return x\n"
    view = check_view(_diff(repo, {"m.py": keep + gone + keep}, {"m.py": keep + keep}))
    assert "⋯ 22 lines removed (old 6-27): `helper`" in view.text
    assert "step=3" not in view.text


def test_a_short_removed_run_is_shown_where_a_fold_would_cost_a_call(repo: Path) -> None:
    """A run under 1,000 characters costs less to show than a reader's call for it at
    the old side: it is shown, however many lines it has."""
    keep = _body(5)
    gone = "def helper(x):\n" + "".join(f"    x += {i}\n" for i in range(12)) + "    return x\n"
    view = check_view(_diff(repo, {"m.py": keep + gone + keep}, {"m.py": keep + keep}))
    assert "-    x += 3\n" in view.text and "lines removed" not in view.text


def test_a_removed_run_names_the_definition_it_lay_in_and_those_it_held(repo: Path) -> None:
    # A run of a function's body whose signature spans lines, then the start of the
    # next function: the fold names both (the reader knows what to open at the old side).
    head = "def _pipepager(\n    cmd: str,\n    color: bool,\n) -> None:\n    start(cmd)\n"
    body = "".join(
        f"    step_{i}(cmd, color, encoding=encoding, errors=errors)\n" for i in range(20)
    )
    tail = "def _tempfilepager(cmd):\n    write(cmd)\n    more(cmd)\n"
    rest = "def keep():\n    return 1\n"
    view = check_view(_diff(repo, {"m.py": head + body + tail + rest}, {"m.py": head + rest}))
    assert "⋯ 23 lines removed (old 6-28): `_pipepager`, `_tempfilepager`" in view.text
    # Inside a method whose definition lies before the hunk: git's section names it.
    method = "class Pager:\n    def run(self):\n" + _body(12).replace("line", "        step")
    inner = "".join(
        f"        gone_{i}(self, with_every_argument_it_takes=True)\n" for i in range(20)
    )
    before = method + inner + "        done(self)\n"
    view = check_view(_diff(repo, {"p.py": before}, {"p.py": method + "        done(self)\n"}))
    assert "⋯ 20 lines removed (old 15-34): `Pager`" in view.text


def test_kept_context_shows_the_unchanged_lines_and_expands_back(repo: Path) -> None:
    before = "def f(a):\n" + _body(10) + "    return compute(a, timeout=5)\n" + _body(10, "tail")
    after = before.replace("timeout=5", "deadline=5")
    raw = _diff(repo, {"m.py": before}, {"m.py": after})
    view = render_lean(raw, keep_context=True)
    assert expand(view.text, view.originals) == raw
    assert "\n@@ 9\n" in view.text  # the first shown line: three before the change
    assert " line 7 of the file, with some words in it" in view.text.split("\n")
    assert " tail 2 of the file, with some words in it" in view.text.split("\n")
    assert "⋯" not in view.text


def test_a_hunk_names_the_section_git_names_for_its_language(repo: Path) -> None:
    """Python and Markdown: a definition or a heading, as git's diff drivers for them
    would (not the last line starting with a letter: a statement, a sentence); other
    files: git's section as it is."""
    lines = "".join(f"    v{i} = {i}\n" for i in range(8))
    before = {
        "a.py": "def run(a):\n" + lines + "    end = 0\n",
        "b.py": "import os\n" + lines.replace("    ", "") + "end = 0\n",
        "c.md": "# Title\n" + "".join(f"Some prose {i}.\n" for i in range(8)) + "end\n",
        "d.yml": "jobs:\n" + lines.replace(" = ", ": ") + "  end: 0\n",
    }
    after = {path: text.replace("end = 0", "end = 1").replace("end: 0", "end: 1")
             .replace("end\n", "the end\n") for path, text in before.items()}  # fmt: skip
    view = check_view(_diff(repo, before, after))
    heads = [line for line in view.text.split("\n") if line.startswith("@@ ")]
    assert heads == ["@@ 10 def run(a):", "@@ 10", "@@ 10", "@@ 10 jobs:"], view.text


def test_a_deleted_file_is_its_head_line_alone(repo: Path) -> None:
    text = "class Gone:\n    pass\n\n\ndef away():\n    return 1\n"
    view = check_view(_diff(repo, {"gone.py": text, "k.py": "k\n"}, {"gone.py": None}))
    assert view.text == "## gone.py (deleted, -6: class Gone, def away)\n"


def test_a_new_file_needs_no_hunk_head(repo: Path) -> None:
    view = check_view(_diff(repo, {"a.txt": "a\n"}, {"b.txt": "one\ntwo\n"}))
    assert view.text == "## b.txt (new, +2)\n+one\n+two\n"


def test_a_reindented_block_is_shown_once(repo: Path) -> None:
    inner = "".join(f"    step_{i}(value, other)\n" for i in range(6))
    before = "def f(value, other):\n" + inner + _body(5)
    after = "def f(value, other):\n    if value:\n" + inner.replace("    ", "        ") + _body(5)
    view = check_view(_diff(repo, {"m.py": before}, {"m.py": after}))
    assert "⋯ 6 lines re-indented below (were 4 columns less indented)" in view.text
    assert view.text.count("step_3(value, other)") == 1


def test_a_moved_block_is_shown_once_with_both_places(repo: Path) -> None:
    block = "".join(f"def moved_{i}(argument):\n    return argument * {i}\n" for i in range(4))
    before = {"a.py": _body(8) + block + _body(8, "more"), "b.py": _body(6, "b")}
    after = {"a.py": _body(8) + _body(8, "more"), "b.py": _body(6, "b") + block}
    view = check_view(_diff(repo, before, after))
    assert "⋯ 8 lines (old 9-16) moved to b.py:7" in view.text
    assert "⋯ 8 lines below moved from old a.py:9" in view.text
    assert view.text.count("def moved_2(argument):") == 1


def _long_block(n: int = 6) -> str:
    return "".join(
        f"def moved_{i}(argument, other):\n    return combine(argument * {i}, other)\n"
        for i in range(n)
    )


def test_a_long_block_moved_unchanged_is_named_not_shown_on_either_side(repo: Path) -> None:
    """A reader reviews what changed: a long run moved as it was is named by both its
    places (and shown on neither side), and the view still expands back."""
    block = _long_block()
    before = {"a.py": _body(8) + block + _body(8, "more"), "b.py": _body(6, "b")}
    after = {"a.py": _body(8) + _body(8, "more"), "b.py": _body(6, "b") + block}
    view = check_view(_diff(repo, before, after))
    assert "⋯ 12 lines (old 9-20) moved to b.py:7" in view.text
    assert "⋯ 12 lines (new 7-18) moved unchanged from old a.py:9-20" in view.text
    assert "moved_2" not in view.text
    assert view.stats["moved"].count == 2


def test_a_moved_block_re_indented_or_edited_or_short_stays_shown(repo: Path) -> None:
    """Only a run moved exactly as it was, and long enough not to be a coincidence,
    is left out: re-indented lines (a function moved into a class) are shown, and so
    is a line edited on the way (the run stops there)."""
    block = _long_block()
    indented = "".join("    " + line if line.strip() else line for line in block.splitlines(True))
    edited = block.replace("argument * 3", "argument * 33")
    short = _long_block(1)
    for moved, shown in ((indented, "moved_2"), (edited, "argument * 33"), (short, "moved_0")):
        before = {"a.py": _body(8) + block + _body(8, "more"), "b.py": _body(6, "b")}
        after = {"a.py": _body(8) + _body(8, "more"), "b.py": _body(6, "b") + "class C:\n" + moved}
        if moved is short:
            before["a.py"] = _body(8) + short + _body(8, "more")
        view = check_view(_diff(repo, before, after))
        assert shown in view.text, view.text
    assert "moved unchanged" in view.text or "moved_0" in view.text


def test_a_file_view_finds_lines_moved_from_the_rest_of_the_diff(repo: Path) -> None:
    """Tests split out of a deleted file: the new file's view, given the rest of the
    diff as partners, names the old lines it took unchanged (by path) and shows its
    own lines; the deleted file's view names where each run went and shows what went
    nowhere."""
    first, second = _long_block(), _long_block(5).replace("moved_", "kept_")
    gone = "def dropped(x):\n    return x\n"
    before = {"tests/test_all.py": "import os\n\n" + first + gone + second}
    after = {
        "tests/test_all.py": None,
        "tests/split/test_first.py": "import sys\n\n" + first,
        "tests/split/test_second.py": second,
    }
    _diff(repo, before, after)  # type: ignore[arg-type]
    raw = git_raw(repo, "diff", "--no-renames", "before", "HEAD")  # a split, not a rename
    partners = Partners(raw)
    assert {b.file.path for b in partners.blocks} == {
        "tests/test_all.py",
        "tests/split/test_first.py",
        "tests/split/test_second.py",
    }
    skipped = Partners(raw, skip=["tests/test_all.py"])
    assert {b.file.path for b in skipped.blocks} == {
        "tests/split/test_first.py",
        "tests/split/test_second.py",
    }

    def view_of(path: str) -> LeanView:
        own = b"".join(p for p in _sections(raw) if _section_path(p) == path)
        view = render_lean(own, partners=partners)
        assert expand(view.text, view.originals) == own
        return view

    new = view_of("tests/split/test_first.py").text
    assert "+import sys" in new
    assert "⋯ 12 lines (new 3-14) moved unchanged from old tests/test_all.py:3-14" in new
    assert "moved_1" not in new
    old = view_of("tests/test_all.py").text
    assert old.startswith("## tests/test_all.py (deleted, -26)\n")
    assert "⋯ 12 lines (old 3-14) moved to tests/split/test_first.py:3" in old
    assert "⋯ 10 lines (old 17-26) moved to tests/split/test_second.py:1" in old
    assert "-def dropped(x):\n-    return x\n" in old
    # Alone, with no partners, the deleted file is its head line (its names).
    alone = render_lean(
        b"".join(p for p in _sections(raw) if _section_path(p) == "tests/test_all.py")
    )
    assert alone.text.startswith("## tests/test_all.py (deleted, -26: def moved_0")


def _sections(raw: bytes) -> list[bytes]:
    parts = re.split(rb"(?m)^(?=diff --git )", raw)
    return [p for p in parts if p]


def _section_path(section: bytes) -> str:
    head = section.split(b"\n", 1)[0].decode()
    return head.rsplit(" b/", 1)[1]


def test_an_edit_repeated_in_several_places_is_shown_once(repo: Path) -> None:
    param = "    :param hash: whether the field is part of the hash, as dataclasses do\n"
    before = "".join(f"def make_{i}(x):\n    '''Make {i}.\n\n'''\n" + _body(4) for i in range(4))
    after = before.replace("\n\n'''\n", "\n\n" + param + "'''\n")
    view = check_view(_diff(repo, {"m.py": before}, {"m.py": after}))
    assert view.text.count(":param hash:") == 1
    assert "⋯ this edit (+1) is repeated at lines 13, 22, 31" in view.text
    assert view.text.count("⋯ same edit (+1) as at line 4") == 3


def test_binary_data_is_its_size_and_blob_ids(repo: Path) -> None:
    (repo / "logo.png").write_bytes(bytes(range(256)) * 40)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "png")
    raw = git_raw(repo, "show", "--binary", "--format=", "HEAD")
    view = check_view(raw)
    assert view.text.startswith("## logo.png (new, binary)\n⋯ GIT binary patch of ")
    assert "new 10,240 bytes (literal)" in view.text and "blob 0000000" in view.text
    assert len(view.text) < 300


def test_an_over_long_line_is_cut_and_says_how_much(repo: Path) -> None:
    wide = "<svg>" + "M 1 2 L 3 4 " * 5000 + "</svg>"
    view = check_view(_diff(repo, {"a.svg": "<svg/>\n"}, {"a.svg": wide + "\n"}))
    shown = 300  # the "+" and the line's first 299 characters
    assert f"↳ {len(wide) + 1 - shown:,} more characters of this line" in view.text
    assert len(view.text) < 1_000


def test_a_commit_message_is_kept_and_its_diffstat_folded(repo: Path) -> None:
    commit(repo, {"a.txt": "a\n"}, "base")
    commit(repo, {"a.txt": "b\n"}, "Change a to b\n\nThe body says why.")
    view = check_view(git_raw(repo, "format-patch", "-1", "--stdout"))
    lines = view.text.split("\n")
    assert re.match(r"## commit [0-9a-f]{12} \(t, .+\): Change a to b", lines[0])
    assert "| The body says why." in lines
    assert "⋯ diffstat (1 file changed)" in lines


def test_the_same_section_twice_is_a_ditto_mark(repo: Path) -> None:
    body = "def long_function(a, b):\n" + "".join(f"    a += {i}\n" for i in range(30))
    after = body.replace("a += 3\n", "a += 33\n").replace("a += 25\n", "a += 52\n")
    view = check_view(_diff(repo, {"m.py": body}, {"m.py": after}))
    heads = [line for line in view.text.split("\n") if line.startswith("@@ ")]
    assert heads == ["@@ 5 def long_function(a, b):", "@@ 27 〃"]


def test_bytes_that_are_not_utf8_and_a_missing_final_newline_come_back() -> None:
    raw = (
        b"diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n-caf\xe9\n+caf\xe9s\n"
        b" ok\r\n\\ No newline at end of file"
    )
    view = check_view(raw)
    assert "+caf\ufffds" in view.text


def test_text_that_is_not_a_diff_is_shown_as_text() -> None:
    view = check_view(b"just words\nand more\n")
    assert view.text == "## text outside the files (2 lines)\n| just words\n| and more\n"


def test_a_paragraph_pasted_into_several_places_is_shown_once(repo: Path) -> None:
    doc = (
        "    :param hash: Specific to native dataclasses, controls if this field\n"
        "     is included when generating the __hash__() method for the class.\n"
        "\n"
        "     .. versionadded:: 2.0.36\n"
    )
    make = "def make_{i}(x{extra}):\n    '''Make {i}.\n\n    :param x: {i}\n{doc}'''\n"
    before = "".join(make.format(i=i, extra="", doc="") for i in range(3))
    # each place adds its own line too: the edits differ, the pasted paragraph does not
    after = "".join(
        make.format(i=i, extra=", hash=None", doc=doc + f"    :param y{i}: why {i}\n")
        for i in range(3)
    )
    view = check_view(_diff(repo, {"m.py": before}, {"m.py": after}))
    assert view.text.count(":param hash:") == 1
    assert view.text.count("⋯ 4 added lines as shown at line 5") == 2


def test_context_spans_keep_the_lines_within_any_span_nested_or_not(repo: Path) -> None:
    """With spans, an unchanged line is kept when any span holds it: a span nested in
    another (a method in a class) does not end the outer one."""
    before = _body(30)
    after = before.replace("line 2 of", "line two of").replace("line 22 of", "line 22nd of")
    raw = _diff(repo, {"m.txt": before}, {"m.txt": after})
    spans = [(1, 10), (3, 4), (21, 23)]
    view = render_lean(raw, keep_context=True, context_spans=spans)
    assert expand(view.text, view.originals) == raw
    # file line n holds "line n-1"; git's context is lines 1-6 and 20-26 around the
    # changes at 3 and 23: those in a span are shown (5 and 6 after the nested 3-4 ends)
    shown = {int(w.split()[1]) + 1 for w in view.text.split("\n") if w.startswith(" line ")}
    assert shown == {1, 2, 4, 5, 6, 21, 22}, view.text


def test_a_hunk_head_names_the_definition_its_hidden_lines_hold(repo: Path) -> None:
    """git names the last definition before a hunk's first line, its context included:
    lean leaves that context out, so it names a definition the left-out lines hold."""
    before = (
        "def f():\n"
        + _body(6).replace("line", "    f_line")
        + "\n\ndef g():\n    first = 1\n    second = 2\n    third = 3\n"
    )
    after = before.replace("second = 2", "second = 22")
    raw = _diff(repo, {"m.py": before}, {"m.py": after})
    assert b"@@ def f():" in raw  # git's section: its context starts above g
    view = check_view(raw)
    assert "\n@@ 12 def g():\n" in view.text, view.text
    # Kept context shows the line itself: git's section stays
    kept = render_lean(raw, keep_context=True)
    assert "\n@@ 9 def f():\n" in kept.text, kept.text
