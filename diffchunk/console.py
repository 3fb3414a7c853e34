"""The ``diffchunk`` console script.

Kept apart from :mod:`diffchunk.cli` so that the cycle collector is already
off while the command line's modules load (see :func:`diffchunk.cli.run`).
"""

from __future__ import annotations

import gc

gc.disable()


def main() -> None:
    """Run the ``diffchunk`` command (exits the process)."""
    from .cli import run

    run()
