"""Every setting is read in diffchunk/settings.py, parsed one way, and listed in the README.

A module that reads the environment elsewhere reads a variable that is not diffchunk's
setting: git's own, the pre-push hook's, or what a started program needs; each is listed
in :data:`NOT_SETTINGS` with why.
"""

from __future__ import annotations

import ast
import logging
import subprocess
import sys
from pathlib import Path

import package_source
import pytest
from test_data import ROOT

import diffchunk
from diffchunk import settings

PACKAGE = Path(diffchunk.__file__).parent

# Variables read outside settings.py, and why they are not settings.
NOT_SETTINGS: dict[str, str] = {
    "GIT_DISCOVERY_ACROSS_FILESYSTEM": "git's own: discovery stops where git's would",
    "GIT_CEILING_DIRECTORIES": "git's own: discovery stops where git's would",
    "XDG_CONFIG_HOME": "git's own: where git looks for its global config (git/sandbox, edit_target)",
    "PRE_COMMIT_TO_REF": "the pre-push hook's: what pre-commit says is pushed",
    "PRE_COMMIT_FROM_REF": "the pre-push hook's: what pre-commit says is pushed",
    "PRE_COMMIT_LOCAL_BRANCH": "the pre-push hook's: what pre-commit says is pushed",
    "PRE_COMMIT_REMOTE_BRANCH": "the pre-push hook's: what pre-commit says is pushed",
    "PRE_COMMIT_REMOTE_NAME": "the pre-push hook's: what pre-commit says is pushed",
    "PATH": "passed on to grep and wc, which diffchunk starts",
    "NO_COLOR": "a convention of command-line programs (no-color.org), not diffchunk's own",
    "PAGER": "the user's pager for every program; DIFFCHUNK_PAGER, the setting, wins over it",
}
# Reads whose variable is computed (module, expression): why they are not settings.
COMPUTED: dict[tuple[str, str], str] = {
    ("git/runner.py", "name"): "git's environment is built from the few variables it keeps",
    ("git/sandbox.py", "os.environ"): "git's own config locations (GIT_CONFIG_*, XDG, HOME)",
    ("files/edit_target.py", "name"): "git's own config files (GIT_CONFIG_GLOBAL/SYSTEM)",
    ("git/transport.py", "os.environ"): "git's transport variables (GIT_SSH*, GIT_ASKPASS, "
    "proxies), kept for diffchunk sync's push and fetch as git push would see them",
    ("demo.py", "os.environ"): "the demo sets its own state and cache directories for its run",
    ("cli/terminal.py", "os.environ"): "the pager runs in this process's environment, as git's",
}


