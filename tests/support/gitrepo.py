"""Real git repositories for tests: one place for the environment and helpers.

Commits are made with a fixed identity and without the machine's global or
system configuration, so tests behave the same everywhere.  A repository that many
tests build the same way is built once per process and copied (:func:`templated`).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

# Settings every test's git runs with, as ``git -c`` would give them: no housekeeping
# after a commit, push or fetch.  Without them each ``git commit`` starts a ``git
# maintenance run --auto`` and each push a ``gc --auto`` in the remote (a thousand
# processes a run of the suite, a few of them packing a repository), which no test
# asks for and none reads.
_QUIET_CONFIG = (("maintenance.auto", "false"), ("gc.auto", "0"), ("receive.autoGC", "false"))

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_COUNT": str(len(_QUIET_CONFIG)),
    **{f"GIT_CONFIG_KEY_{i}": key for i, (key, _) in enumerate(_QUIET_CONFIG)},
    **{f"GIT_CONFIG_VALUE_{i}": value for i, (_, value) in enumerate(_QUIET_CONFIG)},
}


def git_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without inherited ``GIT_*`` (e.g. from a hook), plus ours."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return {**inherited, **GIT_ENV, **(extra or {})}


def run_git(
    repo: Path, *args: str, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``git -C repo ARGS``; with ``check``, a failure raises with git's output."""
    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        env=git_environment(env),
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def git(repo: Path, *args: str) -> str:
    """Run git and return its stripped standard output."""
    return run_git(repo, *args).stdout.strip()


def write_files(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def commit(repo: Path, files: dict[str, str], message: str = "c") -> str:
    """Write ``files``, commit everything, and return the new commit id."""
    write_files(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def init_repo(path: Path, branch: str = "main") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    return path


def history_repo(path: Path, history: list[dict[str, str]]) -> Path:
    """A new repository on ``main`` with a commit of each entry's files, in order."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    for files in history:
        commit(path, files)
    return path


def git_bytes(
    repo: Path, *args: str, stdin: bytes | None = None, ok: tuple[int, ...] = (0,)
) -> bytes:
    """Run git (no CRLF conversion) and return its exact standard output."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "-c", "core.autocrlf=false", *args],
        input=stdin,
        capture_output=True,
        env=git_environment(),
    )
    if proc.returncode not in ok:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout


def settle_file_times() -> None:
    """Wait out the clock margin of a review's record of nested ``.gitattributes``:
    one changed within it of a review's start counts as changed while git ran
    (git may have read either version), and the next review writes the diff anew."""
    import time

    from diffchunk.git.diffwrite import _CLOCK_MARGIN_NS

    time.sleep(_CLOCK_MARGIN_NS / 1e9 + 0.005)


def templated(build: Callable[[Path], Path]) -> Callable[[Path], Path]:
    """``build(path)``, run once per process into a template that each call copies to
    its ``path``: for a builder whose repository depends on nothing but being new (the
    same commits each time).  A copy takes milliseconds where the git commands that
    make a repository take a tenth of a second or more; the copy's index is refreshed,
    since its files' inodes and change times are new."""
    template: Path | None = None

    @functools.wraps(build)
    def copy(path: Path) -> Path:
        nonlocal template
        if template is None or not template.is_dir():
            template = build(Path(tempfile.mkdtemp(prefix=f"{build.__name__}-")) / "repo")
        shutil.copytree(template, path, symlinks=True, dirs_exist_ok=True)
        git(path, "update-index", "-q", "--refresh")
        return path

    return copy
