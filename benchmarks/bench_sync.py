"""``make bench-sync``: ``diffchunk sync`` of a large review record, both ways.

Two reviewers (two records, two clones of one local bare remote). Ada's record
holds a review of ``main..feature`` with ``--findings`` findings (each with an
update and a reply every fifth) and ``--marks`` reviewed marks, written as the
record's own operations. Printed: the operations and the log's bytes, then the
wall-clock time of each sync (best of ``--repeat`` where the run can be repeated
unchanged) and the bytes the remote holds after it:

1. ada publishes (fetch of nothing, her log written and pushed);
2. bob fetches and applies everything (his record had none of it);
3. bob syncs again (nothing new: fetch, compare, push of an unchanged ref);
4. ada syncs again after bob (his small log read, nothing of hers changed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

from tests.support.gitrepo import commit, git, git_environment, init_repo


def numbered(prefix: str, count: int, changed: dict[int, str] | None = None) -> str:
    changed = changed or {}
    return "".join(f"{changed.get(i, f'{prefix} {i}')}\n" for i in range(1, count + 1))


def _repo(root: Path) -> tuple[Path, Path, Path]:
    origin = init_repo(root / "origin")
    commit(origin, {f"src/m{i}.py": numbered(f"m{i}", 40) for i in range(20)}, "base")
    git(origin, "checkout", "-q", "-b", "feature")
    commit(origin, {f"src/m{i}.py": numbered(f"m{i}", 40, {10: "x"}) for i in range(20)})
    remote = root / "remote.git"
    env = git_environment()
    subprocess.run(["git", "clone", "-q", "--bare", str(origin), str(remote)], check=True, env=env)
    clones = []
    for name in ("ada", "bob"):
        clone = root / name
        subprocess.run(["git", "clone", "-q", str(remote), str(clone)], check=True, env=env)
        git(clone, "checkout", "-q", "feature")
        git(clone, "branch", "-q", "main", "origin/main")
        clones.append(clone)
    return remote, clones[0], clones[1]


def _as(root: Path, name: str) -> None:
    os.environ["DIFFCHUNK_STATE_DIR"] = str(root / f"state-{name}")
    os.environ["DIFFCHUNK_CACHE_DIR"] = str(root / f"cache-{name}")
    os.environ["DIFFCHUNK_REVIEWER"] = name


def _fill(clone: Path, findings: int, marks: int) -> int:
    """Write ada's operations; how many."""
    from diffchunk.review import record as core
    from diffchunk.review.incremental.load import load_git_diff
    from diffchunk.review.record import oplog
    from diffchunk.review.record.store import default_record

    path = load_git_diff(str(clone), "main..feature").file_path
    review = core.review_status(path).review.id

    def work(conn: object) -> int:
        count = 0
        for i in range(findings):
            uid = oplog.new_uid()
            data = {
                "finding": uid, "file_path": f"src/m{i % 20}.py", "side": "new",
                "line": 10, "end_line": 10, "severity": "minor",
                "message": f"Finding {i}: does value {i} hold when the cache is cold?",
                "suggestion": None, "lines": "x\n", "context_before": "m 7\nm 8\nm 9\n",
                "context_after": "m 11\nm 12\nm 13\n", "change_id": "c" * 40,
                "base": None, "head": None,
            }  # fmt: skip
            oplog.emit(conn, review, "finding", "ada", data)  # type: ignore[arg-type]
            oplog.emit(conn, review, "update", "ada", {"finding": uid, "status": "resolved"})  # type: ignore[arg-type]
            count += 2
            if i % 5 == 0:
                oplog.emit(conn, review, "comment", "ada", {"finding": uid, "body": "Fixed."})  # type: ignore[arg-type]
                count += 1
        for i in range(marks):
            data = {"path": f"src/m{i}.py", "scope": "file", "change_id": f"{i:040x}", "on": True}
            oplog.emit(conn, review, "mark", "ada", data)  # type: ignore[arg-type]
            count += 1
        return count

    return int(default_record().write(work))  # type: ignore[arg-type]


def _remote_bytes(remote: Path) -> int:
    total = 0
    for directory, _, files in os.walk(remote / "objects"):
        total += sum(os.path.getsize(os.path.join(directory, f)) for f in files)
    return total


def _timed(clone: Path) -> tuple[float, object]:
    from diffchunk.review.record.sync import sync

    start = time.perf_counter()
    result = sync(str(clone))
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--findings", type=int, default=2000)
    parser.add_argument("--marks", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-sync-") as tmp:
        root = Path(tmp)
        remote, ada, bob = _repo(root)
        before = _remote_bytes(remote)
        _as(root, "ada")
        ops = _fill(ada, args.findings, args.marks)
        print(f"ada's record: {args.findings:,} findings, {args.marks:,} marks: {ops:,} operations")
        seconds, result = _timed(ada)
        sent = result.published_bytes  # type: ignore[attr-defined]
        pushed = _remote_bytes(remote) - before
        print(
            f"1. ada publishes:           {seconds:6.2f} s  log {sent:,} bytes, remote +{pushed:,} bytes"
        )
        _as(root, "bob")
        seconds, result = _timed(bob)
        applied = result.applied.new  # type: ignore[attr-defined]
        print(f"2. bob fetches and applies: {seconds:6.2f} s  {applied:,} new operations")
        best = min(_timed(bob)[0] for _ in range(args.repeat))
        print(f"3. bob syncs again:         {best:6.2f} s  (nothing new; best of {args.repeat})")
        _as(root, "ada")
        best = min(_timed(ada)[0] for _ in range(args.repeat))
        print(f"4. ada syncs after bob:     {best:6.2f} s  (best of {args.repeat})")
        print(f"remote objects: {_remote_bytes(remote) - before:,} bytes for the review logs")


if __name__ == "__main__":
    main()
