"""Serving an ASGI app with uvicorn on 127.0.0.1, in a thread of its own.

The listening socket is bound here, on an ephemeral port (so parallel test
workers never collide), and with ``IPPROTO_TCP`` spelled out: asyncio only
sets ``TCP_NODELAY`` on accepted sockets whose ``proto`` is ``IPPROTO_TCP``,
and with Nagle on each request/response pair costs ~40 ms.

The app is built inside the server's own (asyncio) event loop: anyio
primitives bind to the backend they are created under, and the test that
starts the server may be running trio.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import uvicorn

__all__ = ["HttpServer"]

_START_TIMEOUT_SECONDS = 5.0
_STOP_TIMEOUT_SECONDS = 5.0


class HttpServer:
    """One uvicorn server for the app ``build()`` returns; ``url`` is its base URL.

    ``start()`` and ``stop()`` it, or use it as a context manager.
    """

    def __init__(self, build: Callable[[], Any], *, name: str) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        config = uvicorn.Config(
            _BuiltInLoop(build), log_level="error", lifespan="on", timeout_graceful_shutdown=1
        )
        self._server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + _START_TIMEOUT_SECONDS
        while not self._server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("uvicorn did not start")
            self.thread.join(0.01)

    def stop(self) -> None:
        self._server.should_exit = True
        if self.thread.is_alive():
            self.thread.join(_STOP_TIMEOUT_SECONDS)
        self._sock.close()

    def __enter__(self) -> HttpServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def drop_connections(self) -> None:
        """Abort every open connection, as a crashing server would (call from the server's loop)."""
        for connection in list(self._server.server_state.connections):
            transport = getattr(connection, "transport", None)
            if transport is not None:
                transport.abort()

    def _run(self) -> None:
        asyncio.run(self._server.serve(sockets=[self._sock]))


class _BuiltInLoop:
    """An ASGI app that builds the real one on its first event (lifespan startup)."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._app: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self._app is None:
            self._app = self._build()
        await self._app(scope, receive, send)
