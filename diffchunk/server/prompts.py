"""The prompts an MCP client shows as commands (``/review``, ``/review_since``,
``/address_findings``): short texts that drive the tools.

Rules: each text names only tools this server has, by their names (a test
reads every ``name(`` in every rendered prompt and finds it in the tool list),
and asks for nothing the tools cannot do; tools stay the main path, a prompt
only says in which order to call them.  A target is what ``load_git_diff``
takes as ``revision_range`` (``main..feature``, ``C^!``...) or the absolute
path of a diff file.
"""

from __future__ import annotations

from .app import app

_TARGET = """\
The target is {target}. If it is the absolute path of a diff file, pass it as
absolute_file_path to the diff tools. Otherwise it is a git range: call
load_git_diff(absolute_repo_path=<the absolute path of the repository you are working
in; ask me if you do not know it>, revision_range="{target}"{since}) and use the
file_path it returns as absolute_file_path from then on."""


def _target(target: str, since: bool = False) -> str:
    return _TARGET.format(target=target, since=", since_review=true" if since else "")


_LOOP = """\
Then call review_status to see where the review stands (it may have been started
before) and work through the chunks from its next_chunk: get_chunk(format="lean") for
each (format="raw" when you need exact lines), get_file_diff or open_file_version when
you need more of a file, add_finding for each problem (with line, severity and, when
you have one, a suggestion), and mark_reviewed(chunk_number=N) once a chunk is done.
If your context runs short, review_status gives next_chunk to go on from."""


@app.prompt(
    name="review",
    title="Review a diff or a git range",
    description="Review a git range (main..feature) or a diff file chunk by chunk, recording "
    "findings and marks as you go.",
)
def review(target: str, focus: str | None = None) -> str:
    """The whole review of ``target``, with an optional focus."""
    focused = (
        f"\nFocus on: {focus}. Mention other problems only when they are serious." if focus else ""
    )
    return (
        f"Review this change with the diffchunk tools.\n\n{_target(target)}\n\n"
        "Start with list_chunks for the overview (files, sizes, what was left out and why).\n"
        f"{_LOOP}{focused}\n\n"
        'When every chunk is reviewed, call list_findings(status="open") and give me a short '
        "summary: what the change does, the findings by severity, and what you did not check."
    )


@app.prompt(
    name="review_since",
    title="Review what changed since my last review",
    description="After the branch moved (new commits, an amend, a rebase): review only what "
    "changed since its last review.",
)
def review_since(target: str) -> str:
    """What changed in ``target`` (a git range) since its last review."""
    return (
        "Review only what changed in this branch since my last review of it.\n\n"
        f"{_target(target, since=True)}\n\n"
        "The answer's since_review says what was reviewed before (its history: fast-forward, "
        "base moved, rewritten) and which files changed, are new or are no longer changed; "
        "list_commits on that file_path lists the commits new or rewritten since. "
        "If it says there is nothing to compare with, review the whole range instead (the "
        'prompt "review").\n'
        f"{_LOOP}\n\n"
        "Marks and findings you make here belong to the full review. End with a summary of "
        'what changed since the last review and list_findings(status="open").'
    )


@app.prompt(
    name="address_findings",
    title="Fix the open findings of a review",
    description="Go through the open findings of a review and fix them in the work tree.",
)
def address_findings(target: str) -> str:
    """Fix the open findings of ``target``'s review."""
    return (
        "Fix the open findings of this review, one at a time.\n\n"
        f"{_target(target)}\n\n"
        'Call list_findings(status="open") (pages: offset=next_offset). For each finding: read '
        'the code around its lines in the work tree (read_content with mode="semantic", or '
        "search_content), decide whether it is right, and if so fix it with edit_content "
        "(check its preview, then call again with preview=false; revert_edit undoes an edit). "
        'Then call update_finding(finding_id=ID, status="resolved"), or status="dismissed" '
        "with your reason in the message when the finding is wrong. Do not change code no "
        "finding asks for.\n\n"
        "End with what you changed per finding, and the findings you left open and why."
    )
