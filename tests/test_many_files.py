"""A diff of many small files costs memory in proportion to what is shown.

Issue 23: a diff of a million small files took 1.2 GB to load, ``mark_reviewed('**')``
wrote one statement per file, and the HTML export peaked at 5.6 GB, built as one
string.  Here the same shape at 20,000 files (``tests/property/gen_diff.small_files``):
what a loaded diff and its review record keep per file, the statements a glob's
marks take, and the memory an export takes while it is written, each with a generous
bound that the old code missed by several times (it kept about a kilobyte a file,
ran a statement per file, and held the whole export).  Times are the benchmark's
(``make bench-resources``), not asserted here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_data import CORPUS, ROOT

from diffchunk.diff.parser import parse_diff
from diffchunk.diff.table import FileTable
from diffchunk.review import record
from diffchunk.review.sessions.loading import session
from diffchunk.review.sessions.store import SessionStore
from tests.property.gen_diff import generate, small_files

FIXTURES = ROOT / "fixtures"
FILES = 20_000

pytestmark = pytest.mark.usefixtures("private_dirs")


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("many") / "many.diff"
    path.write_bytes(small_files(FILES))
    return path


# Runs in a fresh interpreter: what the load and the record keep, and the record's
# statements.  Prints one JSON line.
_MEASURE = r"""
import gc, json, sqlite3, sys, tracemalloc
path = sys.argv[1]
statements = [0]
connect = sqlite3.connect
class Counting(sqlite3.Connection):
    def execute(self, *args, **kwargs):
        statements[0] += 1
        return super().execute(*args, **kwargs)
    def executemany(self, *args, **kwargs):
        statements[0] += 1
        return super().executemany(*args, **kwargs)
sqlite3.connect = lambda *args, **kwargs: connect(*args, factory=Counting, **kwargs)
def rss():
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) * 1024 for l in fh if l.startswith("VmRSS:"))
from diffchunk.review import record
from diffchunk.review.sessions.loading import load_diff
import diffchunk.review.record.service, diffchunk.review.record.coverage
gc.collect()
before_rss = rss()
tracemalloc.start()
summary = load_diff(path)
gc.collect()
loaded = tracemalloc.get_traced_memory()[0]
after_load_rss = rss()
statements[0] = 0
marked = record.mark_reviewed(path, file_pattern="**")
mark_statements = statements[0]
status = record.review_status(path)
gc.collect()
kept = tracemalloc.get_traced_memory()[0]
print(json.dumps({
    "files": summary.files,
    "loaded": loaded,
    "kept": kept,
    "load_rss": after_load_rss - before_rss,
    "mark_statements": mark_statements,
    "reviewed": status.totals.reviewed,
    "excluded": status.totals.excluded,
}))
"""


def test_a_diff_of_many_files_keeps_little_per_file_and_marks_them_in_a_few_statements(
    many: Path, tmp_path: Path
) -> None:
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        DIFFCHUNK_STATE_DIR=str(tmp_path / "state"),
        DIFFCHUNK_CACHE_DIR=str(tmp_path / "cache"),
        # Mapped, as a diff of a million files (300 MB) is: its text is not counted.
        DIFFCHUNK_MAP_BYTES=str(1 << 20),
    )
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(many)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["files"] == FILES
    assert got["reviewed"] + got["excluded"] == FILES
    # The loaded diff: about 190 bytes a file (the columns of its table, its parts and
    # chunks), where each file as objects took 940 (and 2,800 of resident memory).
    assert got["loaded"] / FILES < 400, got
    assert got["load_rss"] / FILES < 1_000, got
    # With the record's view of it and every file marked: a change id (32 bytes) and a
    # flag a file more (about 250 in all, where 1,670 were kept).
    assert got["kept"] / FILES < 500, got
    # A glob's marks: a temporary table filled in one call, then one statement; never
    # a statement per file (47 in all, where 20,042 were run).
    assert got["mark_statements"] < 100, got


def test_marking_every_file_answers_a_bounded_list_and_counts_them_all(
    many: Path, store: SessionStore
) -> None:
    result = record.mark_reviewed(str(many), file_pattern="**", store=store)
    assert len(result.marked) == 100 and result.marked_total == FILES
    assert result.line()["marked"] == FILES  # the MCP tool's answer counts them all
    answer = json.dumps(result.to_dict())
    assert len(answer) < 20_000 and '"marked_total": 20000' in answer
    assert result.totals.reviewed == FILES - result.totals.excluded
    back = record.mark_reviewed(
        str(many), file_pattern="tree/d0000/**", reviewed=False, store=store
    )
    assert back.marked_total == 1000 and back.marked[0] == "tree/d0000/file_0000000.py"
    totals = record.review_status(str(many), store=store).totals
    # The files of tree/d0000 not excluded are unseen again; the others stay reviewed.
    assert 900 < totals.unseen <= 1000 and totals.seen == 0
    assert totals.reviewed + totals.unseen + totals.excluded == FILES


# Runs in a fresh interpreter: the review's findings and marks, the short export (which
# also imports what an HTML export needs), then the whole export, with the most memory
# the process held meanwhile above what it held before (VmHWM, reset through
# clear_refs).  The heap's free pages are first given back (malloc_trim), so memory an
# earlier step freed and the export took again counts too.  Prints one JSON line.
_EXPORT = r"""
import ctypes, gc, json, sys
from pathlib import Path
path = sys.argv[1]
def status(key):
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) * 1024 for l in fh if l.startswith(key + ":"))
from diffchunk.review import record
from diffchunk.review.sessions.loading import load_diff
from diffchunk.server.export_tools import export_review as export_tool
load_diff(path, store=None)
for i in (1, 500, 19_999):
    name = f"tree/d{i // 1000:04d}/file_{i:07d}.py"
    record.add_finding(path, name, f"Finding on {name}")
