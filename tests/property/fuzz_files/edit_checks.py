"""Exact and fuzzy ``edit_content`` against their models: in memory, streamed, anchored."""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

from diffchunk.files import byte_reader, edit_snapshot, fuzzy_block
from diffchunk.files.edit import edit_content, list_backups

from .cases import EditCase, FuzzyEditCase
from .fuzzy_edit_model import (
    FUZZY_EDIT_THRESHOLD,
    Placed,
    batch_bytes,
    change_outcomes,
    may_refuse,
)
from .models import expected_edit
from .textfile import check_detection, model_lines


def check_edit(case: EditCase, directory: Path) -> None:
    """Raise AssertionError when ``edit_content`` disagrees with the model.

    Each case edits a new path (backups are kept per path, and pruned), once
    in memory and once streamed in tiny windows as a huge file would be.
    """
    for stream in (False, True):
        with tempfile.TemporaryDirectory(dir=directory) as fresh, edit_mode(stream=stream):
            try:
                _check_edit(case, Path(fresh) / "sample.txt")
            except AssertionError as exc:
                raise AssertionError(f"{'streamed' if stream else 'in memory'}: {exc}") from None


@contextmanager
def edit_mode(*, stream: bool, anchored: bool = False) -> Iterator[None]:
    """With ``stream``, edits read the file by ``pread`` in 64-byte windows; with
    ``anchored``, fuzzy matching looks only near the search text's words, as it
    does in files over ``fuzzy_block.FULL_FUZZY_LIMIT``."""
    saved = edit_snapshot.IN_MEMORY_LIMIT, byte_reader.BLOCK, fuzzy_block.FULL_FUZZY_LIMIT
    try:
        if stream:
            edit_snapshot.IN_MEMORY_LIMIT, byte_reader.BLOCK = 0, 64
        if anchored:
            fuzzy_block.FULL_FUZZY_LIMIT = 0
        yield
    finally:
        edit_snapshot.IN_MEMORY_LIMIT, byte_reader.BLOCK, fuzzy_block.FULL_FUZZY_LIMIT = saved


def _check_edit(case: EditCase, path: Path) -> None:
    original = case.file.to_bytes()
    path.write_bytes(original)
    check_detection(case.file, path)
    changes = [{"search": s, "replace": r} for s, r in case.changes]
    want = expected_edit(case)
    before = len(list_backups(str(path)))
    preview = edit_content(str(path), changes, fuzzy=False, preview=True).to_dict()
    assert path.read_bytes() == original, "preview changed the file"
    assert preview["success"] == (want is not None), (
        f"preview success={preview['success']}, model expects {want is not None}: {preview}"
    )
    result = edit_content(str(path), changes, fuzzy=False, preview=False).to_dict()
    after = len(list_backups(str(path)))
    actual = path.read_bytes()
    if want is None:
        assert not result["success"], f"edit accepted, model refuses: {result}"
        assert actual == original, "refused edit changed the file"
        assert after == before, "refused edit made a backup"
        return
    assert result["success"], f"edit refused, model accepts: {result}"
    assert actual == want, f"bytes differ:\n got  {actual!r}\n want {want!r}"
    if want == original:
        assert after == before, "edit that changes nothing made a backup"
    else:
        assert after == before + 1, f"expected one new backup, {after - before} made"


def _reported_as(placed: Placed, result: dict[str, object]) -> bool:
    if result.get("match_type") != placed.match_type or result.get("line_number") != placed.line:
        return False
    similarity = result.get("similarity")
    if placed.similarity is None:
        return similarity is None
    return (
        isinstance(similarity, float)
        and abs(similarity - float(placed.similarity)) <= 0.0005 + 1e-9
    )


FUZZY_EDIT_MODES = ("memory", "stream", "anchored")
_MAX_COMBINATIONS = 4096


@contextmanager
def fuzzy_threshold(value: float | None) -> Iterator[None]:
    saved = os.environ.get("DIFFCHUNK_FUZZY_THRESHOLD")
    try:
        if value is None:
            os.environ.pop("DIFFCHUNK_FUZZY_THRESHOLD", None)
        else:
            os.environ["DIFFCHUNK_FUZZY_THRESHOLD"] = repr(value)
        yield
    finally:
        if saved is None:
            os.environ.pop("DIFFCHUNK_FUZZY_THRESHOLD", None)
        else:
            os.environ["DIFFCHUNK_FUZZY_THRESHOLD"] = saved


