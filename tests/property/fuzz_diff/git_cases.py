"""Real git repositories: the *git* inputs, whose chunks must apply in order."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from diffchunk.diff.chunker import chunk_files, render_chunk
from diffchunk.diff.context import reduce_context
from diffchunk.diff.parser import parse_diff
from diffchunk.diff.review_order import review_order

from .checks import PropertyFailure, check_input, require
from .draws import Source, chance, pick
from .structural import content_line

_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(
    repo: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> bytes:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "core.autocrlf=false", *args],
        input=stdin,
        env={**_ENV, **(env or {})},
        capture_output=True,
        check=False,
    )
    if done.returncode:
        raise PropertyFailure(
            f"git {' '.join(args)} failed: {done.stderr.decode(errors='replace').strip()}"
        )
    return done.stdout


_REPO_NAMES = (
    "a.txt",
    "b.py",
    "dir/c.md",
    "dir/sub/d.txt",
    "e f.txt",
    "g.bin",
    "h.json",
    "\u00fc/t\tab.txt",
    'q"uote.md',
)


def _text(src: Source, max_lines: int) -> bytes:
    crlf = chance(src, 10)
    lines = [content_line(src, crlf) for _ in range(src.integer(0, max_lines))]
    data = b"".join(lines)
    if data and chance(src, 15):
        data = data[:-1]
    return data


def _edit(src: Source, data: bytes) -> bytes:
    if chance(src, 10):
        return data + b"\n" if not data.endswith(b"\n") else data[:-1]
    lines = data.splitlines(keepends=True)
    for _ in range(src.integer(1, 6 + len(lines) // 20)):
        k = src.integer(0, len(lines))
        op = src.integer(0, 2)
        if op == 0:
            del lines[k : k + src.integer(1, 5)]
        else:
            new = [content_line(src, False) for _ in range(src.integer(1, 6))]
            lines[k : k + (1 if op == 1 else 0)] = new
    for k in range(len(lines) - 1):
        if not lines[k].endswith(b"\n"):
            lines[k] += b"\n"
    out = b"".join(lines)
    if out and chance(src, 10):
        out = out.rstrip(b"\n")
    return out


@dataclass
class GitCase:
    base: dict[str, bytes]
    target: dict[str, bytes]
    modes: dict[str, bool]  # executable in target
    diff_args: tuple[str, ...]
    command: str = "diff"  # or "log" (git log -p) or "format-patch" (--stdout)
    middle: dict[str, bytes] | None = None  # a commit between base and target
    middle_modes: dict[str, bool] = field(default_factory=dict)
    strip: int = 1  # git apply -p
    diff: bytes = b""  # git's output, once made


def git_case(src: Source) -> GitCase:
    base: dict[str, bytes] = {}
    for name in _REPO_NAMES:
        if chance(src, 55):
            if name.endswith(".bin"):
                base[name] = src.raw(0, 60) + b"\x00" + src.raw(0, 60)
            else:
                base[name] = _text(src, pick(src, (5, 30, 120, 400)))
    target = dict(base)
    modes: dict[str, bool] = {}
    for name in list(base):
        action = pick(src, ("edit", "edit", "edit", "keep", "delete", "rename", "chmod"))
        if action == "edit":
            if name.endswith(".bin"):
                target[name] = base[name][::-1] + src.raw(0, 8)
            else:
                target[name] = _edit(src, base[name])
        elif action == "delete":
            del target[name]
        elif action == "rename":
            if chance(src, 70):
                del target[name]  # else a copy (found with -C)
            new = name + ".moved"
            target[new] = _edit(src, base[name]) if chance(src, 50) else base[name]
        elif action == "chmod":
            modes[name] = True
            if chance(src, 50) and not name.endswith(".bin"):
                target[name] = _edit(src, base[name])
    for name in _REPO_NAMES:
        if name not in base and chance(src, 25):
            target[name] = _text(src, pick(src, (5, 40, 300))) if chance(src, 85) else b""
    args = ["--binary"]
    unified = pick(src, (None, None, None, 0, 1, 5, 12, 30))
    if unified is not None:
        args.append(f"-U{unified}")
    if chance(src, 20):
        args.append("-C")
        if chance(src, 40):
            args.append("--find-copies-harder")
    strip = 1
    if chance(src, 10):
        args.append("--no-prefix")
        strip = 0
    elif chance(src, 10):
        args += ["--src-prefix=i/", "--dst-prefix=w/"]
    command = pick(src, ("diff", "diff", "diff", "log", "format-patch"))
    middle: dict[str, bytes] | None = None
    middle_modes: dict[str, bool] = {}
    if command != "diff":
        middle = {}
        for name in sorted(set(base) | set(target)):
            if name in base and not name.endswith(".bin") and chance(src, 30):
                middle[name] = _edit(src, base[name])  # changed, then changed again
                continue
            side = target if chance(src, 50) else base
            if name in side:
                middle[name] = side[name]
                if side is target and modes.get(name):
                    middle_modes[name] = True
    return GitCase(base, target, modes, tuple(args), command, middle, middle_modes, strip)


def _write_tree(repo: Path, files: dict[str, bytes], modes: dict[str, bool]) -> None:
    for p in list(repo.iterdir()):
        if p.name != ".git":
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink()
    for name, content in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        if modes.get(name):
            path.chmod(0o755)


def _apply_in_order(
    repo: Path, index: Path, texts: Sequence[bytes], zero: bool, what: str, strip: int = 1
) -> None:
    """Apply ``texts`` one after the other to the base tree; must end at the target tree."""
    env = {"GIT_INDEX_FILE": str(index)}
    git(repo, "read-tree", "base", env=env)
    extra = ["--unidiff-zero"] if zero else []
    if strip != 1:
        extra.append(f"-p{strip}")
    for k, text in enumerate(texts, start=1):
        # git apply checks the whole patch before it changes anything (like --check)
        try:
            git(repo, "apply", "--cached", *extra, "-", stdin=text, env=env)
        except PropertyFailure as exc:
            raise PropertyFailure(f"{what}: chunk {k} of {len(texts)} does not apply: {exc}")
    tree = git(repo, "write-tree", env=env).strip()
    want = git(repo, "rev-parse", "target^{tree}").strip()
    require(tree == want, f"{what}: applying every chunk does not give the target tree")


def check_git_case(src: Source, case: GitCase, workdir: Path) -> bytes | None:
    """Build the repository, diff it and check every property plus apply-in-order.

    Returns the diff text (None when the two trees are equal).
    """
    repo = workdir / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    _write_tree(repo, case.base, {})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "base")
    git(repo, "tag", "base")
    if case.middle is not None:
        _write_tree(repo, case.middle, case.middle_modes)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--allow-empty", "-m", "middle\n\nwith a body")
    _write_tree(repo, case.target, case.modes)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "target")
    git(repo, "tag", "target")
    if case.command == "log":
        command = ["log", "-p", "--reverse", *case.diff_args, "base..target"]
    elif case.command == "format-patch":
        command = ["format-patch", "--stdout", *case.diff_args, "base..target"]
    else:
        command = ["diff", *case.diff_args, "base", "target"]
    data = case.diff = git(repo, *command)
    if not data:
        return None
    check_input(data, src, well_formed=True)
    parsed = parse_diff(data)
    zero = "-U0" in case.diff_args
    index = workdir / "index"
    context = pick(src, (None, 0, 1, 3))
    opts = {"strip": case.strip}
    if context is not None:
        reduced = reduce_context(parsed, context)
        if case.command == "diff":  # a stream is only applied commit by commit
            _apply_in_order(repo, index, [reduced], zero or context == 0, "reduced diff", **opts)
        parsed = parse_diff(reduced)
        zero = zero or context == 0
    max_lines = src.integer(3, 80)
    max_tokens = pick(src, (20_000, 20_000, 200, 60))
    chunks = chunk_files(parsed, parsed.files, max_lines=max_lines, max_tokens=max_tokens)
    texts = [render_chunk(parsed, c) for c in chunks]
    what = (
        f"{case.command} chunks (max_lines={max_lines}, max_tokens={max_tokens}, context={context})"
    )
    _apply_in_order(repo, index, texts, zero, what, **opts)
    # the same chunks in review order (code, tests, docs, config, generated last)
    ordered = chunk_files(
        parsed, review_order(parsed.files), max_lines=max_lines, max_tokens=max_tokens
    )
    texts = [render_chunk(parsed, c) for c in ordered]
    _apply_in_order(repo, index, texts, zero, f"{what} in review order", **opts)
    return data
