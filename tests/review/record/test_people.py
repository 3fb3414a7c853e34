"""People in one review: who marked and wrote what, replies kept as a thread, the
marks of another review of the same change, and dismissals that stay dismissed
(real repositories; the reviewer named by DIFFCHUNK_REVIEWER or by git's config)."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest
from gitrepo import commit, git, run_git
from incrementalkit import branch_text, five_files, load, review_everything
from recordkit import run_cli

from diffchunk.errors import InvalidArgument
from diffchunk.review import record as core
from diffchunk.review.record import memory
from diffchunk.review.record.people import reviewer

REVIEWER_ENV = "DIFFCHUNK_REVIEWER"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return five_files(tmp_path / "repo")


# --------------------------------------------------------------------------
# Who
# --------------------------------------------------------------------------


def test_the_reviewer_is_the_variable_else_git_config_else_the_system_user(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(REVIEWER_ENV, raising=False)
    assert reviewer(str(repo)) == getpass.getuser()  # the test repositories set no user
    git(repo, "config", "user.name", "Ada Lovelace")
    git(repo, "config", "user.email", "ada@example.org")
    fresh = repo.parent / "fresh"
    run_git(repo.parent, "clone", "-q", str(repo), str(fresh))
    git(fresh, "config", "user.name", "Ada Lovelace")
    git(fresh, "config", "user.email", "ada@example.org")
    assert reviewer(str(fresh)) == "Ada Lovelace <ada@example.org>"
    monkeypatch.setenv(REVIEWER_ENV, "  Grace \n Hopper ")
    assert reviewer(str(fresh)) == "Grace Hopper"
    assert reviewer(None) == "Grace Hopper"


def test_marks_and_findings_carry_their_author_and_status_gives_each_share(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = load(repo).file_path
    monkeypatch.setenv(REVIEWER_ENV, "ada")
    core.mark_reviewed(path, file_pattern="f1.py")
    core.add_finding(path, "f1.py", "off by one", line=10)
    monkeypatch.setenv(REVIEWER_ENV, "bob")
    core.mark_reviewed(path, file_pattern="f1.py")  # both reviewed it: two marks
    core.mark_reviewed(path, file_pattern="f2.py")
    core.add_finding(path, "f2.py", "name is misleading", line=10, severity="nit")
    status = core.review_status(path).to_dict()
    assert status["reviewers"] == {
        "ada": {"reviewed": 1, "findings": 1},
        "bob": {"reviewed": 2, "findings": 1},
    }
    assert status["totals"]["reviewed"] == 2
    everyone = core.list_findings(path).to_dict()["findings"]
    assert [f["author"] for f in everyone] == ["ada", "bob"]
    assert [f.file_path for f in core.list_findings(path, author="BO").findings] == ["f2.py"]
    assert core.list_findings(path, author="carol").total == 0


def test_a_reviewer_s_share_counts_the_files_the_review_counts(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An excluded file a glob marks (here a whitespace-only change) is in no share,
    as it is in none of the review's totals."""
    git(repo, "checkout", "-q", "main")
    commit(repo, {"notes.txt": "one two\n"}, "notes")
    git(repo, "checkout", "-q", "feature")
    git(repo, "merge", "-q", "--no-edit", "main")
    commit(repo, {"notes.txt": "one  two\n"}, "spacing")
    path = load(repo).file_path
    monkeypatch.setenv(REVIEWER_ENV, "ada")
    core.mark_reviewed(path, file_pattern="**")
    status = core.review_status(path).to_dict()
    assert status["totals"]["excluded"] >= 1
    assert status["reviewers"]["ada"]["reviewed"] == status["totals"]["reviewed"] == 5


def test_a_reply_is_kept_as_the_finding_s_thread(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = load(repo).file_path
    monkeypatch.setenv(REVIEWER_ENV, "assistant")
    added = core.add_finding(path, "f3.py", "possible None", line=10).finding
    monkeypatch.setenv(REVIEWER_ENV, "ada")
    core.update_finding(path, added.id, comment="Why would it be None?")
    monkeypatch.setenv(REVIEWER_ENV, "bob")
    closed = core.update_finding(
        path, added.id, status="dismissed", comment="The caller checks it first."
    ).to_dict()
    assert closed["status"] == "dismissed" and closed["author"] == "assistant"
    assert [(c["author"], c["body"], c.get("status")) for c in closed["thread"]] == [
        ("ada", "Why would it be None?", None),
        ("bob", "The caller checks it first.", "dismissed"),
    ]
    listed = core.list_findings(path, status="dismissed").to_dict()["findings"][0]
    assert listed["thread"] == closed["thread"]
    with pytest.raises(InvalidArgument, match="comment"):
        core.update_finding(path, added.id, comment="")


# --------------------------------------------------------------------------
# Marks by content across reviews
# --------------------------------------------------------------------------


def test_a_change_reviewed_in_another_review_shows_reviewed_with_who_and_where(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REVIEWER_ENV, "ada")
    first = load(repo)
    review_everything(first.file_path)
    # Another branch from main that makes the same change to f1.py and another to f2.py.
    git(repo, "checkout", "-q", "-b", "other", "main")
    commit(repo, {"f1.py": branch_text("f1.py"), "f2.py": branch_text("f2.py", {20: "x"})})
    other = load(repo, rng="main..other")
    status = core.review_status(other.file_path).to_dict()
    assert status["review"]["id"] != core.review_status(first.file_path).review.id
    assert status["totals"]["reviewed"] == 1 and status["totals"]["unseen"] == 1
    assert status["reviewed_elsewhere"] == [
        {"path": "f1.py", "review": core.review_status(first.file_path).review.id, "by": "ada"}
    ]


# --------------------------------------------------------------------------
# Dismissal memory
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("Possible None dereference of user", "possible None dereference of `user`", True),
        ("user may be None here", "user may be None here; check it first", True),
        ("Off-by-one: the loop skips the last item", "Off by one: loop skips the last item", True),
        ("The loop skips the last item", "This loop never skips an item", False),
        ("Off by one in the loop", "SQL injection through the name parameter", False),
        ("Name is misleading", "Possible None dereference", False),
    ],
)
def test_similar_messages(one: str, other: str, same: bool) -> None:
    assert memory.similar(one, other) is same