def _key(node: ast.AST, constants: dict[str, str]) -> str:
    """The variable a read names: a literal, a module constant's value, else its source."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    return ast.unparse(node)


def environment_reads(source: str) -> list[str]:
    """The variables ``source`` reads: ``os.environ.get(X)``, ``os.environ[X]``,
    ``os.getenv(X)``, ``X in os.environ``; ``os.environ`` itself when it is handed on."""
    tree = package_source.parse(source)
    constants = {
        t.id: s.value.value
        for s in tree.body
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant)
        for t in s.targets
        if isinstance(t, ast.Name) and isinstance(s.value.value, str)
    }
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "getenv":
            call = parents.get(node)
            if isinstance(call, ast.Call) and call.args:
                found.append(_key(call.args[0], constants))
        if not (isinstance(node, ast.Attribute) and node.attr in ("environ", "environb")):
            continue
        parent = parents.get(node)
        grand = parents.get(parent) if parent is not None else None
        if (
            isinstance(parent, ast.Attribute)
            and parent.attr == "get"
            and isinstance(grand, ast.Call)
        ):
            found.append(_key(grand.args[0], constants))
        elif isinstance(parent, ast.Subscript):
            found.append(_key(parent.slice, constants))
        elif isinstance(parent, ast.Compare):
            found.append(_key(parent.left, constants))
        else:
            found.append("os.environ")
    return found


def _reads_outside_settings() -> dict[tuple[str, str], int]:
    reads: dict[tuple[str, str], int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "settings.py":
            continue
        for key in environment_reads(package_source.source(path)):
            reads[(rel, key)] = reads.get((rel, key), 0) + 1
    return reads


def test_no_module_but_settings_reads_a_setting() -> None:
    reads = _reads_outside_settings()
    stray = sorted(f"diffchunk/{rel} reads {key}" for rel, key in reads if key in settings.SETTINGS)
    assert not stray, "read it through diffchunk.settings: " + "; ".join(stray)
    unknown = sorted(
        f"diffchunk/{rel} reads {key}"
        for rel, key in reads
        if key not in settings.SETTINGS and key not in NOT_SETTINGS and (rel, key) not in COMPUTED
    )
    assert not unknown, "a setting (declare it in settings.py) or say why not here: " + "; ".join(
        unknown
    )


def test_the_exemptions_name_reads_that_exist() -> None:
    reads = _reads_outside_settings()
    keys = {key for _, key in reads}
    assert not sorted(set(NOT_SETTINGS) - keys), "exempt but no longer read: remove them"
    assert not sorted(set(COMPUTED) - set(reads)), "exempt but no longer read: remove them"


def test_the_scan_sees_every_way_the_environment_is_read() -> None:
    source = (
        "import os\nNAME = 'B'\nos.environ.get('A')\nos.environ[NAME]\nos.getenv('C', '')\n"
        "'D' in os.environ\nenv = os.environ\nos.environ.get(name)\n"
    )
    assert sorted(environment_reads(source)) == ["A", "B", "C", "D", "name", "os.environ"]


def test_every_diffchunk_variable_the_package_names_is_a_setting() -> None:
    named = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(package_source.parse(package_source.source(path))):
            text = node.value if isinstance(node, ast.Constant) else None
            if isinstance(text, str) and text.startswith("DIFFCHUNK_") and text.isupper():
                named.add(text)
    assert not sorted(named - set(settings.SETTINGS)), "declare them in diffchunk/settings.py"


def test_the_readme_table_is_generated_from_the_settings() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert settings.readme_table() in readme, (
        "the README's configuration table is stale: paste diffchunk.settings.readme_table()"
    )


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        ("DIFFCHUNK_MAP_BYTES", "lots", "not a whole number"),
        ("DIFFCHUNK_MAX_SESSIONS", "0", "less than 1"),
        ("DIFFCHUNK_LONG_LINE_CHARS", "50", "less than 100"),
        ("DIFFCHUNK_LOCK_TIMEOUT", "-1", "less than 0 seconds"),
        ("DIFFCHUNK_FUZZY_THRESHOLD", "1.5", "not between 0 and 1"),
        ("DIFFCHUNK_FUZZY_THRESHOLD", "abc", "not a number"),
    ],
)
def test_a_bad_value_is_said_once_and_the_default_used(
    name: str,
    value: str,
    why: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv(name, value)
    read = (
        settings.number if settings.SETTINGS[name].kind in ("seconds", "ratio") else settings.count
    )
    monkeypatch.setattr(settings, "_warned", set())
    with caplog.at_level(logging.WARNING, logger="diffchunk.settings"):
        assert read(name) == settings.SETTINGS[name].default
        assert read(name) == settings.SETTINGS[name].default
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        f"Ignoring {name}={value!r} ({why}); using the default, {settings.SETTINGS[name].default}."
    ]


def test_good_values_are_read_when_asked_for(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DIFFCHUNK_MAP_BYTES", " 4096 ")
    assert settings.count("DIFFCHUNK_MAP_BYTES") == 4096
    monkeypatch.setenv("DIFFCHUNK_BACKUP_LINK", "0")
    assert settings.flag("DIFFCHUNK_BACKUP_LINK") is False
    monkeypatch.setenv("DIFFCHUNK_STATE_DIR", "~/state")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert settings.directory("DIFFCHUNK_STATE_DIR") == str(tmp_path / "state")
    assert settings.directory("XDG_STATE_HOME", {"XDG_STATE_HOME": "relative"}) is None


def test_a_bad_long_line_setting_does_not_break_an_import() -> None:
    """``DIFFCHUNK_LONG_LINE_CHARS=abc`` once made ``import diffchunk.files.read`` raise."""
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import diffchunk.files.line_reads as r; print(r.long_line_chars())",
        ],
        env={"DIFFCHUNK_LONG_LINE_CHARS": "abc", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(settings.SETTINGS["DIFFCHUNK_LONG_LINE_CHARS"].default)
    assert "Ignoring DIFFCHUNK_LONG_LINE_CHARS='abc'" in run.stderr
