"""The whole codebase at either side of a range, against git: any file (git show
REV:PATH), search_code (git grep -c), find_references (git grep -w filtered by Python's
ast), commit bodies (git log --format=%B), a single format-patch file, list_symbols, the
unknown-revision hint, the CLI twins and the stdio client; in a work tree and a bare clone."""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest
from gitrepo import commit, git, git_bytes, git_environment, init_repo, run_git
from mcpkit import RunningServer

from diffchunk.errors import FileNotInDiff, FileToolError, InvalidArgument, NotARange
from diffchunk.review.ranges.load import load_git_diff
from diffchunk.review.sessions.loading import load_diff
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import code_search
from diffchunk.review.tools.code_search import find_references, find_references_each, search_code
from diffchunk.review.tools.commits import list_commits, render_messages
from diffchunk.review.tools.file_versions import open_file_version
from diffchunk.review.tools.hits_text import render_searches
from diffchunk.review.tools.symbol_list import list_symbols

LIB = '''"""A library."""


def render(text, width=80):
    """Wrap text."""
    return wrap(text, width)


def wrap(text, width):
    return [text[i : i + width] for i in range(0, len(text), width)]


class Pager:
    def show(self, text):
        for line in render(text):
            print(line)  # render again? no

    @staticmethod
    def render(text):
        return text
'''
CALLERS = """from lib import render, wrap


def main(argv):
    out = render(argv[0])
    return out


class Cli:
    def run(self):
        return render("x") + wrap("y", 2)


def usage():
    '''Say how render(text) is called.'''
    return "render" + f"{render('x')}"  # an f-string's render is a call
"""


def _lib_new() -> str:
    return LIB.replace("def render(text, width=80):", "def render(text, width=72):").replace(
        "return wrap(text, width)", "return wrap(text.strip(), width)"
    )


def _many(n: int, tag: str) -> str:
    return "".join(f"def f{i}():\n    return {i}  # {tag}\n\n\n" for i in range(n))


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """main: lib.py, cli.py, docs/readme.md, many.py, data.bin, a CRLF file; feature:
    lib.py's render changed, many.py's 12 functions changed, notes.txt added, old.txt
    deleted, a second commit with a message body."""
    repo = init_repo(tmp_path / "repo")
    commit(
        repo,
        {
            "lib.py": LIB,
            "cli.py": CALLERS,
            "docs/readme.md": "# Render\nrender(text) wraps; RENDER is loud.\n",
            "many.py": _many(12, "one"),
            "old.txt": "render me\n",
            "dos.txt": "render\r\nRender\r\n",
        },
    )
    (repo / "data.bin").write_bytes(b"render\0\x01\x02\nrender\n")
    git(repo, "add", "data.bin")
    git(repo, "commit", "-qm", "binary")
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "rm", "-q", "old.txt")
    commit(repo, {"lib.py": _lib_new(), "notes.txt": "render notes\n"}, "Narrow render")
    commit(
        repo,
        {"many.py": _many(12, "two")},
        "Touch every function\n\nThe body says why:\nall of them.",
    )
    git(repo, "checkout", "-q", "main")
    return repo


@pytest.fixture()
def bare(repo: Path, tmp_path: Path) -> Path:
    bare = tmp_path / "bare.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    return bare


def _grep_counts(repo: Path, *args: str) -> dict[str, int]:
    """``git grep -c`` at a revision (or of the work tree), as {path: lines}."""
    out = run_git(repo, "grep", "-c", *args, check=False).stdout
    rev = args[-2] + ":" if len(args) > 1 and args[-1] == "--" else ""
    counts = {}
    for line in out.splitlines():
        name, _, count = line.rpartition(":")
        counts[name.removeprefix(rev)] = int(count)
    return counts


def _search_counts(
    diff: str, pattern: str, store: SessionStore, **options: object
) -> dict[str, int]:
    counts: dict[str, int] = {}
    offset: int | None = 0
    while offset is not None:
        page = search_code(diff, pattern, max_results=500, offset=offset, store=store, **options)
        for hit in page.hits:
            counts[hit.path] = counts.get(hit.path, 0) + 1
        offset = page.next_offset
        assert sum(counts.values()) <= page.total
    assert sum(counts.values()) == page.total
    return counts


