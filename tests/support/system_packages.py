"""Debian's packages that ``make test`` may still be installing while the suite runs.

On a fresh machine apt (chromium) takes longer than the virtualenv, so ``make test``
starts the suite without waiting for ``make system-packages`` (chromium, chromedriver,
git's manual).  Before either starts it writes :data:`PENDING`, holding its own process
id; the install removes it when it ends, whether it installed anything or not, and so
does ``make test`` however it ends.  A test that needs one of those packages looks for
it after :func:`wait_for_system_packages`, which returns at once when nothing is
pending, waits while the install goes on, and never waits for a file left behind: not
once the process that wrote it is gone, and not past :data:`WAIT_SECONDS`.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

PENDING = Path(__file__).resolve().parents[2] / ".test-data" / "system-packages.pending"
# The longest an install is waited for: apt on a fresh machine takes about 20 s.
WAIT_SECONDS = 600.0
# How often the mark is looked at: a stat and, while it is there, a signal 0; the
# install's end is seen within this, against its 20 s.
POLL_SECONDS = 0.2


def _pending(mark: Path) -> bool:
    """Whether an install that a live ``make test`` started has not ended yet."""
    try:
        pid = int(mark.read_text().strip())
    except (OSError, ValueError):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def wait_for_system_packages(mark: Path = PENDING, longest: float = WAIT_SECONDS) -> None:
    """Return once no install of Debian's packages is under way (see the docstring)."""
    deadline = time.monotonic() + longest
    while _pending(mark) and time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
