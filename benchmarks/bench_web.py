"""``make bench-web``: the review page of a million-line diff, in headless chromium.

A generated diff (``tests/property/gen_diff.py``, ``--lines`` lines in tens of
thousands of files) and a diff of one file of ``--big-file`` added lines are
each served by the installed ``diffchunk web`` (a real uvicorn), then opened
in Debian's chromium through chromedriver.  Prints, for each:

- the command's start: the load and the file tree built, until the URL is
  printed (once per process: the page's own time comes after);
- the page's first render: from navigation to the file tree drawn
  (``performance.now()`` when the page says it is ready), best of ``--repeat``
  loads, and the answer of ``/api/review`` it waited for (bytes);
- the browser's JS heap after the first render, after opening the largest
  file, and after scrolling the tree to its end (Chromium's DevTools
  ``Performance.getMetrics``: ``JSHeapUsedSize``), with the DOM's node count;
- opening the largest file: from the click to its first rows drawn.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.property.gen_diff import generate
from tests.support import webdriver
from tests.support.webkit import page_server


def _big_file(lines: int) -> bytes:
    head = [
        b"diff --git a/data/big.py b/data/big.py",
        b"new file mode 100644",
        b"index 0000000..1111111",
        b"--- /dev/null",
        b"+++ b/data/big.py",
        b"@@ -0,0 +1,%d @@" % lines,
    ]
    body = [b"+value_%d = compute(%d)  # line %d" % (i, i * 7, i) for i in range(lines)]
    return b"\n".join(head + body) + b"\n"


def _wait(driver: Any, script: str, timeout: float = 120) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.02)
    raise RuntimeError(f"timed out: {script}")


def _heap(driver: Any) -> tuple[float, int]:
    """``(JS heap used in MB, DOM nodes)`` from Chromium's DevTools."""
    driver.execute_cdp_cmd("HeapProfiler.collectGarbage", {})
    metrics = driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    named = {m["name"]: m["value"] for m in metrics}
    return named["JSHeapUsedSize"] / 1e6, int(named["Nodes"])


def _measure(name: str, diff: Path, workdir: Path, repeat: int) -> None:
    lines = diff.read_bytes().count(b"\n")
    started = time.monotonic()
    with page_server(
        str(diff), cwd=workdir, state=workdir / "state", cache=workdir / "cache", timeout=600
    ) as page:
        ready_s = time.monotonic() - started
        review = page.request("/api/review")[2]
        files = json.loads(review)["files"]
        largest = max(files, key=lambda f: f[3] + f[4])[0]
        with webdriver.browser() as driver:
            driver.execute_cdp_cmd("Performance.enable", {})
            renders = []
            for _ in range(repeat):
                driver.get(page.url)
                renders.append(_wait(driver, "return window.diffchunkFirstRender"))
            heap_first, nodes_first = _heap(driver)
            driver.execute_script(
                "const d = document.getElementById('filter-text');"
                "d.value = arguments[0]; d.dispatchEvent(new Event('input'));",
                largest,
            )
            _wait(driver, "return document.querySelector('.tree-row.file') !== null")
            clicked = driver.execute_script(
                "window.__t0 = performance.now();"
                "document.querySelector('.tree-row.file[data-path=\"' + CSS.escape(arguments[0])"
                " + '\"]').click(); return window.__t0;",
                largest,
            )
            opened = _wait(
                driver,
                "return document.querySelectorAll('#file-body tr').length > 1 && performance.now()",
            )
            rows = driver.execute_script("return document.querySelectorAll('#file-body tr').length")
            heap_file, nodes_file = _heap(driver)
            driver.execute_script(
                "const d = document.getElementById('filter-text');"
                "d.value = ''; d.dispatchEvent(new Event('input'));"
                "const t = document.getElementById('tree'); t.scrollTop = t.scrollHeight;"
            )
            time.sleep(0.3)
            tree_rows = driver.execute_script(
                "return document.querySelectorAll('.tree-row').length"
            )
            heap_end, nodes_end = _heap(driver)
    print(f"{name}: {lines:,} diff lines, {len(files):,} files")
    print(f"  diffchunk web until the URL (load, tree)   {ready_s:8.2f} s")
    print(
        f"  first render (navigation -> tree drawn)    {min(renders) / 1000:8.3f} s best of "
        f"{repeat} ({', '.join(f'{r / 1000:.3f}' for r in renders)}); /api/review "
        f"{len(review) / 1e6:.1f} MB"
    )
    print(
        f"  JS heap after first render                 {heap_first:8.1f} MB, {nodes_first:,} DOM nodes"
    )
    print(
        f"  open the largest file ({largest})  {(opened - clicked) / 1000:.3f} s to {rows:,} rows; "
        f"heap {heap_file:.1f} MB, {nodes_file:,} nodes"
    )
    print(
        f"  tree scrolled to its end: {tree_rows} rows drawn of {len(files):,} files; "
        f"heap {heap_end:.1f} MB, {nodes_end:,} nodes"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--big-file", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    why = webdriver.missing()
    if why is not None:
        raise SystemExit(f"bench-web needs the browser: {why}")
    with tempfile.TemporaryDirectory(prefix="diffchunk-bench-web-") as tmp:
        root = Path(tmp)
        many = root / "many.diff"
        many.write_bytes(generate(args.lines))
        _measure("generated diff", many, root, args.repeat)
        one = root / "one.diff"
        one.write_bytes(_big_file(args.big_file))
        _measure("one large file", one, root, args.repeat)


if __name__ == "__main__":
    main()
