"""Whether file modes bind this process, and how a root suite runs the tests that
need them as an unprivileged user.

A test marked ``permissions`` checks what a file's mode forbids (an unreadable diff,
a state directory without write permission).  Root reads and writes anywhere, and CI
runs as root: there such tests are skipped in the suite's own processes and run
instead, all at once, in a pytest started as ``nobody`` (``tests/test_unprivileged.py``)
with a temporary directory of its own.  Where ``nobody`` cannot reach the checkout or
its Python (a virtualenv made from a Python under ``/root``), the run is root without
the capabilities that let it ignore modes (``setpriv``, as the fault tests do).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from pathlib import Path

# CAP_DAC_OVERRIDE (1) and CAP_DAC_READ_SEARCH (2): with either, file modes do not
# stop a read (or, for the first, a write).
_DAC_CAPABILITIES = (1 << 1) | (1 << 2)
UNPRIVILEGED_USER = "nobody"
_DROPPED = "-dac_override,-dac_read_search"


def permissions_apply() -> bool:
    """Whether file modes stop this process (it holds no capability that overrides them)."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return not hasattr(os, "geteuid") or os.geteuid() != 0
    for line in status.splitlines():
        if line.startswith("CapEff:"):
            return not int(line.split()[1], 16) & _DAC_CAPABILITIES
    return os.geteuid() != 0


def _as_user(user: pwd.struct_passwd, setpriv: str) -> list[str]:
    return [
        setpriv,
        f"--reuid={user.pw_uid}",
        f"--regid={user.pw_gid}",
        "--clear-groups",
        "--",
    ]


def unprivileged_prefix(python: str, root: Path) -> tuple[list[str], int | None]:
    """The command prefix that runs a program as an unprivileged user, and that user's
    id (``None``: root without its file capabilities).  Skips when neither is possible."""
    import pytest

    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: file modes cannot be made to apply")
    try:
        user = pwd.getpwnam(UNPRIVILEGED_USER)
    except KeyError:
        user = None
    env = shutil.which("env")
    if user is not None and env is not None:
        prefix = _as_user(user, setpriv)
        # Started by a process of that user, as the programs the tests start will be
        # (setpriv itself still resolves the path as root).
        probe = [*prefix, env, python, "-c", "import diffchunk, pytest"]
        if subprocess.run(probe, cwd=root, capture_output=True, timeout=60).returncode == 0:
            return prefix, user.pw_uid
    return [setpriv, "--bounding-set", _DROPPED, "--inh-caps", _DROPPED, "--"], None