@pytest.mark.parametrize("where", ["work tree", "bare"])
def test_any_file_at_either_side_is_git_show(repo: Path, bare: Path, where: str) -> None:
    place = repo if where == "work tree" else bare
    store = SessionStore()
    diff = load_git_diff(str(place), "main..feature", store=store).file_path
    base, head = git(place, "rev-parse", "main"), git(place, "rev-parse", "feature")
    for path in ("cli.py", "docs/readme.md", "dos.txt", "data.bin", "lib.py"):
        for side, rev in (("new", head), ("old", base)):
            opened = open_file_version(diff, path, side, store=store).to_dict()
            assert Path(opened["path"]).read_bytes() == git_bytes(place, "show", f"{rev}:{path}")
            assert opened["revision"] == rev
            if path != "lib.py":  # not in the diff: said to be unchanged
                assert opened["in_diff"] is False and opened["unchanged"] is True
            else:
                assert "unchanged" not in opened
    with pytest.raises(FileNotInDiff, match="neither in the diff nor in"):
        open_file_version(diff, "src/parser.py", store=store)
    with pytest.raises(FileNotInDiff, match="docs is a directory"):
        open_file_version(diff, "docs", store=store)
    with pytest.raises(InvalidArgument, match="no path of the repository"):
        open_file_version(diff, "../outside.py", store=store)


def test_any_file_of_the_working_tree_and_the_index(repo: Path) -> None:
    (repo / "lib.py").write_text(_lib_new())
    store = SessionStore()
    worktree = load_git_diff(str(repo), store=store).file_path
    opened = open_file_version(worktree, "cli.py", store=store).to_dict()
    assert opened["revision"] == "working tree" and opened["unchanged"] is True
    assert Path(opened["path"]).read_bytes() == (repo / "cli.py").read_bytes()
    (repo / "cli.py").write_text("staged = 1\n")
    git(repo, "add", "cli.py")
    (repo / "cli.py").write_text("work tree = 2\n")
    staged = load_git_diff(str(repo), staged=True, store=store).file_path
    # cli.py is in the staged diff; docs/readme.md is not: the index's blob, unchanged
    index = open_file_version(staged, "docs/readme.md", store=store).to_dict()
    assert index["revision"] == "index" and index["unchanged"] is True
    assert Path(index["path"]).read_bytes() == git_bytes(repo, "show", ":docs/readme.md")


@pytest.mark.parametrize("where", ["work tree", "bare"])
def test_search_code_counts_are_git_grep_counts(repo: Path, bare: Path, where: str) -> None:
    place = repo if where == "work tree" else bare
    store = SessionStore()
    diff = load_git_diff(str(place), "main..feature", store=store).file_path
    for side, rev in (("new", "feature"), ("old", "main")):
        for pattern, grep, options in (
            ("render", ["-F", "-e", "render"], {}),
            ("RENDER", ["-F", "-i", "-e", "RENDER"], {"case_sensitive": False}),
            (r"def \w+\(", ["-E", "-e", r"def [a-zA-Z0-9_]+\("], {"regex": True}),
            (r"^\s+return", ["-E", "-e", r"^[[:space:]]+return"], {"regex": True}),
        ):
            found = _search_counts(diff, pattern, store, side=side, **options)
            assert found == _grep_counts(place, *grep, rev, "--"), (side, pattern)
    # Hits inside the diff are marked, on either side.
    new = search_code(diff, "wrap(text", store=store).to_dict()["hits"]
    assert [(h["path"], h["line"], h.get("in_diff")) for h in new] == [
        ("lib.py", 6, True),
        ("lib.py", 9, None),
    ]
    old = search_code(diff, "render me", side="old", store=store).to_dict()["hits"]
    assert old == [{"path": "old.txt", "line": 1, "text": "render me", "in_diff": True}]
    binary = search_code(diff, "render", file_pattern="*.bin", store=store).to_dict()
    assert binary["total"] == 2 and all(h.get("binary") for h in binary["hits"])


