"""CheckAttrSource: attributes as git computes them, as of the reviewed commit, in one batch."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from gitrepo import git
from gitrepo import write_files as write

from diffchunk.diff.attributes import WANTED
from diffchunk.git.attributes import CheckAttrSource
from diffchunk.git.runner import GitCommand


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", "main")
    write(
        r,
        {
            ".gitattributes": (
                "[attr]generated linguist-generated -diff\n"
                "*.pb.go generated\n"
                "package-lock.json linguist-generated=false\n"
                "assets/** binary\n"
                "docs/*.md linguist-documentation\n"
            ),
            "third_party/.gitattributes": "* linguist-vendored\nkeep.c -linguist-vendored\n",
            "api/x.pb.go": "package api\n",
            "third_party/lib.c": "int x;\n",
            "third_party/keep.c": "int y;\n",
            "package-lock.json": "{}\n",
            "assets/logo.svg": "<svg/>\n",
            "src/main.py": "print()\n",
        },
    )
    git(r, "add", "-A")
    git(r, "commit", "-q", "-m", "one")
    return r


PATHS = [
    "api/x.pb.go",
    "third_party/lib.c",
    "third_party/keep.c",
    "package-lock.json",
    "assets/logo.svg",
    "src/main.py",
    "deleted/only/in/diff.txt",
]


def test_nested_files_macros_overrides_and_binary(repo: Path) -> None:
    attrs = CheckAttrSource(str(repo), "HEAD", attributes=WANTED).lookup(PATHS)
    assert attrs["api/x.pb.go"] == {"linguist-generated": True, "diff": False}
    assert attrs["third_party/lib.c"] == {"linguist-vendored": True}
    assert attrs["third_party/keep.c"] == {"linguist-vendored": False}
    # `=false` is a value, which overrides heuristics downstream.
    assert attrs["package-lock.json"] == {"linguist-generated": "false"}
    assert attrs["assets/logo.svg"] == {"binary": True, "diff": False}
    assert attrs["src/main.py"] == {}
    assert attrs["deleted/only/in/diff.txt"] == {}


def test_one_batched_call_for_all_paths(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    real = GitCommand.run

    def spy(self: GitCommand, args: list[str], **kw: object) -> object:
        seen.append(list(args))
        return real(self, args, **kw)  # type: ignore[arg-type]

    source = CheckAttrSource(str(repo), "HEAD", attributes=WANTED)
    monkeypatch.setattr(GitCommand, "run", spy)
    source.lookup(PATHS * 50)
    assert [a[0] for a in seen].count("check-attr") == 1
    assert source.calls == 1


def test_attributes_are_those_of_the_reviewed_commit(repo: Path) -> None:
    old = git(repo, "rev-parse", "HEAD")
    write(repo, {".gitattributes": "src/** linguist-generated\n"})
    git(repo, "commit", "-q", "-am", "two")
    new = git(repo, "rev-parse", "HEAD")
    # The working tree now says something else again.
    write(repo, {".gitattributes": "*.py linguist-vendored\n"})
    assert (
        CheckAttrSource(str(repo), old, attributes=WANTED).lookup(["src/main.py"])["src/main.py"]
        == {}
    )
    assert CheckAttrSource(str(repo), new, attributes=WANTED).lookup(["src/main.py"])[
        "src/main.py"
    ] == {"linguist-generated": True}
    assert CheckAttrSource(str(repo), None, attributes=WANTED).lookup(["src/main.py"])[
        "src/main.py"
    ] == {"linguist-vendored": True}
    git(repo, "add", ".gitattributes")
    write(repo, {".gitattributes": ""})
    staged = CheckAttrSource(str(repo), None, index=True, attributes=WANTED).lookup(["src/main.py"])
    assert staged["src/main.py"] == {"linguist-vendored": True}


def test_info_attributes_apply_and_bare_repository(repo: Path, tmp_path: Path) -> None:
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text("src/*.py linguist-generated\n")
    assert CheckAttrSource(str(repo), "HEAD", attributes=WANTED).lookup(["src/main.py"])[
        "src/main.py"
    ] == {"linguist-generated": True}
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    attrs = CheckAttrSource(str(bare), "main", attributes=WANTED).lookup(
        ["api/x.pb.go", "third_party/lib.c"]
    )
    assert attrs["api/x.pb.go"]["linguist-generated"] is True
    assert attrs["third_party/lib.c"] == {"linguist-vendored": True}


def test_odd_paths_round_trip(repo: Path) -> None:
    odd = ["sp ace/a b.txt", "tab\there.txt", "new\nline.txt", 'quo"te.txt', "naïve.txt"]
    write(repo, {".gitattributes": "*.txt linguist-generated\n"})
    attrs = CheckAttrSource(str(repo), attributes=WANTED).lookup([*odd, ""])
    assert set(attrs) == set(odd)
    assert all(v == {"linguist-generated": True} for v in attrs.values())


def test_only_the_attributes_asked_for_are_answered(repo: Path) -> None:
    attrs = CheckAttrSource(str(repo), "HEAD", attributes=["linguist-vendored"]).lookup(PATHS)
    assert attrs["api/x.pb.go"] == {}
    assert attrs["third_party/lib.c"] == {"linguist-vendored": True}
    assert attrs["assets/logo.svg"] == {}
    with pytest.raises(ValueError):
        CheckAttrSource(str(repo), "HEAD", attributes=())


def test_the_range_review_asks_for_the_attributes_the_review_reads(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from diffchunk.git.attributes import StreamedCheckAttr
    from diffchunk.review.ranges import stream
    from diffchunk.review.ranges.load import load_git_range

    asked: list[tuple[str, ...]] = []

    def spy(*args: Any, **kwargs: Any) -> StreamedCheckAttr:
        asked.append(tuple(kwargs["attributes"]))
        return StreamedCheckAttr(*args, **kwargs)

    monkeypatch.setattr(stream, "StreamedCheckAttr", spy)
    load_git_range(str(repo), "HEAD^!", cache_dir=tmp_path / "cache")
    assert asked == [tuple(WANTED)]
