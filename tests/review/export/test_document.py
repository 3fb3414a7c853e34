"""The export document is checked before any format is rendered, and ``render`` dispatches."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from diffchunk.errors import DiffchunkError, ExportDocumentError, InvalidArgument
from diffchunk.review.export import FORMATS, load_document, render
from tests.support.export_docs import sample_review


@pytest.fixture
def document() -> dict[str, Any]:
    return sample_review().document("all")


def test_every_format_renders_the_sample_review(document: dict[str, Any]) -> None:
    for fmt in FORMATS:
        text = render(document, fmt)
        assert text.endswith("\n") and len(text) > 500, fmt


def test_the_json_format_is_the_document_itself(document: dict[str, Any]) -> None:
    assert json.loads(render(document, "json")) == document
    assert json.loads(render(document, " JSON ")) == document


def test_an_unknown_format_is_refused_with_the_valid_ones(document: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument) as err:
        render(document, "pdf")
    assert isinstance(err.value, DiffchunkError)
    for fmt in FORMATS:
        assert fmt in str(err.value)


def _broken(document: dict[str, Any], change: Any) -> dict[str, Any]:
    doc = copy.deepcopy(document)
    change(doc)
    return doc


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.update(format="something-else"), "not a diffchunk review export"),
        (lambda d: d.update(format_version=2), "Upgrade diffchunk"),
        (lambda d: d.update(format_version="1"), "format_version '1'"),
        (lambda d: d.pop("format_version"), "format_version None"),
        (lambda d: d.pop("files"), "needs 'files' as a list"),
        (lambda d: d["review"]["source"].update(kind="svn"), "'kind' 'svn'"),
        (lambda d: d["findings"][0].update(severity="critical"), "'severity' 'critical'"),
        (lambda d: d["findings"][0].update(side="left"), "'side' 'left'"),
        (lambda d: d["findings"][1].update(end_line=None), "both null, or line <= end_line"),
        (lambda d: d["findings"][1].update(line=99, end_line=3), "both null, or line <= end_line"),
        (lambda d: d["findings"][1].update(line=True), "integer >= 1"),
        (lambda d: d["coverage"].update(files=-1), "'files' as an integer"),
        (lambda d: d["files"][0]["hunks"][0].pop("new_start"), "files[0].hunks[0]"),
    ],
)
def test_a_broken_document_is_refused_with_what_is_wrong(
    document: dict[str, Any], change: Any, says: str
) -> None:
    with pytest.raises(ExportDocumentError) as err:
        render(_broken(document, change), "markdown")
    assert says in str(err.value)
    assert "Export the review again" in str(err.value) or "Upgrade" in str(err.value)


def test_a_suggestion_on_the_old_side_is_refused(document: dict[str, Any]) -> None:
    old = next(i for i, f in enumerate(document["findings"]) if f["side"] == "old")
    doc = _broken(document, lambda d: d["findings"][old].update(suggestion="x\n"))
    with pytest.raises(ExportDocumentError, match="only new-side lines"):
        load_document(doc)


def test_not_a_mapping_is_refused() -> None:
    with pytest.raises(ExportDocumentError, match="must be an object"):
        render([], "sarif")  # type: ignore[arg-type]


def test_findings_group_by_file_in_diff_order_with_files_gone_last(
    document: dict[str, Any],
) -> None:
    doc = copy.deepcopy(document)
    gone = dict(doc["findings"][0], id=99, file_path="src/removed since.py", status="outdated")
    doc["findings"].append(gone)
    export = load_document(doc)
    groups = export.by_file()
    paths = [g.path for g in groups]
    order = [f.path for f in export.files]
    assert paths[:-1] == [p for p in order if p in paths]
    assert paths[-1] == "src/removed since.py" and groups[-1].file is None
    assert sum(len(g.findings) for g in groups) == len(doc["findings"])
