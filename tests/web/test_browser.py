"""The review page in a real browser (Debian's chromium through chromedriver), over the
same record as the installed MCP server (the SDK's stdio client).

The page and the MCP server share one state directory and one cache, as a
person's page and their assistant's server do.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import pytest
from gitrepo import commit, git, init_repo
from mcpkit import Caller, RunningServer
from recordkit import numbered
from webkit import Page, page_server

from tests.support import webdriver

pytestmark = pytest.mark.skipif(webdriver.missing() is not None, reason=str(webdriver.missing()))

T = TypeVar("T")
HOSTILE = "<img src=x onerror=\"document.title='pwned';window.pwned=1\"> is this right?"


def wait_for(what: Callable[[], T], timeout: float = 20, message: str = "") -> T:
    """``what()`` once it is truthy (exceptions count as not yet)."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = what()
            if last:
                return last
        except Exception as exc:  # the element is not there yet
            last = exc
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {message or what}: {last!r}")


class Dirs(NamedTuple):
    """The module's repository, and the record and cache its page and the assistant share."""

    repo: Path
    state: Path
    cache: Path


@dataclass
class Assistant:
    """The assistant's installed MCP server, and the repository it reviews."""

    server: RunningServer
    repo: Path


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory, server: RunningServer) -> Dirs:
    """The module's repository; the page's record and cache are the worker's MCP server's
    (``state`` and ``cache`` in its directory, as mcpkit names them)."""
    repo = init_repo(tmp_path_factory.mktemp("webpage") / "repo")
    commit(
        repo,
        {
            "src/app.py": numbered("value", 80),
            "src/util.py": numbered("util", 40),
            "docs/guide.md": "# Guide\n\nSome text.\n",
        },
        "base",
    )
    git(repo, "checkout", "-q", "-b", "feature")
    commit(
        repo,
        {
            "src/app.py": numbered("value", 80, {10: "value ten", 50: "value fifty changed"}),
            "src/util.py": numbered("util", 40, {20: "util twenty"}),
            "docs/guide.md": "# Guide\n\nSome better text.\n",
            "src/new.py": "def added():\n    return 42\n",
        },
        "feature",
    )
    return Dirs(repo, server.directory / "state", server.directory / "cache")


@pytest.fixture(scope="module")
def page(dirs: Dirs) -> Iterator[Page]:
    with page_server("main..feature", cwd=dirs.repo, state=dirs.state, cache=dirs.cache) as served:
        yield served


@pytest.fixture(scope="module")
def browser(page: Page, shared_browser: Any) -> Iterator[Any]:
    """The module's page, in a tab of the worker's browser that its tests share."""
    with webdriver.tab(shared_browser) as driver:
        driver.get(page.url)
        ready(driver)
        yield driver


@pytest.fixture(scope="module")
def assistant(dirs: Dirs, server: RunningServer) -> Assistant:
    """The assistant's installed MCP server on the page's record: the worker's (conftest's
    ``server``), kept while the person works on the page, as an assistant keeps its
    server (what the page wrote, the server reads from the record)."""
    return Assistant(server, dirs.repo)


def mcp(assistant: Assistant, script: Callable[[Caller, str], Any]) -> None:
    """Run ``script(caller, diff path)`` in the assistant's MCP server, the range loaded
    first as an assistant loads it."""

    async def go(caller: Caller) -> None:
        loaded = await caller.json(
            "load_git_diff",
            absolute_repo_path=str(assistant.repo),
            revision_range="main..feature",
        )
        await script(caller, loaded["file_path"])

    assistant.server.run(go)


def ready(driver: Any) -> None:
    """Wait until the page loaded in ``driver`` has drawn its review."""
    wait_for(lambda: driver.execute_script("return document.body.dataset.ready"), 60)


def reload(driver: Any) -> None:
    """Load the page again, and wait until it has drawn its review: it shows what the
    assistant wrote at once, where the open page shows it at its next look at the record
    (every 1.5 s; test_a_finding_the_assistant_adds_appears_on_the_open_page_as_text)."""
    driver.refresh()
    ready(driver)


def open_file(driver: Any, path: str) -> None:
    from selenium.webdriver.common.by import By

    # The tree is drawn again when the record changes: find the row and click it at once.
    wait_for(
        lambda: (
            driver.find_element(By.CSS_SELECTOR, f'.tree-row.file[data-path="{path}"]').click()
            or True
        )
    )
    wait_for(
        lambda: (
            driver.find_element(By.CSS_SELECTOR, "#file-head .path").text == path
            and driver.find_elements(By.CSS_SELECTOR, "#file-body tr.hunk")
        ),
        message=f"{path} open",
    )


def card_with(driver: Any, text: str) -> Any:
    """The finding card on the open file whose text holds ``text``."""
    from selenium.webdriver.common.by import By

    return next(
        c for c in driver.find_elements(By.CSS_SELECTOR, "#file-body .finding") if text in c.text
    )


