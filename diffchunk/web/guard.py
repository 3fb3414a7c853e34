"""Who may use the review page, and the headers of every answer (an ASGI middleware).

Rules, checked before any route runs:

- **The host**: the ``Host`` header must name the loopback address the page
  was printed with (``127.0.0.1:PORT``, or ``localhost:PORT``): a name that
  resolves here by DNS rebinding is refused.
- **The token**: every request carries the page's secret token (256 random
  bits).  The page and its files (``/``, ``/static/...``) take it from the
  URL's ``token`` parameter, as the printed URL gives it; every ``/api/...``
  request must carry it in the ``X-Diffchunk-Token`` header, which no other
  page can make a browser send without asking (a cross-origin request with
  that header needs a preflight this server never grants).  No cookie is
  set or read.  Without it, or with another: 403.
- **Writes** (anything but GET and HEAD) are API requests, so the header is
  required; their ``Origin``, when sent, must be the page's own, and their
  body is JSON (``Content-Type: application/json``).  On a ``--read-only``
  page every write is refused (403) and says so.
- **Headers** of every answer: a strict Content-Security-Policy (only this
  server's own script, style and data: no inline script or style, no frame,
  no form), ``nosniff``, no referrer (the URL holds the token), no caching.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_HEADER = "x-diffchunk-token"

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)

HEADERS = (
    (b"content-security-policy", CSP.encode("ascii")),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)

READ_ONLY_MESSAGE = (
    "This page is read-only (diffchunk web --read-only): nothing is written to the review "
    "record. Start it without --read-only to mark files and write findings."
)


class Guard:
    """The middleware around the page's app (see the module doc)."""

    def __init__(self, app: ASGIApp, *, token: str, port: int, read_only: bool) -> None:
        self.app = app
        self.token = token.encode("ascii")
        self.hosts = {f"127.0.0.1:{port}".encode(), f"localhost:{port}".encode()}
        self.origins = {b"http://" + host for host in self.hosts}
        self.read_only = read_only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return  # no websockets

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        refusal = self.refusal(scope)
        if refusal is not None:
            status, text = refusal
            await _answer(send_with_headers, status, text)
            return
        await self.app(scope, receive, send_with_headers)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """``(status, message)`` when the request is refused, else None."""
        headers = dict(_headers(scope))
        if headers.get(b"host") not in self.hosts:
            return 403, "Refused: this page answers only at the address it printed."
        path: str = scope.get("path", "")
        method: str = scope.get("method", "GET")
        writes = method not in ("GET", "HEAD")
        api = path.startswith("/api/")
        given = headers.get(TOKEN_HEADER.encode())
        if given is None and not api and not writes:
            given = _query_token(scope)
        if given is None or not hmac.compare_digest(given, self.token):
            where = "the X-Diffchunk-Token header" if api or writes else "the URL"
            return 403, f"Refused: the page's token is missing from {where} or wrong."
        if not writes:
            return None
        if not api:
            return 405, "Only the page's API takes writes."
        origin = headers.get(b"origin")
        if origin is not None and origin not in self.origins:
            return 403, "Refused: a write from another origin."
        if not headers.get(b"content-type", b"").startswith(b"application/json"):
            return 415, "A write's body is JSON (Content-Type: application/json)."
        if self.read_only:
            return 403, READ_ONLY_MESSAGE
        return None


def _headers(scope: Scope) -> list[tuple[bytes, bytes]]:
    return [(bytes(k).lower(), bytes(v)) for k, v in scope.get("headers", [])]


def _query_token(scope: Scope) -> bytes | None:
    query = scope.get("query_string", b"").decode("latin-1")
    values = parse_qs(query).get("token")
    return values[0].encode("latin-1", "replace") if values else None


async def _answer(send: Send, status: int, text: str) -> None:
    body = json.dumps({"error": text}).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode("ascii")),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
