"""``diffchunk web`` as a server: who may use it, what every answer carries, --read-only,
and that its writes are the record's (the real command, a real uvicorn, HTTP requests)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from recordkit import feature_repo, run_cli
from test_data import ROOT
from webkit import Page, page_server

from diffchunk.web.guard import CSP

STATIC = ROOT / "diffchunk" / "web" / "static"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return feature_repo(tmp_path_factory.mktemp("web") / "repo")


@pytest.fixture(scope="module")
def page(repo: Path) -> Iterator[Page]:
    with page_server(
        "main..feature", cwd=repo, state=repo.parent / "state", cache=repo.parent / "cache"
    ) as served:
        yield served


def test_it_listens_on_the_loopback_address_with_a_long_random_token(page: Page) -> None:
    assert page.url.startswith(f"http://127.0.0.1:{page.port}/?token=")
    assert re.fullmatch(r"[A-Za-z0-9_-]{40,}", page.token)
    status, _, body = page.request(f"/?token={page.token}", token=False)
    assert status == 200 and b'name="diffchunk-token"' in body


@pytest.mark.parametrize("path", ["/", "/static/page.js", "/api/review", "/api/version"])
def test_a_request_without_the_token_is_refused(page: Page, path: str) -> None:
    status, headers, body = page.request(path, token=False)
    assert status == 403, body
    assert "token" in json.loads(body)["error"]
    assert headers["Content-Security-Policy"] == CSP


def test_a_wrong_token_is_refused(page: Page) -> None:
    wrong = page.token[:-2] + ("aa" if not page.token.endswith("aa") else "bb")
    assert page.request(f"/?token={wrong}", token=False)[0] == 403
    assert page.request("/api/review", headers={"X-Diffchunk-Token": wrong})[0] == 403


def test_the_api_takes_the_token_from_its_header_only(page: Page) -> None:
    status, _, _ = page.request(f"/api/review?token={page.token}", token=False)
    assert status == 403
    assert page.request("/api/review")[0] == 200


def test_a_write_without_the_header_is_refused_and_writes_nothing(page: Page, repo: Path) -> None:
    body = {"path": "src/b.py", "reviewed": True}
    for status, _, _ in (
        page.request(f"/api/viewed?token={page.token}", body=body, token=False),
        page.request("/api/viewed", body=body, token=False),
    ):
        assert status == 403
    status = _status_of(repo, "src/b.py")
    assert status != "reviewed"


def test_a_write_from_another_origin_or_not_json_is_refused(page: Page) -> None:
    body = {"path": "src/b.py", "reviewed": True}
    assert page.request("/api/viewed", body=body, headers={"Origin": "http://evil.test"})[0] == 403
    status, _, _ = page.request(
        "/api/viewed", body=body, headers={"Content-Type": "text/plain"}, method="POST"
    )
    assert status == 415


def test_another_host_name_is_refused(page: Page) -> None:
    status, _, _ = page.request("/api/review", headers={"Host": f"rebound.test:{page.port}"})
    assert status == 403


def test_every_answer_carries_a_strict_policy(page: Page) -> None:
    for path in (f"/?token={page.token}", f"/static/page.js?token={page.token}", "/api/review"):
        status, headers, _ = page.request(path)
        assert status == 200, path
        assert headers["Content-Security-Policy"] == CSP
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "no-referrer"
        assert headers["Cache-Control"] == "no-store"
        assert "Server" not in headers
    assert "script-src 'self'" in CSP and "unsafe" not in CSP and "default-src 'none'" in CSP


def test_the_page_has_no_inline_script_or_style(page: Page) -> None:
    html = page.request(f"/?token={page.token}")[2].decode()
    assert re.findall(r"<script[^>]*>", html) == [
        f'<script src="/static/page.js?token={page.token}" defer>'
    ]
    assert "<style" not in html and not re.search(r"\sstyle\s*=", html)
    assert not re.search(r"\son[a-z]+\s*=", html), "no event handler attribute"


def test_the_script_builds_no_markup_from_data() -> None:
    script = (STATIC / "page.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script, sink
    assert "new Function" not in script and 'setTimeout("' not in script


def _status_of(repo: Path, path: str) -> str:
    proc = run_cli("status", "main..feature", "--json", cwd=repo, env=_env(repo))
    assert proc.returncode == 0, proc.stderr
    status = json.loads(proc.stdout)
    for chunk in status["chunks"]:
        if path in chunk["files"]:
            return str(chunk["status"])
    raise AssertionError(f"{path} is in no chunk")


def _env(repo: Path) -> dict[str, str]:
    return {
        "DIFFCHUNK_STATE_DIR": str(repo.parent / "state"),
        "DIFFCHUNK_CACHE_DIR": str(repo.parent / "cache"),
    }


def test_viewed_on_the_page_is_the_reviewed_mark_the_cli_reads(page: Page, repo: Path) -> None:
    answer = page.json("/api/viewed", body={"path": "src/b.py", "reviewed": True})
    assert answer["marked"] == ["src/b.py"] and answer["reviewed"] is True
    assert _status_of(repo, "src/b.py") in ("reviewed", "partly")
    tree = page.json("/api/review")
    assert {f[0]: f[6] for f in tree["files"]}["src/b.py"] == "reviewed"
    page.json("/api/viewed", body={"path": "src/b.py", "reviewed": False})
    assert {f[0]: f[6] for f in page.json("/api/review")["files"]}["src/b.py"] != "reviewed"


def test_the_version_changes_when_another_process_writes(page: Page, repo: Path) -> None:
    before = page.json("/api/version")["version"]
    assert page.json("/api/version")["version"] == before, "a read changes nothing"
    proc = run_cli("mark", "main..feature", "--file", "docs/c.md", cwd=repo, env=_env(repo))
    assert proc.returncode == 0, proc.stderr
    after = page.json("/api/version")["version"]
    assert after != before


def test_a_bad_write_is_answered_with_what_to_do(page: Page) -> None:
    status, _, raw = page.request(
        "/api/findings", body={"path": "src/a.py", "line": 100_000, "message": "x"}
    )
    assert status == 400
    error = json.loads(raw)
    assert "past its end" in error["error"] and error["suggestion"]
    status, _, raw = page.request("/api/file?path=nowhere.py")
    assert status == 400 and "nowhere.py" in json.loads(raw)["error"]


def test_read_only_serves_the_page_and_refuses_every_write(repo: Path) -> None:
    with page_server(
        "main..feature",
        "--read-only",
        cwd=repo,
        state=repo.parent / "state",
        cache=repo.parent / "cache",
    ) as served:
        assert served.json("/api/review")["read_only"] is True
        before = served.json("/api/version")["version"]
        assert served.json("/api/file?path=src/a.py")["rows"]
        assert served.json("/api/version")["version"] == before, "not even a seen mark"
        for path, body in (
            ("/api/viewed", {"path": "src/a.py", "reviewed": True}),
            ("/api/findings", {"path": "src/a.py", "message": "x"}),
            ("/api/findings/1", {"status": "resolved"}),
        ):
            status, _, raw = served.request(path, body=body)
            assert status == 403 and "read-only" in json.loads(raw)["error"], path
    assert _status_of(repo, "src/a.py") != "reviewed"


def test_without_a_target_it_opens_the_latest_review(repo: Path) -> None:
    state, cache = repo.parent / "state-latest", repo.parent / "cache-latest"
    env = {"DIFFCHUNK_STATE_DIR": str(state), "DIFFCHUNK_CACHE_DIR": str(cache)}
    for rng in ("main..feature", "feature~1..feature"):
        assert run_cli("review", rng, cwd=repo, env=env).returncode == 0
    with page_server(cwd=repo, state=state, cache=cache) as served:
        assert served.json("/api/review")["review"]["source"]["range"] == "feature~1..feature"
    empty = repo.parent / "state-none"
    proc = run_cli("web", cwd=repo, env={"DIFFCHUNK_STATE_DIR": str(empty)})
    assert proc.returncode == 1 and "holds no review" in proc.stderr


def test_the_package_data_holds_every_file_of_the_page() -> None:
    """Every file of static/ is package data, so a wheel holds it (checked by hand with
    ``pip wheel .``: the README's section on the page says so)."""
    import fnmatch

    tomllib = pytest.importorskip("tomllib")

    root = STATIC.parent.parent.parent
    config = tomllib.loads((root / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["diffchunk.web"]
    files = sorted(p.relative_to(STATIC.parent).as_posix() for p in STATIC.iterdir())
    assert {"static/index.html", "static/page.css", "static/page.js"} <= set(files)
    for name in files:
        assert any(fnmatch.fnmatch(name, g) for g in globs), name