def shot(driver: Any, name: str) -> None:
    driver.save_screenshot(f"/tmp/diffchunk-web-{name}.png")


def test_clicking_viewed_is_what_review_status_reports(browser: Any, assistant: Assistant) -> None:
    from selenium.webdriver.common.by import By

    open_file(browser, "src/util.py")
    # The file's head may be drawn again just after it opens: find the box and click it
    # at once (a box found before the redraw is stale).
    wait_for(
        lambda: browser.find_element(By.ID, "viewed").click() or True, message="viewed clicked"
    )
    wait_for(
        lambda: (
            "state-reviewed"
            in browser.find_element(
                By.CSS_SELECTOR, '.tree-row.file[data-path="src/util.py"] .state'
            ).get_attribute("class")
        ),
        message="the tree shows src/util.py reviewed",
    )
    shot(browser, "viewed")
    found: dict[str, Any] = {}

    async def script(caller: Caller, diff: str) -> None:
        found["status"] = await caller.json("review_status", absolute_file_path=diff)

    mcp(assistant, script)
    status = found["status"]
    assert status["totals"]["reviewed"] == 1
    (chunk,) = [c for c in status["chunks"] if "src/util.py" in c["files"]]
    assert chunk["status"] in ("reviewed", "partly")


def test_a_finding_added_on_the_page_is_in_list_findings(
    browser: Any, assistant: Assistant
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    open_file(browser, "src/app.py")
    browser.find_element(By.CSS_SELECTOR, "td.num[data-side=new][data-line='50']").click()
    form = wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "form.finding-form"))
    Select(form.find_element(By.NAME, "severity")).select_by_value("minor")
    form.find_element(By.NAME, "message").send_keys("fifty is off by one")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(
        lambda: (
            "fifty is off by one"
            in browser.find_element(By.CSS_SELECTOR, "#file-body tr.finding-row").text
        ),
        message="the finding under its line",
    )
    shot(browser, "finding-added")
    found: dict[str, Any] = {}

    async def script(caller: Caller, diff: str) -> None:
        found["page"] = await caller.json("list_findings", absolute_file_path=diff)

    mcp(assistant, script)
    (finding,) = [f for f in found["page"]["findings"] if f["message"] == "fifty is off by one"]
    assert (finding["file_path"], finding["line"], finding["side"]) == ("src/app.py", 50, "new")
    assert finding["severity"] == "minor" and finding["status"] == "open"
    assert finding["lines"] == "value fifty changed\n"


def test_a_finding_the_assistant_adds_appears_on_the_open_page_as_text(
    browser: Any, assistant: Assistant
) -> None:
    from selenium.webdriver.common.by import By

    open_file(browser, "src/app.py")
    title = browser.title

    async def script(caller: Caller, diff: str) -> None:
        await caller.json(
            "add_finding",
            absolute_file_path=diff,
            file_path="src/app.py",
            message=HOSTILE,
            line=10,
            severity="blocker",
            suggestion="<b>value</b> ten",
        )

    mcp(assistant, script)
    card = wait_for(
        lambda: [
            c
            for c in browser.find_elements(By.CSS_SELECTOR, "#file-body .finding")
            if "is this right?" in c.text
        ],
        message="the assistant's finding on the page",
    )[0]
    assert HOSTILE in card.text and "<b>value</b> ten" in card.text
    assert browser.find_elements(By.CSS_SELECTOR, "#file-body img, #file-body b") == []
    assert browser.execute_script("return window.pwned === undefined")
    assert browser.title == title and "pwned" not in browser.title
    # under the line it points at: the row of new line 10 comes right before it
    row = card.find_element(By.XPATH, "ancestor::tr[1]/preceding-sibling::tr[1]")
    assert row.find_elements(By.CSS_SELECTOR, "td.num[data-side=new][data-line='10']")
    shot(browser, "assistant-finding")


def test_resolving_on_the_page_closes_the_finding_for_the_assistant(
    browser: Any, assistant: Assistant
) -> None:
    from selenium.webdriver.common.by import By

    message = "Dismiss me: the fifty is intended?"  # its own finding: tests may run apart

    async def add(caller: Caller, diff: str) -> None:
        await caller.json(
            "add_finding", absolute_file_path=diff, file_path="src/app.py", message=message,
            line=50,
        )  # fmt: skip

    mcp(assistant, add)
    reload(browser)
    open_file(browser, "src/app.py")
    card = wait_for(lambda: card_with(browser, message), message="the finding on the page")
    card.find_element(By.XPATH, ".//button[text()='Dismiss']").click()
    wait_for(lambda: "dismissed" in card_with(browser, message).text)
    found: dict[str, Any] = {}

    async def script(caller: Caller, diff: str) -> None:
        found["page"] = await caller.json(
            "list_findings", absolute_file_path=diff, status="dismissed"
        )

    mcp(assistant, script)
    assert message in [f["message"] for f in found["page"]["findings"]]


