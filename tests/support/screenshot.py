"""``make screenshot``: the HTML export of the sample review, and a screenshot of it.

Writes ``bench-out/review.html`` (the page of the review of
``fixtures/review_sample.diff``: every severity, both sides, suggestions, an
outdated finding, a binary, a deleted and a renamed file, a hostile message)
and ``bench-out/review.png``, taken by headless Chromium through chromedriver
(``make test`` installs Debian's ``chromium`` and ``chromium-driver`` when it
runs as root).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from diffchunk.review.export import render
from tests.support import webdriver
from tests.support.export_docs import sample_review


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out/review.png"))
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=2000)
    args = parser.parse_args()
    review = sample_review()
    page = args.out.with_suffix(".html")
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(render(review.document("all"), "html", review.diffs()), encoding="utf-8")
    print(f"wrote {page}")
    why = webdriver.missing()
    if why is not None:
        print(f"no screenshot: {why}", file=sys.stderr)
        return 1
    with webdriver.browser() as driver:
        webdriver.screenshot(driver, page, args.out, args.width, args.height)
    print(f"wrote {args.out} ({args.width}x{args.height})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
