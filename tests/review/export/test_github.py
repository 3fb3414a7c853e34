"""The github export is the request body of GitHub's create-review call, field by field."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
from test_data import DATA

from diffchunk.review.export import render
from diffchunk.review.export.github import MAX_BODY
from tests.support.export_docs import DocumentBuilder, sample_review

SCHEMA = json.loads((DATA / "schemas" / "github-pulls-create-review-request.json").read_text())
COMMENT = SCHEMA["properties"]["comments"]["items"]


def _request(builder: DocumentBuilder | None = None, status: str = "all") -> dict[str, Any]:
    builder = builder or sample_review()
    return json.loads(render(builder.document(status), "github"))


def _check_against_githubs_schema(request: dict[str, Any]) -> None:
    """GitHub's published schema, plus what its reference documents in prose."""
    jsonschema.Draft4Validator(SCHEMA).validate(request)
    assert set(request) <= set(SCHEMA["properties"]), set(request) - set(SCHEMA["properties"])
    assert request["event"] in SCHEMA["properties"]["event"]["enum"]
    assert request["body"], "COMMENT requires a body"
    for comment in request["comments"]:
        assert set(comment) <= set(COMMENT["properties"]), set(comment) - set(COMMENT["properties"])
        assert set(COMMENT["required"]) <= set(comment)
        assert "position" not in comment, "line/side, not the deprecated position"
        assert isinstance(comment["line"], int) and comment["line"] >= 1
        assert comment["side"] in ("LEFT", "RIGHT")
        if "start_line" in comment:
            assert comment["start_line"] < comment["line"], "GitHub: start_line precedes line"
            assert comment["start_side"] in ("LEFT", "RIGHT")
        else:
            assert "start_side" not in comment
        assert len(comment["body"]) <= MAX_BODY
    assert len(request["body"]) <= MAX_BODY


@pytest.mark.parametrize("status", ["open", "all"])
def test_the_request_matches_githubs_schema(status: str) -> None:
    _check_against_githubs_schema(_request(status=status))


@pytest.mark.parametrize(
    "break_it",
    [
        lambda r: r.update(event="SHIP_IT"),
        lambda r: r["comments"][0].pop("path"),
        lambda r: r["comments"][0].update(line="9"),
        lambda r: r.update(commit_id=None),
    ],
)
def test_validation_really_runs_a_broken_request_fails(break_it: Any) -> None:
    request = _request()
    break_it(request)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(SCHEMA).validate(request)


def test_head_commit_and_comment_event() -> None:
    request = _request()
    assert request["commit_id"] == "95e51ccdb6c5afd6512d6465ae6bc48a6360cf12"
    assert request["event"] == "COMMENT"


def test_line_comments_carry_path_line_side_and_ranges() -> None:
    comments = {c["body"].split("\n")[0]: c for c in _request()["comments"]}
    blocker = comments["**BLOCKER** · finding #1"]
    assert {k: v for k, v in blocker.items() if k != "body"} == {
        "path": "src/app.py",
        "line": 34,
        "side": "RIGHT",
        "start_line": 33,
        "start_side": "RIGHT",
    }
    assert '```suggestion\n    password = os.environ["SHOP_PASSWORD"]\n' in blocker["body"]
    old = comments["**MINOR** · finding #3"]
    assert (old["path"], old["line"], old["side"], old["start_line"], old["start_side"]) == (
        "src/app.py",
        16,
        "LEFT",
        12,
        "LEFT",
    )
    deleted = comments["**QUESTION** · finding #12"]
    assert (deleted["path"], deleted["side"]) == ("old/legacy.py", "LEFT")
    renamed = comments["**MINOR** · finding #10"]
    assert (renamed["path"], renamed["side"]) == ("lib/util.py", "LEFT")
    single = comments["**NIT** · finding #13"]
    assert single["path"] == "src/café/naïve.py" and "start_line" not in single
    spaced = comments["**MAJOR** · finding #8"]
    assert spaced["path"] == "docs/guide with spaces.md"
    assert "<script>" not in spaced["body"].split("```")[0], "HTML in a message is escaped"


def test_what_github_would_refuse_goes_into_the_body() -> None:
    b = sample_review()
    outside = b.finding("src/app.py", "major", "Outside every hunk.", line=45, lines="x\n")
    request = _request(b)
    commented = {int(c["body"].split("#")[1].split("\n")[0]) for c in request["comments"]}
    body = request["body"]
    not_inline = {
        6: "whole file",
        7: "outdated",
        14: "whole file",
        15: "binary file",
        16: "resolved",
        17: "dismissed",
    }
    for fid in (*not_inline, outside["id"]):
        assert fid not in commented
        assert f"finding #{fid}" in body
    assert "Outside every hunk." in body
    assert len(commented) + len(not_inline) + 1 == len(b.findings)
    _check_against_githubs_schema(request)


def test_the_body_is_the_summary_with_the_review_source() -> None:
    body = _request()["body"]
    assert body.startswith("## Review of `main..feature`")
    assert "`https://github.com/dana/shop.git`" in body
    assert "`95e51ccdb6c5afd6512d6465ae6bc48a6360cf12`" in body
    assert "/home/dana" not in body  # local paths stay local
    assert "| files | reviewed | seen | unseen | changed | excluded |" in body
    assert "| 1 | 2 | 4 | 4 | 3 |" in body


def test_a_review_without_a_head_commit_leaves_commit_id_out_and_says_so() -> None:
    source = {"kind": "file", "diff_file": "/home/dana/changes.diff", "sha256": "cd" * 32}
    request = _request(sample_review(source=source))
    assert "commit_id" not in request
    assert "No commit id" in request["body"] and "`changes.diff`" in request["body"]
    assert "/home/dana" not in request["body"]
    _check_against_githubs_schema(request)


def _unlisted(body: str) -> tuple[int, dict[str, int]]:
    """The count of findings the body could not list, and that count by severity."""
    m = re.search(
        r"\*\*(\d+) more finding\(s\) do not fit in a review body\*\* [^:]*: ([^.]*)\.", body
    )
    assert m, "no count of the findings left out"
    by_severity = {}
    for part in m.group(2).split(", "):
        n, severity = part.split(" ")
        by_severity[severity] = int(n)
    return int(m.group(1)), by_severity


def test_a_body_over_githubs_limit_counts_what_it_cannot_list() -> None:
    b = sample_review()
    for i in range(400):
        b.finding(
            "src/app.py", "minor" if i % 2 else "question", f"Whole-file remark {i}: " + "x" * 300
        )
    request = _request(b)
    body = request["body"]
    assert len(body) <= MAX_BODY
    listed = body.count("\n#### ")
    unlisted, by_severity = _unlisted(body)
    assert listed > 100 and unlisted > 100
    assert listed + unlisted == 400 + 6, "every finding not commented is listed or counted"
    assert sum(by_severity.values()) == unlisted
    assert "`diffchunk export --format markdown` lists all of them." in body
    _check_against_githubs_schema(request)


def test_a_comment_over_the_limit_is_counted_in_the_body() -> None:
    b = sample_review()
    big = b.finding("src/app.py", "nit", "y" * (MAX_BODY + 10), line=13)
    request = _request(b)
    assert all(f"finding #{big['id']}\n" not in c["body"] for c in request["comments"])
    assert f"finding #{big['id']}" not in request["body"]
    assert _unlisted(request["body"]) == (1, {"nit": 1})
    assert request["body"].count("\n#### ") == 6, "the findings after it are still listed"
    _check_against_githubs_schema(request)
