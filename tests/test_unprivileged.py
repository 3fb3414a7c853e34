"""The tests marked ``permissions`` run where file modes bind: as root (CI), in a pytest
of their own started as an unprivileged user (``tests/support/privileges.py``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from privileges import permissions_apply, unprivileged_prefix

ROOT = Path(__file__).resolve().parents[1]


def _permission_tests(session: pytest.Session) -> list[pytest.Item]:
    return [item for item in session.items if item.get_closest_marker("permissions")]


@pytest.fixture
def shared_tmp(system_tmp: Path) -> Iterator[Path]:
    """A directory of this test's own that the unprivileged user can be given."""
    path = Path(tempfile.mkdtemp(prefix="diffchunk-unprivileged-", dir=system_tmp))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def test_the_permission_tests_pass_as_an_unprivileged_user(
    request: pytest.FixtureRequest, shared_tmp: Path
) -> None:
    if permissions_apply():
        pytest.skip("file modes bind this process: the permission tests ran as they are")
    tests = _permission_tests(request.session)
    if not tests:
        pytest.skip("no test marked permissions was collected with this one")
    prefix, uid = unprivileged_prefix(sys.executable, ROOT)
    if uid is not None:
        os.chown(shared_tmp, uid, -1)
    files = sorted({str(item.path.relative_to(ROOT)) for item in tests})
    env = {
        **{
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("DIFFCHUNK_", "XDG_", "PYTEST_"))
        },
        "HOME": str(shared_tmp),
        "TMPDIR": str(shared_tmp),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    argv = [sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider"]
    argv += ["-m", "permissions"]
    argv += ["--basetemp", str(shared_tmp / "basetemp"), *files]
    done = subprocess.run(
        [*prefix, *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=600,
    )
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    # Every one ran and passed: none skipped, none left out.
    assert re.fullmatch(rf"{len(tests)} passed, \d+ deselected(, \d+ warnings?)? in .*", summary), (
        summary
    )
