"""git in diffchunk's sandbox writes the diffs plain git writes, reading the same repository.

git runs with a private git directory (its config written by diffchunk from an
allow-list, the objects through alternates, the real work tree and index);
each case here compares the diff diffchunk cached with what plain ``git diff``
with the same options prints in the real repository: commit ranges with
renames, binary files, modes, links and a submodule; the work tree and the
index (with ``core.autocrlf`` from the repository's config, a split index, a
dirty submodule whose config names a program); a linked worktree, a bare and a
shallow clone, packed refs, ``@{upstream}`` and the reflog.  Then the
allow-list's edges: what it copies, what it refuses as git does, and what it
never copies.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from gitrepo import commit, git, git_bytes, git_environment, history_repo, run_git

from diffchunk.errors import GitError
from diffchunk.git.diffwrite import DIFF_OPTIONS
from diffchunk.git.repo import discover
from diffchunk.review.ranges.load import GitDiff, load_git_range

pytestmark = pytest.mark.usefixtures("private_dirs")


def _plain(repo: Path, loaded: GitDiff) -> bytes:
    """What plain git prints for the range diffchunk loaded, with its options."""
    if loaded.head is not None:
        revisions = [loaded.base or "4b825dc642cb6eb9a060e54bf8d69288fbee4904", loaded.head]
    elif loaded.mode.value == "index":
        revisions = ["--cached", loaded.base or "HEAD"]
    else:
        revisions = [loaded.base or "HEAD"]
    proc = subprocess.run(
        ["git", "-C", str(repo), "diff", *DIFF_OPTIONS, *revisions, "--"],
        capture_output=True,
        env=git_environment(),
        check=True,
    )
    return proc.stdout


def _same(repo: Path, cache_dir: Path, revision_range: str | None, staged: bool = False) -> bytes:
    loaded = load_git_range(str(repo), revision_range, staged, cache_dir=cache_dir)
    text = Path(loaded.diff_path).read_bytes()
    assert text == _plain(repo, loaded), revision_range
    return text


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Two commits of a small project: edits, a rename, a binary file, a mode change,
    a symbolic link and a submodule moved to another commit."""
    sub = history_repo(tmp_path / "subsource", [{"s.txt": "1\n"}, {"s.txt": "2\n"}])
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files = {
        f"src/m{i}.py": "".join(f"def f{j}():\n    return {j}\n" for j in range(30))
        for i in range(3)
    }
    files["docs/guide.md"] = "# Guide\n\n" + "text\n" * 40
    files["tool.sh"] = "#!/bin/sh\necho hi\n"
    commit(repo, files)
    (repo / "blob.bin").write_bytes(bytes(range(256)) * 8)
    os.symlink("src/m0.py", repo / "link")
    run_git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more")
    (repo / "src" / "m1.py").write_text(
        (repo / "src" / "m1.py").read_text().replace("return 7", "return 70")
    )
    git(repo, "mv", "docs/guide.md", "docs/handbook.md")
    (repo / "blob.bin").write_bytes(bytes(range(255, -1, -1)) * 8)
    (repo / "tool.sh").chmod(0o755)
    os.unlink(repo / "link")
    os.symlink("src/m2.py", repo / "link")
    git(repo / "sub", "checkout", "-q", "HEAD~1")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "change")
    return repo


def test_commit_ranges_equal_plain_git(project: Path, cache_dir: Path) -> None:
    text = _same(project, cache_dir, "HEAD~1..HEAD")
    for shown in (b"rename from docs/guide.md", b"Binary files", b"new mode 100755", b"Subproject"):
        assert shown in text
    _same(project, cache_dir, "HEAD~2..HEAD")
    _same(project, cache_dir, "HEAD~1...HEAD")


def test_the_work_tree_and_the_index_equal_plain_git(
    project: Path, cache_dir: Path, tmp_path: Path
) -> None:
    (project / "src" / "m0.py").write_text("changed\n")
    (project / "src" / "new.py").write_text("x = 1\n")
    git(project, "add", "src/new.py")
    (project / "src" / "m2.py").unlink()
    # A dirty submodule whose config names a program: git never runs there.
    marker = tmp_path / "fsmonitor-ran"
    git(project / "sub", "config", "core.fsmonitor", f"touch {marker}")
    (project / "sub" / "s.txt").write_text("dirty\n")
    text = _same(project, cache_dir, None)
    assert b"src/m0.py" in text and b"src/m2.py" in text
    staged = _same(project, cache_dir, None, staged=True)
    assert b"src/new.py" in staged
    assert not marker.exists()


def test_autocrlf_and_eol_of_the_repository_are_honoured(tmp_path: Path, cache_dir: Path) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "one\ntwo\n"}])
    git(repo, "config", "core.autocrlf", "true")
    (repo / "a.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    (repo / "b.txt").write_bytes(b"x\r\n")
    git(repo, "add", "b.txt")
    text = _same(repo, cache_dir, None)
    assert b"+three\n" in text and b"\r" not in text  # converted as plain git converts
    _same(repo, cache_dir, None, staged=True)


def test_a_split_index_a_linked_worktree_and_packed_refs(tmp_path: Path, cache_dir: Path) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}, {"a.txt": "2\n", "b.txt": "b\n"}])
    git(repo, "update-index", "--split-index")
    (repo / "a.txt").write_text("3\n")
    assert list((repo / ".git").glob("sharedindex.*"))
    _same(repo, cache_dir, None)
    git(repo, "pack-refs", "--all")
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"), "HEAD~1")
    side = tmp_path / "side"
    (side / "a.txt").write_text("side\n")
    _same(side, cache_dir, None)
    _same(side, cache_dir, "main..side")
    found = discover(str(side))
    assert found.root == os.path.realpath(side)
    assert found.common_dir == os.path.realpath(repo / ".git")


