"""Attributes as git sees them, from ``git check-attr`` (one batched call).

For the working tree (``treeish=None``) git reads the checked-out
``.gitattributes`` files; with ``index=True`` the staged ones.  For a commit
(``treeish="<sha>"``) the attributes must be those *of that commit*: git 2.40
added ``check-attr --source`` for this, but older gits (2.39 is common) lack
it, so the commit's tree is read into a throw-away index
(``GIT_INDEX_FILE=<tmp> git read-tree <sha>``) and ``check-attr --cached``
answers from it.  Either way git itself applies its rules: nested
``.gitattributes`` files, ``[attr]`` macros, ``$GIT_DIR/info/attributes`` and
``core.attributesFile``.

The caller names the attributes to ask for.  Answers follow ``git
check-attr``: ``True`` for *set*, ``False`` for *unset*, a string for a value;
an *unspecified* attribute is absent from a path's mapping.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence

from ..errors import GitError
from ..limits import GIT_STREAM_TIME_LIMIT
from .process import GitProcess, command_failed
from .repo import Repo, discover
from .runner import split_z

logger = logging.getLogger(__name__)

#: An attribute's value: True (set), False (unset) or the text of ``attr=value``.
AttrValue = str | bool
#: One path's attributes (unspecified ones absent).
Attributes = Mapping[str, AttrValue]


class CommitIndex:
    """A throw-away index holding one commit's tree, read in the background.

    ``git read-tree`` starts on construction, so it runs while other work
    (``git diff``, parsing) goes on; :meth:`env` waits for it.  Call
    :meth:`close` when done (the index lives in a temporary directory).
    """

    def __init__(self, repo: Repo, treeish: str) -> None:
        self.repo = repo
        self.treeish = treeish
        self._dir: str | None = tempfile.mkdtemp(prefix="diffchunk-attr-")
        self._env = {"GIT_INDEX_FILE": os.path.join(self._dir, "index")}
        self._error: GitError | None = None
        self._proc: GitProcess | None = None
        try:
            self._proc = repo.git.start(
                [*_READ_TREE, treeish],
                stdout=subprocess.DEVNULL,
                env_extra=self._env,
                what="git read-tree",
            )
        # Reported by env(), like any failure of read-tree.
        except GitError as exc:  # git is missing
            self._error = exc
        except OSError as exc:
            self._error = command_failed("git read-tree", -1, str(exc).encode())

    def ready(self) -> bool:
        """True once ``read-tree`` has exited (then :meth:`env` does not wait)."""
        return self._proc is None or self._proc.poll() is not None

    def env(self) -> Mapping[str, str]:
        """``GIT_INDEX_FILE`` for git, once the tree is read (a failure raises ``GitError``)."""
        proc = self._proc
        if proc is not None:
            self._proc = None
            try:
                proc.finish()
            except GitError as exc:
                self._error = exc
        if self._error is not None:
            raise self._error
        return self._env

    def close(self) -> None:
        proc = self._proc
        if proc is not None:
            self._proc = None
            proc.kill()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


# A full (not sparse) index: .gitattributes in every directory are read.
_READ_TREE = ["-c", "index.sparse=false", "read-tree", "--end-of-options"]


class CheckAttrSource:
    """The ``attributes`` of paths, from ``git check-attr`` (one run per lookup).

    An attribute source as :mod:`diffchunk.diff.attributes` describes them.
    """

    def __init__(
        self,
        repo_root: str | Repo,
        treeish: str | None = None,
        *,
        attributes: Sequence[str],
        index: bool = False,
        prepared: CommitIndex | None = None,
    ) -> None:
        if not attributes:
            raise ValueError("name the attributes to ask git for")
        self.repo = repo_root if isinstance(repo_root, Repo) else discover(repo_root)
        # An index of ``treeish`` already being read (not closed here).
        self.prepared = prepared if prepared is not None and prepared.treeish == treeish else None
        self.treeish = treeish
        self.index = index
        self.attributes = tuple(attributes)
        self.calls = 0  # git check-attr runs (one per lookup with paths)

    def lookup(self, paths: Sequence[str]) -> Mapping[str, Attributes]:
        unique = list(dict.fromkeys(p for p in paths if p))
        result: dict[str, dict[str, AttrValue]] = {p: {} for p in unique}
        if not unique:
            return result
        stdin = _encode_paths(unique)
        args = self.args()
        self.calls += 1
        if self.treeish is None:
            out = self.repo.git.run(args, input=stdin, what="git check-attr").stdout
        else:
            out = self._in_commit(args, stdin)
        _read_answers(out, result)
        return result

    def args(self) -> list[str]:
        """The ``git check-attr`` arguments (paths on stdin, NUL-separated)."""
        args = ["check-attr", "-z", "--stdin"]
        if self.treeish is not None or self.index:
            args.append("--cached")
        args += self.attributes
        return args

    def _in_commit(self, args: list[str], stdin: bytes) -> bytes:
        assert self.treeish is not None
        if self.prepared is not None:
            env = self.prepared.env()
            return self.repo.git.run(args, input=stdin, env_extra=env, what="git check-attr").stdout
        tmp = tempfile.mkdtemp(prefix="diffchunk-attr-")
        try:
            env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
            self.repo.git.run(
                [*_READ_TREE, self.treeish],
                env_extra=env,
                what="git read-tree",
            )
            return self.repo.git.run(args, input=stdin, env_extra=env, what="git check-attr").stdout
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def _encode_paths(paths: Sequence[str]) -> bytes:
    return b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths)


def _read_answers(out: bytes, result: dict[str, dict[str, AttrValue]]) -> None:
    """Add the set/unset/valued attributes of ``check-attr -z`` output to ``result``."""
    _add_answers(split_z(out), result)


def _add_answers(fields: Sequence[bytes], result: dict[str, dict[str, AttrValue]]) -> None:
    for i in range(0, len(fields) - 2, 3):
        if fields[i + 2] == b"unspecified":  # most answers: nothing to record
            continue
        path = fields[i].decode("utf-8", "surrogateescape")
        attr = fields[i + 1].decode("utf-8", "surrogateescape")
        info = fields[i + 2].decode("utf-8", "surrogateescape")
        value = _value(info)
        if value is not None:
            result.setdefault(path, {})[attr] = value


class StreamedCheckAttr:
    """An attribute source told the paths early: ``git check-attr`` answers meanwhile.

    :meth:`add` hands paths to one long-running ``git check-attr --stdin``
    (started once the commit's tree is read, see :class:`CommitIndex`), so
    the answers are ready when :meth:`lookup` asks; paths never added are
    looked up by a plain :class:`CheckAttrSource`.  Call :meth:`close`.
    """

    def __init__(
        self,
        repo: Repo,
        treeish: str | None,
        *,
        attributes: Sequence[str],
        index: bool = False,
        prepared: CommitIndex | None = None,
    ) -> None:
        self.repo = repo
        self.prepared = prepared
        self.plain = CheckAttrSource(
            repo, treeish, attributes=attributes, index=index, prepared=prepared
        )
        self._sent: set[str] = set()
        self._waiting: list[str] = []
        self._proc: GitProcess | None = None
        self._reader: threading.Thread | None = None
        self._read: dict[str, dict[str, AttrValue]] = {}  # answers read so far (reader thread)
        self._answers: dict[str, dict[str, AttrValue]] | None = None

    def add(self, paths: Iterable[str]) -> None:
        """Queue ``paths``; sends them as soon as git can take them (never blocks on read-tree)."""
        if self._answers is not None:
            return
        sent = self._sent
        for p in paths:
            if p and p not in sent:
                sent.add(p)
                self._waiting.append(p)
        try:
            if self._proc is None and (self.prepared is None or self.prepared.ready()):
                self._start()
            self._send()
        except (GitError, OSError) as exc:
            # Never fails the caller: lookup() asks again (and reports) later.
            logger.debug("streaming paths to git check-attr failed: %s", exc)
            self._kill()
            self._sent.clear()
            self._waiting = []
            self._answers = {}

    def _start(self) -> None:
        env = self.prepared.env() if self.prepared is not None else None
        self._proc = self.repo.git.start(
            self.plain.args(),
            stdin=subprocess.PIPE,
            env_extra=env,
            what="git check-attr",
            time_limit=GIT_STREAM_TIME_LIMIT,  # it answers for as long as git diff writes
        )
        stdout = self._proc.stdout
        assert stdout is not None
        self._reader = threading.Thread(
            target=self._read_all, args=(stdout.fileno(),), name="check-attr", daemon=True
        )
        self._reader.start()

    def _read_all(self, fd: int) -> None:
        """Reader thread: decode answers as they come (git flushes after each path)."""
        rest = b""
        while True:
            try:
                block = os.read(fd, 1 << 16)
            except OSError:
                return
            if not block:
                break
            fields = (rest + block).split(b"\0")
            # The last field is unterminated; so may be the last triple.
            whole = len(fields) - 1
            whole -= whole % 3
            _add_answers(fields[:whole], self._read)
            rest = b"\0".join(fields[whole:])
        _read_answers(rest, self._read)

    def _send(self) -> None:
        proc = self._proc
        if proc is None or not self._waiting:
            return
        assert proc.stdin is not None
        data = _encode_paths(self._waiting)
        self._waiting = []
        proc.stdin.write(data)

    def _finish(self) -> dict[str, dict[str, AttrValue]]:
        if self._answers is None:
            answers: dict[str, dict[str, AttrValue]] = {}
            try:
                if self._sent:
                    if self._proc is None:
                        self._start()
                    self._send()
                    proc = self._proc
                    assert proc is not None and proc.stdin is not None and proc.stderr is not None
                    proc.stdin.close()
                    err = proc.stderr.read()
                    assert self._reader is not None
                    self._reader.join()
                    code = proc.wait()
                    if code != 0:
                        raise command_failed("git check-attr", code, err)
                    answers = self._read
            except OSError as exc:
                raise command_failed("git check-attr", -1, str(exc).encode()) from None
            finally:
                self._answers = answers
                self._kill()
            for path in self._sent:
                answers.setdefault(path, {})
        return self._answers

    def lookup(self, paths: Sequence[str]) -> Mapping[str, Attributes]:
        answers = self._finish()
        missing = [p for p in paths if p and p not in answers]
        result: dict[str, Attributes] = {p: answers[p] for p in paths if p in answers}
        if missing:
            result.update(self.plain.lookup(missing))
        for p in paths:
            result.setdefault(p, {})
        return result

    def _kill(self) -> None:
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        proc.stop()
        if self._reader is not None:
            self._reader.join()  # git is gone: its stdout is at EOF
        proc.close()

    def close(self) -> None:
        """Stop git if it still runs and remove the prepared index."""
        if self._answers is None:
            self._answers = {}
        self._kill()
        if self.prepared is not None:
            self.prepared.close()


def _value(info: str) -> AttrValue | None:
    if info == "set":
        return True
    if info == "unset":
        return False
    if info == "unspecified":
        return None
    return info
