"""The review record under faults: the MCP server and two CLI processes writing at
once, and SIGKILL during writes.

Brief versions; the full runs (200 marks and findings per writer, 50 kills) are
``make record-faults`` (``python -m tests.property.record_faults``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.property.record_faults import concurrent_writers, sigkill_rounds


def _needs_server() -> None:
    if not Path(sys.executable).with_name("diffchunk-mcp").exists():
        pytest.skip("diffchunk-mcp is not installed (pip install -e .)")


@pytest.mark.slow
def test_three_writers_at_once_lose_nothing(tmp_path: Path) -> None:
    _needs_server()
    outcome = concurrent_writers(tmp_path, writes=60)
    assert outcome.failed == 0, outcome.messages
    assert outcome.passed == 2 + 3 * 2 + 2  # exits, errors and locks per writer, the rows


@pytest.mark.slow
def test_sigkill_during_writes_keeps_every_acknowledged_write(tmp_path: Path) -> None:
    outcome = sigkill_rounds(tmp_path, kills=15, files=50)
    assert outcome.failed == 0, outcome.messages
    assert outcome.passed == 15 * 4 + 1  # 4 checks per kill, and writes were acknowledged
