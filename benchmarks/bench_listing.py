"""``list_chunks`` pages: their size and the time to build them, on the corpus and a range.

    python -m benchmarks.bench_listing [--repo PATH --range A..B]

For each diff: the pages of ``list_chunks`` (default options) read in turn,
their size in characters of JSON (largest and mean) and the time of the first
pass over them (cold: entries and file details are built, symbols computed)
and of a second one (kept with the session).  The corpus diffs are diff files
(symbols, when listed, come from the hunks' function context); a range is
loaded from its repository (symbols from the outlines of both revisions).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
DEFAULT_DIFFS = ("sqlalchemy_rel_1_4_0..rel_1_4_54.diff", "flask_2.3.3..3.0.0.diff")


def pages(path: str, store: object) -> tuple[list[int], float]:
    """Sizes of every page of the listing, and the seconds to read them all."""
    from diffchunk.review.tools import diff_tools

    sizes = []
    offset: int | None = 0
    began = time.perf_counter()
    while offset is not None:
        page = diff_tools.list_chunks(path, offset, store=store).to_dict()  # type: ignore[arg-type]
        sizes.append(len(json.dumps(page, ensure_ascii=False)))
        offset = page.get("next_offset")
    return sizes, time.perf_counter() - began


def report(label: str, path: str, store: object) -> None:
    cold_sizes, cold = pages(path, store)
    _, warm = pages(path, store)
    print(
        f"{label}: {len(cold_sizes)} page(s), largest {max(cold_sizes):,} chars, "
        f"mean {statistics.mean(cold_sizes):,.0f}; first pass {cold * 1000:.0f} ms, "
        f"again {warm * 1000:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", help="a repository (a bare one too) for --range")
    parser.add_argument("--range", dest="rng", help="a range of --repo, e.g. v1..v2")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus directory")
    args = parser.parse_args()
    from diffchunk.review.sessions.store import SessionStore
    from diffchunk.review.tools import diff_tools

    for name in DEFAULT_DIFFS:
        path = args.corpus / name
        if not path.is_file():
            print(f"{name}: not in the corpus ({args.corpus}), skipped")
            continue
        store = SessionStore()
        began = time.perf_counter()
        diff_tools.load_diff(str(path), store=store)
        print(f"{name}: loaded in {(time.perf_counter() - began) * 1000:.0f} ms")
        report(name, str(path), store)
    if args.repo and args.rng:
        from diffchunk.review.ranges.load import load_git_diff

        store = SessionStore()
        began = time.perf_counter()
        summary = load_git_diff(args.repo, args.rng, store=store)
        print(f"{args.rng}: loaded in {(time.perf_counter() - began) * 1000:.0f} ms")
        report(f"{args.rng} in {args.repo}", summary.file_path, store)


if __name__ == "__main__":
    main()
