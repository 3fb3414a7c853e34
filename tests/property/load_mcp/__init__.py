"""Load and memory checks of one ``diffchunk-mcp`` server over stdio.

``python -m tests.property.load_mcp --clients 8 --seconds 60`` starts ONE server
and runs N concurrent client tasks over one MCP client session (requests in
flight at the same time) for a bounded time: a mixed stream of diff tools on
the corpus diff and a generated 1M-line diff, and file tools on a generated
log.  Every answer is compared with a reference computed in this process
beforehand; an overall timeout catches a deadlock.  It prints latency
percentiles per tool and a final "N passed, N failed" line.

``--memory`` instead loads many distinct generated diffs one after another in
one server and samples the server's resident memory (VmRSS) after each load.

Modules: ``references`` (the calls and their answers), ``clients`` (the
concurrent clients and their latencies), ``memory`` (the memory run),
``__main__`` (the long runs).  The suite runs them briefly
(``tests/server/test_load.py``).
"""
