"""``make demo`` walks through what people use, each step one command with one line
saying what it shows, and leaves the user's review record alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_the_demo_walks_through_a_review(tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = {**os.environ, "DIFFCHUNK_STATE_DIR": str(state), "DIFFCHUNK_CACHE_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "diffchunk.demo"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    steps = [
        "$ diffchunk review main..feature",
        "$ diffchunk next --format annotated",
        "$ diffchunk mark --chunk 1",
        "$ diffchunk finding add --file src/app.py",
        "$ diffchunk status",
        "$ diffchunk export",
        "$ diffchunk hook run-pre-push origin",
    ]
    at = [out.index(step) for step in steps]
    assert at == sorted(at)
    for index in at:  # one line of explanation before each command
        before = out[:index].rstrip("\n").rsplit("\n", 1)[-1]
        assert before.startswith("# ") and len(before) > 20, before
    assert "Marked reviewed: src/app.py" in out and "Finding #1 (minor)" in out
    assert "The push of refs/heads/feature was stopped" in out
    assert "package-lock.json  generated (lockfile)" in out
    assert '"command":' in out and "\x1b[" not in out  # piped: no colour
    assert not state.exists()  # the demo kept a record of its own
