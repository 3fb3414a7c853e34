"""Who is reviewing: the author the record writes on marks, findings and comments.

The reviewer is, first that is set:

1. the setting ``DIFFCHUNK_REVIEWER`` (:mod:`diffchunk.settings`), as written;
2. the repository's ``user.name`` and ``user.email`` (``Ada <ada@example.org>``,
   or either alone), read through the repository's config as diffchunk's git
   layer parses it (:attr:`diffchunk.git.repo.Repo.settings`): git is never run
   with the repository's config to ask;
3. the system user (:func:`getpass.getuser`), else ``unknown``.

A repository's reviewer is looked up once per process and directory (its
discovery prepares a sandbox); the variable is read at each call, so a test
or a shell that changes it is followed.  An author is at most
:data:`~diffchunk.limits.REVIEWER_CHARS` characters, on one line.
"""

from __future__ import annotations

import functools
import logging

from ... import settings
from ...limits import REVIEWER_CHARS

logger = logging.getLogger(__name__)

UNKNOWN = "unknown"


def reviewer(repository_path: str | None = None) -> str:
    """The author of what is written now in a review of ``repository_path`` (a work
    tree or a bare repository; None for a diff file)."""
    named = settings.text("DIFFCHUNK_REVIEWER")
    if named:
        return clean(named)
    if repository_path is not None:
        found = _configured(repository_path)
        if found:
            return found
    return _system_user()


def clean(name: str) -> str:
    """An author as stored: one line, at most :data:`REVIEWER_CHARS` characters."""
    one = " ".join(name.split())
    return one[:REVIEWER_CHARS] or UNKNOWN


@functools.lru_cache(maxsize=64)
def _configured(repository_path: str) -> str | None:
    from ...git.repo import discover  # only a git review asks

    try:
        repo = discover(repository_path)
    except Exception as exc:  # a review whose repository is gone still has a reviewer
        logger.debug("No git config for the reviewer in %s: %s", repository_path, exc)
        return None
    name = repo.setting("user.name")
    email = repo.setting("user.email")
    name_text = (name.value or "").strip() if name is not None else ""
    email_text = (email.value or "").strip() if email is not None else ""
    if name_text and email_text:
        return clean(f"{name_text} <{email_text}>")
    if name_text or email_text:
        return clean(name_text or email_text)
    return None


def _system_user() -> str:
    import getpass  # only when neither the variable nor git names the reviewer

    try:
        return clean(getpass.getuser())
    except Exception:  # no user name in the environment nor in the password database
        return UNKNOWN
