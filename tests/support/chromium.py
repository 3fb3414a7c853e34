"""Debian's headless Chromium: where it is, and the switches every run of it gets.

``make test`` installs Debian's ``chromium`` when missing and run as root;
``tests/support/webdriver.py`` drives it (the review page's tests, the HTML
export's and ``make screenshot``), each browser with a new, empty profile
directory and these switches, which keep it from reaching the network on its
own (no background networking, component updates, sync or QUIC).
"""

from __future__ import annotations

import os
import shutil

from tests.support.system_packages import wait_for_system_packages

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def find_chromium() -> str | None:
    """The browser to run: ``$DIFFCHUNK_CHROMIUM``, else ``/usr/bin/chromium``, else on PATH
    (once ``make test`` has installed it, when it is installing it)."""
    wait_for_system_packages()
    named = os.environ.get("DIFFCHUNK_CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium")