def test_search_code_of_the_working_tree_sees_its_edits(repo: Path) -> None:
    (repo / "lib.py").write_text(_lib_new() + "\n# render in the work tree\n")
    (repo / "old.txt").unlink()
    # Staged, then put back in the work tree: the index differs from the work tree, which
    # is the base's (the work tree's side of a file the diff leaves out).
    (repo / "cli.py").write_text("staged = 1\n")
    git(repo, "add", "cli.py")
    (repo / "cli.py").write_text(CALLERS)
    store = SessionStore()
    diff = load_git_diff(str(repo), store=store).file_path
    assert _search_counts(diff, "render", store) == _grep_counts(repo, "-F", "render")
    page = search_code(diff, "in the work tree", store=store).to_dict()
    assert page["revision"] == "working tree" and page["hits"][0]["in_diff"] is True


def test_search_code_pages_and_bounds(repo: Path) -> None:
    store = SessionStore()
    diff = load_git_diff(str(repo), "main..feature", store=store).file_path
    first = search_code(diff, "return", max_results=3, store=store).to_dict()
    assert len(first["hits"]) == 3 and first["next_offset"] == 3
    rest = search_code(diff, "return", max_results=500, offset=3, store=store).to_dict()
    assert len(rest["hits"]) == first["total"] - 3 and "next_offset" not in rest
    long_line = "x" * 5_000 + " needle " + "y" * 5_000
    commit(repo, {"long.txt": long_line + "\n"})
    diff = load_git_diff(str(repo), "main~1..main", store=store).file_path
    hit = search_code(diff, "needle", store=store).hits[0]
    assert hit.text is not None and "needle" in hit.text and len(hit.text) <= 202
    # 600 long matching lines (and long.txt's): a page of 500 would not fit one answer; it is cut.
    commit(repo, {"wide.txt": ("needle " + "w" * 400 + "\n") * 600})
    diff = load_git_diff(str(repo), "main~1..main", store=store).file_path
    page = search_code(diff, "needle", max_results=500, store=store).to_dict()
    assert page["total"] == 601 and len(json.dumps(page, separators=(",", ":"))) <= 80_000
    assert 100 < len(page["hits"]) == page["next_offset"] < 500
    for bad in ({"pattern": ""}, {"pattern": "a\nb"}, {"pattern": "x", "max_results": 0}):
        with pytest.raises(InvalidArgument):
            search_code(diff, **{"pattern": "x", **bad}, store=store)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="backreference"):
        search_code(diff, r"(a)\1", regex=True, store=store)


def _code_line(node: ast.AST, name: str) -> int | None:
    """The line where ``node`` holds ``name`` as a token of code (a name, an attribute,
    a definition's, an argument's, a keyword's or an import's name), else None."""
    names: tuple[str | None, ...] = ()
    if isinstance(node, ast.Name):
        names = (node.id,)
    elif isinstance(node, ast.Attribute):  # the attribute's name ends it
        return (node.end_lineno or node.lineno) if node.attr == name else None
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        names = (node.name,)
    elif isinstance(node, ast.arg | ast.keyword):
        names = (node.arg,)
    elif isinstance(node, ast.alias):
        names = (node.name, node.asname)
    elif isinstance(node, ast.Global | ast.Nonlocal):
        names = tuple(node.names)
    return getattr(node, "lineno", None) if name in names else None


def _code_lines(tree: ast.AST, name: str) -> set[int]:
    """The lines where ``name`` is a token of code, per Python's ast."""
    return {n for n in (_code_line(node, name) for node in ast.walk(tree)) if n is not None}


def _ast_references(source: str, name: str) -> tuple[dict[int, str], set[int]]:
    """``git grep -w``'s lines of ``name`` in ``source`` but the lines where a definition
    of that name starts: those where the name is code, each with the innermost definition
    around it, and those where it sits only in comments and strings (ast)."""
    tree = ast.parse(source)
    defs: list[tuple[int, int, str]] = []
    starts: set[int] = set()

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                qualified = prefix + child.name
                defs.append((child.lineno, child.end_lineno or child.lineno, qualified))
                if child.name == name:
                    starts.add(child.lineno)
                walk(child, qualified + ".")
            else:
                walk(child, prefix)

    walk(tree, "")
    code = _code_lines(tree, name)
    word = re.compile(rf"\b{re.escape(name)}\b")
    found, prose = {}, set()
    for number, line in enumerate(source.split("\n"), 1):
        if not word.search(line) or number in starts:
            continue
        if number not in code:
            prose.add(number)
            continue
        around = [d for d in defs if d[0] <= number <= d[1]]
        found[number] = max(around)[2] if around else "(module level)"
    return found, prose


