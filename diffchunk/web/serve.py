"""Serving the review page: a loopback socket, a secret token, uvicorn until Ctrl-C.

The socket is bound here, on ``127.0.0.1`` only (port 0: a free port the
system picks), before uvicorn starts, so the printed URL names the port
actually served.  The token is :data:`PAGE_TOKEN_BYTES`
random bytes (``secrets``), in the URL only: the page sends it back in a
header (see :mod:`.guard`).  uvicorn trusts no proxy header, sends no
``Server`` header and logs no request (the URL holds the token).
"""

from __future__ import annotations

import secrets
import socket
import webbrowser
from collections.abc import Callable

from .app import PageConfig, build_app
from .guard import Guard

PAGE_TOKEN_BYTES = 32
"""Random bytes of the page's secret token (256 bits), as in the printed URL."""

PAGE_SHUTDOWN_SECONDS = 5
"""Seconds the page's server waits for open requests when it is stopped."""


LOOPBACK = "127.0.0.1"


def new_token() -> str:
    return secrets.token_urlsafe(PAGE_TOKEN_BYTES)


def bind(port: int) -> socket.socket:
    """A listening socket on the loopback address (``port`` 0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOOPBACK, port))
        sock.listen()
    except OSError:
        sock.close()
        raise
    return sock


def page_url(sock: socket.socket, token: str) -> str:
    return f"http://{LOOPBACK}:{sock.getsockname()[1]}/?token={token}"


def serve(
    config: PageConfig,
    sock: socket.socket,
    *,
    open_browser: bool = False,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve ``config``'s page on ``sock`` until interrupted; ``announce`` gets the URL."""
    import uvicorn

    port = sock.getsockname()[1]
    app = Guard(build_app(config), token=config.token, port=port, read_only=config.read_only)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            lifespan="off",
            log_level="warning",
            access_log=False,
            proxy_headers=False,
            server_header=False,
            timeout_graceful_shutdown=PAGE_SHUTDOWN_SECONDS,
        )
    )
    url = page_url(sock, config.token)
    announce(url)
    if open_browser:
        webbrowser.open(url)
    server.run(sockets=[sock])
