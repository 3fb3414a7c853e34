"""Chunker: budgets and packing, on diffs built by hand (no git needed)."""

from __future__ import annotations

import pytest
from chunkkit import check_chunks

from diffchunk.diff.chunker import chunk_files, render_chunk
from diffchunk.diff.model import (
    DiffKind,
    FileDiff,
    FileStatus,
    Hunk,
    ParsedDiff,
    Segment,
    SegmentKind,
)
from diffchunk.errors import InvalidArgument


def _hand_diff(files: list[tuple[str, int]]) -> ParsedDiff:
    """A ParsedDiff of small modified files, built without the parser."""
    out = bytearray()
    fds: list[FileDiff] = []
    for index, (name, changed) in enumerate(files):
        start = len(out)
        out += f"diff --git a/{name} b/{name}\n--- a/{name}\n+++ b/{name}\n".encode()
        header_end = len(out)
        body = b" ctx\n" + b"-old\n" * changed + b"+new\n" * changed + b" ctx\n"
        header = f"@@ -1,{changed + 2} +1,{changed + 2} @@\n".encode()
        hunk = Hunk(
            start=header_end,
            body_start=header_end + len(header),
            end=header_end + len(header) + len(body),
            old_start=1,
            old_count=changed + 2,
            new_start=1,
            new_count=changed + 2,
            added=changed,
            removed=changed,
        )
        out += header + body
        fds.append(
            FileDiff(
                index=index,
                start=start,
                header_end=header_end,
                end=len(out),
                kind=DiffKind.GIT,
                status=FileStatus.MODIFIED,
                old_path=name,
                new_path=name,
                hunks=(hunk,),
                added=changed,
                removed=changed,
                old_token=f"a/{name}".encode(),
                new_token=f"b/{name}".encode(),
            )
        )
    return ParsedDiff(data=bytes(out), files=tuple(fds), segments=())


def test_small_files_pack_in_diff_order_up_to_80_percent() -> None:
    parsed = _hand_diff([(f"f{i}.txt", 2) for i in range(10)])  # 10 lines each
    chunks = chunk_files(parsed, parsed.files, max_lines=30)
    check_chunks(chunks, parsed, 30, 20_000)
    # 80% of 30 is 24 lines: two 10-line files per chunk.
    assert [c.files for c in chunks] == [[f"f{i}.txt", f"f{i + 1}.txt"] for i in range(0, 10, 2)]
    assert all(c.line_count == 20 and not c.oversized for c in chunks)
    assert b"".join(render_chunk(parsed, c) for c in chunks) == parsed.data
    # Whole files are spans of the input, never copies.
    assert all(isinstance(p, tuple) for c in chunks for part in c.parts for p in part.pieces)


def test_file_between_target_and_budget_stays_whole() -> None:
    parsed = _hand_diff([("a.txt", 1), ("big.txt", 12), ("c.txt", 1)])  # 8, 30, 8 lines
    chunks = chunk_files(parsed, parsed.files, max_lines=30)
    assert [c.files for c in chunks] == [["a.txt"], ["big.txt"], ["c.txt"]]
    assert chunks[1].line_count == 30 and not chunks[1].oversized
    assert chunks[1].parent_file is None


def test_token_budget_also_bounds_chunks() -> None:
    parsed = _hand_diff([(f"f{i}.txt", 2) for i in range(6)])  # 9 lines, ~70 bytes each
    chunks = chunk_files(parsed, parsed.files, max_lines=1000, max_tokens=40)  # 160 bytes
    check_chunks(chunks, parsed, 1000, 40)
    assert len(chunks) == 6
    assert all(c.char_count <= 128 for c in chunks)


def test_subset_of_files_is_chunked_alone() -> None:
    parsed = _hand_diff([(f"f{i}.txt", 1) for i in range(5)])
    kept = [parsed.files[1], parsed.files[3]]
    chunks = chunk_files(parsed, kept)
    assert [c.files for c in chunks] == [["f1.txt", "f3.txt"]]
    assert render_chunk(parsed, chunks[0]) == parsed.raw(kept[0]) + parsed.raw(kept[1])


def test_empty_file_list_gives_no_chunks() -> None:
    parsed = _hand_diff([("a", 1)])
    assert chunk_files(parsed, []) == ()


@pytest.mark.parametrize("bad", [0, -5, True, 2.5])
def test_bad_budgets_are_refused(bad: object) -> None:
    parsed = _hand_diff([("a", 1)])
    with pytest.raises(InvalidArgument, match="max_lines"):
        chunk_files(parsed, parsed.files, max_lines=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="max_tokens"):
        chunk_files(parsed, parsed.files, max_tokens=bad)  # type: ignore[arg-type]


def test_commit_message_goes_before_the_first_file_of_its_commit() -> None:
    base = _hand_diff([("a.txt", 1), ("b.txt", 1)])
    msg = b"commit 1234\nAuthor: t <t@t>\n\n    Fix things\n\n"
    data = msg + base.data
    n = len(msg)
    files = tuple(
        FileDiff(
            index=f.index,
            start=f.start + n,
            header_end=f.header_end + n,
            end=f.end + n,
            kind=f.kind,
            status=f.status,
            old_path=f.old_path,
            new_path=f.new_path,
            hunks=tuple(
                Hunk(
                    h.start + n,
                    h.body_start + n,
                    h.end + n,
                    h.old_start,
                    h.old_count,
                    h.new_start,
                    h.new_count,
                    h.added,
                    h.removed,
                )
                for h in f.hunks
            ),
            commit=0,
            old_token=f.old_token,
            new_token=f.new_token,
        )
        for f in base.files
    )
    from diffchunk.diff.model import Commit

    parsed = ParsedDiff(
        data=data,
        files=files,
        segments=(Segment(0, n, SegmentKind.COMMIT, commit=0),),
        commits=(Commit(0, "1234", "Fix things", 0),),
    )
    chunks = chunk_files(parsed, parsed.files, max_lines=8)
    texts = [render_chunk(parsed, c) for c in chunks]
    assert texts[0].startswith(msg)
    assert sum(t.count(b"Fix things") for t in texts) == 1
    # Only the second file kept: the message moves with it.
    (only,) = chunk_files(parsed, [parsed.files[1]])
    assert render_chunk(parsed, only) == msg + parsed.raw(parsed.files[1])
