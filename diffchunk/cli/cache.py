"""``diffchunk cache``: where generated diffs are kept, and emptying it."""

from __future__ import annotations

import click

from ..git.cache import DiffCache
from .params import CONTEXT_SETTINGS


@click.group(context_settings=CONTEXT_SETTINGS)
def cache() -> None:
    """The cache of diffs generated from git ranges, view handles and file snapshots.

    Location: $DIFFCHUNK_CACHE_DIR, else $XDG_CACHE_HOME/diffchunk, else
    ~/.cache/diffchunk. It is bounded (least recently used entries go first);
    the pre-push hook keeps its diffs under .git/diffchunk/ instead. views/
    holds the handles of diffs loaded with other options, blobs/ the files
    open_file_version wrote.
    """


@cache.command(context_settings=CONTEXT_SETTINGS)
def path() -> None:
    """Print the cache directory (with its size on stderr).

    \b
    Examples:
      diffchunk cache path
      du -sh "$(diffchunk cache path)"
    """
    stats = DiffCache().stats()
    click.echo(stats.path)
    click.echo(f"{stats.entries} diff(s), {stats.bytes / 1e6:.1f} MB", err=True)


@cache.command(context_settings=CONTEXT_SETTINGS)
def clear() -> None:
    """Remove every cached diff, view handle and file snapshot.

    \b
    Examples:
      diffchunk cache clear
    """
    from ..review.sessions.views import clear_views
    from ..snapshots import clear as clear_snapshots

    store = DiffCache()
    removed = store.clear()
    views = clear_views()
    snapshots = clear_snapshots()
    click.echo(
        f"Removed {removed} cached diff(s), {views} view handle(s) and {snapshots} file "
        f"snapshot(s) from {store.directory}."
    )
