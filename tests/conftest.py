"""Fixtures for the whole suite."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from diffchunk.review.sessions import SessionStore

# Helper modules that hold asserts moved out of test modules: rewritten like a
# test module's, so that a failure still shows the values compared.
pytest.register_assert_rewrite("chunkkit", "hostile_mcp", "outlinekit", "parsekit")


@pytest.fixture(autouse=True, scope="session")
def private_state_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The diff tools write the review record: the suite's go to a state directory of
    its own (inherited by the servers, CLIs and hooks it starts), never the user's."""
    path = tmp_path_factory.mktemp("state")
    old = os.environ.get("DIFFCHUNK_STATE_DIR")
    os.environ["DIFFCHUNK_STATE_DIR"] = str(path)
    yield
    if old is None:
        os.environ.pop("DIFFCHUNK_STATE_DIR", None)
    else:
        os.environ["DIFFCHUNK_STATE_DIR"] = old


@pytest.fixture
def backup_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A backup directory of this test's own (DIFFCHUNK_BACKUP_DIR); modules that edit
    files take it for every test with ``pytestmark = pytest.mark.usefixtures("backup_dir")``."""
    target = tmp_path / "backups"
    monkeypatch.setenv("DIFFCHUNK_BACKUP_DIR", str(target))
    return target


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    """A cache directory of this test's own, passed to the git source as ``cache_dir``."""
    return tmp_path / "cache"


@pytest.fixture
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A review record and a cache of this test's own (DIFFCHUNK_STATE_DIR and
    DIFFCHUNK_CACHE_DIR); modules take it for every test through ``pytestmark``."""
    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def store() -> SessionStore:
    """A session store of this test's own, passed to the diff tools as ``store``."""
    from diffchunk.review.sessions import SessionStore

    return SessionStore()


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache of this test's own (DIFFCHUNK_CACHE_DIR); modules take it for every test
    through ``pytestmark``."""
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(tmp_path / "cache"))
