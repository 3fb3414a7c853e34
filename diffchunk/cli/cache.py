"""``diffchunk cache``: where generated diffs are kept, and emptying it."""

from __future__ import annotations

import click

from ..git.cache import DiffCache

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT_SETTINGS)
def cache() -> None:
    """The cache of diffs generated from git ranges.

    Location: $DIFFCHUNK_CACHE_DIR, else $XDG_CACHE_HOME/diffchunk, else
    ~/.cache/diffchunk. It is bounded (least recently used entries go first);
    the pre-push hook keeps its diffs under .git/diffchunk/ instead.
    """


@cache.command(context_settings=CONTEXT_SETTINGS)
def path() -> None:
    """Print the cache directory (with its size on stderr)."""
    stats = DiffCache().stats()
    click.echo(stats.path)
    click.echo(f"{stats.entries} diff(s), {stats.bytes / 1e6:.1f} MB", err=True)


@cache.command(context_settings=CONTEXT_SETTINGS)
def clear() -> None:
    """Remove every cached diff."""
    store = DiffCache()
    removed = store.clear()
    click.echo(f"Removed {removed} cached diff(s) from {store.directory}.")
