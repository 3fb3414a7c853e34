"""Fixtures for the whole suite, and what keeps its tests apart.

The suite runs on every core (``make unit``: pytest-xdist), so no test may share a file
with another one running at the same time, nor depend on one that ran before it:

* each worker (or the one process of a plain ``pytest``) has a home of its own:
  ``HOME``, the ``XDG_*`` directories and ``TMPDIR`` point into the worker's
  temporary directory (:func:`private_home`), so nothing reaches the user's
  ``~/.cache/diffchunk``, ``~/.local/state`` or a file in the shared ``/tmp``;
* each test has a review record and a cache of its own (``DIFFCHUNK_STATE_DIR`` and
  ``DIFFCHUNK_CACHE_DIR`` in its ``tmp_path``, :func:`private_dirs`), inherited by the
  servers, CLIs and hooks it starts;
* nothing listens on a port; a repository many tests build alike is built once per
  worker and copied (``gitrepo.templated``), and tests that need an MCP server, not a
  new one, share the worker's (:func:`server`, and :func:`other_server`, a second
  process on its record; :func:`confined`, one started with an allowed root).

Helpers shared by several test modules live in ``tests/support/`` (on the path, so a
test imports ``gitrepo`` or ``mcpkit`` by name); a fixture used by several modules
lives here, once.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest
from examples import register_profiles
from privileges import permissions_apply

if TYPE_CHECKING:
    from mcpkit import Confined, RunningServer

    from diffchunk.review.sessions.store import SessionStore

# Helper modules that hold asserts moved out of test modules: rewritten like a
# test module's, so that a failure still shows the values compared.
pytest.register_assert_rewrite("chunkkit", "hostile_mcp", "outlinekit", "parsekit")

# The property tests' counts (tests/support/examples.py): a share of the thorough
# run's unless HYPOTHESIS_PROFILE=thorough, loaded before any test module is imported.
register_profiles()

# What a worker's home replaces: the variables that name where programs keep files.
_HOME_VARIABLES = ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "TMPDIR")
# The machine's temporary directory, before a worker's home replaces it.
SYSTEM_TMP = Path(tempfile.gettempdir())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Where file modes do not bind (root), the tests marked ``permissions`` are left to
    ``tests/test_unprivileged.py``, which runs them as an unprivileged user."""
    if permissions_apply():
        return
    skip = pytest.mark.skip(
        reason="file modes do not bind root: test_unprivileged.py runs this as nobody"
    )
    for item in items:
        if item.get_closest_marker("permissions"):
            item.add_marker(skip)


def pytest_collection_finish(session: pytest.Session) -> None:
    """The cycle collector, tuned for a test run once the tests are collected.

    A worker holds millions of objects that live as long as it does (the modules its
    tests import, the collected tests and their parameters), and each full collection
    walked them all: about 0.2 s each, 10 s of a run's CPU.  They are frozen out of the
    collector's reach (:func:`gc.freeze`), and a full collection waits for a hundred
    times as many younger ones as by default: the young cycles a test leaves are still
    collected as they were, and a test that needs everything collected calls
    :func:`gc.collect`, as before.
    """
    import gc

    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 1000)


@pytest.fixture(autouse=True, scope="session")
def private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A home, XDG directories and a TMPDIR of this worker's own (see the docstring)."""
    home = tmp_path_factory.mktemp("home")
    places = {
        "HOME": home,
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_STATE_HOME": home / ".local" / "state",
        "TMPDIR": home / "tmp",
    }
    for path in places.values():
        path.mkdir(parents=True, exist_ok=True)
    saved = {name: os.environ.get(name) for name in _HOME_VARIABLES}
    saved_tempdir = tempfile.tempdir
    os.environ.update({name: str(path) for name, path in places.items()})
    tempfile.tempdir = str(places["TMPDIR"])
    yield home
    tempfile.tempdir = saved_tempdir
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


class PrivateDirs(NamedTuple):
    """A test's own review record (``state``) and cache (``cache``) directories."""

    state: Path
    cache: Path


@pytest.fixture(autouse=True)
def private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PrivateDirs:
    """A review record and a cache of this test's own, for every test:
    ``DIFFCHUNK_STATE_DIR`` is ``tmp_path / "state"`` and ``DIFFCHUNK_CACHE_DIR``
    ``tmp_path / "cache"`` (made when first written to)."""
    dirs = PrivateDirs(state=tmp_path / "state", cache=tmp_path / "cache")
    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", str(dirs.state))
    monkeypatch.setenv("DIFFCHUNK_CACHE_DIR", str(dirs.cache))
    return dirs


@pytest.fixture
def private_cache(private_dirs: PrivateDirs) -> Path:
    """This test's own cache directory (``DIFFCHUNK_CACHE_DIR``, ``tmp_path / "cache"``)."""
    return private_dirs.cache


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
def system_tmp() -> Path:
    """The machine's temporary directory, for what another user must reach (a worker's
    own lies under pytest's base directory, which only its owner can enter)."""
    return SYSTEM_TMP


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """An installed ``diffchunk-mcp`` that the worker's tests share, whatever their module
    (``tests/support/mcpkit.py``: a test that needs a new process, or a server on its own
    record, starts its own with ``serve``)."""
    from mcpkit import running_server

    with running_server(tmp_path_factory.mktemp("server")) as running:
        yield running


@pytest.fixture(scope="session")
def other_server(server: RunningServer) -> Iterator[RunningServer]:
    """A second server process on ``server``'s record and cache, which the worker's tests
    share too: what one wrote, the other reads from the record, not from its memory (a
    test loads its own repository or diff, which the other has not seen)."""
    from mcpkit import running_server

    with running_server(server.directory) as running:
        yield running


@pytest.fixture(scope="session")
def confined(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Confined]:
    """An installed ``diffchunk-mcp`` started with one allowed root (``--allow-root``),
    which the worker's tests of the roots share: each puts what the server may reach in
    a directory of its own inside the root and what it must not beside it
    (``confined.layout(tmp_path)``)."""
    from mcpkit import confined_server

    with confined_server(tmp_path_factory.mktemp("confined")) as running:
        yield running


@pytest.fixture(scope="session")
def shared_browser() -> Iterator[Any]:
    """The worker's headless chromium under chromedriver, started when a test first asks
    for it, for every module that drives a page: each test works in a tab of its own
    (``tests/support/webdriver.py``, ``tab``), so tests stay apart."""
    from tests.support import webdriver

    with webdriver.browser() as driver:
        yield driver


@pytest.fixture
def store() -> SessionStore:
    """A session store of this test's own, passed to the diff tools as ``store``."""
    from diffchunk.review.sessions.store import SessionStore

    return SessionStore()
