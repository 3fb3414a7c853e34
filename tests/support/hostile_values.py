"""Hand-picked hostile values for the MCP tools' parameters, one case each.

See ``hostile_mcp`` for the cases generated from the tools' schemas.
"""

from __future__ import annotations

from typing import Any

from hostile_mcp import ANY, ERR, OK, Case

BIG_GLOB = "**/" + "a*" * 50_000  # ~100 KB
MANY_GLOBS = ",".join(f"dir{i}/*.py" for i in range(10_000))
LONG_A = "a" * 5000 + "b"


def value_cases() -> list[Case]:
    """A table of cases, one row (an ``add``) each: long because the tools have many parameters."""
    d = {"absolute_file_path": "{diff}"}
    s = {"absolute_file_path": "{source}"}
    c: list[Case] = []

    def add(id_: str, tool: str, args: dict[str, Any], expect: str, *needles: str) -> None:
        c.append(Case(id_, tool, args, expect, needles))

    # get_chunk
    for n in (-1, 0, 3, 10**18, 2**70):
        add(f"get_chunk-number-{n}", "get_chunk", {**d, "chunk_number": n}, ERR, "chunk")
    for fmt in ("", "xml", "RAW ", "raw\x00"):
        add(
            f"get_chunk-format-{fmt!r}",
            "get_chunk",
            {**d, "chunk_number": 1, "format": fmt},
            ANY,
            "format",
        )
    # load_diff
    for n in (0, -5, 10**12):
        add(
            f"load_diff-max_chunk_lines-{n}",
            "load_diff",
            {**d, "max_chunk_lines": n},
            ERR,
            "max_chunk_lines",
        )
    add("load_diff-context_lines--1", "load_diff", {**d, "context_lines": -1}, ERR, "context_lines")
    add(
        "load_diff-context_lines-1e9",
        "load_diff",
        {**d, "context_lines": 10**9},
        ANY,
        "context_lines",
    )
    for key in ("include_patterns", "exclude_patterns"):
        for label, value in (
            ("big", BIG_GLOB),
            ("many", MANY_GLOBS),
            ("blank", "  "),
            ("commas", ",,,"),
            ("bracket", "["),
        ):
            add(f"load_diff-{key}-{label}", "load_diff", {**d, key: value}, ANY, "pattern")
    # list_chunks
    for off in (-1, 10**18):
        add(f"list_chunks-offset-{off}", "list_chunks", {**d, "offset": off}, ERR, "offset")
    for lim in (0, -1):
        add(f"list_chunks-limit-{lim}", "list_chunks", {**d, "limit": lim}, ERR, "limit")
    add("list_chunks-limit-1e18", "list_chunks", {**d, "limit": 10**18}, OK)
    # find_chunks_for_files
    for label, value in (
        ("empty", ""),
        ("blank", " "),
        ("big", BIG_GLOB),
        ("many", MANY_GLOBS),
        ("bracket", "["),
        ("nul", "a\x00b"),
        ("traversal", "../../*"),
    ):
        expect = ERR if label in ("empty", "blank") else ANY
        add(
            f"find_chunks_for_files-pattern-{label}",
            "find_chunks_for_files",
            {**d, "pattern": value},
            expect,
            "pattern",
        )
    # get_file_diff
    for label, value, expect in (
        ("empty", "", ERR),
        ("star_several", "*", OK),  # every file in turn
        ("path_traversal", "../../../../etc/passwd", ERR),
        ("big", BIG_GLOB, ERR),
        ("many", MANY_GLOBS, ANY),
        ("nul", "src/app.py\x00", ERR),
    ):
        add(
            f"get_file_diff-file_path-{label}",
            "get_file_diff",
            {**d, "file_path": value},
            expect,
            "file_path|matches|no file|empty",
        )
    # open_file_version (the diff's blob ids 1111111/2222222 are in no repository)
    o = {**d, "absolute_repo_path": "{repo}"}
    for label, extra, needle in (
        ("side", {"file_path": "src/app.py", "side": "left"}, "side"),
        ("side-nul", {"file_path": "src/app.py", "side": "new\x00"}, "side"),
        ("file-traversal", {"file_path": "../../etc/passwd"}, "no file"),
        ("file-glob-several", {"file_path": "*.nothing"}, "no file"),
        ("blob-missing", {"file_path": "src/app.py"}, "not in"),
        ("no-repository", {"file_path": "src/app.py", "absolute_repo_path": None}, "repository"),
    ):
        add(f"open_file_version-{label}", "open_file_version", {**o, **extra}, ERR, needle)
    # search_diff
    for label, extra, expect, needle in (
        ("pattern-empty", {"pattern": ""}, ERR, "empty"),
        ("pattern-newline", {"pattern": "a\nb"}, ERR, "line break"),
        ("pattern-huge", {"pattern": "x" * 100_000}, ERR, "longer"),
        ("regex-invalid", {"pattern": "(", "regex": True}, ERR, "regular expression"),
        ("regex-backtracking", {"pattern": "(a|a)*$", "regex": True}, OK, ""),
        ("side", {"side": "left"}, ERR, "side"),
        ("max_results-0", {"max_results": 0}, ERR, "max_results"),
        ("max_results-huge", {"max_results": 10**9}, ERR, "max_results"),
        ("offset-negative", {"offset": -1}, ERR, "offset"),
        ("offset-huge", {"offset": 10**18}, OK, ""),
        ("file_pattern-big", {"file_pattern": BIG_GLOB}, ANY, "pattern"),
        ("file_pattern-bracket", {"file_pattern": "["}, ANY, "pattern"),
    ):
        args = {**d, "pattern": "return", **extra}
        add(f"search_diff-{label}", "search_diff", args, expect, needle)
    # list_commits (the diff is a plain diff: it holds no commits)
    for label, extra, needle in (
        ("plain-diff", {}, "holds no commits"),
        ("file-traversal", {"file_path": "../../etc/passwd"}, "no file"),
        ("limit-0", {"limit": 0}, "limit"),
        ("limit-huge", {"limit": 10**9}, "limit"),
        ("offset-negative", {"offset": -1}, "offset"),
    ):
        add(f"list_commits-{label}", "list_commits", {**d, **extra}, ERR, needle)
    # load_git_diff
    r = {"absolute_repo_path": "{repo}"}
    for label, value in (
        ("empty", ""),
        ("option_output", "--output=/tmp/pwned"),
        ("option_O", "-O/tmp/pwned"),
        ("dash", "-"),
        ("triple", "a..b..c"),
        ("nul", "HEAD\x00"),
        ("unknown", "no-such-branch"),
        ("huge", "x" * 100_000),
        ("newline", "HEAD\n--output=/tmp/pwned"),
    ):
        expect = ANY if label == "empty" else ERR
        add(
            f"load_git_diff-revision_range-{label}",
            "load_git_diff",
            {**r, "revision_range": value},
            expect,
            "range|revision|option|refused|unknown|empty",
        )
    for n in (0, -5, 10**12):
        add(
            f"load_git_diff-max_chunk_lines-{n}",
            "load_git_diff",
            {**r, "max_chunk_lines": n},
            ERR,
            "max_chunk_lines",
        )
    add(
        "load_git_diff-context_lines--1",
        "load_git_diff",
        {**r, "context_lines": -1},
        ERR,
        "context_lines",
    )
    for label, value, needle in (
        ("traversal", ["../outside"], "leads out"),
        ("absolute-outside", ["/etc"], "outside the repository"),
        ("empty", [""], "empty"),
        ("nul", ["a\x00b"], "NUL"),
        ("option", ["--output=/tmp/pwned"], ""),
        ("magic", [":(top)*"], ""),
        ("many", [f"p{i}" for i in range(5000)], "at most"),
    ):
        expect = ANY if label in ("option", "magic") else ERR
        add(f"load_git_diff-paths-{label}", "load_git_diff", {**r, "paths": value}, expect, needle)
    add(
        "load_git_diff-include-big",
        "load_git_diff",
        {**r, "include_patterns": BIG_GLOB},
        ANY,
        "pattern",
    )
    # the review record
    f = {**d, "file_path": "src/app.py", "message": "m"}
    for label, extra, needle in (
        ("line-0", {"line": 0}, "line"),
        ("line-negative", {"line": -3}, "line"),
        ("line-huge", {"line": 10**18}, "hunk"),
        ("end-before-line", {"line": 2, "end_line": 1}, "end_line"),
        ("end-without-line", {"end_line": 2}, "end_line"),
        ("side", {"line": 2, "side": "left"}, "side"),
        ("severity", {"severity": "catastrophic"}, "severity"),
        ("message-blank", {"message": "  "}, "message"),
        ("message-huge", {"message": "x" * 10**6}, "message"),
        ("suggestion-old", {"line": 2, "side": "old", "suggestion": "x"}, "suggestion"),
        ("file-glob-several", {"file_path": "*"}, "matches"),
        ("file-traversal", {"file_path": "../../etc/passwd"}, "no file"),
    ):
        add(f"add_finding-{label}", "add_finding", {**f, **extra}, ERR, needle)
    for label, extra in (
        ("both", {"chunk_number": 1, "file_pattern": "*"}),
        ("neither", {"chunk_number": None}),
    ):
        add(f"mark_reviewed-{label}", "mark_reviewed", {**d, **extra}, ERR, "exactly one")
    add("mark_reviewed-chunk-0", "mark_reviewed", {**d, "chunk_number": 0}, ERR, "chunk")
    add(
        "mark_reviewed-pattern-big",
        "mark_reviewed",
        {**d, "file_pattern": BIG_GLOB},
        ANY,
        "pattern|matches",
    )
    for label, extra, needle in (
        ("missing", {"finding_id": 10**12, "status": "resolved"}, "no finding"),
        ("nothing", {"finding_id": 1}, "nothing to change"),
        ("status", {"finding_id": 1, "status": "fixed"}, "status"),
    ):
        add(f"update_finding-{label}", "update_finding", {**d, **extra}, ERR, needle)
    for label, extra, needle in (
        ("status", {"status": "closed"}, "status"),
        ("severity", {"severity": "major,huge"}, "severity"),
        ("offset", {"offset": 10**18}, "offset"),
        ("limit", {"limit": 0}, "limit"),
    ):
        add(f"list_findings-{label}", "list_findings", {**d, **extra}, ERR, needle)
    add("review_status-offset", "review_status", {**d, "offset": -1}, ERR, "offset")
    add("review_status-limit", "review_status", {**d, "limit": 10**18}, OK)
    # search_content
    add("search_content-pattern-empty", "search_content", {**s, "pattern": ""}, ERR, "empty")
    add(
        "search_content-pattern-newline",
        "search_content",
        {**s, "pattern": "a\nb"},
        ERR,
        "line break",
    )
    add(
        "search_content-regex-invalid",
        "search_content",
        {**s, "pattern": "(", "regex": True, "fuzzy": False},
        ERR,
        "regex|regular expression",
    )
    add(
        "search_content-regex-fuzzy",
        "search_content",
        {**s, "pattern": "a", "regex": True},
        ERR,
        "fuzzy",
    )
    # Patterns that backtrack in Python's re: answered (RE2 runs in linear time).
    for label, pattern in (
        ("nested", "(a+)+$"),
        ("alternation", "(a|a)*$"),
        ("nested_star", "(a*)*b$"),
    ):
        for count in (False, True):
            add(
                f"search_content-catastrophic-{label}-count{count}",
                "search_content",
                {**s, "pattern": pattern, "regex": True, "fuzzy": False, "count_only": count},
                OK,
            )
    for n in (0, -1):
        add(
            f"search_content-max_results-{n}",
            "search_content",
            {**s, "max_results": n},
            ERR,
            "max_results",
        )
    add(
        "search_content-max_results-1e9",
        "search_content",
        {**s, "pattern": "line", "fuzzy": False, "max_results": 10**9},
        OK,
    )
    add(
        "search_content-context_lines--1",
        "search_content",
        {**s, "context_lines": -1},
        ERR,
        "context_lines",
    )
    add(
        "search_content-context_lines-1e9",
        "search_content",
        {**s, "pattern": "line 5", "fuzzy": False, "context_lines": 10**9},
        OK,
    )
    add(
        "search_content-fuzzy-huge-pattern",
        "search_content",
        {**s, "pattern": "x" * 100_000},
        ANY,
        "pattern|long",
    )
    add(
        "search_content-fuzzy-long-a",
        "search_content",
        {**s, "pattern": LONG_A},
        ANY,
        "pattern|long",
    )
    add(
        "search_content-invert-everything",
        "search_content",
        {**s, "pattern": "zzz", "invert": True, "fuzzy": False, "max_results": 10**9},
        OK,
    )
    # read_content
    for off in (-1, 0):
        add(f"read_content-offset-{off}", "read_content", {**s, "offset": off}, ERR, "offset")
    add(
        "read_content-offset-1e18",
        "read_content",
        {**s, "offset": 10**18},
        ERR,
        "past the end|offset",
    )
    for lim in (0, -1):
        add(f"read_content-limit-{lim}", "read_content", {**s, "limit": lim}, ERR, "limit")
    for mode in ("head", "tail", "lines", "semantic"):
        add(
            f"read_content-limit-1e9-{mode}",
            "read_content",
            {**s, "limit": 10**9, "mode": mode},
            OK,
        )
    for mode in ("", "bogus", "HEAD"):
        add(f"read_content-mode-{mode!r}", "read_content", {**s, "mode": mode}, ERR, "mode")
    add("read_content-pattern-newline", "read_content", {**s, "pattern": "a\nb"}, ERR, "line break")
    add(
        "read_content-pattern-huge",
        "read_content",
        {**s, "pattern": "q" * 100_000},
        ANY,
        "pattern|not found|long",
    )
    # edit_content
    good = {"search": "value = 2", "replace": "value = 3"}
    for label, changes, needle in (
        ("empty_list", [], "non-empty|empty"),
        ("list_of_int", [1], "not an object|changes.0"),
        ("list_of_str", ["abc"], "not an object|changes.0"),
        ("missing_search", [{"replace": "x"}], "search"),
        ("missing_replace", [{"search": "value = 2"}], "replace"),
        ("replace_int", [{"search": "value = 2", "replace": 1}], "replace"),
        ("search_empty", [{"search": "", "replace": "x"}], "search"),
        ("unknown_key", [{**good, "bogus": 1}], "unknown"),
        ("fuzzy_str", [{**good, "fuzzy": "yes"}], "fuzzy"),
        ("ten_thousand", [good] * 10_000, "at most"),
        ("not_found", [{"search": "zzz_no_such_text", "replace": "x"}], "not found|no match"),
        ("huge_search", [{"search": "q" * 100_000, "replace": "x"}], "not found|no match|long"),
        ("nul_search", [{"search": "\x00", "replace": "x"}], "not found|no match|NUL"),
    ):
        add(f"edit_content-changes-{label}", "edit_content", {**s, "changes": changes}, ANY, needle)
    # revert_edit
    for label, value in (
        ("empty", ""),
        ("path_traversal", "../../../../etc/passwd"),
        ("dotdot", ".."),
        ("glob", "*"),
        ("absolute", "/etc/passwd"),
        ("nul", "x\x00y"),
        ("huge", "9" * 100_000),
    ):
        # An empty id means "the newest backup", like leaving it out.
        add(
            f"revert_edit-backup_id-{label}",
            "revert_edit",
            {"absolute_file_path": "{edited}", "backup_id": value},
            OK if label == "empty" else ERR,
            "no backup",
        )
    # lean's search for moved lines across a diff crafted to make it compare long
    m = {"absolute_file_path": "{moves_diff}"}
    for label, file_path in (("moves", "b.py"), ("long-lines", "d.py"), ("glob", "s/*")):
        add(
            f"get_file_diff-lean-{label}",
            "get_file_diff",
            {**m, "file_path": file_path, "format": "lean"},
            OK,
        )
    add("get_chunk-lean-moves", "get_chunk", {**m, "chunk_number": 1, "format": "lean"}, OK)
    add("list_chunks-lean-moves", "list_chunks", {**m, "format": "lean"}, OK)
    return c