@pytest.mark.parametrize("where", ["work tree", "bare"])
def test_references_of_a_changed_function_are_git_grep_w_filtered_by_ast(
    repo: Path, bare: Path, where: str
) -> None:
    place = repo if where == "work tree" else bare
    store = SessionStore()
    diff = load_git_diff(str(place), "main..feature", store=store).file_path
    for side, rev in (("new", "feature"), ("old", "main")):
        found = find_references(diff, "lib.render", side=side, max_results=500, store=store)
        assert "not a type checker" in found.notes[0]
        grep = run_git(place, "grep", "-w", "-l", "-F", "render", rev, "--").stdout
        listed = {line.removeprefix(f"{rev}:") for line in grep.splitlines()}
        expected: dict[tuple[str, int], str | None] = {}
        prose: set[tuple[str, int]] = set()
        for path in listed:
            source = git_bytes(place, "show", f"{rev}:{path}").decode()
            if path.endswith(".py"):
                in_code, in_prose = _ast_references(source, "render")
                for number, where_ in in_code.items():
                    expected[(path, number)] = where_
                prose.update((path, number) for number in in_prose)
            else:  # the lines alone (a Markdown file's hits sit in its headings)
                for number, line in enumerate(source.split("\n"), 1):
                    if re.search(r"\brender\b", line):
                        expected[(path, number)] = None
        code = {k: v for k, v in expected.items() if k[0].endswith(".py")}
        assert {(h.path, h.line): h.definition for h in found.hits} == code
        assert found.total == len(code)
        # A comment's or a string's word is no reference (an f-string's call is one):
        # counted apart, as the hits in files of another language than the definitions'.
        assert {("lib.py", 16), ("cli.py", 15)} <= prose
        assert ("cli.py", 16) in code
        assert found.to_dict()["comments_and_strings"] == len(prose)
        other = found.to_dict()["other_files"]
        assert other["hits"] == len(expected) - len(code)
        assert other["files"] == len({path for path, _ in expected} - {p for p, _ in code})
    # The callers inside the diff are marked (lib.py's wrap call sits in the change).
    new = find_references(diff, "wrap", store=store).to_dict()["hits"]
    assert {
        "path": "lib.py",
        "line": 6,
        "text": "    return wrap(text.strip(), width)",
        "in": "render",
        "in_diff": True,
    } in new


def test_references_of_several_names_in_one_call(repo: Path) -> None:
    store = SessionStore()
    diff = load_git_diff(str(repo), "main..feature", store=store).file_path
    both = find_references_each(diff, "lib.render, wrap,render", max_results=2, store=store)
    assert [name for name, _ in both] == ["render", "wrap"]  # each name once
    for name, page in both:  # each paged as its own call
        alone = find_references(diff, name, max_results=2, store=store)
        assert page == alone and len(page.hits) <= 2
    with pytest.raises(InvalidArgument, match="'wr-ap' is not a name"):
        find_references_each(diff, "wrap, wr-ap", store=store)
    with pytest.raises(InvalidArgument, match="at most 100 at once"):
        find_references_each(diff, ",".join(f"n{i}" for i in range(101)), store=store)


