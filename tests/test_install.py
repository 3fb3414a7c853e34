"""The package as an index would ship it: a wheel and an sdist built by ``python -m
build``, their metadata complete, and the wheel installed in a clean virtualenv, where
``diffchunk --version`` runs and ``diffchunk-mcp`` lists its tools and prompts over
stdio.

Slow (a build, a virtualenv, every dependency installed).  The dependencies come from
uv's cache where uv is at hand (the checkout's install filled it), pip then installing
the wheel over them; else from ``.test-data/wheelhouse`` of the checkout (``pip wheel``
fills it from the index the first time, or when the dependencies changed).
"""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import diffchunk

ROOT = Path(diffchunk.__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


WHEELHOUSE = ROOT / ".test-data" / "wheelhouse"


def _run(
    *args: str, timeout: float = 900, check: bool = True, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        list(args), capture_output=True, text=True, timeout=timeout, env=env, **kwargs
    )
    if check:
        assert done.returncode == 0, f"{args}: {done.stdout[-2000:]}{done.stderr[-4000:]}"
    return done


def _install(venv: Path, wheel: Path) -> None:
    """The wheel installed into ``venv`` with its dependencies.

    Where uv is at hand (``make`` installs the checkout with it), uv installs them from
    its cache, as the checkout's install left it (no index asked); then pip installs the
    wheel again over them (``--no-deps``), so that pip is shown to take it too.  Else
    pip installs them from the wheelhouse (filled from the index when it lacks one).
    This checkout's pip installs (``--python``): the virtualenv needs no pip of its own
    (ensurepip costs 5 s of CPU), and nothing is compiled ahead (``--no-compile``:
    another 5 s for every module of every dependency; what runs compiles what it
    imports)."""
    python = str(venv / "bin" / "python")
    pip = (sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-compile")
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is not None:
        into = (uv, "pip", "install", "--quiet", "--python", python, str(wheel))
        if _run(*into, "--offline", check=False).returncode != 0:
            _run(*into)  # a cache without them: from the index
        _run(*pip, "--no-deps", "--force-reinstall", str(wheel))
        return
    offline = (*pip, "--no-index", "--find-links", str(WHEELHOUSE))
    if _run(*offline, str(wheel), check=False).returncode == 0:
        return
    _run(sys.executable, "-m", "pip", "wheel", "--quiet", "-w", str(WHEELHOUSE), str(wheel))
    _run(*offline, str(wheel))


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(archive.read(name))


def test_the_built_wheel_installs_and_runs_in_a_clean_virtualenv(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT))
    wheel = next(dist.glob("diffchunk-*.whl"))
    sdist = next(dist.glob("diffchunk-*.tar.gz"))

    meta = _metadata(wheel)
    assert meta["Name"] == "diffchunk" and meta["Version"] == diffchunk.__version__
    assert meta["Summary"] and meta["License-Expression"] == "MIT"
    assert meta["Requires-Python"] == ">=3.10" and meta["Keywords"]
    classifiers = meta.get_all("Classifier") or []
    assert "Topic :: Software Development :: Version Control :: Git" in classifiers
    assert "Programming Language :: Python :: 3 :: Only" in classifiers
    assert meta["Description-Content-Type"] == "text/markdown"
    assert "# diffchunk" in (meta.get_payload() or "")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {"diffchunk/py.typed", "diffchunk/web/static/index.html"} <= names
    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[-1] for m in archive.getmembers()}
    assert {"README.md", "LICENSE", "pyproject.toml", "diffchunk/server/prompts.py"} <= members

    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", str(venv))
    _install(venv, wheel)
    version = _run(str(venv / "bin" / "diffchunk"), "--version", cwd=tmp_path)
    assert version.stdout.strip() == f"diffchunk, version {diffchunk.__version__}"
    installed = _run(
        str(venv / "bin" / "python"),
        "-c",
        "import diffchunk; print(diffchunk.__file__)",
        cwd=tmp_path,
    )
    assert installed.stdout.startswith(str(venv))  # the wheel's, not this checkout

    async def listed() -> tuple[set[str], set[str]]:
        server = StdioServerParameters(
            command=str(venv / "bin" / "diffchunk-mcp"),
            env={"DIFFCHUNK_STATE_DIR": str(tmp_path / "state"), "PATH": os.environ["PATH"]},
        )
        with open(tmp_path / "server.log", "w") as log:
            async with (
                stdio_client(server, errlog=log) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools = {t.name for t in (await session.list_tools()).tools}
                prompts = {p.name for p in (await session.list_prompts()).prompts}
        return tools, prompts

    tools, prompts = anyio.run(listed)
    assert {"load_git_diff", "get_chunk", "review_status", "edit_content"} <= tools
    assert prompts == {"review", "review_since", "address_findings"}
