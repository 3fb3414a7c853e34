"""The markdown export, read back by GitHub's own Markdown renderer (cmark-gfm).

Raw HTML is let through by that renderer here (``UNSAFE``), so any tag in its
output that Markdown itself does not make would have come from a message.
"""

from __future__ import annotations

import html
import re
from typing import Any

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from diffchunk.review.export import render
from diffchunk.review.export.markdown import code_block, code_span, message_markdown
from tests.support.export_docs import HOSTILE_MESSAGE, SAMPLE_DIFF, DocumentBuilder, sample_review

#: Tags that Markdown constructs make (cmark-gfm's renderer); anything else is raw HTML.
MARKDOWN_TAGS = {
    *("p", "code", "pre", "em", "strong", "del", "ul", "ol", "li", "blockquote", "hr", "br"),
    *("h1", "h2", "h3", "h4", "h5", "h6", "a", "table", "thead", "tbody", "tr", "th", "td"),
}
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)")


def to_html(markdown: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def raw_tags(rendered: str) -> set[str]:
    return {m.group(2).lower() for m in _TAG.finditer(rendered)} - MARKDOWN_TAGS


@pytest.fixture(scope="module")
def sample() -> str:
    return render(sample_review().document("all"), "markdown")


def test_the_summary_says_what_was_reviewed(sample: str) -> None:
    head = sample.split("## Findings by file")[0]
    assert head.startswith("# Review of `main..feature`\n")
    for fact in (
        "- **Repository:** `/home/dana/src/shop`",
        "- **Range:** `main..feature`",
        "- **Base commit:** `f65ee60518f66efeffee1944777e4107748989f3`",
        "- **Head commit:** `95e51ccdb6c5afd6512d6465ae6bc48a6360cf12`",
        "| 8 | 2 | 1 | 3 | 1 | 1 |",
        "Excluded from review: 1 generated.",
        "| 1 | 2 | 4 | 4 | 3 |",
        "1 resolved, 1 dismissed, 1 outdated",
    ):
        assert fact in head, fact


def test_a_diff_file_review_names_the_file_and_its_hash() -> None:
    b = DocumentBuilder(
        SAMPLE_DIFF.read_bytes(),
        source={"kind": "file", "diff_file": "/x/my changes.diff", "sha256": "e" * 64},
    )
    text = render(b.document(), "markdown")
    assert text.startswith("# Review of `my changes.diff`\n")
    assert "- **Diff file:** `/x/my changes.diff`" in text
    assert f"- **Diff file SHA-256:** `{'e' * 64}`" in text
    assert "No findings are listed in this export." in text


def test_findings_are_grouped_by_file_in_diff_order(sample: str) -> None:
    headings = re.findall(r"^### (.*)$", sample, re.M)
    assert headings == [
        "`assets/logo.png`",
        "`docs/guide with spaces.md`",
        "`lib/util.py`",
        "`old/legacy.py`",
        "`src/app.py`",
        "`src/café/naïve.py`",
    ]
    app = sample.split("### `src/app.py`")[1].split("### ")[0]
    order = re.findall(r"finding #(\d+)", app)
    assert order == ["6", "16", "5", "4", "7", "2", "1", "3"], (
        "whole file, new side by line, old side"
    )


def test_githubs_renderer_reads_every_finding_as_its_own_block(sample: str) -> None:
    rendered = to_html(sample)
    assert raw_tags(rendered) == set(), "a message or a line became HTML"
    headers = re.findall(r"<p><strong>(BLOCKER|MAJOR|MINOR|NIT|QUESTION)</strong> · ", rendered)
    assert len(headers) == 17, "a fence in a message swallowed what follows"
    assert rendered.count('<pre lang="suggestion">') == 4
    assert "<h2>Files not reviewed yet (5)</h2>" in rendered


def test_lines_and_suggestions_come_back_byte_for_byte(sample: str) -> None:
    rendered = to_html(sample)
    blocks = [
        html.unescape(b)
        for b in re.findall(r'<pre lang="markdown"><code>(.*?)</code></pre>', rendered, re.S)
    ]
    assert (
        "Run `make <target>` & pick one: a | b | *c*\n<script>alert(1)</script>\n```\nfenced ``` inside\n```\n"
        in blocks
    )
    suggestions = [
        html.unescape(b)
        for b in re.findall(r'<pre lang="suggestion"><code>(.*?)</code></pre>', rendered, re.S)
    ]
    assert (
        '    password = os.environ["SHOP_PASSWORD"]\n    return {"id": order["id"], "total": total(order["items"])}\n'
        in suggestions
    )
    assert "````markdown\n" in sample, "the fence is longer than the ``` inside the lines"


def test_a_hostile_message_shows_as_text_and_keeps_its_markdown(sample: str) -> None:
    rendered = to_html(sample)
    para = rendered.split("finding #8")[1].split("Lines:")[0]
    assert "&lt;script&gt;window.pwned=1" in para and "&lt;img src=x onerror=" in para
    assert "<strong>bold</strong>" in para and "<code>a|b</code>" in para
    assert "&amp;amp;" in para, "the entity is shown as typed"
    # A message with a table pipe is read conservatively: its open fence is text, not code.
    assert "```\n&lt;script&gt;alert(1)&lt;/script&gt;</p>" in para and "<pre>" not in para
    assert HOSTILE_MESSAGE.split("\n")[0][:20] in html.unescape(para)


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        (
            "Use `Vec<T>` & `a<b`, not <T>.",
            "<code>Vec&lt;T&gt;</code> &amp; <code>a&lt;b</code>, not &lt;T&gt;.",
        ),
        ("Keep:\n```cpp\nif (a < b && c) {}\n```\nthen <b>", "if (a &lt; b &amp;&amp; c) {}"),
        ("Escaped \\`<b>` stays text", "Escaped `&lt;b&gt;` stays text"),
        ("A span `across\nlines <x>` here", "<code>across lines &lt;x&gt;</code>"),
        ("- a list with `<T>`\n- and <b>", "<li>a list with <code>&amp;lt;T&gt;</code></li>"),
        ("- list\n```\n<script>x</script>", "\\```"),
        ("Sum: `a|b` <c>", "<code>a|b</code> &lt;c&gt;"),
        # GitHub links a bare URL on over the backtick: the span is escaped as text.
        ("x<http://a>`<img src=x onerror=alert(1)>`", "`&lt;img src=x onerror=alert(1)>`"),
        ("see www.a.org`<i>x</i>`", "`&lt;i>x&lt;/i>`"),
        ("a url http://a.org then `<T>`", "<code>&lt;T&gt;</code>"),
        # An escaped < after a bare URL: the link takes the backslash, the < stays text.
        ("http://a\\<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)>"),
    ],
)
def test_message_rules(message: str, shown: str) -> None:
    out = message_markdown(message)
    rendered = to_html(out + "\n\nNEXT\n")
    assert raw_tags(rendered) == set()
    assert shown in rendered or shown in out
    assert rendered.rstrip().endswith("<p>NEXT</p>")