class _Clock:
    """A monotonic clock one second later at each reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        self.now += 1
        return self.now


def test_several_names_share_one_time_budget(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _Clock()
    monkeypatch.setattr(code_search, "time", clock)
    names = ("render", "wrap", "width")
    spent = []
    for name in names:  # each alone, in a store of its own: the readings it takes
        store = SessionStore()
        diff = load_git_diff(str(repo), "main..feature", store=store).file_path
        before = clock.now
        find_references(diff, name, store=store)
        spent.append(clock.now - before)
    assert all(s >= 2 for s in spent)  # the deadline and at least one file each
    monkeypatch.setattr(code_search, "TIME_BUDGET", max(spent))
    for name in names:  # each alone still within the budget
        store = SessionStore()
        diff = load_git_diff(str(repo), "main..feature", store=store).file_path
        find_references(diff, name, store=store)
    store = SessionStore()
    diff = load_git_diff(str(repo), "main..feature", store=store).file_path
    with pytest.raises(FileToolError, match="The search stopped after"):
        find_references_each(diff, ", ".join(names), store=store)


def test_several_names_share_one_answer(repo: Path) -> None:
    names = [f"name{i}" for i in range(4)]
    wide = "".join(f"{n} = '{'w' * 300}'\n" for n in names for _ in range(400))
    commit(repo, {"wide.txt": wide})
    store = SessionStore()
    diff = load_git_diff(str(repo), "main~1..main", store=store).file_path
    alone = find_references(diff, names[0], max_results=500, store=store).to_dict()
    assert len(json.dumps(alone, separators=(",", ":"))) > 60_000  # one fills an answer
    found = find_references_each(diff, " ".join(names), max_results=500, store=store)
    pages = [page.to_dict() for _, page in found]
    assert len(json.dumps(pages, separators=(",", ":"))) <= 80_000
    assert all(
        page["total"] == 400 and 0 < len(page["hits"]) == page["next_offset"] for page in pages
    )


def test_the_messages_as_git_log_gives_them(repo: Path) -> None:
    store = SessionStore()
    diff = load_git_diff(str(repo), "main..feature", store=store).file_path
    page = list_commits(diff, include_body=True, limit=1, store=store)
    text = render_messages(page)
    short = {
        rev: run_git(repo, "rev-parse", "--short=12", rev).stdout.strip()
        for rev in ("main", "feature")
    }
    abbreviated = run_git(repo, "log", "-1", "--format=%h", "feature").stdout.strip()
    # What git log --format='%h %s%n%b' prints (its id as git abbreviates it), and no
    # author (a reviewer reading the messages asks the listing without bodies who wrote
    # them) or full id.
    assert text == (
        f"2 commit(s) of {short['main']}..{short['feature']}; 1-1 shown, next offset=1\n"
        f"{abbreviated} Touch every function\n"
        " The body says why:\n"
        " all of them.\n"
    )
    assert list_commits(diff, store=store).to_dict()["commits"][0]["author"] == "t"
    # A release's commits come in one page by default.
    commit(repo, {"f.txt": "x\n"}, "One file")
    stream = "".join(  # sixty more commits in one git process
        f"commit refs/heads/main\ncommitter t <t@t> {i} +0000\ndata 2\nc{i % 10}\n"
        + ("from refs/heads/main^0\n" if i == 0 else "")
        for i in range(60)
    )
    subprocess.run(
        ["git", "-C", str(repo), "fast-import", "--quiet"],
        input=stream,
        text=True,
        env=git_environment(),
        check=True,
    )
    store = SessionStore()
    diff = load_git_diff(str(repo), "main~61..main", store=store).file_path
    assert len(list_commits(diff, include_body=True, store=store).commits) == 61


def test_commit_bodies_are_git_log_format_B(repo: Path, bare: Path, tmp_path: Path) -> None:
    for place in (repo, bare):
        store = SessionStore()
        diff = load_git_diff(str(place), "main..feature", store=store).file_path
        listed = list_commits(diff, include_body=True, store=store).to_dict()["commits"]
        for entry in listed:
            body = run_git(place, "log", "-1", "--format=%B", entry["id"]).stdout
            assert entry["body"] + "\n" == body
        assert "all of them." in listed[0]["body"]
        assert "body" not in list_commits(diff, store=store).to_dict()["commits"][0]
    commit(repo, {"x.txt": "x\n"}, "Long\n\n" + "word " * 3_000)
    store = SessionStore()
    diff = load_git_diff(str(repo), "main~1..main", store=store).file_path
    (long,) = list_commits(diff, include_body=True, store=store).to_dict()["commits"]
    whole = run_git(repo, "log", "-1", "--format=%B", "main").stdout[:-1]
    assert long["body"] == whole[:8_000] and long["body_cut"] == len(whole) - 8_000
    log = tmp_path / "log.diff"
    log.write_bytes(git_bytes(repo, "log", "-p", "main..feature"))
    mail = tmp_path / "one.patch"
    mail.write_bytes(git_bytes(repo, "format-patch", "-1", "--stdout", "feature"))
    for stream in (log, mail):
        entries = list_commits(str(stream), include_body=True).to_dict()["commits"]
        want = run_git(repo, "log", "-1", "--format=%B", "feature").stdout
        assert entries[0]["body"] + "\n" == want, stream.name


def test_a_single_format_patch_file_is_a_stream_of_one_commit(repo: Path, tmp_path: Path) -> None:
    mail = tmp_path / "0001-Touch-every-function.patch"
    mail.write_bytes(git_bytes(repo, "format-patch", "-1", "--stdout", "feature"))
    store = SessionStore()
    load_diff(str(mail), store=store)
    listing = list_commits(str(mail), store=store).to_dict()
    assert listing["source"] == "stream" and listing["total"] == 1
    assert listing["commits"][0]["id"] == git(repo, "rev-parse", "feature")
    from diffchunk.diff.lean import expand, render_lean
    from diffchunk.review.tools.diff_tools import get_chunk

    # The same mail saved with CRLF lines (a mail client, a download on Windows): the
    # lean view dropped its message into the commit's header line.
    crlf = tmp_path / "crlf.patch"
    crlf.write_bytes(mail.read_bytes().replace(b"\n", b"\r\n"))
    want = run_git(repo, "log", "-1", "--format=%B", "feature").stdout
    for patch in (mail, crlf):
        for fmt in ("raw", "lean"):
            text = get_chunk(str(patch), 1, format=fmt, store=store)
            assert "Touch every function" in text and "all of them." in text, (patch, fmt)
        (entry,) = list_commits(str(patch), include_body=True, store=store).commits
        assert entry.body is not None and entry.body + "\n" == want, patch.name
        view = render_lean(patch.read_bytes())
        assert "| The body says why:" in view.text
        assert expand(view.text, view.originals) == patch.read_bytes()


def test_every_changed_symbol_of_a_file_is_listed(repo: Path) -> None:
    store = SessionStore()
    diff = load_git_diff(str(repo), "main..feature", store=store).file_path
    page = list_symbols(diff, "many.py", store=store).to_dict()
    assert page["total"] == 12 and page["symbols_from"] == "outline"
    assert [s["name"] for s in page["symbols"]] == [f"f{i}" for i in range(12)]
    assert page["symbols"][0] == {
        "name": "f0",
        "kind": "function",
        "change": "modified",
        "lines": [1, 2],
    }
    monkey_page = list_symbols(diff, "many.py", offset=10, store=store).to_dict()
    assert [s["name"] for s in monkey_page["symbols"]] == ["f10", "f11"]


def test_the_unknown_revision_hint_offers_the_closest_tags_first(repo: Path) -> None:
    for n, tag in enumerate(["8.4.0", "8.4.1", "8.4.2", "8.5.0"]):
        git(repo, "tag", "-a", "-m", tag, tag, "main")
        for i in range(3):
            git(repo, "tag", f"other-{n}-{i}", "main")
    with pytest.raises(NotARange) as err:
        load_git_diff(str(repo), "v8.4.2..feature", store=SessionStore())
    hint = err.value.suggestion or ""
    assert "closest names: 8.4.2" in hint, hint


def test_the_tools_through_the_stdio_client(repo: Path, server: RunningServer) -> None:
    async def script(call: object) -> None:
        from mcpkit import Caller

        assert isinstance(call, Caller)
        loaded = await call.json(
            "load_git_diff", absolute_repo_path=str(repo), revision_range="main..feature"
        )
        diff = loaded["file_path"]
        opened = await call.json(
            "open_file_version", absolute_file_path=diff, file_path="cli.py", side="old"
        )
        assert Path(opened["path"]).read_bytes() == git_bytes(repo, "show", "main:cli.py")
        found = await call.json("search_code", absolute_file_path=diff, pattern="render")
        total = sum(_grep_counts(repo, "-F", "render", "feature").values())
        assert found.startswith(f"render: {total} in ")
        assert "\nlib.py\n 4: def render(text, width=72): (in diff)\n" in found
        refs = await call.json("find_references", absolute_file_path=diff, symbol="wrap, Pager")
        assert refs.startswith("2 names at new (")
        assert "\nlib.py\n 6: (in diff)\n" in refs  # read in the diff: no text again
        assert '\n 11 Cli.run: return render("x") + wrap("y", 2)\n' in refs
        assert "\nPager: 0 in 0 files\n" in refs
        assert refs.endswith("note: textual and syntax-aware, not a type checker\n")
        words = await call.json("find_references", absolute_file_path=diff, symbol="render")
        assert words.startswith("render: 5 in 2 files at new (")
        assert "; +2 in comments and strings\n" in words.split("\n", 1)[0] + "\n"
        assert "render again" not in words and "Say how" not in words
        commits = await call.json("list_commits", absolute_file_path=diff, include_body=True)
        assert commits.startswith("2 commit(s) of ")
        assert " Touch every function\n" in commits
        assert "\n The body says why:\n all of them.\n" in commits
        assert "\n Touch every function\n" not in commits  # the subject is not repeated
        symbols = await call.json("list_symbols", absolute_file_path=diff, file_path="many.py")
        assert symbols["total"] == 12
        error = await call.error(
            "search_code", absolute_file_path=diff, pattern="(a)\\1", regex=True
        )
        assert "backreference" in error

    server.run(script)  # type: ignore[arg-type]


def test_the_cli_twins(repo: Path) -> None:
    from click.testing import CliRunner

    from diffchunk.cli import main

    runner = CliRunner()
    where = ["main..feature", "--repo", str(repo)]
    shown = runner.invoke(main, ["show", "--path", "cli.py", *where, "--side", "old"])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout_bytes == git_bytes(repo, "show", "main:cli.py")
    found = runner.invoke(main, ["search-code", "-e", "render", *where, "--json"])
    assert found.exit_code == 0, found.output
    total = json.loads(found.stdout)["total"]
    assert total == sum(_grep_counts(repo, "-F", "render", "feature", "--").values())
    text = runner.invoke(main, ["search-code", "-e", "wrap(text", *where]).stdout
    assert "lib.py:6:     return wrap(text.strip(), width)  (in diff)\n" in text
    assert "2 line(s) in 1 file at new" in text
    refs = runner.invoke(main, ["refs", "-s", "wrap", *where]).stdout
    assert 'cli.py:11:         return render("x") + wrap("y", 2)  [Cli.run]' in refs
    assert "not a type checker" in refs
    words = runner.invoke(main, ["refs", "-s", "render", *where]).stdout  # in the docs too
    # md, txt, bin; lib.py's comment and cli.py's docstring
    assert "; +5 in 4 files of other languages; +2 in comments and strings\n" in words
    symbols = runner.invoke(main, ["symbols", "--path", "many.py", *where]).stdout
    assert symbols.splitlines()[0] == "modified  function  f0 1-2"
    missing = runner.invoke(main, ["show", "--path", "nope.py", *where])
    assert missing.exit_code == 1 and "neither in the diff nor in" in missing.output


def test_a_files_references_in_the_diff_are_one_line_of_their_numbers(tmp_path: Path) -> None:
    """The reviewer read them in the diff: their numbers say where, not their text again."""
    repo = init_repo(tmp_path / "repo")
    before = "def helper():\n    return 1\n\n\ndef use():\n    return helper()\n"
    commit(repo, {"app.py": before})
    after = before + "\n\ndef more():\n    a = helper()\n    b = helper()\n    return a + b\n"
    commit(repo, {"app.py": after})
    store = SessionStore()
    diff = load_git_diff(str(repo), "HEAD~1..HEAD", store=store).file_path
    text = render_searches(find_references_each(diff, "helper", store=store), references=True)
    assert "\napp.py\n 6 use: return helper()\n 10, 11: (in diff)\n" in text, text
    assert "more" not in text  # the definition the diff's lines sit in is in the diff
