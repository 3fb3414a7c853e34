"""A repository named outside this machine: its push remote's URL without credentials,
or its directory's name (real repositories; the config read as diffchunk parses it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import commit, git, init_repo, run_git

from diffchunk.git.remotes import default_remote, public_name, public_url
from diffchunk.git.repo import discover


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://ada:ghp_secret@github.com/o/r.git", "https://github.com/o/r.git"),
        ("https://token@github.com/o/r.git?x=1#y", "https://github.com/o/r.git"),
        ("HTTPS://GitHub.com:8443/o/r", "https://github.com:8443/o/r"),
        ("ssh://git:pw@host.example/srv/r.git", "ssh://host.example/srv/r.git"),
        ("git@github.com:o/r.git", "github.com:o/r.git"),
        ("/srv/git/r.git", None),
        ("file:///srv/git/r.git", None),
        ("../r.git", None),
    ],
)
def test_public_url_strips_credentials_and_hides_local_paths(url: str, shown: str | None) -> None:
    assert public_url(url) == shown


def test_the_name_is_the_push_remote_else_the_directory(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "shop")
    commit(repo, {"a": "1\n"})
    assert public_name(discover(str(repo))) == "shop"
    git(repo, "remote", "add", "origin", "https://ada:tok@example.org/dana/shop.git")
    assert public_name(discover(str(repo))) == "https://example.org/dana/shop.git"
    git(repo, "remote", "add", "fork", "git@example.org:ada/shop.git")
    git(repo, "config", "branch.main.remote", "fork")
    assert default_remote(discover(str(repo))) == "fork"
    assert public_name(discover(str(repo))) == "example.org:ada/shop.git"
    bare = tmp_path / "local.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(bare), str(clone))
    assert public_name(discover(str(clone))) == "clone"  # a local remote is no name
