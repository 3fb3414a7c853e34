"""The command line's words for what the application layer says in the MCP tools' terms.

The engines and the application layer write their messages and suggestions
once, for the MCP tools (``mode='tail'``, ``count_only=True``, ``raise
max_results``...).  The CLI prints none of those spellings: every error,
warning and note it prints passes :func:`cli_terms`, which puts the CLI's
option or command in place of each tool parameter or tool (``--tail``,
``--count``, ``--max-results``, ``diffchunk file edit``...).  The table is the
one place that knows both vocabularies; ``tests/cli/test_wording.py`` scans
every message literal of the lower layers and the CLI's outputs for a tool
parameter left untranslated.
"""

from __future__ import annotations

import re

_VALUE = r"""(?:'[^']*'|"[^"]*"|[\w.*/-]+)"""


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        inner = value[1:-1]
        return inner if re.fullmatch(r"[\w.-]+", inner) else f"'{inner}'"
    return value


# (parameter name, replacement of ``name=VALUE``): a replacement is a function of the
# match, or a table of values.
_ASSIGNMENTS: dict[str, object] = {
    "mode": {
        "tail": "--tail",
        "head": "--head",
        "lines": "--mode lines",
        "semantic": "--mode semantic",
    },
    "count_only": {"True": "--count", "true": "--count", "False": "no --count"},
    "fuzzy": {"False": "--exact", "false": "--exact", "True": "no --exact", "true": "no --exact"},
    "regex": {"True": "--regex", "true": "--regex", "False": "no --regex", "false": "no --regex"},
    "case_sensitive": {"False": "--ignore-case", "false": "--ignore-case"},
    "invert": {"True": "--invert", "true": "--invert"},
    "preview": {"False": "--apply", "false": "--apply", "True": "no --apply"},
    "since_review": {"True": "--since-review", "true": "--since-review"},
    "force": {"True": "--force", "true": "--force"},
    "skip_trivial": {"False": "--no-skip-trivial", "false": "--no-skip-trivial"},
    "skip_generated": {"False": "--no-skip-generated", "false": "--no-skip-generated"},
}
_SIMPLE_OPTIONS = {
    "offset": "--offset",
    "limit": "--limit",
    "outline_offset": "--outline-offset",
    "max_results": "--max-results",
    "context_lines": "--context",
    "chunk_number": "--chunk",
    "file_pattern": "--file",
    "file_path": "--file",
    "format": "--format",
    "side": "--side",
    "severity": "--severity",
    "end_line": "--end-line",
    "line": "--line",
    "max_chunk_lines": "--max-chunk-lines",
    "include_patterns": "--include",
    "exclude_patterns": "--exclude",
    "gitattributes_path": "--gitattributes",
    "backup_id": "--backup-id",
    "symbol": "--symbol",
    "status": "--status",
    "order": "--order",
    "diff_text": "--diff-text",
    "review_id": "--review",
    "comment": "--comment",
}
# Bare names (not followed by ``=``), and tool names, in running text.
_WORDS = {
    "outline_next_offset": "the next page's --outline-offset",
    "next_offset": "the next page's offset",
    "count_only": "--count",
    "max_results": "--max-results",
    "outline_offset": "--outline-offset",
    "context_lines": "--context",
    "chunk_number": "--chunk",
    "file_pattern": "--file",
    "end_line": "--end-line",
    "max_chunk_lines": "--max-chunk-lines",
    "include_patterns": "--include",
    "exclude_patterns": "--exclude",
    "gitattributes_path": "--gitattributes",
    "case_sensitive": "--ignore-case",
    "since_review": "--since-review",
    "backup_id": "--backup-id",
    "diff_text": "--diff-text",
    "review_id": "--review",
    "absolute_file_path": "the path",
    "file_path": "the file path",
    "finding_id": "the finding id",
    "skip_trivial": "--no-skip-trivial",
    "skip_generated": "--no-skip-generated",
    "absolute_repo_path": "--repo",
    "revision_range": "the range",
    "edit_content": "diffchunk file edit",
    "revert_edit": "diffchunk file revert",
    "read_content": "diffchunk file read",
    "search_content": "diffchunk file search",
    "get_overview": "diffchunk file overview",
    "load_git_diff": "diffchunk review RANGE",
    "load_diff": "diffchunk review DIFF_FILE",
    "get_chunk": "diffchunk review --chunk N",
    "get_file_diff": "diffchunk review --file PATH",
    "list_chunks": "diffchunk review",
    "review_status": "diffchunk status",
    "mark_reviewed": "diffchunk mark",
    "add_finding": "diffchunk finding add",
    "list_findings": "diffchunk finding list",
    "update_finding": "diffchunk finding update",
    "export_review": "diffchunk export",
    "search_code": "diffchunk search-code",
    "find_references": "diffchunk refs",
    "open_file_version": "diffchunk show",
    "list_symbols": "diffchunk symbols",
}

# A name in running text: not a piece of a path, a file name or a longer word.
_BEFORE = r"(?<![\w./-])"
_AFTER = r"(?![\w/-]|\.\w)"
_NAMES = "|".join(sorted(_WORDS, key=len, reverse=True))
_ASSIGNMENT = re.compile(_BEFORE + r"([a-z_]+)=(" + _VALUE + ")")
_CALL = re.compile(_BEFORE + r"(" + _NAMES + r")\(\)")
_WORD = re.compile(_BEFORE + r"(" + _NAMES + r")" + _AFTER)


def _assignment(match: re.Match[str]) -> str:
    name, value = match.group(1), match.group(2)
    end = ""
    if value.endswith(".") and not value.startswith(("'", '"')):
        value, end = value[:-1], "."  # the end of the sentence
    table = _ASSIGNMENTS.get(name)
    if isinstance(table, dict):
        replaced = table.get(_unquoted(value).strip("'\""))
        if replaced is not None:
            return str(replaced) + end
    option = _SIMPLE_OPTIONS.get(name)
    if option is not None:
        return f"{option} {_unquoted(value)}{end}"
    return match.group(0)


def cli_terms(text: str) -> str:
    """``text`` with the MCP tools' parameters and tools in the CLI's terms."""
    if "_" not in text and "=" not in text:
        return text
    text = _ASSIGNMENT.sub(_assignment, text)
    text = _CALL.sub(lambda m: _WORDS[m.group(1)], text)
    return _WORD.sub(lambda m: _WORDS[m.group(1)], text)


__all__ = ["cli_terms"]