def check_fuzzy_edit(case: FuzzyEditCase, directory: Path) -> str:
    """Raise AssertionError when a fuzzy ``edit_content`` breaks the documented rule."""
    tf = case.file
    lines = model_lines(tf)
    threshold = Fraction(str(case.threshold)) if case.threshold else FUZZY_EDIT_THRESHOLD
    outcomes = {
        anchored: [
            change_outcomes(tf, lines, change, threshold, fuzzy=case.fuzzy, anchored=anchored)
            for change in case.changes
        ]
        for anchored in (False, True)
    }
    tag = ""
    with fuzzy_threshold(case.threshold):
        for mode in FUZZY_EDIT_MODES:
            anchored = mode == "anchored"
            with (
                tempfile.TemporaryDirectory(dir=directory) as fresh,
                edit_mode(stream=mode != "memory", anchored=anchored),
            ):
                try:
                    outcome = _check_fuzzy_edit(
                        case, Path(fresh) / "sample.txt", outcomes[anchored]
                    )
                except AssertionError as exc:
                    raise AssertionError(f"{mode}: {exc}") from None
                tag = tag or outcome
    return tag


def _check_fuzzy_edit(case: FuzzyEditCase, path: Path, outcomes: list[list[Placed | None]]) -> str:
    tf = case.file
    original = tf.to_bytes()
    path.write_bytes(original)
    check_detection(tf, path)
    changes: list[dict[str, object]] = []
    for search, replacement, own in case.changes:
        change: dict[str, object] = {"search": search, "replace": replacement}
        if own is not None:
            change["fuzzy"] = own
        changes.append(change)
    before = len(list_backups(str(path)))
    preview = edit_content(str(path), changes, fuzzy=case.fuzzy, preview=True).to_dict()
    assert path.read_bytes() == original, "preview changed the file"
    result = edit_content(str(path), changes, fuzzy=case.fuzzy, preview=False).to_dict()
    after = len(list_backups(str(path)))
    actual = path.read_bytes()
    assert preview["results"] == result["results"], (
        f"preview and edit differ: {preview['results']} / {result['results']}"
    )
    if not result["success"]:
        assert may_refuse(tf, outcomes), (
            f"edit refused, model places every change: {_describe(outcomes)}; "
            f"tool: {result['results']}"
        )
        assert actual == original, "refused edit changed the file"
        assert after == before, "refused edit made a backup"
        return "refused"
    choices = []
    for index, (options, reported) in enumerate(zip(outcomes, result["results"], strict=True)):
        fitting = [p for p in options if p is not None and _reported_as(p, reported)]
        assert fitting, (
            f"change {index} placed at line {reported['line_number']} "
            f"({reported['match_type']}, similarity {reported['similarity']}), "
            f"model: {_describe([options])}"
        )
        choices.append(fitting)
    want: bytes | None = None
    for count, combination in enumerate(itertools.product(*choices)):
        if count >= _MAX_COMBINATIONS:
            raise AssertionError("too many placements to compare")
        candidate = batch_bytes(tf, combination)
        want = want or candidate
        if candidate == actual:
            writes = any(p.text != tf.text[p.start : p.end] for p in combination)
            if writes:
                assert after == before + 1, f"expected one new backup, {after - before} made"
            else:
                assert after == before and actual == original, "edit changing nothing wrote"
            kinds = {p.match_type for p in combination}
            return "applied, with fuzzy matches" if "fuzzy" in kinds else "applied, exact only"
    raise AssertionError(f"bytes differ:\n got  {actual!r}\n want {want!r}")


def _describe(outcomes: list[list[Placed | None]]) -> str:
    parts = []
    for options in outcomes:
        shown = [
            "refuse"
            if p is None
            else f"{p.match_type}@{p.line}"
            + (f"~{float(p.similarity):.3f}" if p.similarity is not None else "")
            for p in options[:6]
        ]
        parts.append("|".join(shown) + (" ..." if len(options) > 6 else ""))
    return "; ".join(parts)
