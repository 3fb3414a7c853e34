"""``make demo``: build a small repository with a branch, and review it as people do.

Each step is one command, with one line saying what it shows: the overview
of ``main..feature`` (a lockfile, a minified bundle and a whitespace-only
change left out, a rename listed, a big file split), the next chunk, a mark,
a finding, the status, an export, and what the pre-push hook prints when the
branch is pushed; then the MCP client configuration.  The commands run in
this process, in the example repository, with a review record and a cache of
their own (a temporary directory: the user's record is not touched), no
pager, and colour when the output is a terminal.  Long outputs are cut to
:data:`SHOWN_LINES` lines.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import click

from .cli import main as cli_main
from .git.runner import GitCommand

SHOWN_LINES = 30  # lines of a chunk the demo prints: enough to see what it holds
WIDTH = 100  # the width of the demo's rules: the CLI's help width


# The demo's commits: a fixed identity (git runs with none of the machine's config).
_DEMO_ENV = {
    "GIT_AUTHOR_NAME": "Demo",
    "GIT_AUTHOR_EMAIL": "demo@example.com",
    "GIT_COMMITTER_NAME": "Demo",
    "GIT_COMMITTER_EMAIL": "demo@example.com",
}


def _git(repo: Path, *args: str) -> str:
    git = GitCommand.in_own_repository(str(repo), _DEMO_ENV)
    return git.run(args).stdout.decode("utf-8")


def _write(repo: Path, path: str, text: str) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def _lockfile(version: str) -> str:
    deps = {
        f"pkg-{i}": {"version": f"{version}.{i}", "integrity": f"sha512-{i:04d}{version}"}
        for i in range(40)
    }
    return json.dumps({"name": "shop", "lockfileVersion": 3, "packages": deps}, indent=2) + "\n"


def _bundle(flag: str) -> str:
    body = ";".join(f"function f{i}(a){{return a*{i}+{flag}}}" for i in range(120))
    return f"!function(){{{body}}}();\n"


def _tables(rows: int, factor: int) -> str:
    lines = ['"""Shipping rates per zone (kept in code for speed)."""', "", "RATES = {"]
    lines += [f"    {i}: {i * factor / 100:.2f}," for i in range(rows)]
    lines.append("}")
    return "\n".join(lines) + "\n"


APP_V1 = '''\
"""The shop's checkout."""

from .helpers import money


def total(items):
    return sum(item.price for item in items)


def receipt(items):
    return "\\n".join(f"{item.name}: {money(item.price)}" for item in items)
'''

APP_V2 = '''\
"""The shop's checkout."""

from .helpers import money
from .tables import RATES


def total(items, zone=0):
    subtotal = sum(item.price * item.quantity for item in items)
    return subtotal + shipping(zone)


def shipping(zone):
    """Flat rate for the zone; unknown zones ship free."""
    return RATES.get(zone, 0.0)


def receipt(items, zone=0):
    lines = [f"{item.name} x{item.quantity}: {money(item.price)}" for item in items]
    lines.append(f"shipping: {money(shipping(zone))}")
    return "\\n".join(lines)
