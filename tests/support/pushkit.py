"""A clone that pushes to a bare remote of its own, for the pre-push hook's tests.

:func:`pushed_clone` lays out ``remote.git`` (bare) and ``work`` (a clone whose ``main``
is on the remote, and a ``feature`` branch when asked) in a test's directory.  The
same history is built once per process and copied (as ``gitrepo.templated`` does):
the copy's ``origin`` is pointed at its own remote, and its index refreshed.  The hook
itself is installed by each test (it names this interpreter).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from gitrepo import commit, git, init_repo

# The templates built in this process, by the history they hold.
_TEMPLATES: dict[str, Path] = {}


def _build(root: Path, main: dict[str, str], feature: dict[str, str] | None, head: bool) -> None:
    remote = root / "remote.git"
    remote.mkdir(parents=True)
    git(remote, "init", "-q", "--bare", "-b", "main")
    work = init_repo(root / "work")
    git(work, "remote", "add", "origin", str(remote))
    commit(work, main)
    git(work, "push", "-q", "origin", "main")
    git(work, "fetch", "-q", "origin")
    if head:
        git(work, "remote", "set-head", "origin", "main")
    if feature is not None:
        git(work, "checkout", "-q", "-b", "feature")
        commit(work, feature)


def pushed_clone(
    path: Path,
    main: dict[str, str],
    feature: dict[str, str] | None = None,
    *,
    set_head: bool = True,
) -> Path:
    """``path/remote.git`` and ``path/work``: ``main`` of one commit of ``main``'s files,
    pushed (``origin/HEAD`` set unless ``set_head`` is false); with ``feature``, a
    ``feature`` branch checked out with one more commit of those files, not pushed.
    Returns the work tree."""
    key = json.dumps([main, feature, set_head], sort_keys=True)
    template = _TEMPLATES.get(key)
    if template is None or not template.is_dir():
        template = Path(tempfile.mkdtemp(prefix="pushed-clone-"))
        _build(template, main, feature, set_head)
        _TEMPLATES[key] = template
    shutil.copytree(template, path, symlinks=True, dirs_exist_ok=True)
    work = path / "work"
    git(work, "remote", "set-url", "origin", str(path / "remote.git"))
    git(work, "update-index", "-q", "--refresh")
    return work
