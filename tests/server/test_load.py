"""One ``diffchunk-mcp`` server (the worker's) under concurrent calls, and bounded
session memory."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from mcpkit import Caller, RunningServer
from test_data import CORPUS, ROOT

from diffchunk.diff.options import LoadOptions
from diffchunk.review.sessions.store import SessionStore
from diffchunk.review.tools import diff_tools
from diffchunk.review.tools import listing as listing_module
from tests.property.gen_diff import generate
from tests.property.load_mcp import clients, references

FIXTURES = ROOT / "fixtures"


def _inputs(tmp_path: Path) -> tuple[list[references.Op], list[references.Op]]:
    rng = random.Random(4)
    store = SessionStore(max_sessions=16, max_bytes=1 << 30)
    diffs = []
    for seed in (1, 2):
        path = tmp_path / f"gen{seed}.diff"
        path.write_bytes(generate(3_000, seed=seed))
        diffs.append(path)
    fixtures = sorted(FIXTURES.glob("*.diff"))[:2] if FIXTURES.is_dir() else []
    diffs.extend(fixtures)
    small_corpus = CORPUS / "sqlalchemy_rel_2_0_30..rel_2_0_31.diff"
    if small_corpus.is_file():
        diffs.append(small_corpus)
    ops: list[references.Op] = []
    warm: list[references.Op] = []
    for diff in diffs:
        side = references.diff_ops(str(diff), store, rng, samples=6)
        ops.extend(side)
        warm.append(side[0])
    log = tmp_path / "app.log"
    references.write_log(log, 5_000)
    side = references.log_ops(str(log), 5_000, rng, samples=6)
    ops.extend(side)
    warm.append(side[0])
    return ops, warm


@pytest.mark.slow
def test_eight_concurrent_clients_on_one_server_get_reference_answers(
    server: RunningServer, tmp_path: Path
) -> None:
    ops, warm = _inputs(tmp_path)
    assert {op.tool for op in ops} >= {
        "load_diff",
        "list_chunks",
        "get_chunk",
        "get_file_diff",
        "find_chunks_for_files",
        "get_overview",
        "search_content",
        "read_content",
    }
    outcomes: list[clients.Outcome] = []

    async def script(c: Caller) -> None:
        outcome = await clients.drive(
            c.session,
            ops,
            clients=8,
            # Some 1,400 calls checked against their answers alone, 8 at once (4 s made
            # 2,800 of the same kinds; make bench-load runs 60 s).
            seconds=2.0,
            warm=warm,
            deadlock_timeout=120.0,
        )
        outcomes.append(outcome)

    server.run(script)
    (outcome,) = outcomes
    assert outcome.failures == []
    assert outcome.failed == 0
    # Every client made progress and each kind of call was answered.
    assert outcome.passed > 8 * 5
    assert outcome.max_in_flight > 1  # the calls really overlapped on the one session
    assert {t for t in outcome.latencies if not t.startswith("warm-up")} == {op.tool for op in ops}


@pytest.mark.slow
def test_eight_concurrent_clients_on_the_corpus_diff(server: RunningServer) -> None:
    corpus = CORPUS / "flask_2.3.3..3.0.0.diff"
    if not corpus.is_file():
        pytest.skip("corpus not present")
    store = SessionStore(max_sessions=4, max_bytes=1 << 30)
    ops = references.diff_ops(str(corpus), store, random.Random(8), samples=10)
    outcomes: list[clients.Outcome] = []

    async def script(c: Caller) -> None:
        outcomes.append(
            await clients.drive(c.session, ops, clients=8, seconds=1.5, deadlock_timeout=120.0)
        )

    server.run(script)
    (outcome,) = outcomes
    assert outcome.failures == [] and outcome.failed == 0
    assert outcome.passed > 8


def _small_diffs(tmp_path: Path, count: int) -> list[Path]:
    paths = []
    for i in range(count):
        path = tmp_path / f"d{i:02d}.diff"
        path.write_bytes(generate(1_500 + 100 * i, seed=100 + i))
        paths.append(path)
    return paths


def test_session_count_stays_bounded_and_evicted_diff_reloads_identically(
    tmp_path: Path,
) -> None:
    diffs = _small_diffs(tmp_path, 12)
    store = SessionStore(max_sessions=4, max_bytes=1 << 30)
    first_chunks: dict[Path, list[str]] = {}
    for path in diffs:
        listing = diff_tools.list_chunks(str(path), store=store).to_dict()
        total = listing["total_chunks"]
        first_chunks[path] = [
            diff_tools.get_chunk(str(path), n, False, store=store) for n in range(1, total + 1)
        ]
        assert len(store.sessions()) <= 4
    # The last four loaded are the live ones; the first was evicted.
    live = {s.path for s in store.sessions()}
    assert live == {str(p.resolve()) for p in diffs[-4:]}
    assert store.peek(str(diffs[0])) is None
    again = diff_tools.list_chunks(str(diffs[0]), store=store).to_dict()
    assert [
        diff_tools.get_chunk(str(diffs[0]), n, False, store=store)
        for n in range(1, again["total_chunks"] + 1)
    ] == first_chunks[diffs[0]]
    assert len(store.sessions()) == 4
    assert store.peek(str(diffs[0])) is not None
    overview = diff_tools.get_current_overview(store=store).to_dict()
    assert overview["total_sessions"] == 4


def test_session_bytes_stay_bounded(tmp_path: Path) -> None:
    diffs = _small_diffs(tmp_path, 12)
    sizes = [p.stat().st_size for p in diffs]
    budget = 3 * max(sizes)
    store = SessionStore(max_sessions=100, max_bytes=budget)
    for path in diffs:
        diff_tools.load_diff(str(path), store=store).to_dict()
        assert store.total_bytes <= budget
        assert store.peek(str(path)) is not None  # the one just loaded is kept
    assert 2 <= len(store.sessions()) <= 3


def test_a_diff_larger_than_the_byte_budget_is_still_served(tmp_path: Path) -> None:
    diffs = _small_diffs(tmp_path, 3)
    store = SessionStore(max_sessions=4, max_bytes=1)
    for path in diffs:
        summary = diff_tools.load_diff(str(path), store=store).to_dict()
        assert summary["chunks"] >= 1
        assert [s.path for s in store.sessions()] == [str(path.resolve())]


def test_listing_entry_size_is_visible_to_a_reader_interleaved_mid_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another thread may call list_chunks on the same session while a chunk's
    # entry is being built; it must never read a size of 0 for a built entry
    # (the page would overrun its budget and next_offset would change).
    path = tmp_path / "big.diff"
    path.write_bytes(generate(40_000, seed=3))
    store = SessionStore(max_sessions=2, max_bytes=1 << 30)
    ref_store = SessionStore()
    view = diff_tools.load_diff(
        str(path), options=LoadOptions(max_chunk_lines=40), store=ref_store
    ).file_path
    diff_tools.load_diff(str(path), options=LoadOptions(max_chunk_lines=40), store=store).to_dict()
    reference = diff_tools.list_chunks(view, store=ref_store).to_dict()
    assert "next_offset" in reference  # the listing pages

    session = store.get(view)
    listing = listing_module._listing(session)
    real_size = listing_module.json_size
    seen: list[int] = []
    interleaved: list[bool] = []

    def size_with_reader(value: object) -> int:
        if not interleaved and isinstance(value, dict) and value.get("chunk") == 1:
            interleaved.append(True)
            seen.append(listing.sized_entry(0)[1])  # the interleaved reader
        return real_size(value)

    monkeypatch.setattr(listing_module, "json_size", size_with_reader)
    listing.sized_entry(0)
    assert seen and seen[0] > 0
    monkeypatch.setattr(listing_module, "json_size", real_size)
    assert diff_tools.list_chunks(view, store=store).to_dict() == reference
