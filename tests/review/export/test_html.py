"""The html export: a self-contained, inert page, checked as text and in headless Chromium."""

from __future__ import annotations

import re
import struct
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from diffchunk.review.export import render
from diffchunk.review.export.highlight import lexer_class_for, lexer_for
from diffchunk.review.export.html import CSP, render_html
from diffchunk.review.export.html_diff import DiffRows, Rows
from tests.support import webdriver
from tests.support.export_docs import HOSTILE_MESSAGE, DocumentBuilder, sample_review, uncoloured

needs_chromium = pytest.mark.skipif(
    webdriver.missing() is not None, reason=str(webdriver.missing())
)


@pytest.fixture(scope="module")
def review() -> DocumentBuilder:
    return sample_review()


@pytest.fixture(scope="module")
def page(review: DocumentBuilder) -> str:
    return render(review.document("all"), "html", review.diffs())


def _rows(page: str) -> list[str]:
    return ["<tr" + r for r in page.split("<tr")[1:]]


def _finding_rows(page: str) -> list[tuple[int, str, int, str]]:
    """(finding id, side, end line, the line row before it) for each finding shown inline."""
    out = []
    line_row = ""
    for row in _rows(page):
        m = re.match(
            r"<tr class=f id=finding-(\d+) data-side=(\w+) data-line=\d+ data-end-line=(\d+)>", row
        )
        if m:
            out.append((int(m.group(1)), m.group(2), int(m.group(3)), line_row))
        elif re.match(r"<tr class=[acd]>", row):
            line_row = row
    return out


