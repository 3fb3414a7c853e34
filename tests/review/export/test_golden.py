"""Golden files: the sample review in every export format, byte for byte.

The sample (``tests/support/export_docs.py``) has findings of every severity, on
both sides, ranges and single lines, whole-file findings, suggestions, an
outdated, a resolved and a dismissed finding, paths with spaces and non-ASCII
names, a deleted, a renamed and a binary file, and a message and lines full of
Markdown and HTML metacharacters.  After an intended change of output, review
the difference and rewrite the files with ``DIFFCHUNK_UPDATE_GOLDEN=1 pytest
tests/review/export/test_golden.py``.
"""

from __future__ import annotations

import os

import pytest
from test_data import DATA

from diffchunk.review.export import EXTENSIONS, FORMATS, render
from tests.support.export_docs import sample_review

GOLDEN = DATA / "export"
FILE_SOURCE = {
    "kind": "file",
    "diff_file": "/home/dana/reviews/shop feature.diff",
    "sha256": "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
}


def _check(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("DIFFCHUNK_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    expected = path.read_bytes().decode("utf-8")
    assert text == expected, f"{name} differs from its golden file (see this module's docstring)"


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_git_review_in_every_format(fmt: str) -> None:
    review = sample_review()
    text = render(review.document("all"), fmt, review.diffs())
    _check(f"git-review{EXTENSIONS[fmt] if fmt != 'github' else '.github.json'}", text)


@pytest.mark.parametrize("fmt", ["markdown", "github", "sarif"])
def test_the_open_findings_of_a_diff_file_review(fmt: str) -> None:
    review = sample_review(source=FILE_SOURCE)
    text = render(review.document("open"), fmt)
    _check(f"file-review-open{EXTENSIONS[fmt] if fmt != 'github' else '.github.json'}", text)
