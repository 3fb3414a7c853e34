"""Validation of user-supplied file paths, shared by the diff and file tools.

Also where diffchunk keeps its state (:func:`state_dir`: the review record,
the backups of edited files) and its cache (:func:`cache_dir`: generated
diffs, view handles, file snapshots).

Rules: absolute paths only (``~`` is expanded first), resolved with
``realpath`` so one file has one key, and only regular files: directories,
FIFOs and devices are refused *before* anything is opened, so ``/dev/zero``
or a named pipe can never hang a tool.

:class:`PathPolicy` is the optional containment check (allowed roots): a real
path must lie under one of the roots (``os.path.commonpath``), so ``..`` and
symbolic links cannot lead outside them.

The policy in force for the work being done is a context variable
(:func:`roots_in_force`, :func:`policy_in_force`): the MCP server sets it for
each call (its ``--allow-root``, ``DIFFCHUNK_ALLOWED_ROOTS`` or the client's
roots), the command line from ``DIFFCHUNK_ALLOWED_ROOTS``.  Worker threads
see the value of the call that started them (anyio copies the context), so
every layer can check a path that comes from data, not only the tools'
arguments: :func:`check_in_roots` and :func:`check_allowed_path` do, and the
git layer checks each directory git would read with the first.  Where nothing
put a policy in force (a library caller, a test), ``DIFFCHUNK_ALLOWED_ROOTS``
applies.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import NamedTuple

from . import settings
from .errors import PathError

STATE_ENV = "DIFFCHUNK_STATE_DIR"


def state_dir(environ: Mapping[str, str] | None = None) -> str:
    """diffchunk's state directory (not created): ``$DIFFCHUNK_STATE_DIR``, else
    ``$XDG_STATE_HOME/diffchunk``, else ``~/.local/state/diffchunk``.

    A relative ``DIFFCHUNK_STATE_DIR`` is taken from the current directory (as
    a shell user means it); a relative ``XDG_STATE_HOME`` is ignored, as the
    XDG base directory rules say.  The review record
    (``reviews.sqlite3``) and the backups of edited files live here.
    """
    configured = settings.directory(STATE_ENV, environ)
    if configured:
        return configured
    xdg = settings.directory("XDG_STATE_HOME", environ)
    if xdg:
        return os.path.join(xdg, "diffchunk")
    return os.path.join(os.path.expanduser("~"), ".local", "state", "diffchunk")


def cache_dir() -> str:
    """diffchunk's cache directory (not created): ``$DIFFCHUNK_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/diffchunk``, else ``~/.cache/diffchunk``.

    A relative ``DIFFCHUNK_CACHE_DIR`` is taken from the current directory (as
    a shell user means it); a relative ``XDG_CACHE_HOME`` is ignored.
    """
    explicit = settings.directory("DIFFCHUNK_CACHE_DIR")
    if explicit:
        return explicit
    xdg = settings.directory("XDG_CACHE_HOME")
    if xdg:
        return os.path.join(xdg, "diffchunk")
    return os.path.join(os.path.expanduser("~"), ".cache", "diffchunk")


def is_diff_file(target: str | None, staged: bool) -> bool:
    """``diffchunk review TARGET``: an existing path is a diff file; anything
    else (or ``--staged``) is a git range."""
    if target is None or staged:
        return False
    # lexists: a dangling link or a link loop is a (broken) file, not a range name.
    return os.path.lexists(os.path.expanduser(target))


def review_repo_path(repo: str | None) -> str:
    """The absolute repository path of ``diffchunk review --repo`` (default: here)."""
    try:
        return os.path.abspath(os.path.expanduser(repo or "."))
    except FileNotFoundError:  # os.getcwd(): the current directory was removed
        raise PathError(
            "The current directory no longer exists.",
            suggestion="cd to the repository again, or pass --repo /absolute/path.",
        ) from None


def expand(path: str) -> str:
    """Expand ``~``; refuse empty, NUL-containing and relative paths."""
    if not isinstance(path, str) or not path.strip():
        raise PathError(
            "The file path is empty.",
            suggestion="Pass an absolute path such as /home/me/changes.diff.",
        )
    if "\x00" in path:
        raise PathError(
            "The file path contains a NUL character.",
            suggestion="Pass the path exactly as it appears on disk.",
        )
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        raise PathError(
            f"The path {path!r} contains characters that cannot be part of a file name "
            "(unpaired surrogates).",
            suggestion="Pass the path exactly as it appears on disk.",
        ) from None
    expanded = os.path.expanduser(path.strip())
    if expanded.startswith("~"):
        user = expanded[1:].split("/", 1)[0]
        raise PathError(
            f"The path {path!r} starts with ~{user}, but there is no user {user!r} "
            "(or no home directory) to expand it to.",
            suggestion="Pass an absolute path such as /home/me/changes.diff.",
        )
    if not os.path.isabs(expanded):
        raise PathError(
            f"The path {path!r} is relative; an absolute path is required.",
            suggestion=f"Use the full path, e.g. {os.path.join(os.getcwd(), path)!r}.",
        )
    return expanded


def resolve_regular_file(path: str, *, what: str = "file") -> tuple[str, os.stat_result]:
    """Return ``(realpath, stat)`` of an existing, readable regular file.

    ``what`` names the expected thing in messages ("diff file", "file").
    """
    expanded = expand(path)
    try:
        real = os.path.realpath(expanded, strict=True)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathError(
                f"The path {path!r} is a symbolic link loop.",
                suggestion="Point to the real file instead.",
            ) from None
        raise PathError(
            f"The {what} {path!r} does not exist.",
            suggestion="Check the spelling, or list the directory to find the right path.",
        ) from None
    try:
        st = os.stat(real)
    except PermissionError:
        raise PathError(
            f"The {what} {path!r} cannot be accessed (permission denied).",
            suggestion="Check the file's permissions.",
        ) from None
    except OSError as exc:
        raise PathError(f"The {what} {path!r} cannot be accessed: {exc.strerror}.") from None
    if stat.S_ISDIR(st.st_mode):
        raise PathError(
            f"{path!r} is a directory, not a {what}.",
            suggestion=f"Pass the path of a {what} inside it.",
        )
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "named pipe (FIFO)"
            if stat.S_ISFIFO(st.st_mode)
            else "device"
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "socket"
            if stat.S_ISSOCK(st.st_mode)
            else "special file"
        )
        raise PathError(
            f"{path!r} is a {kind}, not a regular {what}; it is refused before reading.",
            suggestion=f"Save the content to a regular {what} first and pass that path.",
        )
    if not os.access(real, os.R_OK):
        raise PathError(
            f"The {what} {path!r} is not readable (permission denied).",
            suggestion="Check the file's permissions.",
        )
    return real, st


Fingerprint = tuple[int, int, int, int, int]


def fingerprint(st: os.stat_result) -> Fingerprint:
    """A cheap identity of a file version: changes whenever content may have."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


