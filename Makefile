# Every target creates the virtualenv it needs; a fresh clone runs `make demo` or `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck unit suite linted-suite test-data system-packages chromium git-man screenshot bench bench-git bench-files bench-memory bench-stalls bench-startup bench-load bench-export bench-record-export bench-sync bench-second-review bench-incremental bench-tokens bench-review bench-web bench-resources fuzz fuzz-coverage fuzz-files faults record-faults clean

# The packages are installed by uv, in the virtualenv beside pip: the same packages
# and versions as `pip install -e ".[dev]"`, in 4 s of CPU where pip took 18 (most of a
# fresh clone's install).  Named `python3`, as pip names it, the interpreter is what
# the installed scripts start (a process the tests see is `python3`).  The virtualenv
# is made without pip (ensurepip takes 4 s), the machine's pip puts uv in it, and uv
# installs pip with the rest (the tests run pip).  Where the machine has no pip, the
# virtualenv's own is made; where uv cannot be had, or its install fails (an index only
# pip is configured for), pip installs the packages.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv --without-pip $(VENV)
	$(PYTHON) -m pip --python $(BIN)/python3 install --quiet --disable-pip-version-check uv \
		2>/dev/null || { $(BIN)/python3 -m ensurepip --default-pip >/dev/null \
		&& $(BIN)/pip install --quiet uv; } || true
	if [ -x $(BIN)/uv ] && $(BIN)/uv pip install --quiet --python $(BIN)/python3 -e ".[dev]" pip; \
	then :; else { [ -x $(BIN)/pip ] || $(BIN)/python3 -m ensurepip --default-pip >/dev/null; } \
		&& $(BIN)/pip install --quiet -e ".[dev]"; fi
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m diffchunk.demo

lint: $(STAMP)
	$(BIN)/ruff check diffchunk tests benchmarks
	$(BIN)/ruff format --check diffchunk tests benchmarks
	$(BIN)/lint-imports --no-cache

typecheck: $(STAMP)
	$(BIN)/mypy

# The suite on every core (pytest-xdist; tests/conftest.py keeps the workers apart), and
# its slowest tests listed at the end, so that a slower suite shows.  --dist worksteal:
# each worker takes a contiguous half of the tests (a module's shared server and
# repositories are made once) and an idle one takes half of what another has left (the
# suite's long tests do not all end up on one worker).  Bytecode is written (whatever
# PYTHONDONTWRITEBYTECODE says): each worker rewrites the test modules' asserts, 6 s of
# CPU that the next run reads back from __pycache__.  The tests' temporary directories are
# in memory (/dev/shm) where the machine has a writable tmpfs there with 3 GB free: the
# suite writes and syncs about 1.5 GB of repositories, records, backups and large files,
# and on a virtual disk the wait for those writes was a third of its time.  A run's
# directory there is its own (--basetemp) and is removed when the run passes or is
# interrupted (memory, not disk); a failed run's stays to be looked at (its path is
# printed).  Elsewhere pytest's own is used.
SUITE_TMP = $$(if [ -d /dev/shm ] && [ -w /dev/shm ] && \
	[ "$$(df -Pk /dev/shm | awk 'NR == 2 {print $$4}')" -gt 3000000 ]; \
	then mktemp -d /dev/shm/diffchunk-suite-XXXXXX; fi)
unit: $(STAMP) system-packages test-data
	@$(MAKE) --no-print-directory suite

suite: $(STAMP) test-data
	@base="$(SUITE_TMP)"; \
	[ -z "$$base" ] || trap 'rm -rf "$$base"; exit 130' INT TERM; \
	set -- -n auto --dist worksteal --durations=15 --durations-min=1; \
	if [ -n "$$base" ]; then set -- "$$@" --basetemp="$$base"; fi; \
	echo "$(BIN)/pytest $$*"; \
	if PYTHONDONTWRITEBYTECODE= $(BIN)/pytest "$$@"; then [ -z "$$base" ] || rm -rf "$$base"; \
	else status=$$?; [ -z "$$base" ] || echo "the tests' files are kept in $$base"; \
		exit $$status; fi

# Real large files the tests read: a 200k-line typescript.js (npm pack typescript@5), fetched
# once into .test-data/ (tests/files/test_outline_large.py says how when it is missing).
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

