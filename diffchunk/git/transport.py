"""The one git that may use a transport: ``diffchunk sync`` publishing the review record.

Every other git diffchunk runs is sandboxed (:mod:`~diffchunk.git.runner`): no
config but diffchunk's, no ``HOME``, ``GIT_ALLOW_PROTOCOL`` empty.  Sync is a
person's action (``diffchunk sync``, or the pre-push hook when the repository
sets ``diffchunk.sync``): it pushes and fetches ``refs/diffchunk/...`` with the
user's own transport, as ``git push`` would, so its git runs with the user's
environment (``HOME``: their global config, credential helpers, ssh keys and
agent, proxies) and no sandbox walls.

What keeps it apart:

- it runs in a **bare repository of diffchunk's own** (one per reviewed
  repository, in the state directory: :func:`sync_git_dir`), made with no
  templates (so no hooks), never in the user's repository: the repository's
  own config, hooks and filters are never read by it.  Its remote is a URL
  read from the repository's config by diffchunk's parser
  (:func:`~diffchunk.git.remotes.remote_url`);
- the environment is the user's minus every ``GIT_*`` variable that places a
  repository or changes what git reads (a pre-push hook runs with
  ``GIT_DIR`` set); those that only concern the transport are kept
  (:data:`_TRANSPORT_ENV`);
- only :mod:`diffchunk.review.record.sync` imports this module, and neither
  the MCP server nor the review page may import either (an import-linter
  contract in ``pyproject.toml``): no MCP tool touches the network.

Each git is bounded in time as any other
(:data:`SYNC_GIT_TIME_LIMIT`).  A fetch is bounded in bytes too
(:meth:`TransportCommand.fetch`): what the remote sends is always kept as one
pack (never unpacked into loose objects), and no file the fetch writes may pass
the bound the caller gives, by the kernel's file size limit set before git
starts; a fetch stopped by it is refused with that bound, and its partial pack
removed.  The fetch starts none of git's housekeeping, which would run under that
bound: ``git gc --auto`` runs after it, outside the bound.  One fetch at a time runs in a sync repository (a lock file,
:data:`FETCH_LOCK`): the partial packs a failed fetch removes are its own, never
those of another sync's fetch under way (a pre-push hook's beside a person's),
which is refused while one runs.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import logging
import os
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from ..errors import GitError
from ..paths import state_dir
from .process import GitProcess, command_failed
from .runner import GitCommand

logger = logging.getLogger(__name__)

SYNC_GIT_TIME_LIMIT = 300.0
"""How long one git of ``diffchunk sync`` may run (a push or fetch over a slow
network, a credential prompt answered by a person): minutes, not forever."""

# Received objects stay one pack, written by index-pack as they arrive, whose file the
# size limit bounds (loose objects would be many files, each under it).
_ONE_PACK = ("-c", "fetch.unpackLimit=1", "-c", "transfer.unpackLimit=1")

# The fetch starts none of git's housekeeping: started by it, a repack of the whole sync
# repository ran under the fetch's file size limit, was killed there once the repository
# had grown past it (every time), and left its temporary pack behind.
_NO_HOUSEKEEPING = ("-c", "maintenance.auto=false", "-c", "gc.auto=0")

# The housekeeping a fetch would have started, run after it: in the foreground, so that it
# is bounded in time as any git here is and ends with the sync.
_HOUSEKEEPING = ("-c", "gc.autoDetach=false")

# The user's GIT_* variables a transport reads, kept as git push would see them.
_TRANSPORT_ENV = frozenset(
    {
        "GIT_ASKPASS",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_SSH_VARIANT",
        "GIT_TERMINAL_PROMPT",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_CONFIG_SYSTEM",
        "GIT_SSL_NO_VERIFY",
        "GIT_SSL_CAINFO",
        "GIT_SSL_CAPATH",
        "GIT_PROXY_COMMAND",
        "GIT_PROXY_SSL_CERT",
        "GIT_PROXY_SSL_KEY",
        "GIT_PROXY_SSL_CAINFO",
        "GIT_HTTP_USER_AGENT",
        "GIT_ALLOW_PROTOCOL",
        "GIT_PROTOCOL_FROM_USER",
        "GIT_EXEC_PATH",
        "GIT_TRACE",
        "GIT_CURL_VERBOSE",
    }
)


class TransportCommand(GitCommand):
    """git in diffchunk's sync repository, with the user's transport (see the module doc)."""

    def env(self, env_extra: Mapping[str, str] | None = None) -> dict[str, str]:
        env = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith("GIT_") or name in _TRANSPORT_ENV
        }
        env.update(self.env_vars)
        env.setdefault("LC_ALL", "C")  # messages are parsed
        if env_extra:
            env.update(env_extra)
        return env

    def start(self, args: Sequence[str], **kwargs: Any) -> GitProcess:
        kwargs.setdefault("time_limit", SYNC_GIT_TIME_LIMIT)
        return super().start(args, **kwargs)

    def fetch(self, args: Sequence[str], *, max_bytes: int, what: str) -> None:
        """``git fetch ARGS`` receiving at most ``max_bytes`` of pack; past that it is
        stopped and refused (:class:`GitError`), and nothing it received is kept.  Refused
        while another fetch runs in this repository (see the module doc)."""
        with _alone(self.cwd, what):
            self._fetch(args, max_bytes, what)

    def _fetch(self, args: Sequence[str], max_bytes: int, what: str) -> None:
        git = self.with_options(*_ONE_PACK, *_NO_HOUSEKEEPING)
        try:
            with git.start(["fetch", *args], what=what, file_size_limit=max_bytes) as proc:
                done = proc.finish(check=False)
        except BaseException:
            self._drop_partial_packs(max_bytes)
            raise
        if done.returncode == 0:
            self._housekeep(what)
            return
        if self._drop_partial_packs(max_bytes):
            raise GitError(
                f"{what} was stopped: the remote sent more than {max_bytes:,} bytes, far "
                "more than review logs take. Nothing of it was kept or applied.",
                suggestion="A ref under refs/diffchunk/log/ on the remote holds something "
                "else: ask whoever can push there to delete it (git push REMOTE --delete "
                "REF), then sync again.",
            )
        raise command_failed(what, done.returncode, done.stderr)

    def _housekeep(self, what: str) -> None:
        """``git gc --auto`` after a fetch, without the fetch's file size limit (see
        :data:`_NO_HOUSEKEEPING`): the objects it packs were each received within it.  A
        failure leaves the fetched logs as they are and is only logged: the next fetch
        tries again."""
        done = self.with_options(*_HOUSEKEEPING).run(
            ["gc", "--auto", "--quiet"], check=False, what=f"housekeeping after {what}"
        )
        if done.returncode != 0:
            logger.warning(
                "git gc --auto in %s failed (%s): %s",
                self.cwd,
                done.returncode,
                done.stderr.decode("utf-8", "replace").strip(),
            )

    def _drop_partial_packs(self, max_bytes: int) -> bool:
        """Remove the packs a failed or stopped fetch left unfinished; whether one had
        reached ``max_bytes`` (the fetch was stopped by the bound)."""
        partial = glob.glob(os.path.join(self.cwd, "objects", "pack", "tmp_*"))
        reached = False
        for path in partial:
            with contextlib.suppress(FileNotFoundError):
                reached = reached or os.path.getsize(path) >= max_bytes
                os.unlink(path)
        return reached


FETCH_LOCK = "diffchunk-fetch.lock"
"""The file of a sync repository a fetch holds locked (``flock``) while it runs."""


@contextlib.contextmanager
def _alone(git_dir: str, what: str) -> Iterator[None]:
    """Hold ``git_dir``'s :data:`FETCH_LOCK`, or refuse: another fetch holds it."""
    import fcntl

    fd = os.open(os.path.join(git_dir, FETCH_LOCK), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise GitError(
                f"{what} did not start: another sync of this repository is fetching.",
                suggestion="Sync again when it has ended (each git of a sync is bounded in time).",
            ) from None
        yield
    finally:
        os.close(fd)


def sync_git_dir(common_dir: str) -> str:
    """The sync repository of the repository whose common dir is ``common_dir``."""
    key = hashlib.sha256(common_dir.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return os.path.join(state_dir(), "sync", f"{key}.git")


def transport_command(common_dir: str) -> TransportCommand:
    """git for syncing the record of the repository at ``common_dir``: in its sync
    repository, made (bare, without templates) when missing."""
    git_dir = sync_git_dir(common_dir)
    command = TransportCommand(git_dir, MappingProxyType({"GIT_DIR": git_dir}))
    if not os.path.isfile(os.path.join(git_dir, "HEAD")):
        os.makedirs(git_dir, mode=0o700, exist_ok=True)
        command.run(["init", "-q", "--bare", "--template=", git_dir])
    return command
