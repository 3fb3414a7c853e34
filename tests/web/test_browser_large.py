"""The review page of a large generated diff in a real browser: it opens, draws a bounded
part of its tree, and loads a file only when it is opened.

The bounds are generous (the time a loaded CI machine needs, not a target):
``make bench-web`` prints the page's real times and memory on a million lines.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from webkit import Page, page_server

from tests.property.gen_diff import generate
from tests.support import webdriver

pytestmark = pytest.mark.skipif(webdriver.missing() is not None, reason=str(webdriver.missing()))

LINES = 200_000
OPEN_WITHIN = 90.0  # seconds: navigation until the tree is drawn, on a loaded machine
NODES_AT_MOST = 30_000  # DOM nodes after the first render: a page of rows, never every file


def _wait(driver: Any, script: str, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s: {script}")


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Page, Path]]:
    root = tmp_path_factory.mktemp("weblarge")
    diff = root / "large.diff"
    diff.write_bytes(generate(LINES))
    with page_server(
        str(diff), cwd=root, state=root / "state", cache=root / "cache", timeout=600
    ) as served:
        yield served, diff


def test_a_large_diff_opens_with_a_bounded_page_and_files_loaded_when_opened(
    large: tuple[Page, Path], shared_browser: Any
) -> None:
    page, diff = large
    review = page.request("/api/review")[2].decode()
    files = json.loads(review)["files"]
    assert len(files) > 1_000
    # the review's answer names the files; their diffs stay on the server until opened
    assert len(review) < diff.stat().st_size / 4
    added = [
        line[1:].strip()
        for line in diff.read_text().splitlines()
        if line.startswith("+ ") and len(line) > 20
    ]
    assert added and not any(json.dumps(line)[1:-1] in review for line in added[:100])
    with webdriver.tab(shared_browser) as driver:
        started = time.monotonic()
        driver.get(page.url)
        _wait(driver, "return document.body.dataset.ready", OPEN_WITHIN)
        assert time.monotonic() - started < OPEN_WITHIN
        nodes = driver.execute_script("return document.getElementsByTagName('*').length")
        rows = driver.execute_script("return document.querySelectorAll('.tree-row').length")
        assert nodes < NODES_AT_MOST, f"{nodes} DOM nodes for {len(files)} files"
        assert 0 < rows < len(files)
        path = driver.execute_script(
            "const r = document.querySelector('.tree-row.file'); r.click(); return r.dataset.path"
        )
        _wait(driver, "return document.querySelectorAll('#file-body tr.hunk').length > 0", 60)
        shown = driver.execute_script(
            "return document.querySelector('#file-head .path').textContent"
        )
        assert shown == path
