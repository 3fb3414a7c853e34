"""The atheris harness (``tests/property/fuzz_atheris/``) without atheris running it.

The seed corpus goes through the harness's one-input function, which has to
pass every property on it; broken engines (patched in) prove that failures
are caught, classified, saved and replayed.  The long run is
``python -m tests.property.fuzz_atheris --runs 100000``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("atheris")

from tests.property.fuzz_atheris import cli, corpus, driver, inputs, minimize
from tests.property.fuzz_diff import checks, draws
from tests.property.fuzz_diff import seeds as diff_seeds

SEEDS = corpus.seed_inputs()


def test_the_seed_corpus_passes_the_one_input_function(tmp_path: Path) -> None:
    fixtures = diff_seeds.load_seeds(corpus=False, crashes=False)
    assert len(SEEDS) >= 2 * len(fixtures)
    assert all(len(s) <= inputs.MAX_LEN for s in SEEDS)
    recorder = inputs.Recorder(tmp_path / "crashes")
    for data in SEEDS:
        recorder.run_one(data)
    assert recorder.runs == len(SEEDS)
    assert recorder.counts == {}
    assert not (tmp_path / "crashes").exists()


def test_a_seed_holds_a_fixture_after_its_option_bytes() -> None:
    diffs = {inputs.split_input(s)[1] for s in SEEDS}
    for fixture in diff_seeds.load_seeds(corpus=False, crashes=False):
        assert fixture in diffs


def test_an_exception_is_recorded_saved_and_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(parsed: object, n: int) -> bytes:
        raise KeyError("boom")

    monkeypatch.setattr(checks, "reduce_context", broken)
    recorder = inputs.Recorder(tmp_path, tmp_path / "log.jsonl", keep=1)
    for data in SEEDS[:3]:
        recorder.run_one(data)  # the fuzzer goes on
    ((key, count),) = recorder.counts.items()
    assert count == 3
    assert key.startswith("KeyError")
    (path,) = recorder.saved[key]
    assert path.name.startswith("error-")
    assert path.read_bytes() == SEEDS[0]
    assert "KeyError" in path.with_name(path.name + ".txt").read_text()
    assert len((tmp_path / "log.jsonl").read_text().splitlines()) == 3
    replayed, _, error = minimize.replay(path)
    assert replayed == key and "boom" in error
    assert cli.main(["--replay", str(path)]) == 1


def test_stop_on_crash_raises_for_libfuzzer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(parsed: object, n: int) -> bytes:
        raise IndexError("out")

    monkeypatch.setattr(checks, "reduce_context", broken)
    recorder = inputs.Recorder(tmp_path, stop_on_crash=True)
    with pytest.raises(IndexError):
        recorder.run_one(SEEDS[0])


def test_a_broken_property_and_a_slow_input_are_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    render = checks.render_chunk
    monkeypatch.setattr(checks, "render_chunk", lambda parsed, chunk: render(parsed, chunk) + b"x")
    with pytest.raises(checks.PropertyFailure) as info:
        inputs.check_one(SEEDS[0])
    assert inputs.failure_kind(info.value) == "property"
    monkeypatch.setattr(checks, "render_chunk", render)
    monkeypatch.setattr(checks, "TIME_LIMIT", 0.0)
    with pytest.raises(inputs.SlowInput) as slow:
        inputs.check_one(SEEDS[0])
    assert inputs.signature(slow.value) == "slow"


def test_the_seed_files_replay_clean(tmp_path: Path) -> None:
    path = tmp_path / "seed"
    path.write_bytes(SEEDS[-1])
    assert cli.main(["--replay", str(path)]) == 0


def test_option_bytes_answer_the_draws_then_a_seeded_generator() -> None:
    src = inputs.ByteSource(bytes([7, 250, 1, 44]))
    assert src.integer(0, 99) == 7
    assert src.integer(0, 99) == 50  # 250 % 100
    assert src.integer(5, 5) == 5  # no byte used for a fixed value
    assert src.integer(0, 1000) == 1 * 256 + 44  # two bytes for a wider range
    assert src.used == 4
    rest = [src.integer(0, 10**6) for _ in range(5)]
    again = inputs.ByteSource(bytes([7, 250, 1, 44]))
    for lo, hi in ((0, 99), (0, 99), (5, 5), (0, 1000)):
        again.integer(lo, hi)
    assert [again.integer(0, 10**6) for _ in range(5)] == rest


def test_windows_start_at_sections_and_keep_whole_lines() -> None:
    section = b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
    data = b"prelude\n" + section * 200
    pieces = corpus.windows(data, 500, 8)
    assert 1 < len(pieces) <= 8
    assert pieces[0].startswith(b"prelude\n")
    for piece in pieces:
        assert len(piece) <= 500 and piece.endswith(b"\n")
    assert all(p.startswith(b"diff --git ") for p in pieces[1:])
    assert corpus.windows(section, 500, 8) == [section]


def _unescape(entry: str) -> bytes:
    assert entry.startswith('"') and entry.endswith('"')
    body, out, k = entry[1:-1], bytearray(), 0
    while k < len(body):
        if body[k] == "\\" and body[k + 1] == "x":
            out.append(int(body[k + 2 : k + 4], 16))
            k += 4
        elif body[k] == "\\":
            out.append(ord(body[k + 1]))
            k += 2
        else:
            assert body[k] != '"'
            out.append(ord(body[k]))
            k += 1
    return bytes(out)


def test_dictionary_entries_read_back_as_their_tokens(tmp_path: Path) -> None:
    tokens = corpus.dictionary_tokens()
    assert b"diff --git a/x b/x\n" in tokens
    n = corpus.write_dictionary(tmp_path / "d.dict")
    lines = (tmp_path / "d.dict").read_text(encoding="ascii").splitlines()
    assert n == len(lines) == len(tokens)
    assert [_unescape(line) for line in lines] == tokens
    assert all(0 < len(t) <= 64 for t in tokens)


def test_minimize_keeps_only_what_the_failure_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    def picky(data: bytes, src: draws.Source, **kwargs: object) -> checks.CaseResult:
        if b"rename from" in data:
            raise ValueError("renamed")
        return checks.CaseResult()

    monkeypatch.setattr(checks, "check_input", picky)
    data = next(s for s in SEEDS if b"rename from" in inputs.split_input(s)[1])
    key, _, _ = minimize.replay_bytes(data)
    assert key is not None
    small = minimize.minimize(data, key)
    assert small == bytes(inputs.OPTION_BYTES) + b"rename from"


def test_libfuzzer_status_lines_and_stats_are_read() -> None:
    figures = driver.Figures()
    lines = [
        "INFO: Seed: 1",
        "#78\tINITED cov: 1602 ft: 6106 corp: 76/171Kb exec/s: 0 rss: 51Mb",
        "#79\tNEW    cov: 1606 ft: 6116 corp: 77/171Kb lim: 4096 exec/s: 0 rss: 51Mb L: 129/4096",
        "#4096\tpulse  cov: 1700 ft: 7000 corp: 300/500Kb lim: 4096 exec/s: 270 rss: 52Mb",
        "Done 5000 runs in 19 second(s)",
        "stat::number_of_executed_units: 5000",
        "stat::average_exec_per_sec:     263",
    ]
    shown = [figures.feed(line) for line in lines]
    assert shown == [None, lines[1], None, lines[3], lines[4], lines[5], lines[6]]
    assert figures.inited["cov"] == "1602" and figures.inited["corp"] == "76"
    assert figures.last["cov"] == "1700" and figures.last["exec_s"] == "270"
    assert figures.executions() == 5000
    assert figures.stats["average_exec_per_sec"] == 263