ROOTS_ENV = "DIFFCHUNK_ALLOWED_ROOTS"


def within(real: str, root: str) -> bool:
    """Whether the real path ``real`` is ``root`` or lies under it (both real, absolute)."""
    try:
        return os.path.commonpath([real, root]) == root
    except ValueError:
        return False


def check_allowed(
    real: str, roots: Sequence[str], *, shown: str | None = None, remedy: str | None = None
) -> None:
    """Refuse the real path ``real`` unless it lies under one of ``roots`` (real paths).

    ``shown`` is the path as the user gave it (for the message); ``remedy``
    says where roots are configured.  No roots means no restriction.
    """
    if not roots or any(within(real, root) for root in roots):
        return
    given = shown if shown is not None else real
    resolved = f" (resolves to {real})" if os.path.normpath(given) != real else ""
    raise PathError(
        f"The path {given!r}{resolved} is outside the allowed roots ({', '.join(roots)}).",
        suggestion=remedy
        or f"Ask the user to add its directory to the client's roots or to {ROOTS_ENV}.",
    )


class PathPolicy(NamedTuple):
    """Allowed roots (real, absolute paths) and where they were configured.

    ``source`` is shown in refusals so the user knows what to change.
    """

    roots: tuple[str, ...]
    source: str = ROOTS_ENV

    @classmethod
    def from_paths(cls, paths: Iterable[str], source: str) -> PathPolicy:
        """Expand ``~``, require absolute paths, and resolve symlinks of each root."""
        roots: list[str] = []
        for path in paths:
            if not path.strip():
                continue
            real = os.path.realpath(expand(path))
            if real not in roots:
                roots.append(real)
        return cls(tuple(roots), source)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> PathPolicy | None:
        """The policy of ``DIFFCHUNK_ALLOWED_ROOTS`` (os.pathsep-separated), or None if unset."""
        value = settings.text(ROOTS_ENV, environ)
        if not value:
            return None
        try:
            policy = cls.from_paths(value.split(os.pathsep), ROOTS_ENV)
        except PathError as exc:
            raise PathError(
                f"{ROOTS_ENV} is invalid: {exc.message}",
                suggestion=f"List absolute directories separated by {os.pathsep!r}.",
            ) from None
        return policy if policy.roots else None

    @property
    def remedy(self) -> str:
        where = {
            ROOTS_ENV: f"to {ROOTS_ENV} (the server's environment)",
            "--allow-root": "with another --allow-root option in the server's configuration",
            "client roots": "to the client's roots (the workspace folders it shares)",
        }.get(self.source, f"to {self.source}")
        return f"Ask the user to add its directory {where}."

    def check(self, path: str) -> str:
        """Return the real path of ``path`` if the policy allows it; else raise PathError.

        Symlinks are resolved first, so a link inside a root that points
        outside is refused; ``..`` cannot climb out either.
        """
        real = os.path.realpath(expand(path))
        check_allowed(real, self.roots, shown=path, remedy=self.remedy)
        return real


