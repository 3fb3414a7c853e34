"""Debian's chromium driven through Debian's chromedriver (selenium), for the review page.

The driver is named explicitly (``/usr/bin/chromedriver``, or
``DIFFCHUNK_CHROMEDRIVER``), so selenium never looks for one or downloads one;
each browser gets a new, empty profile directory and the switches that keep
it from reaching the network on its own.  :func:`missing` says why the
browser tests cannot run here (None when they can).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.support.chromium import FLAGS, find_chromium

DRIVER_HINT = (
    "Install Debian's chromium and chromium-driver ('apt-get install -y "
    "--no-install-recommends chromium chromium-driver' as root), or run 'make test' as root, "
    "which installs them; DIFFCHUNK_CHROMEDRIVER may name another chromedriver."
)


def find_driver() -> str | None:
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
