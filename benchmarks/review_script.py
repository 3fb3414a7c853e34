"""diffchunk's reading of a range in ``make bench-review``: an assistant following the
server's own instructions, scripted through the SDK's stdio client against the
installed ``diffchunk-mcp``.

A path is a list of steps (:data:`PATHS`); each step is a coroutine that
makes tool calls on a :class:`Review` and records, as a *gap*, what today's
tools cannot read and the plain git commands that read it instead.  To
measure a new tool, change a step or add one.

``plan`` is the path the instructions lead along (the default of the
benchmark's report):

- ``connect``: the tool list and the server's instructions, read once;
- ``overview`` (:func:`plan`): ``load_git_diff``; its plan lists the files by
  kind, and a small change comes whole in its answer (each of its files then
  counts as read in lean, and its chunks are marked reviewed); a plan that
  leaves files out is completed by the listing's pages;
- ``diffs`` (:func:`read_planned`): the planned files the load did not show,
  each kind's in one ``get_file_diff`` of their paths (and the files an answer
  leaves out next), code with ``format="lean", context="symbol"`` (its changed
  definitions whole), the rest in lean; ``mark_reviewed`` of each kind's
  files once read (step ``record``);
- ``unfold``: the changed lines of code lean left out (a run of removed
  lines, a deleted file: folded to the definitions they held, with their old
  line numbers), read from the file's old side: ``open_file_version(side="old")``
  and ``read_content`` of each run;
- ``definitions`` (:func:`unseen_definitions`): the enclosing definitions no
  answer showed whole, ``open_file_version`` and ``read_content``;
- ``callers``: ``find_references`` of each file's changed definitions at the
  head (one call a file; one call in all when the load's answer held the whole
  change), as many hits a name as plain git's ``git grep -w | head`` shows;
- ``log`` (:func:`plan_log`): the plan's log when it lists the commits (their
  messages with them), else ``list_commits(include_body=True)``, every page
  (its head line gives the next page's offset).

``chunks`` is the earlier flow (``load_git_diff(order="review")``, every page
of ``list_chunks(format="lean")``, each chunk in lean and ``mark_reviewed``,
every enclosing definition with ``read_content(mode="semantic")``);
``files`` reads each file with ``get_file_diff(format="lean")`` instead of
each chunk.  Both read the load's small change again: they measure what the
instructions no longer say.

``open_file_version`` opens only the diff's files: this reading needs no
other (the enclosing definitions are in changed files, the callers are the
lines a grep prints), so no step records that gap.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from benchmarks.review_calls import Call, Gap, Reading, normal, seen_lines
from benchmarks.review_plain import GREP_LINES
from benchmarks.review_reading import ChangedFile, RangeReading, kind_of


@dataclass
class Review:
    """One scripted review: the session, what the range holds, and what was read."""

    session: Any  # mcp.ClientSession
    reading: RangeReading
    out: Reading
    file_path: str = ""
    chunks: list[dict[str, Any]] = field(default_factory=list)
    lean: dict[str, list[Call]] = field(default_factory=dict)  # path -> lean answers
    planned: list[tuple[str, str]] = field(default_factory=list)  # the load's (file, kind)
    widened: set[str] = field(default_factory=set)  # code files read with their definitions
    log: list[str] | None = None  # the commits as the load's plan lists them

    async def call(self, step: str, tool: str, **args: Any) -> Any:
        """Call a tool; the answer parsed when it is JSON, None when it is an error."""
        result = await self.session.call_tool(tool, args)
        blocks = [getattr(block, "text", "") for block in result.content]
        text = "\n".join(blocks)
        request = tool + json.dumps(args, ensure_ascii=False, separators=(",", ":"))
        self.out.calls.append(Call(step, request, text, bool(result.is_error)))
        if result.is_error:
            return None
        first = blocks[0] if blocks else ""
        if first[:1] not in "[{":
            return text
        got = json.loads(first)
        if isinstance(got, dict) and got.get("change") == "below" and len(blocks) > 1:
            got["change"] = blocks[1]  # the load's change, its second block
        return got

    async def need(self, step: str, tool: str, **args: Any) -> Any:
        """:meth:`call` for an answer the review cannot go on without."""
        got = await self.call(step, tool, **args)
        if got is None:
            raise RuntimeError(f"{tool} failed: {self.out.calls[-1].answer}")
        return got

    def gap(self, step: str, what: str, *instead: Call) -> None:
        self.out.gaps.append(Gap(step, what, list(instead)))

    def files(self) -> list[dict[str, Any]]:
        """The listed files in chunk order (review order), each once."""
        seen: dict[str, dict[str, Any]] = {}
        for chunk in self.chunks:
            for detail in chunk["file_details"]:
                seen.setdefault(detail["path"], {**detail, "chunk": chunk["chunk"]})
        return list(seen.values())

    def code_file(self, path: str) -> ChangedFile | None:
        return next((f for f in self.reading.files if f.path == path and f.is_code), None)


Step = Callable[[Review], Awaitable[None]]


async def connect(rv: Review) -> None:
    """The tool list (each tool's name, description and input schema, as JSON) and the
    server's instructions, as ``make bench-tokens`` measures them."""
    tools = (await rv.session.list_tools()).tools
    listed = [
        t.model_dump(
            by_alias=True, exclude_none=True, include={"name", "description", "input_schema"}
        )
        for t in tools
    ]
    init = rv.session.initialize_result
    text = "".join(json.dumps(t, ensure_ascii=False) for t in listed) + (init.instructions or "")
    rv.out.calls.append(Call("connect", "", text))


async def overview(rv: Review) -> None:
    """The load in review order and every page of the listing; notes the files one
    reader reads and the other does not."""
    r = rv.reading
    load = await rv.need(
        "overview", "load_git_diff", absolute_repo_path=r.repo, revision_range=r.rng, order="review"
    )
    rv.file_path = load["file_path"]
    offset: int | None = 0
    while offset is not None:
        page = await rv.need(
            "overview", "list_chunks", absolute_file_path=rv.file_path, offset=offset, format="lean"
        )
        rv.chunks += page["chunks"]
        offset = page.get("next_offset")
    listed = {f["path"] for f in rv.files()}
    excluded = {e["path"]: e["reason"] for e in load.get("excluded", [])}
    for f in r.files:
        if f.path not in listed:
            why = excluded.get(f.path, "excluded")
            rv.out.notes.append(f"{f.path} ({f.kind}) is in no chunk ({why}): not read")
    rv.out.notes += [f"{p} is read, plain git skips it" for p in listed - {f.path for f in r.files}]


async def read_chunks(rv: Review) -> None:
    """Each chunk in lean, then mark it reviewed."""
    for chunk in rv.chunks:
        n = chunk["chunk"]
        await rv.call("diffs: chunks", "get_chunk", absolute_file_path=rv.file_path,
                      chunk_number=n, format="lean")  # fmt: skip
        for path in chunk["files"]:
            rv.lean.setdefault(path, []).append(rv.out.calls[-1])
        await rv.call("record", "mark_reviewed", absolute_file_path=rv.file_path, chunk_number=n)


async def read_files(rv: Review) -> None:
    """Each file in lean, in review order; a chunk marked reviewed after its last file."""
    files = rv.files()
    for i, detail in enumerate(files):
        path = detail["path"]
        step = f"diffs: {kind_of(path) or 'generated'}"
        await rv.call(step, "get_file_diff", absolute_file_path=rv.file_path, file_path=path,
                      format="lean")  # fmt: skip
        rv.lean.setdefault(path, []).append(rv.out.calls[-1])
        if i + 1 == len(files) or files[i + 1]["chunk"] != detail["chunk"]:
            await rv.call("record", "mark_reviewed", absolute_file_path=rv.file_path,
                          chunk_number=detail["chunk"])  # fmt: skip


#: Runs of unread lines this close are read in one call: a call's request and its
#: answer's fields cost about as much as 8 lines of code.
MERGE_LINES = 8


def _runs(numbers: list[int], gap: int = MERGE_LINES) -> list[tuple[int, int]]:
    """Sorted line numbers as (first, last) runs, those at most ``gap`` apart merged."""
    runs: list[tuple[int, int]] = []
    for n in sorted(numbers):
        if runs and n - runs[-1][1] <= gap:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


async def _read_lines(rv: Review, path: str, first: int, last: int) -> None:
    """Lines first..last of a snapshot, in as many answers as it takes."""
    while first <= last:
        got = await rv.call("unfold", "read_content", absolute_file_path=path, offset=first,
                            limit=last - first + 1)  # fmt: skip
        if not got or got["end_line"] < first:
            return
        first = got["end_line"] + 1


async def unfold(rv: Review) -> None:
    """The changed lines of code no answer so far showed: lean folds a run of removed
    lines (and a deleted file) to the definitions it held, giving its old lines; those
    are read from the old side (``open_file_version(side="old")``, ``read_content``),
    a file missing added lines again in raw."""
    seen = seen_lines(rv.out.calls, rv.reading)
    for path in rv.lean:
        f = rv.code_file(path)
        if f is None:
            continue
        added = [n for n, t in f.added if t.strip() and normal(t) not in seen]
        removed = [n for n, t in f.removed if t.strip() and normal(t) not in seen]
        if added:
            await rv.call("unfold", "get_file_diff", absolute_file_path=rv.file_path,
                          file_path=path, format="raw")  # fmt: skip
            continue
        if not removed:
            continue
        opened = await rv.call("unfold", "open_file_version", absolute_file_path=rv.file_path,
                               file_path=path, side="old")  # fmt: skip
        for first, last in _runs(removed) if opened else []:
            await _read_lines(rv, opened["path"], first, last)


async def definitions(rv: Review) -> None:
    """The enclosing definitions the diff does not show whole, from the new side."""
    for f in rv.reading.files:
        if not f.enclosing:
            continue
        opened = await rv.call("definitions", "open_file_version",
                               absolute_file_path=rv.file_path, file_path=f.path)  # fmt: skip
        if opened is None:
            continue
        for d in f.enclosing:
            if d.is_class:
                await rv.call("definitions", "read_content", absolute_file_path=opened["path"],
                              offset=d.first, limit=d.last - d.first + 1)  # fmt: skip
            else:
                await rv.call("definitions", "read_content", absolute_file_path=opened["path"],
                              offset=d.line, mode="semantic")  # fmt: skip


async def callers(rv: Review) -> None:
    """The references of each changed definition at the head, as many lines as plain
    git's ``git grep -w | head`` shows: ``find_references`` of a file's changed
    definitions in one call (each hit with the definition it sits in)."""
    groups = caller_names_by_file(rv.reading)
    if rv.planned and all(kind == "change" for _, kind in rv.planned):  # read in one answer
        groups = [[name for names in groups for name in names]]
    for names in groups:
        await rv.call("callers", "find_references", absolute_file_path=rv.file_path,
                      symbol=", ".join(names), side="new", max_results=GREP_LINES)  # fmt: skip


def caller_names_by_file(r: RangeReading) -> list[list[str]]:
    """:func:`caller_names` by the file defining them (each name once, in the first)."""
    asked: set[str] = set()
    out = []
    for f in r.files:
        names = [d.short for d in f.changed_defs if d.short not in asked]
        names = list(dict.fromkeys(names))
        asked.update(names)
        if names:
            out.append(names)
    return out


_NEXT = re.compile(r"next offset=(\d+)")


async def log(rv: Review) -> None:
    """The commits with their bodies: every page of ``list_commits(include_body=True)``."""
    offset: int | None = 0
    while offset is not None:
        paged = {"offset": offset} if offset else {}  # the first page asks no offset
        page = await rv.call("log", "list_commits", absolute_file_path=rv.file_path,
                             include_body=True, **paged)  # fmt: skip
        found = _NEXT.search(page.split("\n", 1)[0]) if isinstance(page, str) else None
        offset = int(found.group(1)) if found else None


_HEADING = re.compile(r"^## (?P<path>.+?) \((?:[^()]|\([^()]*\))*\)$", re.M)
PLAN_KINDS = ("code", "tests", "docs", "config")


async def plan(rv: Review) -> None:
    """The load in review order, as the instructions' first step: its plan lists the
    files by kind, and holds the whole change when it is small (each of its files
    then counts as read in lean from this answer); a plan that leaves files out is
    completed by the listing's pages."""
    r = rv.reading
    load = await rv.need(
        "overview", "load_git_diff", absolute_repo_path=r.repo, revision_range=r.rng
    )
    rv.file_path = load["file_path"]
    rv.widened = set(load.get("change_widened", []))
    rv.log = load["plan"].get("log")
    if "change" in load:
        for m in _HEADING.finditer(load["change"]):
            rv.lean.setdefault(m.group("path"), []).append(rv.out.calls[-1])
        rv.planned = [(path, "change") for path in rv.lean]
        for n in range(1, load["chunks"] + 1):  # all read: each chunk marked reviewed
            await rv.call("record", "mark_reviewed", absolute_file_path=rv.file_path,
                          chunk_number=n)  # fmt: skip
    else:
        kinds = load["plan"]
        rv.planned = [
            (p.split(" +", 1)[0], k) for k in PLAN_KINDS for p in kinds.get(k, {}).get("list", [])
        ]
        if any(kinds.get(k, {}).get("more") for k in PLAN_KINDS):
            await overview(rv)
            known = {p for p, _ in rv.planned}
            rv.planned += [(f["path"], "more") for f in rv.files() if f["path"] not in known]
    listed = {p for p, _ in rv.planned}
    excluded = {e["path"]: e["reason"] for e in load.get("excluded", [])}
    for f in r.files:
        if f.path not in listed:
            why = excluded.get(f.path, "excluded")
            rv.out.notes.append(f"{f.path} ({f.kind}) is in no chunk ({why}): not read")


async def read_planned(rv: Review) -> None:
    """The planned files the load's answer did not show, kind by kind in order: each
    kind's files in one ``get_file_diff`` (their paths comma-separated; code in lean
    widened to its definitions, context="symbol"; the rest in lean), on with the
    files an answer leaves out, as its last line says; then the kind marked reviewed."""
    kinds: dict[str, list[str]] = {}
    for path, planned in rv.planned:
        if path not in rv.lean:
            kinds.setdefault(planned, []).append(path)
    for planned, paths in kinds.items():
        args: dict[str, Any] = {"format": "lean"}
        if planned == "code":
            args["context"] = "symbol"
            rv.widened.update(paths)
        step = f"diffs: {kind_of(paths[0]) or 'generated'}"
        query: str | None = ",".join(paths)
        while query:
            got = await rv.call(step, "get_file_diff", absolute_file_path=rv.file_path,
                                file_path=query, **args)  # fmt: skip
            if not isinstance(got, str):
                break
            for m in _HEADING.finditer(got):
                rv.lean.setdefault(m.group("path"), []).append(rv.out.calls[-1])
            more = _LEFT_OUT.search(got)
            query = more.group(1) if more else None
        await _mark(rv, list(paths))


_LEFT_OUT = re.compile(r'left out to fit one answer: file_path="([^"]+)" reads them')


async def _mark(rv: Review, paths: list[str]) -> None:
    await rv.call("record", "mark_reviewed", absolute_file_path=rv.file_path,
                  file_pattern=",".join(paths))  # fmt: skip
    paths.clear()


async def unseen_definitions(rv: Review) -> None:
    """The enclosing definitions no answer so far showed whole, from the new side."""
    seen = seen_lines(rv.out.calls, rv.reading)
    for f in rv.reading.files:
        wanted = [
            d for d in f.enclosing
            if any(t.strip() and normal(t) not in seen for t in f.text_of(d))
        ]  # fmt: skip
        if not wanted:
            continue
        opened = await rv.call("definitions", "open_file_version",
                               absolute_file_path=rv.file_path, file_path=f.path)  # fmt: skip
        if opened is None:
            continue
        for d in wanted:
            if d.is_class:
                await rv.call("definitions", "read_content", absolute_file_path=opened["path"],
                              offset=d.first, limit=d.last - d.first + 1)  # fmt: skip
            else:
                await rv.call("definitions", "read_content", absolute_file_path=opened["path"],
                              offset=d.line, mode="semantic")  # fmt: skip


async def plan_log(rv: Review) -> None:
    """The commits' messages: a plan that lists the commits gives them whole; else
    ``list_commits(include_body=True)``, every page."""
    if not rv.log:
        await log(rv)


#: The paths an assistant takes, each a list of steps in order.
PATHS: dict[str, tuple[Step, ...]] = {
    "plan": (connect, plan, read_planned, unfold, unseen_definitions, callers, plan_log),
    "chunks": (connect, overview, read_chunks, unfold, definitions, callers, log),
    "files": (connect, overview, read_files, unfold, definitions, callers, log),
}


async def run_path(reading: RangeReading, path: str) -> Reading:
    """One path's reading of the range, through a new server (its own record and cache)."""
    from benchmarks.record_session import served

    out = Reading(f"diffchunk ({path})")
    async with served() as s:
        rv = Review(s.session, reading, out)
        for step in PATHS[path]:
            await step(rv)
    return out