record.mark_reviewed(path, file_pattern="tree/d0001/**")
short = json.loads(export_tool(path, "html", "all", "findings"))
gc.collect()
trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
if trim is not None:
    trim(0)
Path("/proc/self/clear_refs").write_text("5")
before = status("VmRSS")
answer = json.loads(export_tool(path, "html", "all"))
peak = status("VmHWM") - before
print(json.dumps({"answer": answer, "short": short, "peak": peak}))
"""


def test_exports_of_a_large_review_are_written_as_they_are_made(many: Path, tmp_path: Path) -> None:
    path = str(many)
    # The memory an export takes while it is made, against its size: the HTML page of
    # 20,000 files (15 MB), written to the cache with about 5 MB at a time (62 MB more
    # when the page is built whole, 80 MB when the document was too).  Measured as the
    # process's peak resident memory in a child: tracemalloc traced it 4 times slower.
    done = subprocess.run(
        [sys.executable, "-c", _EXPORT, path],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    answer, short, peak = got["answer"], got["short"], got["peak"]
    size = Path(answer["written_to"]).stat().st_size
    assert size > 10_000_000 and 0 < peak < 12_000_000, (peak, size)
    # Without the diffs of the files without findings: the list of files, and three diffs.
    assert short["characters"] * 2 < answer["characters"]
    assert Path(short["written_to"]) != Path(answer["written_to"])

    from diffchunk.review.tools.exporting import export_review, export_to_file, write_review

    # Pieces: each at most about EXPORT_FLUSH_CHARS, and together the whole text, the
    # text written to the cache.
    pieces: list[str] = []
    written = write_review(path, pieces.append, "html", "all")
    sizes = [len(p) for p in pieces]
    assert len(sizes) > 5 and max(sizes) < 2 * (1 << 20) and sum(sizes) == written.characters
    assert answer["characters"] == written.characters
    whole = "".join(pieces)
    assert _timeless(Path(answer["written_to"]).read_text()) == _timeless(whole)
    # Written to a file, or collected, the text is the same.
    out = tmp_path / "review.md"
    to_file = export_to_file(path, out, "markdown", "all")
    assert _timeless(out.read_text()) == _timeless(export_review(path, "markdown", "all").text)
    assert to_file.characters == len(out.read_text()) and to_file.findings == 3


def _timeless(text: str) -> str:
    """An export's text with its time of export left out."""
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "T", text)


def _inputs() -> list[Path]:
    found = sorted(p for p in FIXTURES.iterdir() if p.is_file())
    if CORPUS.is_dir():
        found += sorted(p for p in CORPUS.iterdir() if p.suffix in (".diff", ".txt", ".mbox"))
    return found


@pytest.mark.parametrize("path", _inputs(), ids=lambda p: p.name)
def test_the_file_table_gives_back_each_section_and_its_columns(path: Path) -> None:
    try:
        parsed = parse_diff(path.read_bytes())
    except Exception:
        pytest.skip("not a diff")
    table = parsed.files
    assert isinstance(table, FileTable)
    sections = list(table)
    # Kept again from the objects, the sections are the same.
    assert FileTable(parsed.data, sections) == sections
    for i, fd in enumerate(sections):
        assert (table.path(i), table.old_path(i), table.new_path(i)) == (
            fd.path,
            fd.old_path,
            fd.new_path,
        )
        assert table.span(i) == (fd.start, fd.end) and table.counts(i) == (fd.added, fd.removed)
        assert (table.status(i), table.kind(i), table.commit(i)) == (fd.status, fd.kind, fd.commit)
        assert table.modes(i) == (fd.old_mode, fd.new_mode)
        assert table.has_hunks(i) == bool(fd.hunks) and table.is_binary(i) == fd.is_binary
        assert i in table.indices_of(fd.path)


def test_a_streamed_table_reads_its_tokens_from_the_whole_diff_at_the_end() -> None:
    from diffchunk.diff.parser import StreamParser

    data = generate(3_000, seed=11)
    parser = StreamParser(min_step=512)
    for k in range(0, len(data), 700):
        parser.feed(data[k : k + 700])
    streamed = parser.finish()
    assert list(streamed.files) == list(parse_diff(data).files)


def test_a_loaded_diff_keeps_its_sections_in_columns(many: Path) -> None:
    loaded = session(str(many), None)
    table = loaded.review.parsed.files
    assert isinstance(table, FileTable)
    # The table's columns and pool: far less than a kilobyte a file.
    assert table.nbytes / len(table) < 200
