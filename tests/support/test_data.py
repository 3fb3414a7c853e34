"""Where the tests' files are, and the large real files they read.

``ROOT`` is the project's root, ``DATA`` the tests' own data (schemas, golden
exports), ``CORPUS`` the real diffs beside the project (``../shared/corpus``).
The large files are fetched by the Makefile's test set-up (``make test-data``):

``typescript.js`` (200k lines, 9 MB) of the npm package ``typescript@5`` lies in
``.test-data/typescript5/package/lib/``.  Without npm the tests that need it skip;
with npm, a missing file is a failure that says how to fetch it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
CORPUS = ROOT.parent / "shared" / "corpus"
TYPESCRIPT = ROOT / ".test-data" / "typescript5" / "package" / "lib" / "typescript.js"


def typescript_bundle() -> Path:
    """The path of typescript.js (skips the test when npm is not installed)."""
    if TYPESCRIPT.is_file():
        return TYPESCRIPT
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed, so typescript.js (npm pack typescript@5) is not here")
    pytest.fail(f"{TYPESCRIPT} is missing: run `make test-data` (npm pack typescript@5).")
