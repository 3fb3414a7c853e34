"""Excluded files are summarised beside the chunks and paged on request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diffchunk.review.sessions.excluded import LISTED_CHARS
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools


def _section(path: str) -> str:
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        "@@ -0,0 +1 @@\n+x = 1\n"
    )


@pytest.fixture()
def vendored(tmp_path: Path) -> Path:
    """Two source files, 600 vendored files with long names, 30 lockfiles and minified code."""
    names = [f"src/app{i}.py" for i in range(2)]
    names += [
        f"vendor/github.com/some-org/some-long-package-name-{i:04d}/lib.go" for i in range(400)
    ]
    names += [f"third_party/node_modules/pkg{i}/index.js" for i in range(200)]
    names += [f"services/s{i}/package-lock.json" for i in range(30)]
    names += ["web/app.min.js"]
    path = tmp_path / "vendored.diff"
    path.write_text("".join(_section(n) for n in names))
    return path


def test_a_page_summarises_the_excluded_files_instead_of_listing_them_all(vendored: Path) -> None:
    store = SessionStore()
    listing = diff_tools.list_chunks(str(vendored), store=store).to_dict()
    text = json.dumps(listing)
    assert listing["total_chunks"] == 1 and len(text) < 5_000  # was 40k+: every path listed
    summary = listing["excluded_summary"]
    assert summary["total"] == 631
    assert summary["by_reason"] == {"vendored": 600, "generated": 31}
    assert summary["by_dir"] == {"vendor": 400, "third_party": 200, "services": 30, "web": 1}
    assert listing["excluded_total"] == 631 and listing["excluded_truncated"] is True
    assert 0 < len(listing["excluded"]) < 631
    assert len(json.dumps(listing["excluded"])) <= LISTED_CHARS
    loaded = diff_tools.load_diff(str(vendored), store=store).to_dict()
    assert loaded["excluded_summary"] == summary
    assert len(json.dumps(loaded["excluded"])) <= LISTED_CHARS
    assert len(loaded["excluded"]) + loaded["excluded_more"] == 631


def test_excluded_true_pages_every_excluded_file(vendored: Path) -> None:
    store = SessionStore()
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = diff_tools.list_excluded(str(vendored), offset, limit=250, store=store).to_dict()
        assert page["excluded_total"] == 631 and len(page["excluded"]) <= 250
        seen.extend(e["path"] for e in page["excluded"])
        offset = page.get("next_offset")
    assert len(seen) == len(set(seen)) == 631
    assert seen[0].startswith("vendor/") and seen[-1] == "web/app.min.js"
    full = diff_tools.list_chunks(str(vendored), store=store, max_tokens=None).to_dict()
    assert [e["path"] for e in full["excluded"]] == seen  # the CLI's --json lists them all


def test_a_few_excluded_files_are_still_listed_whole(tmp_path: Path) -> None:
    path = tmp_path / "few.diff"
    path.write_text(_section("src/a.py") + _section("yarn.lock"))
    listing = diff_tools.list_chunks(str(path), store=SessionStore()).to_dict()
    assert listing["excluded"] == [
        {"path": "yarn.lock", "reason": "generated", "detail": "lockfile"}
    ]
    assert "excluded_total" not in listing
    assert listing["excluded_summary"] == {
        "total": 1,
        "by_reason": {"generated": 1},
        "by_dir": {".": 1},
    }
