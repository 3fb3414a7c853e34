"""Click parameter types shared by the subcommands."""

from __future__ import annotations

from typing import Any

import click


class SafePath(click.Path):
    """``click.Path`` that refuses a NUL character with a usage error.

    (``click.Path`` passes such a value to ``os.stat``, which raises
    ``ValueError`` instead of an ``OSError`` click would report.)
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = value if isinstance(value, str) else str(value)
        if "\x00" in text:
            self.fail(
                f"{text!r} contains a NUL character; pass the path as it is on disk.", param, ctx
            )
        return super().convert(value, param, ctx)