def test_bare_and_shallow_clones_and_revision_names(tmp_path: Path, cache_dir: Path) -> None:
    history = [{"a.txt": f"{i}\n", f"f{i}.txt": "x\n"} for i in range(5)]
    repo = history_repo(tmp_path / "repo", history)
    bare = tmp_path / "bare.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    _same(bare, cache_dir, "main~3..main")
    shallow = tmp_path / "shallow"
    run_git(tmp_path, "clone", "-q", "--depth", "2", f"file://{repo}", str(shallow))
    _same(shallow, cache_dir, "HEAD~1..HEAD")
    # Names that need what the private config copies, or the reflog.
    git(shallow, "update-ref", "refs/remotes/origin/main", "HEAD~1")
    upstream = _same(shallow, cache_dir, "@{upstream}..HEAD")
    assert b"a.txt" in upstream
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty")
    _same(repo, cache_dir, "HEAD@{2}..HEAD@{0}")


def test_a_sha256_repository(tmp_path: Path, cache_dir: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main", "--object-format=sha256")
    commit(repo, {"a.txt": "1\n"})
    commit(repo, {"a.txt": "2\n"})
    text = _same(repo, cache_dir, "HEAD~1..HEAD")
    assert len(text.split(b"\n")[1].split()[1].split(b"..")[0]) == 64  # full sha256 ids


# --------------------------------------------------------------------------
# The config written


def _config(repo: Path) -> str:
    found = discover(str(repo))
    return Path(found.git.env_vars["GIT_DIR"], "config").read_text()


def test_the_written_config_holds_only_the_allow_list(tmp_path: Path) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}])
    included = repo / ".git" / "included"
    included.write_text("[core]\n\teol = crlf\n")
    for key, value in (
        ("core.filemode", "false"),
        ("core.autocrlf", "input"),
        ("core.checkStat", "minimal"),
        ("core.bigFileThreshold", "10m"),
        ("include.path", "included"),
        ("branch.main.remote", "origin"),
        ("branch.main.merge", "refs/heads/main"),
        ("remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"),
        ("remote.origin.url", "ext::sh -c touch% /tmp/x"),
        ("remote.origin.promisor", "true"),
        ("extensions.partialClone", "origin"),
        ("protocol.ext.allow", "always"),
        ("core.fsmonitor", "true"),
        ("core.sshCommand", "ssh"),
        ("filter.x.clean", "cat"),
        ("diff.x.textconv", "cat"),
        ("alias.diff", "!sh"),
    ):
        git(repo, "config", key, value)
    git(repo, "config", "core.repositoryformatversion", "1")
    written = _config(repo)
    for kept in (
        'filemode = "false"',
        'autocrlf = "input"',
        'checkStat = "minimal"',
        'bigFileThreshold = "10485760"',
        'eol = "crlf"',  # from the included file
        'remote = "origin"',
        'merge = "refs/heads/main"',
        'fetch = "+refs/heads/*:refs/remotes/origin/*"',
    ):
        assert kept in written, kept
    for never in (
        "url",
        "promisor",
        "partialclone",
        "allow",
        "fsmonitor",
        "sshCommand",
        "filter",
        "textconv",
        "alias",
        "include",
    ):
        assert never.lower() not in written.lower(), never
    assert discover(str(repo)).partial_clone


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("core.filemode", "maybe", "not true or false"),
        ("core.bigFileThreshold", "huge", "not a size"),
        ("extensions.noSuchThing", "yes", "does not know"),
        ("core.repositoryformatversion", "2", "versions 0 and 1"),
    ],
)
def test_a_value_git_refuses_is_refused(tmp_path: Path, key: str, value: str, says: str) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}])
    if key.startswith("extensions."):
        git(repo, "config", "core.repositoryformatversion", "1")
    git(repo, "config", key, value)
    with pytest.raises(GitError, match=says):
        discover(str(repo))
    plain = run_git(repo, "diff", "HEAD", check=False)
    assert plain.returncode != 0  # plain git refuses the repository too


def test_a_v1_extension_in_a_version_0_repository_is_refused(tmp_path: Path) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}])
    git(repo, "config", "extensions.objectFormat", "sha1")
    with pytest.raises(GitError, match="version 0"):
        discover(str(repo))
    assert run_git(repo, "status", check=False).returncode != 0


def test_the_private_directory_follows_the_repository(tmp_path: Path, cache_dir: Path) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}, {"a.txt": "2\n"}])
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, {"a.txt": "3\n"})
    assert b"+3" in _same(repo, cache_dir, "main..HEAD")
    git(repo, "checkout", "-q", "main")  # HEAD is copied again at the next discovery
    assert _same(repo, cache_dir, "topic..HEAD").count(b"+2") == 1
    git(repo, "merge", "-q", "--ff-only", "topic")  # ORIG_HEAD is linked, then follows
    _same(repo, cache_dir, "ORIG_HEAD..HEAD")
    private = Path(discover(str(repo)).git.env_vars["GIT_DIR"])
    assert os.readlink(private / "refs") == os.path.realpath(repo / ".git" / "refs")
    assert not any(os.path.islink(p) and not p.exists() for p in private.rglob("*"))


def test_git_bytes_of_a_blob_match(tmp_path: Path) -> None:
    repo = history_repo(tmp_path / "repo", [{"a.txt": "1\n"}])
    found = discover(str(repo))
    blob = git(repo, "rev-parse", "HEAD:a.txt")
    assert found.git.run(["cat-file", "blob", blob]).stdout == git_bytes(
        repo, "cat-file", "blob", blob
    )
