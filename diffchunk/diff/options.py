"""How a diff is turned into chunks: :class:`LoadOptions` and its limits.

Kept apart from :mod:`diffchunk.diff.pipeline` so that validating options
(in the CLI, before ``git diff`` starts) loads nothing of the pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from ..errors import InvalidArgument
from ..limits import CHUNK_DEFAULT_LINES
from .patterns import split_patterns

MIN_CHUNK_LINES = 10
"""A chunk holds a file header (up to 4 lines for a git diff) and lines of a
hunk: below 10 lines a part of a cut file would be mostly headers."""

MAX_CHUNK_LINES = 1_000_000
"""An upper bound no review needs (a context window holds far fewer lines), so
that a mistyped number is refused instead of asking for one huge chunk."""

MAX_CONTEXT_LINES = 1_000_000
"""The same bound for ``context_lines``."""


#: Progress callback: ``(stage description, fraction done)``.
Progress = Callable[[str, float], None]

#: The orders files can be chunked in (see :mod:`diffchunk.diff.review_order`):
#: ``path`` (the diff's own) or ``review`` (code, its tests, docs, config,
#: generated files last).
ORDERS = ("path", "review")

#: The ways a chunk can be shown (see :mod:`diffchunk.diff.formatter`).
FORMATS = ("raw", "annotated", "compact", "lean")


def _check_patterns(name: str, value: str | None) -> str | None:
    """Validate a comma-separated glob list (caps, types); blank means None."""
    if value is None:
        return None
    split_patterns(value, name=name)  # raises InvalidArgument with the limits
    return value if value.strip() else None


def _check_int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(
            f"{name} must be an integer between {low} and {high}, got {value!r}.",
        )
    if not low <= value <= high:
        raise InvalidArgument(
            f"{name}={value} is out of range; use a value between {low} and {high}.",
        )
    return value


@dataclass(frozen=True, slots=True)
class LoadOptions:
    """How a diff is turned into chunks.  Validated on construction."""

    max_chunk_lines: int = CHUNK_DEFAULT_LINES
    skip_trivial: bool = True
    skip_generated: bool = True
    include_patterns: str | None = None
    exclude_patterns: str | None = None
    context_lines: int | None = None
    gitattributes_path: str | None = None
    order: str = "path"

    def __post_init__(self) -> None:
        _check_int("max_chunk_lines", self.max_chunk_lines, MIN_CHUNK_LINES, MAX_CHUNK_LINES)
        if self.context_lines is not None:
            value = self.context_lines
            if isinstance(value, int) and not isinstance(value, bool) and value < 0:
                raise InvalidArgument(
                    f"context_lines={value} is negative.",
                    suggestion="Use 0 (changed lines only), a positive number, "
                    "or leave it unset to keep every context line.",
                )
            _check_int("context_lines", self.context_lines, 0, MAX_CONTEXT_LINES)
        for name in ("skip_trivial", "skip_generated"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidArgument(f"{name} must be true or false.")
        # Blank pattern lists become None, so that equal options compare (and show)
        # equal: set on the frozen object here, the one way a dataclass normalises.
        object.__setattr__(
            self, "include_patterns", _check_patterns("include_patterns", self.include_patterns)
        )
        object.__setattr__(
            self, "exclude_patterns", _check_patterns("exclude_patterns", self.exclude_patterns)
        )
        if self.gitattributes_path is not None and not isinstance(self.gitattributes_path, str):
            raise InvalidArgument("gitattributes_path must be a path string.")
        order = self.order.strip().lower() if isinstance(self.order, str) else None
        if order not in ORDERS:
            raise InvalidArgument(
                f"Unknown order {self.order!r}: valid orders are {', '.join(ORDERS)}.",
                suggestion="Use 'path' for the diff's own order, or 'review' for code first, "
                "each test after its source, then docs and config, generated files last.",
            )
        object.__setattr__(self, "order", order)

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> LoadOptions:
        """The options named in ``values`` (a tool's or a command's parameters, by
        name; the others are left out), checked: the one place options are assembled."""
        return cls(**{f.name: values[f.name] for f in fields(cls) if f.name in values})

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