# Debian's packages the suite uses, installed in one apt-get (one index update) when one
# is missing and this runs as root with apt-get:
# - chromium and chromium-driver: the HTML export and the review page are tested in
#   headless chromium, through chromedriver; without them those tests skip and
#   say how to install them;
# - git-man: the no-program suite reads the config keys to set from git's own manual
#   (git-config.1); without it that suite fails and says how to install it (it never
#   tests fewer keys).
# `make chromium` and `make git-man` install what this installs.
system-packages:
	@missing=""; \
	if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
		missing="chromium chromium-driver"; fi; \
	if ! ls /usr/share/man/man1/git-config.1* >/dev/null 2>&1; then \
		missing="$$missing git-man"; fi; \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing $$missing for the browser and no-program tests"; \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } \
		|| echo "$$missing could not be installed: the browser tests will skip" \
			"and the no-program suite will fail, each saying how to install it"; \
	fi; \
	rm -f $(PACKAGES_PENDING)

chromium git-man: system-packages

# Everything at once, on a fresh machine: apt (chromium) takes longer than the
# virtualenv, so the suite does not wait for it.  Once the virtualenv is made, the lint
# runs (a slip in style or layers fails first), then the suite, mypy beside it, while
# apt goes on.  The tests that need a Debian package wait for the install to end
# (tests/support/system_packages.py): the file PACKAGES_PENDING, holding this recipe's
# process id, says it has not; `make system-packages` removes it when it ends, and so
# does this recipe, however it ends.
PACKAGES_PENDING := $(TEST_DATA)/system-packages.pending
test:
	@mkdir -p $(TEST_DATA) && echo $$$$ > $(PACKAGES_PENDING); \
	trap 'rm -f $(PACKAGES_PENDING)' EXIT; \
	$(MAKE) --no-print-directory -j4 system-packages test-data typecheck linted-suite

linted-suite: lint test-data
	@$(MAKE) --no-print-directory suite

bench: $(STAMP)
	$(BIN)/python -m benchmarks.bench_diff

bench-git: $(STAMP)
	$(BIN)/python -m benchmarks.bench_git

bench-files: $(STAMP)
	$(BIN)/python -m benchmarks.bench_files

# Peak memory of every file tool on a 1 GB file with no line break (written once in $TMPDIR).
bench-memory: $(STAMP)
	$(BIN)/python -m benchmarks.bench_memory

# What a slow call does to the others: per slow case, its time, the longest stretch it
# holds the interpreter lock, and the slowest read_content sent beside it over MCP.
bench-stalls: $(STAMP)
	$(BIN)/python -m benchmarks.bench_stalls

bench-startup: $(STAMP)
	$(BIN)/python -m benchmarks.bench_startup

bench-export: $(STAMP)
	$(BIN)/python -m benchmarks.bench_export

# The same exports from a real record: a diff file loaded, 2,000 findings written with
# add_finding, then list_findings, review_status and export_review in each format.
bench-record-export: $(STAMP)
	$(BIN)/python -m benchmarks.bench_record_export

# diffchunk sync of a 2,000-finding, 5,000-mark record both ways: time and bytes on the remote.
bench-sync: $(STAMP)
	$(BIN)/python -m benchmarks.bench_sync

# A second review of click 8.4.2..8.5.0 after a push, with and without the first review's
# marks and dismissals (a local mirror: --mirror), in calls and characters.
bench-second-review: $(STAMP)
	$(BIN)/python -m benchmarks.bench_second_review

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

# What a whole review costs through diffchunk against plain git, in characters: a small and a
# medium release of real projects (bare clones in $DIFFCHUNK_BENCH_REPOS, default bench-out/repos).
bench-review: $(STAMP)
	$(BIN)/python -m benchmarks.bench_review

# The review page of a generated diff of a million lines: the load, the server's answers,
# and in headless chromium the time to the first render and the page's JS heap.
bench-web: $(STAMP) chromium
	$(BIN)/python -m benchmarks.bench_web

# What reading a review costs: every chunk in each format, the listing, the lean folds, the tool list.
bench-tokens: $(STAMP)
	$(BIN)/python -m benchmarks.bench_tokens

bench-load: $(STAMP)
	$(BIN)/python -m tests.property.load_mcp --clients 8 --seconds 60
	$(BIN)/python -m tests.property.load_mcp --memory --diffs 50

# The HTML export of a sample review and its screenshot: bench-out/review.html, bench-out/review.png.
screenshot: $(STAMP) chromium
	$(BIN)/python -m tests.support.screenshot --out bench-out/review.png

# Kill edits 100 times, 2 and 8 concurrent writers x 100 edits, and 200 edits racing an appender
# (lines written, found in the file, reported in late_write side files, lost).
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
