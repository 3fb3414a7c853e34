# Every target creates the virtualenv it needs; a fresh clone runs `make demo` or `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck unit test-data chromium screenshot bench bench-git bench-files bench-startup bench-load bench-export bench-record-export bench-incremental bench-tokens bench-resources fuzz fuzz-coverage fuzz-files faults record-faults clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m diffchunk.demo

lint: $(STAMP)
	$(BIN)/ruff check diffchunk tests benchmarks
	$(BIN)/ruff format --check diffchunk tests benchmarks
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) chromium test-data
	$(BIN)/pytest

# Real large files the tests read: a 200k-line typescript.js (npm pack typescript@5), fetched
# once into .test-data/ (tests/test_files_outline_large.py says how when it is missing).
# Without npm its tests skip; a failed fetch is reported here and the test then fails saying so.
TEST_DATA  := .test-data
TYPESCRIPT := $(TEST_DATA)/typescript5/package/lib/typescript.js
test-data:
	@if [ -f $(TYPESCRIPT) ]; then :; \
	elif ! command -v npm >/dev/null 2>&1; then \
		echo "npm is not installed: the typescript.js outline tests will skip"; \
	else \
		echo "fetching typescript.js for the outline tests (npm pack typescript@5)"; \
		rm -rf $(TEST_DATA)/typescript5 && mkdir -p $(TEST_DATA)/typescript5 && \
		( cd $(TEST_DATA)/typescript5 && npm pack --silent typescript@5 >/dev/null && \
		  tar xzf typescript-*.tgz package/lib/typescript.js && rm -f typescript-*.tgz ) \
		|| echo "typescript.js could not be fetched (npm pack typescript@5 failed)"; \
	fi

# The HTML export is tested in Debian's headless chromium: installed here when it is missing
# and this runs as root with apt-get; otherwise (or when the install fails) that test skips
# and says how to install it.
chromium:
	@if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing chromium for the HTML export's browser test"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends chromium >/dev/null; } \
		|| echo "chromium could not be installed: the browser test will skip"; \
	fi

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/python -m benchmarks.bench_diff

bench-git: $(STAMP)
	$(BIN)/python -m benchmarks.bench_git

bench-files: $(STAMP)
	$(BIN)/python -m benchmarks.bench_files

bench-startup: $(STAMP)
	$(BIN)/python -m benchmarks.bench_startup

bench-export: $(STAMP)
	$(BIN)/python -m benchmarks.bench_export

# The same exports from a real record: a diff file loaded, 2,000 findings written with
# add_finding, then list_findings, review_status and export_review in each format.
bench-record-export: $(STAMP)
	$(BIN)/python -m benchmarks.bench_record_export

# A second review after a small amend of a large reviewed branch (a release range of a local
# mirror of a real project): every chunk again, the chunks not reviewed, or since_review.
bench-incremental: $(STAMP)
	$(BIN)/python -m benchmarks.bench_incremental

# Issue 23's resource cases, a fresh interpreter each: the time and peak memory of every
# tool on a diff of a million small files, and of the HTML export of a 3.76M-line diff.
# BASELINE=DIR (a diffchunk package, e.g. `git archive main diffchunk | tar -x -C DIR`)
# runs them there too, side by side.
bench-resources: $(STAMP)
	$(BIN)/python -m benchmarks.bench_resources $(if $(BASELINE),--baseline $(BASELINE))

# What reading a review costs: every chunk in each format, the listing, the lean folds, the tool list.
bench-tokens: $(STAMP)
	$(BIN)/python -m benchmarks.bench_tokens

bench-load: $(STAMP)
	$(BIN)/python -m tests.property.load_mcp --clients 8 --seconds 60
	$(BIN)/python -m tests.property.load_mcp --memory --diffs 50

# The HTML export of a sample review and its screenshot: bench-out/review.html, bench-out/review.png.
screenshot: $(STAMP) chromium
	$(BIN)/python -m tests.support.screenshot --out bench-out/review.png

# Kill edits 100 times, and 2 and 8 concurrent writers x 100 edits.
faults: $(STAMP)
	$(BIN)/python -m tests.property.faults --kills 100

# The review record: the MCP server and 2 CLI processes x 200 marks and findings at once;
# 50 SIGKILLs during writes.
record-faults: $(STAMP)
	$(BIN)/python -m tests.property.record_faults --writes 200 --kills 50

# Long-running property checks of the diff engine (parse, filter, chunk, apply).
fuzz: $(STAMP)
	$(BIN)/python -m tests.property.fuzz_diff --cases 100000 --quiet

# The file tools' search and edit paths against reference models (exact, regex, fuzzy).
fuzz-files: $(STAMP)
	$(BIN)/python -m tests.property.fuzz_files --cases 100000 --progress-every 10000

# Coverage-guided fuzzing of the diff engine (atheris/libFuzzer); failing inputs go to
# bench-out/fuzz-atheris/crashes.
fuzz-coverage: $(STAMP)
	$(BIN)/pip install --quiet -e ".[fuzz]"
	$(BIN)/python -m tests.property.fuzz_atheris --runs 100000

clean:
	rm -rf $(VENV) $(TEST_DATA) build *.egg-info .mypy_cache .ruff_cache .pytest_cache