def test_the_page_is_self_contained_and_inert(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>")
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in page
    assert "default-src 'none'" in CSP and "script-src" not in CSP, "no script source allowed"
    for tag in ("<script", "<link", "<img", "<iframe", "<object", "<embed", "<base", "<form"):
        assert tag not in page.lower(), tag
    # Text is escaped, so every "<" left starts one of the page's own tags.
    tags = re.findall(r"<[A-Za-z][^>]*>", page)
    assert len(tags) > 500
    for tag in tags:
        assert not re.search(r"\s(?:src|srcset|action|formaction|style|on\w+)\s*=", tag, re.I), tag
        assert not re.search(r"(?:https?:)?//", tag.split("content=")[0]), tag
    hrefs = [h for t in tags for h in re.findall(r"href\s*=\s*['\"]?([^'\" >]*)", t, re.I)]
    assert hrefs and all(h.startswith("#") for h in hrefs), [
        h for h in hrefs if not h.startswith("#")
    ]
    style = page.split("<style>")[1].split("</style>")[0]
    assert "url(" not in style and "@import" not in style and "//" not in style


def test_every_piece_of_text_is_escaped(page: str) -> None:
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;window.pwned=1;document.title=&#x27;pwned&#x27;&lt;/script&gt;" in page
    assert "+&lt;script&gt;alert(1)&lt;/script&gt;" in page, "the diff's own line"
    assert (
        "<code>docs/guide with spaces.md</code>" in page
        and "<code>src/café/naïve.py</code>" in page
    )


def test_findings_sit_under_the_rows_of_their_last_lines(
    review: DocumentBuilder, page: str
) -> None:
    placed = _finding_rows(page)
    for fid, side, end, row in placed:
        cells = row.split("<td>")
        number = cells[1] if side == "old" else cells[2]
        assert number == str(end), (fid, side, end, row)
    inline = {
        f["id"]
        for f in review.document("all")["findings"]
        if f["line"] is not None
        and f["status"] != "outdated"
        and f["file_path"] != "assets/logo.png"
    }
    assert {fid for fid, *_ in placed} == inline
    assert len(placed) == len(inline), "each finding once"


def test_findings_not_on_a_line_head_their_file(page: str) -> None:
    app = page.split("<details class=file id=file-6")[1].split("</details>")[0]
    table = app.index("<table class=diff>")
    for fid in (6, 7):  # whole file, outdated
        assert app.index(f"id=finding-{fid}>") < table
    assert "<span class=status>outdated</span>" in app
    assert "20 │ def with_tax(amount):" in app, "the outdated finding shows its old lines"
    logo = page.split("<details class=file id=file-1")[1].split("</details>")[0]
    assert (
        "id=finding-15>" in logo
        and "Binary files a/assets/logo.png and b/assets/logo.png differ" in logo
    )


def test_files_without_findings_are_folded(page: str) -> None:
    assert "<details class=file id=file-0><summary><code>README.md</code>" in page
    assert "<details class=file id=file-6 open>" in page
    assert (
        "<span class='state state-excluded'>excluded</span> <span class=note>generated</span>"
        in page
    )


def test_severities_carry_their_names_not_colour_alone(page: str) -> None:
    for severity in ("blocker", "major", "minor", "nit", "question"):
        assert f"<span class='sev sev-{severity}'>{severity.upper()}</span>" in page


def test_without_diffs_each_finding_shows_its_lines(review: DocumentBuilder) -> None:
    page = render(review.document("all"), "html")
    assert "<table class=diff>" not in page and "exported without the diff text" in page
    assert '33 │     password = os.environ.get("SHOP_PASSWORD", "hunter2")' in page
    assert "id=file-0" not in page, "files without findings have nothing to show"
    assert all(f"id=finding-{i}>" in page for i in range(1, 18))


def test_diff_lines_are_coloured_as_the_review_page_colours_them(
    review: DocumentBuilder, page: str
) -> None:
    # Python by the file's name: Pygments' classes, as the page's highlight.css names them.
    app = page.split("<summary><code>src/app.py</code>")[1].split("</details>")[0]
    assert "<span class=k>def</span> <span class=nf>with_tax</span><span class=p>(</span>" in app
    assert "<span class=kn>import</span> <span class=nn>json</span>" in app
    # The words a changed line changed, on both sides.
    assert "-A small shop.<tr class=a><td><td>3<td>+A small shop<span class=chg>, with" in page
    assert "<span class='kc chg'>None</span>" in page
    # Coloured through the style sheet, on spans only (the rows' classes c, d, m, x are
    # Pygments' too).
    style = page.split("<style>")[1].split("</style>")[0]
    assert "table.diff span.k{" in style and "table.diff tr.a span.chg{" in style
    assert not re.search(r"^table\.diff \.", style, re.M)
    # What a reader reads is the text of the page without colours.
    plain = render_html(review.document("all"), review.diffs(), colours=0)
    assert "<span class=k>" not in plain and "Syntax colours" not in plain
    assert uncoloured(page) == uncoloured(plain)


def test_colours_stop_at_the_pages_budget_and_the_page_says_so(review: DocumentBuilder) -> None:
    page = render_html(review.document("all"), review.diffs(), colours=200)
    sections = page.split("<details class=file")[1:]
    assert "<span class=gh># Shop</span>" in sections[0]  # README.md: the first hunk
    assert "<span class=k>" not in page.split("<summary><code>lib/util.py</code>")[1]
    assert "Syntax colours and word marks stop at the first hunk past the page's 200 " in page
    assert uncoloured(page).replace(_FOOTNOTE_200, "") == uncoloured(
        render_html(review.document("all"), review.diffs(), colours=0)
    )


_FOOTNOTE_200 = (
    " Syntax colours and word marks stop at the first hunk past the page's 200 characters "
    "of them; the hunks after it are plain."
)


def test_the_lexer_of_a_name_is_the_one_pygments_chooses() -> None:
    from pygments.lexers import find_lexer_class_for_filename
    from pygments.lexers._mapping import LEXERS

    # A name for each of Pygments' patterns, and names that match several or none.
    names = {"README", "noext", "a.txt", "x.d.ts", "y.tar.gz", "foo.PY", ".bash_profile"}
    names |= {"Makefile.am", "CMakeLists.txt", "a.b.py", "x.h", "setup.cfg", ".py"}
    for _, _, _, globs, _ in LEXERS.values():
        for glob in globs:
            name = glob.replace("*", "x").replace("?", "q")
            names.add(re.sub(r"\[(.)[^\]]*\]", r"\1", name))
    assert len(names) > 800
    for name in sorted(names):
        assert lexer_class_for(f"some/dir/{name}") is find_lexer_class_for_filename(name), name
    # The lexer given for a name is one of that class (making one of every class would
    # compile all of Pygments' patterns: 5 s of CPU).
    for name in ("README", "x.d.ts", "foo.PY", "Makefile.am", "a.b.py", "noext"):
        found, cls = lexer_for(name), lexer_class_for(name)
        assert (type(found) if found is not None else None) is cls, name


def test_a_file_with_a_finding_has_its_rows_made_once_and_shown_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file of 5,000 added lines with one finding on line 2,500: one walk of its rows
    (two were made, the first to learn which findings its rows take), each line in one
    row, the finding under its line."""
    lines = 5000
    body = "".join(f"+line {n} of the file\n" for n in range(1, lines + 1))
    diff = (
        "diff --git a/big.txt b/big.txt\nnew file mode 100644\nindex 0000000..1111111\n"
        f"--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,{lines} @@\n{body}"
    ).encode()
    review = DocumentBuilder(diff)
    review.finding("big.txt", "major", "the middle line", line=2500)
    walks = []
    made = DiffRows.render

    def counted(self: DiffRows, text: str, out: Rows) -> None:
        walks.append(len(text))
        made(self, text, out)

    monkeypatch.setattr(DiffRows, "render", counted)
    page = render_html(review.document("all"), review.diffs(), colours=0)
    assert len(walks) == 1, walks
    shown = re.findall(r"<tr class=a><td><td>(\d+)<td>\+line (\d+) of the file", page)
    assert [int(n) for n, _ in shown] == list(range(1, lines + 1))
    assert all(n == m for n, m in shown)
    assert [(f, end) for f, _, end, _ in _finding_rows(page)] == [(1, 2500)]
    assert "Findings not on a line" not in page


def test_control_characters_are_shown_not_dropped() -> None:
    diff = b"diff --git a/w.txt b/w.txt\n--- a/w.txt\n+++ b/w.txt\n@@ -1 +1 @@\n-a\r\n+b\x07\tc\r\n"
    b = DocumentBuilder(diff)
    b.finding("w.txt", "nit", "bell", line=1)
    page = render(b.document(), "html", b.diffs())
    assert "<tr class=d><td>1<td><td>-a\u240d" in page
    assert "<tr class=a><td><td>1<td>+b\u2407\tc\u240d" in page


def test_rows_of_odd_hunks_number_what_they_can_and_drop_nothing() -> None:
    text = (
        "diff --git a/x b/x\n--- a/x\n+++ b/x\n"
        "@@ -1,3 +1,3 @@ f()\n a\n-b\n+B\n\\ No newline at end of file\n"  # a note inside
        "@@ -10,4 +10,4 @@\n ten\n"  # cut short by hand: the next header follows
        "@@ -20 +20,2 @@\n twenty\n+added\n"
        "@@@ -1,2 -1,2 +1,2 @@@\n  c\n -d\n+ e\n"  # combined: shown, not numbered
    )
    rows = DiffRows({21: [(7, "<tr class=f id=finding-7>")]}, {})
    out: list[str] = []
    rows.render(text, out)
    assert out == [
        "<tr class=h><td><td><td>@@ -1,3 +1,3 @@ f()",
        "<tr class=c><td>1<td>1<td> a",
        "<tr class=d><td>2<td><td>-b",
        "<tr class=a><td><td>2<td>+B",
        "<tr class=e><td><td><td>\\ No newline at end of file",
        "<tr class=h><td><td><td>@@ -10,4 +10,4 @@",
        "<tr class=c><td>10<td>10<td> ten",
        "<tr class=h><td><td><td>@@ -20 +20,2 @@",
        "<tr class=c><td>20<td>20<td> twenty",
        "<tr class=a><td><td>21<td>+added",
        "<tr class=f id=finding-7>",
        "<tr class=h><td><td><td>@@@ -1,2 -1,2 +1,2 @@@",
        "<tr class=x><td><td><td>  c",
        "<tr class=x><td><td><td> -d",
        "<tr class=x><td><td><td>+ e",
    ]
    assert rows.placed == [7]


class _Node:
    def __init__(self, tag: str, attrs: dict[str, str], parent: _Node | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[_Node] = []
        self.text: list[str] = []

    def all(self) -> list[_Node]:
        out = [self]
        for c in self.children:
            out += c.all()
        return out

    def content(self) -> str:
        return "".join(self.text) + "".join(c.content() for c in self.children)


class _Tree(HTMLParser):
    """The DOM Chromium serialised (every element closed), as a tree."""

    VOID = frozenset(
        {"meta", "br", "img", "hr", "input", "link", "wbr", "col", "area", "base", "source"}
    )

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("#root", {}, None)
        self._at = self.root
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = _Node(tag, {k: v or "" for k, v in attrs}, self._at)
        self._at.children.append(node)
        if tag not in self.VOID:
            self._at = node

    def handle_endtag(self, tag: str) -> None:
        node: _Node | None = self._at
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self._at = node.parent

    def handle_data(self, data: str) -> None:
        self._at.text.append(data)


def _dom(driver: Any, tmp_path: Path, page: str, name: str = "review.html") -> _Tree:
    path = tmp_path / name
    path.write_text(page, encoding="utf-8")
    return _Tree(webdriver.dump_dom(driver, path))


@needs_chromium
def test_chromium_renders_the_page_with_findings_under_their_lines(
    shared_browser: Any, tmp_path: Path, review: DocumentBuilder, page: str
) -> None:
    tree = _dom(shared_browser, tmp_path, page)
    nodes = tree.root.all()
    title = next(n for n in nodes if n.tag == "title")
    assert title.content() == "Review of main..feature", "no script changed the title"
    body = next(n for n in nodes if n.tag == "body")
    assert "data-pwned" not in body.attrs
    assert not [n for n in nodes if n.tag in ("script", "img", "iframe", "object")]
    findings = [n for n in nodes if n.tag == "tr" and "f" in n.attrs.get("class", "").split()]
    assert len(findings) == len(_finding_rows(page)) > 5
    for row in findings:
        siblings = row.parent.children  # type: ignore[union-attr]
        before = siblings[: siblings.index(row)]
        line_rows = [s for s in before if s.attrs.get("class") in ("a", "d", "c")]
        cells = [c for c in line_rows[-1].children if c.tag == "td"]
        number = cells[0 if row.attrs["data-side"] == "old" else 1].content()
        assert number == row.attrs["data-end-line"], (row.attrs, number)
        between = before[before.index(line_rows[-1]) + 1 :]
        assert all(s.attrs.get("class") == "f" for s in between), "only findings between"
    hostile = next(n for n in findings if n.attrs["id"] == "finding-8")
    assert HOSTILE_MESSAGE.strip().split("\n")[0] in hostile.content()


@needs_chromium
def test_the_check_would_catch_markup_that_ran(
    shared_browser: Any, tmp_path: Path, page: str
) -> None:
    """Proof that the test above can fail: the same payload, unescaped and without the CSP, runs."""
    escaped = "&lt;script&gt;window.pwned=1;document.title=&#x27;pwned&#x27;&lt;/script&gt;"
    assert escaped in page
    raw = "<script>window.pwned=1;document.title='pwned'</script>"
    policy = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
    broken = page.replace(escaped, raw, 1).replace(policy, "")
    tree = _dom(shared_browser, tmp_path, broken, "broken.html")
    title = next(n for n in tree.root.all() if n.tag == "title")
    assert title.content() == "pwned"
    # and the page's own policy stops it even where such markup got in
    kept = page.replace(escaped, raw, 1)
    tree = _dom(shared_browser, tmp_path, kept, "kept.html")
    title = next(n for n in tree.root.all() if n.tag == "title")
    assert title.content() == "Review of main..feature"


@needs_chromium
def test_a_screenshot_is_produced(shared_browser: Any, tmp_path: Path, page: str) -> None:
    html_path = tmp_path / "review.html"
    html_path.write_text(page, encoding="utf-8")
    png = webdriver.screenshot(shared_browser, html_path, tmp_path / "review.png", 1280, 2000)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 2000)
    assert len(data) > 50_000, "a blank page compresses to a few kilobytes"
