"""A repository's remotes, read from its config as diffchunk parses it (no git runs).

- :func:`default_remote`: the remote ``git push`` would use for the current
  branch (``branch.<name>.pushRemote``, ``remote.pushDefault``,
  ``branch.<name>.remote``), else ``origin``;
- :func:`remote_url`: ``remote.<name>.url`` (None when unset);
- :func:`public_url`: a URL as it may be shown outside this machine: the
  user name, password or token of ``https://user:token@host/...`` and any
  query or fragment cut (``https://host/owner/repo.git``); ``user@host:path``
  (scp-like ssh) becomes ``host:path``; a local path or ``file://`` URL is not
  public (None);
- :func:`public_name`: the default remote's public URL, else the name of the
  repository's directory (``project``, ``project.git``) — never a local path.
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit, urlunsplit

from ..fdio import read_small_file
from .discovery import GIT_SMALL_FILE_BYTES
from .repo import Repo

_SCP = re.compile(r"^(?:[^@/:]+@)?([^/:]+):(?!//)(.+)$")
_NETWORK_SCHEMES = frozenset({"http", "https", "ssh", "git", "ftp", "ftps"})


def current_branch(repo: Repo) -> str | None:
    """The branch ``HEAD`` names (``feature``), from the git dir's ``HEAD`` file."""
    try:
        head = read_small_file(os.path.join(repo.git_dir, "HEAD"), GIT_SMALL_FILE_BYTES)
    except OSError:
        return None
    text = head.decode("utf-8", "replace").strip()
    prefix = "ref: refs/heads/"
    return text[len(prefix) :] if text.startswith(prefix) else None


def default_remote(repo: Repo) -> str:
    """The remote a push of the current branch goes to (see the module doc)."""
    branch = current_branch(repo)
    keys = []
    if branch is not None:
        keys.append(f"branch.{branch}.pushremote")
    keys.append("remote.pushdefault")
    if branch is not None:
        keys.append(f"branch.{branch}.remote")
    for key in keys:
        item = repo.setting(key)
        if item is not None and item.value and item.value != ".":
            return item.value
    return "origin"


def remote_url(repo: Repo, name: str) -> str | None:
    """``remote.<name>.url`` (the last one set), or None."""
    item = repo.setting(f"remote.{name}.url")
    return item.value if item is not None and item.value else None


def public_url(url: str) -> str | None:
    """``url`` without credentials, query or fragment; None for a local repository."""
    url = url.strip()
    if "://" in url:
        parts = urlsplit(url)
        if parts.scheme.lower() not in _NETWORK_SCHEMES or not parts.hostname:
            return None
        host = parts.hostname
        if ":" in host:  # an IPv6 address
            host = f"[{host}]"
        netloc = host if parts.port is None else f"{host}:{parts.port}"
        return urlunsplit((parts.scheme.lower(), netloc, parts.path, "", ""))
    scp = _SCP.match(url)
    if scp is not None and not os.path.isabs(url) and not url.startswith("."):
        return f"{scp.group(1)}:{scp.group(2)}"
    return None


def public_name(repo: Repo) -> str:
    """How the repository is named outside this machine (see the module doc)."""
    url = remote_url(repo, default_remote(repo))
    public = public_url(url) if url is not None else None
    if public is not None:
        return public
    return directory_name(repo.path)


def directory_name(path: str) -> str:
    """The last component of a repository's directory (``project``, ``project.git``)."""
    return os.path.basename(os.path.normpath(path)) or "repository"
