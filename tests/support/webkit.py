"""The installed ``diffchunk web`` in a process of its own, and requests to it.

:func:`page_server` starts the command (a real uvicorn on a free loopback
port), reads the URL it prints, and stops it afterwards (SIGTERM, then
SIGKILL); :class:`Page` sends requests with or without the token.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Page:
    url: str  # as printed, token included
    port: int
    token: str
    process: subprocess.Popen[str]

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(
        self,
        path: str,
        *,
        body: Any = None,
        token: bool = True,
        headers: dict[str, str] | None = None,
        method: str | None = None,
    ) -> tuple[int, Message, bytes]:
        """``(status, headers, body)`` of a request to ``path`` (the token in the header
        unless ``token`` is false); the headers are read case-insensitively."""
        sent = dict(headers or {})
        if token:
            sent.setdefault("X-Diffchunk-Token", self.token)
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            sent.setdefault("Content-Type", "application/json")
        req = urllib.request.Request(self.origin + path, data=data, headers=sent, method=method)
        try:
            with urllib.request.urlopen(req, timeout=60) as answer:
                return answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers, exc.read()

    def json(self, path: str, **kwargs: Any) -> Any:
        status, _, raw = self.request(path, **kwargs)
        assert status == 200, (status, raw[:2000])
        return json.loads(raw)


def _command() -> Path:
    return Path(sys.executable).with_name("diffchunk")


@contextmanager
def page_server(
    *args: str, cwd: Path, state: Path, cache: Path, timeout: float = 120
) -> Iterator[Page]:
    """``diffchunk web ARGS --port 0`` in ``cwd`` with its own record and cache."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "DIFFCHUNK_STATE_DIR": str(state),
        "DIFFCHUNK_CACHE_DIR": str(cache),
    }
    process = subprocess.Popen(
        [str(_command()), "web", *args, "--port", "0"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + timeout
        line = process.stdout.readline()
        while not line.startswith("Review page: ") and time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(f"diffchunk web ended: {process.communicate()[1]}")
            line = process.stdout.readline()
        url = line.split(": ", 1)[1].strip()
        parts = urlsplit(url)
        token = parts.query.split("token=", 1)[1]
        yield Page(url, int(parts.port or 0), token, process)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
