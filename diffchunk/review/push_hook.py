"""The pre-push review hook: install, uninstall, and what runs on a push.

``install`` writes a POSIX ``sh`` script (:func:`hook_script`) into the
repository's hooks directory (in the git *common* dir, shared by worktrees).
The script carries :data:`MARKER`; a foreign ``pre-push`` already there is
moved aside to ``pre-push.legacy`` and still run first by ours (its exit
status respected).  When ``core.hooksPath`` is set git would never run a hook
from that directory, so installing is refused with an explanation.
``uninstall`` removes only a script carrying the marker and puts the legacy
hook back.

On a push git feeds ``<local ref> <local sha> <remote ref> <remote sha>``
lines; :func:`review_push` reviews each pushed ref (deletions skipped):
``remote_sha..local_sha`` when the remote already has a commit we know, else
from the merge base with the remote's default branch, else the branch's new
commits (at most :data:`MAX_NEW_COMMITS` of them).  The diff is cached under
``<git common dir>/diffchunk/`` for an assistant to read.  Limits come from
``git config diffchunk.maxChunks`` / ``diffchunk.maxLines``.

Each reviewed ref also gets the review record's report
(:mod:`diffchunk.review.record.pushed`): the reviews of the pushed commit
(with those of the pushed branch last loaded at another commit:
:mod:`diffchunk.review.incremental.pushed`), what changed since their last
review, the state of the pushed files and the open findings; ``git config
diffchunk.failOn <severity>`` / ``diffchunk.requireReviewed true`` stop the
push while findings that serious are open or files are not marked reviewed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import GitError
from ..fdio import replace_file
from ..git.cache import DiffCache
from ..git.repo import Repo, discover
from ..git.revisions import Mode, ResolvedRange, empty_tree
from ..limits import SHORT_ID

if TYPE_CHECKING:
    from .ranges.load import GitDiff
    from .record.pushed import PushRecord, RecordSettings
    from .results import ChunkListing, LoadSummary

MAX_NEW_COMMITS = 500
"""A new branch with no merge base is reviewed over its last commits, at most
this many: the hook must not review a whole history before a push."""

HOOK_MARKER_BYTES = 4096
"""Bytes of a pre-push hook read for diffchunk's marker: the marker sits in the
first lines of our own hook script."""


HOOK_NAME = "pre-push"
LEGACY_SUFFIX = ".legacy"
MARKER = "# diffchunk-hook-id: 3c0f5e9a-pre-push"
ZERO_SHA = re.compile(r"0+")
_SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
_REMOTE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")

_TEMPLATE = """\
#!/bin/sh
{marker}
# Reviews what is about to be pushed with diffchunk: prints the chunk overview
# and leaves the diff cached for an assistant.  Limits (a push over them fails):
#   git config diffchunk.maxChunks N    git config diffchunk.maxLines N
# The review record (a push fails while findings this serious are open, or
# while pushed files are not marked reviewed):
#   git config diffchunk.failOn major   git config diffchunk.requireReviewed true
# Bypass once with `git push --no-verify`; remove with `diffchunk hook uninstall`.

INSTALL_PYTHON='{python}'

input=$(cat)
feed() {{
    if [ -n "$input" ]; then printf '%s\\n' "$input"; fi
}}

legacy="$(dirname "$0")/pre-push.legacy"
if [ -x "$legacy" ]; then
    feed | "$legacy" "$@" || exit $?
fi

if [ -n "$INSTALL_PYTHON" ] && [ -x "$INSTALL_PYTHON" ]; then
    feed | "$INSTALL_PYTHON" -c 'from diffchunk.console import main; main()' \\
        hook run-pre-push "$@"
elif command -v diffchunk >/dev/null 2>&1; then
    feed | diffchunk hook run-pre-push "$@"
else
    echo "diffchunk: not found on PATH; the pre-push review was skipped." >&2
    echo "diffchunk: install it, or remove this hook with 'diffchunk hook uninstall'." >&2
fi
"""


def hook_script(python: str = "") -> str:
    """The hook text; ``python`` is the interpreter that has diffchunk installed ("" = PATH)."""
    if "'" in python or "\n" in python:
        raise GitError(f"Cannot write a hook for the interpreter path {python!r}.")
    return _TEMPLATE.format(marker=MARKER, python=python)


def is_ours(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return MARKER.encode() in fh.read(HOOK_MARKER_BYTES)
    except OSError:
        return False


# --------------------------------------------------------------------------
# install / uninstall
# --------------------------------------------------------------------------


def _hooks_path_setting(repo: Repo) -> tuple[str, str] | None:
    """``(scope, value)`` of a ``core.hooksPath`` set in any config file, if any."""
    found = repo.setting("core.hookspath")
    return None if found is None else (found.scope, found.value or "")


def hooks_dir(repo: Repo) -> Path:
    """The directory git runs this repository's hooks from (refuses ``core.hooksPath``)."""
    setting = _hooks_path_setting(repo)
    if setting is not None:
        scope, value = setting
        raise GitError(
            f"core.hooksPath is set ({scope} config: {value!r}), so git runs hooks from "
            "there and a hook installed in the repository would never run.",
            suggestion=f'Add the line `diffchunk hook run-pre-push "$@"` to {value}/pre-push '
            "yourself, or remove the setting (`git config --unset core.hooksPath`) and "
            "install again.",
        )
    return Path(repo.common_dir) / "hooks"


