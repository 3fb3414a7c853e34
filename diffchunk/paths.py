"""Validation of user-supplied file paths, shared by the diff and file tools.

Rules: absolute paths only (``~`` is expanded first), resolved with
``realpath`` so one file has one key, and only regular files: directories,
FIFOs and devices are refused *before* anything is opened, so ``/dev/zero``
or a named pipe can never hang a tool.
"""

from __future__ import annotations

import errno
import os
import stat

from .errors import PathError


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


def fingerprint(st: os.stat_result) -> tuple[int, int, int, int, int]:
    """A cheap identity of a file version: changes whenever content may have."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