_IN_FORCE: ContextVar[PathPolicy | None] = ContextVar("diffchunk_allowed_roots")


def policy_in_force() -> PathPolicy | None:
    """The allowed roots in force for the work being done (None: no restriction).

    Put in force by the server for each call and by the command line for the
    whole command (:func:`roots_in_force`); where nothing did (a library caller,
    a test), ``DIFFCHUNK_ALLOWED_ROOTS``.
    """
    try:
        return _IN_FORCE.get()
    except LookupError:
        return PathPolicy.from_env()


@contextmanager
def roots_in_force(policy: PathPolicy | None) -> Iterator[PathPolicy | None]:
    """Make ``policy`` the one in force inside the block (and in the threads it starts
    through anyio, which copy the context)."""
    token = _IN_FORCE.set(policy if policy is not None and policy.roots else None)
    try:
        yield policy
    finally:
        _IN_FORCE.reset(token)


def check_in_roots(real: str, *, what: str) -> str:
    """Refuse the real, absolute path ``real`` unless it lies in the roots in force.

    ``what`` names it in the refusal ("the work tree of /r (core.worktree)").
    Returns ``real``.  The one check the layers below the shells make on a path
    that comes from data (a repository's config, a diff's record, the file a
    snapshot would be read from): code that opens such a path calls it first.
    """
    policy = policy_in_force()
    if policy is None or any(within(real, root) for root in policy.roots):
        return real
    raise PathError(
        f"{what[:1].upper()}{what[1:]} is {real}, outside the allowed roots "
        f"({', '.join(policy.roots)}); nothing was read there.",
        suggestion=policy.remedy,
    )


def check_allowed_path(path: str) -> None:
    """Refuse the absolute ``path`` (PathError) unless it lies under the allowed roots
    in force (:func:`policy_in_force`); no roots, no restriction.

    For paths that come from content rather than from a tool's arguments (a
    file a diff names in a work tree), which the server's check of the
    arguments never sees: the roots of the call (``--allow-root``, the
    client's roots) reach this layer.
    """
    policy = policy_in_force()
    if policy is not None:
        policy.check(path)