def install(repo: Repo, python: str = "") -> str:
    """Install the hook; returns a sentence saying what was done."""
    directory = hooks_dir(repo)
    directory.mkdir(parents=True, exist_ok=True)
    hook = directory / HOOK_NAME
    legacy = directory / (HOOK_NAME + LEGACY_SUFFIX)
    moved = ""
    if os.path.lexists(hook) and not is_ours(hook):
        if os.path.lexists(legacy):
            raise GitError(
                f"{hook} is not diffchunk's and {legacy} already exists.",
                suggestion=f"Move or merge {legacy} by hand, then install again.",
            )
        os.replace(hook, legacy)
        moved = f"; the existing hook was moved to {legacy} and still runs first"
    replace_file(hook, hook_script(python).encode("utf-8"), mode=0o755)
    return f"Installed the diffchunk pre-push hook at {hook}{moved}."


def uninstall(repo: Repo) -> str:
    """Remove our hook (only ours) and restore a legacy one; returns what was done."""
    directory = Path(repo.common_dir) / "hooks"
    hook = directory / HOOK_NAME
    legacy = directory / (HOOK_NAME + LEGACY_SUFFIX)
    if not os.path.lexists(hook):
        return f"No pre-push hook is installed in {directory}; nothing to do."
    if not is_ours(hook):
        raise GitError(
            f"{hook} was not installed by diffchunk; it was left untouched.",
            suggestion="Remove it by hand if you no longer want it.",
        )
    os.unlink(hook)
    if os.path.lexists(legacy):
        os.replace(legacy, hook)
        return f"Removed the diffchunk pre-push hook; restored the previous hook at {hook}."
    return f"Removed the diffchunk pre-push hook from {directory}."


# --------------------------------------------------------------------------
# on push
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class PushedRef:
    local_ref: str
    local_sha: str
    remote_ref: str
    remote_sha: str


@dataclass
class RefReview:
    """The review of one pushed ref (``diff`` is None when it was skipped)."""

    ref: PushedRef
    note: str | None = None
    diff: GitDiff | None = None
    summary: LoadSummary | None = None
    listing: ChunkListing | None = None
    over_limit: list[str] = field(default_factory=list)
    record: PushRecord | None = None  # the review record's report (reviews, findings)


@dataclass(frozen=True)
class Limits:
    max_chunks: int | None = None
    max_lines: int | None = None


def parse_push_lines(lines: Iterable[str]) -> list[PushedRef]:
    """The refs of git's pre-push input (blank lines ignored, bad ones refused)."""
    refs = []
    for line in lines:
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4 or not all(_SHA.fullmatch(f) for f in (fields[1], fields[3])):
            raise GitError(
                f"Unexpected pre-push input line {line.strip()!r}.",
                suggestion="The hook expects `<local ref> <local sha> <remote ref> <remote sha>`.",
            )
        refs.append(PushedRef(*fields))
    return refs


def read_limits(repo: Repo) -> Limits:
    """``diffchunk.maxChunks`` / ``diffchunk.maxLines`` from git config (unset: no limit)."""
    return Limits(_int_config(repo, "diffchunk.maxChunks"), _int_config(repo, "diffchunk.maxLines"))


def _int_config(repo: Repo, key: str) -> int | None:
    found = repo.setting(key.lower())
    raw = (found.value or "").strip() if found is not None else ""
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise GitError(
            f"git config {key} is {raw!r}, not a whole number.",
            suggestion=f"Fix it with `git config {key} 20`, or remove it with "
            f"`git config --unset {key}`.",
        ) from None
    return value if value > 0 else None


def _commit_exists(repo: Repo, sha: str) -> bool:
    proc = repo.git.run(["cat-file", "-e", f"{sha}^{{commit}}"], check=False)
    return proc.returncode == 0


def _verify(repo: Repo, ref: str) -> str | None:
    proc = repo.git.run(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
        check=False,
    )
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def _base_for_new_branch(repo: Repo, remote: str, local_sha: str) -> tuple[str | None, str]:
    """``(base commit or None for the empty tree, how it was chosen)`` for a ref new to the remote."""
    if _REMOTE_NAME.fullmatch(remote) and ".." not in remote:
        for name in ("HEAD", "main", "master"):
            tip = _verify(repo, f"refs/remotes/{remote}/{name}")
            if tip is None:
                continue
            proc = repo.git.run(["merge-base", tip, local_sha], check=False)
            if proc.returncode == 0:
                return proc.stdout.decode().split()[0], f"merge base with {remote}/{name}"
    # No default branch known: the commits no remote-tracking ref has.
    proc = repo.git.run(
        [
            "rev-list",
            "--first-parent",
            f"--max-count={MAX_NEW_COMMITS + 1}",
            local_sha,
            "--not",
            "--remotes",
        ]
    )
    commits = proc.stdout.decode().split()
    if not commits:
        return local_sha, "already on a remote"
    if len(commits) > MAX_NEW_COMMITS:
        return commits[MAX_NEW_COMMITS], f"the last {MAX_NEW_COMMITS} commits only"
    parents = repo.git.text(["rev-list", "--parents", "-n", "1", commits[-1], "--"]).split()[1:]
    if parents:
        return parents[0], f"the branch's {len(commits)} new commit(s)"
    return None, "the whole branch (the remote has none of its commits)"


