"""Building frozen dataclasses on the hot paths: :func:`fast_constructor`.

The one speed trick of the diff model, and where it is used: a frozen
dataclass's ``__init__`` sets every field through ``object.__setattr__``,
which costs more than the rest of making the object.  Measured on CPython
3.11 (``timeit``, per object): ``FileDiff`` 2.5 -> 1.5 us, ``Hunk`` 1.2 ->
0.6 us, ``ChunkPart`` 0.70 -> 0.39 us.  A ``FileDiff`` is made for each
file section the parser reads in full and each one a file table builds
again (:mod:`diffchunk.diff.table`), a ``Hunk`` per hunk built, a
``ChunkPart`` per part a part store gives back (:mod:`diffchunk.diff.chunk_parts`):
loading the generated 1M-line diff (8,557 files) took 6 to 8 ms more with
the classes' own constructors (CPU time, best of 9 loads: 377-384 against
371-378 ms).  So those three are made with constructors that write the
slots directly; everything else uses the classes themselves.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

__all__ = ["fast_constructor"]


def fast_constructor(cls: type[Any]) -> Callable[..., Any]:
    """A constructor for a frozen slots dataclass that writes the slots directly.

    Same parameters (names, order, defaults) as the class's ``__init__``, and
    an object equal to and indistinguishable from what the class makes, at
    about half the cost (see the module doc).  Only for classes without
    ``default_factory`` fields or ``__post_init__``; others get their own
    constructor back.
    """
    fields = dataclasses.fields(cls)
    if (
        not hasattr(cls, "__slots__")
        or hasattr(cls, "__post_init__")
        or any(f.default_factory is not dataclasses.MISSING for f in fields)
    ):
        return cls
    names = [f.name for f in fields]
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def make({', '.join(names)}):", "    obj = _new(_cls)"]
    for k, name in enumerate(names):
        env[f"_set{k}"] = vars(cls)[name].__set__
        lines.append(f"    _set{k}(obj, {name})")
    lines.append("    return obj")
    exec("\n".join(lines), env)  # the source is built from the field names above
    make: Callable[..., Any] = env["make"]
    defaults = [f.default for f in fields if f.default is not dataclasses.MISSING]
    make.__defaults__ = tuple(defaults)
    return make