_PIECES = st.sampled_from(
    [
        *(
            "<script>",
            "</script>",
            "<img src=x onerror=alert(1)>",
            "<b>",
            "<!--",
            "-->",
            "<?x",
            "<![CDATA[",
        ),
        *(
            "`",
            "``",
            "```",
            "~~~",
            "\\",
            "&",
            "&amp;",
            "&#60;",
            "|",
            "- ",
            "* ",
            "1. ",
            "2) ",
            "> ",
        ),
        *("# ", "---", "===", "    ", "   ", "  ", "\t", "[a]: /u '", "'", "<http://a>", "[^1]: x"),
        *("http://a", "www.a.b", "https://a/b?c"),
        *("\n", "\n", "\n\n", "x", "word ", "*em*", "_u_", "\r", "\r\n"),
    ]
)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(_PIECES, max_size=24).map("".join))
def test_no_message_becomes_html_or_swallows_what_follows(message: str) -> None:
    rendered = to_html("**HEAD**\n\n" + message_markdown(message) + "\n\nSENTINEL-AFTER\n")
    assert raw_tags(rendered) == set(), rendered
    assert "<p>SENTINEL-AFTER</p>" in rendered, rendered


def test_code_spans_and_blocks_hold_any_backticks() -> None:
    for text in ("plain", "a`b", "``x``", "`start", "end`", " spaced "):
        rendered = to_html(code_span(text))
        assert html.unescape(re.search(r"<code>(.*?)</code>", rendered, re.S).group(1)) == text  # type: ignore[union-attr]
    block = code_block("````\n```\n", "py")
    assert block.startswith("`````py\n")
    assert (
        html.unescape(re.search(r"<code>(.*?)</code>", to_html(block), re.S).group(1))
        == "````\n```\n"
    )  # type: ignore[union-attr]


def test_an_empty_suggestion_removes_the_lines(sample: Any) -> None:
    b = sample_review()
    b.finding("src/app.py", "nit", "Remove.", line=33, end_line=34, suggestion="")
    text = render(b.document(), "markdown")
    assert "Suggested change:\n\n```suggestion\n```\n" in text


def test_a_hostile_reply_shows_as_text_inside_its_quote() -> None:
    b = sample_review()
    finding = b.finding("src/app.py", "major", "First word.", line=33)
    finding["thread"] = [
        {"author": "Mallory", "body": HOSTILE_MESSAGE, "at": "2026-11-25T11:58:00Z"},
        {"author": "Sam", "body": "Keep `Vec<T>` & <b>this</b>.", "at": "2026-11-25T11:59:00Z"},
    ]
    rendered = to_html(render(b.document(), "markdown"))
    assert raw_tags(rendered) == set(), rendered
    assert "&lt;script&gt;window.pwned=1" in rendered
    assert "<code>Vec&lt;T&gt;</code> &amp; &lt;b&gt;this&lt;/b&gt;." in rendered
    assert "<h2>Files not reviewed yet" in rendered, "the open fence stays inside its quote"