'''

CONFIG_V1 = "DEBUG = False\nCURRENCY = 'EUR'\n\nTIMEOUT = 30\n"
CONFIG_V2 = "DEBUG = False\nCURRENCY = 'EUR'\n\n\nTIMEOUT = 30   \n"
UTIL = '"""Formatting helpers."""\n\n\ndef money(value):\n    return f"{value:.2f} EUR"\n'


def build_demo_repository(workdir: Path) -> Path:
    """Create the example repository in ``workdir/shop``: ``main``, and a branch
    ``feature`` one commit ahead of it."""
    repo = workdir / "shop"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _write(repo, "src/app.py", APP_V1)
    _write(repo, "src/config.py", CONFIG_V1)
    _write(repo, "src/util.py", UTIL)
    _write(repo, "src/tables.py", _tables(700, 7))
    _write(repo, "package-lock.json", _lockfile("1"))
    _write(repo, "dist/app.min.js", _bundle("1"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Initial shop")
    _git(repo, "checkout", "-q", "-b", "feature")
    _write(repo, "src/app.py", APP_V2)
    _write(repo, "src/config.py", CONFIG_V2)
    _git(repo, "mv", "src/util.py", "src/helpers.py")
    _write(repo, "src/tables.py", _tables(700, 9))
    _write(repo, "package-lock.json", _lockfile("2"))
    _write(repo, "dist/app.min.js", _bundle("2"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Quantities and shipping rates")
    return repo


def _mcp_command() -> str:
    script = Path(sys.executable).with_name("diffchunk-mcp")
    return str(script) if script.exists() else "diffchunk-mcp"


@contextlib.contextmanager
def _isolated(workdir: Path, repo: Path) -> Iterator[None]:
    """In ``repo``, with a record and a cache of the demo's own."""
    directories = {"DIFFCHUNK_STATE_DIR": str(workdir / "state")}
    directories["DIFFCHUNK_CACHE_DIR"] = str(workdir / "cache")
    here = os.getcwd()
    with mock.patch.dict(os.environ, directories):
        os.chdir(repo)
        try:
            yield
        finally:
            os.chdir(here)


def _step(why: str, args: list[str], stdin: str | None = None) -> None:
    """Print ``why``, the command, and what it prints (cut to SHOWN_LINES lines)."""
    colour = "always" if sys.stdout.isatty() and not os.environ.get("NO_COLOR") else "never"
    print(f"\n# {why}")
    print("$ diffchunk " + " ".join(_shown(arg) for arg in args))
    out = io.StringIO()
    saved_stdin = sys.stdin
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            cli_main.main(
                args=["--color", colour, "--no-pager", *args],
                prog_name="diffchunk",
                standalone_mode=False,
            )
    except click.exceptions.Exit:
        pass  # the hook stopping the push: what it printed says why
    except click.ClickException as exc:
        out.write(f"Error: {exc.format_message()}\n")
    finally:
        sys.stdin = saved_stdin
    lines = out.getvalue().rstrip("\n").split("\n")
    for line in lines[:SHOWN_LINES]:
        print(line if len(line) <= WIDTH or colour == "always" else line[: WIDTH - 1] + "…")
    if len(lines) > SHOWN_LINES:
        print(f"... ({len(lines) - SHOWN_LINES} more lines)")


def _shown(arg: str) -> str:
    return arg if arg and all(c.isalnum() or c in "-_./:=" for c in arg) else repr(arg)


def walk_through(workdir: Path) -> None:
    """The demo's steps (see the module doc), in ``workdir``."""
    repo = build_demo_repository(workdir)
    head = _git(repo, "rev-parse", "feature").strip()
    base = _git(repo, "rev-parse", "main").strip()
    print(f"An example repository: {repo} (main, and a branch feature one commit ahead).")
    _git(repo, "config", "diffchunk.failOn", "minor")
    with _isolated(workdir, repo):
        _step(
            "The overview: chunks that fit a context window, and the files left out, with why.",
            ["review", "main..feature"],
        )
        _step(
            "The next chunk not yet reviewed, as a person reads it (new-file line numbers).",
            ["next", "--format", "annotated"],
        )
        _step(
            "Chunk 1 is done: mark it reviewed (on the latest review here).",
            ["mark", "--chunk", "1"],
        )
        _step(
            "A finding on lines of the new side; it follows the branch when it moves.",
            [
                "finding",
                "add",
                "--file",
                "src/app.py",
                "--line",
                "12",
                "--severity",
                "minor",
                "--message",
                "Unknown zones ship free: intended?",
            ],
        )
        _step("Where the review stands: per chunk, and what comes next.", ["status"])
        _step(
            "The review for others to read: Markdown here (also HTML, SARIF, GitHub).", ["export"]
        )
        _step(
            "With `diffchunk hook install` and `git config diffchunk.failOn minor`, a push of "
            "feature prints this and stops while the finding is open.",
            ["hook", "run-pre-push", "origin"],
            stdin=f"refs/heads/feature {head} refs/heads/feature {base}\n",
        )


def main() -> int:
    if shutil.which("git") is None:
        print("The demo needs git on PATH.", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="diffchunk-demo-") as tmp:
        walk_through(Path(tmp))
    config = {"mcpServers": {"diffchunk": {"command": _mcp_command()}}}
    print("\n# Over MCP: this configuration in your client (Claude Desktop, Cursor, ...),")
    print("# then the prompt /review main..feature, or ask: review main..feature chunk by chunk.")
    print(json.dumps(config, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
