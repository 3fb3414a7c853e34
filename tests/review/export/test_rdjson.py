"""The rdjson export is valid against reviewdog's published schema and maps findings as its reporters expect."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest
from test_data import DATA

from diffchunk.review.export import render
from tests.support.export_docs import sample_review

SCHEMA = json.loads((DATA / "schemas" / "reviewdog-DiagnosticResult.json").read_text())
VALIDATOR = jsonschema.validators.validator_for(SCHEMA)(SCHEMA)


def _rdjson(status: str = "all") -> dict[str, Any]:
    return json.loads(render(sample_review().document(status), "rdjson"))


def _message_of(result: dict[str, Any], text: str) -> dict[str, Any]:
    return next(d for d in result["diagnostics"] if text in d["message"])


def test_the_validator_is_the_schemas_own_draft() -> None:
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    assert isinstance(VALIDATOR, jsonschema.Draft4Validator)


@pytest.mark.parametrize("status", ["open", "all"])
def test_the_export_is_a_valid_diagnostic_result(status: str) -> None:
    errors = list(VALIDATOR.iter_errors(_rdjson(status)))
    assert errors == [], [e.message for e in errors]


@pytest.mark.parametrize(
    "break_it",
    [
        lambda r: r["diagnostics"][0].update(severity="CRITICAL"),
        lambda r: r["diagnostics"][1]["location"]["range"]["start"].update(line="5"),
        lambda r: r.update(diagnostics={"not": "a list"}),
        lambda r: r["diagnostics"][2].update(message=["not", "text"]),
    ],
)
def test_validation_really_runs_a_broken_result_fails(break_it: Any) -> None:
    result = copy.deepcopy(_rdjson())
    break_it(result)
    assert list(VALIDATOR.iter_errors(result)), "the schema accepted a broken result"


def test_severities_map_to_reviewdogs_levels() -> None:
    expected = {
        "blocker": "ERROR",
        "major": "ERROR",
        "minor": "WARNING",
        "nit": "INFO",
        "question": "INFO",
    }
    diagnostics = _rdjson("open")["diagnostics"]
    assert {d["code"]["value"] for d in diagnostics} == set(expected)
    for d in diagnostics:
        assert d["severity"] == expected[d["code"]["value"]]
        assert d["source"] == {"name": "diffchunk"}


def test_new_side_findings_carry_their_line_range_and_suggestions() -> None:
    result = _rdjson()
    blocker = _message_of(result, "A password default")
    assert blocker["location"] == {
        "path": "src/app.py",
        "range": {"start": {"line": 33}, "end": {"line": 34}},
    }
    assert blocker["suggestions"] == [
        {
            "range": {"start": {"line": 33}, "end": {"line": 34}},
            "text": '    password = os.environ["SHOP_PASSWORD"]\n'
            '    return {"id": order["id"], "total": total(order["items"])}',
        }
    ]
    accented = _message_of(result, "Use an f-string")
    assert accented["location"]["path"] == "src/café/naïve.py"
    assert accented["suggestions"][0]["text"] == '    return f"Bonjour, {name} !"'


def test_old_side_whole_file_and_outdated_findings_point_at_the_file() -> None:
    result = _rdjson()
    old = _message_of(result, "Keep raising")
    assert old["location"] == {"path": "lib/util.py"}
    assert old["message"].startswith("(old lines 13–14 of lib/helpers.py) ")
    whole = _message_of(result, "mixes I/O")
    assert whole["location"] == {"path": "src/app.py"} and whole["message"].startswith(
        "(whole file) "
    )
    outdated = _message_of(result, "cents drift")
    assert outdated["location"] == {"path": "src/app.py"}
    assert "outdated" in outdated["message"] and "suggestions" not in outdated


def test_one_empty_line_as_a_suggestion_is_said_with_columns() -> None:
    b = sample_review()
    b.finding("src/app.py", "nit", "Blank these.", line=33, end_line=34, suggestion="\n")
    b.finding("src/app.py", "nit", "Drop these.", line=33, end_line=34, suggestion="")
    result = json.loads(render(b.document(), "rdjson"))
    blank = _message_of(result, "Blank these")["suggestions"][0]
    assert blank == {
        "range": {"start": {"line": 33, "column": 1}, "end": {"line": 35, "column": 1}},
        "text": "\n",
    }
    drop = _message_of(result, "Drop these")["suggestions"][0]
    assert drop == {"range": {"start": {"line": 33}, "end": {"line": 34}}, "text": ""}
    assert list(VALIDATOR.iter_errors(result)) == []


def test_the_review_source_rides_along_under_a_key_reviewdog_ignores() -> None:
    review = _rdjson()["review"]
    assert review["source"]["range"] == "main..feature"
    assert review["source"]["head"] == "95e51ccdb6c5afd6512d6465ae6bc48a6360cf12"
    assert review["coverage"]["excluded_by_reason"] == {"generated": 1}
    assert "review" not in SCHEMA["definitions"]["DiagnosticResult"]["properties"]
    assert SCHEMA["definitions"]["DiagnosticResult"]["additionalProperties"] is True
