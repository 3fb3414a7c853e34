"""Views of a diff: the same diff cut with other load options, side by side.

A diff file's own path always serves its *default* view (the default load
options).  A load with any other options (``load_diff``/``load_git_diff``
with patterns, ``context_lines``, another ``max_chunk_lines``...) does not
take that view away: it returns, as ``file_path``, a *view handle* — a small
file ``<cache>/views/<diff name>-<hash>.diffview`` holding the diff's real
path and the options — and every diff tool takes that handle wherever it
takes a diff path (the session store reads it, :func:`read_view`).  So the
full view and any number of narrowed ones are served at once, each under
its own name, in this process or another: nobody needs to reload to get one
back.

A handle is named by the diff's real path and the options (the same load
gives the same handle), written once (temporary file + rename) and read-only
in use; the review record treats a view as its diff (its session's
``path`` is the diff's real path).  Handles are small: at most
:data:`MAX_VIEWS` are kept, least recently returned first to go, and one
whose diff is gone is removed once it is a day old.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from ...diff.options import LoadOptions
from ...errors import InvalidArgument, PathError
from ...fdio import prune_files, replace_file
from ...git.cache import default_cache_dir
from ...paths import expand

MAX_VIEWS = 500
"""View handles kept in the cache (each is a few hundred bytes)."""

VIEW_ORPHAN_SECONDS = 24 * 3600
"""A view handle whose diff is gone is removed after this long: its diff may
come back for a moment, as a working-tree diff is written anew."""

VIEW_HANDLE_MAX_BYTES = 64 * 1024
"""Larger files are not view handles (a handle is a few hundred bytes): a large
file is never parsed as one."""

VIEW_NAME_STEM_CHARS = 60
"""Characters of the diff's file name kept in a view handle's name: with the
key and suffix, the name stays far below the 255-byte limit of file names."""


FORMAT = "diffchunk-view/1"
SUFFIX = ".diffview"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True, slots=True)
class View:
    """A view handle: ``handle`` (its real path) shows ``diff`` (a real path) cut with
    ``options``."""

    handle: str
    diff: str
    options: LoadOptions


def views_dir() -> Path:
    return default_cache_dir() / "views"


def is_view_path(path: str) -> bool:
    """Whether ``path`` names a view handle (by its suffix; :func:`read_view` checks it)."""
    return isinstance(path, str) and path.rstrip().endswith(SUFFIX)


def describe(options: LoadOptions) -> str:
    """The options that differ from the defaults, as ``name=value`` text."""
    default = LoadOptions().as_dict()
    shown = [f"{k}={v!r}" for k, v in options.as_dict().items() if default[k] != v]
    return ", ".join(shown) or "the default options"


def _gone(handle: str, why: str) -> PathError:
    return PathError(
        f"The view handle {handle!r} cannot be used: {why}.",
        suggestion="Load the diff again with the options you want (load_diff, or "
        "load_git_diff for a range): it returns a current handle.",
        cli_suggestion="Review the diff file or range itself with the options you want "
        "(`diffchunk review TARGET --max-chunk-lines N ...`), not the view's path.",
    )


def read_view(path: str) -> View:
    """The view a handle names (its options checked); PathError when it is unusable."""
    import json  # loaded on first use, as the sidecar loads it: not at every start

    real = os.path.realpath(expand(path))
    try:
        with open(real, "rb") as fh:
            raw = fh.read(VIEW_HANDLE_MAX_BYTES + 1)
    except FileNotFoundError:
        raise _gone(path, "it does not exist (views are pruned with the cache)") from None
    except OSError as exc:
        raise _gone(path, exc.strerror or str(exc)) from None
    try:
        payload = json.loads(raw) if len(raw) <= VIEW_HANDLE_MAX_BYTES else None
    except ValueError:
        payload = None
    if (
        not isinstance(payload, dict)
        or payload.get("format") != FORMAT
        or not isinstance(payload.get("diff"), str)
        or not isinstance(payload.get("options"), dict)
    ):
        raise _gone(path, "it is not a view handle written by diffchunk")
    try:
        options = LoadOptions(**payload["options"])
    except (TypeError, InvalidArgument) as exc:
        raise _gone(path, f"its options are not valid ({exc})") from None
    return View(real, payload["diff"], options)


def view_for(diff_real: str, options: LoadOptions) -> str:
    """The handle of ``diff_real`` (a real path) cut with ``options``, written when new.

    Raises PathError when the cache directory cannot take it.
    """
    import json

    payload = {"format": FORMAT, "diff": diff_real, "options": options.as_dict()}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=True)
    key = hashlib.sha256(text.encode("ascii")).hexdigest()[:16]
    stem = _UNSAFE.sub("_", os.path.basename(diff_real))[:VIEW_NAME_STEM_CHARS] or "diff"
    directory = views_dir()
    target = directory / f"{stem}-{key}{SUFFIX}"
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if target.is_file():
            os.utime(target)  # recently returned: pruned last
            return str(target)
        replace_file(target, text.encode("ascii"), mode=0o600, durable=False)
    except OSError as exc:
        raise PathError(
            f"Cannot write a view handle in {directory}: {exc.strerror or exc}.",
            suggestion="Set DIFFCHUNK_CACHE_DIR to a writable directory.",
        ) from None
    _prune(directory, keep=target)
    return str(target)


def _prune(directory: Path, keep: Path) -> None:
    """Remove handles beyond :data:`MAX_VIEWS` (least recently returned first) and
    handles of diffs gone for a day."""
    now = time.time()

    def orphan(path: str, mtime: float) -> bool:
        return now - mtime > VIEW_ORPHAN_SECONDS and not _diff_exists(Path(path))

    prune_files(directory, keep, max_count=MAX_VIEWS, suffix=SUFFIX, stale=orphan)


def _diff_exists(handle: Path) -> bool:
    try:
        return os.path.isfile(read_view(str(handle)).diff)
    except PathError:
        return False


def other_views(sessions: list[tuple[str, LoadOptions, int]], current: str) -> str:
    """``path (options, N chunks); ...`` of the loaded views of a diff but ``current``.

    ``sessions``: ``(handle, options, chunks)`` of every loaded view of the diff.
    """
    shown = [
        f"{handle} ({describe(options)}, {chunks} chunk{'s' if chunks != 1 else ''})"
        for handle, options, chunks in sessions
        if handle != current
    ]
    return "; ".join(shown)


def clear_views() -> int:
    """Remove every view handle; returns how many."""
    removed = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(views_dir()):
            if entry.name.endswith(SUFFIX):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed += 1
    return removed
