"""The SARIF export is valid against the official SARIF 2.1.0 schema and means what it says."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest
from test_data import DATA

from diffchunk import __version__
from diffchunk.review.export import render
from tests.support.export_docs import SAMPLE_DIFF, DocumentBuilder, git_source, sample_review

SCHEMAS = DATA / "schemas"


def _validator(name: str) -> jsonschema.protocols.Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


#: The OASIS standard's schema (SARIF 2.1.0 with Errata 01), in its own draft (draft-04).
VALIDATORS = {"sarif-2.1.0-errata01": _validator("sarif-schema-2.1.0.json")}


def _sarif(status: str = "all", **kw: Any) -> dict[str, Any]:
    return json.loads(render(sample_review(**kw).document(status), "sarif"))


def _by_id(log: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {r["properties"]["findingId"]: r for r in log["runs"][0]["results"]}


def test_the_validator_is_the_schemas_own_draft() -> None:
    assert type(VALIDATORS["sarif-2.1.0-errata01"]).__name__ == "Draft4Validator"


@pytest.mark.parametrize("name", VALIDATORS)
def test_the_export_is_valid_sarif(name: str) -> None:
    validator = VALIDATORS[name]
    for status in ("open", "all"):
        errors = list(validator.iter_errors(_sarif(status)))
        assert errors == [], [e.message for e in errors]
    file_review = DocumentBuilder(SAMPLE_DIFF.read_bytes())  # a diff-file source, no findings
    assert list(validator.iter_errors(json.loads(render(file_review.document(), "sarif")))) == []


@pytest.mark.parametrize(
    "break_it",
    [
        lambda log: log.update(version="2.0.0"),
        lambda log: log["runs"][0]["results"][0].update(level="fatal"),
        lambda log: log["runs"][0]["results"][1]["locations"][0]["physicalLocation"][
            "region"
        ].update(startLine=0),
        lambda log: log["runs"][0]["tool"]["driver"].pop("name"),
        lambda log: log["runs"][0].update(unknown=1),
    ],
)
@pytest.mark.parametrize("name", VALIDATORS)
def test_validation_really_runs_a_broken_log_fails(name: str, break_it: Any) -> None:
    log = copy.deepcopy(_sarif())
    break_it(log)
    assert list(VALIDATORS[name].iter_errors(log)), "the schema accepted a broken log"


def test_one_run_of_diffchunk_with_a_rule_per_severity() -> None:
    log = _sarif()
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    driver = log["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("diffchunk", "0.3.0.dev0")
    assert [r["id"] for r in driver["rules"]] == [
        "diffchunk/blocker",
        "diffchunk/major",
        "diffchunk/minor",
        "diffchunk/nit",
        "diffchunk/question",
    ]
    assert [r["defaultConfiguration"]["level"] for r in driver["rules"]] == [
        "error",
        "error",
        "warning",
        "note",
        "note",
    ]
    assert __version__  # the real exports carry diffchunk.__version__ from the document


def test_levels_follow_severities() -> None:
    expected = {
        "blocker": "error",
        "major": "error",
        "minor": "warning",
        "nit": "note",
        "question": "note",
    }
    for result in _sarif("open")["runs"][0]["results"]:
        severity = result["properties"]["severity"]
        assert result["level"] == expected[severity]
        assert result["ruleId"] == f"diffchunk/{severity}"
        rules = _sarif("open")["runs"][0]["tool"]["driver"]["rules"]
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]


def test_new_side_findings_point_at_their_new_lines_with_a_relative_uri() -> None:
    results = _by_id(_sarif())
    blocker = results[1]
    location = blocker["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/app.py", "uriBaseId": "SRCROOT"}
    assert location["region"]["startLine"] == 33 and location["region"]["endLine"] == 34
    assert "hunter2" in location["region"]["snippet"]["text"]
    spaced = results[8]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert spaced == "docs/guide%20with%20spaces.md"
    accented = results[13]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert accented == "src/caf%C3%A9/na%C3%AFve.py"


def test_old_side_findings_keep_their_old_region_in_properties_not_new_lines() -> None:
    results = _by_id(_sarif())
    for fid, old_path, region in ((3, None, (12, 16)), (10, "lib/helpers.py", (13, 14))):
        result = results[fid]
        location = result["locations"][0]["physicalLocation"]
        assert "region" not in location
        props = result["properties"]
        assert props["side"] == "old"
        assert (props["oldRegion"]["startLine"], props["oldRegion"]["endLine"]) == region
        assert props.get("oldPath") == old_path
        assert f"old lines {region[0]}–{region[1]}" in result["message"]["text"]
    assert "return result" in results[3]["properties"]["lines"]


def test_whole_file_and_outdated_findings_point_at_the_file_only() -> None:
    results = _by_id(_sarif())
    whole = results[6]
    assert "region" not in whole["locations"][0]["physicalLocation"]
    assert whole["properties"]["wholeFile"] is True
    outdated = results[7]
    assert "region" not in outdated["locations"][0]["physicalLocation"]
    assert outdated["properties"]["region"] == {"startLine": 20, "endLine": 21}
    assert outdated["message"]["text"].startswith("[major] Outdated")


def test_suggestions_are_fixes_replacing_the_lines() -> None:
    results = _by_id(_sarif())
    fix = results[2]["fixes"][0]["artifactChanges"][0]
    assert fix["artifactLocation"]["uri"] == "src/app.py"
    replacement = fix["replacements"][0]
    assert replacement["deletedRegion"] == {"startLine": 22, "endLine": 23}
    assert (
        replacement["insertedContent"]["text"]
        == "    with open(path) as f:\n        return json.load(f)"
    )
    assert "fixes" not in results[3]


def test_a_suggestion_removing_lines_takes_their_line_ends() -> None:
    b = sample_review()
    b.finding("src/app.py", "nit", "Drop these.", line=33, end_line=34, suggestion="")
    log = json.loads(render(b.document(), "sarif"))
    result = _by_id(log)[len(b.findings)]
    replacement = result["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement["deletedRegion"] == {
        "startLine": 33,
        "startColumn": 1,
        "endLine": 35,
        "endColumn": 1,
    }
    assert replacement["insertedContent"]["text"] == ""
    for validator in VALIDATORS.values():
        assert list(validator.iter_errors(log)) == []


def test_resolved_and_dismissed_findings_say_so() -> None:
    results = _by_id(_sarif())
    assert (results[16]["kind"], results[16]["level"]) == ("pass", "none")
    assert results[17]["suppressions"][0]["status"] == "accepted"
    assert "suppressions" not in results[1] and "kind" not in results[1]


def test_the_review_source_is_carried() -> None:
    run = _sarif()["runs"][0]
    assert "originalUriBaseIds" not in run  # where the repository lies here stays here
    assert run["versionControlProvenance"] == [
        {
            "repositoryUri": "https://github.com/dana/shop.git",
            "revisionId": "95e51ccdb6c5afd6512d6465ae6bc48a6360cf12",
        }
    ]
    props = run["properties"]["diffchunk"]
    assert props["source"]["repository"] == "https://github.com/dana/shop.git"
    assert "/home/dana" not in json.dumps(_sarif())
    assert props["source"]["range"] == "main..feature"
    assert props["revision"]["sha256"] and props["coverage"]["files"] == 8
    assert props["findingsSummary"]["open"]["blocker"] == 1


def test_a_diff_file_source_is_carried_without_a_repository() -> None:
    source = {"kind": "file", "diff_file": "/home/dana/changes.diff", "sha256": "ab" * 32}
    run = _sarif(source=source)["runs"][0]
    assert "versionControlProvenance" not in run and "originalUriBaseIds" not in run
    assert run["properties"]["diffchunk"]["source"]["diff_file"] == "changes.diff"


@pytest.mark.parametrize(
    ("name", "uri"),
    [
        ("git@github.com:dana/shop.git", "ssh://git@github.com/dana/shop.git"),
        ("github.com:dana/shop.git", "ssh://github.com/dana/shop.git"),
        ("shop", None),
        (None, None),
    ],
)
def test_the_repository_is_named_by_its_remote_never_by_a_local_path(
    name: str | None, uri: str | None
) -> None:
    source = {k: v for k, v in git_source().items() if k != "name"}
    if name is not None:
        source["name"] = name
    log = _sarif(source=source)
    run = log["runs"][0]
    if uri is None:
        assert "versionControlProvenance" not in run
    else:
        assert run["versionControlProvenance"][0]["repositoryUri"] == uri
    assert "/home/dana" not in json.dumps(log) and "file:" not in json.dumps(log)


def test_fingerprints_are_stable_and_distinct() -> None:
    first = [r["partialFingerprints"] for r in _sarif()["runs"][0]["results"]]
    again = [r["partialFingerprints"] for r in _sarif()["runs"][0]["results"]]
    assert first == again
    assert len({f["diffchunkFinding/v1"] for f in first}) == len(first)
