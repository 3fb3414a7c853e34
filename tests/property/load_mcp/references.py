"""The calls the clients make, each with its answer computed beforehand in this process."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from diffchunk.errors import DiffchunkError
from diffchunk.files import content_read, content_search, overview
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools
from diffchunk.review.tools.plan import load_plan

Check = Callable[[bool, str], str | None]  # (is_error, text) -> failure message or None


@dataclass(frozen=True)
class Op:
    """One tool call and how to check its answer."""

    tool: str
    args: dict[str, Any]
    check: Check


def _equal_text(expected: str) -> Check:
    def check(is_error: bool, text: str) -> str | None:
        if is_error:
            return f"unexpected error: {text[:200]}"
        if text != expected:
            return f"text differs ({len(text)} vs {len(expected)} chars)"
        return None

    return check


def _equal_json(expected: Any) -> Check:
    def check(is_error: bool, text: str) -> str | None:
        if is_error:
            return f"unexpected error: {text[:200]}"
        try:
            got = json.loads(text)
        except ValueError:
            return f"not JSON: {text[:200]}"
        if got != expected:
            return "JSON differs from the reference"
        return None

    return check


def _equal_load(expected: Any, change: str | None) -> Check:
    """A load's answer: its JSON block, then the change's text block when there is one
    (the clients join the blocks)."""

    def check(is_error: bool, text: str) -> str | None:
        if is_error:
            return f"unexpected error: {text[:200]}"
        try:
            got, end = json.JSONDecoder().raw_decode(text)
        except ValueError:
            return f"not JSON: {text[:200]}"
        if got != expected:
            return "JSON differs from the reference"
        if text[end:] != (change or ""):
            return "the change differs from the reference"
        return None

    return check


def _load_expected(path: str, store: SessionStore) -> Check:
    """``load_diff`` as the tool answers: the summary and the plan, then the change."""
    try:
        summary = diff_tools.load_diff(path, store=store)
    except DiffchunkError as exc:
        return _error_with(exc.message)
    plan = load_plan(summary.file_path, store=store)
    head = {**summary.to_dict(), **plan.to_dict()}
    return _equal_load(json.loads(json.dumps(head, ensure_ascii=False)), plan.change)


def _error_with(message: str) -> Check:
    def check(is_error: bool, text: str) -> str | None:
        if not is_error:
            return "expected an error result"
        # The server may return the message as JSON text (escaped characters).
        if message not in text and json.dumps(message)[1:-1] not in text:
            return f"error text lacks {message[:80]!r}: {text[:200]}"
        return None

    return check


def _expect(call: Callable[[], Any], as_json: bool) -> Check:
    try:
        value = call()
    except DiffchunkError as exc:
        return _error_with(exc.message)
    if as_json:
        if hasattr(value, "to_dict"):  # a typed result: the tool sends its to_dict()
            value = value.to_dict()
        return _equal_json(json.loads(json.dumps(value, ensure_ascii=False)))
    assert isinstance(value, str)
    return _equal_text(value)


def _found_chunks(path: str, pattern: str, store: SessionStore) -> Any:
    """find_chunks_for_files as the tool answers: each chunk with its matching files (a
    page of them when they do not all fit one answer)."""
    return diff_tools.find_chunks_page(path, pattern, store=store).answer()


def diff_ops(path: str, store: SessionStore, rng: random.Random, samples: int) -> list[Op]:
    """Calls of every diff tool on ``path`` with answers computed in-process."""
    ops: list[Op] = []

    def add(tool: str, args: dict[str, Any], call: Callable[[], Any], as_json: bool) -> None:
        ops.append(Op(tool, {"absolute_file_path": path, **args}, _expect(call, as_json)))

    ops.append(Op("load_diff", {"absolute_file_path": path}, _load_expected(path, store)))
    listing = diff_tools.list_chunks(path, store=store).to_dict()
    add("list_chunks", {}, lambda: listing, True)
    if "next_offset" in listing:
        nxt = listing["next_offset"]
        add(
            "list_chunks",
            {"offset": nxt},
            lambda: diff_tools.list_chunks(path, nxt, store=store).to_dict(),
            True,
        )
    total = int(listing["total_chunks"])
    for _ in range(samples):
        n = rng.randint(1, total)
        fmt = rng.choice(("raw", "raw", "annotated", "compact"))
        ctx = rng.random() < 0.5
        add(
            "get_chunk",
            {"chunk_number": n, "include_context": ctx, "format": fmt},
            partial(diff_tools.get_chunk, path, n, ctx, fmt, store=store),
            False,
        )
    add(
        "get_chunk",
        {"chunk_number": total + 1},
        lambda: diff_tools.get_chunk(path, total + 1, store=store),
        False,
    )
    session = store.get(path)
    paths = [fd.path for fd in session.review.parsed.files if fd.path]
    for file_path in rng.sample(paths, min(samples, len(paths))):
        add(
            "get_file_diff",
            {"file_path": file_path},
            partial(diff_tools.get_file_diff, path, file_path, store=store),
            False,
        )
    for pattern in ("*.py", "*.rst", "lib/**", "test_*", "*.nothing", "src/*"):
        add(
            "find_chunks_for_files",
            {"pattern": pattern},
            partial(_found_chunks, path, pattern, store),
            True,
        )
    return ops


def write_log(path: Path, lines: int, seed: int = 7) -> None:
    """A synthetic application log: timestamps, levels, request ids."""
    rng = random.Random(seed)
    levels = ("INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR")
    with open(path, "wb") as fh:
        buf: list[bytes] = []
        for i in range(lines):
            level = rng.choice(levels)
            code = rng.randrange(10_000)
            buf.append(
                f"2026-11-21T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d} "
                f"{level} worker-{rng.randrange(16)} request={rng.getrandbits(48):012x} "
                f"code={code} handled in {rng.randrange(1, 900)} ms\n".encode()
            )
            if len(buf) >= 10_000:
                fh.write(b"".join(buf))
                buf.clear()
        fh.write(b"".join(buf))


def log_ops(path: str, lines: int, rng: random.Random, samples: int) -> list[Op]:
    ops: list[Op] = []

    def add(tool: str, args: dict[str, Any], call: Callable[[], Any]) -> None:
        ops.append(Op(tool, {"absolute_file_path": path, **args}, _expect(call, True)))

    add("get_overview", {}, lambda: overview.get_overview(path))
    for _ in range(samples):
        code = rng.randrange(10_000)
        add(
            "search_content",
            {"pattern": f"code={code} ", "fuzzy": False, "max_results": 5},
            partial(
                content_search.search_content, path, f"code={code} ", max_results=5, fuzzy=False
            ),
        )
    add(
        "search_content",
        {"pattern": "ERROR", "fuzzy": False, "count_only": True},
        lambda: content_search.search_content(path, "ERROR", fuzzy=False, count_only=True),
    )
    add(
        "search_content",
        {"pattern": r"code=99\d\d handled", "fuzzy": False, "regex": True, "max_results": 10},
        lambda: content_search.search_content(
            path, r"code=99\d\d handled", max_results=10, fuzzy=False, regex=True
        ),
    )
    for _ in range(samples):
        offset = rng.randint(1, lines)
        add(
            "read_content",
            {"offset": offset, "limit": 50},
            partial(content_read.read_content, path, offset=offset, limit=50),
        )
    add(
        "read_content",
        {"mode": "tail", "limit": 100},
        lambda: content_read.read_content(path, mode="tail", limit=100),
    )
    add(
        "read_content",
        {"mode": "head", "limit": 100},
        lambda: content_read.read_content(path, mode="head", limit=100),
    )
    return ops
