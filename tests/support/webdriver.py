"""Debian's chromium driven through Debian's chromedriver (selenium): the review page's
tests, the HTML export's (its DOM after the page ran, a screenshot) and ``make screenshot``.

The driver is named explicitly (``/usr/bin/chromedriver``, or
``DIFFCHUNK_CHROMEDRIVER``), so selenium never looks for one or downloads one;
each browser gets a new, empty profile directory and the switches that keep
it from reaching the network on its own.  :func:`missing` says why the
browser tests cannot run here (None when they can).

A worker's tests share one browser (the ``shared_browser`` fixture: a chromium
starts in about a second of CPU), each in a tab of its own (:func:`tab`),
closed after it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.chromium import FLAGS, find_chromium
from tests.support.system_packages import wait_for_system_packages

DRIVER_HINT = (
    "Install Debian's chromium and chromium-driver ('apt-get install -y "
    "--no-install-recommends chromium chromium-driver' as root), or run 'make test' as root, "
    "which installs them; DIFFCHUNK_CHROMEDRIVER may name another chromedriver."
)


def find_driver() -> str | None:
    wait_for_system_packages()  # `make test` may be installing it beside the suite
    named = os.environ.get("DIFFCHUNK_CHROMEDRIVER")
    if named:
        return named if os.access(named, os.X_OK) else None
    if os.access("/usr/bin/chromedriver", os.X_OK):
        return "/usr/bin/chromedriver"
    return shutil.which("chromedriver")


def missing() -> str | None:
    """Why the browser tests cannot run (None: they can)."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    if find_chromium() is None:
        return f"no chromium: {DRIVER_HINT}"
    if find_driver() is None:
        return f"no chromedriver: {DRIVER_HINT}"
    return None


@contextmanager
def browser(width: int = 1400, height: int = 900) -> Iterator[Any]:
    """A headless chromium under selenium, closed (and its profile removed) afterwards."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(find_chromium())
    with tempfile.TemporaryDirectory(prefix="diffchunk-selenium-") as profile:
        for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(executable_path=str(find_driver()))
        driver = webdriver.Chrome(service=service, options=options)
        try:
            yield driver
        finally:
            driver.quit()


@contextmanager
def tab(driver: Any) -> Iterator[Any]:
    """``driver`` in a new tab of its browser, closed afterwards (the tab that was current
    before is again)."""
    before = driver.current_window_handle
    driver.switch_to.new_window("tab")
    try:
        yield driver
    finally:
        driver.close()
        driver.switch_to.window(before)


def dump_dom(driver: Any, page: Path) -> str:
    """The page's DOM, serialised after its scripts (if any) ran and it loaded."""
    with tab(driver):
        driver.get(page.resolve().as_uri())
        return str(driver.execute_script("return document.documentElement.outerHTML"))


def screenshot(driver: Any, page: Path, png: Path, width: int = 1280, height: int = 2000) -> Path:
    """A PNG of the page's first ``height`` pixels in a ``width``-pixel-wide window."""
    png.parent.mkdir(parents=True, exist_ok=True)
    with tab(driver):
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        driver.get(page.resolve().as_uri())
        png.write_bytes(driver.get_screenshot_as_png())
    if png.stat().st_size == 0:
        raise RuntimeError(f"chromium wrote no screenshot at {png}")
    return png
