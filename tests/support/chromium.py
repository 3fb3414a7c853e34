"""Headless Chromium for the HTML export: its DOM after the page ran, and screenshots.

Used by the export's browser test and by ``make screenshot``.  Debian's
``chromium`` (``make test`` installs it when missing and run as root); each
run gets a new, empty profile directory and the switches that keep it from
reaching the network on its own (no background networking, component
updates, sync or QUIC).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

INSTALL_HINT = (
    "Install Debian's chromium ('apt-get install -y --no-install-recommends chromium' as root), "
    "or run 'make test' as root, which installs it; DIFFCHUNK_CHROMIUM may name another binary."
)
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
    """The browser to run: ``$DIFFCHUNK_CHROMIUM``, else ``/usr/bin/chromium``, else on PATH."""
    named = os.environ.get("DIFFCHUNK_CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium")


def _run(page: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    browser = find_chromium()
    if browser is None:
        raise RuntimeError(f"No chromium found. {INSTALL_HINT}")
    with tempfile.TemporaryDirectory(prefix="diffchunk-chromium-") as profile:
        proc = subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()],
            capture_output=True,
            timeout=timeout,
        )
    if proc.returncode != 0:
        raise RuntimeError(f"chromium failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    return proc


def dump_dom(page: Path) -> str:
    """The page's DOM, serialised after its scripts (if any) ran."""
    return _run(page, "--dump-dom").stdout.decode("utf-8")


def screenshot(page: Path, png: Path, width: int = 1280, height: int = 2000) -> Path:
    """A PNG of the page's first ``height`` pixels in a ``width``-pixel-wide window."""
    png.parent.mkdir(parents=True, exist_ok=True)
    _run(page, f"--screenshot={png.resolve()}", f"--window-size={width},{height}")
    if not png.is_file() or png.stat().st_size == 0:
        raise RuntimeError(f"chromium wrote no screenshot at {png}")
    return png