def test_a_reply_posted_on_the_page_is_on_the_thread_after_a_reload(
    browser: Any, assistant: Assistant
) -> None:
    from selenium.webdriver.common.by import By

    async def add(caller: Caller, diff: str) -> None:
        await caller.json(
            "add_finding",
            absolute_file_path=diff,
            file_path="src/util.py",
            message="reply here",
            line=20,
        )

    mcp(assistant, add)
    reload(browser)
    open_file(browser, "src/util.py")
    card = wait_for(lambda: card_with(browser, "reply here"))
    card.find_element(By.CSS_SELECTOR, "textarea.reply-text").send_keys("<i>Agreed</i>, fix it")
    card.find_element(By.XPATH, ".//button[text()='Reply']").click()
    wait_for(lambda: "fix it" in card_with(browser, "reply here").text)
    reload(browser)
    open_file(browser, "src/util.py")
    card = wait_for(lambda: card_with(browser, "reply here"))
    reply = card.find_element(By.CSS_SELECTOR, ".thread .comment")
    assert "<i>Agreed</i>, fix it" in reply.text  # as text, never as markup
    assert card.find_elements(By.CSS_SELECTOR, ".thread i") == []
    shot(browser, "reply")
    found: dict[str, Any] = {}

    async def script(caller: Caller, diff: str) -> None:
        found["page"] = await caller.json("list_findings", absolute_file_path=diff)

    mcp(assistant, script)
    (finding,) = [f for f in found["page"]["findings"] if f["message"] == "reply here"]
    assert [c["body"] for c in finding["thread"]] == ["<i>Agreed</i>, fix it"]
    assert finding["thread"][0]["author"]


def test_keyboard_moves_between_files_and_marks_them(browser: Any, page: Page) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    open_file(browser, "docs/guide.md")
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("n")
    wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#file-head .path").text == "src/app.py")
    body.send_keys("p")
    wait_for(
        lambda: browser.find_element(By.CSS_SELECTOR, "#file-head .path").text == "docs/guide.md"
    )
    body.send_keys("v")
    wait_for(
        lambda: (
            {f[0]: f[6] for f in page.json("/api/review")["files"]}["docs/guide.md"] == "reviewed"
        ),
        message="v marked docs/guide.md reviewed",
    )
    body.send_keys("u")
    wait_for(
        lambda: (
            browser.find_element(By.CSS_SELECTOR, "#file-head .path").text
            not in ("docs/guide.md", "src/util.py")
        )
    )
    body.send_keys("s")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "table.diff.split"))
    shot(browser, "split")
    body.send_keys("s")
    body.send_keys(Keys.ESCAPE)


def test_context_expands_from_the_file_at_the_new_revision(browser: Any) -> None:
    from selenium.webdriver.common.by import By

    open_file(browser, "src/app.py")
    assert not browser.find_elements(By.CSS_SELECTOR, "td.num[data-side=new][data-line='2']")
    first = browser.find_element(By.CSS_SELECTOR, "#file-body tr.hunk .expand button")
    first.click()  # up: the lines right above the first hunk
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#file-body tr.expanded"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#file-body tr.expanded")
    texts = [r.find_element(By.CSS_SELECTOR, "td.code").text for r in rows]
    assert texts and all(t.startswith("value ") for t in texts)
    numbers = [int(r.find_elements(By.CSS_SELECTOR, "td.num")[1].text) for r in rows]
    assert texts == [f"value {n}" for n in numbers]


def test_read_only_page_offers_no_writes(dirs: Dirs, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    # In a tab of its own (the read-only server is another origin), closed afterwards:
    # the module's page stays open in its tab.
    with (
        page_server(
            "main..feature",
            "--read-only",
            cwd=dirs.repo,
            state=dirs.state,
            cache=dirs.cache,
        ) as served,
        webdriver.tab(browser) as driver,
    ):
        driver.get(served.url)
        ready(driver)
        assert driver.find_element(By.ID, "read-only").is_displayed()
        open_file(driver, "src/app.py")
        assert not driver.find_element(By.ID, "viewed").is_enabled()
        driver.find_element(By.CSS_SELECTOR, "td.num[data-side=new][data-line='50']").click()
        # A writable page opens its form in the click's handler: once a task queued
        # after the click has run, a form would be there.
        driver.execute_async_script("setTimeout(arguments[arguments.length - 1], 0)")
        assert driver.find_elements(By.CSS_SELECTOR, "form.finding-form") == []
        assert driver.find_elements(By.XPATH, "//button[text()='Resolve']") == []
        shot(driver, "read-only")


def test_a_page_without_its_token_shows_nothing(page: Page, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    with webdriver.tab(browser) as driver:
        driver.get(page.url.split("?")[0])
        assert "token" in driver.find_element(By.TAG_NAME, "body").text
        assert driver.find_elements(By.ID, "tree") == []