def review_push(
    repo: Repo,
    remote: str,
    refs: Iterable[PushedRef],
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    limits: Limits | None = None,
    record_settings: RecordSettings | None = None,
) -> list[RefReview]:
    """Generate and load the diff of every pushed ref; ``over_limit`` says what failed,
    ``record`` what the review record holds on the pushed commit (``record.stops``)."""
    # Here, not at the top: the hook's start does not pay for the pipeline.
    from .incremental.pushed import moved_reviews
    from .ranges.load import review_resolved
    from .record import pushed
    from .sessions.loading import load_diff
    from .tools.listing import list_chunks

    cache = DiffCache(cache_dir if cache_dir is not None else Path(repo.common_dir) / "diffchunk")
    limits = limits if limits is not None else read_limits(repo)
    settings = record_settings if record_settings is not None else pushed.read_settings(repo)
    reviews: list[RefReview] = []
    for ref in refs:
        if ZERO_SHA.fullmatch(ref.local_sha):
            reviews.append(RefReview(ref, note="deleted on the remote; nothing to review"))
            continue
        note = None
        if not ZERO_SHA.fullmatch(ref.remote_sha) and _commit_exists(repo, ref.remote_sha):
            base: str | None = ref.remote_sha
        else:
            base, note = _base_for_new_branch(repo, remote, ref.local_sha)
        if base == ref.local_sha:
            reviews.append(RefReview(ref, note="no new commits"))
            continue
        label = f"{(base or 'root')[:SHORT_ID]}..{ref.local_sha[:SHORT_ID]}"
        resolved = ResolvedRange(label, Mode.COMMITS, base, ref.local_sha, base or empty_tree(repo))
        diff = review_resolved(repo, resolved, cache)
        summary = load_diff(diff.diff_path)
        listing = list_chunks(diff.diff_path, max_tokens=None)
        review = RefReview(ref, note=note, diff=diff, summary=summary, listing=listing)
        if limits.max_chunks is not None and summary.chunks > limits.max_chunks:
            review.over_limit.append(
                f"{summary.chunks} chunks, over diffchunk.maxChunks={limits.max_chunks}"
            )
        if limits.max_lines is not None and summary.total_lines > limits.max_lines:
            review.over_limit.append(
                f"{summary.total_lines} diff lines, over diffchunk.maxLines={limits.max_lines}"
            )
        moved = moved_reviews(repo, ref.local_sha)
        review.record = pushed.push_report(
            repo, diff.diff_path, ref.local_sha, settings, moved=moved
        )
        reviews.append(review)
    return reviews


#: git's empty tree: the base of a range whose first commit is a root commit.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_BRANCH_PREFIX = "refs/heads/"


def pushed_range(review: RefReview) -> str:
    """The pushed range as ``diffchunk`` commands take it (``BASE..BRANCH``: the base
    commit of the push, and the pushed branch, else the pushed commit), so the commands
    the hook prints review, mark and find on the range it judges."""
    assert review.diff is not None
    ref = review.ref
    if ref.local_ref.startswith(_BRANCH_PREFIX) and len(ref.local_ref) > len(_BRANCH_PREFIX):
        head = ref.local_ref[len(_BRANCH_PREFIX) :]
    else:
        head = ref.local_sha[:SHORT_ID]
    base = review.diff.base
    return f"{base[:SHORT_ID] if base else EMPTY_TREE}..{head}"


def limit_advice(review: RefReview, repo: Repo | None = None, remote: str = "origin") -> str:
    """What to do when a push is over a limit: advice that gets the push through."""
    assert review.diff is not None and review.summary is not None
    ref = review.ref
    over_chunks = "maxChunks" in " ".join(review.over_limit)
    which = "maxChunks" if over_chunks else "maxLines"
    needed = review.summary.chunks if over_chunks else review.summary.total_lines
    rng = pushed_range(review)
    remote_ref = ref.remote_ref
    if remote_ref.startswith(_BRANCH_PREFIX):
        remote_ref = remote_ref[len(_BRANCH_PREFIX) :]
    return (
        f"The push of {ref.local_ref} was stopped: {'; '.join(review.over_limit)}.\n"
        f"  Push it in parts: git log --oneline --reverse {rng} lists its commits; "
        f"git push {remote} COMMIT:{remote_ref} pushes up to one of them\n"
        f"  Raise the limit for this repository: git config diffchunk.{which} {needed} "
        f"(or remove it: git config --unset diffchunk.{which})\n"
        f"  Push anyway (once): git push --no-verify"
    )


def repo_for_hook(path: str | None = None) -> Repo:
    """The repository a hook runs in: ``path``, else the current directory."""
    return discover(path if path is not None else os.getcwd())
