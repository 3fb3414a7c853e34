"""How the record names a repository outside this machine: never by a local path.

The exports meant for others (the GitHub review body, SARIF) and the synced
record name a git review's repository by :func:`repository_name`: its
default remote's URL without credentials, else its directory's name
(:func:`diffchunk.git.remotes.public_name`).  Read once per process and
directory; a repository that cannot be opened any more is named by its
directory.
"""

from __future__ import annotations

import functools
import logging

from ...git.remotes import directory_name

logger = logging.getLogger(__name__)


@functools.lru_cache(maxsize=64)
def repository_name(repository_path: str) -> str:
    """The public name of the repository at ``repository_path``."""
    from ...git.remotes import public_name
    from ...git.repo import discover

    try:
        return public_name(discover(repository_path))
    except Exception as exc:  # gone, moved, outside the roots: its directory's name
        logger.debug("Naming %s by its directory: %s", repository_path, exc)
        return directory_name(repository_path)
