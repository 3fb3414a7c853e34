"""Property fuzzers, fault runs and load runs of diffchunk.

The suite runs each of them briefly (``tests/test_fuzz_*.py``,
``tests/test_faults.py``, ``tests/files/test_concurrency.py``,
``tests/server/test_load.py``); their make targets run them in full
(``python -m tests.property.<name>``).
"""