def test_a_dismissed_finding_added_again_after_a_rebase_is_not_reopened(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REVIEWER_ENV, "assistant")
    first = load(repo).file_path
    found = core.add_finding(first, "f2.py", "f2 ten looks wrong", line=10).finding
    monkeypatch.setenv(REVIEWER_ENV, "ada")
    core.update_finding(first, found.id, status="dismissed", comment="Intended: see the spec.")
    # main moves, feature is rebased onto it: its lines move down by three.
    git(repo, "checkout", "-q", "main")
    commit(repo, {"f2.py": "top 1\ntop 2\ntop 3\n" + (repo / "f2.py").read_text()}, "upstream")
    git(repo, "checkout", "-q", "feature")
    run_git(repo, "rebase", "-q", "main")
    monkeypatch.setenv(REVIEWER_ENV, "assistant")
    again = load(repo).file_path
    repeated = core.add_finding(again, "f2.py", "f2 ten looks wrong here", line=13).to_dict()
    assert repeated["added"] is False
    assert repeated["earlier"] == {
        "id": found.id,
        "review_id": found.review_id,
        "status": "dismissed",
        "reason": "Intended: see the spec.",
        "author": "assistant",
    }
    assert core.list_findings(again, status="open").total == 0
    # Another problem on those lines, or the same on other lines, is added.
    assert "id" in core.add_finding(again, "f2.py", "SQL built by concatenation", line=13).to_dict()
    assert "id" in core.add_finding(again, "f3.py", "f2 ten looks wrong here", line=10).to_dict()
    forced = core.add_finding(again, "f2.py", "f2 ten looks wrong", line=13, force=True)
    assert forced.earlier is False and forced.finding.status == "open"


def test_the_cli_says_why_a_finding_was_not_added_and_takes_replies(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {REVIEWER_ENV: "ada"}
    added = run_cli(
        "finding",
        "add",
        "main..feature",
        "--file",
        "f4.py",
        "--line",
        "10",
        "--message",
        "f4 ten is wrong",
        cwd=repo,
        env=env,
    )
    assert added.returncode == 0, added.stderr
    number = added.stdout.split("#", 1)[1].split()[0]
    dismissed = run_cli("finding", "dismiss", number, "--comment", "by design", env=env)
    assert dismissed.returncode == 0, dismissed.stderr
    again = run_cli(
        "finding",
        "add",
        "main..feature",
        "--file",
        "f4.py",
        "--line",
        "10",
        "--message",
        "f4 ten is wrong!",
        cwd=repo,
        env=env,
    )
    assert again.returncode == 0, again.stderr
    assert f"Not added: finding #{number}" in again.stdout and "reason: by design" in again.stdout
    replied = run_cli("finding", "reply", number, "fine by me", env={REVIEWER_ENV: "bob"})
    assert replied.returncode == 0, replied.stderr
    listed = run_cli("finding", "list", "main..feature", "--status", "all", cwd=repo)
    assert "ada: by design" in listed.stdout and "bob: fine by me" in listed.stdout
    status = run_cli("status", "main..feature", cwd=repo)
    assert "reviewer  ada: 0 files reviewed, 1 findings" in status.stdout


def test_the_reviewer_of_a_finding_is_the_identity_a_conditional_include_sets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``[includeIf "gitdir:~/work/"]`` in ``~/.gitconfig`` names the work identity: a
    finding made in ``~/work/repo`` is signed with it, as git would sign a commit."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Ada\n\temail = ada@home.example\n"
        '[includeIf "gitdir:~/work/"]\n\tpath = ~/.gitconfig-work\n'
    )
    (home / ".gitconfig-work").write_text("[user]\n\temail = ada@work.example\n")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.delenv(REVIEWER_ENV, raising=False)
    repo = five_files(home / "work" / "repo")
    added = run_cli(
        "finding", "add", "main..feature", "--file", "f4.py", "--line", "10",
        "--message", "f4 ten is wrong", cwd=repo,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    status = run_cli("status", "main..feature", cwd=repo)
    assert "reviewer  Ada <ada@work.example>: 0 files reviewed, 1 findings" in status.stdout
